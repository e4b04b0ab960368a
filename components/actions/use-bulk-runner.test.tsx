// @vitest-environment jsdom
import type { ReactNode } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { act, cleanup, renderHook, waitFor } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import type { SendResult } from "@/lib/confirm/bulk";
import type { BulkSent } from "@/lib/confirm/bulk-runner";
import { BULK_SEND_CONCURRENCY } from "@/lib/confirm/bulk-limits";
import { runKey } from "@/lib/queries/keys";
import type { BulkFlow } from "@/components/actions/use-bulk-runner";
import { useBulkRunner } from "@/components/actions/use-bulk-runner";

afterEach(cleanup);

interface Run {
  workflowId: string;
  runId: string;
}
interface Plan {
  prefix: string;
  send: Run[];
}
interface Tally {
  accepted: number;
  rejected: number;
  errors: number;
  confirmed: number;
}

const runs: Run[] = Array.from({ length: 7 }, (_, i) => ({ workflowId: `wf-${i}`, runId: `run-${i}` }));

/**
 * An in-memory "server": reads say whether a run is open, a send to an open run is accepted
 * (wf-3 answers a 409 as rejected), and an accepted run reads back as closed.
 */
function memoryFlow(prefix: string, log: { inFlight: number; most: number; sent: string[] }) {
  const flow: BulkFlow<Run, boolean, Plan, Run, string, BulkSent, boolean, Tally> = {
    read: async (run) => run.workflowId !== "wf-6",
    plan: (targets, open) => ({ prefix, send: targets.filter((_, index) => open[index]) }),
    sendTo: (plan) => plan.send,
    send: async (run, reason) => {
      log.inFlight += 1;
      log.most = Math.max(log.most, log.inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      log.inFlight -= 1;
      log.sent.push(`${prefix}:${run.workflowId}:${reason}`);
      const result: SendResult =
        run.workflowId === "wf-3"
          ? { kind: "rejected", reason: "run_not_active" }
          : { kind: "accepted", outcome: null };
      return { result };
    },
    follow: async () => true,
    outcome: (_plan, sends, follows) => ({
      accepted: sends.filter((send) => send.kind === "accepted").length,
      rejected: sends.filter((send) => send.kind === "rejected").length,
      errors: sends.filter((send) => send.kind === "error").length,
      confirmed: follows.filter(Boolean).length,
    }),
    settled: (tally) => tally.confirmed === tally.accepted,
    trackForMs: 60_000,
    touched: (items) => items,
  };
  return flow;
}

function wrapper(client: QueryClient) {
  return function Wrapper({ children }: { children: ReactNode }) {
    return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
  };
}

describe("useBulkRunner", () => {
  it("plans from the reads, sends with bounded concurrency, tracks to done and re-reads the runs", async () => {
    const client = new QueryClient();
    client.setQueryData(runKey("default", "wf-0", "run-0"), { cached: true });
    const log = { inFlight: 0, most: 0, sent: [] as string[] };
    const flow = memoryFlow("a", log);
    const { result } = renderHook(() => useBulkRunner("default", runs, flow), { wrapper: wrapper(client) });
    expect(result.current.stage.kind).toBe("planning");
    await waitFor(() => expect(result.current.stage.kind).toBe("planned"));
    expect(result.current.reads).toHaveLength(7);
    await act(() => result.current.execute("because"));
    const stage = result.current.stage;
    expect(stage).toMatchObject({ kind: "done", why: "settled", checks: 1 });
    if (stage.kind !== "done") return;
    // wf-6 was closed in the dry run; wf-3 answered a 409 and is not tracked.
    expect(stage.outcome).toEqual({ accepted: 5, rejected: 1, errors: 0, confirmed: 5 });
    expect(log.sent).toHaveLength(6);
    expect(log.sent.every((line) => line.endsWith(":because"))).toBe(true);
    expect(log.most).toBeLessThanOrEqual(BULK_SEND_CONCURRENCY);
    expect(log.most).toBeGreaterThan(1);
    await waitFor(() => expect(client.getQueryState(runKey("default", "wf-0", "run-0"))?.isInvalidated).toBe(true));
  });

  it("re-plans when the flow's plan function changes, and sends the plan shown", async () => {
    const client = new QueryClient();
    const log = { inFlight: 0, most: 0, sent: [] as string[] };
    const first = memoryFlow("a", log);
    const { result, rerender } = renderHook(({ flow }) => useBulkRunner("default", runs, flow), {
      wrapper: wrapper(client),
      initialProps: { flow: first },
    });
    await waitFor(() => expect(result.current.stage.kind).toBe("planned"));
    rerender({ flow: memoryFlow("b", log) });
    await waitFor(() => expect(result.current.stage).toMatchObject({ kind: "planned", plan: { prefix: "b" } }));
    await act(() => result.current.execute("x"));
    expect(result.current.stage).toMatchObject({ kind: "done", plan: { prefix: "b" } });
  });

  it("stops starting sends once the panel closes mid-send", async () => {
    const client = new QueryClient();
    const log = { inFlight: 0, most: 0, sent: [] as string[] };
    const flow = memoryFlow("a", log);
    const { result, unmount } = renderHook(() => useBulkRunner("default", runs, flow), { wrapper: wrapper(client) });
    await waitFor(() => expect(result.current.stage.kind).toBe("planned"));
    let running: Promise<void> = Promise.resolve();
    act(() => {
      running = result.current.execute("x");
    });
    unmount();
    await running;
    // The first lanes were already in flight; none started after the close.
    expect(log.sent.length).toBeLessThanOrEqual(BULK_SEND_CONCURRENCY);
    expect(log.sent.length).toBeLessThan(6);
  });
});
