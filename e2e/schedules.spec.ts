import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import type { Page } from "@playwright/test";
import { dwBaseUrl, dwGet, dwPost, PASSWORDS, SESSION_SECRET, startConsole, writeUsersFile } from "./operator-fixtures";
import type { ExtraConsole } from "./operator-fixtures";

/**
 * Schedules (issue 42) in Chromium against the embedded server: schedules made through the server's
 * API are listed with their spec in words and their state; an operator pauses and resumes with a
 * note, triggers, backfills a range after its dry-run count and deletes with the id typed, each shown
 * as confirmed and read back from the server; a viewer and read-only mode are refused. The workflow
 * type has no worker, so the runs the fires start stay open.
 */

const token = process.env.E2E_TOKEN ?? "bw-secret-token-canary";
const SHOTS = process.env.E2E_SHOTS_DIR ?? join(__dirname, "..", "test-results", "screenshots");
const unique = Date.now().toString(36);
const active = `e2e-nightly-${unique}`;
const paused = `e2e-paused-${unique}`;
const listPath = "/namespaces/default/schedules";
const detailPath = (id: string) => `${listPath}/${encodeURIComponent(id)}`;

interface Detail {
  state: { status: string; note: string | null };
  info: { fires_count: number };
}
interface Audit {
  events: { event_type: string; workflow_instance_id: string | null }[];
}
const triggeredCount = async (id: string) =>
  (await dwGet<Audit>(`/schedules/${id}/history?limit=500`)).events.filter((e) => e.event_type === "ScheduleTriggered")
    .length;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  const make = async (body: Record<string, unknown>) => {
    const { status, body: answer } = await dwPost("/schedules", body);
    expect(status, JSON.stringify(answer)).toBe(201);
  };
  await make({
    schedule_id: active,
    spec: { cron_expressions: ["0 2 * * 1-5"], timezone: "Europe/Berlin" },
    action: { workflow_type: "E2eNightlyReport", task_queue: `e2e-sched-unworked-${unique}` },
    overlap_policy: "allow_all",
    note: "EU desk report",
  });
  await make({
    schedule_id: paused,
    spec: { intervals: [{ every: "PT15M" }] },
    action: { workflow_type: "E2eLedgerSync", task_queue: `e2e-sched-unworked-${unique}` },
    paused: true,
    note: "Paused for the ledger migration",
  });
});

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
      await page.screenshot({ path: join(SHOTS, `schedules-${name}-${label}-${scheme}.png`), fullPage: true });
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1440, height: 900 });
}

async function act(page: Page, action: string) {
  const button = page.getByTestId(`schedule-action-${action}`);
  await expect(button).toBeEnabled({ timeout: 20_000 });
  await button.click();
  await expect(page.getByTestId(`schedule-dialog-${action}`)).toBeVisible();
}

async function submitted(page: Page, action: string) {
  await page.getByTestId(`schedule-dialog-${action}`).locator('button[type="submit"]').click();
  const status = page.getByTestId("schedule-action-status");
  await expect(status).toHaveAttribute("data-phase", "done", { timeout: 20_000 });
  return status;
}

test("the list shows each schedule's spec in words, its state with the note, and filters", async ({
  page,
  baseURL,
}) => {
  await page.goto(`${baseURL}${listPath}`);
  await page.getByLabel("Schedule id contains").fill(unique);
  const rows = page.getByTestId("schedule-row");
  await expect(rows).toHaveCount(2, { timeout: 20_000 });
  // The tally counts the whole namespace (other specs may add schedules): both states are in it.
  await expect(page.getByTestId("schedules-tally")).toContainText(/\d+ active · \d+ paused/);
  const nightly = page.locator(`[data-schedule-id="${active}"]`);
  await expect(nightly).toContainText("At 02:00, Monday through Friday");
  await expect(nightly).toContainText("in Europe/Berlin");
  await expect(nightly.getByTestId("schedule-state")).toHaveAttribute("data-state", "active");
  const ledger = page.locator(`[data-schedule-id="${paused}"]`);
  await expect(ledger).toContainText("every 15 min");
  await expect(ledger.getByTestId("schedule-state")).toHaveAttribute("data-state", "paused");
  await expect(ledger.getByTestId("schedule-note")).toHaveText("Paused for the ledger migration");
  // A paused schedule keeps a next_fire it will not keep: not offered as upcoming.
  await expect(ledger).toContainText("not while paused");
  await page.getByRole("group", { name: "State" }).getByRole("button", { name: "Paused" }).click();
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toHaveAttribute("data-schedule-id", paused);
  await page.getByRole("group", { name: "State" }).getByRole("button", { name: "All" }).click();
  await shoot(page, "list");
  await nightly.getByRole("link", { name: active }).click();
  await expect(page.getByTestId("schedule-detail")).toBeVisible();
  await expect(page.getByTestId("schedule-next-fire")).toHaveCount(5);
});

test("Overview and Attention count the schedule whose last run failed; each count opens the list showing just those", async ({
  page,
  baseURL,
}) => {
  // Like the demo fleet's card-retry-sweep: a schedule whose run ends badly (terminated here: no worker).
  const failing = `e2e-declines-${unique}`;
  const made = await dwPost("/schedules", {
    schedule_id: failing,
    spec: { cron_expressions: ["0 3 1 1 *"], timezone: "UTC" },
    action: { workflow_type: "E2eCardSweep", task_queue: `e2e-sched-unworked-${unique}` },
    overlap_policy: "allow_all",
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  try {
    const fired = await dwPost(`/schedules/${failing}/trigger`, {});
    const workflowId = String(fired.body.workflow_id);
    expect(fired.status, JSON.stringify(fired.body)).toBe(200);
    expect((await dwPost(`/workflows/${workflowId}/terminate`, { reason: "e2e: the issuer declined" })).status).toBe(
      200,
    );

    for (const path of ["/namespaces/default", "/namespaces/default/attention"]) {
      await page.goto(`${baseURL}${path}`);
      const health = page.getByTestId("schedule-health");
      await expect(health).toHaveAttribute("data-state", "ok", { timeout: 20_000 });
      await expect(health.getByRole("link", { name: /^Last run failed: [1-9]\d*$/ })).toBeVisible({ timeout: 20_000 });
      await expect(health.getByRole("link", { name: /^Late schedules: \d+$/ })).toBeVisible();
    }
    await shoot(page, "attention-health");
    await page
      .getByTestId("schedule-health")
      .getByRole("link", { name: /^Last run failed/ })
      .click();
    await expect(page).toHaveURL(/\/schedules\?show=failed$/);
    const rows = page.getByTestId("schedule-row");
    await expect(page.locator(`[data-schedule-id="${failing}"]`)).toBeVisible({ timeout: 20_000 });
    // The paused schedule never fired and the active one's run is open: neither is shown.
    await expect(page.locator(`[data-schedule-id="${paused}"]`)).toHaveCount(0);
    await expect(page.locator(`[data-schedule-id="${active}"]`)).toHaveCount(0);
    const failedCount = await rows.count();
    await shoot(page, "list-failed");
    // The filter is the URL's: "Late" keeps the late ones only (none of these fires is overdue).
    await page.getByRole("group", { name: "Show" }).getByRole("button", { name: "Late" }).click();
    await expect(page).toHaveURL(/\/schedules\?show=late$/);
    await expect(page.locator(`[data-schedule-id="${failing}"]`)).toHaveCount(0);
    await page.getByRole("group", { name: "Show" }).getByRole("button", { name: "All" }).click();
    await expect(page).toHaveURL(/\/schedules$/);
    expect(await rows.count()).toBeGreaterThan(failedCount);
  } finally {
    await fetch(`${dwBaseUrl()}/api/schedules/${failing}`, {
      method: "DELETE",
      headers: {
        authorization: `Bearer ${token}`,
        "x-durable-workflow-control-plane-version": "2",
        "x-namespace": "default",
      },
    });
  }
});

test("an operator pauses and resumes with a note, each read back", async ({ page, baseURL }) => {
  await page.goto(`${baseURL}${detailPath(active)}`);
  await act(page, "pause");
  await page.getByTestId("schedule-dialog-pause").locator('button[type="submit"]').click();
  await expect(page.getByTestId("schedule-dialog-pause")).toContainText("A note is required.");
  await page.getByTestId("schedule-note-input").fill("Berlin office closed");
  const status = await submitted(page, "pause");
  await expect(status).toContainText("Paused");
  await expect(page.getByTestId("schedule-detail")).toHaveAttribute("data-state", "paused");
  await expect(page.getByTestId("schedule-summary").getByTestId("schedule-note")).toHaveText("Berlin office closed");
  expect((await dwGet<Detail>(`/schedules/${active}`)).state).toMatchObject({
    status: "paused",
    note: "Berlin office closed",
  });

  await act(page, "resume");
  await page.getByTestId("schedule-note-input").fill("Office open again");
  await expect(await submitted(page, "resume")).toContainText("Resumed");
  await expect(page.getByTestId("schedule-detail")).toHaveAttribute("data-state", "active");
  expect((await dwGet<Detail>(`/schedules/${active}`)).state).toMatchObject({
    status: "active",
    note: "Office open again",
  });
});

test("an operator triggers now with an overlap choice and opens the run it started", async ({ page, baseURL }) => {
  await page.goto(`${baseURL}${detailPath(active)}`);
  const before = await triggeredCount(active);
  await act(page, "trigger");
  await page.getByTestId("schedule-overlap-input").selectOption("allow_all");
  const status = await submitted(page, "trigger");
  await expect(status).toContainText("Triggered");
  expect(await triggeredCount(active)).toBe(before + 1);
  await expect(page.getByTestId("schedule-recent-run").first()).toBeVisible({ timeout: 20_000 });
  await status.getByTestId("schedule-triggered-run").click();
  await expect(page).toHaveURL(/\/workflows\/.+\/runs\//);
  // The run names the schedule that started it (its own ScheduleTriggered event) and links back.
  const link = page.getByTestId("run-schedule");
  await expect(link).toContainText(active, { timeout: 20_000 });
  await link.getByRole("link", { name: active }).click();
  await expect(page.getByTestId("schedule-detail")).toBeVisible();
});

test("an operator backfills a range after seeing its dry-run count", async ({ page, baseURL }) => {
  await page.goto(`${baseURL}${detailPath(active)}`);
  const before = await triggeredCount(active);
  await act(page, "backfill");
  // Monday 5 to Saturday 10 January 2026, UTC: 02:00 Berlin on five weekdays.
  await page.getByTestId("schedule-backfill-start").fill("2026-01-05 00:00");
  await page.getByTestId("schedule-backfill-end").fill("2026-01-10 00:00");
  await expect(page.getByTestId("schedule-backfill-count")).toContainText("5 fires");
  await page.getByTestId("schedule-overlap-input").selectOption("allow_all");
  await shoot(page, "backfill");
  const status = await submitted(page, "backfill");
  await expect(status).toContainText("5 of 5 fires started runs");
  expect(await triggeredCount(active)).toBe(before + 5);
  await shoot(page, "detail");
});

test("deleting needs the id typed, then the schedule is gone from the server and the list", async ({
  page,
  baseURL,
}) => {
  await page.goto(`${baseURL}${detailPath(active)}`);
  await act(page, "delete");
  await page.getByTestId("schedule-delete-confirm").fill("e2e-nightly");
  await page.getByTestId("schedule-dialog-delete").locator('button[type="submit"]').click();
  await expect(page.getByTestId("schedule-dialog-delete")).toContainText("That is not the schedule id.");
  await page.getByTestId("schedule-delete-confirm").fill(active);
  await expect(await submitted(page, "delete")).toContainText("Deleted");
  const gone = await fetch(`${dwBaseUrl()}/api/schedules/${active}`, {
    headers: {
      authorization: `Bearer ${token}`,
      "x-durable-workflow-control-plane-version": "2",
      "x-namespace": "default",
    },
  });
  expect(gone.status).toBe(404);
  await page.goto(`${baseURL}${listPath}`);
  await page.getByLabel("Schedule id contains").fill(unique);
  await expect(page.getByTestId("schedule-row")).toHaveCount(1, { timeout: 20_000 });
});

test.describe("refusals", () => {
  let viewerApp: ExtraConsole | undefined;
  let readOnlyApp: ExtraConsole | undefined;

  test.afterAll(async () => {
    await viewerApp?.stop();
    await readOnlyApp?.stop();
  });

  test("a viewer sees every action disabled with the role it needs, and the handler refuses", async ({ page }) => {
    test.setTimeout(120_000);
    const dir = mkdtempSync(join(tmpdir(), "bw-schedules-"));
    viewerApp = await startConsole({
      DW_TOKEN: token,
      DW_ADMIN_TOKEN: token,
      BREAKWATER_AUTH: "password",
      BREAKWATER_USERS_FILE: writeUsersFile(dir),
      BREAKWATER_SESSION_SECRET: SESSION_SECRET,
    });
    await page.goto(`${viewerApp.baseUrl}${detailPath(paused)}`);
    await page.getByLabel("User name").fill("vic");
    await page.getByLabel("Password").fill(PASSWORDS.vic);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByTestId("schedule-detail")).toBeVisible({ timeout: 20_000 });
    const why = "Requires the operator role; you are signed in as viewer.";
    for (const action of ["pause", "resume", "trigger", "backfill", "delete"]) {
      await expect(page.getByTestId(`schedule-action-${action}`), action).toBeDisabled();
      await expect(page.getByTestId(`schedule-action-${action}`), action).toHaveAttribute("title", why);
    }
    const direct = await page.request.post(`${viewerApp.baseUrl}/api/actions/schedules`, {
      headers: { Origin: viewerApp.baseUrl, "x-namespace": "default" },
      data: { action: "resume", scheduleId: paused, note: "sneaky" },
    });
    expect(direct.status()).toBe(403);
    expect((await dwGet<Detail>(`/schedules/${paused}`)).state.status).toBe("paused");
  });

  test("read-only mode disables the actions with the reason and the handler refuses", async ({ page }) => {
    test.setTimeout(120_000);
    readOnlyApp = await startConsole({ BREAKWATER_READ_ONLY: "1" });
    await page.goto(`${readOnlyApp.baseUrl}${detailPath(paused)}`);
    await expect(page.getByTestId("schedule-detail")).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId("schedule-action-resume")).toBeDisabled();
    await expect(page.getByTestId("schedule-action-resume")).toHaveAttribute(
      "title",
      "The console is in read-only mode.",
    );
    await expect(page.getByTestId("schedule-actions-refused")).toHaveText("The console is in read-only mode.");
    const direct = await page.request.post(`${readOnlyApp.baseUrl}/api/actions/schedules`, {
      headers: { Origin: readOnlyApp.baseUrl, "x-namespace": "default" },
      data: { action: "resume", scheduleId: paused, note: "sneaky" },
    });
    expect(direct.status()).toBe(403);
    expect((await dwGet<Detail>(`/schedules/${paused}`)).state.status).toBe("paused");
  });
});
