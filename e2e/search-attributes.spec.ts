import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import type { Page } from "@playwright/test";
import { dwGet, dwPost, PASSWORDS, runPath, SESSION_SECRET, startConsole, writeUsersFile } from "./operator-fixtures";
import type { ExtraConsole } from "./operator-fixtures";

/**
 * Search attributes (issue 43): the registry page (an admin adds and deletes, confirmed by reading
 * the registry back; the server's own refusal shown), refused for an operator and a viewer and in
 * read-only mode, a run's values rendered by type on its header, and the runs list filtered by an
 * attribute with the filter kept in the URL. Runs start over the control plane with their
 * attributes; nothing works them, so they stay open and unchanged.
 */

const token = process.env.E2E_TOKEN ?? "bw-secret-token-canary";
const SHOTS = process.env.E2E_SHOTS_DIR ?? join(__dirname, "..", "test-results", "screenshots");
const unique = Date.now().toString(36);
const ATTRS = { E2eRegion: "keyword", E2eDue: "datetime", E2eTags: "keyword_list", E2ePriority: "int" } as const;
const region = `r${unique}`;
let runId: string;
const workflowId = `sa-${unique}-a`;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  for (const [name, type] of Object.entries(ATTRS)) {
    const created = await dwPost("/search-attributes", { name, type });
    expect([201, 409]).toContain(created.status);
  }
  const start = async (id: string, attrs: Record<string, unknown>) => {
    const { status, body } = await dwPost("/workflows", {
      workflow_type: "E2eSearchAttributes",
      workflow_id: id,
      task_queue: `e2e-sa-unworked-${unique}`,
      input: [],
      search_attributes: attrs,
    });
    expect(status, JSON.stringify(body)).toBeLessThan(300);
    return String(body.run_id);
  };
  runId = await start(workflowId, {
    E2eRegion: region,
    E2eDue: "2026-12-07T10:00:00.000000Z",
    E2eTags: ["fragile", "gift"],
    E2ePriority: 1200,
  });
  await start(`sa-${unique}-b`, { E2eRegion: `${region}-other`, E2ePriority: 3 });
});

async function shoot(page: Page, name: string, testId?: string) {
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
      if (testId) await page.getByTestId(testId).scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, `search-attributes-${name}-${label}-${scheme}.png`) });
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1440, height: 900 });
}

const registryPath = "/namespaces/default/search-attributes";

async function confirmDialog(page: Page) {
  const dialog = page.getByTestId("confirm-registry");
  await expect(dialog).toBeVisible();
  await dialog.getByTestId("confirm-registry-change").click();
}

test("an admin adds an attribute, is refused a duplicate in the server's words, and deletes it", async ({
  page,
  baseURL,
}) => {
  const name = `E2eAdded${unique}`;
  await page.goto(`${baseURL}${registryPath}`);
  await expect(page.getByTestId("system-attributes")).toContainText("WorkflowType");
  await expect(page.getByTestId("custom-attributes").getByTestId("attribute-E2eRegion")).toContainText("Keyword");
  const add = page.getByRole("button", { name: "Add attribute" });
  await expect(add).toBeDisabled();
  await page.locator('input[name="attribute-name"]').fill("9bad");
  await expect(page.locator("#attribute-name-hint")).toContainText("Start with a letter");
  await page.locator('input[name="attribute-name"]').fill(name);
  await page.locator('select[name="attribute-type"]').selectOption("int");
  await add.click();
  await expect(page.getByTestId("confirm-registry")).toContainText(`filtered by ${name} as Integer`);
  await shoot(page, "confirm", "confirm-registry");
  await confirmDialog(page);
  await expect(page.getByTestId("registry-outcome")).toHaveText(
    `${name} (Integer) was added; the registry now lists it.`,
  );
  await expect(page.getByTestId(`attribute-${name}`)).toContainText("Integer");
  const listed = await dwGet<{ custom_attributes: Record<string, string> }>("/search-attributes");
  expect(listed.custom_attributes[name]).toBe("int");

  await page.locator('input[name="attribute-name"]').fill(name);
  await page.locator('select[name="attribute-type"]').selectOption("keyword");
  await add.click();
  await confirmDialog(page);
  await expect(page.getByTestId("registry-outcome")).toHaveText(
    `The server refused (attribute_already_exists): A custom search attribute [${name}] already exists in namespace [default].`,
  );
  await shoot(page, "registry", "custom-attributes");

  await page.getByRole("button", { name: `Delete ${name}` }).click();
  await expect(page.getByTestId("confirm-registry")).toContainText(`Delete the search attribute ${name}?`);
  await confirmDialog(page);
  await expect(page.getByTestId("registry-outcome")).toHaveText(
    `${name} was deleted; the registry no longer lists it.`,
  );
  await expect(page.getByTestId(`attribute-${name}`)).toHaveCount(0);
  expect(
    (await dwGet<{ custom_attributes: Record<string, string> }>("/search-attributes")).custom_attributes,
  ).not.toHaveProperty(name);
});

test("the run header renders values by type: a date in the operator's zone, keywords as chips, a number", async ({
  page,
  baseURL,
}) => {
  await page.goto(`${baseURL}${runPath(workflowId, runId)}`);
  const box = page.getByTestId("run-search-attributes");
  await expect(box.locator('[data-attribute="E2eDue"] [data-kind="datetime"]')).toHaveAttribute(
    "datetime",
    "2026-12-07T10:00:00.000Z",
    { timeout: 20_000 },
  );
  await expect(box.locator('[data-attribute="E2eDue"] time')).toContainText("10:00");
  await expect(box.locator('[data-attribute="E2eTags"] [data-kind="chips"] > span')).toHaveText(["fragile", "gift"]);
  await expect(box.locator('[data-attribute="E2eRegion"] [data-kind="chips"]')).toHaveText(region);
  await expect(box.locator('[data-attribute="E2ePriority"] [data-kind="number"]')).toHaveText("1,200");
  await shoot(page, "run-header", "run-search-attributes");
});

test("the runs list filters by an attribute through the form, and the filter stays in the URL", async ({
  page,
  baseURL,
}) => {
  await page.goto(`${baseURL}/namespaces/default/runs`);
  const filter = page.getByTestId("attribute-filter");
  await filter.getByText("Filter by search attribute").click();
  await filter.locator('select[name="attribute"]').selectOption("E2eRegion");
  await filter.locator('input[name="value"]').fill(region);
  await filter.getByRole("button", { name: "Add filter" }).click();
  await expect(page).toHaveURL(new RegExp(`q=E2eRegion\\+%3D\\+%22${region}%22`));
  await expect(page.getByTestId("runs-row")).toHaveCount(1, { timeout: 20_000 });
  await expect(page.getByTestId("runs-row")).toContainText(workflowId);
  await expect(filter.getByRole("button", { name: `Remove filter E2eRegion = "${region}"` })).toBeVisible();

  // A second predicate joins with AND; a value the type refuses is caught before anything is sent.
  await filter.locator('select[name="attribute"]').selectOption("E2ePriority");
  await filter.locator('input[name="value"]').fill("many");
  await filter.getByRole("button", { name: "Add filter" }).click();
  await expect(filter.getByRole("status")).toHaveText("Enter a whole number.");
  await filter.locator('select[name="operator"]').selectOption(">");
  await filter.locator('input[name="value"]').fill("100");
  await filter.getByRole("button", { name: "Add filter" }).click();
  await expect(page).toHaveURL(/E2ePriority\+%3E\+100/);
  await expect(page.getByTestId("runs-row")).toHaveCount(1, { timeout: 20_000 });
  await shoot(page, "runs-filtered", "attribute-filter");

  // The link reopens the same filtered list.
  await page.reload();
  await expect(page.getByTestId("runs-row")).toHaveCount(1, { timeout: 20_000 });
  await expect(page.getByTestId("runs-row")).toContainText(workflowId);
  await filter.getByRole("button", { name: `Remove filter E2ePriority > 100` }).click();
  await expect(page).not.toHaveURL(/E2ePriority/);
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
      BREAKWATER_USERS_FILE: writeUsersFile(mkdtempSync(join(tmpdir(), "bw-sa-"))),
      BREAKWATER_SESSION_SECRET: SESSION_SECRET,
    });
    readOnly = await startConsole({ DW_TOKEN: token, BREAKWATER_READ_ONLY: "1" });
  });

  test.afterAll(async () => {
    await app?.stop();
    await readOnly?.stop();
  });

  for (const [user, role] of [
    ["ola", "operator"],
    ["vic", "viewer"],
  ] as const) {
    test(`${role}: reads the registry, cannot add or delete, and the handler refuses a forged change`, async ({
      page,
    }) => {
      await page.goto(`${app.baseUrl}${registryPath}`);
      await page.getByLabel("User name").fill(user);
      await page.getByLabel("Password").fill(PASSWORDS[user]);
      await page.getByRole("button", { name: "Sign in" }).click();
      await expect(page.getByTestId("custom-attributes").getByTestId("attribute-E2eRegion")).toBeVisible({
        timeout: 20_000,
      });
      const why = `Requires the admin role; you are signed in as ${role}.`;
      await expect(page.locator("#attribute-name-hint")).toHaveText(why);
      await expect(page.getByRole("button", { name: "Delete E2eRegion" })).toBeDisabled();
      await expect(page.getByRole("button", { name: "Delete E2eRegion" })).toHaveAttribute("title", why);
      await page.locator('input[name="attribute-name"]').fill("Forged");
      await expect(page.getByRole("button", { name: "Add attribute" })).toBeDisabled();
      const forged = await page.evaluate(async () => {
        const r = await fetch("/api/actions/search-attributes", {
          method: "POST",
          headers: { "content-type": "application/json", "x-namespace": "default" },
          body: JSON.stringify({ op: "delete", name: "E2eRegion" }),
        });
        return { status: r.status, body: (await r.json()) as { reason?: string } };
      });
      expect(forged).toMatchObject({ status: 403, body: { reason: "role" } });
      expect(
        (await dwGet<{ custom_attributes: Record<string, string> }>("/search-attributes")).custom_attributes,
      ).toHaveProperty("E2eRegion");
      await shoot(page, role, "custom-attributes");
    });
  }

  test("read-only mode: the registry is shown and every change refused with the reason", async ({ page }) => {
    await page.goto(`${readOnly.baseUrl}${registryPath}`);
    const why = "Read-only mode: the registry cannot be changed from this console.";
    await expect(page.locator("#attribute-name-hint")).toHaveText(why, { timeout: 20_000 });
    await expect(page.getByRole("button", { name: "Delete E2eRegion" })).toBeDisabled();
    const forged = await page.evaluate(async () => {
      const r = await fetch("/api/actions/search-attributes", {
        method: "POST",
        headers: { "content-type": "application/json", "x-namespace": "default" },
        body: JSON.stringify({ op: "create", name: "Forged", type: "keyword" }),
      });
      return { status: r.status, body: (await r.json()) as { reason?: string } };
    });
    expect(forged).toMatchObject({ status: 403, body: { reason: "read_only" } });
  });
});
