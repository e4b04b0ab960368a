import * as z from "zod";
import { optionalInt, optionalString, optionalTimestamp, timestamp } from "./schema-kit";

/**
 * The receipt of `POST /workflows/{id}[/runs/{runId}]/request-cancellation` (cooperative
 * cancellation). server@11d35b7 has no such route; the shape is what sdk-python 2.12.0
 * `client.py` `request_workflow_cancellation` and `_cooperative_cancellation.py`
 * `CancellationRequest.from_observation` accept (lib/dw/fixtures/cancellation.md says which key
 * follows which source; docs/contract.md "Cooperative cancellation").
 */
export const cancellationObservationSchema = z.looseObject({
  request_id: z.string().min(1),
  requested_at: timestamp,
  cleanup_deadline_at: timestamp,
  delivery_sequence: optionalInt,
  delivered_at: optionalTimestamp,
  history_refresh_page_token: optionalString,
});

export const cancellationReceiptSchema = z.looseObject({
  workflow_id: z.string(),
  run_id: z.string(),
  // The SDK treats anything but `accepted: true` as a broken answer.
  accepted: z.literal(true),
  duplicate: z.boolean(),
  run_status: optionalString,
  cancellation_request: cancellationObservationSchema,
  reason: optionalString,
});
export type CancellationReceipt = z.infer<typeof cancellationReceiptSchema>;
