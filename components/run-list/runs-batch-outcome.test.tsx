// @vitest-environment jsdom
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render, screen } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import type { AbstractIntlMessages } from "next-intl";
import en from "@/messages/en.json";
import de from "@/messages/de.json";
import ja from "@/messages/ja.json";
import { BatchOutcomeView } from "@/components/run-list/runs-batch";
import type { BatchOutcome } from "@/lib/views/run-batch";
import type { Locale } from "@/lib/i18n/locales";

afterEach(cleanup);

const outcome: BatchOutcome = {
  sent: 3,
  accepted: 3,
  rejected: 0,
  errors: 0,
  closedBy: { terminated: 2, completed: 1 },
  stillOpen: 0,
  settled: true,
};

function closedLine(locale: Locale, messages: AbstractIntlMessages): string {
  render(
    <NextIntlClientProvider locale={locale} messages={messages} timeZone="UTC">
      <BatchOutcomeView outcome={outcome} done />
    </NextIntlClientProvider>,
  );
  return screen.getByTestId("runs-batch-closed").textContent ?? "";
}

describe("the batch outcome's closed runs", () => {
  it("names each status in the operator's language, never the server's English code", () => {
    expect(closedLine("de", de)).toBe("Seitdem beendet: terminiert (2) und abgeschlossen (1); 0 noch offen.");
    cleanup();
    expect(closedLine("ja", ja)).toBe("その後: 終了 強制終了 2 件、完了 1 件、未完了 0 件。");
  });

  it("reads as before in English", () => {
    expect(closedLine("en", en)).toBe("Since then: closed 2 terminated and 1 completed; 0 still open.");
  });
});
