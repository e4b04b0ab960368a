import type { Order } from "./workflows";

/**
 * The demo fleet's custom search attributes (issue 43), registered through
 * `POST /api/search-attributes` as an operator would, one of each kind the console renders: a
 * keyword, a keyword list, an int, a double, a bool and a datetime. Idempotent: an attribute that
 * already exists (409 `attribute_already_exists`) is kept, so a restart on the same file changes nothing.
 */

export const DEMO_SEARCH_ATTRIBUTES = {
  Region: "keyword",
  Tags: "keyword_list",
  Priority: "int",
  OrderTotal: "double",
  Expedited: "bool",
  DueAt: "datetime",
} as const;

export interface DemoSearchAttributesOptions {
  baseUrl: string;
  token?: string;
  namespace?: string;
}

/** Registers the attributes; answers the names it created this time. */
export async function registerDemoSearchAttributes(opts: DemoSearchAttributesOptions): Promise<string[]> {
  const created: string[] = [];
  for (const [name, type] of Object.entries(DEMO_SEARCH_ATTRIBUTES)) {
    const res = await fetch(`${opts.baseUrl.replace(/\/+$/, "")}/api/search-attributes`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json",
        "X-Durable-Workflow-Control-Plane-Version": "2",
        ...(opts.namespace ? { "X-Namespace": opts.namespace } : {}),
        ...(opts.token ? { Authorization: `Bearer ${opts.token}` } : {}),
      },
      body: JSON.stringify({ name, type }),
    });
    if (res.status === 201) created.push(name);
    else if (res.status !== 409)
      throw new Error(`register search attribute ${name}: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`);
  }
  return created;
}

const REGIONS = ["eu", "us", "apac"] as const;

/** An order's attributes at start: where it ships, how urgent, how much, by when. */
export function orderSearchAttributes(order: Order, n: number, now: number): Record<string, unknown> {
  const tags = [order.amountCents > 5000 ? "high-value" : "standard", ...(n % 4 === 0 ? ["gift"] : [])];
  return {
    Region: REGIONS[n % REGIONS.length],
    Tags: tags,
    Priority: 1 + (n % 5),
    OrderTotal: order.amountCents / 100,
    Expedited: n % 3 === 0,
    DueAt: new Date(now + (1 + (n % 3)) * 86_400_000).toISOString(),
  };
}
