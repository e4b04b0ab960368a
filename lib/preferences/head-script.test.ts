// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from "vitest";
import { HEAD_SCRIPT } from "@/lib/preferences/head-script";

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  document.cookie = "bw-tz=; Max-Age=0; Path=/";
});

describe("head script", () => {
  it("reports the time zone only after the HTML is parsed, not before the first paint", () => {
    vi.useFakeTimers();
    vi.spyOn(document, "readyState", "get").mockReturnValue("loading");
    const intl = vi.spyOn(Intl, "DateTimeFormat");
    new Function(HEAD_SCRIPT)();
    expect(intl).not.toHaveBeenCalled();
    expect(document.cookie).not.toContain("bw-tz=");
    document.dispatchEvent(new Event("DOMContentLoaded"));
    vi.runAllTimers();
    expect(intl).toHaveBeenCalled();
    expect(document.cookie).toContain("bw-tz=");
  });
});
