import { gunzipSync, inflateRawSync } from "node:zlib";
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { blob, ScriptedWorker } from "../test-support";
import type { AuthConfig } from "../auth";
import type { CpHarness } from "./test-support";
import { cp, list, startCpHarness, wf } from "./test-support";

/** Raw GET that keeps the compressed bytes (fetch would transparently decode them). */
function rawGet(
  url: string,
  path: string,
  acceptEncoding: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${url}/api${path}`,
      { headers: { "accept-encoding": acceptEncoding, "x-durable-workflow-control-plane-version": "2" } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      },
    );
    req.on("error", reject);
    req.end();
  });
}

async function startWorkflow(h: CpHarness, workflowId: string, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await cp(h.url, "/workflows", {
    body: { workflow_id: workflowId, workflow_type: "orders.process", task_queue: "default", input: ["a"], ...extra },
  });
  expect(r.status).toBe(201);
  return String(r.body.run_id);
}

function expectEnvelope(body: Record<string, unknown>, operation: string): void {
  const env = body.control_plane as Record<string, unknown>;
  expect(env).toBeDefined();
  expect(env.schema).toBe("durable-workflow.v2.control-plane-response");
  expect(env.version).toBe(1);
  expect(env.operation).toBe(operation);
  expect((env.contract as Record<string, unknown>).legacy_field_policy).toBe("reject_non_canonical");
  for (const legacy of ["query", "signal", "update", "wait_policy"]) expect(body).not.toHaveProperty(legacy);
}

describe("control plane without auth", () => {
  let h: CpHarness;
  beforeAll(async () => {
    h = await startCpHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  test("probes and cluster info need no version header and carry none", async () => {
    const health = await cp(h.url, "/health", { version: null });
    expect(health.status).toBe(200);
    expect(health.body.status).toBe("serving");
    expect(health.body.checks?.database).toBe("ok");
    expect(health.headers.get("x-durable-workflow-control-plane-version")).toBeNull();
    const ready = await cp(h.url, "/ready", { version: null });
    expect(ready.status).toBe(200);
    expect(ready.body.checks?.migrations?.status).toBe("ok");
    expect(ready.body.checks?.default_namespace?.status).toBe("ok");
    const info = await cp(h.url, "/cluster/info", { version: null, namespace: "does-not-exist" });
    expect(info.status).toBe(200);
    expect(info.body.control_plane?.version).toBe("2");
    expect(info.body.control_plane?.header).toBe("X-Durable-Workflow-Control-Plane-Version");
    expect(info.body.control_plane?.request_contract?.schema).toBe(
      "durable-workflow.v2.control-plane-request.contract",
    );
    expect(info.body.control_plane?.request_contract?.operations?.list?.fields?.status?.canonical_values).toEqual([
      "running",
      "completed",
      "failed",
    ]);
    expect(info.body.control_plane?.response_contract?.operations?.repair?.success_fields).toEqual(["outcome"]);
    expect(info.body.worker_protocol?.version).toBe("1.20");
    // Every capability protocol 1.20 adds, said false rather than left out, except the query-claim
    // observation (queries.test.ts) and cooperative cancellation (cooperative-cancellation.test.ts).
    expect(info.body.worker_protocol?.server_capabilities).toMatchObject({
      cooperative_cancellation: true,
      nexus_cooperative_cancellation: false,
      prepared_local_activities: false,
      prepared_local_activity_groups: false,
      prepared_local_activity_cancellation_policies: [],
      query_task_authority: true,
    });
    // The real server's negotiation advertisement (app/Support/WorkerProtocol.php@051508c `negotiation`).
    const stability = (
      info.body as {
        surface_stability_contract?: {
          surface_families?: { worker_protocol?: { negotiation?: { accepted_request_versions_by_default: string[] } } };
        };
      }
    ).surface_stability_contract;
    const negotiation = stability?.surface_families?.worker_protocol?.negotiation;
    expect(negotiation).toMatchObject({
      advertised_version_path: "worker_protocol.version",
      default_advertised_version: "1.20",
      request_header_rule: "same_major_and_minor_less_than_or_equal_to_advertised",
      response_version: "advertised_version",
    });
    expect(negotiation?.accepted_request_versions_by_default).toHaveLength(21);
    expect(negotiation?.accepted_request_versions_by_default.at(-1)).toBe("1.20");
    expect(info.body.capabilities?.response_compression).toEqual(["gzip", "deflate"]);
    expect(info.body.limits?.max_payload_bytes).toBe(2_097_152);
    expect(info.body.client_compatibility!.clients!.cli!.supported_versions).toBeUndefined();
    // The members sdk-python 2.12.0 checks before registering (durable_workflow/auth_composition.py);
    // conformance/python-sdk runs the SDK's own check against this answer.
    expect(info.body.client_compatibility?.required_protocols?.worker_protocol?.version).toBe("1.20");
    expect(info.body.auth_composition_contract).toMatchObject({
      schema: "durable-workflow.v2.auth-composition.contract",
      version: 1,
      canonical_environment: {
        server_url: "DURABLE_WORKFLOW_SERVER_URL",
        namespace: "DURABLE_WORKFLOW_NAMESPACE",
        auth_token: "DURABLE_WORKFLOW_AUTH_TOKEN",
        tls_verify: "DURABLE_WORKFLOW_TLS_VERIFY",
        profile: "DW_ENV",
      },
      auth_material: {
        token: { status: "supported", effective_config_value: "redacted" },
        mtls: { status: "reserved" },
        signed_headers: { status: "reserved" },
      },
    });
    expect(info.body.auth_composition_contract?.effective_config?.required_fields).toEqual([
      "server_url",
      "namespace",
      "profile",
      "auth",
      "tls",
      "identity",
    ]);
    expect(info.body.worker_protocol?.server_capabilities?.cooperative_cancellation).toBe(true);
    expect(info.body.capabilities?.updates).toBe(true);
    // The update wait stages sdk-python requires before it sends an update (client.py@2.12.0).
    expect(info.body.control_plane!.request_contract!.operations!.update!.fields!.wait_for!.canonical_values).toEqual([
      "accepted",
      "completed",
    ]);
    expect(info.body.task_repair?.policy?.scan_limit).toBe(25);
  });

  test("version header: missing and wrong are 400 with the control_plane envelope", async () => {
    const missing = await cp(h.url, "/workflows", { version: null });
    expect(missing.status).toBe(400);
    expect(missing.body.reason).toBe("missing_control_plane_version");
    expect(missing.body.requested_version).toBeNull();
    expect(missing.body.supported_version).toBe("2");
    expect(missing.headers.get("x-durable-workflow-control-plane-version")).toBe("2");
    expectEnvelope(missing.body, "list");
    const wrong = await cp(h.url, "/workflows/x", { version: "1" });
    expect(wrong.status).toBe(400);
    expect(wrong.body.reason).toBe("unsupported_control_plane_version");
    expect(wrong.body.requested_version).toBe("1");
    expect(wrong.body.workflow_id).toBe("x");
    expectEnvelope(wrong.body, "describe");
    expect(wrong.body.control_plane?.workflow_id).toBe("x");
    const system = await cp(h.url, "/system/repair", { version: null });
    expect(system.status).toBe(400);
    expect(system.body.control_plane).toBeUndefined();
  });

  test("namespace: header, then query, then default; unknown is 404 namespace_not_found", async () => {
    const viaHeader = await cp(h.url, "/workflows", { namespace: "Nope" });
    expect(viaHeader.status).toBe(404);
    expect(viaHeader.body.reason).toBe("namespace_not_found");
    expect(viaHeader.body.namespace).toBe("nope");
    expectEnvelope(viaHeader.body, "list");
    const viaQuery = await cp(h.url, "/workflows?namespace=elsewhere");
    expect(viaQuery.status).toBe(404);
    expect(viaQuery.body.namespace).toBe("elsewhere");
    const headerWins = await cp(h.url, "/workflows?namespace=elsewhere", { namespace: "DEFAULT" });
    expect(headerWins.status).toBe(200);
    const namespaces = await cp(h.url, "/namespaces", { namespace: "nope" });
    expect(namespaces.status).toBe(200);
    expect(list(namespaces.body.namespaces).map((n) => n.name)).toEqual(["default"]);
    expect((await cp(h.url, "/namespaces/default")).body.retention_days).toBe(30);
    expect((await cp(h.url, "/namespaces/ghost")).status).toBe(404);
  });

  test("body guards: 415, malformed JSON 400, 413, empty body accepted", async () => {
    const runId = await startWorkflow(h, "guards-1");
    const media = await cp(h.url, "/workflows/guards-1/cancel", {
      method: "POST",
      rawBody: "reason=x",
      headers: { "content-type": "text/plain" },
    });
    expect(media.status).toBe(415);
    expect(media.body.reason).toBe("unsupported_media_type");
    expect(media.body.accepted_content_types).toEqual(["application/json", "application/*+json"]);
    expectEnvelope(media.body, "cancel");
    const bad = await cp(h.url, "/workflows/guards-1/cancel", {
      method: "POST",
      rawBody: "{nope",
      headers: { "content-type": "application/json" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.reason).toBe("malformed_json");
    expect(bad.body.json_error).toBe("Syntax error");
    const big = await cp(h.url, "/workflows/guards-1/signal/go", { body: { input: ["x".repeat(2_100_000)] } });
    expect(big.status).toBe(413);
    expect(big.body.reason).toBe("payload_too_large");
    expect(big.body.limit).toBe(2_097_152);
    const plusJson = await cp(h.url, "/workflows/guards-1/signal/go", {
      method: "POST",
      rawBody: "{}",
      headers: { "content-type": "application/vnd.api+json" },
    });
    expect(plusJson.status).toBe(202);
    const empty = await cp(h.url, "/workflows/guards-1/repair", { method: "POST" });
    expect(empty.status).toBe(200);
    expect(empty.body.run_id).toBe(runId);
  });

  test("422 validation_failed carries errors and validation_errors, mirrored in control_plane", async () => {
    const r = await cp(h.url, "/workflows?status=cancelled");
    expect(r.status).toBe(422);
    expect(r.body.reason).toBe("validation_failed");
    expect(r.body.errors).toEqual({ status: ["The selected status is invalid."] });
    expect(r.body.validation_errors).toEqual(r.body.errors);
    expectEnvelope(r.body, "list");
    expect(r.body.control_plane?.reason).toBe("validation_failed");
    expect(r.body.control_plane!.validation_errors).toEqual(r.body.errors);
    expect((await cp(h.url, "/workflows?page_size=201")).status).toBe(422);
    expect((await cp(h.url, "/workflows?page_size=abc")).status).toBe(422);
    const start = await cp(h.url, "/workflows", { body: { workflow_type: "x", retry_policy: {} } });
    expect(start.status).toBe(422);
    expect(Object.keys(start.body.errors ?? {})).toContain("retry_policy");
    const missingType = await cp(h.url, "/workflows", { body: { workflow_id: "no-type" } });
    expect(missingType.status).toBe(422);
    expect(Object.keys(missingType.body.validation_errors ?? {})).toContain("workflow_type");
  });

  test("start outcomes: 201 started_new, 200 returned_existing_active, 409 rejected_duplicate", async () => {
    const first = await cp(h.url, "/workflows", { body: { workflow_id: "dup-1", workflow_type: "orders.process" } });
    expect(first.status).toBe(201);
    expect(first.body.outcome).toBe("started_new");
    expectEnvelope(first.body, "start");
    expect(first.body.control_plane?.outcome).toBe("started_new");
    const again = await cp(h.url, "/workflows", {
      body: { workflow_id: "dup-1", workflow_type: "orders.process", duplicate_policy: "use-existing" },
    });
    expect(again.status).toBe(200);
    expect(again.body.outcome).toBe("returned_existing_active");
    const dup = await cp(h.url, "/workflows", { body: { workflow_id: "dup-1", workflow_type: "orders.process" } });
    expect(dup.status).toBe(409);
    expect(dup.body.outcome).toBe("rejected_duplicate");
  });

  test("list: buckets, type filter, substring query, page_size cap, opaque keyset token, fixed order", async () => {
    for (let i = 0; i < 5; i += 1) {
      h.clock.advance(1000);
      await startWorkflow(h, `list-${i}`, {
        workflow_type: i % 2 === 0 ? "list.even" : "list.odd",
        business_key: `bk-${i}`,
      });
    }
    await cp(h.url, "/workflows/list-4/terminate", { body: { reason: "done" } });
    const even = await cp(h.url, "/workflows?workflow_type=list.even");
    expect(list(even.body.workflows).map((w) => w.workflow_id)).toEqual(["list-4", "list-2", "list-0"]);
    const failed = await cp(h.url, "/workflows?status=failed&workflow_type=list.even");
    expect(list(failed.body.workflows).map((w) => w.workflow_id)).toEqual(["list-4"]);
    expect(failed.body.workflows?.[0]?.status).toBe("terminated");
    expect(failed.body.workflows?.[0]?.is_terminal).toBe(true);
    const running = await cp(h.url, "/workflows?status=running&workflow_type=list.even");
    expect(list(running.body.workflows).map((w) => w.workflow_id)).toEqual(["list-2", "list-0"]);
    const q = await cp(h.url, "/workflows?query=bk-3");
    expect(list(q.body.workflows).map((w) => w.workflow_id)).toEqual(["list-3"]);
    // Two characters are below the trigram index: the ordered scan answers, with the same result shape.
    const short = await cp(h.url, "/workflows?query=t-");
    expect(list(short.body.workflows).map((w) => w.workflow_id)).toEqual([
      "list-4",
      "list-3",
      "list-2",
      "list-1",
      "list-0",
    ]);
    expect(list((await cp(h.url, "/workflows?query=%25")).body.workflows)).toHaveLength(0);
    const pageIds: string[] = [];
    let token: string | null = null;
    for (let guard = 0; guard < 10; guard += 1) {
      const page = await cp(
        h.url,
        `/workflows?query=list-&page_size=2${token ? `&next_page_token=${encodeURIComponent(token)}` : ""}`,
      );
      expect(page.body.workflow_count).toBe(list(page.body.workflows).length);
      expect(page.body.control_plane!.next_page_token).toBe(page.body.next_page_token as unknown as string | null);
      pageIds.push(...list(page.body.workflows).map((w) => String(w.workflow_id)));
      token = (page.body.next_page_token as unknown as string | null) ?? null;
      if (!token) break;
    }
    expect(pageIds).toEqual(["list-4", "list-3", "list-2", "list-1", "list-0"]);
    const junk = await cp(h.url, "/workflows?query=list-&page_size=2&next_page_token=%25%25junk");
    expect(list(junk.body.workflows).map((w) => w.workflow_id)).toEqual(["list-4", "list-3"]);
  });

  test("describe, describe_run, runs; 404 instance_not_found and run_not_found", async () => {
    const runId = await startWorkflow(h, "desc-1", { business_key: "order-42", memo: { note: "hi" } });
    const d = await cp(h.url, "/workflows/desc-1");
    expect(d.status).toBe(200);
    expectEnvelope(d.body, "describe");
    expect(d.body.run_id).toBe(runId);
    expect(d.body.input).toEqual(["a"]);
    expect(d.body.input_envelope?.codec).toBe("avro");
    expect(d.body.status_bucket).toBe("running");
    expect(d.body.is_current_run).toBe(true);
    expect(d.body.memo).toEqual({ note: "hi" });
    expect(d.body.search_attributes).toEqual({});
    expect(d.body.actions).toEqual({
      can_signal: true,
      can_query: false,
      can_update: false,
      can_cancel: true,
      can_terminate: true,
      can_repair: true,
      can_archive: false,
    });
    expect(d.body.control_plane?.business_key).toBe("order-42");
    const dr = await cp(h.url, `/workflows/desc-1/runs/${runId}`);
    expect(dr.status).toBe(200);
    expectEnvelope(dr.body, "describe_run");
    expect(dr.body.control_plane?.run_id).toBe(runId);
    const runs = await cp(h.url, "/workflows/desc-1/runs");
    expectEnvelope(runs.body, "list_runs");
    expect(runs.body.run_count).toBe(1);
    expect(runs.body.runs?.[0]?.run_number).toBe(1);
    const missing = await cp(h.url, "/workflows/ghost");
    expect(missing.status).toBe(404);
    expect(missing.body.reason).toBe("instance_not_found");
    expect(missing.body.message).toBe("Workflow not found.");
    expectEnvelope(missing.body, "describe");
    const missingRun = await cp(h.url, "/workflows/desc-1/runs/01JZZZZZZZZZZZZZZZZZZZZZZZ");
    expect(missingRun.status).toBe(404);
    expect(missingRun.body.reason).toBe("run_not_found");
    expect(missingRun.body.run_id).toBe("01JZZZZZZZZZZZZZZZZZZZZZZZ");
  });

  test("workflow ids with '/', '%' and unicode route through URL encoding", async () => {
    const id = "orders/ünï%2Fcode 42";
    h.engine.startWorkflow({
      namespace: "default",
      workflow_id: id,
      workflow_type: "orders.process",
      task_queue: "default",
    });
    const d = await cp(h.url, `/workflows/${wf(id)}`);
    expect(d.status).toBe(200);
    expect(d.body.workflow_id).toBe(id);
    expect(d.body.control_plane?.workflow_id).toBe(id);
    const runId = String(d.body.run_id);
    const hist = await cp(h.url, `/workflows/${wf(id)}/runs/${runId}/history`);
    expect(hist.status).toBe(200);
    expect(hist.body.workflow_id).toBe(id);
    const sig = await cp(h.url, `/workflows/${wf(id)}/signal/${wf("approve/now")}`, { body: {} });
    expect(sig.status).toBe(202);
    expect(sig.body.signal_name).toBe("approve/now");
    expect(sig.body.control_plane?.operation_name).toBe("approve/now");
    expect(sig.body.control_plane?.operation_name_field).toBe("signal_name");
  });

  test("history: keyset pages, page_size cap, wait_new_event woken by a commit, held until timeout otherwise", async () => {
    const runId = await startWorkflow(h, "hist-1");
    const p1 = await cp(h.url, `/workflows/hist-1/runs/${runId}/history?page_size=1`);
    expect(p1.status).toBe(200);
    expectEnvelope(p1.body, "history");
    expect(list(p1.body.events).map((e) => e.event_type)).toEqual(["StartAccepted"]);
    expect(p1.body.events?.[0]?.sequence).toBe(1);
    expect(String(p1.body.events?.[0]?.timestamp)).toMatch(/\.\d{6}Z$/);
    expect(p1.body.next_page_token).toBe(Buffer.from("1").toString("base64"));
    const p2 = await cp(
      h.url,
      `/workflows/hist-1/runs/${runId}/history?page_size=1000&next_page_token=${p1.body.next_page_token}`,
    );
    expect(list(p2.body.events).map((e) => e.event_type)).toEqual(["WorkflowStarted"]);
    expect(p2.body.next_page_token).toBeNull();
    expect((await cp(h.url, `/workflows/hist-1/runs/${runId}/history?page_size=1001`)).status).toBe(422);
    expect((await cp(h.url, `/workflows/hist-1/runs/${runId}/history?wait_new_event=true`)).status).toBe(422);

    const cursor = Buffer.from("2").toString("base64");
    const held = cp(h.url, `/workflows/hist-1/runs/${runId}/history?wait_new_event=1&next_page_token=${cursor}`);
    await new Promise((r) => setTimeout(r, 50));
    await cp(h.url, "/workflows/hist-1/signal/poke", { body: {} });
    const woken = await held;
    // The signal's event in the answer proves the wait woke on it: an idle wait answers empty.
    expect(list(woken.body.events).map((e) => e.event_type)).toEqual(["SignalReceived"]);

    const idle = Buffer.from("3").toString("base64");
    const t0 = Date.now();
    const timedOut = await cp(
      h.url,
      `/workflows/hist-1/runs/${runId}/history?wait_new_event=1&next_page_token=${idle}`,
    );
    expect(list(timedOut.body.events)).toHaveLength(0);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
  });

  test("commands: cancel 200 then 409 rejected_not_active; terminate; signal 202; historical run 409; archive", async () => {
    const runId = await startWorkflow(h, "cmd-1");
    const cancel = await cp(h.url, "/workflows/cmd-1/cancel", {
      body: { reason: "operator requested cancel", request_id: "req-1" },
    });
    expect(cancel.status).toBe(200);
    expectEnvelope(cancel.body, "cancel");
    expect(cancel.body.outcome).toBe("cancelled");
    expect(cancel.body.command_status).toBe("accepted");
    expect(cancel.body.command_source).toBe("control_plane");
    expect(cancel.body.reason).toBe("operator requested cancel");
    expect(cancel.body.target_scope).toBe("instance");
    expect(cancel.body.validation_errors).toEqual([]);
    expect(cancel.body.control_plane!.command_id).toBe(cancel.body.command_id);
    const replay = await cp(h.url, "/workflows/cmd-1/cancel", { body: { reason: "again", request_id: "req-1" } });
    expect(replay.body.command_id).toBe(cancel.body.command_id);
    const again = await cp(h.url, "/workflows/cmd-1/cancel", { body: {} });
    expect(again.status).toBe(409);
    expect(again.body.outcome).toBe("rejected_not_active");
    expect(again.body.rejection_reason).toBe("run_not_active");
    expect(again.body.command_status).toBe("rejected");
    const repairClosed = await cp(h.url, "/workflows/cmd-1/repair", { body: {} });
    expect(repairClosed.status).toBe(409);
    expect(repairClosed.body.outcome).toBe("rejected_not_active");
    expectEnvelope(repairClosed.body, "repair");

    const archived = await cp(h.url, "/workflows/cmd-1/archive", { body: { reason: "cleanup" } });
    expect(archived.status).toBe(200);
    expect(archived.body.outcome).toBe("archived");
    const archivedAgain = await cp(h.url, "/workflows/cmd-1/archive", { body: {} });
    expect(archivedAgain.body.outcome).toBe("archive_not_needed");
    const hist = await cp(h.url, `/workflows/cmd-1/runs/${runId}/history`);
    const types = list(hist.body.events).map((e) => String(e.event_type));
    expect(types).toEqual(
      expect.arrayContaining(["CancelRequested", "WorkflowCancelled", "ArchiveRequested", "WorkflowArchived"]),
    );
    expect(types.filter((t) => t === "WorkflowArchived")).toHaveLength(1);
    expect((await cp(h.url, "/workflows/cmd-1")).body.actions?.can_archive).toBe(false);

    await startWorkflow(h, "cmd-2");
    const archiveOpen = await cp(h.url, "/workflows/cmd-2/archive", { body: {} });
    expect(archiveOpen.status).toBe(409);
    expect(archiveOpen.body.outcome).toBe("rejected_run_not_closed");
    expect(archiveOpen.body.rejection_reason).toBe("run_not_closed");
    const signal = await cp(h.url, "/workflows/cmd-2/signal/approved", { body: { input: ["yes"] } });
    expect(signal.status).toBe(202);
    expect(signal.body.outcome).toBe("signal_received");
    expectEnvelope(signal.body, "signal");
    const historical = await cp(h.url, "/workflows/cmd-2/runs/01JZZZZZZZZZZZZZZZZZZZZZZZ/terminate", { body: {} });
    expect(historical.status).toBe(409);
    expect(historical.body.reason).toBe("historical_run_command_rejected");
    expect(historical.body.target_scope).toBe("run");
    expectEnvelope(historical.body, "terminate");
    const cmd2 = String((await cp(h.url, "/workflows/cmd-2")).body.run_id);
    const runTerminate = await cp(h.url, `/workflows/cmd-2/runs/${cmd2}/terminate`, { body: { reason: "stop" } });
    expect(runTerminate.status).toBe(200);
    expect(runTerminate.body.outcome).toBe("terminated");
    expect(runTerminate.body.target_scope).toBe("run");
    expect(runTerminate.body.requested_run_id).toBe(cmd2);
    const unknown = await cp(h.url, "/workflows/never/cancel", { body: {} });
    expect(unknown.status).toBe(404);
    expect(unknown.body.reason).toBe("instance_not_found");
    expectEnvelope(unknown.body, "cancel");
  });

  test("large JSON is gzip- or raw-deflate-compressed on request", async () => {
    for (let i = 0; i < 8; i += 1) await startWorkflow(h, `gz-${i}`);
    const gz = await rawGet(h.url, "/workflows", "gzip, deflate");
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gz.headers.vary).toBe("Accept-Encoding");
    expect(JSON.parse(gunzipSync(gz.body).toString()).workflow_count).toBeGreaterThan(0);
    const df = await rawGet(h.url, "/workflows", "deflate");
    expect(df.headers["content-encoding"]).toBe("deflate");
    expect(JSON.parse(inflateRawSync(df.body).toString()).workflow_count).toBeGreaterThan(0);
    const plain = await rawGet(h.url, "/workflows", "identity");
    expect(plain.headers["content-encoding"]).toBeUndefined();
    const small = await rawGet(h.url, "/health", "gzip");
    expect(small.headers["content-encoding"]).toBeUndefined();
  });

  test("workers and task queues", async () => {
    const worker = new ScriptedWorker(h.url, "fleet-worker", "fleet-q");
    await worker.register();
    await cp(h.url, "/workflows", {
      body: { workflow_id: "fleet-1", workflow_type: "orders.process", task_queue: "fleet-q" },
    });
    const workers = await cp(h.url, "/workers?task_queue=fleet-q");
    expect(list(workers.body.workers).map((w) => w.worker_id)).toEqual(["fleet-worker"]);
    expect(workers.body.workers?.[0]?.status).toBe("active");
    const one = await cp(h.url, "/workers/fleet-worker");
    expect(one.body.runtime).toBe("typescript");
    expect(typeof one.body.updated_at).toBe("string");
    const missing = await cp(h.url, "/workers/nobody");
    expect(missing.status).toBe(404);
    expect(missing.body.reason).toBe("worker_not_found");
    const queues = await cp(h.url, "/task-queues");
    const fleetQ = list(queues.body.task_queues).find((q) => String(q.name) === "fleet-q");
    expect(fleetQ?.stats?.workflow_tasks?.ready_count).toBe(1);
    expect(fleetQ?.admission?.workflow_tasks?.status).toBe("accepting");
    const task = await worker.mustPollWorkflow();
    const detail = await cp(h.url, "/task-queues/fleet-q");
    expect(detail.body.stats?.workflow_tasks?.leased_count).toBe(1);
    expect(detail.body.current_leases?.[0]?.task_id).toBe(task.task_id);
    expect(detail.body.current_leases?.[0]?.workflow_id).toBe("fleet-1");
    expect(list(detail.body.pollers).map((p) => p.worker_id)).toEqual(["fleet-worker"]);
    h.clock.advance(61_000);
    expect((await cp(h.url, "/workers/fleet-worker")).body.status).toBe("stale");
    expect((await cp(h.url, "/task-queues/unknown-q")).body.stats?.approximate_backlog_count).toBe(0);
    await worker.completeWorkflow(task, [{ type: "complete_workflow", result: blob("done") }]);
  });
});

describe("control plane with token auth", () => {
  const auth: AuthConfig = {
    driver: "token",
    tokens: { worker: "w-tok", operator: "o-tok", admin: "a-tok", legacy: null },
    backwardCompatible: true,
  };
  let h: CpHarness;
  beforeAll(async () => {
    h = await startCpHarness({ auth });
  });
  afterAll(async () => {
    await h.close();
  });

  test("401 without or with a wrong token, on workflow routes with the envelope", async () => {
    const none = await cp(h.url, "/workflows");
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ reason: "unauthorized", message: "Invalid or missing authentication token." });
    expectEnvelope(none.body, "list");
    expect((await cp(h.url, "/workflows", { token: "nope" })).status).toBe(401);
    expect((await cp(h.url, "/health", { version: null })).status).toBe(200);
    expect((await cp(h.url, "/ready", { version: null })).status).toBe(200);
  });

  test("role matrix: operator reads workflows but not system; worker only cluster/info; admin everything", async () => {
    expect((await cp(h.url, "/workflows", { token: "o-tok" })).status).toBe(200);
    expect((await cp(h.url, "/workflows", { token: "a-tok" })).status).toBe(200);
    const sys = await cp(h.url, "/system/operator-metrics", { token: "o-tok" });
    expect(sys.status).toBe(403);
    expect(sys.body).toMatchObject({
      reason: "forbidden",
      role: "operator",
      allowed_roles: ["admin"],
      message: "Authenticated role is not allowed to access this endpoint.",
    });
    expect((await cp(h.url, "/system/operator-metrics", { token: "a-tok" })).status).toBe(200);
    const workerOnWorkflows = await cp(h.url, "/workflows", { token: "w-tok" });
    expect(workerOnWorkflows.status).toBe(403);
    expect(workerOnWorkflows.body.allowed_roles).toEqual(["operator", "admin"]);
    expectEnvelope(workerOnWorkflows.body, "list");
    expect((await cp(h.url, "/cluster/info", { token: "w-tok", version: null })).status).toBe(200);
    expect((await cp(h.url, "/cluster/info", { version: null })).status).toBe(401);
    expect((await cp(h.url, "/namespaces", { token: "w-tok" })).status).toBe(403);
  });

  test("a wrong role is refused before the version and namespace checks", async () => {
    const r = await cp(h.url, "/workflows", { token: "w-tok", version: null, namespace: "ghost" });
    expect(r.status).toBe(403);
    const v = await cp(h.url, "/workflows", { token: "o-tok", version: null, namespace: "ghost" });
    expect(v.status).toBe(400);
  });
});
