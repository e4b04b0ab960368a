"use client";

import { useTranslations } from "next-intl";
import type { RetryAnswer } from "@/lib/kikwiflow/retry-confirm";

/**
 * What a retry did, said only from the route's re-read of the engine (never from the 204 alone):
 * confirmed with the statuses read, the instance moved on or finished, or the bound ran out.
 */
export function RetryOutcome({ answer }: { answer: Extract<RetryAnswer, { result: "accepted" }> }) {
  const t = useTranslations("kikwiflow.retry");
  const verdict = answer.verdict;
  const unknown = t("unknown");
  let text: string;
  let tone = "border-ok/40 bg-ok/10";
  switch (verdict.phase) {
    case "confirmed":
      text =
        verdict.how === "pending"
          ? t("confirmedPending", {
              incident: verdict.incidentStatus,
              task: verdict.taskStatus,
              retries: verdict.retries ?? unknown,
            })
          : t("confirmedRanAgain", {
              incident: verdict.incidentStatus,
              task: verdict.taskStatus,
              retries: verdict.retries ?? unknown,
              executions: verdict.executions ?? unknown,
            });
      break;
    case "moved_on":
      text = verdict.instanceFinished ? t("finished") : t("movedOn");
      break;
    default: {
      const last = verdict.phase === "timed_out" && verdict.last?.phase === "awaiting" ? verdict.last : null;
      text = t("timedOut", { incident: last?.incidentStatus ?? unknown, task: last?.taskStatus ?? unknown });
      tone = "border-warn/40 bg-warn/10";
    }
  }
  return (
    <p
      role="status"
      data-testid="kikwiflow-retry-outcome"
      data-phase={verdict.phase}
      className={`rounded-md border p-3 text-sm ${tone}`}
    >
      {text}
    </p>
  );
}
