import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import type { Page } from "@playwright/test";
import { dwBaseUrl, dwGet, dwPost, PASSWORDS, SESSION_SECRET, startConsole, writeUsersFile } from "./operator-fixtures";
import type { ExtraConsole } from "./operator-fixtures";

/**
 * Build ids (issue 43): the Workers page shows a task queue's build ids with their rollout state
 * and worker counts; an admin drains, promotes and resumes one after confirming, each confirmed by
 * reading the rollout back; the server's refusal comes back in its words; an operator, a viewer
 * and a read-only console are refused, on screen and at the handler. The two builds are two
 * workers registered over the worker plane, kept alive by heartbeats; nothing polls.
 */

const token = process.env.E2E_TOKEN ?? "bw-secret-token-canary";
const workerToken = process.env.E2E_WORKER_TOKEN ?? "bw-e2e-worker-token";
const SHOTS = process.env.E2E_SHOTS_DIR ?? join(__dirname, "..", "test-results", "screenshots");
const unique = Date.now().toString(36);
const queue = `e2e-builds-${unique}`;
const CURRENT = "2026.12.2";
const PREVIOUS = "2026.11.4";
const workersPath = "/namespaces/default/workers";

test.describe.configure({ mode: "serial" });

async function worker(path: string, body: Record<string, unknown>): Promise<number> {
  const response = await fetch(`${dwBaseUrl()}/api/worker${path}`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${workerToken}`,
      "Content-Type": "application/json",
      "X-Namespace": "default",
      "X-Durable-Workflow-Protocol-Version": "1.19",
    },
    body: JSON.stringify(body),
  });
  return response.status;
}

let beat: ReturnType<typeof setInterval> | undefined;

test.beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  for (const [id, build, runtime] of [
    [`w-new-${unique}`, CURRENT, "python"],
    [`w-old-${unique}`, PREVIOUS, "typescript"],
  ] as const)
    expect(await worker("/register", { worker_id: id, task_queue: queue, runtime, build_id: build })).toBe(201);
  beat = setInterval(() => {
    for (const id of [`w-new-${unique}`, `w-old-${unique}`]) void worker("/heartbeat", { worker_id: id });
  }, 15_000);
});

test.afterAll(() => {
  if (beat) clearInterval(beat);
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
      await page.getByTestId("build-ids").scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, `build-ids-${name}-${label}-${scheme}.png`) });
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1440, height: 900 });
}

function row(page: Page, buildId: string) {
  return page.locator(`[data-testid="build-id-row"][data-build-id="${buildId}"]`);
}

async function openQueue(page: Page, baseUrl: string) {
  await page.goto(`${baseUrl}${workersPath}`);
  await page.getByTestId("build-ids-queue").selectOption(queue, { timeout: 20_000 });
  await expect(row(page, CURRENT)).toBeVisible({ timeout: 20_000 });
}

async function confirm(page: Page, title: string) {
  const dialog = page.getByTestId("confirm-rollout");
  await expect(dialog).toContainText(title);
  await dialog.getByTestId("confirm-rollout-send").click();
}

interface Cohort {
  build_id: string | null;
  drain_intent: string;
  new_start_selected: boolean;
}
const cohorts = async () =>
  (await dwGet<{ build_ids: Cohort[] }>(`/task-queues/${queue}/build-ids`)).build_ids.map((c) => [
    c.build_id,
    c.drain_intent,
    c.new_start_selected,
  ]);

test("an admin drains, promotes and resumes a build id, each confirmed by the rollout read back", async ({
  page,
  baseURL,
}) => {
  await openQueue(page, baseURL!);
  await expect(row(page, PREVIOUS).getByTestId("rollout-status")).toHaveText("Active");
  await expect(row(page, PREVIOUS).getByTestId("worker-counts")).toHaveText("1 active · 0 draining · 0 stale");

  await row(page, PREVIOUS).getByTestId("build-id-drain").click();
  await confirm(page, `Drain ${PREVIOUS} on ${queue}?`);
  await expect(page.getByTestId("build-ids-outcome")).toHaveText(
    `${PREVIOUS} is draining: the rollout read back shows it.`,
  );
  await expect(row(page, PREVIOUS).getByTestId("rollout-status")).toHaveText("Draining");
  await expect(row(page, PREVIOUS).getByTestId("worker-counts")).toHaveText("0 active · 1 draining · 0 stale");
  // A draining build is resumed before it is promoted: the console does not offer it.
  await expect(row(page, PREVIOUS).getByTestId("build-id-promote")).toHaveCount(0);

  await row(page, CURRENT).getByTestId("build-id-promote").click();
  await confirm(page, `Promote ${CURRENT} on ${queue}?`);
  await expect(page.getByTestId("build-ids-outcome")).toHaveText(
    `${CURRENT} is promoted: the rollout now selects it for new starts.`,
  );
  await expect(row(page, CURRENT).getByTestId("new-starts")).toBeVisible();
  expect(await cohorts()).toEqual([
    [CURRENT, "active", true],
    [PREVIOUS, "draining", false],
  ]);
  await shoot(page, "admin");

  // The server's own refusal, in its words, through the console's handler.
  const refused = await page.evaluate(
    async ([q, b]) => {
      const r = await fetch("/api/actions/build-ids", {
        method: "POST",
        headers: { "content-type": "application/json", "x-namespace": "default" },
        body: JSON.stringify({ action: "promote", taskQueue: q, buildId: b }),
      });
      return { status: r.status, body: (await r.json()) as Record<string, unknown> };
    },
    [queue, PREVIOUS] as const,
  );
  expect(refused).toEqual({
    status: 409,
    body: {
      kind: "rejected",
      httpStatus: 409,
      reason: "fleet_is_draining",
      message: `Deployment default/${queue}@${PREVIOUS} is draining; resume it before promoting.`,
    },
  });

  await row(page, PREVIOUS).getByTestId("build-id-resume").click();
  await confirm(page, `Resume ${PREVIOUS} on ${queue}?`);
  await expect(page.getByTestId("build-ids-outcome")).toHaveText(
    `${PREVIOUS} is active again: the rollout read back shows it.`,
  );
  await expect(row(page, PREVIOUS).getByTestId("rollout-status")).toHaveText("Active");
  await expect(page.getByTestId("deployments")).toContainText(`default/${queue}@${CURRENT} · promoted`);
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
      BREAKWATER_USERS_FILE: writeUsersFile(mkdtempSync(join(tmpdir(), "bw-builds-"))),
      BREAKWATER_SESSION_SECRET: SESSION_SECRET,
    });
    readOnly = await startConsole({ DW_TOKEN: token, BREAKWATER_READ_ONLY: "1" });
  });

  test.afterAll(async () => {
    await app?.stop();
    await readOnly?.stop();
  });

  async function forgedDrain(page: Page) {
    return page.evaluate(async (q) => {
      const r = await fetch("/api/actions/build-ids", {
        method: "POST",
        headers: { "content-type": "application/json", "x-namespace": "default" },
        body: JSON.stringify({ action: "drain", taskQueue: q, buildId: "2026.12.2" }),
      });
      return { status: r.status, body: (await r.json()) as { reason?: string } };
    }, queue);
  }

  for (const [user, role] of [
    ["ola", "operator"],
    ["vic", "viewer"],
  ] as const) {
    test(`${role}: sees the build ids, cannot change the rollout, and the handler refuses a forged drain`, async ({
      page,
    }) => {
      await page.goto(`${app.baseUrl}${workersPath}`);
      await page.getByLabel("User name").fill(user);
      await page.getByLabel("Password").fill(PASSWORDS[user]);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByTestId("build-ids-queue").selectOption(queue, { timeout: 20_000 });
      const why = `Requires the admin role; you are signed in as ${role}.`;
      await expect(page.getByTestId("build-ids-refusal")).toHaveText(why, { timeout: 20_000 });
      const drain = row(page, CURRENT).getByTestId("build-id-drain");
      await expect(drain).toBeDisabled();
      await expect(drain).toHaveAttribute("title", why);
      expect(await forgedDrain(page)).toMatchObject({ status: 403, body: { reason: "role" } });
      expect(await cohorts()).toContainEqual([CURRENT, "active", true]);
      await shoot(page, role);
    });
  }

  test("read-only mode: the build ids are shown and every change refused with the reason", async ({ page }) => {
    await page.goto(`${readOnly.baseUrl}${workersPath}`);
    await page.getByTestId("build-ids-queue").selectOption(queue, { timeout: 20_000 });
    const why = "Read-only mode: rollouts cannot be changed from this console.";
    await expect(page.getByTestId("build-ids-refusal")).toHaveText(why, { timeout: 20_000 });
    await expect(row(page, CURRENT).getByTestId("build-id-drain")).toBeDisabled();
    expect(await forgedDrain(page)).toMatchObject({ status: 403, body: { reason: "read_only" } });
    expect((await dwPost(`/task-queues/${queue}/build-ids/resume`, { build_id: CURRENT })).status).toBe(200);
  });
});
