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
    // React's listeners sit on the document once hydration starts: the early click never reaches them.
    const reactSaw: string[] = [];
    const types = ["pointerdown", "mousedown", "focusin", "pointerup", "mouseup", "click"];
    for (const type of types) document.addEventListener(type, () => reactSaw.push(type), true);
    const press = () => {
      const span = document.querySelector("span")!;
      for (const type of types.slice(0, -1)) span.dispatchEvent(new Event(type, { bubbles: true, composed: true }));
      span.click();
    };
    press();
    expect(document.documentElement.getAttribute("data-early-tab")).toBe("activities");
    expect(reactSaw).toEqual([]);
    // Elsewhere on the page events pass as they are.
    document.body.dispatchEvent(new Event("pointerdown", { bubbles: true }));
    expect(reactSaw).toEqual(["pointerdown"]);
    reactSaw.length = 0;

    const accept = vi.fn();
    render(<Page accept={accept} />);
    expect(accept).toHaveBeenCalledWith("activities");
    expect(document.documentElement.hasAttribute("data-early-tab")).toBe(false);

    // Hydrated: React handles clicks from now on, the script records and stops nothing more.
    press();
    expect(document.documentElement.hasAttribute("data-early-tab")).toBe(false);
    expect(reactSaw).toEqual(types);
  });

  it("does nothing when no tab was clicked early", () => {
    const accept = vi.fn();
    render(<Page accept={accept} />);
    expect(accept).not.toHaveBeenCalled();
    expect(window.__bwHydrated).toBe(true);
  });
});
