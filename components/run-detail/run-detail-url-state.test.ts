import { describe, expect, it } from "vitest";
import { parseRunViewState, runViewQueryString } from "@/components/run-detail/run-detail-url-state";

const parse = (query: string) => parseRunViewState(new URLSearchParams(query));

describe("run detail URL state", () => {
  it("round-trips and defaults", () => {
    const state = parse("view=history&tl=list&htype=ActivityFailed,ActivityRetryScheduled&hfail=1&event=12");
    expect(state).toEqual({
      view: "history",
      timelineMode: "list",
      historyTypes: ["ActivityFailed", "ActivityRetryScheduled"],
      failuresOnly: true,
      selectedEvent: 12,
    });
    expect(parse(runViewQueryString(state).slice(1))).toEqual(state);
    expect(runViewQueryString(parse("view=bogus&event=-3"))).toBe("");
  });

  it("keeps single-type history links working and writes several types as one list", () => {
    expect(parse("view=history&htype=ActivityFailed").historyTypes).toEqual(["ActivityFailed"]);
    // Repeated parameters, duplicates and empty entries (hand-edited links) collapse to one list.
    const state = parse("view=history&htype=ActivityFailed&htype=TimerFired,,ActivityFailed&htype=");
    expect(state.historyTypes).toEqual(["ActivityFailed", "TimerFired"]);
    expect(runViewQueryString(state)).toBe("?view=history&htype=ActivityFailed%2CTimerFired");
    expect(runViewQueryString({ ...state, historyTypes: [] })).toBe("?view=history");
  });
});
