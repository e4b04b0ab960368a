import { describe, expect, it } from "vitest";
import { runLinkGroups } from "./run-links";

const group = (groups: ReturnType<typeof runLinkGroups>, kind: string) => groups.find((g) => g.kind === kind)?.items;

describe("runLinkGroups", () => {
  it("shows a continue-as-new predecessor as 'continued from', not as a parent", () => {
    const groups = runLinkGroups({
      parents: [
        {
          id: "l1",
          type: "continue_as_new",
          parent_workflow_instance_id: "order-1",
          parent_workflow_run_id: "run-1",
          child_workflow_instance_id: "order-1",
          child_workflow_run_id: "run-2",
        },
      ],
      children: [],
    });
    expect(group(groups, "continuedFrom")).toEqual([
      { key: "l1", workflowId: "order-1", runId: "run-1", workflowType: null, status: null, unknownType: null },
    ]);
    expect(group(groups, "parent")).toEqual([]);
  });

  it("shows the successor as 'continued as' and child workflows as children", () => {
    const groups = runLinkGroups({
      children: [
        { id: "c", type: "continue_as_new", child_workflow_instance_id: "order-1", child_workflow_run_id: "run-3" },
        {
          id: "k",
          type: "child_workflow",
          child_workflow_instance_id: "ship-1",
          workflow_type: "Ship",
          status: "running",
        },
      ],
    });
    expect(group(groups, "continuedAs")?.map((i) => i.runId)).toEqual(["run-3"]);
    expect(group(groups, "child")).toEqual([
      { key: "k", workflowId: "ship-1", runId: null, workflowType: "Ship", status: "running", unknownType: null },
    ]);
  });

  it("keeps a parent workflow a parent, and names a link type it does not know by its code", () => {
    const groups = runLinkGroups({
      parents: [
        { type: "child_workflow", parent_workflow_instance_id: "batch-9" },
        { type: "signal_with_start", parent_workflow_instance_id: "other" },
      ],
    });
    expect(group(groups, "parent")?.map((i) => [i.workflowId, i.unknownType, i.key])).toEqual([
      ["batch-9", null, "parent-0"],
      ["other", "signal_with_start", "parent-1"],
    ]);
    expect(groups.map((g) => g.kind)).toEqual(["continuedFrom", "parent", "continuedAs", "child"]);
  });
});
