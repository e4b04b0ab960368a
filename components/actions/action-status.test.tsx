// @vitest-environment jsdom
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render, screen } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import en from "@/messages/en.json";
import { evaluateConfirmation } from "@/lib/confirm/confirm";
import type { DerivedWait } from "@/lib/views/waits";
import { ActionStatus } from "@/components/actions/action-status";
import type { WaitsRead } from "@/components/actions/action-status";
import type { ConfirmState } from "@/components/actions/use-confirmation";

afterEach(cleanup);

const command = { action: "signal" as const, commandId: "cmd-1", outcome: "signal_received" };

/** A signal confirmed from history: SignalReceived at sequence 4 carries no `outcome` field. */
function confirmed(): ConfirmState {
  const confirmation = evaluateConfirmation(
    command,
    {
      events: [
        { sequence: 4, event_type: "SignalReceived", payload: { signal_name: "aprove", workflow_command_id: "cmd-1" } },
      ],
    },
    { startedAt: 0, now: 100, timeoutMs: 30_000 },
  );
  return {
    target: { command, workflowId: "refund-approval-1", runId: "01RUN", afterSequence: 3, clickedAt: 0 },
    confirmation,
    durableMs: 180,
    runStatus: "waiting",
    livenessState: null,
    readError: null,
  };
}

const approveWait = (status: string): DerivedWait => ({
  id: "wait-1",
  kind: "signal",
  sequence: 1,
  status,
  summary: null,
  opened_at: null,
  deadline_at: null,
  resolved_at: null,
  target_name: "approve",
});

function renderStatus(waits: WaitsRead | null) {
  const confirm = confirmed();
  expect(confirm.confirmation.phase).toBe("confirmed");
  render(
    <NextIntlClientProvider locale="en" messages={en} timeZone="UTC">
      <ActionStatus
        namespace="default"
        phase={{
          kind: "answered",
          action: "signal",
          answerMs: 40,
          answer: {
            result: "accepted",
            httpStatus: 202,
            action: "signal",
            workflowId: "refund-approval-1",
            runId: "01RUN",
            commandId: "cmd-1",
            outcome: "signal_received",
            rejectionReason: null,
            message: null,
          },
        }}
        confirm={confirm}
        onRecheck={() => {}}
        waits={waits}
      />
    </NextIntlClientProvider>,
  );
}

describe("signal confirmation", () => {
  it("names the recorded sequence without an empty outcome", () => {
    renderStatus(null);
    const step = screen.getByTestId("confirmation").querySelector('[data-step="command_recorded"]');
    expect(step?.textContent).toContain("SignalReceived recorded at history sequence 4.");
    expect(step?.textContent).not.toContain("()");
  });

  it("says the run still waits once the waits cover the signal", () => {
    renderStatus({ waits: [approveWait("open")], readThrough: 4 });
    const line = screen.getByTestId("signal-follow-up");
    expect(line.dataset.followUp).toBe("still_waiting");
    expect(line.textContent).toBe("The run is still waiting for approve.");
  });

  it("checks until the waits reach the recorded event, then says when none is left", () => {
    renderStatus({ waits: [approveWait("open")], readThrough: 3 });
    expect(screen.getByTestId("signal-follow-up").dataset.followUp).toBe("checking");
    cleanup();
    renderStatus({ waits: [approveWait("resolved")], readThrough: 5 });
    expect(screen.getByTestId("signal-follow-up").textContent).toBe("The run no longer waits for a signal.");
  });
});
