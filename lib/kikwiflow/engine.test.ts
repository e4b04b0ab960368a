import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { timestampToEpochMs } from "../dw/schema-kit";
import { createKikwiflowClient, type KikwiflowClient } from "./client";
import { HOST_PROCESS_KEYS, type KikwiflowHost } from "./engine-host";
import { withKikwiflowHost } from "./engine-host-suite";
import {
  KikwiflowBadRequestError,
  KikwiflowNotFoundError,
  KikwiflowRouteNotFoundError,
  KikwiflowServerError,
  type KikwiflowError,
} from "./errors";
import { incidentCreatedEvents, retryScheduledEvents } from "./events";
import { retryForecast } from "./retry-policy";
import type { ExecutableTask, Incident, ProcessInstanceSnapshot } from "./schemas";

/**
 * The typed client against the REAL Kikwiflow engine (scripts/kikwiflow.sh builds it from the vendored
 * atoxfy/kikwiflow@3b62f35; KIKWIFLOW_HOST_JAR names the jar). A missing jar fails the suite: the
 * point is that the console's reading of incidents and retries is checked against the engine itself.
 * Every wait is a poll with a deadline; nothing sleeps a fixed time.
 */

let host: KikwiflowHost;
let kiki: KikwiflowClient;
withKikwiflowHost((suite) => {
  ({ host, kiki } = suite);
});

const POLL_MS = 50;

/** Re-reads until `done` holds or the deadline passes; the failure names the last value seen. */
async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      last = await read();
      if (done(last)) return last;
    } catch (error) {
      lastError = error;
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  throw new Error(
    `timed out waiting for ${what}; last value: ${JSON.stringify(last)?.slice(0, 1500)}; last error: ${String(lastError)}`,
  );
}

async function start(key: string, variables: Record<string, unknown> = {}, businessKey = `${key}-${randomUUID()}`) {
  const entries = Object.entries(variables).map(([name, value]) => [name, { name, value }]);
  return kiki.startProcessInstance({ processDefinitionKey: key, businessKey, variables: Object.fromEntries(entries) });
}

function onlyTask(snapshot: ProcessInstanceSnapshot): ExecutableTask {
  expect(snapshot.executableTasks).toHaveLength(1);
  return snapshot.executableTasks[0]!;
}

function openIncidents(snapshot: ProcessInstanceSnapshot): Incident[] {
  return snapshot.incidents.filter((i) => i.status === "OPEN");
}

/**
 * One read while the engine may be writing. Its in-memory repository (kikwi-in-memory-addons/.../
 * InMemoryKikwiEngineRepository.java@3b62f35) is plain HashMaps and ArrayLists without locks, so a
 * read racing a task's commit can fail with Spring's 500; that read is repeated (bounded), any other
 * failure is not.
 */
async function readWhileBusy<T>(read: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      if (!(error instanceof KikwiflowServerError) || attempt === 3) throw error;
    }
  }
}

/** nextDueDate is computed just before scheduledAt, so the gap is the interval less a little. */
function expectDelay(delayMs: number, intervalMs: number) {
  expect(delayMs).toBeLessThanOrEqual(intervalMs + 1);
  expect(delayMs).toBeGreaterThan(intervalMs - 150);
}

const ms = (value: string | null | undefined) => timestampToEpochMs(value) ?? Number.NaN;

async function rejection(promise: Promise<unknown>): Promise<KikwiflowError> {
  try {
    await promise;
  } catch (error) {
    return error as KikwiflowError;
  }
  throw new Error("expected the call to fail");
}

describe("Kikwiflow engine over HTTP", () => {
  it("pages a search by business key, in order, and caps the page size at 100", async () => {
    const prefix = `page-${randomUUID()}`;
    const keys = Array.from({ length: 7 }, (_, i) => `${prefix}-${i}`);
    for (const key of keys) await start("kiki-await-review", {}, key);

    const search = { businessKeys: keys, orderBy: "businessKey", ascending: true, size: 3 } as const;
    const first = await kiki.searchProcessInstances({ ...search, page: 0 });
    expect(first).toMatchObject({ totalElements: 7, totalPages: 3, page: 0, size: 3 });
    const pages = [first, await kiki.searchProcessInstances({ ...search, page: 1 })];
    pages.push(await kiki.searchProcessInstances({ ...search, page: 2 }));
    expect(pages.map((p) => p.content.length)).toEqual([3, 3, 1]);
    expect(pages.flatMap((p) => p.content.map((row) => row.businessKey))).toEqual(keys);
    expect(first.content[0]).toMatchObject({ status: "ACTIVE", activeNodes: { REVIEW: 1 } });

    const capped = await kiki.searchProcessInstances({ businessKeys: keys, size: 500 });
    expect(capped.size).toBe(100);
    const none = await kiki.searchProcessInstances({ businessKeys: keys, statuses: ["COMPLETED"] });
    expect(none.totalElements).toBe(0);
  });

  it("shows a LINEAR retry in the snapshot, then RETRY_SCHEDULED events reusing the last interval", async () => {
    const started = await start("kiki-flaky-linear", { failTimes: 3 });
    const failing = await waitFor(
      () => kiki.getSnapshot(started.id),
      (s) => s.executableTasks[0]?.status === "PENDING" && (s.executableTasks[0]?.executions ?? 0) >= 1,
      "the first failed execution",
    );
    const task = onlyTask(failing);
    expect(task.taskDefinitionId).toBe("CHARGE_PAYMENT");
    expect(task.error).toMatch(/^Payment gateway timed out/);
    // maxRetries counts executions: 4 in all, so retries left = 4 - executions so far.
    expect(task.retries).toBe(4 - (task.executions ?? 0));
    // The next attempt is due one LINEAR interval (>= 300 ms) after the failed one was acquired.
    expect(ms(task.dueDate) - ms(task.acquiredAt)).toBeGreaterThanOrEqual(250);
    expect(task.retryPolicy).toMatchObject({ strategy: "LINEAR", maxRetries: 4, intervals: ["PT0.3S", "PT0.6S"] });
    expect(openIncidents(failing)).toEqual([]);

    // The fourth execution succeeds: the task is gone and the instance waits at REVIEW.
    const moved = await waitFor(
      () => kiki.getSnapshot(started.id),
      (s) => s.executableTasks.length === 0 && s.externalTasks.some((t) => t.taskDefinitionId === "REVIEW"),
      "the retried task to succeed",
    );
    expect(moved.incidents).toEqual([]);

    const retries = retryScheduledEvents(await kiki.getEvents(started.id));
    expect(retries.map((r) => [r.payload.executionsSoFar, r.payload.retriesLeft])).toEqual([
      [1, 3],
      [2, 2],
      [3, 1],
    ]);
    for (const r of retries) expect(r.payload.errorMessage).toMatch(/^Payment gateway timed out/);
    // PT0.3S, then PT0.6S, then PT0.6S again: LINEAR reuses its last interval.
    const delays = retries.map((r) => ms(r.payload.nextDueDate) - ms(r.payload.scheduledAt));
    [300, 600, 600].forEach((interval, i) => expectDelay(delays[i]!, interval));
    // The console's forecast of the same policy predicts exactly that schedule.
    expect(retryForecast(task.retryPolicy!).backoffSeconds).toEqual([0.3, 0.6, 0.6]);
  });

  it("opens a FAILED_JOB incident once EXPONENTIAL_BACKOFF spends maxRetries executions", async () => {
    const started = await start("kiki-exhausted-backoff");
    const failed = await waitFor(
      () => kiki.getSnapshot(started.id),
      (s) => openIncidents(s).length === 1,
      "the incident after the last retry",
    );
    const task = onlyTask(failed);
    expect(task).toMatchObject({ status: "ERROR", retries: 0, executions: 3 });
    expect(task.retryPolicy).toMatchObject({
      strategy: "EXPONENTIAL_BACKOFF",
      maxRetries: 3,
      initialInterval: "PT0.2S",
      multiplier: 2,
      maxInterval: "PT1S",
    });
    const [incident] = openIncidents(failed);
    expect(incident).toMatchObject({
      type: "FAILED_JOB",
      message: "Ledger service unavailable (HTTP 503)",
      taskDefinitionId: "SYNC_LEDGER",
      executionId: task.id,
      processInstanceId: started.id,
    });
    expect(await kiki.getIncident(incident!.id)).toMatchObject({ id: incident!.id, status: "OPEN" });
    expect((await kiki.getInstanceIncidents(started.id)).map((i) => i.id)).toEqual([incident!.id]);

    const events = await kiki.getEvents(started.id);
    const retries = retryScheduledEvents(events);
    expect(retries.map((r) => r.payload.retriesLeft)).toEqual([2, 1]);
    // initialInterval × multiplier^executions-before-this-failure: 200 ms, then 400 ms.
    const delays = retries.map((r) => ms(r.payload.nextDueDate) - ms(r.payload.scheduledAt));
    [200, 400].forEach((interval, i) => expectDelay(delays[i]!, interval));
    expect(retryForecast(task.retryPolicy!)).toMatchObject({ maxAttempts: 3, backoffSeconds: [0.2, 0.4] });
    expect(incidentCreatedEvents(events).map((e) => [e.payload.incidentId, e.payload.type])).toEqual([
      [incident!.id, "FAILED_JOB"],
    ]);
  });

  it("opens an incident at once for a configured fatal exception, whatever retries were left", async () => {
    const started = await start("kiki-fatal");
    // The in-memory store writes the incident before the task's ERROR state: a snapshot between the
    // two shows an open incident beside a PENDING task (seen once under load), so wait for both.
    const failed = await waitFor(
      () => kiki.getSnapshot(started.id),
      (s) => openIncidents(s).length === 1 && s.executableTasks[0]?.status === "ERROR",
      "the incident and the task in ERROR",
    );
    expect(onlyTask(failed)).toMatchObject({
      status: "ERROR",
      retries: 0,
      executions: 1,
      retryPolicy: { maxRetries: 5 },
    });
    const [incident] = openIncidents(failed);
    expect(incident).toMatchObject({ type: "FAILED_JOB", message: "Ledger entry checksum mismatch" });
    expect(incident!.stackTrace).toContain("LedgerCorruptedException");
    expect(retryScheduledEvents(await kiki.getEvents(started.id))).toEqual([]);
  });

  it("opens UNHANDLED_BUSINESS_ERROR at once for a ProcessErrorException no boundary catches", async () => {
    const started = await start("kiki-business-error");
    const failed = await waitFor(
      () => kiki.getSnapshot(started.id),
      (s) => openIncidents(s).length === 1,
      "the incident",
    );
    expect(onlyTask(failed)).toMatchObject({ status: "ERROR", retries: 0, executions: 1 });
    expect(openIncidents(failed)[0]).toMatchObject({
      type: "UNHANDLED_BUSINESS_ERROR",
      message: "Credit bureau rejected the applicant",
      taskDefinitionId: "CHECK_CREDIT",
    });
    const events = await kiki.getEvents(started.id);
    expect(retryScheduledEvents(events)).toEqual([]);
    expect(incidentCreatedEvents(events).map((e) => e.payload.type)).toEqual(["UNHANDLED_BUSINESS_ERROR"]);
  });

  it("retries an incident: RESOLVED, task PENDING with restored retries, a second retry is a 409", async () => {
    const started = await start("kiki-fatal");
    let incident = openIncidents(
      await waitFor(
        () => kiki.getSnapshot(started.id),
        (s) => openIncidents(s).length === 1,
        "the incident",
      ),
    )[0]!;

    // The handler fails fatally every time, so the engine picks the restored task up again within one
    // acquisition tick (300 ms) and opens a new incident. The PENDING state is read right after the
    // 204; if a tick fell in between, the next incident is retried instead (bounded).
    let confirmed: { incident: Incident; task: ExecutableTask } | null = null;
    for (let attempt = 0; attempt < 5 && confirmed === null; attempt++) {
      const executionsBefore = onlyTask(await readWhileBusy(() => kiki.getSnapshot(started.id))).executions ?? 0;
      expect(await kiki.retryIncident(incident.id)).toEqual({ kind: "accepted", httpStatus: 204 });
      const snapshot = await readWhileBusy(() => kiki.getSnapshot(started.id));
      const reread = await readWhileBusy(() => kiki.getIncident(incident.id));
      expect(reread.status).toBe("RESOLVED");
      const task = onlyTask(snapshot);
      if (task.status === "PENDING" && task.executions === executionsBefore) {
        confirmed = { incident: reread, task };
      } else {
        incident = openIncidents(
          await waitFor(
            () => kiki.getSnapshot(started.id),
            (s) => openIncidents(s).length === 1,
            "the next incident",
          ),
        )[0]!;
      }
    }
    expect(confirmed, "saw the restored task before the engine re-ran it").not.toBeNull();
    // retryIncident restores retryPolicy.maxRetries and clears the error (KikwiflowEngine.java@3b62f35).
    expect(confirmed!.task).toMatchObject({ status: "PENDING", retries: 5, error: null });

    const again = await kiki.retryIncident(confirmed!.incident.id);
    expect(again).toMatchObject({ kind: "rejected", httpStatus: 409, code: "CONFLICT" });

    // The engine did run the task again: it failed fatally and opened a fresh incident.
    const next = await waitFor(
      () => kiki.getSnapshot(started.id),
      (s) => openIncidents(s).some((i) => i.id !== confirmed!.incident.id),
      "the re-execution's incident",
    );
    expect(onlyTask(next).executions).toBe((confirmed!.task.executions ?? 0) + 1);
    const events = await kiki.getEvents(started.id);
    expect(events.some((e) => e.eventType === "INCIDENT_RESOLVED")).toBe(true);
  });

  it("answers 404 NOT_FOUND for unknown ids, 400 for a bad search, and tells a missing route apart", async () => {
    const missing = `missing-${randomUUID()}`;
    for (const call of [
      () => kiki.getProcessInstance(missing),
      () => kiki.getSnapshot(missing),
      () => kiki.getEvents(missing),
      () => kiki.getIncident(missing),
      () => kiki.retryIncident(missing),
    ]) {
      const error = await rejection(call());
      expect(error).toBeInstanceOf(KikwiflowNotFoundError);
      expect(error).toMatchObject({ httpStatus: 404, code: "NOT_FOUND" });
    }
    const badOrder = await rejection(kiki.searchProcessInstances({ orderBy: "nonsense" as unknown as "id" }));
    expect(badOrder).toBeInstanceOf(KikwiflowBadRequestError);
    expect(badOrder).toMatchObject({ httpStatus: 400, code: "BAD_REQUEST" });

    const wrongBase = createKikwiflowClient({ baseUrl: host.baseUrl, basePath: "/not-kikwiflow" });
    expect(await rejection(wrongBase.getSnapshot(missing))).toBeInstanceOf(KikwiflowRouteNotFoundError);
  });

  it("counts per-node failures in the pulse snapshot, plain and streamed", async () => {
    const started = await start("kiki-fatal");
    await waitFor(
      () => kiki.getSnapshot(started.id),
      (s) => openIncidents(s).length === 1,
      "the incident",
    );
    const definition = await kiki.getProcessDefinitionByKey("kiki-fatal");
    const pulse = await kiki.getPulseSnapshot(definition.id);
    expect(pulse).toMatchObject({ id: definition.id, key: "kiki-fatal" });
    expect(pulse.flowNodes?.POST_LEDGER?.metrics?.fail).toBeGreaterThanOrEqual(1);
    expect(pulse.flowNodes?.POST_LEDGER?.retryPolicy).toMatchObject({ strategy: "LINEAR", maxRetries: 5 });
    expect(pulse.metrics?.running).toBeGreaterThanOrEqual(1);

    // The same counts over SSE: the first frame comes on subscribe, then one per interval (1 s here).
    const stop = new AbortController();
    const frames: number[] = [];
    const watchdog = setTimeout(() => stop.abort(), 10_000);
    try {
      for await (const frame of kiki.pulseStream(definition.id, { signal: stop.signal })) {
        expect(frame).toMatchObject({ id: definition.id, key: "kiki-fatal" });
        frames.push(frame.flowNodes?.POST_LEDGER?.metrics?.fail ?? -1);
        if (frames.length === 2) break;
      }
    } finally {
      clearTimeout(watchdog);
      stop.abort();
    }
    expect(frames).toHaveLength(2);
    for (const fail of frames) expect(fail).toBeGreaterThanOrEqual(1);
  });

  it("lists every deployed definition, and one key's versions with ?key=", async () => {
    const all = await kiki.listProcessDefinitions();
    expect(all.map((d) => d.key).sort()).toEqual([...HOST_PROCESS_KEYS].sort());
    const fatal = await kiki.listProcessDefinitions("kiki-fatal");
    expect(fatal).toHaveLength(1);
    expect(fatal[0]).toMatchObject({ key: "kiki-fatal", version: 1 });
    expect(fatal[0]!.id).toBe((await kiki.getProcessDefinitionByKey("kiki-fatal")).id);
  });
});
