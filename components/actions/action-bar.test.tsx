import { describe, expect, it } from "vitest";
import type { RunAction } from "@/lib/views/capabilities";
import { RUN_ACTIONS } from "@/lib/views/capabilities";
import { reasonGroups, reasonId } from "@/components/actions/action-bar";

function reasons(set: Partial<Record<RunAction, string>>): Record<RunAction, string | null> {
  return Object.fromEntries(RUN_ACTIONS.map((action) => [action, set[action] ?? null])) as Record<
    RunAction,
    string | null
  >;
}

describe("reasonGroups", () => {
  it("says a shared reason once, naming every action it disables", () => {
    const closed = "The run is closed.";
    const r = reasons({ cancel: closed, terminate: closed, signal: closed, repair: closed, archive: "Archived." });
    expect(reasonGroups(r)).toEqual([
      { actions: ["repair", "cancel", "terminate", "signal"], text: closed },
      { actions: ["archive"], text: "Archived." },
    ]);
    // Every button of a group points at the group's one element.
    expect(reasonId(r, "terminate")).toBe(reasonId(r, "cancel"));
    expect(reasonId(r, "archive")).toBe("run-action-why-archive");
    expect(reasonId(r, "startAgain")).toBeUndefined();
  });
});
