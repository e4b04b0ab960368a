/**
 * The demo fleet's second namespace (issue 43): `billing`, made through `POST /api/namespaces` as an
 * admin would (an admin-only route: routes/api.php), with a shorter retention and its own workers
 * and orders, so the namespace switcher and the Namespaces page have two to show. Idempotent: an
 * existing namespace (409) is kept and its orders are not started again.
 */

export const DEMO_SECOND_NAMESPACE = {
  name: "billing",
  description: "Invoices and refunds, a second team's workflows",
  retention_days: 7,
} as const;

export interface SecondNamespaceOptions {
  baseUrl: string;
  /** The admin token; without one the namespace cannot be made and the fleet runs in one namespace. */
  adminToken?: string;
  log: (line: string) => void;
}

/** Creates the namespace; true when it exists afterwards, `created` when this call made it. */
export async function ensureDemoNamespace(
  opts: SecondNamespaceOptions,
): Promise<{ exists: boolean; created: boolean }> {
  if (!opts.adminToken) {
    opts.log(`no admin token: the second namespace (${DEMO_SECOND_NAMESPACE.name}) is not made`);
    return { exists: false, created: false };
  }
  const res = await fetch(`${opts.baseUrl.replace(/\/+$/, "")}/api/namespaces`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json",
      "X-Durable-Workflow-Control-Plane-Version": "2",
      Authorization: `Bearer ${opts.adminToken}`,
    },
    body: JSON.stringify(DEMO_SECOND_NAMESPACE),
  });
  if (res.status === 201) return { exists: true, created: true };
  if (res.status === 409) return { exists: true, created: false };
  opts.log(`second namespace ${DEMO_SECOND_NAMESPACE.name}: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
  return { exists: false, created: false };
}
