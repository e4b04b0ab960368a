import { afterAll, describe, expect, it } from "vitest";
import { systemClock } from "../clock";
import { createEngine } from "../engine";
import { openDb } from "../store/db";
import { crashHarness } from "../test-support/crash-server";
import { blob } from "./test-support";

/**
 * Kill -9 the real server process mid-workload, restart it on the same file, and check that every
 * write the server acknowledged survived and every run still finishes. This suite uses real time
 * (a real process cannot share a FakeClock), with bounded waits.
 */
// The worker plane is all this test speaks; a real role token, as a worker would hold.
const WORKER_TOKEN = "crash-safety-worker-token";
const { dataFile, launch, cleanup } = crashHarness("bw-crash", {
  DW_WORKER_TOKEN: WORKER_TOKEN,
  DW_WORKFLOW_TASK_LEASE_SECONDS: "2",
  DW_ACTIVITY_LEASE_SECONDS: "2",
});

afterAll(cleanup);

interface Ack {
  kind: "workflow_task" | "activity_completed" | "activity_retry";
  task_id: string;
  run_id: string;
  attempt_id?: string;
}

describe("crash safety", () => {
  it(
    "keeps every acknowledged write across SIGKILL and finishes every run after restart",
    { timeout: 120_000 },
    async () => {
      let server = await launch();
      let url = server.url;
      const acks: Ack[] = [];
      const stop = new AbortController();
      const headers = {
        "content-type": "application/json",
        "x-durable-workflow-protocol-version": "1.19",
        authorization: `Bearer ${WORKER_TOKEN}`,
      };

      // A request lost to the crash is retried against whichever server is up; only a 2xx answer is an acknowledgement.
      async function call(
        path: string,
        body: unknown,
      ): Promise<{ status: number; body: Record<string, unknown> } | null> {
        while (!stop.signal.aborted) {
          try {
            const res = await fetch(`${url}/api/worker${path}`, {
              method: "POST",
              headers,
              body: JSON.stringify(body),
              signal: stop.signal,
            });
            return { status: res.status, body: (await res.json()) as Record<string, unknown> };
          } catch {
            await new Promise((r) => setTimeout(r, 50));
          }
        }
        return null;
      }

      async function workflowLoop(): Promise<void> {
        while (!stop.signal.aborted) {
          const r = await call("/workflow-tasks/poll", { worker_id: "crash-worker", task_queue: "crash" });
          const task = r?.body.task as
            | {
                task_id: string;
                run_id: string;
                lease_owner: string;
                workflow_task_attempt: number;
                history_events: { event_type: string }[];
              }
            | null
            | undefined;
          if (!task) continue;
          const types = task.history_events.map((e) => e.event_type);
          const commands = types.includes("ActivityCompleted")
            ? [{ type: "complete_workflow", result: blob("done") }]
            : [
                {
                  type: "schedule_activity",
                  activity_type: "flaky",
                  retry_policy: { max_attempts: 3, backoff_seconds: [1] },
                },
              ];
          const done = await call(`/workflow-tasks/${task.task_id}/complete`, {
            lease_owner: task.lease_owner,
            workflow_task_attempt: task.workflow_task_attempt,
            commands,
          });
          if (done?.status === 200 && done.body.recorded === true)
            acks.push({ kind: "workflow_task", task_id: task.task_id, run_id: task.run_id });
        }
      }

      async function activityLoop(): Promise<void> {
        while (!stop.signal.aborted) {
          const r = await call("/activity-tasks/poll", { worker_id: "crash-worker", task_queue: "crash" });
          const task = r?.body.task as
            | {
                task_id: string;
                run_id: string;
                activity_attempt_id: string;
                attempt_number: number;
                lease_owner: string;
              }
            | null
            | undefined;
          if (!task) continue;
          const base = { activity_attempt_id: task.activity_attempt_id, lease_owner: task.lease_owner };
          if (task.attempt_number === 1) {
            const failed = await call(`/activity-tasks/${task.task_id}/fail`, {
              ...base,
              failure: { message: "first attempt always fails", type: "Flaky" },
            });
            if (failed?.status === 200 && failed.body.recorded === true)
              acks.push({
                kind: "activity_retry",
                task_id: task.task_id,
                run_id: task.run_id,
                attempt_id: task.activity_attempt_id,
              });
          } else {
            const done = await call(`/activity-tasks/${task.task_id}/complete`, { ...base, result: blob("ok") });
            if (done?.status === 200 && done.body.recorded === true)
              acks.push({
                kind: "activity_completed",
                task_id: task.task_id,
                run_id: task.run_id,
                attempt_id: task.activity_attempt_id,
              });
          }
        }
      }

      const registered = await call("/register", {
        worker_id: "crash-worker",
        task_queue: "crash",
        runtime: "typescript",
      });
      expect(registered?.status).toBe(201);
      // Workflows are started through the engine on the same file from this process, as a second writer.
      const client = openDb(dataFile, systemClock);
      const starter = createEngine({ db: client, clock: systemClock });
      const runIds: string[] = [];
      for (let i = 0; i < 20; i += 1)
        runIds.push(
          starter.startWorkflow({
            namespace: "default",
            workflow_id: `crash-${i}`,
            workflow_type: "crash.wf",
            task_queue: "crash",
          }).run_id as string,
        );

      const loops = [workflowLoop(), workflowLoop(), activityLoop(), activityLoop()];
      const waitFor = async (cond: () => boolean, ms: number): Promise<void> => {
        const until = Date.now() + ms;
        while (!cond()) {
          if (Date.now() > until) throw new Error("timed out waiting");
          await new Promise((r) => setTimeout(r, 10));
        }
      };
      await waitFor(() => acks.length >= 15, 30_000);
      server.child.kill("SIGKILL");
      await new Promise((r) => server.child.once("exit", r));
      const acknowledgedBeforeCrash = acks.length;
      server = await launch();
      url = server.url;
      for (let i = 20; i < 25; i += 1)
        runIds.push(
          starter.startWorkflow({
            namespace: "default",
            workflow_id: `crash-${i}`,
            workflow_type: "crash.wf",
            task_queue: "crash",
          }).run_id as string,
        );

      const statusOf = client.prepare("SELECT status FROM workflow_runs WHERE id = ?");
      await waitFor(
        () => runIds.every((id) => (statusOf.get(id) as { status: string }).status === "completed"),
        60_000,
      );
      stop.abort();
      await Promise.all(loops);
      expect(acknowledgedBeforeCrash).toBeLessThan(4 * 25);

      for (const ack of acks) {
        if (ack.kind === "workflow_task") {
          expect(client.prepare("SELECT status FROM workflow_tasks WHERE id = ?").get(ack.task_id)).toEqual({
            status: "completed",
          });
        } else {
          const event = ack.kind === "activity_completed" ? "ActivityCompleted" : "ActivityRetryScheduled";
          const found = client
            .prepare(
              "SELECT COUNT(*) AS n FROM workflow_history_events WHERE workflow_run_id = ? AND event_type = ? AND json_extract(payload, '$.activity_attempt_id') = ?",
            )
            .get(ack.run_id, event, ack.attempt_id) as { n: number };
          expect(found.n).toBe(1);
        }
      }
      for (const id of runIds) {
        const types = (
          client
            .prepare("SELECT event_type FROM workflow_history_events WHERE workflow_run_id = ? ORDER BY sequence")
            .all(id) as { event_type: string }[]
        ).map((r) => r.event_type);
        expect(types[0]).toBe("StartAccepted");
        expect(types.at(-1)).toBe("WorkflowCompleted");
        expect(types.filter((t) => t === "ActivityCompleted")).toHaveLength(1);
        const seqs = client
          .prepare("SELECT sequence FROM workflow_history_events WHERE workflow_run_id = ? ORDER BY sequence")
          .all(id) as { sequence: number }[];
        expect(seqs.map((s) => s.sequence)).toEqual(seqs.map((_, i) => i + 1));
      }
      client.close();
      server.child.kill("SIGTERM");
      await new Promise((r) => server.child.once("exit", r));
    },
  );
});
