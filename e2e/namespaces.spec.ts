import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import type { Page } from "@playwright/test";
import { hydrated } from "./page-ready";
import { dwBaseUrl, dwGet, PASSWORDS, SESSION_SECRET, startConsole, writeUsersFile } from "./operator-fixtures";
import type { ExtraConsole } from "./operator-fixtures";
import { retentionSeed } from "./retention-seed";

/**
 * Namespaces and retention (issue 43): an admin creates, edits and deletes a namespace (a namespace
 * with a run is deleted with it, as the real server does, after the name is typed back; the page's
 * own namespace cannot be deleted from itself), each change confirmed by the namespace list read
 * back; an operator, a viewer and a read-only console are refused before sending; the System page's
 * retention pass prunes the run e2e/retention-seed.ts closed 45 days ago and reads the status back.
 */

const token = process.env.E2E_TOKEN ?? "bw-secret-token-canary";
const SHOTS = process.env.E2E_SHOTS_DIR ?? join(__dirname, "..", "test-results", "screenshots");
const NS = `e2e-team-${Date.now().toString(36)}`;
const listPath = "/namespaces/default/namespaces";

test.describe.configure({ mode: "serial" });

test.beforeAll(() => {
  mkdirSync(SHOTS, { recursive: true });
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
      await page.screenshot({ path: join(SHOTS, `namespaces-${name}-${label}-${scheme}.png`), fullPage: true });
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1440, height: 900 });
}

const row = (page: Page, name: string) => page.getByTestId(`namespace-${name}`);

async function startRunIn(namespace: string, workflowId: string): Promise<void> {
  const response = await fetch(`${dwBaseUrl()}/api/workflows`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${token}`,
      "Content-Type": "application/json",
      Accept: "application/json",
      "X-Namespace": namespace,
      "X-Durable-Workflow-Control-Plane-Version": "2",
    },
    body: JSON.stringify({
      workflow_type: "E2eNamespaceRun",
      workflow_id: workflowId,
      task_queue: "unworked",
      input: [],
    }),
  });
  expect(response.status, await response.clone().text()).toBe(201);
}

test("an admin creates a namespace, with the form refusing a bad name first", async ({ page }) => {
  await page.goto(listPath);
  await hydrated(page);
  await expect(row(page, "default")).toContainText("this page");
  await expect(row(page, "default").getByRole("button", { name: "Delete namespace default" })).toBeDisabled();
  await expect(row(page, "default")).toContainText("switch to another one to delete it");

  await page.getByTestId("namespace-create").click();
  const form = page.getByTestId("namespace-form");
  await form.getByLabel("Name").fill("no spaces here");
  await form.getByTestId("namespace-submit").click();
  await expect(form.getByRole("alert")).toHaveText("Only letters, digits, dots, underscores and hyphens.");
  await form.getByLabel("Name").fill(NS);
  await form.getByLabel("Description").fill("Payments team, e2e");
  await form.getByLabel("Retention (days)").fill("400");
  await form.getByTestId("namespace-submit").click();
  await expect(form.getByRole("alert")).toContainText("from 1 to 365");
  await form.getByLabel("Retention (days)").fill("10");
  await shoot(page, "create-form");
  await form.getByTestId("namespace-submit").click();

  await expect(page.getByTestId("namespace-outcome")).toContainText(
    `Created ${NS}; the namespace list read back shows it.`,
  );
  await expect(row(page, NS).getByTestId("namespace-retention")).toHaveText("10 days");
  await expect(row(page, NS)).toContainText("Payments team, e2e");
  await expect(row(page, NS).getByTestId("namespace-storage")).toHaveText("none (payloads inline)");
  // Durable: the server describes it so.
  expect(await dwGet(`/namespaces/${NS}`)).toMatchObject({ name: NS, retention_days: 10, status: "active" });
  await shoot(page, "list");
});

/** axe finds nothing serious or critical on the page, its form and its delete dialog, in either theme. */
test("the page and its dialogs have no serious or critical axe violations", async ({ page, baseURL }) => {
  const blocking = async (what: string) => {
    const results = await new AxeBuilder({ page }).analyze();
    const found = results.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
    expect(found, what).toEqual([]);
  };
  for (const theme of ["light", "dark"] as const) {
    await page.context().addCookies([{ name: "bw-theme", value: theme, url: baseURL ?? "" }]);
    await page.emulateMedia({ colorScheme: theme });
    await page.goto(listPath);
    await hydrated(page);
    await expect(row(page, NS)).toBeVisible();
    await blocking(`namespaces (${theme})`);
    await row(page, NS)
      .getByRole("button", { name: `Edit namespace ${NS}` })
      .click();
    await expect(page.getByTestId("namespace-form")).toBeVisible();
    await blocking(`edit form (${theme})`);
    await page.keyboard.press("Escape");
    await row(page, NS)
      .getByRole("button", { name: `Delete namespace ${NS}` })
      .click();
    await expect(page.getByTestId("namespace-delete")).toBeVisible();
    await blocking(`delete dialog (${theme})`);
    await page.keyboard.press("Escape");
    await page.goto("/namespaces/default/system");
    await expect(page.getByTestId("retention-days")).toBeVisible();
    await blocking(`system with retention (${theme})`);
  }
});

test("an admin edits the retention; the description is kept", async ({ page }) => {
  await page.goto(listPath);
  await hydrated(page);
  await row(page, NS)
    .getByRole("button", { name: `Edit namespace ${NS}` })
    .click();
  const form = page.getByTestId("namespace-form");
  await expect(form.getByLabel("Description")).toHaveValue("Payments team, e2e");
  await form.getByLabel("Retention (days)").fill("3");
  await form.getByTestId("namespace-submit").click();
  await expect(page.getByTestId("namespace-outcome")).toContainText(`Saved ${NS}`);
  await expect(row(page, NS).getByTestId("namespace-retention")).toHaveText("3 days");
  expect(await dwGet(`/namespaces/${NS}`)).toMatchObject({ retention_days: 3, description: "Payments team, e2e" });
});

test("a namespace with a run is deleted with it, once its name is typed back", async ({ page }) => {
  await startRunIn(NS, `${NS}-order-1`);
  await page.goto(listPath);
  await hydrated(page);
  await row(page, NS)
    .getByRole("button", { name: `Delete namespace ${NS}` })
    .click();
  const dialog = page.getByTestId("namespace-delete");
  await expect(dialog).toContainText(`The server deletes every run of ${NS}`);
  const confirm = dialog.getByTestId("namespace-delete-confirm");
  await expect(confirm).toBeDisabled();
  await dialog.getByLabel(`Type ${NS} to confirm`).fill(NS.slice(0, -1));
  await expect(confirm).toBeDisabled();
  await dialog.getByLabel(`Type ${NS} to confirm`).fill(NS);
  await shoot(page, "delete-dialog");
  await confirm.click();

  await expect(page.getByTestId("namespace-outcome")).toContainText(`Deleted ${NS} with everything it held`);
  await expect(page.getByTestId("namespace-deleted-counts")).toContainText("workflow_runs: 1");
  await expect(row(page, NS)).toHaveCount(0);
  const listed = await dwGet<{ namespaces: { name: string }[] }>("/namespaces");
  expect(listed.namespaces.map((n) => n.name)).not.toContain(NS);
  await shoot(page, "deleted");
});

test("the System page's retention pass prunes the run closed 45 days ago and reads the status back", async ({
  page,
}) => {
  const seeded = retentionSeed();
  expect(seeded, "e2e/retention-seed.ts ran before the server (playwright.config.ts)").not.toBeNull();
  const before = await dwGet<{ expired_run_ids: string[] }>("/system/retention");
  expect(before.expired_run_ids).toContain(seeded?.runId);

  await page.goto("/namespaces/default/system");
  await hydrated(page);
  const panel = page.getByTestId("system-retention");
  await expect(panel.getByTestId("retention-days")).toHaveText("30 days");
  await expect(panel.getByTestId("retention-expired")).toHaveText(String(before.expired_run_ids.length));
  await panel.getByTestId("retention-pass").click();
  const dialog = panel.getByTestId("confirm-pass-dialog");
  await expect(dialog).toContainText("Run the retention pass in default?");
  await expect(dialog).toContainText("Only this namespace.");
  await dialog.getByTestId("confirm-pass").click();

  const result = panel.getByTestId("retention-pass-result");
  await expect(result).toContainText(`${before.expired_run_ids.length} pruned`);
  await expect(result).toContainText(`${seeded?.runId}: pruned`);
  await expect(panel.getByTestId("retention-confirmation")).toContainText("Read back:");
  await expect(panel.getByTestId("retention-confirmation")).not.toContainText("still listed");
  await expect(panel.getByTestId("retention-expired")).toHaveText("0");
  expect((await dwGet<{ expired_run_count: number }>("/system/retention")).expired_run_count).toBe(0);
  await shoot(page, "retention");
});

test.describe("refusals before sending", () => {
  let readOnly: ExtraConsole | undefined;
  let withPeople: ExtraConsole | undefined;

  test.afterAll(async () => {
    await readOnly?.stop();
    await withPeople?.stop();
  });

  test("a read-only console refuses every namespace change and the retention pass", async ({ page }) => {
    test.setTimeout(120_000);
    readOnly = await startConsole({ BREAKWATER_READ_ONLY: "1" });
    await page.goto(`${readOnly.baseUrl}${listPath}`);
    await hydrated(page);
    await expect(page.getByTestId("namespace-refusal")).toHaveText(
      "The console is in read-only mode; namespace changes are refused.",
    );
    await expect(page.getByTestId("namespace-create")).toBeDisabled();
    await expect(row(page, "default").getByRole("button", { name: "Edit namespace default" })).toBeDisabled();
    await page.goto(`${readOnly.baseUrl}/namespaces/default/system`);
    await expect(page.getByTestId("retention-pass")).toBeDisabled();
    // The handler refuses too, whatever the page shows.
    const direct = await page.request.post(`${readOnly.baseUrl}/api/actions/namespaces`, {
      headers: { origin: readOnly.baseUrl, "x-namespace": "default" },
      data: { op: "create", name: "sneaky" },
    });
    expect(direct.status()).toBe(403);
    expect(await direct.json()).toMatchObject({ reason: "read_only" });
  });

  test("an operator and a viewer see the admin's actions disabled with the role they need", async ({ page }) => {
    test.setTimeout(120_000);
    const dir = mkdtempSync(join(tmpdir(), "bw-namespaces-"));
    withPeople = await startConsole({
      DW_TOKEN: token,
      DW_ADMIN_TOKEN: token,
      BREAKWATER_AUTH: "password",
      BREAKWATER_USERS_FILE: writeUsersFile(dir),
      BREAKWATER_SESSION_SECRET: SESSION_SECRET,
    });
    for (const [user, role] of [
      ["ola", "operator"],
      ["vic", "viewer"],
    ] as const) {
      await page.context().clearCookies();
      await page.goto(`${withPeople.baseUrl}${listPath}`);
      await expect(page).toHaveURL(/\/login(\?|$)/);
      await page.getByLabel("User name").fill(user);
      await page.getByLabel("Password").fill(PASSWORDS[user]);
      await page.getByRole("button", { name: "Sign in" }).click();
      await expect(page.getByTestId("account-status")).toContainText(`Signed in as ${user}`);
      await page.goto(`${withPeople.baseUrl}${listPath}`);
      const why = `Requires the admin role; you are signed in as ${role}.`;
      await expect(page.getByTestId("namespace-refusal")).toHaveText(why);
      await expect(page.getByTestId("namespace-create")).toBeDisabled();
      await expect(page.getByTestId("namespace-create")).toHaveAttribute("title", why);
      await expect(row(page, "default")).toBeVisible();
      await shoot(page, `refused-${role}`);
    }
  });
});
