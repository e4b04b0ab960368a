/**
 * How many runs each status tab holds, said only as far as the server can tell. The real list gives
 * no total (`'workflow_count' => $page->count()`, durable-workflow/server@042e8da4
 * app/Http/Controllers/Api/WorkflowController.php `index`) and filters `status` by bucket only
 * (`in:running,completed,failed`). operator_metrics counts the namespace's run summaries
 * (durable-workflow/workflow@028efdb2 src/V2/Support/OperatorMetrics.php `runMetrics`): `total`,
 * `running` by status_bucket, and `completed`, `failed`, `cancelled`, `terminated` by status — the
 * failed bucket being failed + cancelled + terminated. Those totals ignore the list's other
 * filters, so under a filter only the tab on screen gets a number, from its own first page. Pure.
 */

export type CountedTab = "all" | "running" | "completed" | "failed";

export type TabCount = { exact: number } | { atLeast: number } | null;

export interface MetricsRuns {
  total: number;
  running: number;
  completed: number;
  failed: number;
  cancelled: number;
  terminated: number;
}

export interface StatusTabCountsInput {
  /** operator_metrics `runs`; null when it could not be read (it needs an admin token on the real server). */
  metrics: MetricsRuns | null;
  /** A type, search, range or queue narrows the list: the namespace totals do not describe it. */
  filtered: boolean;
  current: CountedTab;
  /** The page on screen: rows shown, whether the server has more, whether it is the first page. */
  page: { shown: number; more: boolean; first: boolean } | null;
}

function fromMetrics(runs: MetricsRuns): Record<CountedTab, TabCount> {
  return {
    all: { exact: runs.total },
    running: { exact: runs.running },
    completed: { exact: runs.completed },
    failed: { exact: runs.failed + runs.cancelled + runs.terminated },
  };
}

export function statusTabCounts(input: StatusTabCountsInput): Record<CountedTab, TabCount> {
  if (input.metrics && !input.filtered) return fromMetrics(input.metrics);
  const out: Record<CountedTab, TabCount> = { all: null, running: null, completed: null, failed: null };
  const page = input.page;
  if (page?.first) out[input.current] = page.more ? { atLeast: page.shown } : { exact: page.shown };
  return out;
}
