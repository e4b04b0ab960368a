// @vitest-environment jsdom
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { useEffect } from "react";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import en from "@/messages/en.json";
import type { RunActionRequest } from "@/lib/actions/contract";
import { ActionDialog } from "@/components/actions/action-dialog";
import { useActionDialog } from "@/components/actions/use-action-dialog";

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

function SignalDialog({ awaited, onSubmit }: { awaited: string[]; onSubmit: (request: RunActionRequest) => void }) {
  const dialog = useActionDialog("refund-approval-1");
  const { open } = dialog;
  useEffect(() => open("signal"), [open]);
  return (
    <ActionDialog
      dialog={dialog}
      workflowId="refund-approval-1"
      runId="01RUN"
      workflowType="RefundApprovalWorkflow"
      livenessReason={null}
      awaitedSignals={awaited}
      onSubmit={onSubmit}
    />
  );
}

function renderDialog(awaited: string[]) {
  const sent: RunActionRequest[] = [];
  render(
    <NextIntlClientProvider locale="en" messages={en} timeZone="UTC">
      <SignalDialog awaited={awaited} onSubmit={(request) => sent.push(request)} />
    </NextIntlClientProvider>,
  );
  const input = screen.getByRole("textbox", { name: "Signal name" });
  return { sent, input };
}

describe("signal dialog", () => {
  it("offers the awaited names and fills the field with one", () => {
    const { input } = renderDialog(["approve"]);
    expect(screen.getByTestId("awaited-signals").textContent).toContain("approve");
    fireEvent.click(screen.getByRole("button", { name: "approve" }));
    expect((input as HTMLInputElement).value).toBe("approve");
    expect(screen.queryByTestId("signal-name-warning")).toBeNull();
    expect(screen.getByTestId("action-submit").textContent).toBe("Send signal");
  });

  it("warns before a name the run does not await, suggests the closest, and says the send is anyway", () => {
    const { input, sent } = renderDialog(["approve", "reject"]);
    fireEvent.change(input, { target: { value: "aprove" } });
    const warning = screen.getByTestId("signal-name-warning");
    expect(warning.textContent).toContain("not waiting for a signal named “aprove”");
    expect(screen.getByTestId("action-submit").textContent).toBe("Send ‘aprove’ anyway");

    fireEvent.click(screen.getByRole("button", { name: "Use approve" }));
    expect((input as HTMLInputElement).value).toBe("approve");
    expect(screen.queryByTestId("signal-name-warning")).toBeNull();

    fireEvent.change(input, { target: { value: "aprove" } });
    fireEvent.click(screen.getByTestId("action-submit"));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ action: "signal", signalName: "aprove" });
  });

  it("says so when the run awaits no signal at all", () => {
    const { input } = renderDialog([]);
    expect(screen.queryByTestId("awaited-signals")).toBeNull();
    fireEvent.change(input, { target: { value: "approve" } });
    expect(screen.getByTestId("signal-name-check").dataset.check).toBe("none_awaited");
    expect(screen.getByTestId("action-submit").textContent).toBe("Send ‘approve’ anyway");
  });
});
