import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "@/server/clock";
import { startEmbeddedServer, tokenAuth } from "@/server/http/test-support";
import type { EmbeddedServer } from "@/server/http/test-support";
import type { ClosedRunFailure, LastEventAnswer } from "@/lib/views/closed-failures";
import { closedFailureGroups, lastEventInput } from "@/lib/views/closed-failures";
import { CSV_INCOMPLETE, csvCell, exportStream } from "@/lib/server/export/list-export";
import type { ExportSource } from "@/lib/server/export/list-export";

/**
 * The list downloads (issue 45 point 3) as Next runs the route, against the embedded server: every
 * run of a filtered runs list across several server pages, in CSV and JSON; a Failures group; the
 * Schedules list; hostile text neutralised; a failure mid-stream ending the file with a marker; the
 * refusals before any byte.
 */

const TOKEN = "adm-token";
const RUNS = 450;
const HOSTILE = '=HYPERLINK("http://evil.test","x")';
let server: EmbeddedServer;
let GET: (request: NextRequest, context: { params: Promise<{ list: string }> }) => Promise<Response>;

beforeAll(async () => {
  server = await startEmbeddedServer({ clock: systemClock, auth: tokenAuth({ DW_ADMIN_TOKEN: TOKEN }) });
  process.env.DW_SERVER_URL = server.url;
  process.env.DW_TOKEN = TOKEN;
  process.env.BREAKWATER_LOG_LEVEL = "silent";
  const start = (id: string, type: string) =>
    server.engine.startWorkflow({
      namespace: "default",
      workflow_id: id,
      workflow_type: type,
      task_queue: "q",
      input: { codec: "avro", blob: "" },
    });
  for (let i = 0; i < RUNS; i++) start(`export-run-${String(i).padStart(4, "0")}`, "ExportBulk");
  start(HOSTILE, "ExportHostile");
  start('line\nbreak,"quoted"', "ExportHostile");
  for (const id of ["export-dead-1", "export-dead-2"]) {
    start(id, "ExportDoomed");
    server.engine.terminateWorkflow({ namespace: "default", workflow_id: id, reason: "export test" });
  }
  const headers = {
    authorization: `Bearer ${TOKEN}`,
    "content-type": "application/json",
    "x-namespace": "default",
    "x-durable-workflow-control-plane-version": "2",
  };
  for (const [id, paused] of [
    ["export-sched-on", false],
    ["@export-sched-paused", true],
  ] as const) {
    const made = await fetch(`${server.url}/api/schedules`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        schedule_id: id,
        spec: { cron_expressions: ["0 3 * * *"], timezone: "UTC" },
        action: { workflow_type: "ExportScheduled", task_queue: "q" },
        paused,
        note: paused ? "-1+1 hostile note" : null,
      }),
    });
    expect(made.status).toBe(201);
  }
  GET = (await import("@/app/api/export/[list]/route")).GET;
}, 120_000);

afterAll(() => server.close());

function download(list: string, query: string) {
  return GET(new NextRequest(`http://console.test/api/export/${list}?${query}`), {
    params: Promise.resolve({ list }),
  });
}

/** CSV rows (RFC 4180: quoted cells may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(cell);
      cell = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      i++;
    } else cell += c;
  }
  return rows;
}

describe("csv cells", () => {
  it("neutralise formulas and quote what a spreadsheet would split", () => {
    expect(csvCell("=1+1")).toBe("'=1+1");
    expect(csvCell("+1")).toBe("'+1");
    expect(csvCell("-1")).toBe("'-1");
    expect(csvCell("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvCell("\t=1")).toBe("'\t=1");
    expect(csvCell('a,"b"')).toBe('"a,""b"""');
    expect(csvCell("a\nb")).toBe('"a\nb"');
    expect(csvCell("bell\u0007")).toBe("bell");
    expect(csvCell(-3)).toBe("-3");
    expect(csvCell(null)).toBe("");
    expect(csvCell("plain")).toBe("plain");
  });
});

describe("GET /api/export/runs", () => {
  it("streams every run of the filtered list across server pages, as CSV", async () => {
    const response = await download("runs", "namespace=default&format=csv&type=ExportBulk");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="runs-default-.+\.csv"$/);
    const rows = parseCsv(await response.text());
    expect(rows[0]).toEqual([
      "workflow_id",
      "run_id",
      "workflow_type",
      "business_key",
      "status",
      "task_queue",
      "started_at",
      "closed_at",
    ]);
    const ids = rows.slice(1).map((row) => row[0]);
    expect(ids).toHaveLength(RUNS);
    expect(new Set(ids).size).toBe(RUNS);
    expect(rows.slice(1).every((row) => row[2] === "ExportBulk")).toBe(true);
  });

  it("writes hostile ids so a spreadsheet shows them as text", async () => {
    const text = await (await download("runs", "namespace=default&format=csv&type=ExportHostile")).text();
    const ids = parseCsv(text)
      .slice(1)
      .map((row) => row[0]);
    expect(ids).toContain(`'${HOSTILE}`);
    expect(ids).toContain('line\nbreak,"quoted"');
  });

  it("answers JSON as one document that says it is complete", async () => {
    const response = await download("runs", "namespace=default&format=json&status=failed");
    const body = (await response.json()) as {
      export: string;
      filters: Record<string, string>;
      rows: { workflow_id: string; status: string }[];
      row_count: number;
      complete: boolean;
    };
    expect(body).toMatchObject({ export: "runs", filters: { status: "failed" }, row_count: 2, complete: true });
    expect(body.rows.map((row) => row.workflow_id).sort()).toEqual(["export-dead-1", "export-dead-2"]);
  });

  it("refuses before any byte: no namespace, no format, an unknown list", async () => {
    expect((await download("runs", "format=csv")).status).toBe(400);
    expect((await download("runs", "namespace=default&format=xlsx")).status).toBe(400);
    expect((await download("deployments", "namespace=default&format=csv")).status).toBe(404);
    expect((await download("failures", "namespace=default&format=csv")).status).toBe(400);
  });
});

describe("GET /api/export/failures and /schedules", () => {
  it("writes the runs of one Failures group", async () => {
    // The group's key as the Failures screen computes it, from the run's own debug view.
    const now = Date.now();
    const debug = (await (
      await fetch(`${server.url}/api/workflows/export-dead-1/debug?include_last_event_payload=true`, {
        headers: {
          authorization: `Bearer ${TOKEN}`,
          "x-namespace": "default",
          "x-durable-workflow-control-plane-version": "2",
        },
      })
    ).json()) as { recent_failures?: ClosedRunFailure[]; execution: { last_event?: LastEventAnswer | null } };
    const key = closedFailureGroups(
      [
        {
          workflowId: "export-dead-1",
          runId: "r",
          workflowType: "ExportDoomed",
          status: "terminated",
          closedAt: new Date(now).toISOString(),
          failures: debug.recent_failures ?? [],
          lastEvent: lastEventInput(debug.execution.last_event),
        },
      ],
      { from: now - 1_000, to: now + 1_000 },
    ).groups[0]!.key;
    const response = await download(
      "failures",
      `namespace=default&format=csv&window=24h&group=${encodeURIComponent(key)}`,
    );
    expect(response.status).toBe(200);
    const rows = parseCsv(await response.text()).slice(1);
    expect(rows.map((row) => row[0]).sort()).toEqual(["export-dead-1", "export-dead-2"]);
    expect(rows.every((row) => row[3] === "terminated")).toBe(true);
  });

  it("writes the schedules with the screen's filters, hostile ids and notes neutralised", async () => {
    const all = parseCsv(await (await download("schedules", "namespace=default&format=csv")).text());
    expect(all[0]?.[0]).toBe("schedule_id");
    expect(all.slice(1).map((row) => row[0])).toEqual(
      expect.arrayContaining(["export-sched-on", "'@export-sched-paused"]),
    );
    const paused = parseCsv(await (await download("schedules", "namespace=default&format=csv&status=paused")).text());
    expect(paused.slice(1)).toHaveLength(1);
    expect(paused[1]?.[2]).toBe("paused");
    expect(paused[1]?.[3]).toBe("'-1+1 hostile note");
  });
});

describe("a failure after the first byte", () => {
  const source: ExportSource<{ id: string }> = {
    name: "runs",
    columns: [{ key: "id", value: (row) => row.id }],
    async *pages() {
      yield [{ id: "a" }, { id: "b" }];
      throw new Error("upstream answered 503");
    },
  };
  const meta = { namespace: "default", filters: {}, startedAt: "2026-12-08T00:00:00.000Z" };
  const read = (format: "csv" | "json") =>
    new Response(exportStream(source, format, meta, new AbortController().signal)).text();

  it("ends a CSV file with the marker, the rows written and the reason", async () => {
    const rows = parseCsv(await read("csv"));
    expect(rows).toEqual([["id"], ["a"], ["b"], [CSV_INCOMPLETE, "2", "upstream failed: upstream answered 503"]]);
  });

  it("ends a JSON document with complete: false and the error, still valid JSON", async () => {
    const body = JSON.parse(await read("json")) as Record<string, unknown>;
    expect(body).toMatchObject({
      rows: [{ id: "a" }, { id: "b" }],
      row_count: 2,
      complete: false,
      error: { message: "upstream answered 503", rows_written: 2 },
    });
  });
});
