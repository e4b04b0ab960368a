import { expect, test } from "@playwright/test";
import type { Route } from "@playwright/test";
import { snapBothThemes } from "./operator-fixtures";
import { engine, openIncident, startInstance } from "./kikwiflow-engine";
import type { Incident } from "./kikwiflow-engine";

/**
 * Two operators retry the same incident against the real engine (issue 38 item 8): the first one's
 * retry goes through, the second one's is the engine's 409, which the console says as "someone
 * already retried this", neither a red engine error nor a false "confirmed".
 */
test.describe.configure({ timeout: 90_000 });

test("the second operator to retry an incident sees the already-retried notice", async ({ browser }) => {
  const started = await startInstance("kiki-fatal", `e2e-two-operators-${Date.now()}`);
  const incident = await openIncident(started.id);
  const path = `/kikwiflow/instances/${started.id}`;
  const first = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  const second = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  try {
    await first.goto(path);
    await second.goto(path);
    const openRetry = (page: typeof first) =>
      page.getByTestId("kikwiflow-incident-row").filter({ hasText: "OPEN" }).getByTestId("kikwiflow-retry");
    await expect(openRetry(first)).toBeEnabled();
    await expect(openRetry(second)).toBeEnabled();

    // The second operator's screen has not refreshed yet: its reads of the instance are held (only
    // the reads; the retry itself goes to the console and the engine as usual).
    const held: Route[] = [];
    await second.route("**/api/kikwiflow/instances/**", (route) => void held.push(route));

    await openRetry(first).click();
    const firstOutcome = first.getByTestId("kikwiflow-retry-outcome");
    await expect(firstOutcome).toHaveAttribute("data-phase", /^(confirmed|failed_again)$/);
    const resolved = (await (await fetch(`${engine()}/incidents/${incident.id}`)).json()) as Incident;
    expect(resolved.status).toBe("RESOLVED");

    // The second operator clicks Retry on what their screen still shows as OPEN: the engine's 409.
    const answered = second.waitForResponse((response) => response.url().includes(`/incidents/${incident.id}/retry`));
    await openRetry(second).click();
    expect((await answered).status()).toBe(409);
    // Its reads resume (the notice waits for them: it points at the list as the engine has it now).
    await second.unroute("**/api/kikwiflow/instances/**");
    // A held read the page gave up on meanwhile (a newer refetch superseded it) is already handled.
    for (const route of held)
      await route.continue().catch((error: Error) => {
        if (!/already handled/i.test(error.message)) throw error;
      });

    const notice = second.getByTestId("kikwiflow-retry-outcome");
    await expect(notice).toHaveAttribute("data-phase", "already_retried");
    await expect(notice).toHaveText(
      "Someone already retried this incident: the engine no longer has it open (409), so nothing was sent again. The list below shows what the engine has now.",
    );
    await expect(notice).toHaveAttribute("role", "status");
    await expect(second.getByTestId("kikwiflow-error")).toHaveCount(0);
    await expect(second.getByTestId("kikwiflow-retry-outcome")).toHaveCount(1);
    await expect(
      second
        .getByTestId("kikwiflow-incident-row")
        .filter({ hasText: "RESOLVED" })
        .getByTestId("kikwiflow-incident-status"),
    ).toHaveCount(1);
    await snapBothThemes(second, "kikwiflow-already-retried");
  } finally {
    await first.context().close();
    await second.context().close();
  }
});
