import { mkdirSync } from "node:fs";
import { expect, test } from "@playwright/test";
import type { Page } from "@playwright/test";
import { CHAIN_ID, CHAIN_RUNS, e2eContinueAsNew } from "./run-scenarios";

/**
 * A workflow that continued as new twice (real SDK worker, embedded server): the workflow route
 * opens the current run, and the header's previous / next links walk the chain both ways.
 */

const SCREENSHOTS = "test-results/screenshots";
const dwHost = process.env.E2E_DW_HOST ?? "";

const runPath = (workflowId: string, runId: string) =>
  `/namespaces/default/workflows/${encodeURIComponent(workflowId)}/runs/${encodeURIComponent(runId)}`;
const urlOf = (workflowId: string, runId: string) =>
  new RegExp(`${runPath(workflowId, runId).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);

async function expectRun(page: Page, runIds: readonly string[], number: number) {
  const header = page.getByTestId("run-header");
  await expect(header.getByTestId("run-id")).toHaveText(runIds[number - 1] ?? `(no run ${number})`);
  await expect(header.getByTestId("run-number")).toContainText(`${number} of ${CHAIN_RUNS}`);
  if (number < CHAIN_RUNS) await expect(header.getByTestId("run-number")).toContainText("historical run");
  else await expect(header.getByTestId("run-number")).not.toContainText("historical run");
  if (number > 1) await expect(header.getByTestId("previous-run")).toHaveText(`← Run ${number - 1}`);
  else await expect(header.getByTestId("previous-run")).toHaveCount(0);
  if (number < CHAIN_RUNS) await expect(header.getByTestId("next-run")).toHaveText(`Continued as run ${number + 1} →`);
  else await expect(header.getByTestId("next-run")).toHaveCount(0);
}

test.describe("continue-as-new chain", () => {
  test.skip(!dwHost, "no Durable Workflow server for e2e");

  test.beforeAll(async () => {
    test.setTimeout(90_000);
    mkdirSync(SCREENSHOTS, { recursive: true });
    await e2eContinueAsNew();
  });

  test("the workflow opens run 3 of 3; previous and next links walk the chain", async ({ page, baseURL }) => {
    const runIds = await e2eContinueAsNew();
    expect(runIds).toHaveLength(CHAIN_RUNS);
    await page.context().addCookies([{ name: "bw-theme", value: "light", url: baseURL ?? "" }]);

    await page.goto(`/workflows/${encodeURIComponent(CHAIN_ID)}`);
    await expectRun(page, runIds, 3);
    await expect(page.getByTestId("run-output")).toContainText('"rounds": 3');
    // The runs-and-links view lists the whole chain, in order, and marks the run being viewed.
    await page.getByRole("tab", { name: "Runs and links" }).click();
    const chainList = page.getByTestId("relationships").locator("ol > li");
    await expect(chainList).toHaveCount(CHAIN_RUNS);
    for (const [index, runId] of runIds.entries()) {
      await expect(chainList.nth(index)).toContainText(`#${index + 1}`);
      await expect(chainList.nth(index)).toContainText(runId);
    }
    await expect(chainList.nth(CHAIN_RUNS - 1)).toContainText("viewing");
    await expect(chainList.nth(CHAIN_RUNS - 1)).toContainText("completed");
    // The link to the run before is named for what it is, in words: not a "parent" with a raw tag.
    await expect(page.getByTestId("link-continuedFrom")).toContainText(runIds[1]!);
    await expect(page.getByTestId("link-continuedFrom")).toContainText("Continued from");
    await expect(page.getByTestId("relationships")).not.toContainText("continue_as_new");

    await page.getByTestId("previous-run").click();
    await expect(page).toHaveURL(urlOf(CHAIN_ID, runIds[1]!));
    await expectRun(page, runIds, 2);

    await page.getByTestId("previous-run").click();
    await expect(page).toHaveURL(urlOf(CHAIN_ID, runIds[0]!));
    await expectRun(page, runIds, 1);

    await page.getByTestId("next-run").click();
    await expect(page).toHaveURL(urlOf(CHAIN_ID, runIds[1]!));
    await expectRun(page, runIds, 2);
    // The export bundle behind the timeline has loaded: the page is complete.
    await expect(page.getByTestId("timeline-chart")).toBeVisible();
    await page.screenshot({ path: `${SCREENSHOTS}/continue-as-new-light.png`, fullPage: true });

    await page.context().addCookies([{ name: "bw-theme", value: "dark", url: baseURL ?? "" }]);
    await page.reload();
    await expect(page.locator("html")).toHaveClass(/\bdark\b/);
    await expectRun(page, runIds, 2);
    // The export bundle behind the timeline has loaded: the page is complete.
    await expect(page.getByTestId("timeline-chart")).toBeVisible();
    await page.screenshot({ path: `${SCREENSHOTS}/continue-as-new-dark.png`, fullPage: true });

    await page.getByTestId("next-run").click();
    await expect(page).toHaveURL(urlOf(CHAIN_ID, runIds[2]!));
    await expectRun(page, runIds, 3);
  });
});
