import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import avro from "avsc";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { FakeClock } from "../clock";
import { startDemoFleet } from "../demo/fleet";
import type { DemoFleet } from "../demo/fleet";
import { quietFleetOptions } from "../test-support/test-fleet";
import { VALUE_SCHEMA, VALUE_SCHEMA_FINGERPRINT_HEX } from "../codec/codec";
import { currentRun, eventually, historyOf, startTestServer, TEST_OPERATOR_TOKEN } from "../test-support/test-server";
import type { TestServer } from "../test-support/test-server";
import { exportRun } from "./export";
import { VALUE_SCHEMA_JSON } from "./payload-manifest";

/**
 * Every bundle the embedded server exports for the demo fleet goes through the official SDK's
 * offline verifier, `durable_workflow.history_bundle_verify` (sdk-python, pinned by
 * conformance/python-sdk/requirements.txt), in one Python process over a directory of files.
 * The venv comes from scripts/python-sdk.sh; when it cannot be made the test fails, it never skips.
 */

const SIGNING_KEY = "bundle-verify-signing-key";
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Creates or reuses .venv-sdk and answers its python (the script's last stdout line). */
function sdkPython(): string {
  const out = execFileSync("bash", [join(ROOT, "scripts/python-sdk.sh")], {
    cwd: ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    timeout: 300_000,
  });
  const python = out.trim().split("\n").pop();
  if (!python)
    throw new Error(
      "scripts/python-sdk.sh printed no python path: the SDK venv is missing, so the bundle verifier cannot run.",
    );
  return python;
}

/**
 * Verifies every *.json in a directory with the SDK's own API and prints one JSON report. It also
 * recomputes the Value schema's CRC-64-AVRO with fastavro (the SDK's Avro library) from the
 * parsing canonical form, so the constant both sides use is checked against the algorithm.
 */
const VERIFY_SCRIPT = `
import json, pathlib, sys
from durable_workflow import _avro, history_bundle_verify as v
from fastavro.schema import fingerprint, to_parsing_canonical_form
reports = {}
for path in sorted(pathlib.Path(sys.argv[1]).glob("*.json")):
    key = sys.argv[2] if path.name.startswith("signed-") else None
    r = v.verify_bundle_json(path.read_text(encoding="utf-8"), key)
    reports[path.name] = {"status": r["status"], "summary": r["summary"], "checksum_matches": r["integrity"]["checksum_matches"],
                          "signature_verified": r["integrity"]["signature_verified"],
                          "findings": [{"rule": f["rule"], "severity": f["severity"], "path": f["path"]} for f in r["findings"]]}
pcf = to_parsing_canonical_form(json.loads(_avro.VALUE_SCHEMA_JSON))
print(json.dumps({"reports": reports, "value_schema_json": _avro.VALUE_SCHEMA_JSON, "fingerprint_hex": _avro.VALUE_SCHEMA_FINGERPRINT_HEX,
                  "fastavro_crc64": fingerprint(pcf, "CRC-64-AVRO"), "canonical_form": pcf}))
`;

interface Finding {
  rule: string;
  severity: string;
  path: string | null;
}
interface Report {
  status: string;
  summary: { errors: number; warnings: number; info: number };
  checksum_matches: boolean | null;
  signature_verified: boolean | null;
  findings: Finding[];
}
interface VerifierOutput {
  reports: Record<string, Report>;
  value_schema_json: string;
  fingerprint_hex: string;
  fastavro_crc64: string;
  canonical_form: string;
}

/** CRC-64-AVRO (the Avro spec's Rabin fingerprint), as little-endian bytes in hex: the single-object frame's order. */
function crc64Avro(text: string): string {
  const EMPTY = 0xc15d213aa4d7a795n;
  const MASK = (1n << 64n) - 1n;
  const table: bigint[] = [];
  for (let i = 0; i < 256; i++) {
    let fp = BigInt(i);
    for (let j = 0; j < 8; j++) fp = (fp >> 1n) ^ (EMPTY & (-(fp & 1n) & MASK));
    table.push(fp);
  }
  let fp = EMPTY;
  for (const byte of Buffer.from(text, "utf8"))
    fp = (fp >> 8n) ^ (table[Number((fp ^ BigInt(byte)) & 0xffn)] as bigint);
  const out = Buffer.alloc(8);
  out.writeBigUInt64LE(fp);
  return out.toString("hex");
}

describe("the SDK's offline bundle verifier over every demo-fleet export", () => {
  let server: TestServer;
  let clock: FakeClock;
  let fleet: DemoFleet;
  let dir: string;
  const exported: { workflowId: string; runId: string; file: string }[] = [];
  let verified: VerifierOutput;

  const advance = (seconds: number): void => {
    clock.advance(seconds * 1000);
    server.engine.sweep();
  };
  const settled = (workflowId: string, status: string) => () => {
    const r = currentRun(server.db, workflowId);
    return r?.status === status ? r : null;
  };

  beforeAll(async () => {
    // The venv first: when it cannot be had, nothing else is worth running.
    const python = sdkPython();
    clock = new FakeClock();
    server = await startTestServer(clock);
    fleet = await startDemoFleet(quietFleetOptions(server));
    const id = (name: string): string => fleet.seeded[name]!.workflowId;
    // The same walk as fleet.test.ts: every scenario reaches the state the console shows.
    await eventually(settled(id("order_happy"), "completed"), "happy order");
    await eventually(settled(id("order_declined"), "failed"), "declined order");
    await eventually(
      () =>
        historyOf(server.db, currentRun(server.db, id("order_exhausted"))?.id ?? "").some(
          (e) => e.event_type === "ActivityRetryScheduled",
        ),
      "first charge retry",
    );
    advance(2);
    await eventually(settled(id("order_transient"), "completed"), "transient order");
    advance(5);
    await eventually(settled(id("order_exhausted"), "failed"), "exhausted order");
    await eventually(settled(id("order_slow_invoice"), "failed"), "invoice timeout");
    advance(20);
    await eventually(settled(id("execution_timeout"), "failed"), "execution timeout");
    advance(30);
    await eventually(settled(id("approval_timeout"), "completed"), "approval timeout");
    await eventually(settled(id("continue_as_new"), "completed"), "continue-as-new chain");
    await eventually(settled(id("parent_child"), "completed"), "parent/child");
    if (!fleet.crashingWorker) throw new Error("a freshly seeded fleet has its crashing worker");
    await fleet.crashingWorker.claimed;
    advance(301);
    await eventually(settled(id("worker_crash"), "completed"), "redelivered settlement");
    await fleet.stop();

    dir = mkdtempSync(join(tmpdir(), "bw-bundles-"));
    const runs = server.db
      .prepare("SELECT workflow_instance_id AS workflowId, id AS runId FROM workflow_runs ORDER BY created_at, id")
      .all() as { workflowId: string; runId: string }[];
    for (const [n, r] of runs.entries()) {
      const res = await fetch(
        `${server.baseUrl}/api/workflows/${encodeURIComponent(r.workflowId)}/runs/${r.runId}/history/export`,
        {
          headers: { Authorization: `Bearer ${TEST_OPERATOR_TOKEN}`, "X-Durable-Workflow-Control-Plane-Version": "2" },
        },
      );
      expect(res.status).toBe(200);
      const file = `bundle-${String(n).padStart(3, "0")}.json`;
      writeFileSync(join(dir, file), await res.text());
      exported.push({ ...r, file });
    }
    // A control the verifier must refuse: one bundle with a fingerprint that does not match its writer schema.
    const tampered = JSON.parse(readFileSync(join(dir, exported[0]?.file ?? ""), "utf8")) as {
      payload_manifest: { entries: Record<string, unknown>[] };
    };
    const framed = tampered.payload_manifest.entries.find((e) => e.writer_schema !== null);
    if (framed) framed.writer_schema_fingerprint = "crc64-avro:0000000000000000";
    writeFileSync(join(dir, "zz-tampered.json"), JSON.stringify(tampered));
    // A signed export (DW_V2_HISTORY_EXPORT_SIGNING_KEY) of the longest run, checked with the key.
    const longest = server.db
      .prepare(
        "SELECT workflow_instance_id AS workflowId, id AS runId FROM workflow_runs ORDER BY last_history_sequence DESC LIMIT 1",
      )
      .get() as { workflowId: string; runId: string };
    const signed = exportRun(server.db, { namespace: "default", ...longest }, clock.now(), {
      key: SIGNING_KEY,
      keyId: "demo-key",
    });
    writeFileSync(join(dir, "signed-longest.json"), JSON.stringify(signed));

    const out = execFileSync(python, ["-c", VERIFY_SCRIPT, dir, SIGNING_KEY], {
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
      timeout: 300_000,
    });
    verified = JSON.parse(out) as VerifierOutput;
  }, 600_000);

  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("every run of the fleet was exported and verified", () => {
    // Each seeded scenario, plus the continued and child runs some of them create.
    expect(exported.length).toBeGreaterThan(Object.keys(fleet.seeded).length);
    expect(Object.keys(verified.reports).filter((f) => f.startsWith("bundle-"))).toHaveLength(exported.length);
  });

  test("no bundle has an error finding, and every checksum matches", () => {
    const bundles = Object.entries(verified.reports).filter(([f]) => f.startsWith("bundle-"));
    const errors = bundles.flatMap(([file, r]) =>
      r.findings.filter((f) => f.severity === "error").map((f) => `${file}: ${f.rule} at ${f.path ?? "-"}`),
    );
    expect(errors).toEqual([]);
    expect(bundles.filter(([, r]) => r.checksum_matches !== true).map(([f]) => f)).toEqual([]);
    const warnings = bundles.flatMap(([, r]) => r.findings.filter((f) => f.severity !== "error").map((f) => f.rule));
    console.info(
      `[sdk-bundle-verify] ${bundles.length} bundles verified: ${errors.length} errors, ${warnings.length} warnings/info (${[...new Set(warnings)].join(", ") || "none"})`,
    );
  });

  test("a signed bundle verifies with the signing key: hmac-sha256 over the same canonical JSON", () => {
    const r = verified.reports["signed-longest.json"];
    expect(r?.status).toBe("ok");
    expect(r?.signature_verified).toBe(true);
    expect(r?.checksum_matches).toBe(true);
  });

  test("the verifier is not blind: the tampered fingerprint is an error", () => {
    const r = verified.reports["zz-tampered.json"];
    expect(r?.status).toBe("failed");
    expect(r?.findings.map((f) => f.rule)).toContain("payload_manifest.writer_schema_fingerprint_mismatch");
  });

  test("the embedded writer schema is the SDK's Value schema text, and its CRC-64-AVRO is the frames' fingerprint", () => {
    expect(VALUE_SCHEMA_JSON).toBe(verified.value_schema_json);
    const canonical = JSON.stringify(
      avro.Type.forSchema(VALUE_SCHEMA as unknown as avro.Schema, { wrapUnions: true }).schema(),
    );
    expect(canonical).toBe(verified.canonical_form);
    expect(crc64Avro(canonical)).toBe(VALUE_SCHEMA_FINGERPRINT_HEX);
    expect(verified.fastavro_crc64).toBe(VALUE_SCHEMA_FINGERPRINT_HEX);
    expect(verified.fingerprint_hex).toBe(VALUE_SCHEMA_FINGERPRINT_HEX);
    const bundle = JSON.parse(readFileSync(join(dir, exported[0]?.file ?? ""), "utf8")) as {
      payload_manifest: { entries: Record<string, unknown>[] };
    };
    expect(bundle.payload_manifest.entries.find((e) => e.writer_schema !== null)).toMatchObject({
      avro_framing: "single_object",
      avro_prefix_hex: "c301",
      writer_schema: verified.value_schema_json,
      writer_schema_fingerprint: `crc64-avro:${VALUE_SCHEMA_FINGERPRINT_HEX}`,
      diagnostic: null,
    });
  });
});
