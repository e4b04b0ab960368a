import { mkdtempSync } from "node:fs";
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
 * The run page's action buttons per signed-in person (BREAKWATER_AUTH=password): a viewer sees every
 * action disabled with the role it needs, before any click; an operator and an admin see them as
 * the run's state allows. Every person's token can read (DW_TOKEN; admins DW_ADMIN_TOKEN), so the
 * only difference between them is their console role.
 */

const token = process.env.E2E_TOKEN ?? "bw-secret-token-canary";
const ACTIONS = ["repair", "cancel", "terminate", "signal", "archive", "startAgain"] as const;

let app: ExtraConsole;
let workflowId: string;
let runId: string;

withOpsWorker();
test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(120_000);
  const dir = mkdtempSync(join(tmpdir(), "bw-action-roles-"));
  app = await startConsole({
    DW_TOKEN: token,
    DW_ADMIN_TOKEN: token,
    BREAKWATER_AUTH: "password",
    BREAKWATER_USERS_FILE: writeUsersFile(dir),
    BREAKWATER_SESSION_SECRET: SESSION_SECRET,
  });
  // An open run parked on a ten-minute timer: cancel, terminate and signal apply; repair is not needed.
  workflowId = `ops-roles-${Date.now().toString(36)}`;
  runId = await startRun("OpsLongWaitWorkflow", workflowId, []);
  await waitFor(
    `${workflowId} to park on its timer`,
    async () => (await liveness(workflowId, runId)) === "timer_scheduled",
  );
});

test.afterAll(async () => {
  await app?.stop();
});

async function openRunAs(page: Page, user: keyof typeof PASSWORDS): Promise<void> {
  await page.goto(`${app.baseUrl}${runPath(workflowId, runId)}`);
  await expect(page).toHaveURL(/\/login(\?|$)/);
  await page.getByLabel("User name").fill(user);
  await page.getByLabel("Password").fill(PASSWORDS[user]);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("account-status")).toContainText(`Signed in as ${user}`);
  // The context has loaded once no button says it is still checking permissions.
  await expect(page.getByTestId("action-reasons")).not.toContainText("Checking", { timeout: 20_000 });
}

const button = (page: Page, action: string) =>
  page.getByTestId("run-actions").locator(`button[data-action="${action}"]`);
const reason = (page: Page, action: string) =>
  page.getByTestId("action-reasons").locator(`[data-reason-for~="${action}"]`);

test("a viewer sees every action disabled with the role it needs", async ({ page }) => {
  await openRunAs(page, "vic");
  const why = "Requires the operator role; you are signed in as viewer.";
  for (const action of ACTIONS) {
    await expect(button(page, action), action).toBeDisabled();
    await expect(button(page, action), action).toHaveAttribute("title", why);
    await expect(reason(page, action), action).toContainText(why);
  }
});

for (const user of ["ola", "ada"] as const) {
  test(`${user === "ola" ? "an operator" : "an admin"} sees the actions the run's state allows`, async ({ page }) => {
    await openRunAs(page, user);
    for (const action of ["cancel", "terminate", "signal"]) {
      await expect(button(page, action), action).toBeEnabled();
      await expect(reason(page, action), action).toHaveCount(0);
    }
    for (const action of ["repair", "archive", "startAgain"]) await expect(button(page, action), action).toBeDisabled();
    await expect(reason(page, "repair")).toContainText("Repair is not needed");
    await expect(reason(page, "archive")).toContainText("Only closed runs can be archived.");
    await expect(reason(page, "startAgain")).toContainText("still open");
    await expect(page.getByTestId("action-reasons")).not.toContainText("Requires the");
    // What is enabled works: the dialog opens for the person.
    await button(page, "signal").click();
    await expect(page.getByTestId("action-dialog")).toBeVisible();
  });
}

test("the System screen's admin passes are disabled for a viewer and an operator, with the role they need", async ({
  page,
}) => {
  const cases = [
    { user: "vic", why: "Requires the admin role; you are signed in as viewer." },
    { user: "ola", why: "Requires the admin role; you are signed in as operator." },
  ] as const;
  for (const { user, why } of cases) {
    await page.context().clearCookies();
    await openRunAs(page, user);
    await page.goto(`${app.baseUrl}/namespaces/default/system`);
    for (const pass of ["repair-pass", "timeout-pass"]) {
      await expect(page.getByTestId(pass), `${user} ${pass}`).toBeDisabled();
      await expect(page.getByTestId(pass), `${user} ${pass}`).toHaveAttribute("title", why);
    }
  }
  await page.context().clearCookies();
  await openRunAs(page, "ada");
  await page.goto(`${app.baseUrl}/namespaces/default/system`);
  for (const pass of ["repair-pass", "timeout-pass"]) await expect(page.getByTestId(pass)).toBeEnabled();
});
