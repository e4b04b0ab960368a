import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { ControlPlane, launchDemoServer } from "./demo-process";
import type { ApiAnswer, DemoProcess, HistoryEvent, ListedRun } from "./demo-process";

/**
 * The hardening criterion "the embedded server SIGKILLed under a running demo load and restarted —
 * no acknowledged command or event lost, every run still reaches its end", with the real demo
 * fleet: `server/main.ts --demo` runs as a child process, this test adds its own control-plane
 * load, kills the process with SIGKILL mid-load, restarts it on the same SQLite file (the fleet
 * resumes from its saved state) and checks what survived. Real time (a child process cannot share a
 * FakeClock); every wait is a poll with a deadline.
 *
 * How each class of demo run ends:
 * - OrderWorkflow (seeded, trickle, this test's): by itself — completed, or failed by design
 *   (declined: non-retryable; exhausted: 3 attempts; slow_invoice: 3 s start-to-close timeout).
 * - InventorySyncWorkflow: continues as new until round 4, then completes.
 * - ShipmentBatchWorkflow / ParcelWorkflow: children complete, then the parent.
 * - SettlementWorkflow: the crashing worker's claim expires (activity lease), the healthy
 *   `payments` worker completes the redelivered attempt.
 * - FulfillmentWorkflow: its 20 s execution timeout closes it failed / timed_out.
 * - RefundApprovalWorkflow with a timeout (`approval_timeout`): its 30 s signal wait times out.
 * - RefundApprovalWorkflow without one (`approval_waiting`, this test's): waits for `approve`
 *   forever, so this test sends it (request_id per instance, so repeats are one command).
 * - WarehouseRestockWorkflow (`lost_transport`): its timer task is deleted, so it is
 *   repair_needed. The one stuck across the crash gets this test's POST repair after the
 *   restart; the restarted fleet's own is left to the automatic repair pass. Its sleep is 20 s
 *   here (DW_DEMO_RESTOCK_SLEEP_SECONDS; 120 s in the demo) from the run's start, which a
 *   recreated timer task keeps, so once repaired it wakes, runs its last activity and completes:
 *   completing at all proves the repair, since nothing else would recreate the deleted timer.
 */

const dir = mkdtempSync(join(tmpdir(), "bw-demo-crash-"));
const dataFile = join(dir, "demo.db");
const processes: DemoProcess[] = [];

afterAll(() => {
  for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

// Short leases so work held by the killed process comes back within seconds. The activity lease
// must stay above GenerateInvoice's 3 s start-to-close: the SDK does not heartbeat, so a shorter
// lease can expire first, and each redelivery restarts the start-to-close clock (seen: the
// slow_invoice order never ending with a 2 s lease).
const LEASES = {
  DW_WORKFLOW_TASK_LEASE_SECONDS: "3",
  DW_ACTIVITY_LEASE_SECONDS: "5",
  DW_DEMO_RESTOCK_SLEEP_SECONDS: "20",
};
const READY_MS = 45_000;

type AckKind = "start" | "signal" | "repair";
interface Ack {
  kind: AckKind;
  workflowId: string;
  runId: string;
  commandId: string;
  beforeKill: boolean;
}

/** The history event each acknowledged command must have left in its run. */
const ACK_EVENT: Record<AckKind, string> = {
  start: "StartAccepted",
  signal: "SignalReceived",
  repair: "RepairRequested",
};

async function until<T>(
  what: string,
  deadlineMs: number,
  probe: () => Promise<T | null | undefined | false>,
  everyMs = 250,
): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

describe("demo fleet crash under load", () => {
  it(
    "keeps every acknowledged command and seen event across SIGKILL, and every run still ends",
    { timeout: 115_000 },
    async () => {
      const first = await launchDemoServer(dataFile, { ...LEASES, DW_AUTO_REPAIR: "0" }, READY_MS);
      processes.push(first);
      const cp = new ControlPlane(first.url);
      const seeded1 = new Map(first.seeded.map((s) => [s.name, s]));
      expect([...seeded1.keys()].sort()).toEqual(
        [
          "approval_timeout",
          "approval_waiting",
          "continue_as_new",
          "execution_timeout",
          "lost_transport",
          "order_declined",
          "order_exhausted",
          "order_happy",
          "order_slow_invoice",
          "order_transient",
          "parent_child",
          "updates_waiting",
          "worker_crash",
        ].sort(),
      );

      const acks: Ack[] = [];
      const unexpected: string[] = [];
      let lostInFlight = 0;
      let killed = false;
      let serverUp: Promise<void> = Promise.resolve();
      let markUp: () => void = () => undefined;

      /** One command; only a 2xx answer is an acknowledgement. A request cut off by the kill is unknown, not acknowledged. */
      async function command(
        kind: AckKind,
        workflowId: string,
        send: () => Promise<ApiAnswer>,
      ): Promise<ApiAnswer | null> {
        let r: ApiAnswer;
        try {
          r = await send();
        } catch {
          lostInFlight += 1;
          await serverUp;
          return null;
        }
        if (r.status >= 200 && r.status < 300) {
          acks.push({
            kind,
            workflowId,
            runId: String(r.body.run_id),
            commandId: String(r.body.command_id),
            beforeKill: !killed,
          });
          return r;
        }
        unexpected.push(`${kind} ${workflowId}: HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
        return null;
      }

      // The test's own load: orders, and approval runs each approved on the next turn, until told to stop.
      let stopLoad = false;
      const pace = (): Promise<void> => new Promise((r) => setTimeout(r, 100)); // load shaping only
      const scenarios = ["happy", "transient", "declined", "happy"] as const;
      const orderLoop = async (): Promise<void> => {
        for (let i = 1; !stopLoad; i += 1) {
          const id = `crash-order-${i}`;
          await command("start", id, () =>
            cp.start(id, "OrderWorkflow", [
              { orderId: id, customer: "crash", amountCents: 1000 + i, scenario: scenarios[i % scenarios.length] },
            ]),
          );
          await pace();
        }
      };
      const approve = (workflowId: string): Promise<ApiAnswer | null> =>
        command("signal", workflowId, () => cp.signal(workflowId, "approve", [true], `approve-${workflowId}`));
      const approvalLoop = async (): Promise<void> => {
        let previous: string | null = null;
        for (let i = 1; !stopLoad; i += 1) {
          const id = `crash-approval-${i}`;
          const started = await command("start", id, () =>
            cp.start(id, "RefundApprovalWorkflow", [`crash-order-${i}`]),
          );
          // The previous run has had a moment to reach its signal wait (it need not have: signals are buffered).
          if (previous) await approve(previous);
          previous = started ? id : null;
          await pace();
        }
      };
      await approve((seeded1.get("approval_waiting") as { workflowId: string }).workflowId);
      const loops = [orderLoop(), approvalLoop()];

      // History snapshots: every event read before the kill must be there afterwards, unchanged.
      const seen = new Map<string, { workflowId: string; events: HistoryEvent[] }>();
      const snapshot = async (): Promise<void> => {
        const sample = new Map<string, string>();
        for (const s of first.seeded) sample.set(s.runId, s.workflowId);
        for (const a of acks) if (a.kind === "start") sample.set(a.runId, a.workflowId);
        for (const r of (await cp.listRuns()).filter((x) => !x.is_terminal).slice(0, 20))
          sample.set(r.run_id, r.workflow_id);
        for (const [runId, workflowId] of sample)
          seen.set(runId, { workflowId, events: await cp.history(workflowId, runId) });
      };

      const restock1 = seeded1.get("lost_transport") as { workflowId: string; runId: string };
      await until("load before the kill", 30_000, async () => {
        await snapshot();
        return acks.length >= 16 && /crashing worker \S+ claimed SettlePayment/.test(first.output());
      });
      // The lost-transport run is stuck at the moment of the crash (auto repair is off before it).
      const stuck = await cp.debugRun(restock1.workflowId, restock1.runId);
      expect(stuck.execution.liveness_state).toBe("repair_needed");
      await snapshot();
      const openAtKill = (await cp.listRuns()).filter((r) => !r.is_terminal).length;

      // SIGKILL mid-load: both loops are still sending.
      serverUp = new Promise((r) => (markUp = r));
      killed = true;
      first.child.kill("SIGKILL");
      await first.exited;
      expect(first.child.signalCode).toBe("SIGKILL");
      const acksBeforeKill = acks.filter((a) => a.beforeKill).length;

      // Restart on the same file, with the demo fleet and automatic repair on so stuck runs come back.
      const second = await launchDemoServer(dataFile, { ...LEASES, DW_AUTO_REPAIR: "1" }, READY_MS);
      processes.push(second);
      cp.url = second.url;
      markUp();
      // The run stuck across the crash gets an operator repair (repair_dispatched, or
      // repair_not_needed if the automatic pass won the race); the restarted fleet's own
      // lost-transport run is left to the automatic pass, so both paths are exercised.
      await command("repair", restock1.workflowId, () => cp.repair(restock1.workflowId, `repair-${restock1.runId}`));

      // The fleet resumes on the same file (its state beside it): no scenario is seeded twice, and
      // the only new demo run is the next lost-transport restock, under a new id.
      const ids1 = new Set(first.seeded.map((s) => s.workflowId));
      expect(second.output()).toMatch(/\[demo\] resumed fleet /);
      expect(second.seeded.map((s) => s.name)).toEqual(["lost_transport"]);
      expect(second.seeded.filter((s) => ids1.has(s.workflowId))).toEqual([]);

      await until("load after the restart", 30_000, async () => acks.length >= acksBeforeKill + 8);
      stopLoad = true;
      await Promise.all(loops);

      // The runs that must end: every instance that exists now. Later trickle orders and later
      // lost-transport injections are new instances and not part of the claim.
      const atCut = await cp.listRuns();
      const target = new Set(atCut.map((r) => r.workflow_id));
      for (const a of acks.filter((x) => x.kind === "start"))
        expect(target.has(a.workflowId), `acknowledged start ${a.workflowId}`).toBe(true);

      const inputs = new Map<string, unknown[]>();
      const settle = async (run: ListedRun): Promise<void> => {
        if (run.workflow_type === "RefundApprovalWorkflow") {
          if (!inputs.has(run.run_id))
            inputs.set(run.run_id, (await cp.describeRun(run.workflow_id, run.run_id)).input as unknown[]);
          const waitsForever = typeof (inputs.get(run.run_id) as unknown[])[1] !== "number";
          const approved = acks.some((a) => a.kind === "signal" && a.workflowId === run.workflow_id);
          if (waitsForever && !approved) await approve(run.workflow_id);
        }
        // The held delivery waits for `release` until an operator sends it.
        if (run.workflow_type === "DeliveryHoldWorkflow")
          await command("signal", run.workflow_id, () =>
            cp.signal(run.workflow_id, "release", [], `release-${run.workflow_id}`),
          );
      };
      const final = await until(
        "every run to reach a terminal status",
        80_000,
        async () => {
          const runs = (await cp.listRuns()).filter((r) => target.has(r.workflow_id));
          const open = runs.filter((r) => !r.is_terminal);
          for (const r of open) await settle(r);
          return open.length === 0 ? runs : null;
        },
        500,
      );

      // Every seeded scenario, from both fleets, ended the way it is designed to.
      const byRun = new Map(final.map((r) => [r.run_id, r]));
      const expected: Record<string, string> = {
        order_happy: "completed",
        order_transient: "completed",
        order_declined: "failed",
        order_exhausted: "failed",
        order_slow_invoice: "failed",
        execution_timeout: "failed",
        approval_waiting: "completed",
        approval_timeout: "completed",
        continue_as_new: "completed",
        parent_child: "completed",
        worker_crash: "completed",
        lost_transport: "completed",
        updates_waiting: "completed",
      };
      for (const s of [...first.seeded, ...second.seeded]) {
        expect(byRun.get(s.runId)?.status, `${s.name} ${s.workflowId}`).toBe(expected[s.name]);
        const d = await cp.describeRun(s.workflowId, s.runId);
        if (s.name === "execution_timeout") expect(d.closed_reason).toBe("timed_out");
        if (s.name === "approval_timeout") expect(d.output).toMatchObject({ approved: false, timedOut: true });
        if (s.name === "approval_waiting") expect(d.output).toMatchObject({ approved: true, timedOut: false });
        if (s.name === "continue_as_new") {
          const chain = final.filter((r) => r.workflow_id === s.workflowId);
          expect(chain.map((r) => r.status)).toEqual(["completed", "completed", "completed", "completed"]);
        }
      }
      // The restarted fleet's lost-transport run came back through the automatic pass alone, which
      // writes no history; the one stuck across the crash got the operator's RepairRequested.
      const restock2 = second.seeded.find((s) => s.name === "lost_transport") as { workflowId: string; runId: string };
      expect(
        (await cp.history(restock2.workflowId, restock2.runId)).filter((e) => e.event_type === "RepairRequested"),
      ).toEqual([]);
      expect(acks.filter((a) => a.kind === "repair").map((a) => a.runId)).toContain(restock1.runId);
      // Each approval run this test started saw its acknowledged approval, whichever side of the crash.
      for (const a of acks.filter((x) => x.kind === "start" && x.workflowId.startsWith("crash-approval-"))) {
        expect((await cp.describeRun(a.workflowId, a.runId)).output, a.workflowId).toMatchObject({
          approved: true,
          timedOut: false,
        });
      }

      // No event seen before the kill is lost or rewritten; sequences stay dense.
      for (const [runId, { workflowId, events }] of seen) {
        const now = await cp.history(workflowId, runId);
        expect(now.slice(0, events.length), `${workflowId} ${runId}`).toEqual(events);
        expect(now.map((e) => e.sequence)).toEqual(now.map((_, i) => i + 1));
      }
      // Every acknowledged command left its event in the run it named.
      const histories = new Map<string, HistoryEvent[]>();
      for (const a of acks) {
        if (!histories.has(a.runId)) histories.set(a.runId, await cp.history(a.workflowId, a.runId));
        const events = histories.get(a.runId) as HistoryEvent[];
        const hit = events.filter(
          (e) =>
            e.event_type === ACK_EVENT[a.kind] &&
            (e.payload as { workflow_command_id?: string }).workflow_command_id === a.commandId,
        );
        expect(hit, `${a.kind} ${a.workflowId} ${a.commandId}`).toHaveLength(1);
      }
      expect(unexpected).toEqual([]);

      second.child.kill("SIGTERM");
      await second.exited;
      // …and its workflow_commands row, read from the file once the server is gone.
      const db = new Database(dataFile, { readonly: true });
      try {
        const row = db.prepare("SELECT command_type, workflow_instance_id, status FROM workflow_commands WHERE id = ?");
        for (const a of acks)
          expect(row.get(a.commandId), `${a.kind} ${a.workflowId}`).toEqual({
            command_type: a.kind,
            workflow_instance_id: a.workflowId,
            status: "accepted",
          });
      } finally {
        db.close();
      }
      expect(acksBeforeKill).toBeGreaterThanOrEqual(16);
      const kinds = (["start", "signal", "repair"] as const).map(
        (k) => `${k} ${acks.filter((a) => a.kind === k).length}`,
      );
      console.log(
        `crash-under-load: ${acks.length} acknowledged commands (${kinds.join(", ")}; ${acksBeforeKill} before the kill), ${lostInFlight} cut off by it, ` +
          `${openAtKill} runs open at the kill, ${seen.size} histories checked, ${final.length} runs ended`,
      );
    },
  );
});
