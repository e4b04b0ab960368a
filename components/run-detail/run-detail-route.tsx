import { Suspense } from "react";
import { getTranslations } from "next-intl/server";
import type { RunDescription, WorkflowDebug } from "@/lib/dw";
import { getDwClient } from "@/lib/server/dw";
import { getShellContext } from "@/lib/server/shell-context";
import { DwErrorState } from "@/components/ui/dw-error-state";
import { toErrorInfo } from "@/lib/views/error-info";
import type { ErrorInfo } from "@/lib/views/error-info";
import { RunDetail } from "@/components/run-detail/run-detail";

/**
 * Server half of the run detail. The shell streams at once (so the browser fetches CSS and scripts
 * while the server asks the DW server), then the run streams in: describe and debug in parallel
 * (neither reads the history), so the header and exceptions arrive in the first HTML response.
 * `runId: null` means the workflow's current run.
 */
export async function RunDetailPage({ workflowId, runId }: { workflowId: string; runId: string | null }) {
  const t = await getTranslations("run");
  return (
    <Suspense
      fallback={
        <div className="space-y-4" aria-busy="true" data-testid="run-detail-loading">
          <h1 className="text-xl font-semibold break-all">{t("titleFor", { workflowId })}</h1>
          <p className="text-sm text-fg-muted">{t("loading")}</p>
        </div>
      }
    >
      <RunDetailContent workflowId={workflowId} runId={runId} />
    </Suspense>
  );
}

async function RunDetailContent({ workflowId, runId }: { workflowId: string; runId: string | null }) {
  const [context, t] = await Promise.all([getShellContext(), getTranslations("run")]);
  const client = getDwClient(context.namespace);
  const [describe, debug] = await Promise.allSettled([
    runId === null ? client.describeWorkflow(workflowId) : client.describeRun(workflowId, runId),
    runId === null ? client.debugWorkflow(workflowId) : client.debugRun(workflowId, runId),
  ]);
  const description: RunDescription | null = describe.status === "fulfilled" ? describe.value : null;
  const error: ErrorInfo | null = describe.status === "rejected" ? toErrorInfo(describe.reason) : null;
  if (!description) {
    return (
      <div className="space-y-4">
        <h1 className="text-xl font-semibold break-all">{t("titleFor", { workflowId })}</h1>
        {error ? <DwErrorState error={error} /> : null}
      </div>
    );
  }
  // The current-run route may race a continue-as-new: only keep debug when it names the same run.
  const debugData: WorkflowDebug | null =
    debug.status === "fulfilled" && debug.value.run_id === description.run_id ? debug.value : null;
  return (
    <RunDetail
      namespace={context.namespace}
      workflowId={workflowId}
      runId={description.run_id}
      initialDescribe={description}
      initialDebug={debugData}
      initialError={error}
    />
  );
}
