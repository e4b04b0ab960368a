import type { FastifyInstance, FastifyRequest } from "fastify";
import { newId } from "../../ids";
import { EngineError } from "../../engine";
import type { TriggerResult } from "../../engine/schedule-fires";
import { backfillSchedule, triggerSchedule } from "../../engine/schedule-fires";
import type { CommandContextAttributes, OverlapPolicy, ScheduleRow } from "../../engine/schedule-rows";
import { actionOf, anySchedule, liveSchedule, listOf, scheduleById } from "../../engine/schedule-rows";
import { phpIso } from "../../engine/schedule-spec";
import type { ScheduleChanges } from "../../engine/schedules";
import { createSchedule, deleteSchedule, pauseSchedule, resumeSchedule, updateSchedule } from "../../engine/schedules";
import type { JsonObject } from "../../engine/tx";
import { listSchedules, scheduleDetail, scheduleHistoryPage } from "../../read/schedules";
import { authenticate } from "../auth";
import type { ControlPlaneDeps } from "./context";
import { namespaceOf, OPERATOR, routeConfig } from "./context";
import { sendControlPlane } from "./envelope";
import {
  BACKFILL_RULES,
  NOTE_RULES,
  STORE_RULES,
  TRIGGER_RULES,
  UPDATE_RULES,
  validateBody,
} from "./schedule-validation";

/**
 * `/api/schedules` (durable-workflow/server routes/api.php@11d35b7: operator role, control-plane
 * version, namespace; ScheduleController@11d35b7). No `control_plane` envelope on these answers.
 */

type Params = { Params: { scheduleId: string } };

/** Server limit `server.limits.max_memo_bytes` (256 KiB by default). */
const MAX_MEMO_BYTES = 256 * 1024;

/** WorkflowCommandContextFactory::make (server@11d35b7), the parts the twin knows: caller, auth, request, server. */
function commandContext(
  deps: ControlPlaneDeps,
  request: FastifyRequest,
  scheduleId: string,
  command: string,
): CommandContextAttributes {
  const principal = authenticate(deps.auth, request.headers.authorization);
  const configured = deps.auth.driver === "token";
  const auth: JsonObject = {
    status: configured ? "authorized" : "not_configured",
    method: configured ? "token" : "none",
  };
  if (principal) {
    auth.role = principal.role;
    auth.roles = [principal.role];
    auth.principal = { subject: configured ? `role:${principal.role}` : "anonymous", roles: [principal.role] };
  }
  const path = request.url.split("?")[0] ?? "/";
  const ua = request.headers["user-agent"];
  const req: JsonObject = { method: request.method, path: `/${path.replace(/^\/+/, "")}`, ip: request.ip };
  if (typeof ua === "string" && ua !== "") req.user_agent = ua;
  return {
    source: "control_plane",
    context: {
      caller: { type: "server", label: "Standalone Server" },
      auth,
      request: req,
      server: { namespace: namespaceOf(request), workflow_id: scheduleId, command, metadata: [] },
    },
  };
}

function notFound(namespace: string, scheduleId: string): EngineError {
  return new EngineError(404, "schedule_not_found", `Schedule [${scheduleId}] not found in namespace [${namespace}].`);
}

function findOrFail(deps: ControlPlaneDeps, request: FastifyRequest<Params>): ScheduleRow {
  const ns = namespaceOf(request);
  const row = liveSchedule(deps.engine.db, ns, request.params.scheduleId);
  if (!row) throw notFound(ns, request.params.scheduleId);
  return row;
}

function memoTooLarge(memo: unknown): void {
  if (!memo || typeof memo !== "object") return;
  if (Buffer.byteLength(JSON.stringify(memo)) > MAX_MEMO_BYTES)
    throw new EngineError(
      422,
      "memo_too_large",
      `The memo exceeds the maximum allowed size of ${MAX_MEMO_BYTES} bytes.`,
      {
        limit: MAX_MEMO_BYTES,
      },
    );
}

const obj = (v: unknown): JsonObject | null => (v && typeof v === "object" ? (v as JsonObject) : null);
const int = (v: unknown): number | null => (v === undefined || v === null ? null : Number(v));

export function registerScheduleRoutes(scope: FastifyInstance, deps: ControlPlaneDeps): void {
  const { engine } = deps;
  const operator = { config: routeConfig(OPERATOR) };
  const ctx = (request: FastifyRequest, id: string, command: string) => commandContext(deps, request, id, command);

  scope.get("/schedules", operator, async (request, reply) =>
    sendControlPlane(reply, 200, listSchedules(engine.db, namespaceOf(request)), null),
  );

  scope.post("/schedules", operator, async (request, reply) => {
    const ns = namespaceOf(request);
    const v = validateBody(STORE_RULES, request.body);
    memoTooLarge(v.memo);
    const scheduleId = typeof v.schedule_id === "string" ? v.schedule_id : ulidUpper(engine.clock.now());
    if (liveSchedule(engine.db, ns, scheduleId))
      throw new EngineError(
        409,
        "schedule_already_exists",
        `Schedule [${scheduleId}] already exists in namespace [${ns}].`,
        {
          schedule_id: scheduleId,
        },
      );
    engine.transactionAt((tx) => {
      // The real table keeps (namespace, schedule_id) unique even for deleted rows: reusing one fails there too.
      if (anySchedule(tx.db, ns, scheduleId))
        throw new EngineError(500, "server_error", `Schedule [${scheduleId}] collides with a deleted schedule's row.`);
      const row = createSchedule(
        tx,
        {
          namespace: ns,
          schedule_id: scheduleId,
          spec: obj(v.spec) ?? {},
          action: obj(v.action) ?? {},
          overlap_policy: (v.overlap_policy as OverlapPolicy | undefined) ?? "skip",
          memo: obj(v.memo),
          search_attributes: obj(v.search_attributes),
          jitter_seconds: int(v.jitter_seconds) ?? 0,
          max_runs: int(v.max_runs),
          note: typeof v.note === "string" ? v.note : null,
        },
        ctx(request, scheduleId, "schedule.create"),
        engine.scheduleJitter,
      );
      if (v.paused === true || v.paused === 1 || v.paused === "1")
        pauseSchedule(tx, row, null, ctx(request, scheduleId, "schedule.pause"));
    });
    return sendControlPlane(reply, 201, { schedule_id: scheduleId, outcome: "created" }, null);
  });

  scope.get<Params>("/schedules/:scheduleId", operator, async (request, reply) =>
    sendControlPlane(reply, 200, scheduleDetail(findOrFail(deps, request)), null),
  );

  scope.get<Params & { Querystring: Record<string, string | undefined> }>(
    "/schedules/:scheduleId/history",
    operator,
    async (request, reply) => {
      const ns = namespaceOf(request);
      const row = anySchedule(engine.db, ns, request.params.scheduleId);
      if (!row) throw notFound(ns, request.params.scheduleId);
      const rawLimit = request.query.limit;
      const limit =
        rawLimit !== undefined && /^-?\d+$/.test(rawLimit) && Number(rawLimit) > 0
          ? Math.min(Number(rawLimit), 500)
          : 100;
      const rawAfter = request.query.after_sequence;
      let after: number | null = null;
      if (rawAfter !== undefined && rawAfter !== "") {
        if (!/^-?\d+$/.test(rawAfter) || Number(rawAfter) < 0)
          throw new EngineError(422, "invalid_after_sequence", "after_sequence must be a non-negative integer.");
        after = Number(rawAfter);
      }
      return sendControlPlane(reply, 200, scheduleHistoryPage(engine.db, row, limit, after), null);
    },
  );

  scope.put<Params>("/schedules/:scheduleId", operator, async (request, reply) => {
    const row = findOrFail(deps, request);
    const v = validateBody(UPDATE_RULES, request.body);
    memoTooLarge(v.memo);
    const changes: ScheduleChanges = {};
    if (obj(v.spec)) changes.spec = obj(v.spec)!;
    if (obj(v.action)) changes.action = { ...actionOf(row), ...obj(v.action)! };
    if (typeof v.overlap_policy === "string") changes.overlap_policy = v.overlap_policy as OverlapPolicy;
    if (v.jitter_seconds != null) changes.jitter_seconds = Number(v.jitter_seconds);
    if (typeof v.note === "string") changes.note = v.note;
    if ("memo" in v) changes.memo = obj(v.memo);
    if ("search_attributes" in v) changes.search_attributes = obj(v.search_attributes);
    if (v.max_runs != null) changes.max_runs = Number(v.max_runs);
    engine.transactionAt((tx) =>
      updateSchedule(tx, row, changes, ctx(request, row.schedule_id, "schedule.update"), engine.scheduleJitter),
    );
    return sendControlPlane(reply, 200, { schedule_id: row.schedule_id, outcome: "updated" }, null);
  });

  scope.delete<Params>("/schedules/:scheduleId", operator, async (request, reply) => {
    const row = findOrFail(deps, request);
    engine.transactionAt((tx) => deleteSchedule(tx, row, ctx(request, row.schedule_id, "schedule.delete")));
    return sendControlPlane(reply, 200, { schedule_id: row.schedule_id, outcome: "deleted" }, null);
  });

  registerCommandRoutes(scope, deps, ctx);
}

/** pause, resume, trigger, backfill. */
function registerCommandRoutes(
  scope: FastifyInstance,
  deps: ControlPlaneDeps,
  ctx: (request: FastifyRequest, id: string, command: string) => CommandContextAttributes,
): void {
  const { engine } = deps;
  const operator = { config: routeConfig(OPERATOR) };

  scope.post<Params>("/schedules/:scheduleId/pause", operator, async (request, reply) => {
    const row = findOrFail(deps, request);
    const v = validateBody(NOTE_RULES, request.body);
    const note = typeof v.note === "string" ? v.note : null;
    engine.transactionAt((tx) => pauseSchedule(tx, row, note, ctx(request, row.schedule_id, "schedule.pause")));
    return sendControlPlane(reply, 200, { schedule_id: row.schedule_id, outcome: "paused" }, null);
  });

  scope.post<Params>("/schedules/:scheduleId/resume", operator, async (request, reply) => {
    const row = findOrFail(deps, request);
    const v = validateBody(NOTE_RULES, request.body);
    const note = typeof v.note === "string" ? v.note : null;
    engine.transactionAt((tx) =>
      resumeSchedule(tx, row, note, ctx(request, row.schedule_id, "schedule.resume"), engine.scheduleJitter),
    );
    return sendControlPlane(reply, 200, { schedule_id: row.schedule_id, outcome: "resumed" }, null);
  });

  scope.post<Params>("/schedules/:scheduleId/trigger", operator, async (request, reply) => {
    const row = findOrFail(deps, request);
    const v = validateBody(TRIGGER_RULES, request.body);
    const override = (v.overlap_policy as OverlapPolicy | undefined) ?? null;
    let r: TriggerResult;
    try {
      r = engine.transactionAt((tx) =>
        triggerSchedule(tx, row.id, override, ctx(request, row.schedule_id, "schedule.trigger"), engine.scheduleJitter),
      );
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      return sendControlPlane(reply, 500, { schedule_id: row.schedule_id, outcome: "trigger_failed", reason }, null);
    }
    return sendControlPlane(reply, 200, triggerAnswer(deps, row, r), null);
  });

  scope.post<Params>("/schedules/:scheduleId/backfill", operator, async (request, reply) => {
    const row = findOrFail(deps, request);
    const v = validateBody(BACKFILL_RULES, request.body);
    const start = Date.parse(String(v.start_time));
    const end = Date.parse(String(v.end_time));
    if (end <= start) throw new EngineError(422, "invalid_time_range", "end_time must be after start_time.");
    const override = (v.overlap_policy as OverlapPolicy | undefined) ?? null;
    const rows = backfillSchedule(
      (fn, now) => engine.transactionAt(fn, now),
      row.id,
      start,
      end,
      override,
      ctx(request, row.schedule_id, "schedule.backfill"),
      engine.scheduleJitter,
    );
    const results = rows.map((r) => {
      const out: JsonObject = { fire_time: phpIso(r.occurrence.at, r.occurrence.zone) };
      if (r.instanceId !== null) out.workflow_id = r.instanceId;
      out.outcome = r.error !== undefined ? "failed" : r.instanceId !== null ? "started" : "skipped";
      if (r.error !== undefined) out.reason = r.error;
      return out;
    });
    return sendControlPlane(
      reply,
      200,
      { schedule_id: row.schedule_id, outcome: "backfill_started", fires_attempted: results.length, results },
      null,
    );
  });
}

function triggerAnswer(deps: ControlPlaneDeps, row: ScheduleRow, r: TriggerResult): JsonObject {
  const id = row.schedule_id;
  if (r.outcome === "triggered")
    return { schedule_id: id, outcome: "triggered", workflow_id: r.instanceId, run_id: r.runId };
  if (r.outcome === "buffered") {
    const depth = listOf(scheduleById(deps.engine.db, row.id).buffered_actions).length;
    return { schedule_id: id, outcome: "buffered", buffer_depth: depth };
  }
  if (r.outcome === "buffer_full")
    return {
      schedule_id: id,
      outcome: "buffer_full",
      reason: "Previous workflow is still running and buffer is at capacity.",
    };
  return { schedule_id: id, outcome: "skipped", reason: r.reason };
}

/** `Str::ulid()->toBase32()`: an upper-case ULID. */
function ulidUpper(now: number): string {
  return newId(now).toUpperCase();
}
