import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import type { Locator, Page } from "@playwright/test";
import type { Worker } from "../server/sdk/worker";
import {
  closeServerDb,
  dwPost,
  liveness,
  runPath,
  startOpsWorker,
  stuckRestockRun,
  waitFor,
} from "./operator-fixtures";
import { SCENARIO_IDS, e2eScenarios } from "./run-scenarios";

/**
 * Accessibility: axe-core on every screen in both themes, with real data behind it (scenario runs
 * worked by an SDK worker, a stuck run, a live worker), and the repair journey by keyboard alone.
 */

const dwHost = process.env.E2E_DW_HOST ?? "";
const BLOCKING = new Set(["serious", "critical"]);

let worker: Worker;
let stuck: { workflowId: string; runId: string };

async function setTheme(page: Page, baseURL: string | undefined, theme: "light" | "dark") {
  await page.context().addCookies([{ name: "bw-theme", value: theme, url: baseURL ?? "" }]);
  await page.emulateMedia({ colorScheme: theme });
}

/** Runs axe on the page as it is and fails with every serious/critical violation spelled out. */
async function expectNoBlockingViolations(page: Page, screen: string) {
  const results = await new AxeBuilder({ page }).analyze();
  const blocking = results.violations.filter((violation) => violation.impact && BLOCKING.has(violation.impact));
  const report = blocking.map((violation) => ({
    id: violation.id,
    impact: violation.impact,
    help: violation.help,
    targets: violation.nodes.map(
      (node) =>
        `${node.target.join(" ")}${node.failureSummary ? ` — ${node.failureSummary.replace(/\s+/g, " ")}` : ""}`,
    ),
  }));
  if (report.length) console.log(`axe on ${screen}:\n${JSON.stringify(report, null, 2)}`);
  expect(report, `serious/critical axe violations on ${screen}`).toEqual([]);
}

const SCREENS: { name: string; path: () => Promise<string>; ready: (page: Page) => Locator }[] = [
  { name: "overview", path: async () => "/", ready: (page) => page.getByTestId("panel-repair") },
  { name: "runs", path: async () => "/runs", ready: (page) => page.getByTestId("runs-row").first() },
  {
    name: "run detail",
    path: async () => runPath(SCENARIO_IDS.declined, (await e2eScenarios()).declined),
    ready: (page) => page.getByTestId("exception-row").first(),
  },
  {
    name: "retried run timeline",
    path: async () => runPath(SCENARIO_IDS.retried, (await e2eScenarios()).retried),
    // The last attempt's "#3" is dropped where it has no room (timeline-tab.tsx); "#2" is drawn.
    ready: (page) => page.getByTestId("timeline-attempt-label").filter({ hasText: "#2" }),
  },
  {
    name: "stuck run detail",
    path: async () => runPath(stuck.workflowId, stuck.runId),
    ready: (page) => page.locator('button[data-action="repair"]:enabled'),
  },
  { name: "attention", path: async () => "/attention", ready: (page) => page.getByTestId("attention-group").first() },
  {
    name: "failures",
    path: async () => "/namespaces/default/failures",
    ready: (page) => page.getByTestId("failure-group").first(),
  },
  { name: "system", path: async () => "/system", ready: (page) => page.getByTestId("repair-total") },
  { name: "workers", path: async () => "/workers", ready: (page) => page.getByTestId("worker-row").first() },
];

test.describe("accessibility", () => {
  test.skip(!dwHost, "no Durable Workflow server for e2e");

  test.beforeAll(async () => {
    test.setTimeout(120_000);
    await e2eScenarios();
    worker = startOpsWorker();
    await worker.start();
    const workflowId = `a11y-stuck-${Date.now().toString(36)}`;
    stuck = { workflowId, runId: await stuckRestockRun(workflowId) };
  });

  test.afterAll(async () => {
    // Leave the shared server as we found it: a stuck run of ours would otherwise join the inbox
    // groups and worst-offender tiles that later specs assert on.
    if (stuck && (await liveness(stuck.workflowId, stuck.runId)) === "repair_needed") {
      await dwPost(`/workflows/${encodeURIComponent(stuck.workflowId)}/repair`, {});
      await waitFor(
        `${stuck.workflowId} to leave repair_needed`,
        async () => (await liveness(stuck.workflowId, stuck.runId)) !== "repair_needed",
      );
    }
    await worker?.shutdown({ abortActivities: true });
    closeServerDb();
  });

  for (const theme of ["light", "dark"] as const) {
    for (const screen of SCREENS) {
      test(`${screen.name} (${theme}) has no serious or critical axe violations`, async ({ page, baseURL }) => {
        await setTheme(page, baseURL, theme);
        await page.goto(await screen.path());
        await expect(page.locator("html")).toHaveClass(theme === "dark" ? /\bdark\b/ : /^(?!.*\bdark\b)/);
        await expect(screen.ready(page)).toBeVisible({ timeout: 20_000 });
        await expect(page.getByTestId("connection-indicator")).toHaveAttribute("data-status", "connected", {
          timeout: 20_000,
        });
        await expectNoBlockingViolations(page, `${screen.name} (${theme})`);
      });
    }
  }

  test("the danger dialog (terminate) has no serious or critical axe violations in either theme", async ({
    page,
    baseURL,
  }) => {
    for (const theme of ["light", "dark"] as const) {
      await setTheme(page, baseURL, theme);
      await page.goto(runPath(stuck.workflowId, stuck.runId));
      const terminate = page.getByTestId("run-actions").locator('button[data-action="terminate"]');
      await expect(terminate).toBeEnabled({ timeout: 20_000 });
      await terminate.click();
      await expect(page.getByTestId("action-dialog")).toBeVisible();
      await expectNoBlockingViolations(page, `terminate dialog (${theme})`);
      await page.keyboard.press("Escape");
      await expect(page.getByTestId("action-dialog")).toHaveCount(0);
    }
  });

  test("repairs a stuck run with the keyboard alone", async ({ page, baseURL }) => {
    test.setTimeout(90_000);
    await setTheme(page, baseURL, "light");
    const workflowId = `a11y-keyboard-${Date.now().toString(36)}`;
    const runId = await stuckRestockRun(workflowId);
    await page.goto(runPath(workflowId, runId));
    const repair = page.getByTestId("run-actions").locator('button[data-action="repair"]');
    await expect(repair).toBeEnabled({ timeout: 20_000 });

    // Tab from the top of the document until the repair button holds focus.
    const focusedAction = () =>
      page.evaluate(
        () =>
          document.activeElement?.getAttribute("data-action") ??
          document.activeElement?.getAttribute("data-testid") ??
          null,
      );
    let presses = 0;
    while ((await focusedAction()) !== "repair") {
      expect(presses++, "Tab presses to reach the repair button").toBeLessThan(80);
      await page.keyboard.press("Tab");
    }
    await expect(repair).toBeFocused();
    console.log(`repair button reached after ${presses} Tab presses`);
    await page.keyboard.press("Enter");

    const dialog = page.getByTestId("action-dialog");
    await expect(dialog).toContainText("Repair this run");
    // The modal dialog takes focus; Tab moves within it to the submit button.
    const submit = page.getByTestId("action-submit");
    let inDialog = 0;
    while ((await focusedAction()) !== "action-submit") {
      expect(inDialog++, "Tab presses to reach the dialog's submit button").toBeLessThan(6);
      await page.keyboard.press("Tab");
    }
    await expect(submit).toBeFocused();
    await expectNoBlockingViolations(page, "repair dialog");
    await page.keyboard.press("Enter");

    await expect(page.getByTestId("action-status").locator('[data-state="accepted"]')).toContainText(
      "repair_dispatched",
    );
    const confirmation = page.getByTestId("confirmation");
    await expect(confirmation).toHaveAttribute("data-phase", "confirmed", { timeout: 30_000 });
    await expect(confirmation.locator('[data-step="command_recorded"]')).toContainText(
      "RepairRequested recorded at history sequence",
    );
    await expectNoBlockingViolations(page, "repair confirmed");
  });
});
