import type { Order } from "./workflows";

/**
 * The demo fleet's three schedules (issue 42), made through `POST /api/schedules` as an operator
 * would: a healthy order digest every minute, a card-retry sweep whose runs keep failing (a declined
 * card), and a nightly restock paused with a note. Idempotent: an existing schedule (409) is kept,
 * so a restart on the same data file changes nothing.
 */

export interface DemoSchedulesOptions {
  baseUrl: string;
  token?: string;
  namespace?: string;
}

const order = (id: string, customer: string, scenario: Order["scenario"]): Order => ({
  orderId: id,
  customer,
  amountCents: 4999,
  scenario,
});

export const DEMO_SCHEDULES = [
  {
    schedule_id: "order-digest",
    spec: { cron_expressions: ["* * * * *"], timezone: "UTC" },
    action: { workflow_type: "OrderWorkflow", task_queue: "default", input: [order("digest", "ada", "happy")] },
    overlap_policy: "skip",
    note: "Every minute: a small house order that always fulfils",
  },
  {
    schedule_id: "card-retry-sweep",
    spec: { cron_expressions: ["*/2 * * * *"], timezone: "Europe/Berlin" },
    action: {
      workflow_type: "OrderWorkflow",
      task_queue: "default",
      input: [order("retry-sweep", "grace", "declined")],
    },
    overlap_policy: "allow_all",
    note: "Retries a stored card every two minutes; the issuer keeps declining it",
  },
  {
    schedule_id: "nightly-restock",
    spec: { cron_expressions: ["0 2 * * 1-5"], timezone: "Europe/Berlin" },
    action: { workflow_type: "WarehouseRestockWorkflow", task_queue: "default", input: ["sku-nightly", 5] },
    overlap_policy: "skip",
    paused: true,
    note: "Paused while the warehouse moves to the new stock system",
  },
] as const;

/** Creates the three schedules that are missing; returns the ids it created. */
export async function seedDemoSchedules(opts: DemoSchedulesOptions): Promise<string[]> {
  const base = opts.baseUrl.replace(/\/+$/, "");
  const created: string[] = [];
  for (const schedule of DEMO_SCHEDULES) {
    const res = await fetch(`${base}/api/schedules`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json",
        "X-Durable-Workflow-Control-Plane-Version": "2",
        ...(opts.namespace ? { "X-Namespace": opts.namespace } : {}),
        ...(opts.token ? { Authorization: `Bearer ${opts.token}` } : {}),
      },
      body: JSON.stringify(schedule),
    });
    if (res.status === 201) created.push(schedule.schedule_id);
    else if (res.status !== 409)
      throw new Error(`schedule ${schedule.schedule_id}: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`);
  }
  return created;
}
