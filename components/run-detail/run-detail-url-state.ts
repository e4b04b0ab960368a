/** The run page's state in the URL: the open tab (`view=`), timeline mode, history filters, selected event. */
import type { RunTab } from "@/components/run-detail/run-tab-registry";
import { isRunTab } from "@/components/run-detail/run-tab-registry";

/** What the tabs keep in the URL besides which tab is open; a tab reads and changes these. */
export interface RunTabSettings {
  timelineMode: "chart" | "list";
  historyTypes: string[];
  failuresOnly: boolean;
  selectedEvent: number | null;
}

export interface RunUrlState extends RunTabSettings {
  tab: RunTab;
}

/**
 * `htype` is a comma-separated list. A single type (the links written before the filter took several)
 * is a list of one; repeated `htype` parameters are merged too. Duplicates and empty entries drop out.
 */
function parseHistoryTypes(values: readonly string[]): string[] {
  const types = values.flatMap((value) => value.split(",")).map((type) => type.trim());
  return [...new Set(types.filter((type) => type !== ""))];
}

export function parseRunUrlState(params: URLSearchParams): RunUrlState {
  const tab = params.get("view") ?? "";
  const event = Number(params.get("event"));
  return {
    tab: isRunTab(tab) ? tab : "timeline",
    timelineMode: params.get("tl") === "list" ? "list" : "chart",
    historyTypes: parseHistoryTypes(params.getAll("htype")),
    failuresOnly: params.get("hfail") === "1",
    selectedEvent: Number.isInteger(event) && event > 0 ? event : null,
  };
}

export function runUrlQuery(state: RunUrlState): string {
  const params = new URLSearchParams();
  if (state.tab !== "timeline") params.set("view", state.tab);
  if (state.timelineMode !== "chart") params.set("tl", state.timelineMode);
  if (state.historyTypes.length > 0) params.set("htype", state.historyTypes.join(","));
  if (state.failuresOnly) params.set("hfail", "1");
  if (state.selectedEvent !== null) params.set("event", String(state.selectedEvent));
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** A state this page wrote to the URL itself: the search it replaced and the one it wrote. */
export interface WrittenUrlState {
  before: string;
  written: string;
  state: RunUrlState;
}

/**
 * The state to show for the URL's search (`URLSearchParams.toString()`, no "?"). A state the page
 * wrote itself is shown at once, while Next's search parameters still say `before` (they follow a
 * replaceState in a transition, which the run-view stream's updates keep interrupting on a big run), and
 * once they say `written`; any other search (a link, back/forward) wins over it.
 */
export function currentUrlState(search: string, written: WrittenUrlState | null): RunUrlState {
  if (written && (search === written.before || search === written.written)) return written.state;
  return parseRunUrlState(new URLSearchParams(search));
}

/** What writing `change` over `state` puts in the URL, relative to the search shown now. */
export function writeUrlState(search: string, state: RunUrlState, change: Partial<RunUrlState>): WrittenUrlState {
  const next = { ...state, ...change };
  return { before: search, written: runUrlQuery(next).replace(/^\?/, ""), state: next };
}
