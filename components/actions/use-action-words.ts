"use client";

import { useTranslations } from "next-intl";
import type { Capability } from "@/lib/views/capabilities";
import type { Step } from "@/lib/confirm/confirm";
import { REJECTION_REASONS } from "@/lib/dw/enums";
import type { ActionError } from "@/lib/actions/contract";

const KNOWN_REJECTIONS = new Set<string>([
  ...REJECTION_REASONS,
  "historical_run_command_rejected",
  "rejected_duplicate",
  "workflow_id_reserved_in_namespace",
  "cooperative_cancellation_propagation_not_available",
]);
type KnownRejection =
  | (typeof REJECTION_REASONS)[number]
  | "historical_run_command_rejected"
  | "rejected_duplicate"
  | "workflow_id_reserved_in_namespace"
  | "cooperative_cancellation_propagation_not_available";

const KNOWN_ERRORS = new Set([
  "cross_origin",
  "read_only",
  "role",
  "forbidden",
  "unauthorized",
  "server_unavailable",
  "instance_not_found",
  "run_not_found",
  "invalid_request",
  "validation_failed",
  "console_unreachable",
  "conflict",
]);
type KnownError =
  | "cross_origin"
  | "read_only"
  | "role"
  | "forbidden"
  | "unauthorized"
  | "server_unavailable"
  | "instance_not_found"
  | "run_not_found"
  | "invalid_request"
  | "validation_failed"
  | "console_unreachable"
  | "conflict";

/** Words for reasons, outcomes and confirmation steps, from the `actions` catalog. */
export function useActionWords() {
  const t = useTranslations("actions");
  const tv = useTranslations();
  return {
    t,
    capability(capability: Capability): string | null {
      // The reason's sentence is a `views.capability.*` id from lib/views; the catalog translates it.
      if (capability.enabled || !capability.message) return null;
      return tv(capability.message.id, capability.message.values);
    },
    rejection(reason: string | null, outcome: string | null): string {
      const key = reason ?? outcome ?? "";
      if (KNOWN_REJECTIONS.has(key)) return t(`rejection.${key as KnownRejection}`);
      return t("rejection.other", { reason: key || "unknown" });
    },
    error(error: ActionError): string {
      if (KNOWN_ERRORS.has(error.reason)) return t(`error.${error.reason as KnownError}`);
      return t("error.other", { reason: error.reason });
    },
    step(step: Step): string {
      const facts = step.facts;
      switch (step.id) {
        case "command_recorded":
          // The cancellation request's deadline is the one history recorded, not the one typed.
          if (step.status === "done" && facts.cleanupDeadlineAt)
            return t("step.command_recorded.doneDeadline", {
              eventType: facts.eventType ?? "",
              sequence: step.sequence ?? 0,
              deadline: facts.cleanupDeadlineAt,
            });
          // A command event without a recorded outcome (a signal's SignalReceived) has no "(…)" to show.
          if (step.status === "done" && !facts.outcome)
            return t("step.command_recorded.doneBare", {
              eventType: facts.eventType ?? "",
              sequence: step.sequence ?? 0,
            });
          return t(`step.command_recorded.${step.status}`, {
            eventType: facts.eventType ?? "",
            outcome: facts.outcome ?? "",
            answeredOutcome: facts.answeredOutcome ?? "",
            sequence: step.sequence ?? 0,
          });
        case "task_recreated":
          return t(`step.task_recreated.${step.status}`, {
            taskType: facts.taskType ?? "",
            taskId: facts.taskId ?? "",
          });
        case "left_repair_needed":
          return t(`step.left_repair_needed.${step.status}`, { livenessState: facts.livenessState ?? "" });
        case "run_closed":
          if (step.status === "done" && facts.cleanupOutcome)
            return t("step.run_closed.doneCleanup", {
              eventType: facts.eventType ?? "",
              sequence: step.sequence ?? 0,
              cleanupOutcome: facts.cleanupOutcome,
            });
          return t(`step.run_closed.${step.status}`, {
            eventType: facts.eventType ?? "",
            sequence: step.sequence ?? 0,
          });
        case "status_final":
          return t(`step.status_final.${step.status}`, { status: facts.status ?? "" });
        case "run_archived":
          return t(`step.run_archived.${step.status}`);
        case "run_started":
          return t(`step.run_started.${step.status}`);
        case "cancellation_delivered":
          return t(`step.cancellation_delivered.${step.status}`, {
            callKind: facts.callKind ?? "",
            callSequence: facts.callSequence ?? "",
            sequence: step.sequence ?? 0,
            deadline: facts.cleanupDeadlineAt ?? "–",
            cleanupOutcome: facts.cleanupOutcome ?? "–",
          });
      }
    },
  };
}
