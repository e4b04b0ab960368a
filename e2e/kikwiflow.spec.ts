import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import type { Page } from "@playwright/test";
import { snapBothThemes } from "./operator-fixtures";
import type { Incident } from "./kikwiflow-engine";
import { engine, openIncident, startInstance } from "./kikwiflow-engine";

/**
 * The Kikwiflow section against the real engine (engines/kikwiflow-host, started by
 * playwright.config.ts): instances are started through the engine's own REST, then the console lists
 * them, shows the fatal incident with its category and marker, retries it through the guarded route
 * and says "confirmed" only from the engine's re-read.
 */

// Six full-page screenshots and the engine's own timing on a shared 2-core machine.
test.describe.configure({ timeout: 90_000 });

/** axe-core in both themes: no serious or critical violation, each one spelled out on failure. */
async function expectAccessible(page: Page, screen: string) {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForFunction(
      (dark) => document.documentElement.classList.contains("dark") === dark,
      scheme === "dark",
    );
    // Colours fade between themes (transition-colors): axe must read them settled, not mid-fade.
    // Only transitions end; an infinite animation (a pulse) never would.
    await page.evaluate(() =>
      Promise.all(
        document
          .getAnimations()
          .filter((animation) => animation instanceof CSSTransition)
          .map((animation) => animation.finished.catch(() => undefined)),
      ),
    );
    const results = await new AxeBuilder({ page }).analyze();
    const blocking = results.violations
      .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
      .map((violation) => ({ id: violation.id, targets: violation.nodes.map((node) => node.target.join(" ")) }));
    expect(blocking, `${screen} (${scheme})`).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: "light" });
}

test("list → fatal incident with category and marker → retry confirmed from the engine", async ({ page, baseURL }) => {
  const businessKey = `e2e-ledger-${Date.now()}`;
  const fatal = await startInstance("kiki-fatal", businessKey);
  const incident = await openIncident(fatal.id);
  expect(incident.type).toBe("FAILED_JOB");

  await page.goto("/namespaces/default");
  await page.getByTestId("nav-kikwiflow").click();
  await expect(page).toHaveURL(/\/kikwiflow$/);
  await page.getByRole("group", { name: "Instance status" }).getByRole("button", { name: "ACTIVE" }).click();
  await expect(page).toHaveURL(/\/kikwiflow\?status=ACTIVE$/);
  const row = page.getByTestId("kikwiflow-instance-row").filter({ hasText: businessKey });
  await expect(row).toContainText("ACTIVE");
  await expect(row).toContainText("POST_LEDGER");
  // Its incident is seen from the list: a marker with the open count (issue 38 item 2).
  await expect(row.getByTestId("kikwiflow-instance-incidents")).toHaveText("1 open incident");

  // The open-incidents filter and a search by business key find it without paging, both in the URL.
  await page
    .getByRole("group", { name: "Instance status" })
    .getByRole("button", { name: "With open incidents" })
    .click();
  await page.getByTestId("kikwiflow-instance-search").fill(businessKey);
  await page.getByRole("button", { name: "Search", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/kikwiflow\\?status=incidents&q=${businessKey}$`));
  await expect(page.getByTestId("kikwiflow-instance-walk")).toContainText(/Read \d+ of \d+ active instances?\./);
  await expect(page.getByTestId("kikwiflow-instance-row")).toHaveCount(1);
  await page.reload();
  await expect(page.getByTestId("kikwiflow-instance-row")).toHaveCount(1);
  await expect(page.getByTestId("kikwiflow-instance-row")).toContainText(businessKey);
  await snapBothThemes(page, "kikwiflow-list");
  await expectAccessible(page, "Kikwiflow instances");

  await row.getByTestId("kikwiflow-instance-link").click();
  await expect(page.getByRole("heading", { name: fatal.id })).toBeVisible();
  await expect(page.getByTestId("kikwiflow-instance-header")).toContainText(businessKey);
  const task = page.getByTestId("kikwiflow-task");
  await expect(task.getByTestId("kikwiflow-task-status")).toHaveText("ERROR");
  await expect(task.getByTestId("kikwiflow-task-policy")).toContainText("LINEAR, at most 5 executions");
  await expect(task.getByTestId("kikwiflow-task-backoff")).toHaveText("backoff 0.3, 0.3, 0.3, 0.3 s");
  await expect(task.getByTestId("kikwiflow-task-error")).not.toBeEmpty();

  const incidentRow = page.getByTestId("kikwiflow-incident-row").filter({ hasText: "OPEN" });
  await expect(incidentRow.getByTestId("kikwiflow-incident-category")).toContainText("FAILED_JOB");
  await expect(incidentRow.getByTestId("kikwiflow-incident-marker")).toHaveText("fatal");
  await expect(page.getByTestId("kikwiflow-trail")).toContainText("The engine recorded no retry for this instance.");
  await snapBothThemes(page, "kikwiflow-instance");
  await expectAccessible(page, "Kikwiflow instance");

  await expect(incidentRow.getByTestId("kikwiflow-incident-exception")).toHaveText("LedgerCorruptedException");

  await incidentRow.getByTestId("kikwiflow-retry").click();
  // The engine re-ran the restored task at once and failed it fatally again: the confirmation gives
  // way to what the engine shows now, the new incident (issue 38 item 1).
  const outcome = page.getByTestId("kikwiflow-retry-outcome");
  await expect(outcome).toHaveAttribute("data-phase", "failed_again");
  await expect(outcome).toContainText("The retry was confirmed, but the task failed again at");
  await expect(outcome).toContainText("Ledger entry checksum mismatch");
  await expect(outcome).toContainText("is OPEN");
  const rows = page.getByTestId("kikwiflow-incident-row");
  await expect(rows.filter({ hasText: "RESOLVED" })).toHaveCount(1);
  // Open first, and the new one still fatal from the engine's outbox; each trace names its incident.
  await expect(rows.first()).toContainText("OPEN");
  await expect(rows.first().getByTestId("kikwiflow-incident-marker")).toHaveText("fatal");
  await expect(page.getByTestId("kikwiflow-stack-trace").first().locator("summary")).toContainText(
    "OPEN · POST_LEDGER · LedgerCorruptedException",
  );
  // The task card counts executions as the engine does: 2 so far, retries set back by the retry.
  await expect(task.getByTestId("kikwiflow-task-executions")).toHaveText("2 executions so far");
  await expect(task.getByTestId("kikwiflow-task-coming")).toContainText("after a retry: waits of 0.3, 0.3, 0.3, 0.3 s");
  await snapBothThemes(page, "kikwiflow-retried");

  // On a phone the Retry button of the open incident is on screen (issue 38 item 10).
  await page.setViewportSize({ width: 390, height: 844 });
  const phoneRetry = rows.first().getByTestId("kikwiflow-retry");
  await phoneRetry.scrollIntoViewIfNeeded();
  await expect(phoneRetry).toBeInViewport({ ratio: 1 });
  await snapBothThemes(page, "kikwiflow-retried-phone");
  await page.setViewportSize({ width: 1440, height: 900 });

  // The engine's own record agrees: the incident is RESOLVED and the resolution is in the outbox.
  const reread = (await (await fetch(`${engine()}/incidents/${incident.id}`)).json()) as Incident;
  expect(reread.status).toBe("RESOLVED");

  // Retrying it again is the engine's 409, said as such; an unknown instance is a 404 in words.
  const again = await page.request.post(`/api/kikwiflow/incidents/${incident.id}/retry`, {
    headers: { origin: baseURL ?? "" },
  });
  expect(again.status()).toBe(409);
  expect(((await again.json()) as { message: string }).message).toContain("The incident is not open");
  const missing = await page.request.get("/api/kikwiflow/instances/no-such-instance");
  expect(missing.status()).toBe(404);
  expect(((await missing.json()) as { message: string }).message).toContain("finished or is unknown");
});

test("exhausted backoff: the attempts trail from RETRY_SCHEDULED and the business-error marker", async ({ page }) => {
  const backoff = await startInstance("kiki-exhausted-backoff", `e2e-sync-${Date.now()}`);
  const business = await startInstance("kiki-business-error", `e2e-credit-${Date.now()}`);
  await openIncident(backoff.id);
  await openIncident(business.id);

  await page.goto(`/kikwiflow/instances/${backoff.id}`);
  await expect(page.getByTestId("kikwiflow-task-backoff")).toHaveText("backoff 0.2, 0.4 s");
  await expect(page.getByTestId("kikwiflow-trail-row")).toHaveCount(2);
  await expect(page.getByTestId("kikwiflow-trail-row").first()).toContainText("#1");
  // Retries ran out: a FAILED_JOB without a marker.
  const exhausted = page.getByTestId("kikwiflow-incident-row").filter({ hasText: "OPEN" });
  await expect(exhausted.getByTestId("kikwiflow-incident-category")).toHaveText("FAILED_JOB");
  await expect(exhausted.getByTestId("kikwiflow-incident-marker")).toHaveCount(0);
  await snapBothThemes(page, "kikwiflow-backoff");

  // The data a retry runs with, from the engine's instance (issue 38 item 9), and where to change it.
  const flaky = await fetch(`${engine()}/process-instances`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      processDefinitionKey: "kiki-flaky-linear",
      businessKey: `e2e-vars-${Date.now()}`,
      variables: { failTimes: { name: "failTimes", value: 1 } },
    }),
  });
  const flakyId = ((await flaky.json()) as { id: string }).id;
  await page.goto(`/kikwiflow/instances/${flakyId}`);
  const variables = page.getByTestId("kikwiflow-variables");
  await expect(variables.getByTestId("kikwiflow-variable-value")).toHaveText(["1"]);
  await expect(variables).toContainText("Fix a bad value here, then retry the incident");

  await page.goto(`/kikwiflow/instances/${business.id}`);
  const row = page.getByTestId("kikwiflow-incident-row").filter({ hasText: "OPEN" });
  await expect(row.getByTestId("kikwiflow-incident-category")).toContainText("UNHANDLED_BUSINESS_ERROR");
  await expect(row.getByTestId("kikwiflow-incident-marker")).toHaveText("business error");
});

test("cancel instance: a reason is required, the engine's delete is confirmed by its 404, incidents kept", async ({
  page,
}) => {
  const failing = await startInstance("kiki-fatal", `e2e-cancel-${Date.now()}`);
  const incident = await openIncident(failing.id);
  await page.goto(`/kikwiflow/instances/${failing.id}`);
  await expect(page.getByTestId("kikwiflow-instance-header")).toContainText("ACTIVE");
  const open = page.getByTestId("kikwiflow-cancel-open");
  await expect(open).toBeEnabled({ timeout: 20_000 });
  await open.click();

  const dialog = page.getByTestId("kikwiflow-cancel-dialog");
  await expect(dialog).toContainText("The engine’s REST has no cancel");
  await dialog.getByTestId("kikwiflow-cancel-submit").click();
  await expect(dialog.getByRole("alert")).toHaveText("A reason is required.");
  expect((await fetch(`${engine()}/process-instances/${failing.id}`)).status).toBe(200);
  await dialog.getByLabel("Reason").fill("Ledger data is corrupt beyond repair; customer asked to stop");
  await snapBothThemes(page, "kikwiflow-cancel-dialog");
  await dialog.getByTestId("kikwiflow-cancel-submit").click();

  const outcome = page.getByTestId("kikwiflow-cancel-outcome");
  await expect(outcome).toHaveAttribute("data-phase", "confirmed");
  await expect(outcome).toContainText("it no longer has this instance (a re-read answered 404)");
  expect((await fetch(`${engine()}/process-instances/${failing.id}`)).status).toBe(404);
  expect((await fetch(`${engine()}/incidents/${incident.id}`)).status).toBe(200);
  await snapBothThemes(page, "kikwiflow-cancel-outcome");
});
