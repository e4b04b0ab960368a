import { describe, expect, it } from "vitest";
import { parseRunViewState, runViewQueryString } from "./url-state";

describe("run detail URL state", () => {
  it("round-trips and defaults", () => {
    const state = parseRunViewState(new URLSearchParams("view=history&tl=list&htype=ActivityFailed,ActivityRetryScheduled&hfail=1&event=12"));
    expect(state).toEqual({ view: "history", timelineMode: "list", historyTypes: ["ActivityFailed", "ActivityRetryScheduled"], failuresOnly: true, selectedEvent: 12 });
    expect(parseRunViewState(new URLSearchParams(runViewQueryString(state).slice(1)))).toEqual(state);
    expect(runViewQueryString(parseRunViewState(new URLSearchParams("view=bogus&event=-3")))).toBe("");
  });
});
