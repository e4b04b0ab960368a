import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import type { Page } from "@playwright/test";
import { dwBaseUrl, dwGet, PASSWORDS, SESSION_SECRET, startConsole, writeUsersFile } from "./operator-fixtures";
import type { ExtraConsole } from "./operator-fixtures";

/**
 * The Workers page (issue 43): a worker's task slots and process as it reported them, the columns a
 * person chooses (kept across a reload), freshness by the server's own stale-after rule with the
 * heartbeat's age, and an admin's removal of a dead worker confirmed by reading the roster back;
 * refused for an operator and a viewer and in read-only mode. Two workers register over the worker
 * plane and then fall silent; the server's window (60 s on the embedded server) makes them stale.
 */

const token = process.env.E2E_TOKEN ?? "bw-secret-token-canary";
const SHOTS = process.env.E2E_SHOTS_DIR ?? join(__dirname, "..", "test-results", "screenshots");
const unique = Date.now().toString(36);
const DEAD = `e2e-dead-${unique}`;
const SPARE = `e2e-spare-${unique}`;
const QUEUE = `e2e-roster-${unique}`;
const workersPath = "/namespaces/default/workers";

test.describe.configure({ mode: "serial" });

async function workerPlane(path: string, body: unknown): Promise<number> {
  const response = await fetch(`${dwBaseUrl()}/api/worker${path}`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${process.env.E2E_WORKER_TOKEN ?? ""}`,
      "Content-Type": "application/json",
      Accept: "application/json",
      "X-Namespace": "default",
      "X-Durable-Workflow-Protocol-Version": "1.20",
    },
    body: JSON.stringify(body),
  });
  return response.status;
}

async function register(workerId: string) {
  expect(
    await workerPlane("/register", {
      worker_id: workerId,
      task_queue: QUEUE,
      runtime: "python",
      sdk_version: "2.12.0",
      build_id: "roster-build-1",
      capabilities: ["workflow_tasks"],
      max_concurrent_workflow_tasks: 4,
      max_concurrent_activity_tasks: 8,
      task_slots: { workflow_available: 4, activity_available: 8 },
    }),
  ).toBe(201);
  expect(
    await workerPlane("/heartbeat", {
      worker_id: workerId,
      task_slots: { workflow_available: 1, activity_available: 8 },
      process_metrics: { host: "roster-host", process_id: 4242, memory_bytes: 52_428_800, cpu_percent: 12.5 },
      heartbeat_interval_seconds: 30,
    }),
  ).toBe(200);
}

async function workerStatus(workerId: string): Promise<string> {
  return (await dwGet<{ status: string }>(`/workers/${workerId}`)).status;
}

test.beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  await register(DEAD);
  await register(SPARE);
});

test.afterAll(async () => {
  // The spare stays registered only for the refusals; the shared server should not keep it.
  await fetch(`${dwBaseUrl()}/api/workers/${SPARE}`, {
    method: "DELETE",
    headers: {
      Authorization: `Bearer ${token}`,
      Accept: "application/json",
      "X-Namespace": "default",
      "X-Durable-Workflow-Control-Plane-Version": "2",
    },
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
      await page.getByTestId("workers-table").scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, `workers-${name}-${label}-${scheme}.png`), fullPage: true });
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1440, height: 900 });
}

function row(page: Page, workerId: string) {
  return page.getByTestId("worker-row").filter({ hasText: workerId });
}

/** The worker's row once stale workers are unfolded (folded only while live ones are listed too). */
async function showStale(page: Page, workerId: string) {
  await expect(page.getByTestId("worker-summary")).toBeVisible({ timeout: 20_000 });
  const toggle = page.getByTestId("toggle-stale-workers");
  if (await toggle.isVisible()) await toggle.click();
  const found = row(page, workerId);
  await expect(found).toHaveAttribute("data-freshness", "stale");
  return found;
}

test("a worker's slots and process as reported, and the columns a person chooses kept across a reload", async ({
  page,
  baseURL,
}) => {
  await page.goto(`${baseURL}${workersPath}`);
  const dead = row(page, DEAD);
  await expect(dead).toBeVisible({ timeout: 20_000 });
  await expect(dead).toHaveAttribute("data-freshness", "live");
  await expect(dead.getByTestId("worker-slots")).toContainText("1 of 4 free");
  await expect(dead.getByTestId("worker-slots")).toContainText("8 of 8 free");
  await expect(dead).toContainText("roster-host · PID 4242 · CPU 12.5% · 50.0 MiB");
  await expect(dead).toContainText("every 30 s");
  await expect(page.getByTestId("worker-summary")).toContainText("stale after 60 s without a heartbeat");

  const chooser = page.getByTestId("worker-columns");
  await chooser.locator("summary").click();
  await chooser.getByLabel("Capabilities").check();
  await chooser.getByLabel("Build ID").uncheck();
  await expect(dead).toContainText("workflow_tasks");
  await expect(page.getByTestId("workers-table").getByRole("columnheader", { name: "Build ID" })).toHaveCount(0);
  await page.reload();
  await expect(row(page, DEAD)).toContainText("workflow_tasks", { timeout: 20_000 });
  await expect(page.getByTestId("workers-table").getByRole("columnheader", { name: "Build ID" })).toHaveCount(0);
  await expect(page.getByRole("columnheader", { name: "Capabilities" })).toBeVisible();
  await shoot(page, "live");
  // Back to the default for the next tests' screenshots.
  await page.evaluate(() => window.localStorage.removeItem("breakwater.workers.columns"));
});

test("stale by the server's rule with the heartbeat's age; an admin removes it, confirmed by the roster", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(150_000);
  // The server's window is 60 s: the workers fall silent after their one heartbeat.
  await expect.poll(() => workerStatus(DEAD), { timeout: 100_000, intervals: [2_000] }).toBe("stale");
  await page.goto(`${baseURL}${workersPath}`);
  const dead = await showStale(page, DEAD);
  await expect(dead.getByTestId("worker-freshness")).toContainText(/stale\s*heartbeat \d+m/);
  await shoot(page, "stale");

  await dead.getByRole("button", { name: `Remove worker ${DEAD}` }).click();
  const dialog = page.getByTestId("confirm-remove-worker");
  await expect(dialog).toContainText(`Remove worker ${DEAD}?`);
  await expect(dialog).toContainText("registers again when it restarts");
  await dialog.getByTestId("confirm-remove-worker-button").click();
  await expect(page.getByTestId("worker-outcome")).toHaveText(`Worker ${DEAD} removed: the roster no longer lists it.`);
  await expect(row(page, DEAD)).toHaveCount(0);
  const gone = await fetch(`${dwBaseUrl()}/api/workers/${DEAD}`, {
    headers: {
      Authorization: `Bearer ${token}`,
      Accept: "application/json",
      "X-Namespace": "default",
      "X-Durable-Workflow-Control-Plane-Version": "2",
    },
  });
  expect(gone.status).toBe(404);
});

test.describe("an operator, a viewer, and a read-only console", () => {
  let app: ExtraConsole;
  let readOnly: ExtraConsole;

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    app = await startConsole({
      DW_TOKEN: token,
      DW_ADMIN_TOKEN: token,
      BREAKWATER_AUTH: "password",
      BREAKWATER_USERS_FILE: writeUsersFile(mkdtempSync(join(tmpdir(), "bw-workers-"))),
      BREAKWATER_SESSION_SECRET: SESSION_SECRET,
    });
    readOnly = await startConsole({ DW_TOKEN: token, BREAKWATER_READ_ONLY: "1" });
  });

  test.afterAll(async () => {
    await app?.stop();
    await readOnly?.stop();
  });

  async function refusedForged(page: Page): Promise<{ status: number; reason?: string }> {
    return page.evaluate(async (workerId) => {
      const r = await fetch("/api/actions/workers", {
        method: "POST",
        headers: { "content-type": "application/json", "x-namespace": "default" },
        body: JSON.stringify({ op: "remove", workerId }),
      });
      return { status: r.status, reason: ((await r.json()) as { reason?: string }).reason };
    }, SPARE);
  }

  for (const [user, role] of [
    ["ola", "operator"],
    ["vic", "viewer"],
  ] as const) {
    test(`${role}: sees the stale worker, cannot remove it, and the handler refuses a forged removal`, async ({
      page,
    }) => {
      expect(await workerStatus(SPARE)).toBe("stale");
      await page.goto(`${app.baseUrl}${workersPath}`);
      await page.getByLabel("User name").fill(user);
      await page.getByLabel("Password").fill(PASSWORDS[user]);
      await page.getByRole("button", { name: "Sign in" }).click();
      const spare = await showStale(page, SPARE);
      const why = `Requires the admin role; you are signed in as ${role}.`;
      const remove = spare.getByRole("button", { name: `Remove worker ${SPARE}` });
      await expect(remove).toBeDisabled();
      await expect(remove).toHaveAttribute("title", why);
      await expect(page.getByTestId("remove-refusal")).toHaveText(why);
      expect(await refusedForged(page)).toEqual({ status: 403, reason: "role" });
      expect(await workerStatus(SPARE)).toBe("stale");
      await shoot(page, role);
    });
  }

  test("read-only mode: the stale worker is shown and its removal refused with the reason", async ({ page }) => {
    await page.goto(`${readOnly.baseUrl}${workersPath}`);
    const spare = await showStale(page, SPARE);
    const why = "Read-only mode: workers cannot be removed from this console.";
    await expect(spare.getByRole("button", { name: `Remove worker ${SPARE}` })).toBeDisabled();
    await expect(page.getByTestId("remove-refusal")).toHaveText(why);
    expect(await refusedForged(page)).toEqual({ status: 403, reason: "read_only" });
    expect(await workerStatus(SPARE)).toBe("stale");
  });
});
