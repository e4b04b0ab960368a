import { mkdtempSync } from "node:fs";
import { request as httpRequest } from "node:http";
import type { IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import type { ExtraConsole } from "./operator-fixtures";
import { PASSWORDS, SESSION_SECRET, startConsole, writeUsersFile } from "./operator-fixtures";

/**
 * Issue 37 part 1, bullets 3–4, against production consoles of their own (password mode), over raw
 * loopback HTTP so every header is the test's:
 *  - forwarded headers (X-Forwarded-Proto, -Host, …) count only from BREAKWATER_TRUSTED_PROXIES:
 *    from any other peer they neither make the session cookie Secure nor add
 *    upgrade-insecure-requests (Next itself derives the request's https from X-Forwarded-Proto),
 *    nor change the host the console answers to;
 *  - one person's flood gets 429s with Retry-After while another person's read is answered;
 *  - one person's pulse streams take only their share of the relays, and closing one frees it.
 * Counts and statuses only, never timings.
 */

const dwHost = process.env.E2E_DW_HOST ?? "";
const kikwiflowUrl = process.env.E2E_KIKWIFLOW_URL ?? "";

test.describe.configure({ mode: "serial" });
test.skip(!dwHost, "no Durable Workflow server for e2e");

interface Answer {
  status: number;
  headers: IncomingMessage["headers"];
  body: string;
}

/** One request on a connection of its own (no pooling: a flood is that many sockets). */
function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? "GET", headers: options.headers, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

/** An open response whose body is left unread (a held stream); `close` drops its connection. */
function openStream(url: string, headers: Record<string, string>): Promise<{ status: number; close: () => void }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers, agent: false }, (res) => {
      if ((res.statusCode ?? 0) !== 200) res.resume();
      resolve({ status: res.statusCode ?? 0, close: () => req.destroy() });
    });
    req.on("error", reject);
    req.end();
  });
}

async function passwordConsole(trustedProxies: string, extra: Record<string, string> = {}): Promise<ExtraConsole> {
  const dir = mkdtempSync(join(tmpdir(), "bw-fairness-e2e-"));
  return startConsole({
    BREAKWATER_AUTH: "password",
    BREAKWATER_USERS_FILE: writeUsersFile(dir),
    BREAKWATER_SESSION_SECRET: SESSION_SECRET,
    BREAKWATER_TRUSTED_PROXIES: trustedProxies,
    ...(kikwiflowUrl ? { KIKWIFLOW_URL: kikwiflowUrl } : {}),
    ...extra,
  });
}

/** Signs in through the form's endpoint; the answer carries the session cookie as the console set it. */
function logIn(app: ExtraConsole, user: keyof typeof PASSWORDS, headers: Record<string, string> = {}) {
  return send(`${app.baseUrl}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: app.baseUrl, ...headers },
    body: new URLSearchParams({ user, password: PASSWORDS[user], next: "/runs" }).toString(),
  });
}

function sessionOf(answer: Answer): { cookie: string; setCookie: string } {
  const setCookie = (answer.headers["set-cookie"] ?? []).find((line) => line.startsWith("bw_session=")) ?? "";
  expect(setCookie, "a session cookie").not.toBe("");
  return { cookie: setCookie.split(";")[0]!, setCookie };
}

const FORWARDED = { "x-forwarded-proto": "https", "x-forwarded-host": "console.allowed.test" };

test.describe("forwarded headers", () => {
  test("from a peer that is not a trusted proxy they change nothing: no Secure cookie, no upgrade-insecure-requests, no forwarded host", async () => {
    test.setTimeout(90_000);
    const app = await passwordConsole("10.9.9.9", { BREAKWATER_ALLOWED_HOSTS: "console.allowed.test" });
    try {
      // "http, https": the old checks read its first value, but Next's own `includes("https")` made
      // request.nextUrl https from it (seen on the build before this change: Secure and upgrade both).
      for (const proto of ["https", "http, https"]) {
        const headers = { ...FORWARDED, "x-forwarded-proto": proto };
        const login = await logIn(app, "vic", headers);
        expect(login.status).toBe(303);
        expect(sessionOf(login).setCookie, proto).not.toMatch(/;\s*secure/i);
        const page = await send(`${app.baseUrl}/login`, { headers });
        expect(page.status).toBe(200);
        expect(page.headers["content-security-policy"], proto).not.toContain("upgrade-insecure-requests");
      }

      // A name the console does not answer to, dressed with an allowed X-Forwarded-Host: still refused.
      const port = new URL(app.baseUrl).port;
      const rebound = await send(`${app.baseUrl}/api/dw/cluster/info`, {
        headers: { host: `rebind.attacker.test:${port}`, "x-forwarded-host": `console.allowed.test:${port}` },
      });
      expect(rebound.status).toBe(421);
    } finally {
      await app.stop();
    }
  });

  test("from a trusted proxy they are honoured", async () => {
    test.setTimeout(90_000);
    const app = await passwordConsole("127.0.0.1,::1", { BREAKWATER_ALLOWED_HOSTS: "console.allowed.test" });
    try {
      // Only the scheme: a forwarded host would be believed here, and the form's Origin names 127.0.0.1.
      const login = await logIn(app, "vic", { "x-forwarded-proto": "https" });
      expect(login.status).toBe(303);
      expect(sessionOf(login).setCookie).toMatch(/;\s*secure/i);

      const page = await send(`${app.baseUrl}/login`, { headers: FORWARDED });
      expect(page.headers["content-security-policy"]).toContain("upgrade-insecure-requests");

      const port = new URL(app.baseUrl).port;
      const forwardedHost = await send(`${app.baseUrl}/api/dw/cluster/info`, {
        headers: { host: `rebind.attacker.test:${port}`, "x-forwarded-host": `console.allowed.test:${port}` },
      });
      // Past the host check: the answer is about the session, not the host.
      expect(forwardedHost.status).toBe(401);
    } finally {
      await app.stop();
    }
  });
});

test.describe("one person cannot starve the others", () => {
  let app: ExtraConsole;
  /** Each person's session and address, as a TLS terminator on this host forwards them. */
  let vic: Record<string, string>;
  let ada: Record<string, string>;

  test.beforeAll(async () => {
    test.setTimeout(90_000);
    app = await passwordConsole("127.0.0.1,::1");
    vic = { cookie: sessionOf(await logIn(app, "vic")).cookie, "x-forwarded-for": "10.0.0.1" };
    ada = { cookie: sessionOf(await logIn(app, "ada")).cookie, "x-forwarded-for": "10.0.0.2" };
  });

  test.afterAll(async () => {
    await app?.stop();
  });

  test("a flood from one person gets 429 with Retry-After while another person's read is answered", async () => {
    test.setTimeout(90_000);
    const FLOOD = 300;
    const read = (headers: Record<string, string>) => send(`${app.baseUrl}/api/dw/cluster/info`, { headers });
    const flood = Array.from({ length: FLOOD }, () => read(vic));
    const other = read(ada);
    const [answers, theirs] = await Promise.all([Promise.all(flood), other]);

    expect(theirs.status).toBe(200);
    expect(JSON.parse(theirs.body)).toHaveProperty("server_id");
    const refused = answers.filter((answer) => answer.status === 429);
    const served = answers.filter((answer) => answer.status === 200);
    expect(served.length + refused.length).toBe(FLOOD);
    // The first 16 (BREAKWATER_READS_PER_PERSON) are always admitted; the rest of a 300-socket burst is
    // not: refused by the peer stamp past 64 from the address, by the read route past 16 for the person.
    expect(served.length).toBeGreaterThanOrEqual(16);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) {
      expect(answer.headers["retry-after"]).toBe("1");
      expect(JSON.parse(answer.body)).toMatchObject({ reason: "too_many_in_flight", httpStatus: 429 });
    }
    // Every place came back: the flooder reads again.
    expect((await read(vic)).status).toBe(200);
  });

  test("one person's pulse streams take only their share of the relays; a second person still gets one", async () => {
    test.skip(!kikwiflowUrl, "no Kikwiflow engine (KIKWIFLOW_HOST_JAR)");
    test.setTimeout(60_000);
    const list = await send(`${app.baseUrl}/api/kikwiflow/definitions`, { headers: ada });
    const definitions = JSON.parse(list.body) as { id: string; key: string }[];
    const fatal = definitions.find((definition) => definition.key === "kiki-fatal");
    expect(fatal, "the host's kiki-fatal definition").toBeDefined();
    const pulseUrl = `${app.baseUrl}/api/kikwiflow/definitions/${encodeURIComponent(fatal!.id)}/pulse`;
    const sse = (person: Record<string, string>) => ({ ...person, accept: "text/event-stream" });

    const mine = [];
    for (let i = 0; i < 4; i++) mine.push(await openStream(pulseUrl, sse(vic)));
    expect(mine.map((stream) => stream.status)).toEqual([200, 200, 200, 200]);
    const fifth = await send(pulseUrl, { headers: sse(vic) });
    expect(fifth.status).toBe(429);
    expect(fifth.headers["retry-after"]).toBe("15");

    const theirs = await openStream(pulseUrl, sse(ada));
    expect(theirs.status).toBe(200);
    theirs.close();

    // A stream the browser drops gives its place back (the relay sees the abort).
    mine[0]!.close();
    await expect
      .poll(async () => {
        const again = await openStream(pulseUrl, sse(vic));
        if (again.status === 200) mine.push(again);
        return again.status;
      })
      .toBe(200);
    for (const stream of mine) stream.close();
  });
});

test("a pulse relay at the end of its lifetime is reopened by the page at once, which stays live", async ({ page }) => {
  test.skip(!kikwiflowUrl, "no Kikwiflow engine (KIKWIFLOW_HOST_JAR)");
  test.setTimeout(180_000);
  // The shortest lifetime there is: one minute. No auth: this browser is the console's one person.
  const app = await startConsole({ KIKWIFLOW_URL: kikwiflowUrl, BREAKWATER_PULSE_MAX_MINUTES: "1" });
  try {
    const list = await send(`${app.baseUrl}/api/kikwiflow/definitions`);
    const fatal = (JSON.parse(list.body) as { id: string; key: string }[]).find((d) => d.key === "kiki-fatal");
    expect(fatal, "the host's kiki-fatal definition").toBeDefined();
    let relays = 0;
    page.on("request", (request) => {
      if (request.url().endsWith("/pulse")) relays += 1;
    });
    await page.goto(`${app.baseUrl}/kikwiflow/definitions/${fatal!.id}`);
    const status = page.getByTestId("kikwiflow-pulse-status");
    await expect(status).toHaveAttribute("data-phase", "live");
    // Every phase the status takes from here on, as the page shows it.
    await status.evaluate((element) => {
      const seen: string[] = [];
      (window as unknown as { pulsePhases: string[] }).pulsePhases = seen;
      new MutationObserver(() => seen.push(element.getAttribute("data-phase") ?? "")).observe(element, {
        attributes: true,
        attributeFilter: ["data-phase"],
      });
    });
    expect(relays).toBe(1);
    await expect.poll(() => relays, { timeout: 120_000 }).toBe(2);
    await expect(status).toHaveAttribute("data-phase", "live");
    const phases = await page.evaluate(() => (window as unknown as { pulsePhases: string[] }).pulsePhases);
    expect(phases.filter((phase) => phase !== "live")).toEqual([]);
  } finally {
    await app.stop();
  }
});
