import { isoMicros } from "../clock";
import type { Engine } from "./index";
import { workflowTaskFailuresByType } from "./metric-facts";
import type { JsonObject } from "./tx";

/**
 * `GET /system/metrics`, the server-wide series beside the per-namespace operator snapshot
 * (metrics.ts): workflow-task failures by type, bounded, and projection drift by table.
 */

const PROJECTION_TABLES = [
  "run_summaries",
  "run_waits",
  "run_timeline_entries",
  "run_timer_entries",
  "run_lineage_entries",
] as const;

/** The label policy of the failures-by-type series: a bounded set of types, the namespace from the request. */
function typeLabelPolicy(limit: number): JsonObject {
  return {
    namespace: "request_scope_not_label",
    workflow_type: {
      cardinality_class: "bounded_series",
      limit,
      selection: "top_by_max_consecutive_failures_then_name",
    },
  };
}

/** The label policy of the drift series: the fixed inventory of projection tables, server-wide. */
function driftLabelPolicy(): JsonObject {
  return {
    namespace: "server_scope_no_label",
    table: {
      cardinality_class: "finite_projection_table_inventory",
      values: [...PROJECTION_TABLES],
      selection: "fixed_projection_table_inventory",
    },
  };
}

/** `GET /system/metrics`: consecutive workflow-task failures by type (bounded series) and projection drift. */
export function systemMetrics(
  engine: Engine,
  namespace: string,
  limit: number,
  now: number = engine.clock.now(),
): JsonObject {
  const sorted = workflowTaskFailuresByType(engine.db, namespace);
  const shown = sorted.slice(0, limit);
  const suppressed = sorted.slice(limit);
  const typePolicy = typeLabelPolicy(limit);
  const driftPolicy = driftLabelPolicy();
  return {
    generated_at: isoMicros(now),
    namespace,
    metrics: {
      dw_workflow_task_consecutive_failures: {
        max_consecutive_failures: sorted.reduce((m, r) => Math.max(m, r.max_consecutive_failures), 0),
        failed_task_count: sorted.reduce((s, r) => s + r.failed_task_count, 0),
        workflow_type_count: sorted.length,
        workflow_type_limit: limit,
        workflow_types_truncated: suppressed.length > 0,
        suppressed_workflow_type_count: suppressed.length,
        suppressed_failed_task_count: suppressed.reduce((s, r) => s + r.failed_task_count, 0),
        label_cardinality_policy: typePolicy,
        by_workflow_type: shown,
      },
      dw_projection_drift_total: {
        total: 0,
        table_count: PROJECTION_TABLES.length,
        tables_with_drift: 0,
        scope: "server",
        label_cardinality_policy: driftPolicy,
        by_table: PROJECTION_TABLES.map((table) => ({ table, needs_rebuild: 0 })),
      },
    },
    cardinality: {
      metric_label_sets: { dw_workflow_task_consecutive_failures: typePolicy, dw_projection_drift_total: driftPolicy },
    },
  };
}
