import { describe, expect, it } from "vitest";
import { buttonClass } from "@/components/ui/button";

describe("buttonClass", () => {
  it("gives a pressed button the pressed colours instead of the variant's, so its text stays readable", () => {
    const pressed = buttonClass({ variant: "ghost", pressed: true }).split(" ");
    expect(pressed).toContain("text-accent-fg");
    expect(pressed).not.toContain("text-fg-muted");
    expect(buttonClass({ variant: "ghost", pressed: false }).split(" ")).toContain("text-fg-muted");
  });

  it("keeps only the focus ring and disabled look for a bare button", () => {
    const bare = buttonClass({ variant: "bare", className: "flex w-full" });
    expect(bare).toContain("focus-visible:outline-2");
    expect(bare).toContain("disabled:opacity-50");
    expect(bare).not.toContain("inline-flex");
    expect(bare).not.toMatch(/\bh-8\b/);
    expect(bare.endsWith("flex w-full")).toBe(true);
  });
});
