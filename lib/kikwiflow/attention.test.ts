import { describe, expect, it } from "vitest";
import { groupIncidents, rootCauseClass, scanAttention } from "./attention";
import { KikwiflowNotFoundError } from "./errors";
import type { ProcessInstanceSnapshot } from "./schemas";

const trace = (cls: string, cause?: string) =>
  `${cls}: outer\n\tat a.B.c(B.java:1)${cause ? `\nCaused by: ${cause}: inner\n\tat d.E.f(E.java:2)` : ""}`;

interface Seed {
  type: string;
  task: string;
  trace: string;
  at: string;
  status?: string;
  definition?: string;
}

function snap(id: string, incidents: Seed[]) {
  return {
    instance: { id, processDefinitionId: incidents[0]?.definition ?? "def-a" },
    executableTasks: incidents.map((i, n) => ({
      id: `${id}-t${n}`,
      taskDefinitionId: i.task,
      name: `Task ${i.task}`,
      retryPolicy: { strategy: "LINEAR", maxRetries: 5, intervals: ["PT0.3S"] },
    })),
    externalTasks: [],
    incidents: incidents.map((i, n) => ({
      id: `${id}-i${n}`,
      type: i.type,
      executionId: `${id}-t${n}`,
      taskDefinitionId: i.task,
      stackTrace: i.trace,
      createdAt: i.at,
      processInstanceId: id,
      processDefinitionId: i.definition ?? "def-a",
      status: i.status ?? "OPEN",
    })),
  } as unknown as ProcessInstanceSnapshot;
}

describe("rootCauseClass", () => {
  it("takes the last Caused by, else the first line, as a simple name", () => {
    expect(rootCauseClass(trace("java.lang.RuntimeException", "com.acme.PaymentDeclinedException"))).toBe(
      "PaymentDeclinedException",
    );
    expect(rootCauseClass(trace("java.lang.IllegalStateException"))).toBe("IllegalStateException");
    expect(rootCauseClass(null)).toBeNull();
    expect(rootCauseClass("no class here!")).toBeNull();
  });
});

describe("groupIncidents", () => {
  it("groups OPEN incidents by type × task × exception with counts and first/last seen", () => {
    const groups = groupIncidents([
      snap("p1", [{ type: "FAILED_JOB", task: "charge", trace: trace("x.Boom"), at: "2026-12-03T07:00:02Z" }]),
      snap("p2", [{ type: "FAILED_JOB", task: "charge", trace: trace("x.Boom"), at: "2026-12-03T07:00:01Z" }]),
      snap("p3", [
        { type: "FAILED_JOB", task: "charge", trace: trace("y.Other"), at: "2026-12-03T07:00:03Z" },
        { type: "UNHANDLED_BUSINESS_ERROR", task: "ship", trace: trace("z.Nope"), at: "x", status: "RESOLVED" },
      ]),
    ]);
    expect(groups.map((g) => [g.type, g.taskDefinitionId, g.exception, g.count])).toEqual([
      ["FAILED_JOB", "charge", "Boom", 2],
      ["FAILED_JOB", "charge", "Other", 1],
    ]);
    expect(groups[0]!.firstSeen).toBe("2026-12-03T07:00:01Z");
    expect(groups[0]!.lastSeen).toBe("2026-12-03T07:00:02Z");
    expect(groups[0]!.instances.map((i) => i.processInstanceId)).toEqual(["p1", "p2"]);
    expect(groups[0]!.taskName).toBe("Task charge");
  });

  it("keeps two processes' incidents apart when their tasks share an id", () => {
    const groups = groupIncidents([
      snap("p1", [{ type: "FAILED_JOB", task: "charge", trace: trace("x.Boom"), at: "a", definition: "def-a" }]),
      snap("p2", [{ type: "FAILED_JOB", task: "charge", trace: trace("x.Boom"), at: "b", definition: "def-b" }]),
    ]);
    expect(groups.map((g) => [g.processDefinitionId, g.taskDefinitionId, g.count])).toEqual([
      ["def-a", "charge", 1],
      ["def-b", "charge", 1],
    ]);
  });

  it("counts the group's incidents whose outbox lineage shows them fatal", () => {
    const seed = { type: "FAILED_JOB", task: "post", trace: trace("x.LedgerCorruptedException"), at: "a" };
    const lineage = (incidentId: string, retriesScheduled: number, lastRetriesLeft: number | null) => ({
      incidentId,
      taskId: null,
      retriesScheduled,
      lastRetriesLeft,
    });
    const groups = groupIncidents(
      [snap("p1", [seed]), snap("p2", [seed]), snap("p3", [seed])],
      new Map([
        ["p1-i0", lineage("p1-i0", 0, null)],
        ["p2-i0", lineage("p2-i0", 4, 1)],
      ]),
    );
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatchObject({ count: 3, fatal: 1 });
  });
});

describe("scanAttention", () => {
  const ids = Array.from({ length: 250 }, (_, i) => `p${i}`);
  function fakeEngine(gone: Set<string>) {
    let inFlight = 0;
    let peak = 0;
    const pages: number[] = [];
    const eventReads: string[] = [];
    return {
      peak: () => peak,
      pages,
      eventReads,
      client: {
        async searchProcessInstances(search: { page?: number; size?: number } = {}) {
          const page = search.page ?? 0;
          const size = search.size ?? 20;
          pages.push(page);
          const content = ids.slice(page * size, page * size + size).map((id) => ({ id }));
          return { content, totalElements: ids.length, totalPages: Math.ceil(ids.length / size), page, size } as never;
        },
        async getSnapshot(id: string) {
          inFlight += 1;
          peak = Math.max(peak, inFlight);
          await new Promise((r) => setTimeout(r, 0));
          inFlight -= 1;
          if (gone.has(id)) throw new KikwiflowNotFoundError("gone", { httpStatus: 404 });
          return snap(id, [{ type: "FAILED_JOB", task: "charge", trace: trace("x.Boom"), at: "2026-12-03T07:00:00Z" }]);
        },
        async getEvents(id: string) {
          eventReads.push(id);
          // The incident opened with no retry scheduled before it: fatal for a 5-execution policy.
          const payload = { incidentId: `${id}-i0`, type: "FAILED_JOB", executionId: `${id}-t0` };
          return [{ id: `${id}-e`, eventType: "INCIDENT_CREATED", payload }] as never;
        },
      },
    };
  }

  it("stops at the limit and says capped of the engine's total, at bounded concurrency", async () => {
    const engine = fakeEngine(new Set());
    const scan = await scanAttention(engine.client, { limit: 150, concurrency: 4 });
    expect(scan).toMatchObject({ scanned: 150, total: 250, capped: true, movedOn: 0 });
    expect(scan.groups[0]!.count).toBe(150);
    expect(engine.pages).toEqual([0, 1]);
    expect(engine.peak()).toBeLessThanOrEqual(4);
    expect(engine.peak()).toBeGreaterThan(1);
  });

  it("walks every page under the limit and counts 404s as moved on", async () => {
    const engine = fakeEngine(new Set(["p3", "p200"]));
    const scan = await scanAttention(engine.client, { limit: 1000 });
    expect(scan).toMatchObject({ scanned: 250, total: 250, capped: false, movedOn: 2 });
    expect(scan.groups[0]).toMatchObject({ count: 248, fatal: 248 });
    // Only the instances with an open FAILED_JOB have their outbox read, the gone ones not.
    expect(engine.eventReads).toHaveLength(248);
    expect(engine.pages).toEqual([0, 1, 2]);
  });
});
