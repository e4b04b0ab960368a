import { ApplicationError, defineActivity, NonRetryableError } from "../sdk/activity";
import { ActivityFailure, defineWorkflow } from "../sdk/workflow";
import type { PayloadValue } from "../codec/codec";

/**
 * The demo fleet's workflows and activities. Each order carries a `scenario` that decides how its
 * activities behave, so every failure mode the console shows (transient retries, non-retryable
 * declines, exhausted retries, timeouts) is produced by real worker behaviour over the wire,
 * deterministically.
 */

export type OrderScenario = "happy" | "transient" | "declined" | "exhausted" | "slow_invoice";

export interface Order {
  orderId: string;
  customer: string;
  amountCents: number;
  scenario: OrderScenario;
}

/** Backoffs are seconds; the documented `[5, 30]` is shortened so retries show up on screen quickly. */
export const CHARGE_CARD_OPTIONS = { tries: 3, backoff: [2, 5], nonRetryable: ["PaymentDeclined"] };

export class PaymentDeclined extends NonRetryableError {}

function asOrder(v: PayloadValue): Order {
  const o = v as unknown as Order;
  return {
    orderId: String(o.orderId),
    customer: String(o.customer),
    amountCents: Number(o.amountCents),
    scenario: o.scenario,
  };
}

const pause = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(t);
      resolve();
    });
  });

export const reserveInventory = defineActivity("ReserveInventory", async (ctx, order) => {
  const o = asOrder(order);
  await pause(50);
  return { reservationId: `res-${ctx.idempotencyKey.slice(-8)}`, orderId: o.orderId };
});

export const releaseInventory = defineActivity("ReleaseInventory", async (_ctx, reservationId) => {
  await pause(20);
  return { released: reservationId };
});

export const chargeCard = defineActivity(
  "ChargeCard",
  async (ctx, order) => {
    const o = asOrder(order);
    await pause(80);
    if (o.scenario === "declined")
      throw new PaymentDeclined(`Card for ${o.customer} was declined by the issuer (insufficient funds).`);
    if (o.scenario === "exhausted")
      throw new ApplicationError("Payment gateway unavailable (HTTP 503).", "GatewayUnavailable");
    if (o.scenario === "transient" && ctx.attempt < 2)
      throw new ApplicationError("Payment gateway timed out after 10s.", "GatewayTimeout");
    // The execution id is stable across retries: the gateway deduplicates charges on it.
    return {
      chargeId: `ch_${ctx.idempotencyKey.slice(-10)}`,
      amountCents: o.amountCents,
      idempotencyKey: ctx.idempotencyKey,
    };
  },
  CHARGE_CARD_OPTIONS,
);

export const generateInvoice = defineActivity(
  "GenerateInvoice",
  async (ctx, order) => {
    const o = asOrder(order);
    // A slow renderer: beyond the 3 s start-to-close budget, so the attempt times out.
    if (o.scenario === "slow_invoice") await pause(8_000, ctx.signal);
    await pause(30);
    return { invoice: `INV-${o.orderId}` };
  },
  { timeouts: { startToClose: 3 } },
);

export const shipOrder = defineActivity("ShipOrder", async (_ctx, order) => {
  const o = asOrder(order);
  await pause(60);
  return { trackingNumber: `1Z${o.orderId.replace(/\D/g, "").padStart(8, "0")}` };
});

export const sendReceipt = defineActivity("SendReceipt", async (_ctx, order) => {
  const o = asOrder(order);
  await pause(20);
  return { sentTo: `${o.customer}@example.com` };
});

export const issueRefund = defineActivity("IssueRefund", async (ctx, orderId, approved) => {
  await pause(40);
  return {
    orderId,
    refunded: approved === true,
    refundId: approved === true ? `re_${ctx.idempotencyKey.slice(-8)}` : null,
  };
});

export const syncInventoryPage = defineActivity("SyncInventoryPage", async (_ctx, round) => {
  await pause(40);
  return { round, skus: 250 };
});

export const packParcel = defineActivity("PackParcel", async (_ctx, parcel) => {
  await pause(40);
  return { parcel, packed: true };
});

/** Settled on the `payments` queue, where the crashing worker claims and abandons it. */
export const settlePayment = defineActivity("SettlePayment", async (ctx, batchId) => {
  await pause(50);
  return { batchId, settlementId: `st_${ctx.idempotencyKey.slice(-8)}` };
});

/** The steps an order goes through, in order: the `progress` query counts them. */
const ORDER_STEPS = ["reserve", "charge", "invoice", "ship", "receipt"] as const;

/**
 * Answers three queries: `status` and `progress` from the replayed state, and `ledger`, whose
 * handler always fails (the demo of a query's error). It declares them, and no signals: the server
 * then refuses a signal to an order, which waits for none.
 */
export const orderWorkflow = defineWorkflow(
  "OrderWorkflow",
  function* (ctx, raw) {
    const order = asOrder(raw);
    const done: string[] = [];
    let stage = "reserving inventory";
    ctx.setQueryHandler("status", () => ({ orderId: order.orderId, customer: order.customer, stage }));
    ctx.setQueryHandler("progress", () => ({ done: done.length, total: ORDER_STEPS.length, steps: [...done] }));
    ctx.setQueryHandler("ledger", () => {
      throw new Error("charge ledger is not loaded");
    });
    const step = (name: (typeof ORDER_STEPS)[number], next: string) => {
      done.push(name);
      stage = next;
    };
    const reservation = (yield ctx.activity("ReserveInventory", [raw])) as { reservationId: string };
    step("reserve", "charging card");
    let charge: PayloadValue;
    try {
      charge = yield* ctx.activity("ChargeCard", [raw]);
    } catch (e) {
      // Compensate, then let the failure close the run: a failed run is terminal by design.
      stage = "releasing inventory";
      if (e instanceof ActivityFailure) yield ctx.activity("ReleaseInventory", [reservation.reservationId]);
      stage = "charge failed";
      throw e;
    }
    step("charge", "generating invoice");
    const invoice = yield ctx.activity("GenerateInvoice", [raw]);
    step("invoice", "shipping");
    const shipment = yield ctx.activity("ShipOrder", [raw]);
    step("ship", "sending receipt");
    yield ctx.activity("SendReceipt", [raw]);
    step("receipt", "fulfilled");
    return { orderId: order.orderId, status: "fulfilled", charge, invoice, shipment };
  },
  { contract: { queries: ["status", "progress", "ledger"], signals: [] } },
);

/** Waits for an operator's `approve` signal (`[true]` or `[false]`); with a timeout it rejects by default. */
export const refundApprovalWorkflow = defineWorkflow(
  "RefundApprovalWorkflow",
  function* (ctx, orderId, timeoutSeconds) {
    // Answered, not declared: this workflow keeps admitting any signal (the signal specs send a mistyped one).
    let stage = "waiting for approve";
    ctx.setQueryHandler("status", () => ({ orderId, stage }));
    const decision = yield* ctx.waitForSignal(
      "approve",
      typeof timeoutSeconds === "number" ? timeoutSeconds : undefined,
    );
    const approved = decision !== null && decision[0] === true;
    stage = approved ? "refunding" : decision === null ? "approval timed out" : "refund declined";
    const refund = yield ctx.activity("IssueRefund", [orderId, approved]);
    return { orderId, approved, timedOut: decision === null, refund };
  },
);

/** Nightly inventory sync: one page per run, continued as new until the last page. */
export const inventorySyncWorkflow = defineWorkflow("InventorySyncWorkflow", function* (ctx, round, lastRound) {
  const r = Number(round);
  yield ctx.activity("SyncInventoryPage", [r]);
  if (r < Number(lastRound)) return ctx.continueAsNew([r + 1, lastRound]);
  return { rounds: r };
});

export const parcelWorkflow = defineWorkflow("ParcelWorkflow", function* (ctx, parcel) {
  const packed = yield ctx.activity("PackParcel", [parcel]);
  return packed;
});

/** A shipment batch fans out to one child workflow per parcel. */
export const shipmentBatchWorkflow = defineWorkflow("ShipmentBatchWorkflow", function* (ctx, batchId, parcels) {
  const results: PayloadValue[] = [];
  for (const parcel of parcels as PayloadValue[])
    results.push((yield ctx.child("ParcelWorkflow", [parcel])) as PayloadValue);
  return { batchId, parcels: results };
});

/** Sleeps past its execution timeout: the engine closes it failed / timed_out. */
export const fulfillmentWorkflow = defineWorkflow("FulfillmentWorkflow", function* (ctx, orderId) {
  yield ctx.sleep(3600);
  yield ctx.activity("ShipOrder", [{ orderId, customer: "late", amountCents: 0, scenario: "happy" }]);
  return { orderId };
});

/** Parks on a timer (120 s unless the start says otherwise); its transport is the task the fault injection deletes. */
export const warehouseRestockWorkflow = defineWorkflow("WarehouseRestockWorkflow", function* (ctx, sku, sleepSeconds) {
  yield ctx.sleep(typeof sleepSeconds === "number" && sleepSeconds > 0 ? sleepSeconds : 120);
  yield ctx.activity("SyncInventoryPage", [sku]);
  return { sku, restocked: true };
});

/** Every voucher in the demo has expired: applying one is a permanent failure, not worth a retry. */
export class VoucherExpired extends NonRetryableError {}

/** A blank address is refused; plain Error, so the failure is not marked non-retryable. */
export class InvalidAddress extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidAddress";
  }
}

export const dispatchParcel = defineActivity("DispatchParcel", async (_ctx, parcelId, address) => {
  await pause(40);
  return { parcelId, address, dispatched: true };
});

/** The names `deliveryHoldWorkflow` declares (its command contract), for specs and the fleet. */
export const DELIVERY_HOLD = {
  type: "DeliveryHoldWorkflow",
  query: "status",
  release: "release",
  changeAddress: "changeAddress",
  applyVoucher: "applyVoucher",
} as const;

/**
 * Holds a parcel at the depot until the `release` signal, then dispatches it: the demo of updates.
 * `changeAddress [address]` completes with the new address; a blank one fails (`InvalidAddress`,
 * retryable). `applyVoucher [code]` always fails non-retryably (`VoucherExpired`). The `status`
 * query reads the address the completed updates left.
 */
export const deliveryHoldWorkflow = defineWorkflow(
  DELIVERY_HOLD.type,
  function* (ctx, parcelId, address) {
    let current = typeof address === "string" && address !== "" ? address : "depot pickup";
    let addressChanges = 0;
    let stage = "held at depot";
    ctx.setQueryHandler(DELIVERY_HOLD.query, () => ({ parcelId, address: current, addressChanges, stage }));
    ctx.setUpdateHandler(DELIVERY_HOLD.changeAddress, (next) => {
      if (typeof next !== "string" || next.trim() === "") throw new InvalidAddress("the new address is blank");
      current = next.trim();
      addressChanges += 1;
      return { parcelId, address: current, addressChanges };
    });
    ctx.setUpdateHandler(DELIVERY_HOLD.applyVoucher, (code) => {
      throw new VoucherExpired(`voucher ${String(code)} expired on 2026-11-30`);
    });
    yield* ctx.waitForSignal(DELIVERY_HOLD.release);
    stage = "dispatched";
    const dispatched = yield ctx.activity("DispatchParcel", [parcelId, current]);
    return { parcelId, address: current, addressChanges, dispatched };
  },
  {
    contract: {
      queries: [DELIVERY_HOLD.query],
      signals: [DELIVERY_HOLD.release],
      updates: [DELIVERY_HOLD.applyVoucher, DELIVERY_HOLD.changeAddress],
    },
  },
);

export const settlementWorkflow = defineWorkflow("SettlementWorkflow", function* (ctx, batchId) {
  const settled = yield ctx.activity("SettlePayment", [batchId], { queue: "payments", tries: 3 });
  return settled;
});

export const demoWorkflows = [
  orderWorkflow,
  refundApprovalWorkflow,
  inventorySyncWorkflow,
  parcelWorkflow,
  shipmentBatchWorkflow,
  fulfillmentWorkflow,
  warehouseRestockWorkflow,
  settlementWorkflow,
  deliveryHoldWorkflow,
];

export const defaultQueueActivities = [
  reserveInventory,
  releaseInventory,
  chargeCard,
  generateInvoice,
  shipOrder,
  sendReceipt,
  issueRefund,
  syncInventoryPage,
  packParcel,
  dispatchParcel,
];

export const paymentsQueueActivities = [settlePayment];
