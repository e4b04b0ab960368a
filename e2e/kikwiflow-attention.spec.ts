import { expect, test } from "@playwright/test";
import { snapBothThemes } from "./operator-fixtures";
import { engine, incidentInOutbox, openIncident, startInstance } from "./kikwiflow-engine";

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
  for (const instance of [...fatal, business, mirror]) {
    await incidentInOutbox(instance.id, (await openIncident(instance.id)).id);
  }

  await page.goto("/kikwiflow");
  await page.getByTestId("kikwiflow-attention-link").click();
  await expect(page).toHaveURL(/\/kikwiflow\/attention$/);
  await expect(page.getByTestId("kikwiflow-attention-scan")).toContainText(/Read \d+ of \d+ active instances?\./);

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

test("a fatal group retried in bulk: dry run lists its instances, explicit consent, each retry confirmed then seen failing again", async ({
  page,
}) => {
  const stamp = Date.now();
  const members = [
    await startInstance("kiki-fatal", `e2e-bulk-a-${stamp}`),
    await startInstance("kiki-fatal", `e2e-bulk-b-${stamp}`),
  ];
  const incidents = [await openIncident(members[0]!.id), await openIncident(members[1]!.id)];

  await page.goto("/kikwiflow/attention");
  const group = page
    .getByTestId("kikwiflow-attention-groups")
    .locator("tbody tr", { hasText: "LedgerCorruptedException" })
    .filter({ hasText: "kiki-fatal v1" });
  await expect(group).toHaveCount(1);
  // On a phone the group's Retry all is on screen without scrolling the table sideways.
  await page.setViewportSize({ width: 390, height: 844 });
  const retryAll = group.getByTestId("kikwiflow-attention-retry-all");
  await retryAll.scrollIntoViewIfNeeded();
  await expect(retryAll).toBeInViewport({ ratio: 1 });
  await page.setViewportSize({ width: 1280, height: 720 });
  await retryAll.click();

  // Dry run: each instance's incidents read again, nothing sent; ours are in the plan.
  const panel = page.getByTestId("kikwiflow-bulk-retry");
  await expect(panel).toHaveAttribute("data-stage", "planned");
  const planned = panel.getByTestId("kikwiflow-bulk-retry-planned");
  for (const member of members) await expect(planned).toContainText(member.id);
  expect(
    Number(await panel.getByTestId("kikwiflow-bulk-retry-plan").getAttribute("data-retry")),
  ).toBeGreaterThanOrEqual(2);
  expect((await fetchIncident(incidents[0]!.id)).status).toBe("OPEN");

  // Fatal: sending waits for the operator to say the engine will fail it again unless the data is fixed.
  const execute = panel.getByTestId("kikwiflow-bulk-retry-execute");
  await expect(execute).toBeDisabled();
  await expect(panel).toContainText("the engine will fail them again unless the data is fixed first");
  await snapBothThemes(page, "kikwiflow-bulk-retry-plan");
  await panel.getByTestId("kikwiflow-bulk-retry-fatal-consent").check();
  await execute.click();

  // Each of ours confirmed by the route, then followed: kiki-fatal's task fails again at once.
  for (const member of members) {
    const row = panel.getByTestId("kikwiflow-bulk-retry-row").filter({ hasText: member.id });
    await expect(row).toHaveAttribute("data-state", "failed_again", { timeout: 30_000 });
    await expect(row).toContainText("confirmed, then the task failed again at");
    await expect(row).toContainText("Ledger entry checksum mismatch");
  }
  await expect(panel.getByTestId("kikwiflow-bulk-retry-outcome")).toHaveAttribute("data-settled", "true", {
    timeout: 30_000,
  });
  for (const incident of incidents) expect((await fetchIncident(incident.id)).status).toBe("RESOLVED");
  await snapBothThemes(page, "kikwiflow-bulk-retry-outcome");
});

async function fetchIncident(id: string): Promise<{ status: string }> {
  const response = await fetch(`${engine()}/incidents/${id}`);
  expect(response.ok).toBe(true);
  return (await response.json()) as { status: string };
}
