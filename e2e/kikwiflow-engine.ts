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

export async function startInstance(processDefinitionKey: string, businessKey: string): Promise<Started> {
  const response = await fetch(`${engine()}/process-instances`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ processDefinitionKey, businessKey }),
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
