// @vitest-environment jsdom
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render, screen } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import type { Locale } from "@/lib/i18n/locales";
import { loadMessages } from "@/lib/i18n/messages";
import { ActionStatus } from "@/components/actions/action-status";
import type { ConfirmState } from "@/components/actions/use-confirmation";
import type { Phase } from "@/components/actions/use-action-submit";

afterEach(cleanup);

const accepted: Phase = {
  kind: "answered",
  action: "signal",
  answerMs: 40,
  answer: {
    result: "accepted",
    httpStatus: 200,
    action: "signal",
    workflowId: "order-42",
    runId: "run-1",
    commandId: "cmd-1",
    outcome: "signal_received",
    rejectionReason: null,
    message: null,
  },
};

const confirmed: ConfirmState = {
  target: {
    command: { action: "signal", commandId: "cmd-1", outcome: "signal_received" },
    workflowId: "order-42",
    runId: "run-1",
    afterSequence: 3,
    clickedAt: 0,
  },
  confirmation: { phase: "confirmed", steps: [], pending: [], elapsedMs: 1_530 },
  durableMs: 1_530,
  runStatus: null,
  livenessState: null,
  readError: null,
};

function renderIn(locale: Locale) {
  render(
    <NextIntlClientProvider locale={locale} messages={loadMessages(locale)} timeZone="UTC">
      <ActionStatus namespace="default" phase={accepted} confirm={confirmed} onRecheck={() => {}} />
    </NextIntlClientProvider>,
  );
  return screen.getByTestId("confirmation").querySelector("p")?.textContent;
}

describe("ActionStatus", () => {
  it("gives the click-to-durable time with the locale's decimal separator", () => {
    expect(renderIn("en")).toBe("Durable result confirmed 1.5 s after the click.");
    cleanup();
    expect(renderIn("fr")).toBe("Résultat durable confirmé 1,5 s après le clic.");
    cleanup();
    expect(renderIn("pt-BR")).toBe("Resultado durável confirmado 1,5 s após o clique.");
  });
});
