import { encodePayload } from "../codec/codec";
import { WorkerClient, WorkerProtocolError } from "../sdk/client";
import { activityOutcomeResponseSchema, activityPollResponseSchema, registerResponseSchema } from "../sdk/protocol";
import type { ActivityOutcomeResponse, ActivityTask } from "../sdk/protocol";

const ACTIVITY_LEASE_MS = 300_000;

export interface CrashingWorkerOptions {
  baseUrl: string;
  token?: string;
  namespace?: string;
  taskQueue: string;
  workerId?: string;
  /** Extra wait after the lease expiry before the late report, so the redelivery has happened. */
  lateByMs?: number;
  /** When given, the late report waits for this instead of the lease clock (tests drive time). */
  reportLateAfter?: Promise<unknown>;
  log?: (line: string) => void;
}

export interface CrashingWorker {
  /** Resolves with the task the worker claimed and then abandoned. */
  readonly claimed: Promise<ActivityTask>;
  /** Resolves with the server's answer to the late report (expected: recorded false, stale_attempt). */
  readonly lateReport: Promise<ActivityOutcomeResponse | null>;
  stop(): void;
}

/**
 * A worker that "crashes" mid-activity: it claims one activity task, never heartbeats or reports
 * (as if the process died), and after the lease has expired and the task was redelivered it
 * wakes up and reports the old attempt as completed — the late report the server must refuse
 * as `stale_attempt` without touching history.
 */
export function startCrashingWorker(opts: CrashingWorkerOptions): CrashingWorker {
  const client = new WorkerClient({ baseUrl: opts.baseUrl, token: opts.token, namespace: opts.namespace });
  const workerId = opts.workerId ?? `crashing-worker-${process.pid}`;
  const stop = new AbortController();
  const log = opts.log ?? (() => undefined);

  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve, reject) => {
      const t = setTimeout(resolve, ms);
      stop.signal.addEventListener("abort", () => {
        clearTimeout(t);
        reject(new Error("stopped"));
      });
    });

  const claimed = (async (): Promise<ActivityTask> => {
    await client.post(
      "/register",
      { worker_id: workerId, task_queue: opts.taskQueue, runtime: "typescript", sdk_version: "crash-sim" },
      registerResponseSchema,
    );
    for (;;) {
      if (stop.signal.aborted) throw new Error("stopped");
      const res = await client.post(
        "/activity-tasks/poll",
        { worker_id: workerId, task_queue: opts.taskQueue },
        activityPollResponseSchema,
        AbortSignal.any([stop.signal, AbortSignal.timeout(40_000)]),
      );
      if (res.task) {
        log(
          `crashing worker ${workerId} claimed ${res.task.activity_type} attempt ${res.task.attempt_number} and went silent`,
        );
        return res.task;
      }
    }
  })();

  const lateReport = claimed.then(async (task): Promise<ActivityOutcomeResponse | null> => {
    if (opts.reportLateAfter) await opts.reportLateAfter;
    else {
      // The server's lease_expires_at is on the server's clock; when that clock is not this
      // machine's (a test clock), fall back to the documented 5-minute activity lease.
      const untilExpiry = task.lease_expires_at ? Date.parse(task.lease_expires_at) - Date.now() : NaN;
      const leaseMs = untilExpiry > 0 && untilExpiry <= 3_600_000 ? untilExpiry : ACTIVITY_LEASE_MS;
      await sleep(leaseMs + (opts.lateByMs ?? 15_000));
    }
    try {
      const answer = await client.post(
        `/activity-tasks/${encodeURIComponent(task.task_id)}/complete`,
        {
          activity_attempt_id: task.activity_attempt_id,
          lease_owner: task.lease_owner,
          result: encodePayload({ late: true }),
        },
        activityOutcomeResponseSchema,
      );
      log(`crashing worker late report answered recorded=${String(answer.recorded)} reason=${String(answer.reason)}`);
      return answer;
    } catch (e) {
      if (e instanceof WorkerProtocolError) {
        const parsed = activityOutcomeResponseSchema.safeParse(e.body);
        log(`crashing worker late report refused: ${e.message}`);
        return parsed.success ? parsed.data : null;
      }
      throw e;
    }
  });
  // Stopping early rejects both promises; callers that never await them must not see an unhandled rejection.
  claimed.catch(() => undefined);
  lateReport.catch(() => undefined);

  return {
    claimed,
    lateReport,
    stop: () => {
      stop.abort();
      client.close();
    },
  };
}
