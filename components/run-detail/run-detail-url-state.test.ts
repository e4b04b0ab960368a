import { describe, expect, it } from "vitest";
import {
  parseRunUrlState,
  runUrlQuery,
  currentUrlState,
  writeUrlState,
} from "@/components/run-detail/run-detail-url-state";

const parse = (query: string) => parseRunUrlState(new URLSearchParams(query));

describe("run detail URL state", () => {
  it("round-trips and defaults", () => {
    const state = parse("view=history&tl=list&htype=ActivityFailed,ActivityRetryScheduled&hfail=1&event=12");
    expect(state).toEqual({
      tab: "history",
      timelineMode: "list",
      historyTypes: ["ActivityFailed", "ActivityRetryScheduled"],
      failuresOnly: true,
      selectedEvent: 12,
    });
    expect(parse(runUrlQuery(state).slice(1))).toEqual(state);
    expect(runUrlQuery(parse("view=bogus&event=-3"))).toBe("");
  });

  it("keeps single-type history links working and writes several types as one list", () => {
    expect(parse("view=history&htype=ActivityFailed").historyTypes).toEqual(["ActivityFailed"]);
    // Repeated parameters, duplicates and empty entries (hand-edited links) collapse to one list.
    const state = parse("view=history&htype=ActivityFailed&htype=TimerFired,,ActivityFailed&htype=");
    expect(state.historyTypes).toEqual(["ActivityFailed", "TimerFired"]);
    expect(runUrlQuery(state)).toBe("?view=history&htype=ActivityFailed%2CTimerFired");
    expect(runUrlQuery({ ...state, historyTypes: [] })).toBe("?view=history");
  });

  it("shows a state the page wrote at once, before and after Next's search parameters follow, and yields to any other URL", () => {
    const shown = currentUrlState("tl=list", null);
    const written = writeUrlState("tl=list", shown, { tab: "activities" });
    expect(written.written).toBe("view=activities&tl=list");
    // Next's search parameters still say what was replaced: the click shows anyway.
    expect(currentUrlState("tl=list", written).tab).toBe("activities");
    expect(currentUrlState("view=activities&tl=list", written).tab).toBe("activities");
    // A link or back/forward to another state is not masked by what was written before.
    expect(currentUrlState("view=history&event=7", written)).toMatchObject({ tab: "history", selectedEvent: 7 });
    expect(currentUrlState("", written).tab).toBe("timeline");
  });
});
