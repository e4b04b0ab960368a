import { describe, expect, it } from "vitest";
import {
  parseRunViewState,
  runViewQueryString,
  currentViewState,
  writeViewState,
} from "@/components/run-detail/run-detail-url-state";

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

  it("shows a state the page wrote at once, before and after Next's search parameters follow, and yields to any other URL", () => {
    const shown = currentViewState("tl=list", null);
    const written = writeViewState("tl=list", shown, { view: "activities" });
    expect(written.written).toBe("view=activities&tl=list");
    // Next's search parameters still say what was replaced: the click shows anyway.
    expect(currentViewState("tl=list", written).view).toBe("activities");
    expect(currentViewState("view=activities&tl=list", written).view).toBe("activities");
    // A link or back/forward to another state is not masked by what was written before.
    expect(currentViewState("view=history&event=7", written)).toMatchObject({ view: "history", selectedEvent: 7 });
    expect(currentViewState("", written).view).toBe("timeline");
  });
});
