"use client";

import { useTranslations } from "next-intl";
import type { RetryAnswer } from "@/lib/kikwiflow/retry-confirm";
import type { RetryFollowUp } from "@/lib/kikwiflow/retry-follow";
import { useTimeFormat } from "@/components/hooks/use-time-format";

type Accepted = Extract<RetryAnswer, { result: "accepted" }>;

/** The route's verdict in words: confirmed with the statuses read, moved on or finished, or timed out. */
function useVerdictText(answer: Accepted): { text: string; warn: boolean } {
  const t = useTranslations("kikwiflow.retry");
  const verdict = answer.verdict;
  const unknown = t("unknown");
  switch (verdict.phase) {
    case "confirmed": {
      const values = {
        incident: verdict.incidentStatus,
        task: verdict.taskStatus,
        retries: verdict.retries ?? unknown,
      };
      return {
        text:
          verdict.how === "pending"
            ? t("confirmedPending", values)
            : t("confirmedRanAgain", { ...values, executions: verdict.executions ?? unknown }),
        warn: false,
      };
    }
    case "moved_on":
      return { text: verdict.instanceFinished ? t("finished") : t("movedOn"), warn: false };
    default: {
      const last = verdict.phase === "timed_out" && verdict.last?.phase === "awaiting" ? verdict.last : null;
      return {
        text: t("timedOut", { incident: last?.incidentStatus ?? unknown, task: last?.taskStatus ?? unknown }),
        warn: true,
      };
    }
  }
}

/**
 * What a retry did, said only from the engine's reads (never from the 204 alone): the route's
 * verdict, replaced as soon as the task is seen failing again (a newer incident on the same task), so
 * a green "confirmed" never outlives the state it described.
 */
export function RetryOutcome({ answer, followUp }: { answer: Accepted; followUp: RetryFollowUp }) {
  const t = useTranslations("kikwiflow.retry");
  const time = useTimeFormat();
  const verdict = useVerdictText(answer);
  if (followUp.kind === "failed_again") {
    const { incident } = followUp;
    return (
      <p
        role="alert"
        data-testid="kikwiflow-retry-outcome"
        data-phase="failed_again"
        className="rounded-md border border-bad/40 bg-bad/10 p-3 text-sm"
      >
        {t("failedAgain", {
          time: time.dateTime(incident.createdAt),
          error: incident.message ?? t("unknown"),
          incident: incident.id,
          status: incident.status,
        })}
      </p>
    );
  }
  return (
    <p
      role="status"
      data-testid="kikwiflow-retry-outcome"
      data-phase={answer.verdict.phase}
      className={`rounded-md border p-3 text-sm ${verdict.warn ? "border-warn/40 bg-warn/10" : "border-ok/40 bg-ok/10"}`}
    >
      {verdict.text}
    </p>
  );
}

/**
 * A retry the engine refused with 409: the incident was no longer OPEN, i.e. someone (another tab,
 * another operator) already retried it. That is news, not an engine failure, so it is not said in red.
 */
export function RetryAlreadyDone() {
  const t = useTranslations("kikwiflow.retry");
  return (
    <p
      role="status"
      data-testid="kikwiflow-retry-outcome"
      data-phase="already_retried"
      className="rounded-md border border-line bg-panel-muted/60 p-3 text-sm"
    >
      {t("alreadyRetried")}
    </p>
  );
}
