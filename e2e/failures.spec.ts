import { expect, test } from "@playwright/test";
import { NonRetryableError, defineActivity } from "../server/sdk/activity";
import { defineWorkflow } from "../server/sdk/workflow";
import { withSdkWorker } from "./approval-runs";
import { dwGet, dwPost, runPath, runStatus, snapBothThemes, waitFor } from "./operator-fixtures";

/**
 * Fleet failure triage over runs the engine really failed: a TypeScript SDK worker serves a checkout
 * whose charge always fails with a non-retryable error. Triage groups the failed runs, the drill-down
 * opens one, and "start again" starts the whole group anew; the tally is read back from the server,
 * where every new run failed the same way (the worker is still serving).
 */

const QUEUE = "e2e-triage";
const RUNS = 3;

class TriageDeclined extends NonRetryableError {}
class TriageGatewayDown extends NonRetryableError {}

// Same workflow type, same category, same recorded class (RuntimeException): only the worker's
// exception type tells a declined card from a gateway outage.
const charge = defineActivity("TriageCharge", async (_ctx, order) => {
  if ((order as { mode?: string } | null)?.mode === "gateway") throw new TriageGatewayDown("Gateway answered 503.");
  throw new TriageDeclined('Issuer refused the card <b>twice</b> & said "no".');
});
const checkout = defineWorkflow("TriageCheckoutWorkflow", function* (ctx, order) {
  return yield ctx.activity("TriageCharge", [order ?? { amountCents: 990 }]);
});

withSdkWorker(QUEUE, [checkout], [charge]);

test("triage groups failed runs, drills down to one, and starts the group again with its outcome read back", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const stamp = Date.now().toString(36);
  const ids = Array.from({ length: RUNS }, (_, i) => `triage-${stamp}-${i}`);
  const runIds: string[] = [];
  for (const id of ids) {
    const { status, body } = await dwPost("/workflows", {
      workflow_type: "TriageCheckoutWorkflow",
      workflow_id: id,
      task_queue: QUEUE,
      input: [],
      duplicate_policy: "fail",
    });
    expect(status).toBeLessThan(300);
    runIds.push(String(body.run_id));
  }
  const gatewayId = `triage-${stamp}-gateway`;
  const gateway = await dwPost("/workflows", {
    workflow_type: "TriageCheckoutWorkflow",
    workflow_id: gatewayId,
    task_queue: QUEUE,
    input: [{ mode: "gateway" }],
    duplicate_policy: "fail",
  });
  expect(gateway.status).toBeLessThan(300);
  const started = [...ids.map((id, i) => [id, runIds[i] ?? ""]), [gatewayId, String(gateway.body.run_id)]];
  for (const [id = "", runId = ""] of started)
    await waitFor(`${id} to fail`, async () => (await runStatus(id, runId)) === "failed", 30_000);

  await page.goto("/namespaces/default/failures?window=1h");
  await expect(page.getByTestId("failures-limits")).toContainText("at most 1000", { timeout: 30_000 });
  await expect(page.getByTestId("failures-docs-link")).toHaveAttribute(
    "href",
    "https://durable-workflow.com/docs/failures-and-recovery/",
  );
  const ofType = (type: string) =>
    page
      .getByTestId("failure-group")
      .filter({ hasText: "TriageCheckoutWorkflow" })
      .filter({ has: page.getByTestId("group-type").getByText(type, { exact: true }) });
  const group = ofType("TriageDeclined");
  // The gateway outage is its own group of one: starting the declined group again leaves it alone.
  await expect(ofType("TriageGatewayDown").getByTestId("group-count")).toHaveText("1");
  await expect(ofType("TriageGatewayDown").getByTestId("group-message")).toContainText("Gateway answered 503.");
  await expect(group).toHaveAttribute("data-verdict", "non_retryable");
  await expect(group.getByTestId("group-count")).toHaveText(String(RUNS));
  await expect(group.getByTestId("non-retryable")).toBeVisible();
  // A worker reports no PHP class (the server records RuntimeException): the group is named by the
  // worker's exception type, as the run page's Exceptions table names it.
  await expect(group.getByTestId("group-type")).toHaveText("TriageDeclined");
  // Each distinct message once, with how many runs ended with it; server text is shown as text.
  const message = group.getByTestId("group-message");
  await expect(message).toHaveCount(1);
  await expect(message).toHaveAttribute("data-count", String(RUNS));
  await expect(message).toContainText("<b>twice</b>");
  await expect(message).toContainText(`× ${RUNS} runs`);
  await page.getByRole("button", { name: "Last 24 hours" }).click();
  await expect(page).toHaveURL(/window=24h/);
  await expect(group.getByTestId("group-count")).toHaveText(String(RUNS));

  await group.getByTestId("drill").click();
  await expect(group.getByTestId("drill-run")).toHaveCount(RUNS);
  await snapBothThemes(page, "failures");
  const newest = ids.at(-1) ?? "";
  await group.getByTestId("drill-run").filter({ hasText: newest }).click();
  await expect(page).toHaveURL(runPath(newest, runIds.at(-1) ?? ""));
  await expect(page.getByRole("heading", { level: 1 })).toContainText(newest);
  await page.goBack();

  await group.getByTestId("bulk-open").click();
  const bulk = page.getByTestId("bulk-start-again");
  await expect(bulk.getByTestId("bulk-plan")).toHaveAttribute("data-start", String(RUNS));
  await expect(bulk).toContainText("Dry run, nothing sent yet");
  await snapBothThemes(page, "failures-start-again-plan");
  await bulk.getByTestId("bulk-execute").click();
  const outcome = bulk.getByTestId("bulk-outcome");
  await expect(outcome).toHaveAttribute("data-settled", "true", { timeout: 60_000 });
  await expect(outcome).toHaveAttribute("data-accepted", String(RUNS));
  await expect(outcome).toHaveAttribute("data-failed", String(RUNS));
  await expect(outcome).toContainText("3 failed again");
  await snapBothThemes(page, "failures-start-again-outcome");

  // The server's record: one new workflow per old one, under an -again- id, and it failed too.
  const listed = await dwGet<{ workflows: { workflow_id: string; status: string }[] }>(
    `/workflows?status=failed&workflow_type=TriageCheckoutWorkflow&page_size=200`,
  );
  for (const id of ids) {
    const again = listed.workflows.filter((row) => row.workflow_id.startsWith(`${id}-again-`));
    expect(again.map((row) => row.status)).toEqual(["failed"]);
  }
});
