// @vitest-environment jsdom
import { cleanup, render } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { earlyTabProps, useEarlyTab } from "@/components/hooks/use-early-tab";
import { HEAD_SCRIPT } from "@/lib/preferences/head-script";

afterEach(() => {
  cleanup();
  delete window.__bwHydrated;
  document.documentElement.removeAttribute("data-early-tab");
  document.body.innerHTML = "";
});

function Page({ accept }: { accept: (view: string) => void }) {
  useEarlyTab(accept);
  return null;
}

describe("early tab clicks", () => {
  it("the head script keeps a click made before hydration and the hook applies it once", () => {
    // The head script as the browser runs it, before any React code.
    new Function(HEAD_SCRIPT)();
    document.body.innerHTML = `<button ${Object.entries(earlyTabProps("activities"))
      .map(([k, v]) => `${k}="${v}"`)
      .join(" ")}><span>Activities</span></button>`;
    document.querySelector("span")!.click();
    expect(document.documentElement.getAttribute("data-early-tab")).toBe("activities");

    const accept = vi.fn();
    render(<Page accept={accept} />);
    expect(accept).toHaveBeenCalledWith("activities");
    expect(document.documentElement.hasAttribute("data-early-tab")).toBe(false);

    // Hydrated: React handles clicks from now on, the script records nothing more.
    document.querySelector("span")!.click();
    expect(document.documentElement.hasAttribute("data-early-tab")).toBe(false);
  });

  it("does nothing when no tab was clicked early", () => {
    const accept = vi.fn();
    render(<Page accept={accept} />);
    expect(accept).not.toHaveBeenCalled();
    expect(window.__bwHydrated).toBe(true);
  });
});
