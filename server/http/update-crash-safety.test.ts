import { afterAll, describe, expect, it } from "vitest";
import { systemClock } from "../clock";
import { encodePayload } from "../codec/codec";
import { openDb } from "../store/db";
import { crashHarness } from "../test-support/crash-server";

/**
 * Kill -9 the real server right after it acknowledged updates (accepted, and one completed by its
 * worker), restart it on the same file: every acknowledged update is in history, a retry with its
 * request id returns the original receipt, and the updates still open are delivered and finish.
 * A real process cannot share a FakeClock; nothing here waits on time, only on answers.
 */
const WORKER_TOKEN = "update-crash-worker-token";
const OPERATOR_TOKEN = "update-crash-operator-token";
const { dataFile, launch, cleanup } = crashHarness("bw-update-crash", {
  DW_WORKER_TOKEN: WORKER_TOKEN,
  DW_OPERATOR_TOKEN: OPERATOR_TOKEN,
});

afterAll(cleanup);

type Body = Record<string, unknown>;

describe("update crash safety", () => {
  it(
    "keeps every acknowledged update across SIGKILL and delivers the open ones after restart",
    { timeout: 90_000 },
    async () => {
      let server = await launch();
      const worker = async (path: string, body: unknown): Promise<{ status: number; body: Body }> => {
        const res = await fetch(`${server.url}/api/worker${path}`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-durable-workflow-protocol-version": "1.19",
            authorization: `Bearer ${WORKER_TOKEN}`,
          },
          body: JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as Body };
      };
      const control = async (path: string, body: unknown): Promise<{ status: number; body: Body }> => {
        const res = await fetch(`${server.url}/api${path}`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-durable-workflow-control-plane-version": "2",
            authorization: `Bearer ${OPERATOR_TOKEN}`,
          },
          body: JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as Body };
      };
      type Task = { task_id: string; lease_owner: string; workflow_task_attempt: number; workflow_update_id?: string };
      const poll = async (): Promise<Task> => {
        const r = await worker("/workflow-tasks/poll", { worker_id: "w", task_queue: "crash", timeout_seconds: 5 });
        const task = r.body.task as Task | null;
        if (!task) throw new Error(`no workflow task: ${JSON.stringify(r.body)}`);
        return task;
      };
      const complete = (t: Task, commands: unknown[]) =>
        worker(`/workflow-tasks/${t.task_id}/complete`, {
          lease_owner: t.lease_owner,
          workflow_task_attempt: t.workflow_task_attempt,
          commands,
        });

      expect((await worker("/register", { worker_id: "w", task_queue: "crash", runtime: "python" })).status).toBe(201);
      const started = await control("/workflows", {
        workflow_id: "upd-crash",
        workflow_type: "crash.upd",
        task_queue: "crash",
      });
      expect(started.status).toBe(201);
      const runId = started.body.run_id as string;
      expect((await complete(await poll(), [{ type: "open_signal_wait", signal_name: "finish" }])).status).toBe(200);

      const receipts: Body[] = [];
      for (let i = 0; i < 5; i += 1) {
        const r = await control("/workflows/upd-crash/update/approve", {
          input: encodePayload([i]),
          request_id: `req-${i}`,
        });
        expect(r.status).toBe(202);
        receipts.push(r.body);
      }
      const first = await poll();
      expect(first.workflow_update_id).toBe(receipts[0]?.update_id);
      const firstDone = await complete(first, [
        { type: "complete_update", update_id: first.workflow_update_id, result: encodePayload("ok-0") },
      ]);
      expect(firstDone.body.recorded).toBe(true);

      server.child.kill("SIGKILL");
      await new Promise((r) => server.child.once("exit", r));
      server = await launch();

      const db = openDb(dataFile, systemClock);
      const events = (type: string) =>
        (
          db
            .prepare(
              "SELECT payload FROM workflow_history_events WHERE workflow_run_id = ? AND event_type = ? ORDER BY sequence",
            )
            .all(runId, type) as { payload: string }[]
        ).map((e) => JSON.parse(e.payload) as Body);
      expect(events("UpdateAccepted").map((p) => p.update_id)).toEqual(receipts.map((r) => r.update_id));
      expect(events("UpdateCompleted").map((p) => p.update_id)).toEqual([receipts[0]?.update_id]);

      // A caller that lost the answer retries with its key: the original update, not a second one.
      const retried = await control("/workflows/upd-crash/update/approve", {
        input: encodePayload([3]),
        request_id: "req-3",
      });
      expect(retried.body).toMatchObject({ update_id: receipts[3]?.update_id, command_id: receipts[3]?.command_id });

      // The four still open are delivered one task at a time, in the order they were accepted.
      for (let i = 1; i < 5; i += 1) {
        const t = await poll();
        expect(t.workflow_update_id).toBe(receipts[i]?.update_id);
        await complete(t, [
          { type: "complete_update", update_id: t.workflow_update_id, result: encodePayload(`ok-${i}`) },
        ]);
      }
      expect(events("UpdateCompleted").map((p) => p.update_id)).toEqual(receipts.map((r) => r.update_id));
      expect(events("UpdateAccepted")).toHaveLength(5);
      db.close();
      server.child.kill("SIGTERM");
      await new Promise((r) => server.child.once("exit", r));
    },
  );
});
