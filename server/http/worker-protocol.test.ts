import type { FastifyReply } from "fastify";
import { describe, expect, it, vi } from "vitest";
import {
  isCompatibleProtocolVersion,
  longPollTimeoutFromEnv,
  sendWorker,
  SERVER_CAPABILITIES,
  WORKER_PROTOCOL_VERSION,
  workerProtocolNegotiation,
  workerProtocolVersionFromEnv,
} from "./worker-protocol";

/** Captures what sendWorker hands to Fastify. */
function capture(body: Record<string, unknown>): { status: number; headers: Record<string, string>; text: string } {
  const out = { status: 0, headers: {} as Record<string, string>, text: "" };
  const reply = {
    code(s: number) {
      out.status = s;
      return reply;
    },
    header(k: string, v: string) {
      out.headers[k.toLowerCase()] = v;
      return reply;
    },
    send(payload: string) {
      out.text = payload;
      return reply;
    },
  };
  sendWorker(reply as unknown as FastifyReply, 200, body);
  return out;
}

const expected = (body: Record<string, unknown>): unknown =>
  JSON.parse(
    JSON.stringify({ ...body, protocol_version: WORKER_PROTOCOL_VERSION, server_capabilities: SERVER_CAPABILITIES }),
  );

describe("sendWorker", () => {
  const event = {
    id: "e1",
    sequence: 1,
    event_type: "WorkflowStarted",
    timestamp: "2026-01-15T10:00:00.000000Z",
    payload: { html: "<script>\u2028</script>", n: null },
    workflow_task_id: null,
    workflow_command_id: null,
  };
  it.each<[string, Record<string, unknown>]>([
    ["an empty body", {}],
    ["a refusal", { error: "Workflow task not found.", reason: "task_not_found", task_id: "t/1" }],
    ["a poll timeout", { task: null, poll_status: "timeout" }],
    [
      "a claimed task with history",
      {
        task: {
          task_id: "t1",
          history_events: [event, { ...event, id: "e2", sequence: 2 }],
          next_history_page_token: null,
        },
      },
    ],
    ["a history page", { task_id: "t1", history_events: [event], total_history_events: 1 }],
    ["a task without history", { task: { task_id: "a1", arguments: { codec: "avro", blob: "AA==" } } }],
    ["a body that names the protocol members itself", { protocol_version: "0.9", server_capabilities: {}, ok: true }],
  ])("serialises %s like JSON.stringify of the body and protocol members", (_name, body) => {
    const out = capture(body);
    expect(JSON.parse(out.text)).toEqual(expected(body));
    expect(out.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(out.headers["x-durable-workflow-protocol-version"]).toBe(WORKER_PROTOCOL_VERSION);
  });

  it("serialises a shared event object once but never serves a stale copy of another", () => {
    const shared = { ...event };
    const first = JSON.parse(capture({ task: { history_events: [shared] } }).text) as {
      task: { history_events: unknown[] };
    };
    const other = { ...event, id: "e9" };
    const second = JSON.parse(capture({ task: { history_events: [shared, other] } }).text) as {
      task: { history_events: unknown[] };
    };
    expect(second.task.history_events).toEqual([first.task.history_events[0], JSON.parse(JSON.stringify(other))]);
  });
});

describe("DW_WORKER_POLL_TIMEOUT", () => {
  it("sets the default hold and what server_capabilities advertises; bad values stop the start with the variable's name", async () => {
    expect(longPollTimeoutFromEnv({})).toBe(30);
    expect(longPollTimeoutFromEnv({ DW_WORKER_POLL_TIMEOUT: " 90 " })).toBe(90);
    for (const bad of ["0", "-5", "1.5", "soon", "4000"])
      expect(() => longPollTimeoutFromEnv({ DW_WORKER_POLL_TIMEOUT: bad })).toThrow(/DW_WORKER_POLL_TIMEOUT/);
    vi.stubEnv("DW_WORKER_POLL_TIMEOUT", "90");
    vi.resetModules();
    try {
      const fresh = await import("./worker-protocol");
      expect(fresh.SERVER_CAPABILITIES.long_poll_timeout).toBe(90);
      expect(fresh.LONG_POLL_TIMEOUT_SECONDS).toBe(90);
    } finally {
      vi.unstubAllEnvs();
      vi.resetModules();
    }
  });
});

describe("DW_WORKER_PROTOCOL_VERSION and the real negotiation rule", () => {
  it("advertises 1.20 by default, lets the operator lower it, and refuses a version this server does not implement", () => {
    expect(workerProtocolVersionFromEnv({})).toBe("1.20");
    expect(workerProtocolVersionFromEnv({ DW_WORKER_PROTOCOL_VERSION: " 1.19 " })).toBe("1.19");
    expect(workerProtocolVersionFromEnv({ WORKFLOW_SERVER_WORKER_PROTOCOL_VERSION: "1.18" })).toBe("1.18");
    for (const bad of ["1.21", "2.0", "1", "v1.20", "1.20.1", "latest"])
      expect(() => workerProtocolVersionFromEnv({ DW_WORKER_PROTOCOL_VERSION: bad })).toThrow(
        /DW_WORKER_PROTOCOL_VERSION/,
      );
  });

  it("same major and minor ≤ advertised; a malformed version only by exact equality", () => {
    expect(isCompatibleProtocolVersion("1.20", "1.20")).toBe(true);
    expect(isCompatibleProtocolVersion("1.19", "1.20")).toBe(true);
    expect(isCompatibleProtocolVersion("1.0", "1.20")).toBe(true);
    expect(isCompatibleProtocolVersion("1.20", "1.19")).toBe(false);
    expect(isCompatibleProtocolVersion("2.0", "1.20")).toBe(false);
    expect(isCompatibleProtocolVersion("1.19.0", "1.20")).toBe(false);
    expect(workerProtocolNegotiation("1.19").accepted_request_versions_by_default).toHaveLength(20);
  });

  it("a lowered advertisement is what the module sends and what the negotiation names", async () => {
    vi.stubEnv("DW_WORKER_PROTOCOL_VERSION", "1.19");
    vi.resetModules();
    try {
      const fresh = await import("./worker-protocol");
      expect(fresh.WORKER_PROTOCOL_VERSION).toBe("1.19");
      expect(fresh.workerProtocolNegotiation().default_advertised_version).toBe("1.19");
    } finally {
      vi.unstubAllEnvs();
      vi.resetModules();
    }
  });
});
