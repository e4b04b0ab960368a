import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import type { Page } from "@playwright/test";
import {
  liveness,
  PASSWORDS,
  runPath,
  SESSION_SECRET,
  startConsole,
  startRun,
  waitFor,
  withOpsWorker,
  writeUsersFile,
} from "./operator-fixtures";
import type { ExtraConsole } from "./operator-fixtures";

/**
 * Who did what (decision 0058): ola signs in (BREAKWATER_AUTH=password, operator) and cancels a run;
 * the console names her to the server in its attribution headers, which the e2e server trusts
 * (DW_TRUST_FORWARDED_ATTRIBUTION_HEADERS, playwright.config.ts), so the Commands tab says she sent
 * it, and the console's audit file has the line.
 */

const token = process.env.E2E_TOKEN ?? "bw-secret-token-canary";
const SHOTS = process.env.E2E_SHOTS_DIR ?? join(__dirname, "..", "test-results", "screenshots");

let app: ExtraConsole;
let auditFile: string;
let workflowId: string;
let runId: string;

withOpsWorker();
test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(120_000);
  const dir = mkdtempSync(join(tmpdir(), "bw-attribution-"));
  auditFile = join(dir, "audit.jsonl");
  app = await startConsole({
    DW_TOKEN: token,
    DW_ADMIN_TOKEN: token,
    BREAKWATER_AUTH: "password",
    BREAKWATER_USERS_FILE: writeUsersFile(dir),
    BREAKWATER_SESSION_SECRET: SESSION_SECRET,
    BREAKWATER_AUDIT_LOG_FILE: auditFile,
  });
  workflowId = `ops-attribution-${Date.now().toString(36)}`;
  runId = await startRun("OpsLongWaitWorkflow", workflowId, []);
  await waitFor(
    `${workflowId} to park on its timer`,
    async () => (await liveness(workflowId, runId)) === "timer_scheduled",
  );
});

test.afterAll(async () => {
  await app?.stop();
});

async function signIn(page: Page, user: keyof typeof PASSWORDS, path: string): Promise<void> {
  await page.goto(`${app.baseUrl}${path}`);
  await expect(page).toHaveURL(/\/login(\?|$)/);
  await page.getByLabel("User name").fill(user);
  await page.getByLabel("Password").fill(PASSWORDS[user]);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("account-status")).toContainText(`Signed in as ${user}`);
}

/** The Commands tab light and dark, wide and narrow. */
async function shoot(page: Page): Promise<void> {
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
      await page.getByTestId("commands-table").scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, `attribution-commands-${label}-${scheme}.png`) });
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1440, height: 900 });
}

test("an operator cancels a run and the Commands tab names her; the audit log has the line", async ({ page }) => {
  await signIn(page, "ola", runPath(workflowId, runId));
  const cancel = page.getByTestId("run-actions").locator('button[data-action="cancel"]');
  await expect(cancel).toBeEnabled({ timeout: 20_000 });
  await cancel.click();
  await page.getByTestId("action-dialog").locator('textarea[name="reason"]').fill("e2e: ola stops it");
  await page.getByTestId("action-submit").click();
  await expect(page.getByTestId("confirmation")).toHaveAttribute("data-phase", "confirmed", { timeout: 20_000 });

  await page.goto(`${app.baseUrl}${runPath(workflowId, runId)}?view=commands`);
  const table = page.getByTestId("commands-table");
  const cancelRow = table.getByRole("row").filter({ hasText: "cancel" });
  await expect(cancelRow.getByTestId("command-sender")).toHaveText("olabreakwater_password", { timeout: 20_000 });
  // The start came over the control plane from the spec itself, with no person: the server named itself.
  const startRow = table.getByRole("row").filter({ hasText: "start" });
  await expect(startRow.getByTestId("command-sender")).toContainText("Standalone Server");
  await expect(startRow.getByTestId("command-sender")).toContainText("no person recorded by the server");

  const lines = readFileSync(auditFile, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(lines.find((line) => line.action === "cancel")).toMatchObject({
    event: "breakwater.action",
    person: "ola",
    role: "operator",
    target: { namespace: "default", workflowId, runId },
    reason: "e2e: ola stops it",
    outcome: "accepted",
    status: 200,
  });
  await shoot(page);
});
