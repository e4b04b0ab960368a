import { expect, test } from "@playwright/test";
import type { Locator, Page } from "@playwright/test";
import { snapBothThemes, waitFor } from "./operator-fixtures";
import { engine, engineVariables, openIncident, setEngineVariable, startInstance } from "./kikwiflow-engine";

/**
 * Editing a Kikwiflow variable against the real engine (issue 38 item 9, the seed guide's "fix the
 * data, then retry"): a type-aware input checked before sending, old → new confirmed by the
 * operator, the outcome read back from the engine, a change made meanwhile not overwritten, a value
 * the engine refuses said as such, and hostile strings shown as text.
 */
test.describe.configure({ timeout: 120_000 });

const variableRow = (page: Page, name: string): Locator =>
  page
    .getByTestId("kikwiflow-variables")
    .getByTestId("kikwiflow-variable")
    .filter({ has: page.locator("dt", { hasText: new RegExp(`^${name}`) }) });

/** Opens the editor of `name` and types `text` into its value input. */
async function editTo(page: Page, name: string, text: string): Promise<Locator> {
  await variableRow(page, name).getByTestId("kikwiflow-variable-edit").click();
  const dialog = page.getByTestId("kikwiflow-variable-dialog");
  await dialog.getByTestId("kikwiflow-variable-input").fill(text);
  return dialog;
}

/** Editor screenshots in both themes at the desk and on a phone. */
async function snapBothSizes(page: Page, name: string) {
  await snapBothThemes(page, `${name}-desk`);
  await page.setViewportSize({ width: 390, height: 844 });
  await snapBothThemes(page, `${name}-phone`);
  await page.setViewportSize({ width: 1440, height: 900 });
}

test("fix the data, then retry: failTimes edited as a number, confirmed from the engine, the retried task succeeds", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const hostile = '<img src=x onerror="window.__xss=1"><b>bold</b> “quoted” & \u202eevil';
  const started = await startInstance("kiki-flaky-linear", `e2e-vars-fix-${Date.now()}`, {
    failTimes: 10,
    note: hostile,
  });
  // maxRetries 4 against failTimes 10: the task runs out of retries and opens a FAILED_JOB incident.
  await openIncident(started.id);
  await page.goto(`/kikwiflow/instances/${started.id}`);

  // A hostile value is text: its JSON shown as is, no element made of it, no script run.
  // The right-to-left override is shown as its escape: it cannot turn "evil" into "live" on screen.
  await expect(variableRow(page, "note").getByTestId("kikwiflow-variable-value")).toHaveText(
    JSON.stringify(hostile).replace("\u202e", "\\u202e"),
  );
  await expect(page.getByTestId("kikwiflow-variables").locator("img, b")).toHaveCount(0);

  const dialog = await editTo(page, "failTimes", "ten");
  await expect(dialog.getByTestId("kikwiflow-variable-kind")).toHaveValue("number");
  await expect(dialog.getByTestId("kikwiflow-variable-current")).toHaveText("10");
  await dialog.getByTestId("kikwiflow-variable-review").click();
  await expect(dialog.getByRole("alert")).toContainText("Not a number");
  await dialog.getByTestId("kikwiflow-variable-input").fill("10");
  await dialog.getByTestId("kikwiflow-variable-review").click();
  await expect(dialog.getByRole("alert")).toHaveText("This is the value the engine holds: nothing to change.");
  await dialog.getByTestId("kikwiflow-variable-input").fill("0");
  await snapBothSizes(page, "kikwiflow-variable-editor");

  await dialog.getByTestId("kikwiflow-variable-review").click();
  const confirm = page.getByTestId("kikwiflow-variable-confirm");
  await expect(confirm.getByTestId("kikwiflow-variable-old")).toHaveText("10");
  await expect(confirm.getByTestId("kikwiflow-variable-new")).toHaveText("0");
  await snapBothSizes(page, "kikwiflow-variable-confirm");
  const sent = Date.now();
  await confirm.getByTestId("kikwiflow-variable-submit").click();
  const outcome = page.getByTestId("kikwiflow-variable-outcome");
  await expect(outcome).toHaveAttribute("data-phase", "confirmed");
  console.info(`variable edit: click → confirmed on screen in ${Date.now() - sent} ms`);
  await expect(outcome).toContainText("“failTimes” is now 0, confirmed from a read of the instance in the engine.");
  expect((await engineVariables(started.id)).failTimes).toBe(0);
  await expect(variableRow(page, "failTimes").getByTestId("kikwiflow-variable-value")).toHaveText("0");
  await snapBothSizes(page, "kikwiflow-variable-confirmed");

  // The retry now runs with the fixed data: the task passes and the instance waits at REVIEW.
  await page.getByTestId("kikwiflow-incident-row").filter({ hasText: "OPEN" }).getByTestId("kikwiflow-retry").click();
  await expect(page.getByTestId("kikwiflow-retry-outcome")).not.toHaveAttribute("data-phase", "failed_again");
  await waitFor("the instance at REVIEW", async () => {
    const response = await fetch(`${engine()}/process-instances/${started.id}`);
    const instance = response.ok ? ((await response.json()) as { activeNodes?: Record<string, number> }) : null;
    return instance?.activeNodes?.REVIEW === 1;
  });
  await expect(page.getByTestId("kikwiflow-incident-row").filter({ hasText: "OPEN" })).toHaveCount(0);
  await expect(page.getByTestId("kikwiflow-incident-row").filter({ hasText: "RESOLVED" })).toHaveCount(1);
  expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
});

test("a change made meanwhile is not overwritten, a value the engine refuses is said so, a type can change", async ({
  page,
}) => {
  const started = await startInstance("kiki-await-review", `e2e-vars-race-${Date.now()}`, {
    limit: 5,
    payload: { ok: true },
  });
  await page.goto(`/kikwiflow/instances/${started.id}`);

  // Another hand sets limit to 7 while this operator reviews 5 → 9.
  const dialog = await editTo(page, "limit", "9");
  await dialog.getByTestId("kikwiflow-variable-review").click();
  await setEngineVariable(started.id, "limit", 7);
  await page.getByTestId("kikwiflow-variable-submit").click();
  const outcome = page.getByTestId("kikwiflow-variable-outcome");
  await expect(outcome).toHaveAttribute("data-phase", "conflict");
  await expect(outcome).toHaveText(
    "Not changed: “limit” changed since you opened it; the engine now holds 7. Look at it and edit again.",
  );
  expect((await engineVariables(started.id)).limit).toBe(7);
  await expect(variableRow(page, "limit").getByTestId("kikwiflow-variable-value")).toHaveText("7");

  // Jackson in the engine refuses a document nested past 1,000 levels: its 400, in words.
  const deep = "[".repeat(1_000) + "]".repeat(1_000);
  const json = await editTo(page, "payload", deep);
  await expect(json.getByTestId("kikwiflow-variable-kind")).toHaveValue("json");
  await json.getByTestId("kikwiflow-variable-review").click();
  await page.getByTestId("kikwiflow-variable-submit").click();
  await expect(outcome).toHaveAttribute("data-phase", "engine_refused");
  await expect(outcome).toContainText("The engine refused this value (HTTP 400");
  await expect(outcome).toContainText("The old value is still there.");
  expect((await engineVariables(started.id)).payload).toEqual({ ok: true });

  // The usual bad data: a number kept as text. Edited as a string, "7" reaches the engine as text.
  await variableRow(page, "limit").getByTestId("kikwiflow-variable-edit").click();
  const typed = page.getByTestId("kikwiflow-variable-dialog");
  await typed.getByTestId("kikwiflow-variable-kind").selectOption("string");
  await expect(typed.getByTestId("kikwiflow-variable-input")).toHaveValue("7");
  await typed.getByTestId("kikwiflow-variable-review").click();
  await expect(page.getByTestId("kikwiflow-variable-new")).toHaveText('"7"');
  await page.getByTestId("kikwiflow-variable-submit").click();
  await expect(outcome).toHaveAttribute("data-phase", "confirmed");
  expect((await engineVariables(started.id)).limit).toBe("7");
});
