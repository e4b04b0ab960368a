import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import type { Page } from "@playwright/test";
import { dwPost, startRun } from "./operator-fixtures";

/**
 * Lists as downloads (issue 45 point 3) in Chromium: the runs list's "Download CSV" with the list's
 * filters in the URL gives exactly the filtered runs, a hostile id written as text; "Download JSON"
 * is one complete document; the Schedules list downloads with its filters. The route's paging,
 * failure marker and refusals are proven in app/api/export/route.test.ts.
 */

const SHOTS = process.env.E2E_SHOTS_DIR ?? join(__dirname, "..", "test-results", "screenshots");
const unique = Date.now().toString(36);
const type = `E2eExport${unique}`;
// A workflow id may hold only letters, digits and `._:-` (WorkflowController's rule): a leading `-` is still a formula.
const hostile = `-1-${unique}`;
const doomed = `E2eExportDoomed${unique}`;

test.beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  for (let i = 0; i < 3; i++) await startRun(type, `e2e-export-${unique}-${i}`, []);
  await startRun(type, hostile, []);
  const made = await dwPost("/schedules", {
    schedule_id: `e2e-export-sched-${unique}`,
    spec: { intervals: [{ every: "PT1H" }] },
    action: { workflow_type: type, task_queue: `e2e-unworked-${unique}` },
    paused: true,
    note: "@export note",
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  // Two runs of their own type closed badly: one Failures group (terminated).
  for (const id of [`e2e-export-dead-${unique}-0`, `e2e-export-dead-${unique}-1`]) {
    await startRun(doomed, id, []);
    expect((await dwPost(`/workflows/${id}/terminate`, { reason: "e2e export" })).status).toBe(200);
  }
});

async function downloaded(page: Page, link: ReturnType<Page["getByRole"]>): Promise<string> {
  const downloading = page.waitForEvent("download");
  await link.click();
  const file = await downloading;
  const path = await file.path();
  return readFileSync(path, "utf8");
}

async function shoot(page: Page, name: string) {
  for (const [label, size] of [
    ["1440", { width: 1440, height: 900 }],
    ["390", { width: 390, height: 844 }],
  ] as const) {
    await page.setViewportSize(size);
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForFunction(
        (dark) => document.documentElement.classList.contains("dark") === dark,
        scheme === "dark",
      );
      await page.screenshot({ path: join(SHOTS, `export-${name}-${label}-${scheme}.png`) });
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1440, height: 900 });
}

test("the runs list downloads its filtered rows as CSV and JSON", async ({ page, baseURL }) => {
  await page.goto(`${baseURL}/namespaces/default/runs?type=${type}`);
  await expect(page.getByTestId("export-runs")).toBeVisible({ timeout: 20_000 });
  await shoot(page, "runs");
  const csv = await downloaded(page, page.getByTestId("export-runs").getByRole("link", { name: "Download CSV" }));
  const lines = csv.trimEnd().split("\r\n");
  expect(lines[0]).toBe("workflow_id,run_id,workflow_type,business_key,status,task_queue,started_at,closed_at");
  expect(lines).toHaveLength(5);
  expect(lines.slice(1).every((line) => line.includes(`,${type},`))).toBe(true);
  // The hostile id is text to a spreadsheet: a leading quote.
  expect(lines.some((line) => line.startsWith(`'-1-${unique},`))).toBe(true);
  expect(csv).not.toContain("EXPORT INCOMPLETE");

  const json = JSON.parse(
    await downloaded(page, page.getByTestId("export-runs").getByRole("link", { name: "Download JSON" })),
  ) as { rows: { workflow_id: string }[]; complete: boolean; filters: Record<string, string> };
  expect(json.complete).toBe(true);
  expect(json.filters).toEqual({ type });
  expect(json.rows.map((row) => row.workflow_id)).toContain(hostile);
  expect(json.rows).toHaveLength(4);
});

test("the Schedules list downloads with its filters", async ({ page, baseURL }) => {
  await page.goto(`${baseURL}/namespaces/default/schedules`);
  await page.getByLabel("Schedule id contains").fill(`e2e-export-sched-${unique}`);
  await expect(page.getByTestId("schedule-row")).toHaveCount(1, { timeout: 20_000 });
  const csv = await downloaded(page, page.getByTestId("export-schedules").getByRole("link", { name: "Download CSV" }));
  const lines = csv.trimEnd().split("\r\n");
  expect(lines).toHaveLength(2);
  expect(lines[1]).toContain(`e2e-export-sched-${unique},${type},paused,'@export note`);
});

test("a Failures group downloads its runs", async ({ page, baseURL }) => {
  await page.goto(`${baseURL}/namespaces/default/failures?window=1h`);
  const group = page.getByTestId("failure-group").filter({ hasText: doomed });
  await expect(group.getByTestId("group-count")).toHaveText("2", { timeout: 30_000 });
  const csv = await downloaded(
    page,
    group.getByTestId("export-failures-group").getByRole("link", { name: "Download CSV" }),
  );
  const lines = csv.trimEnd().split("\r\n");
  expect(lines[0]).toBe("workflow_id,run_id,workflow_type,status,closed_at,exception_type,message");
  expect(
    lines
      .slice(1)
      .map((line) => line.split(",")[0])
      .sort(),
  ).toEqual([`e2e-export-dead-${unique}-0`, `e2e-export-dead-${unique}-1`]);
});
