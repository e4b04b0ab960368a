/**
 * A run's parent/child links (the export's `links`) grouped as an operator reads them: the server
 * records continue-as-new as a `continue_as_new` link whose parent is the run this one continued
 * from and whose child is the run it continued as; `child_workflow` links are real parents and
 * children. A type the console does not know keeps its side and shows its code.
 */

export interface RunLinkInput {
  id?: string | null;
  type?: string | null;
  parent_workflow_instance_id?: string | null;
  parent_workflow_run_id?: string | null;
  child_workflow_instance_id?: string | null;
  child_workflow_run_id?: string | null;
  workflow_type?: string | null;
  status?: string | null;
}

export type RunLinkGroupKind = "continuedFrom" | "parent" | "continuedAs" | "child";

export interface RunLinkItem {
  key: string;
  /** The linked workflow and run (null when the link does not name it). */
  workflowId: string | null;
  runId: string | null;
  workflowType: string | null;
  status: string | null;
  /** The server's link type when the console has no words for it, else null. */
  unknownType: string | null;
}

export interface RunLinkGroup {
  kind: RunLinkGroupKind;
  items: RunLinkItem[];
}

const CONTINUE = "continue_as_new";
const CHILD = "child_workflow";

function item(link: RunLinkInput, side: "parent" | "child", index: number): RunLinkItem {
  const type = link.type ?? null;
  return {
    key: link.id ?? `${side}-${index}`,
    workflowId: (side === "parent" ? link.parent_workflow_instance_id : link.child_workflow_instance_id) ?? null,
    runId: (side === "parent" ? link.parent_workflow_run_id : link.child_workflow_run_id) ?? null,
    workflowType: link.workflow_type ?? null,
    status: link.status ?? null,
    unknownType: type === CONTINUE || type === CHILD || type === null ? null : type,
  };
}

/**
 * The four groups in reading order: continued from, parent workflow, continued as, child
 * workflows. Every group is returned (empty ones too), so a screen can say "none" for each.
 */
export function runLinkGroups(links: {
  parents?: readonly RunLinkInput[] | null;
  children?: readonly RunLinkInput[] | null;
}): RunLinkGroup[] {
  const parents = (links.parents ?? []).map((link, i) => ({ link, entry: item(link, "parent", i) }));
  const children = (links.children ?? []).map((link, i) => ({ link, entry: item(link, "child", i) }));
  const continued = ({ link }: { link: RunLinkInput }) => link.type === CONTINUE;
  return [
    { kind: "continuedFrom", items: parents.filter(continued).map((p) => p.entry) },
    { kind: "parent", items: parents.filter((p) => !continued(p)).map((p) => p.entry) },
    { kind: "continuedAs", items: children.filter(continued).map((c) => c.entry) },
    { kind: "child", items: children.filter((c) => !continued(c)).map((c) => c.entry) },
  ];
}
