// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import Link from "@/components/ui/link";

// Next's Link needs the app router; what this wrapper decides is the `prefetch` it passes, so the
// stand-in records that prop on the anchor.
vi.mock("next/link", () => ({
  default: ({ prefetch, children, ...props }: { prefetch?: boolean | null; children: ReactNode }) => (
    <a data-prefetch={String(prefetch)} {...props}>
      {children}
    </a>
  ),
}));

afterEach(cleanup);

describe("Link", () => {
  it("does not prefetch until the pointer is on it, then lets Next prefetch as it would", () => {
    const onMouseEnter = vi.fn();
    render(
      <Link href="/namespaces/default/runs" onMouseEnter={onMouseEnter}>
        Runs
      </Link>,
    );
    const link = screen.getByText("Runs");
    expect(link.getAttribute("data-prefetch")).toBe("false");
    fireEvent.mouseEnter(link);
    expect(link.getAttribute("data-prefetch")).toBe("null");
    expect(onMouseEnter).toHaveBeenCalledTimes(1);
  });

  it("prefetches on keyboard focus too, and never when the caller said prefetch={false}", () => {
    render(
      <>
        <Link href="/a">A</Link>
        <Link href="/b" prefetch={false}>
          B
        </Link>
      </>,
    );
    fireEvent.focus(screen.getByText("A"));
    fireEvent.focus(screen.getByText("B"));
    expect(screen.getByText("A").getAttribute("data-prefetch")).toBe("null");
    expect(screen.getByText("B").getAttribute("data-prefetch")).toBe("false");
  });
});
