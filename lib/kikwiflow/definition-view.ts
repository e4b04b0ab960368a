import type { FlowNode, ProcessDefinition, PulseMetrics, PulseSnapshot, RetryPolicy } from "./schemas";

/**
 * The definitions screens' views: the list's rows, a definition's nodes in flow order, and the
 * pulse counts merged onto them. Pure and zod-free (types only), so the browser can run them.
 */

/**
 * Node types the pulse carries `metrics` for (StatsService.buildProcessSnapshot@3b62f35): the ones
 * materialised as an ExecutableTask or ExternalTask, where instances can stand and fail.
 */
export const TASK_LIKE_TYPES: readonly string[] = [
  "EXECUTABLE_TASK",
  "EXTERNAL_TASK",
  "EVENT_CATCHER",
  "CALL_ACTIVITY_COORDINATOR",
  "TIMER_TASK",
];

export interface DefinitionSummary {
  id: string;
  key: string;
  name: string | null;
  version: number | null;
  nodeCount: number;
}

/** One row per deployed version: by key, newest version first within a key. */
export function definitionSummaries(definitions: readonly ProcessDefinition[]): DefinitionSummary[] {
  return definitions
    .map((d) => ({
      id: d.id,
      key: d.key,
      name: d.name ?? null,
      version: d.version ?? null,
      nodeCount: Object.keys(d.flowNodes ?? {}).length,
    }))
    .sort((a, b) => a.key.localeCompare(b.key) || (b.version ?? -1) - (a.version ?? -1) || a.id.localeCompare(b.id));
}

export interface NodeRow {
  id: string;
  name: string | null;
  type: string | null;
  /** Target node ids of the outgoing edges, in the definition's order. */
  targets: string[];
  retryPolicy: RetryPolicy | null;
  taskLike: boolean;
  /** False for a node no edge from a start point reaches (boundary events, for one). */
  reachable: boolean;
}

function startIds(nodes: Record<string, FlowNode>, defaultStartPoint: string | null | undefined): string[] {
  const starts = Object.values(nodes)
    .filter((n) => n.type === "DEFAULT_START_EVENT")
    .map((n) => n.id)
    .sort();
  if (defaultStartPoint && nodes[defaultStartPoint]) {
    return [defaultStartPoint, ...starts.filter((id) => id !== defaultStartPoint)];
  }
  return starts;
}

/**
 * The nodes in flow order: breadth-first from the default start point (then any other start event),
 * following outgoing edges in their order; nodes reached only through boundary events come right
 * after the task they are attached to; what is never reached goes last, by id.
 */
export function nodesInFlowOrder(definition: Pick<ProcessDefinition, "flowNodes" | "defaultStartPoint">): NodeRow[] {
  const nodes = definition.flowNodes ?? {};
  const seen = new Set<string>();
  const order: string[] = [];
  const queue = startIds(nodes, definition.defaultStartPoint);
  const visit = (id: string) => {
    if (seen.has(id) || !nodes[id]) return;
    seen.add(id);
    order.push(id);
    queue.push(...(nodes[id].boundaryEventIds ?? []), ...(nodes[id].outgoing ?? []).map((e) => e.targetNodeId));
  };
  while (queue.length > 0) visit(queue.shift()!);
  const reached = new Set(order);
  const rest = Object.keys(nodes)
    .filter((id) => !reached.has(id))
    .sort();
  return [...order, ...rest].map((id) => {
    const node = nodes[id]!;
    return {
      id,
      name: node.name ?? null,
      type: node.type ?? null,
      targets: (node.outgoing ?? []).map((e) => e.targetNodeId),
      retryPolicy: node.retryPolicy ?? null,
      taskLike: TASK_LIKE_TYPES.includes(node.type ?? ""),
      reachable: reached.has(id),
    };
  });
}

/** What the engine counts on a node, exactly: no completed count exists. */
export interface NodeCounts {
  running: number;
  failed: number;
  /** Percentage; null when the engine wrote none. */
  sla: number | null;
}

/** The counts of each node that carries `metrics` in this pulse frame (task-like nodes only). */
export function pulseCounts(snapshot: Pick<PulseSnapshot, "flowNodes">): Record<string, NodeCounts> {
  const counts: Record<string, NodeCounts> = {};
  for (const [id, node] of Object.entries(snapshot.flowNodes ?? {})) {
    if (node.metrics) counts[id] = countsOf(node.metrics);
  }
  return counts;
}

function countsOf(metrics: PulseMetrics): NodeCounts {
  return { running: metrics.running ?? 0, failed: metrics.fail ?? 0, sla: metrics.sla ?? null };
}

export interface NodeRowWithCounts extends NodeRow {
  /** null: no frame yet, or the engine keeps no counts for this node. */
  counts: NodeCounts | null;
}

/** Each row with its node's counts from the latest frame (null before the first frame). */
export function mergeCounts(rows: readonly NodeRow[], counts: Record<string, NodeCounts> | null): NodeRowWithCounts[] {
  return rows.map((row) => ({ ...row, counts: (row.taskLike && counts?.[row.id]) || null }));
}

/** The whole definition's counts (KKFProcessStats.metrics), when the frame carries them. */
export function processCounts(snapshot: Pick<PulseSnapshot, "metrics">): NodeCounts | null {
  return snapshot.metrics ? countsOf(snapshot.metrics) : null;
}
