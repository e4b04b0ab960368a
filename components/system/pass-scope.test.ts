import { describe, expect, it } from "vitest";
import en from "@/messages/en.json";

/**
 * The repair and activity-timeout passes are server-wide on the real server and on the embedded
 * one (confirm-pass-dialog.tsx cites both): the System panel and the confirmation dialog must say
 * the same thing (issue 37: the panel said "global", the dialog "across the namespace").
 */
describe("what the System screen says about a pass's scope", () => {
  const system = en.system;
  const dialog = [
    system.confirm.repair.title,
    system.confirm.repair.scope,
    system.confirm.repair.scopeUnknown,
    system.confirm.timeouts.title,
    system.confirm.timeouts.scopeUnknown,
  ];

  it("the panel calls both passes' candidates global", () => {
    expect(system.repair.candidates).toContain("global, not per namespace");
    expect(system.timeouts.expired).toContain("global, not per namespace");
  });

  it("the dialog says every namespace, never one namespace's runs", () => {
    for (const text of dialog) {
      expect(text).not.toMatch(/across the namespace|every run of \{namespace\}/);
    }
    expect(system.confirm.repair.title).toContain("every namespace");
    expect(system.confirm.timeouts.title).toContain("every namespace");
    expect(system.confirm.repair.scopeUnknown).toContain("every namespace");
    expect(system.confirm.timeouts.scopeUnknown).toContain("every namespace");
  });
});
