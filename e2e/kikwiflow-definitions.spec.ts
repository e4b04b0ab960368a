import { expect, test } from "@playwright/test";
import { snapBothThemes } from "./operator-fixtures";
import { openIncident, startInstance } from "./kikwiflow-engine";

/**
 * Kikwiflow process definitions (issue 17) against the real engine: the list, one definition's
 * nodes in flow order, and the pulse counts relayed live by the console (the host's pulse interval
 * is 1 s): a failing instance moves the fail count without a reload.
 */
test.describe.configure({ timeout: 90_000 });

test("definitions list → definition with live pulse counts that move when an instance fails", async ({ page }) => {
  await page.goto("/kikwiflow");
  await page.getByTestId("kikwiflow-definitions-link").click();
  await expect(page).toHaveURL(/\/kikwiflow\/definitions$/);
  // By name: kiki-fatal-mirror shares the key's prefix.
  const row = page.getByTestId("kikwiflow-definition-row").filter({ hasText: "Post ledger entry (fatal exception)" });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("Post ledger entry (fatal exception)");
  await expect(row.locator("td").nth(3)).toHaveText("4");
  await snapBothThemes(page, "kikwiflow-definitions");

  await row.getByTestId("kikwiflow-definition-link").click();
  await expect(page).toHaveURL(/\/kikwiflow\/definitions\/[0-9a-f-]{36}$/);
  const nodes = page.getByTestId("kikwiflow-node-row");
  await expect(nodes.locator("td:first-child span.font-mono")).toHaveText(["START", "POST_LEDGER", "REVIEW", "END"]);
  // Rows are in flow order (checked above); START names POST_LEDGER as its target, so pick by place.
  const task = nodes.nth(1);
  await expect(task).toContainText("REVIEW");
  await expect(task.getByTestId("kikwiflow-task-policy")).toContainText("LINEAR");
  await expect(page.getByTestId("kikwiflow-pulse-status")).toHaveAttribute("data-phase", "live");
  await expect(page.getByTestId("kikwiflow-pulse-last-frame")).toContainText(/\d{2}:\d{2}:\d{2}/);
  const failed = task.getByTestId("kikwiflow-node-failed");
  const before = Number(await failed.textContent());

  // A marker a reload would wipe: the count must change in this same document.
  await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));
  const started = await startInstance("kiki-fatal", `e2e-pulse-${Date.now()}`);
  await openIncident(started.id);
  await expect(failed).toHaveText(String(before + 1), { timeout: 15_000 });
  expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
  await expect(page.getByTestId("kikwiflow-pulse-status")).toHaveAttribute("data-phase", "live");
  await snapBothThemes(page, "kikwiflow-definition-live");

  // The instance page names its definition with a link back to this screen.
  const definitionUrl = page.url();
  await page.goto(`/kikwiflow/instances/${started.id}`);
  // Its attempts trail shows the failed execution (FLOW_NODE_FINISHED, ERROR) with the stack trace.
  const failure = page.getByTestId("kikwiflow-trail-failure").first();
  await expect(failure).toContainText("POST_LEDGER");
  await expect(failure).toContainText("Ledger entry checksum mismatch");
  await failure.getByTestId("kikwiflow-stack-trace").locator("summary").click();
  await expect(failure.locator("pre")).toContainText("LedgerCorruptedException");
  await snapBothThemes(page, "kikwiflow-instance-failed-executions");
  await page.getByTestId("kikwiflow-instance-definition-link").click();
  await expect(page).toHaveURL(definitionUrl);
});

test("on a phone (390×844) the definition's nodes stack as cards: no sideways scroll, each retry policy in view", async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/kikwiflow/definitions");
  const row = page.getByTestId("kikwiflow-definition-row").filter({ hasText: "Post ledger entry (fatal exception)" });
  await row.getByTestId("kikwiflow-definition-link").click();
  const nodes = page.getByTestId("kikwiflow-node-row");
  await expect(nodes).toHaveCount(4);
  const task = nodes.nth(1);
  await expect(task.getByTestId("kikwiflow-task-policy")).toContainText("LINEAR");
  // Neither the page nor the table's own box is wider than the screen.
  const overflow = await page.evaluate(() => {
    const page = document.scrollingElement!;
    const box = document.querySelector('[data-testid="kikwiflow-node-rows"]')!.parentElement!;
    return { page: page.scrollWidth - page.clientWidth, table: box.scrollWidth - box.clientWidth };
  });
  expect(overflow).toEqual({ page: 0, table: 0 });
  // The policy line of the task sits inside the screen, under its node, on the full card width.
  const policy = await task.getByTestId("kikwiflow-task-policy").boundingBox();
  const node = await task.locator("td").first().boundingBox();
  expect(policy && node).toBeTruthy();
  expect(policy!.x + policy!.width).toBeLessThanOrEqual(390);
  expect(policy!.y).toBeGreaterThan(node!.y);
  expect(policy!.width).toBeGreaterThan(390 / 2);
  await snapBothThemes(page, "kikwiflow-definition-phone");
});
