import { expect, test } from "@playwright/test";
import { snapBothThemes } from "./operator-fixtures";
import { openIncident, startInstance } from "./kikwiflow-engine";

/**
 * Kikwiflow attention (issue 17 item 4) against the real engine: instances with OPEN incidents,
 * found by the console's scan of ACTIVE instances, grouped by category × task × exception, with a
 * drill-down to the instance. Other specs share the engine, so counts are at least ours.
 */
test.describe.configure({ timeout: 90_000 });

test("open incidents grouped by category, task and exception, each group leading to its instances", async ({
  page,
}) => {
  const stamp = Date.now();
  const fatal = [
    await startInstance("kiki-fatal", `e2e-attn-a-${stamp}`),
    await startInstance("kiki-fatal", `e2e-attn-b-${stamp}`),
  ];
  const business = await startInstance("kiki-business-error", `e2e-attn-c-${stamp}`);
  // The same task id (POST_LEDGER) in a second process: a group of its own (issue 38 item 3).
  const mirror = await startInstance("kiki-fatal-mirror", `e2e-attn-d-${stamp}`);
  for (const instance of [...fatal, business, mirror]) await openIncident(instance.id);

  await page.goto("/kikwiflow");
  await page.getByTestId("kikwiflow-attention-link").click();
  await expect(page).toHaveURL(/\/kikwiflow\/attention$/);
  await expect(page.getByTestId("kikwiflow-attention-scan")).toContainText(/Read \d+ of \d+ active instances/);

  const groups = page.getByTestId("kikwiflow-attention-groups");
  const allLedger = groups.locator("tbody tr", { hasText: "LedgerCorruptedException" });
  await expect(allLedger).toHaveCount(2);
  const ledger = allLedger.filter({ hasText: "kiki-fatal v1" });
  await expect(ledger).toHaveCount(1);
  await expect(ledger).toContainText("FAILED_JOB");
  await expect(ledger).toContainText("POST_LEDGER");
  // Fatal from the engine's outbox, on both processes' groups.
  await expect(ledger.getByTestId("kikwiflow-attention-fatal")).toHaveText("fatal");
  expect(Number(await ledger.getByTestId("kikwiflow-attention-count").textContent())).toBeGreaterThanOrEqual(2);
  const mirrored = allLedger.filter({ hasText: "kiki-fatal-mirror v1" });
  await expect(mirrored.getByTestId("kikwiflow-attention-fatal")).toHaveText("fatal");
  await expect(mirrored.getByTestId("kikwiflow-attention-instance")).toContainText([mirror.id]);

  const credit = groups.locator("tbody tr", { hasText: "UNHANDLED_BUSINESS_ERROR" });
  await expect(credit).toHaveCount(1);
  await expect(credit).toContainText("business error");
  await expect(credit).toContainText("ProcessErrorException");
  await expect(credit.getByTestId("kikwiflow-attention-fatal")).toHaveCount(0);
  await snapBothThemes(page, "kikwiflow-attention");

  // Drill-down: a group's instance link opens that instance, its incident of the same category shown.
  const first = credit.getByTestId("kikwiflow-attention-instance").first();
  const instanceId = (await first.textContent()) ?? "";
  await first.click();
  await expect(page).toHaveURL(new RegExp(`/kikwiflow/instances/${instanceId}$`));
  await expect(page.getByText("UNHANDLED_BUSINESS_ERROR").first()).toBeVisible();

  // The incident's stack trace, collapsed under the message, engine-written and shown as text.
  const trace = page.getByTestId("kikwiflow-stack-trace").first();
  await trace.locator("summary").click();
  await expect(trace.locator("pre")).toContainText("ProcessErrorException");
  await snapBothThemes(page, "kikwiflow-instance-stack-trace");
});
