/** The run detail's view state in the URL: tab, timeline mode, history filters, selected event. */

export const RUN_VIEWS = ["timeline", "activities", "history", "waits", "tasks", "commands", "relationships"] as const;
export type RunView = (typeof RUN_VIEWS)[number];

export interface RunViewState {
  view: RunView;
  timelineMode: "chart" | "list";
  historyTypes: string[];
  failuresOnly: boolean;
  selectedEvent: number | null;
}

/**
 * `htype` is a comma-separated list. A single type (the links written before the filter took several)
 * is a list of one; repeated `htype` parameters are merged too. Duplicates and empty entries drop out.
 */
function parseHistoryTypes(values: readonly string[]): string[] {
  const types = values.flatMap((value) => value.split(",")).map((type) => type.trim());
  return [...new Set(types.filter((type) => type !== ""))];
}

export function parseRunViewState(params: URLSearchParams): RunViewState {
  const view = params.get("view") ?? "";
  const event = Number(params.get("event"));
  return {
    view: (RUN_VIEWS as readonly string[]).includes(view) ? (view as RunView) : "timeline",
    timelineMode: params.get("tl") === "list" ? "list" : "chart",
    historyTypes: parseHistoryTypes(params.getAll("htype")),
    failuresOnly: params.get("hfail") === "1",
    selectedEvent: Number.isInteger(event) && event > 0 ? event : null,
  };
}

export function runViewQueryString(state: RunViewState): string {
  const params = new URLSearchParams();
  if (state.view !== "timeline") params.set("view", state.view);
  if (state.timelineMode !== "chart") params.set("tl", state.timelineMode);
  if (state.historyTypes.length > 0) params.set("htype", state.historyTypes.join(","));
  if (state.failuresOnly) params.set("hfail", "1");
  if (state.selectedEvent !== null) params.set("event", String(state.selectedEvent));
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** A state this page wrote to the URL itself: the search it replaced and the one it wrote. */
export interface WrittenViewState {
  before: string;
  written: string;
  state: RunViewState;
}

/**
 * The state to show for the URL's search (`URLSearchParams.toString()`, no "?"). A state the page
 * wrote itself is shown at once, while Next's search parameters still say `before` (they follow a
 * replaceState in a transition, which the run view's updates keep interrupting on a big run), and
 * once they say `written`; any other search (a link, back/forward) wins over it.
 */
export function currentViewState(search: string, written: WrittenViewState | null): RunViewState {
  if (written && (search === written.before || search === written.written)) return written.state;
  return parseRunViewState(new URLSearchParams(search));
}

/** What writing `change` over `state` puts in the URL, relative to the search shown now. */
export function writeViewState(search: string, state: RunViewState, change: Partial<RunViewState>): WrittenViewState {
  const next = { ...state, ...change };
  return { before: search, written: runViewQueryString(next).replace(/^\?/, ""), state: next };
}
