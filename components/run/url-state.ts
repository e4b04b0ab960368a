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

export function parseRunViewState(params: URLSearchParams): RunViewState {
  const view = params.get("view") ?? "";
  const event = Number(params.get("event"));
  const types = params.get("htype");
  return {
    view: (RUN_VIEWS as readonly string[]).includes(view) ? (view as RunView) : "timeline",
    timelineMode: params.get("tl") === "list" ? "list" : "chart",
    historyTypes: types ? types.split(",").filter((type) => type !== "") : [],
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
