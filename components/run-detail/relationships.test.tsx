// @vitest-environment jsdom
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render, screen } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import en from "@/messages/en.json";
import { RunRelationships } from "@/components/run-detail/relationships-tab";

afterEach(cleanup);

function renderLinks(links: Parameters<typeof RunRelationships>[0]["links"]) {
  return render(
    <NextIntlClientProvider locale="en" messages={en} timeZone="UTC">
      <RunRelationships namespace="default" workflowId="order-1" runId="run-2" runs={[]} links={links} />
    </NextIntlClientProvider>,
  );
}

describe("Runs and links", () => {
  it("names continue-as-new neighbours in words, never as parents with a raw tag", () => {
    renderLinks({
      parents: [
        {
          id: "p",
          type: "continue_as_new",
          parent_workflow_instance_id: "order-1",
          parent_workflow_run_id: "run-1",
          child_workflow_instance_id: "order-1",
          child_workflow_run_id: "run-2",
        },
      ],
      children: [
        {
          id: "c",
          type: "continue_as_new",
          parent_workflow_instance_id: "order-1",
          parent_workflow_run_id: "run-2",
          child_workflow_instance_id: "order-1",
          child_workflow_run_id: "run-3",
        },
      ],
    });
    const panel = screen.getByTestId("relationships");
    expect(screen.getByRole("heading", { name: "Continued from" })).toBeTruthy();
    expect(screen.getByRole("heading", { name: "Continued as" })).toBeTruthy();
    expect(panel.textContent).not.toContain("continue_as_new");
    expect(screen.getByTestId("link-continuedFrom").querySelector("a")?.getAttribute("href")).toBe(
      "/namespaces/default/workflows/order-1/runs/run-1",
    );
    expect(screen.getByTestId("link-continuedAs").querySelector("a")?.getAttribute("href")).toBe(
      "/namespaces/default/workflows/order-1/runs/run-3",
    );
  });

  it("keeps child workflows as children, without the link code", () => {
    renderLinks({
      children: [
        {
          id: "k",
          type: "child_workflow",
          child_workflow_instance_id: "ship-1",
          workflow_type: "Ship",
          status: "running",
        },
      ],
    });
    expect(screen.getByTestId("link-child").textContent).toContain("ship-1");
    expect(screen.getByTestId("relationships").textContent).not.toContain("child_workflow");
  });
});
