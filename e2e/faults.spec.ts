import { createServer, request as httpRequest } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { expect, test } from "@playwright/test";
import type { Page } from "@playwright/test";
import { dwBaseUrl, startConsole, startRun } from "./operator-fixtures";
import type { ExtraConsole } from "./operator-fixtures";

/**
 * The console against a Durable Workflow server that goes away, answers slowly, or restarts: a
 * switchable forwarding proxy sits between an extra console and the embedded e2e server. Every
 * recovery is asserted without a reload, bounded by the pages' own poll intervals (runs list 5 s,
 * health probe 10 s) plus slack for the 2-core machine.
 */

type Mode = "pass" | "down" | "slow";

const SLOW_MS = 3_000;
// Longer than the runs list's 5 s refresh, so at least one refresh lands while the server is away.
const RESTART_DOWN_MS = 6_000;
// One health probe interval (10 s), a runs refresh and a slow round trip, with slack.
const RECOVERY_MS = 20_000;

/** A forwarding proxy whose listener can be closed (connections refused) and reopened on the same port. */
class FaultProxy {
  private mode: Mode = "pass";
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;
  private port = 0;
  private readonly target = new URL(dwBaseUrl());

  constructor() {
    this.server = createServer((req, res) => this.handle(req, res));
    this.server.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.once("close", () => this.sockets.delete(socket));
    });
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    await this.listen(0);
    this.port = (this.server.address() as AddressInfo).port;
  }

  async set(mode: Mode): Promise<void> {
    if (mode === "down" && this.server.listening) await this.close();
    if (mode !== "down" && !this.server.listening) await this.listen(this.port);
    this.mode = mode;
  }

  /** Down for `downMs`, then passing again; resolves once it listens again. */
  async restart(downMs: number): Promise<void> {
    await this.set("down");
    await new Promise((resolve) => setTimeout(resolve, downMs));
    await this.set("pass");
  }

  async stop(): Promise<void> {
    if (this.server.listening) await this.close();
  }

  private listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, "127.0.0.1", () => {
        this.server.off("error", reject);
        resolve();
      });
    });
  }

  /** Refuses new connections and cuts the kept-alive ones, as a stopped server would. */
  private close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      for (const socket of this.sockets) socket.destroy();
    });
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const forward = () => {
      const upstream = httpRequest(
        {
          host: this.target.hostname,
          port: this.target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: this.target.host },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on("error", () => res.destroy());
      req.pipe(upstream);
    };
    if (this.mode === "slow") setTimeout(forward, SLOW_MS);
    else forward();
  }
}

const proxy = new FaultProxy();
let faultConsole: ExtraConsole | null = null;
const workflowId = `faults-${Date.now()}`;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(90_000);
  await proxy.start();
  // Started straight on the server: with no worker on its queue it stays listed, a row to look for.
  await startRun("OpsLongWaitWorkflow", workflowId, []);
  faultConsole = await startConsole({ DW_SERVER_URL: proxy.url });
});

test.afterAll(async () => {
  await faultConsole?.stop();
  await proxy.stop();
});

function consoleUrl(path: string): string {
  if (!faultConsole) throw new Error("the fault console did not start");
  return `${faultConsole.baseUrl}${path}`;
}

/** A mark on the document: still there at the end proves the page recovered without a reload. */
async function markDocument(page: Page): Promise<void> {
  await page.evaluate(() => {
    document.documentElement.dataset.faultsMark = "kept";
  });
}

async function expectSameDocument(page: Page): Promise<void> {
  expect(await page.evaluate(() => document.documentElement.dataset.faultsMark)).toBe("kept");
}

/** Records every status the indicator shows from now on, so a passing "unreachable" cannot hide. */
async function recordStatuses(page: Page): Promise<void> {
  await page.evaluate(() => {
    const indicator = document.querySelector("[data-testid=connection-indicator]");
    if (!indicator) throw new Error("no connection indicator");
    const seen = [indicator.getAttribute("data-status") ?? ""];
    document.documentElement.dataset.faultsSeen = seen.join(",");
    new MutationObserver(() => {
      seen.push(indicator.getAttribute("data-status") ?? "");
      document.documentElement.dataset.faultsSeen = seen.join(",");
    }).observe(indicator, { attributes: true, attributeFilter: ["data-status"] });
  });
}

async function recordedStatuses(page: Page): Promise<string[]> {
  return (await page.evaluate(() => document.documentElement.dataset.faultsSeen ?? "")).split(",");
}

test("server down: unreachable and an actionable runs error, both recovering by themselves", async ({ page }) => {
  test.setTimeout(90_000);
  await proxy.set("down");
  await page.goto(consoleUrl("/runs"));
  await markDocument(page);

  const indicator = page.getByTestId("connection-indicator");
  await expect(indicator).toHaveAttribute("data-status", "unreachable", { timeout: 15_000 });
  const failure = page.getByTestId("dw-error");
  await expect(failure).toHaveAttribute("data-reason", "server_unavailable");
  await expect(failure).toContainText("The Durable Workflow server is not answering");
  await expect(failure).toContainText("Check that the server is running and that DW_SERVER_URL points at it");
  await expect(failure.getByRole("button", { name: "Try again" })).toBeVisible();
  // Every screen says its data is not live, and since when (here: never live since the page opened).
  const stale = page.getByTestId("stale-banner");
  await expect(stale).toContainText("has not answered since this page opened");
  await expect(stale).toContainText("server_unavailable");

  await proxy.set("pass");
  await expect(page.getByTestId("runs-row").filter({ hasText: workflowId })).toBeVisible({ timeout: RECOVERY_MS });
  await expect(failure).toHaveCount(0);
  await expect(indicator).toHaveAttribute("data-status", "connected", { timeout: RECOVERY_MS });
  await expect(stale).toHaveCount(0);
  await expectSameDocument(page);
});

test("server gone under an open page: the indicator stops saying connected when the page's own read fails", async ({
  page,
}) => {
  test.setTimeout(60_000);
  await proxy.set("pass");
  await page.goto(consoleUrl("/runs"));
  const indicator = page.getByTestId("connection-indicator");
  await expect(page.getByTestId("runs-row").filter({ hasText: workflowId })).toBeVisible();
  await expect(indicator).toHaveAttribute("data-status", "connected", { timeout: 15_000 });
  // What the indicator says one frame after the runs list shows its failed refresh.
  await page.evaluate(() => {
    const root = document.documentElement;
    new MutationObserver((_records, observer) => {
      if (!document.querySelector("[data-testid=runs-refresh-failed]")) return;
      observer.disconnect();
      requestAnimationFrame(() => {
        root.dataset.atFailure =
          document.querySelector("[data-testid=connection-indicator]")?.getAttribute("data-status") ?? "";
      });
    }).observe(document.body, { childList: true, subtree: true });
  });
  // Down right after a health probe answered: the next one is a whole interval (10 s) away, while
  // the runs list refreshes within 5 s and says the server is not answering.
  await page.waitForResponse((response) => response.url().endsWith("/api/dw/health"), { timeout: 15_000 });
  await proxy.set("down");
  try {
    await expect(page.getByTestId("runs-refresh-failed")).toBeVisible({ timeout: 8_000 });
    await expect(page.locator("html")).toHaveAttribute("data-at-failure", /^(checking|unreachable)$/);
    // The probes were asked again at once, and say what the page says.
    await expect(indicator).toHaveAttribute("data-status", "unreachable");
    await expect(page.getByTestId("stale-banner")).toBeVisible();
  } finally {
    await proxy.set("pass");
  }
  await expect(indicator).toHaveAttribute("data-status", "connected", { timeout: RECOVERY_MS });
});

test("an open run's page says the server is back within seconds of its return, after a long outage", async ({
  page,
}) => {
  test.setTimeout(90_000);
  await proxy.set("pass");
  await page.goto(consoleUrl(`/namespaces/default/workflows/${workflowId}`));
  const progress = page.getByTestId("run-view-progress");
  await expect(progress).toHaveAttribute("data-state", "done", { timeout: 20_000 });
  const notChecked = progress.getByText("New events could not be checked");

  await proxy.set("down");
  try {
    await expect(notChecked).toBeVisible({ timeout: 15_000 });
    // An outage long enough for a doubling backoff to grow past a few seconds: the time away is
    // the condition under test, so a fixed wait is the point here.
    // eslint-disable-next-line playwright/no-wait-for-timeout
    await page.waitForTimeout(15_000);
    await expect(notChecked).toBeVisible();
  } finally {
    await proxy.set("pass");
  }
  // Within a few seconds of the server answering (backoff at most 4 s, then one describe), not when
  // the next long-poll ends.
  await expect(notChecked).toHaveCount(0, { timeout: 8_000 });
  await expect(progress).toHaveAttribute("data-state", "done");
});

test("slow server (3 s): checking first, then data, never unreachable", async ({ page }) => {
  test.setTimeout(90_000);
  await proxy.set("slow");
  try {
    const started = Date.now();
    // "commit": the server render itself waits on the slow list, so only the navigation is awaited here.
    await page.goto(consoleUrl("/runs"), { waitUntil: "commit", timeout: 30_000 });
    const indicator = page.getByTestId("connection-indicator");
    // The first health probe takes the full 3 s, so the indicator is seen in its loading state.
    await expect(indicator).toHaveAttribute("data-status", "checking", { timeout: 15_000 });
    await recordStatuses(page);
    await expect(page.getByTestId("runs-row").filter({ hasText: workflowId })).toBeVisible({ timeout: 15_000 });
    await expect(page.getByTestId("runs-loading")).toHaveCount(0);
    expect(Date.now() - started).toBeLessThan(20_000);
    await expect(indicator).toHaveAttribute("data-status", "connected", { timeout: 15_000 });
    // Through the next health probe (10 s interval, 3 s slow) the state never claims the server is gone:
    // the thing observed is a window of time, so a fixed wait is the point here.
    // eslint-disable-next-line playwright/no-wait-for-timeout
    await page.waitForTimeout(12_000);
    const seen = await recordedStatuses(page);
    expect(seen).not.toContain("unreachable");
    expect(seen).toContain("connected");
    await expect(page.getByTestId("dw-error")).toHaveCount(0);
  } finally {
    await proxy.set("pass");
  }
});

test("slow server (3 s): the run page sends its title and a loading line first, then the run", async ({ page }) => {
  test.setTimeout(60_000);
  await proxy.set("slow");
  try {
    await page.goto(consoleUrl(`/namespaces/default/workflows/${workflowId}`), {
      waitUntil: "commit",
      timeout: 30_000,
    });
    // Describe and debug take longer than the server render waits for them, so the page streams.
    await expect(page.getByTestId("run-detail-loading")).toBeVisible({ timeout: 2_500 });
    await expect(page.getByTestId("run-header")).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId("run-detail-loading")).toHaveCount(0);
  } finally {
    await proxy.set("pass");
  }
});

test("server restart mid-session: the runs page and the indicator recover by themselves", async ({ page }) => {
  test.setTimeout(90_000);
  await proxy.set("pass");
  await page.goto(consoleUrl("/runs"));
  const indicator = page.getByTestId("connection-indicator");
  const row = page.getByTestId("runs-row").filter({ hasText: workflowId });
  await expect(row).toBeVisible();
  await expect(indicator).toHaveAttribute("data-status", "connected", { timeout: 15_000 });
  await markDocument(page);

  const restarted = proxy.restart(RESTART_DOWN_MS);
  // A refresh inside the outage fails; the rows already shown stay, with the failure noted.
  await expect(page.getByTestId("runs-refresh-failed")).toBeVisible({ timeout: RESTART_DOWN_MS + 2_000 });
  await expect(row).toBeVisible();
  await restarted;

  await expect(page.getByTestId("runs-refresh-failed")).toHaveCount(0, { timeout: RECOVERY_MS });
  await expect(row).toBeVisible();
  await expect(indicator).toHaveAttribute("data-status", "connected", { timeout: RECOVERY_MS });
  await expect(page.getByTestId("dw-error")).toHaveCount(0);
  await expectSameDocument(page);
});
