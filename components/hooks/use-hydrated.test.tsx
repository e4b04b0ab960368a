// @vitest-environment jsdom
import { act } from "react";
import { hydrateRoot } from "react-dom/client";
import { renderToString } from "react-dom/server";
import { afterEach, describe, expect, it } from "vitest";
import { useHydrated } from "@/components/hooks/use-hydrated";

afterEach(() => {
  document.body.innerHTML = "";
});

function Act({ onClick }: { onClick: () => void }) {
  return (
    <button type="button" disabled={!useHydrated()} onClick={onClick}>
      Terminate
    </button>
  );
}

describe("useHydrated", () => {
  it("is false in the server render and while hydrating, true once the page is interactive", async () => {
    let clicks = 0;
    const html = renderToString(<Act onClick={() => clicks++} />);
    // The server sends the control disabled: a click before hydration would be lost.
    expect(html).toContain('disabled=""');
    const container = document.createElement("div");
    container.innerHTML = html;
    document.body.append(container);
    const button = container.querySelector("button")!;
    expect(button.disabled).toBe(true);

    const errors: unknown[] = [];
    await act(async () => {
      hydrateRoot(container, <Act onClick={() => clicks++} />, { onRecoverableError: (e) => errors.push(e) });
    });
    // Hydrated without a mismatch, then enabled, and the click reaches its handler.
    expect(errors).toEqual([]);
    expect(container.querySelector("button")).toBe(button);
    expect(button.disabled).toBe(false);
    button.click();
    expect(clicks).toBe(1);
  });
});
