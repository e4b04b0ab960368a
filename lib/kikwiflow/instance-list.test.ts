import { describe, expect, it } from "vitest";
import { incidentCounts, openIncidentPage } from "./instance-list";
import type { Incident, ProcessInstanceSnapshot } from "./schemas";

const incident = (id: string, status: string) => ({ id, type: "FAILED_JOB", status }) as Incident;
const snap = (id: string, startedAt: string, incidents: Incident[], businessKey = `bk-${id}`) =>
  ({
    instance: { id, businessKey, status: "ACTIVE", processDefinitionId: "d", startedAt },
    executableTasks: [],
    externalTasks: [],
    incidents,
  }) as unknown as ProcessInstanceSnapshot;

describe("incidentCounts", () => {
  it("counts the open ones among all", () => {
    expect(incidentCounts([incident("a", "OPEN"), incident("b", "RESOLVED"), incident("c", "OPEN")])).toEqual({
      open: 2,
      total: 3,
    });
  });
});

describe("openIncidentPage", () => {
  const snapshots = [
    snap("old", "2026-12-07T10:00:00Z", [incident("i1", "OPEN")]),
    snap("quiet", "2026-12-07T10:00:05Z", [incident("i2", "RESOLVED")]),
    snap("new", "2026-12-07T10:00:09Z", [incident("i3", "OPEN"), incident("i4", "OPEN")]),
    snap("none", "2026-12-07T10:00:07Z", []),
  ];

  it("keeps only instances with an open incident, newest first, with their counts", () => {
    const page = openIncidentPage(snapshots, { page: 0, size: 20, q: null });
    expect(page.content.map((i) => i.id)).toEqual(["new", "old"]);
    expect(page).toMatchObject({ totalElements: 2, totalPages: 1, page: 0 });
    expect(page.incidents).toEqual({ new: { open: 2, total: 2 }, old: { open: 1, total: 1 } });
  });

  it("pages them and matches a search by id or business key", () => {
    expect(openIncidentPage(snapshots, { page: 1, size: 1, q: null }).content.map((i) => i.id)).toEqual(["old"]);
    expect(openIncidentPage(snapshots, { page: 0, size: 20, q: "bk-old" }).content.map((i) => i.id)).toEqual(["old"]);
    expect(openIncidentPage(snapshots, { page: 0, size: 20, q: "new" }).content.map((i) => i.id)).toEqual(["new"]);
    expect(openIncidentPage(snapshots, { page: 0, size: 20, q: "quiet" }).totalElements).toBe(0);
  });
});
