import { expect } from "@playwright/test";
import { waitFor } from "./operator-fixtures";

/** The real Kikwiflow engine started by playwright.config.ts, driven through its own REST. */
export const engine = () => {
  const url = process.env.E2E_KIKWIFLOW_URL;
  if (!url) throw new Error("no Kikwiflow host: build it with `bash scripts/kikwiflow.sh` (KIKWIFLOW_HOST_JAR)");
  return `${url}/kikwiflow/api/v1`;
};

export interface Started {
  id: string;
}
export interface Incident {
  id: string;
  status: string;
  type: string;
}

/** As the engine's REST takes variables: name → {name, value}. */
const asVariables = (values: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(values).map(([name, value]) => [name, { name, value }]));

export async function startInstance(
  processDefinitionKey: string,
  businessKey: string,
  variables?: Record<string, unknown>,
): Promise<Started> {
  const response = await fetch(`${engine()}/process-instances`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ processDefinitionKey, businessKey, variables: variables && asVariables(variables) }),
  });
  expect(response.ok, `start ${processDefinitionKey}: HTTP ${response.status}`).toBe(true);
  return (await response.json()) as Started;
}

export async function openIncident(instanceId: string): Promise<Incident> {
  return waitFor("the engine's incident", async () => {
    const response = await fetch(`${engine()}/process-instances/${instanceId}/incidents`);
    // The in-memory store can answer a racing read with a 500; the next read is fine.
    if (!response.ok) return null;
    const incidents = (await response.json()) as Incident[];
    return incidents.find((incident) => incident.status === "OPEN");
  });
}

/**
 * Waits until the engine's outbox holds the incident's INCIDENT_CREATED: the outbox is written after
 * the incident, and the console marks a fatal incident only from it (lib/kikwiflow/attention.ts).
 */
export async function incidentInOutbox(instanceId: string, incidentId: string): Promise<void> {
  await waitFor("the incident in the engine's outbox", async () => {
    const response = await fetch(`${engine()}/process-instances/${instanceId}/events`);
    if (!response.ok) return null;
    const events = (await response.json()) as { eventType?: string; payload?: { incidentId?: string } | null }[];
    return events.some((e) => e.eventType === "INCIDENT_CREATED" && e.payload?.incidentId === incidentId) || null;
  });
}

/** The instance's variables as the engine holds them (name → value), read from its own REST. */
export async function engineVariables(instanceId: string): Promise<Record<string, unknown>> {
  return waitFor("the engine's instance", async () => {
    const response = await fetch(`${engine()}/process-instances/${instanceId}`);
    if (!response.ok) return null;
    const instance = (await response.json()) as { variables?: Record<string, { value: unknown }> | null };
    return Object.fromEntries(Object.entries(instance.variables ?? {}).map(([name, v]) => [name, v.value]));
  });
}

/** Another hand changing a variable behind the console's back, through the engine's own REST. */
export async function setEngineVariable(instanceId: string, name: string, value: unknown): Promise<void> {
  const response = await fetch(`${engine()}/process-instances/${instanceId}/variables`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ variables: asVariables({ [name]: value }) }),
  });
  expect(response.ok, `set ${name}: HTTP ${response.status}`).toBe(true);
}
