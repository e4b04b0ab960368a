import { expect } from "@playwright/test";
import type { Page } from "@playwright/test";

/**
 * Controls are server-rendered, so they are visible before React attaches their handlers, and a
 * click or key press before hydration is lost. The connection indicator leaves "checking" only
 * through client-side queries: the page has hydrated and its first live read has come back.
 */
export const hydrated = (page: Page) =>
  expect(page.getByTestId("connection-indicator")).not.toHaveAttribute("data-status", "checking", { timeout: 30_000 });
