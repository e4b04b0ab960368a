"use client";

import { useMemo } from "react";
import { useQuery } from "@tanstack/react-query";
import { cooperativeCancellationQuery } from "@/lib/queries/server-capabilities";
import type { RunDescription, WorkflowDebug } from "@/lib/dw/schemas-workflows";
import { runCapabilities } from "@/lib/views/capabilities";
import { ActionBar, DisabledReasons, useDisabledReasons } from "@/components/actions/action-bar";
import { ActionDialog } from "@/components/actions/action-dialog";
import { ActionStatus } from "@/components/actions/action-status";
import type { WaitsRead } from "@/components/actions/action-status";
import { awaitedSignalNames } from "@/lib/views/signal-names";
import { useActionContext } from "@/components/actions/use-action-context";
import { useActionDialog } from "@/components/actions/use-action-dialog";
import { useActionSubmit } from "@/components/actions/use-action-submit";
import { useActionWords } from "@/components/actions/use-action-words";

export interface RunActionsProps {
  /** The page's namespace: actions are sent there (X-Namespace), whatever another tab switched to. */
  namespace: string;
  workflowId: string;
  runId: string;
  /** `GET /workflows/{id}/runs/{runId}`. */
  describe: Pick<RunDescription, "status" | "is_terminal" | "is_current_run" | "actions" | "workflow_type"> & {
    archived_at?: unknown;
    wait_reason?: string | null;
  };
  /** `GET …/debug`; repair stays disabled until liveness is known. */
  debug: Pick<WorkflowDebug, "execution"> | null;
  /** Waits derived from history by the run view (null until its first snapshot). */
  waits?: WaitsRead | null;
}

/**
 * Operator actions for one run, each enabled or explained by `runCapabilities` for the person
 * asking, filled in through the action's form descriptor (lib/actions/forms.ts), sent through the
 * guarded `/api/actions/runs` handler, and then confirmed against the run's durable history.
 */
export function RunActions({ namespace, workflowId, runId, describe, debug, waits = null }: RunActionsProps) {
  const { t } = useActionWords();
  const context = useActionContext();
  const cooperativeCancellation = useQuery(cooperativeCancellationQuery(namespace)).data ?? null;
  const capabilities = useMemo(
    () =>
      runCapabilities(
        {
          status: describe.status,
          is_terminal: describe.is_terminal,
          is_current_run: describe.is_current_run,
          archived_at: typeof describe.archived_at === "string" ? describe.archived_at : null,
          actions: describe.actions,
        },
        {
          readOnly: context.readOnly,
          role: context.role,
          personRole: context.personRole,
          liveness: debug?.execution ?? null,
          cooperativeCancellation,
        },
      ),
    [describe, debug, context.readOnly, context.role, context.personRole, cooperativeCancellation],
  );
  const awaitedSignals = useMemo(
    () => awaitedSignalNames(waits?.waits, describe.wait_reason),
    [waits, describe.wait_reason],
  );
  const reasons = useDisabledReasons(capabilities, context.known);
  const dialog = useActionDialog(workflowId);
  const lastSequence = debug?.execution.last_event?.sequence ?? null;
  const { phase, confirmState, busy, submit, recheck } = useActionSubmit({
    namespace,
    workflowId,
    runId,
    lastSequence,
  });

  return (
    <section aria-label={t("sectionLabel")} data-testid="run-actions" className="space-y-3">
      <ActionBar capabilities={capabilities} reasons={reasons} known={context.known} busy={busy} onOpen={dialog.open} />
      <DisabledReasons reasons={reasons} />
      <ActionDialog
        dialog={dialog}
        workflowId={workflowId}
        runId={runId}
        workflowType={describe.workflow_type}
        livenessReason={debug?.execution.liveness_reason ?? null}
        awaitedSignals={awaitedSignals}
        onSubmit={(request) => void submit(request)}
      />
      <ActionStatus namespace={namespace} phase={phase} confirm={confirmState} onRecheck={recheck} waits={waits} />
    </section>
  );
}
