import { describe, expect, it } from "vitest";
import fixture from "@/lib/dw/fixtures/command-attribution-export.json";
import { exportCommandSchema } from "@/lib/dw/schemas-export";
import { commandSender, eventSender } from "./command-sender";

/** The Commands tab's "Sent by" from what the server reports (fixture: command-attribution-export.md). */
describe("commandSender", () => {
  const commands = fixture.commands.map((command) => exportCommandSchema.parse(command));

  it("names the person a trusting server recorded from the console's headers, with the method", () => {
    expect(commandSender(commands[0]!)).toEqual({ name: "ada", via: "breakwater_password", serverItself: false });
  });

  it("says when the server named itself (it did not trust or get a caller)", () => {
    expect(commandSender(commands[1]!)).toEqual({ name: "Standalone Server", via: "token", serverItself: true });
  });

  it("prefers a provider's principal to the caller label", () => {
    expect(commandSender(commands[2]!)).toEqual({ name: "Lin Park", via: "sso", serverItself: false });
    expect(commandSender({ principal_id: "user-456", caller_label: "Standalone Server" })).toMatchObject({
      name: "user-456",
      serverItself: false,
    });
  });

  it("claims nothing when the server reports no sender", () => {
    expect(commandSender({ caller_label: null, principal_label: "  " })).toBeNull();
    expect(commandSender({})).toBeNull();
  });
});

describe("eventSender", () => {
  it("reads the command snapshot of an event and names only a recorded person", () => {
    expect(eventSender({ command: { caller_label: "ola", auth_method: "breakwater_password" } })).toEqual({
      name: "ola",
      via: "breakwater_password",
      serverItself: false,
    });
    expect(eventSender({ command: { caller_label: "Standalone Server", auth_method: "token" } })).toBeNull();
    expect(eventSender({ command: "not a snapshot" })).toBeNull();
    expect(eventSender({ reason: "x" })).toBeNull();
    expect(eventSender(null)).toBeNull();
  });
});
