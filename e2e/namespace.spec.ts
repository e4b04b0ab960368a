import { expect, test } from "@playwright/test";
import { liveness, registerNamespace, runPath, runStatus, startRun, waitFor, withOpsWorker } from "./operator-fixtures";
import { hydrated } from "./page-ready";

/**
 * The namespace lives in the URL (docs/decisions/0017): a link opens the namespace it was copied
 * from, each tab acts on the namespace it shows, and the console's old paths redirect to the
 * last-used namespace.
 */

const OTHER = "e2e-other";
const unique = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;

withOpsWorker();

test.beforeAll(() => registerNamespace(OTHER));

async function parkedRun(workflowId: string): Promise<string> {
  const runId = await startRun("OpsLongWaitWorkflow", workflowId, []);
  await waitFor(
    `${workflowId} to park on its timer`,
    async () => (await liveness(workflowId, runId)) === "timer_scheduled",
  );
  return runId;
}

test("a copied link opens its own namespace for a reader whose last namespace is another", async ({
  page,
  context,
  baseURL,
}) => {
  const workflowId = `ns-link-${unique()}`;
  const runId = await parkedRun(workflowId);
  await context.addCookies([{ name: "bw-namespace", value: OTHER, url: baseURL ?? "" }]);

  // The reader's own bare paths go to their last namespace...
  await page.goto("/runs");
  await expect(page).toHaveURL(new RegExp(`/namespaces/${OTHER}/runs$`));
  await expect(page.getByTestId("namespace-switcher")).toHaveValue(OTHER);

  // ...but the link copied from "default" shows the run in "default".
  await page.goto(runPath(workflowId, runId, "default"));
  await expect(page.getByTestId("run-actions")).toBeVisible();
  await expect(page.getByRole("heading", { level: 1 })).toContainText(workflowId);
  await expect(page.getByTestId("namespace-switcher")).toHaveValue("default");

  // The same run is not in the other namespace: its link says so instead of showing "default"'s.
  await page.goto(runPath(workflowId, runId, OTHER));
  await expect(page.getByTestId("dw-error")).toBeVisible();
  await expect(page.getByTestId("run-actions")).toHaveCount(0);
});

test("an action sent from a tab on one namespace stays there after another tab switches", async ({ context }) => {
  test.setTimeout(90_000);
  const workflowId = `ns-action-${unique()}`;
  const runId = await parkedRun(workflowId);

  const tabA = await context.newPage();
  await tabA.goto(runPath(workflowId, runId, "default"));
  const cancel = tabA.getByTestId("run-actions").locator('button[data-action="cancel"]');
  await expect(cancel).toBeEnabled({ timeout: 20_000 });

  // Another tab of the same browser switches to the other namespace (the last-used cookie changes).
  const tabB = await context.newPage();
  await tabB.goto("/namespaces/default/runs");
  await hydrated(tabB);
  await tabB.getByTestId("namespace-switcher").selectOption(OTHER);
  await expect(tabB).toHaveURL(new RegExp(`/namespaces/${OTHER}/runs$`));
  await expect
    .poll(async () => (await context.cookies()).find((cookie) => cookie.name === "bw-namespace")?.value)
    .toBe(OTHER);

  // The first tab still acts on "default": the cancel reaches the run and is confirmed there.
  await tabA.bringToFront();
  await cancel.click();
  await tabA.getByTestId("action-dialog").locator('textarea[name="reason"]').fill("e2e: namespace per tab");
  await tabA.getByTestId("action-submit").click();
  await expect(tabA.getByTestId("confirmation")).toHaveAttribute("data-phase", "confirmed", { timeout: 30_000 });
  expect(await runStatus(workflowId, runId)).toBe("cancelled");
  await expect(tabA).toHaveURL(new RegExp(`^[^?]*/namespaces/default/workflows/`));
});

test("old URLs redirect to the same screen in the last-used namespace", async ({ page, baseURL, request }) => {
  for (const [from, to] of [
    ["/", "/namespaces/default"],
    ["/runs?status=failed", "/namespaces/default/runs?status=failed"],
    ["/attention", "/namespaces/default/attention"],
    ["/system", "/namespaces/default/system"],
    ["/workers", "/namespaces/default/workers"],
    ["/workflows/order%2F42/runs/r-1", "/namespaces/default/workflows/order%2F42/runs/r-1"],
    ["/workflows/wf/runs/r-1/export", "/namespaces/default/workflows/wf/runs/r-1/export"],
  ] as const) {
    const answer = await request.get(from, { maxRedirects: 0 });
    expect(answer.status(), from).toBe(307);
    const location = new URL(answer.headers().location ?? "", baseURL);
    expect(`${location.pathname}${location.search}`, from).toBe(to);
  }

  // In a browser: an old run link lands on the last-used namespace's page; after the operator
  // switches namespace, old links follow the new choice.
  const workflowId = `ns-old-${unique()}`;
  const runId = await parkedRun(workflowId);
  await page.goto(`/workflows/${workflowId}/runs/${runId}`);
  await expect(page).toHaveURL(new RegExp(`/namespaces/default/workflows/${workflowId}/runs/${runId}$`));
  await expect(page.getByTestId("run-actions")).toBeVisible();
  await hydrated(page);
  await page.getByTestId("namespace-switcher").selectOption(OTHER);
  await expect(page).toHaveURL(new RegExp(`/namespaces/${OTHER}/runs$`));
  await page.goto("/attention");
  await expect(page).toHaveURL(new RegExp(`/namespaces/${OTHER}/attention$`));
});
