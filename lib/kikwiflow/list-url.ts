import { PROCESS_INSTANCE_STATUSES } from "./statuses";

/**
 * The instances list's state in its URL (`?status=ACTIVE|incidents&page=2&q=…`, page 1-based for
 * people), so a filtered page can be shared and survives a reload. Unknown values fall back to the
 * default rather than failing. Pure and zod-free.
 */
export type ListFilter = (typeof PROCESS_INSTANCE_STATUSES)[number] | "all" | "incidents";

export interface ListState {
  readonly filter: ListFilter;
  /** 0-based, as the engine pages. */
  readonly page: number;
  readonly q: string;
}

const FILTERS: readonly string[] = ["all", "incidents", ...PROCESS_INSTANCE_STATUSES];

export function readListState(params: URLSearchParams): ListState {
  const status = params.get("status") ?? "all";
  const filter = (FILTERS.includes(status) ? status : "all") as ListFilter;
  const page = Number(params.get("page") ?? "1");
  return { filter, page: Number.isSafeInteger(page) && page >= 1 ? page - 1 : 0, q: params.get("q")?.trim() ?? "" };
}

/** Only what differs from the default is written, so the plain list keeps a plain URL. */
export function listStateQuery(state: ListState): string {
  const params = new URLSearchParams();
  if (state.filter !== "all") params.set("status", state.filter);
  if (state.page > 0) params.set("page", String(state.page + 1));
  if (state.q !== "") params.set("q", state.q);
  return params.toString();
}
