// @vitest-environment jsdom
import { afterEach, describe, expect, it } from "vitest";
import { useState } from "react";
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { MENU_ITEM, Menu } from "@/components/ui/menu";

afterEach(cleanup);

function Harness() {
  const [open, setOpen] = useState(false);
  return (
    <div>
      <Menu
        label="Colours"
        summary="any"
        open={open}
        onOpenChange={setOpen}
        triggerTestId="trigger"
        panelTestId="panel"
      >
        {["red", "green", "blue"].map((colour) => (
          <label key={colour}>
            <input type="checkbox" {...MENU_ITEM} /> {colour}
          </label>
        ))}
      </Menu>
      <p data-testid="outside">elsewhere</p>
    </div>
  );
}

describe("Menu", () => {
  it("is named by its label, opens with focus on the first item, roves with arrows, Home and End", () => {
    render(<Harness />);
    const trigger = screen.getByTestId("trigger");
    expect(trigger.getAttribute("aria-expanded")).toBe("false");
    fireEvent.keyDown(trigger, { key: "ArrowDown" });
    const panel = screen.getByTestId("panel");
    expect(trigger.getAttribute("aria-expanded")).toBe("true");
    expect(trigger.getAttribute("aria-controls")).toBe(panel.id);
    const boxes = within(panel).getAllByRole("checkbox");
    expect(document.activeElement).toBe(boxes[0]);
    fireEvent.keyDown(boxes[0]!, { key: "ArrowDown" });
    expect(document.activeElement).toBe(boxes[1]);
    fireEvent.keyDown(boxes[1]!, { key: "End" });
    expect(document.activeElement).toBe(boxes[2]);
    fireEvent.keyDown(boxes[2]!, { key: "ArrowDown" });
    expect(document.activeElement).toBe(boxes[2]);
    fireEvent.keyDown(boxes[2]!, { key: "Home" });
    expect(document.activeElement).toBe(boxes[0]);
    fireEvent.keyDown(boxes[0]!, { key: "ArrowUp" });
    expect(document.activeElement).toBe(boxes[0]);
  });

  it("closes on Escape (focus back on the button) and on a press outside", () => {
    render(<Harness />);
    const trigger = screen.getByTestId("trigger");
    fireEvent.click(trigger);
    fireEvent.keyDown(within(screen.getByTestId("panel")).getAllByRole("checkbox")[1]!, { key: "Escape" });
    expect(screen.queryByTestId("panel")).toBeNull();
    expect(document.activeElement).toBe(trigger);
    fireEvent.click(trigger);
    expect(screen.getByTestId("panel")).toBeTruthy();
    fireEvent.pointerDown(within(screen.getByTestId("panel")).getAllByRole("checkbox")[0]!);
    expect(screen.getByTestId("panel")).toBeTruthy();
    fireEvent.pointerDown(screen.getByTestId("outside"));
    expect(screen.queryByTestId("panel")).toBeNull();
  });
});
