import { expect, test } from "@playwright/test";
import type { Response } from "@playwright/test";

/**
 * The build's script and style files come from the copies `npm run build` compressed
 * (lib/server/edge/static-assets.ts, decision 0037): brotli to Chromium, with the caching and security
 * headers Next.js would have sent, and the page they make works.
 */

test("a page's scripts and styles arrive as brotli with Next's caching and the security headers", async ({ page }) => {
  const assets: Response[] = [];
  page.on("response", (response) => {
    if (/\/_next\/static\/.+\.(js|css)$/.test(new URL(response.url()).pathname)) assets.push(response);
  });
  await page.goto("/runs");
  // The scripts ran: the page hydrated (components/hooks/hydrated-mark.ts), so every first-load file came.
  await page.waitForFunction(() => (window as { __bwHydrated?: boolean }).__bwHydrated === true);

  expect(assets.length).toBeGreaterThan(5);
  expect(assets.some((r) => r.url().endsWith(".css"))).toBe(true);
  for (const response of assets) {
    const headers = await response.allHeaders();
    const what = new URL(response.url()).pathname;
    expect(response.status(), what).toBe(200);
    expect(headers["content-encoding"], what).toBe("br");
    expect(headers["cache-control"], what).toBe("public, max-age=31536000, immutable");
    expect(headers["x-content-type-options"], what).toBe("nosniff");
    expect(headers["content-type"], what).toMatch(/^(application\/javascript|text\/css); charset=UTF-8$/);
  }
});
