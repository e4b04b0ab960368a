// @vitest-environment jsdom
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render, screen } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import en from "@/messages/en.json";
import fixture from "@/lib/dw/fixtures/command-attribution-export.json";
import { exportCommandSchema } from "@/lib/dw/schemas-export";
import { CommandsTable } from "@/components/run-detail/commands-tab";

afterEach(cleanup);

/** The Commands tab's "Sent by" column on the real export shape (command-attribution-export.md). */
describe("CommandsTable sent by", () => {
  it("names the person, the server itself, or a provider's principal, as the server reported them", () => {
    const commands = fixture.commands.map((command) => exportCommandSchema.parse(command));
    render(
      <NextIntlClientProvider locale="en" messages={en} timeZone="UTC">
        <CommandsTable commands={commands} />
      </NextIntlClientProvider>,
    );
    expect(screen.getByRole("columnheader", { name: "Sent by" })).toBeTruthy();
    const senders = screen.getAllByTestId("command-sender").map((cell) => cell.textContent);
    expect(senders).toEqual([
      "adabreakwater_password",
      "Standalone Serverno person recorded by the server",
      "Lin Parksso",
    ]);
  });
});
