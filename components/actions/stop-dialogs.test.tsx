// @vitest-environment jsdom
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { useEffect } from "react";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import en from "@/messages/en.json";
import type { RunActionRequest } from "@/lib/actions/contract";
import type { RunAction } from "@/lib/views/capabilities";
import { ActionDialog } from "@/components/actions/action-dialog";
import { useActionDialog } from "@/components/actions/use-action-dialog";

/** The three stops' dialogs (issue 41): what each does to running activities, and the cleanup bound. */

afterEach(cleanup);
beforeAll(() => {
  // jsdom has no modal dialogs; the dialog's content renders either way.
  HTMLDialogElement.prototype.showModal = vi.fn(function (this: HTMLDialogElement) {
    this.setAttribute("open", "");
  });
  HTMLDialogElement.prototype.close = vi.fn(function (this: HTMLDialogElement) {
    this.removeAttribute("open");
  });
});

function OpenDialog({ action, onSubmit }: { action: RunAction; onSubmit: (request: RunActionRequest) => void }) {
  const dialog = useActionDialog("order-42");
  const { open } = dialog;
  useEffect(() => open(action), [open, action]);
  return (
    <ActionDialog
      dialog={dialog}
      workflowId="order-42"
      runId="01RUN"
      workflowType="Order"
      livenessReason={null}
      onSubmit={onSubmit}
    />
  );
}

function renderDialog(action: RunAction) {
  const sent: RunActionRequest[] = [];
  render(
    <NextIntlClientProvider locale="en" messages={en} timeZone="UTC">
      <OpenDialog action={action} onSubmit={(request) => sent.push(request)} />
    </NextIntlClientProvider>,
  );
  return sent;
}

describe("the stop dialogs", () => {
  it.each(["requestCancellation", "cancel", "terminate"] as const)(
    "%s lists all three stops' effect on running activities, its own marked",
    (action) => {
      renderDialog(action);
      const items = screen.getByTestId("stop-effects").querySelectorAll("li[data-effect]");
      expect([...items].map((item) => item.getAttribute("data-effect"))).toEqual([
        "requestCancellation",
        "cancel",
        "terminate",
      ]);
      const current = screen.getByTestId("stop-effects").querySelectorAll('li[aria-current="true"]');
      expect([...current].map((item) => item.getAttribute("data-effect"))).toEqual([action]);
    },
  );

  it("other actions' dialogs do not", () => {
    renderDialog("signal");
    expect(screen.queryByTestId("stop-effects")).toBeNull();
  });

  it("request cancellation refuses a bound outside 1–3600 on its field and sends a valid one", () => {
    const sent = renderDialog("requestCancellation");
    const bound = screen.getByRole("textbox", { name: /Cleanup bound \(seconds\)/ });
    expect((bound as HTMLInputElement).value).toBe("600");
    expect(bound.getAttribute("inputmode")).toBe("numeric");
    fireEvent.change(bound, { target: { value: "3601" } });
    fireEvent.click(screen.getByTestId("action-submit"));
    expect(sent).toEqual([]);
    expect(screen.getByText("Give a whole number of seconds from 1 to 3600.")).toBeTruthy();
    fireEvent.change(bound, { target: { value: "90" } });
    fireEvent.click(screen.getByTestId("action-submit"));
    expect(sent).toMatchObject([
      { action: "requestCancellation", workflowId: "order-42", runId: "01RUN", cleanupTimeoutSeconds: 90 },
    ]);
  });
});
