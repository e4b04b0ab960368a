import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import type { Page } from "@playwright/test";
import { PASSWORDS, SESSION_SECRET, startConsole, writeUsersFile } from "./operator-fixtures";
import type { ExtraConsole } from "./operator-fixtures";
import { engineVariables, openIncident, startInstance } from "./kikwiflow-engine";
import type { Incident, Started } from "./kikwiflow-engine";

/**
 * Kikwiflow's commands (bulk retry of an attention group, Cancel instance, editing a variable) refused, with the reason,
 * in read-only mode and for a viewer: on screen before any click, and by the route when posted
 * directly. Each case runs its own console on the shared real engine.
 */
test.describe.configure({ mode: "serial", timeout: 120_000 });

let fatal: Started;
let incident: Incident;
let waiting: Started;

test.beforeAll(async () => {
  const stamp = Date.now();
  fatal = await startInstance("kiki-fatal", `e2e-roles-fatal-${stamp}`);
  incident = await openIncident(fatal.id);
  waiting = await startInstance("kiki-await-review", `e2e-roles-wait-${stamp}`, { limit: 5 });
});

const kikwiflowEnv = () => ({ KIKWIFLOW_URL: process.env.E2E_KIKWIFLOW_URL ?? "" });

/** The attention group's bulk retry and the instance's cancel, each disabled with its reason. */
async function expectRefusedOnScreen(
  page: Page,
  baseUrl: string,
  why: { bulk: string; cancel: string; variables: string },
): Promise<void> {
  await page.goto(`${baseUrl}/kikwiflow/attention`);
  const group = page
    .getByTestId("kikwiflow-attention-groups")
    .locator("tbody tr", { hasText: "LedgerCorruptedException" })
    .filter({ hasText: "kiki-fatal v1" });
  await group.getByTestId("kikwiflow-attention-retry-all").click();
  const panel = page.getByTestId("kikwiflow-bulk-retry");
  await expect(panel).toHaveAttribute("data-stage", "planned");
  await expect(panel.getByTestId("kikwiflow-bulk-retry-planned")).toContainText(fatal.id);
  await panel.getByTestId("kikwiflow-bulk-retry-fatal-consent").check();
  await expect(panel.getByTestId("kikwiflow-bulk-retry-execute")).toBeDisabled();
  await expect(panel.getByTestId("kikwiflow-bulk-retry-refused")).toHaveText(why.bulk);

  await page.goto(`${baseUrl}/kikwiflow/instances/${waiting.id}`);
  await expect(page.getByTestId("kikwiflow-cancel-reason")).toHaveText(why.cancel, { timeout: 20_000 });
  await expect(page.getByTestId("kikwiflow-cancel-open")).toBeDisabled();
  await expect(page.getByTestId("kikwiflow-variables-reason")).toHaveText(why.variables);
  await expect(page.getByTestId("kikwiflow-variable-edit")).toBeDisabled();
}

/** Direct POSTs with the page's own cookies and origin, then a read: was the instance left alone? */
async function postDirectly(page: Page, baseUrl: string) {
  const headers = { Origin: baseUrl };
  const retried = await page.request.post(`${baseUrl}/api/kikwiflow/incidents/${incident.id}/retry`, { headers });
  const cancelled = await page.request.post(`${baseUrl}/api/kikwiflow/instances/${waiting.id}/cancel`, {
    headers,
    data: { reason: "should be refused" },
  });
  const edited = await page.request.post(`${baseUrl}/api/kikwiflow/instances/${waiting.id}/variables`, {
    headers,
    data: { name: "limit", value: 9, expected: 5 },
  });
  const after = await page.request.get(`${baseUrl}/api/kikwiflow/instances/${waiting.id}`);
  return {
    retry: { status: retried.status(), body: (await retried.json()) as unknown },
    cancel: { status: cancelled.status(), body: (await cancelled.json()) as unknown },
    edit: { status: edited.status(), body: (await edited.json()) as unknown },
    instanceAfter: after.status(),
  };
}

test("read-only mode: bulk retry, cancel and variable edit disabled with the reason, and refused server-side", async ({
  page,
}) => {
  let app: ExtraConsole | undefined;
  try {
    app = await startConsole({ ...kikwiflowEnv(), BREAKWATER_READ_ONLY: "1" });
    const why = "This console is in read-only mode: actions are disabled by its operator.";
    await expectRefusedOnScreen(page, app.baseUrl, { bulk: why, cancel: why, variables: why });
    const direct = await postDirectly(page, app.baseUrl);
    expect(direct.retry).toMatchObject({ status: 403, body: { reason: "read_only" } });
    expect(direct.cancel).toMatchObject({ status: 403, body: { reason: "read_only" } });
    expect(direct.edit).toMatchObject({ status: 403, body: { reason: "read_only" } });
    expect((await engineVariables(waiting.id)).limit).toBe(5);
    expect(direct.instanceAfter).toBe(200);
  } finally {
    await app?.stop();
  }
});

test("a viewer: bulk retry, cancel and variable edit disabled with the role they need, and refused server-side", async ({
  page,
}) => {
  let app: ExtraConsole | undefined;
  try {
    app = await startConsole({
      ...kikwiflowEnv(),
      BREAKWATER_AUTH: "password",
      BREAKWATER_USERS_FILE: writeUsersFile(mkdtempSync(join(tmpdir(), "bw-kiki-roles-"))),
      BREAKWATER_SESSION_SECRET: SESSION_SECRET,
    });
    await page.goto(`${app.baseUrl}/kikwiflow`);
    await expect(page).toHaveURL(/\/login(\?|$)/);
    await page.getByLabel("User name").fill("vic");
    await page.getByLabel("Password").fill(PASSWORDS.vic);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByTestId("account-status")).toContainText("Signed in as vic");
    await expectRefusedOnScreen(page, app.baseUrl, {
      bulk: "Retrying incidents needs the operator role.",
      cancel: "Cancelling an instance needs the operator role.",
      variables: "Changing a variable needs the operator role.",
    });
    const direct = await postDirectly(page, app.baseUrl);
    expect(direct.retry).toMatchObject({ status: 403, body: { reason: "role" } });
    expect(direct.cancel).toMatchObject({ status: 403, body: { reason: "role" } });
    expect(direct.edit).toMatchObject({ status: 403, body: { reason: "role" } });
    expect((await engineVariables(waiting.id)).limit).toBe(5);
    expect(direct.instanceAfter).toBe(200);
  } finally {
    await app?.stop();
  }
});
