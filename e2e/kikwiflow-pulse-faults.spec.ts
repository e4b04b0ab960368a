import { join } from "node:path";
import { expect, test } from "@playwright/test";
import type { Page } from "@playwright/test";
import { startKikwiflowHost } from "../lib/kikwiflow/engine-host";
import type { KikwiflowHost } from "../lib/kikwiflow/engine-host";
import { snapBothThemes, startConsole } from "./operator-fixtures";
import type { ExtraConsole } from "./operator-fixtures";

/**
 * The live pulse against an engine that hangs and one that dies (issue 38 item 6): this spec starts
 * its OWN engine process (never the shared one of playwright.config.ts) and a console on it, then
 * SIGSTOPs the JVM (hung: connections accepted, nothing answered) the moment the screen shows its
 * first frame, SIGCONTs it (recovery), and SIGKILLs it (dead). After one frame the screen does not
 * know the engine's interval yet, so it must say "checking", never "live"; it must reach "stale",
 * never going back to "live" while the engine is down; an edit sent to the dead engine is said as
 * unreachable.
 */
test.describe.configure({ timeout: 240_000 });

const jar = () => process.env.KIKWIFLOW_HOST_JAR ?? join(__dirname, "..", ".cache", "kikwiflow-host.jar");

/** Records every data-phase the pulse status takes from now on, in order. */
async function recordPhases(page: Page): Promise<void> {
  await page.getByTestId("kikwiflow-pulse-status").evaluate((element) => {
    const log: string[] = [element.getAttribute("data-phase") ?? ""];
    (window as unknown as { __phases: string[] }).__phases = log;
    new MutationObserver(() => log.push(element.getAttribute("data-phase") ?? "")).observe(element, {
      attributes: true,
      attributeFilter: ["data-phase"],
    });
  });
}

/**
 * Freezes the engine from inside the page the moment the pulse status first leaves "connecting"
 * (its first frame), through a binding, so no second frame can slip in while the test process
 * polls; and records every data-phase from page load on.
 */
async function hangOnFirstFrame(page: Page, pid: number): Promise<void> {
  let hung = false;
  // Once: a later navigation runs the init script again.
  await page.exposeFunction("__hangEngine", () => {
    if (!hung) process.kill(pid, "SIGSTOP");
    hung = true;
  });
  await page.addInitScript(() => {
    const w = window as unknown as { __early: string[]; __hangEngine: () => Promise<void> };
    w.__early = [];
    new MutationObserver(() => {
      const phase = document.querySelector("[data-testid=kikwiflow-pulse-status]")?.getAttribute("data-phase");
      if (!phase || w.__early.at(-1) === phase) return;
      if (w.__early.every((seen) => seen === "connecting") && phase !== "connecting") void w.__hangEngine();
      w.__early.push(phase);
    }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-phase"] });
  });
}

/**
 * Seconds from the last frame to the moment the screen stopped saying "live", as the screen itself
 * states both ("last frame at …", "stale since …"). With the engine's interval known (the host's
 * 1 s) the rule is two intervals plus slack, about 2.5 s.
 */
async function secondsLiveAfterLastFrame(page: Page): Promise<number> {
  const text = (await page.getByTestId("kikwiflow-pulse-status").textContent()) ?? "";
  const clock = (pattern: RegExp) => {
    const [, h, m, s] = pattern.exec(text) ?? [];
    return Number(h) * 3600 + Number(m) * 60 + Number(s);
  };
  const gap = clock(/stale since (\d{2}):(\d{2}):(\d{2})/) - clock(/last frame at (\d{2}):(\d{2}):(\d{2})/);
  return (gap + 86_400) % 86_400;
}

/** Live, and a further frame seen (an operator watching). */
async function liveWithInterval(page: Page): Promise<void> {
  const status = page.getByTestId("kikwiflow-pulse-status");
  await expect(status).toHaveAttribute("data-phase", "live", { timeout: 60_000 });
  const first = await page.getByTestId("kikwiflow-pulse-last-frame").textContent();
  await expect(page.getByTestId("kikwiflow-pulse-last-frame")).not.toHaveText(first ?? "");
}

/** The phases since {@link recordPhases}, from the first one that was not "live". */
async function phasesAfterLeavingLive(page: Page): Promise<string[]> {
  const log = await page.evaluate(() => (window as unknown as { __phases: string[] }).__phases);
  return log.slice(log.findIndex((phase) => phase !== "live"));
}

/** A frozen JVM cannot take SIGTERM: wake it first (harmless once the SIGKILL ended it), then stop it. */
async function stopEngine(host: KikwiflowHost | undefined): Promise<void> {
  if (!host) return;
  try {
    process.kill(host.pid, "SIGCONT");
  } catch {
    // Already gone.
  }
  await host.stop();
}

test("the pulse leaves live for a hung engine, comes back when it resumes, and stays stale once it is killed", async ({
  page,
  context,
}) => {
  let host: KikwiflowHost | undefined;
  let app: ExtraConsole | undefined;
  try {
    host = await startKikwiflowHost({ jar: jar(), port: Number(process.env.E2E_KIKWIFLOW_OWN_PORT ?? 0) });
    const pid = host.pid;
    app = await startConsole({ KIKWIFLOW_URL: host.baseUrl });
    const rest = `${host.baseUrl}/kikwiflow/api/v1`;
    const definition = (await (await fetch(`${rest}/process-definitions/one-by-key/kiki-fatal`)).json()) as {
      id: string;
    };
    const waiting = (await (
      await fetch(`${rest}/process-instances`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          processDefinitionKey: "kiki-await-review",
          businessKey: `e2e-pulse-faults-${Date.now()}`,
          variables: { limit: { name: "limit", value: 5 } },
        }),
      })
    ).json()) as { id: string };

    await page.setViewportSize({ width: 1440, height: 900 });
    // Hung right after the first frame: the JVM is frozen, its port still accepts connections.
    await hangOnFirstFrame(page, pid);
    // The pulse waits until the definition's nodes are on screen, so the hang meets a loaded page.
    let releasePulse = () => {};
    const held = new Promise<void>((resolve) => (releasePulse = resolve));
    await page.route(
      "**/api/kikwiflow/definitions/*/pulse",
      async (route) => {
        await held;
        await route.continue();
      },
      { times: 1 },
    );
    await page.goto(`${app.baseUrl}/kikwiflow/definitions/${definition.id}`);
    await expect(page.getByTestId("kikwiflow-node-row").first()).toBeVisible({ timeout: 60_000 });
    releasePulse();
    const status = page.getByTestId("kikwiflow-pulse-status");
    await expect(page.getByTestId("kikwiflow-pulse-last-frame")).toContainText(/\d{2}:\d{2}:\d{2}/);
    await expect(status).toHaveAttribute("data-phase", "checking");
    await expect(status).toContainText("connected, checking");
    await snapBothThemes(page, "kikwiflow-pulse-checking");
    await page.setViewportSize({ width: 390, height: 844 });
    await snapBothThemes(page, "kikwiflow-pulse-checking-phone");
    await page.setViewportSize({ width: 1440, height: 900 });
    await expect(status).toHaveAttribute("data-phase", "stale", { timeout: 60_000 });
    await expect(status).toContainText(/stale since \d{2}:\d{2}:\d{2}/);
    // Issue 38 saw "live" 13–20 s after the engine hung: with one frame the screen never claims it.
    const early = await page.evaluate(() => (window as unknown as { __early: string[] }).__early);
    expect(early).toEqual(["connecting", "checking", "reconnecting", "stale"]);
    await snapBothThemes(page, "kikwiflow-pulse-hung");

    // Resumed: the screen leaves stale and gets frames again. Whether this definition's stream beats
    // again varies: after the freeze the engine's polling loop for it can stay wedged (stream requests
    // get no headers, only the plain snapshot answers; seen in 2 of 3 runs), and then the screen
    // rightly stays "checking" instead of live.
    process.kill(pid, "SIGCONT");
    await expect(status).toHaveAttribute("data-phase", /^(checking|live)$/, { timeout: 60_000 });
    // A definition whose stream beats: the screen learns the interval and says live.
    const flaky = (await (await fetch(`${rest}/process-definitions/one-by-key/kiki-flaky-linear`)).json()) as {
      id: string;
    };
    await page.goto(`${app.baseUrl}/kikwiflow/definitions/${flaky.id}`);
    await liveWithInterval(page);

    // An edit is open on another tab when the engine dies.
    const editor = await context.newPage();
    await editor.goto(`${app.baseUrl}/kikwiflow/instances/${waiting.id}`);
    await editor.getByTestId("kikwiflow-variable-edit").click();
    await editor.getByTestId("kikwiflow-variable-input").fill("9");
    await editor.getByTestId("kikwiflow-variable-review").click();

    // Killed: the stream breaks, the relay cannot reach the engine, the screen says so.
    await recordPhases(page);
    process.kill(pid, "SIGKILL");
    await expect(status).toHaveAttribute("data-phase", "stale", { timeout: 60_000 });
    await expect(status).toContainText("did not answer", { timeout: 60_000 });
    expect(await phasesAfterLeavingLive(page)).not.toContain("live");
    expect(await secondsLiveAfterLastFrame(page)).toBeLessThan(10);
    await expect(status).toHaveAttribute("data-phase", "stale");
    await snapBothThemes(page, "kikwiflow-pulse-killed");

    await editor.getByTestId("kikwiflow-variable-submit").click();
    await expect(editor.getByTestId("kikwiflow-variables").getByTestId("kikwiflow-error")).toContainText(
      "did not answer",
    );
    await expect(editor.getByTestId("kikwiflow-variable-outcome")).toHaveCount(0);
  } finally {
    await stopEngine(host);
    await app?.stop();
  }
});
