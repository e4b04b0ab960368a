import type { QueryClient } from "@tanstack/react-query";
import { namespaceKey, runKey, runsListKey } from "@/lib/queries/keys";
import { systemKey } from "@/lib/queries/system";

/**
 * What an action changed, re-read on purpose (instead of every query of every namespace): the
 * queries that show the acted-on data, in the namespace the action went to.
 */

/**
 * The runs lists (every page and the status tabs' counts, all under `runsListKey`) and the rows'
 * details (stuck, chain), so a list re-reads what the action changed instead of waiting for its poll.
 */
function invalidateRunsLists(client: QueryClient, namespace: string): Promise<void>[] {
  return [
    client.invalidateQueries({ queryKey: runsListKey(namespace) }),
    client.invalidateQueries({ queryKey: namespaceKey(namespace, "runs-row-details") }),
  ];
}

/** After a run command (cancel, terminate, signal, repair, archive, start again): that run and the runs lists. */
export async function invalidateAfterRunAction(
  client: QueryClient,
  namespace: string,
  target: { workflowId: string; runId: string },
): Promise<void> {
  await Promise.all([
    client.invalidateQueries({ queryKey: runKey(namespace, target.workflowId, target.runId) }),
    client.invalidateQueries({ queryKey: namespaceKey(namespace, "workflow-runs", target.workflowId) }),
    ...invalidateRunsLists(client, namespace),
  ]);
}

/** After a bulk flow (repair, batch cancel/terminate/signal, start again): each run, the runs lists and the attention scan. */
export async function invalidateAfterBulkRepair(
  client: QueryClient,
  namespace: string,
  runs: readonly { workflowId: string; runId: string }[],
): Promise<void> {
  await Promise.all([
    ...runs.map((run) => client.invalidateQueries({ queryKey: runKey(namespace, run.workflowId, run.runId) })),
    ...invalidateRunsLists(client, namespace),
    client.invalidateQueries({ queryKey: namespaceKey(namespace, "attention-scan") }),
  ]);
}

/**
 * After a maintenance pass: the System screen's reads and the runs it may have moved (a repair pass
 * recreates tasks; a timeout pass fails attempts), so the runs lists, open runs and the scan too.
 */
export async function invalidateAfterSystemPass(client: QueryClient, namespace: string): Promise<void> {
  await Promise.all([
    client.invalidateQueries({ queryKey: systemKey(namespace) }),
    client.invalidateQueries({ queryKey: runsListKey(namespace) }),
    client.invalidateQueries({ queryKey: namespaceKey(namespace, "run") }),
    client.invalidateQueries({ queryKey: namespaceKey(namespace, "attention-scan") }),
  ]);
}
