import { describe, expect, it } from "vitest";
import { fixture } from "@/lib/dw/fixtures/fixture-fetch";
import { namespaceListSchema } from "@/lib/dw/schemas-fleet";
import { retentionPassReportSchema, retentionStatusSchema } from "@/lib/dw/schemas-namespaces";
import {
  checkNamespaceForm,
  checkRetentionPass,
  deleteBlock,
  deleteConfirmed,
  deletedCounts,
  namespaceRows,
} from "./namespaces";

const described = fixture("namespace-described") as Record<string, unknown>;
const external = fixture("namespace-external-storage") as Record<string, unknown>;

describe("namespaceRows", () => {
  it("sorts by name, marks the page's namespace and reads the storage policy", () => {
    const list = namespaceListSchema.parse({
      namespaces: [
        external,
        (fixture("namespaces") as { namespaces: unknown[] }).namespaces[0],
        { ...described, name: "archive" },
      ],
    });
    const rows = namespaceRows(list.namespaces, "default");
    expect(rows.map((r) => [r.name, r.current])).toEqual([
      ["archive", false],
      ["billing", false],
      ["default", true],
    ]);
    expect(rows[0]?.storage).toEqual({ driver: "local", enabled: true, thresholdBytes: 4096 });
    expect(rows[1]?.storage).toEqual({ driver: "s3", enabled: true, thresholdBytes: 2048 });
    expect(rows[2]?.storage).toBeNull();
    expect(rows[2]?.retentionDays).toBe(30);
  });

  it("a disabled policy is shown as disabled, a policy without a driver as none", () => {
    const [off, none] = namespaceRows(
      [
        { name: "a", external_payload_storage: { driver: "local", enabled: false } },
        { name: "b", external_payload_storage: { enabled: true } },
      ],
      "x",
    );
    expect(off?.storage?.enabled).toBe(false);
    expect(none?.storage).toBeNull();
  });
});

describe("checkNamespaceForm", () => {
  it("accepts the controller's names, lower-cases them, sends no empty fields", () => {
    expect(checkNamespaceForm({ name: " Billing.EU_1-a ", description: "", retentionDays: "" })).toEqual({
      ok: true,
      value: { name: "billing.eu_1-a", description: null, retentionDays: null },
    });
    expect(checkNamespaceForm({ name: "b", description: " Invoices ", retentionDays: "365" })).toEqual({
      ok: true,
      value: { name: "b", description: "Invoices", retentionDays: 365 },
    });
  });

  it("refuses what the server would, each field in its own words", () => {
    expect(checkNamespaceForm({ name: "", description: "", retentionDays: "0" })).toEqual({
      ok: false,
      errors: { name: "nameRequired", retentionDays: "retentionRange" },
    });
    expect(checkNamespaceForm({ name: "no spaces", description: "x".repeat(1001), retentionDays: "366" })).toEqual({
      ok: false,
      errors: { name: "nameInvalid", description: "descriptionTooLong", retentionDays: "retentionRange" },
    });
    expect(checkNamespaceForm({ name: "a".repeat(129), description: "", retentionDays: "1.5" }).ok).toBe(false);
    expect(checkNamespaceForm({ name: "ok", description: "", retentionDays: "-3" })).toMatchObject({
      errors: { retentionDays: "retentionRange" },
    });
  });
});

describe("delete", () => {
  const row = namespaceRows([{ name: "billing" }, { name: "default" }], "default");
  it("the page's own namespace is blocked; runs are not a block", () => {
    expect(deleteBlock(row[1]!)).toBe("current");
    expect(deleteBlock(row[0]!)).toBeNull();
  });
  it("needs the name typed back", () => {
    expect(deleteConfirmed(row[0]!, "billin")).toBe(false);
    expect(deleteConfirmed(row[0]!, " BILLING ")).toBe(true);
  });
  it("lists the deleted counts largest first", () => {
    const answer = fixture("namespace-deleted") as { deleted: Record<string, number> };
    expect(deletedCounts(answer.deleted)).toEqual([
      ["search_attribute_definitions", 3],
      ["workflow_runs", 2],
      ["workflow_schedules", 1],
      ["workflow_worker_registrations", 1],
    ]);
    expect(deletedCounts(undefined)).toEqual([]);
  });
});

describe("checkRetentionPass", () => {
  const report = retentionPassReportSchema.parse(fixture("retention-pass"));
  const status = retentionStatusSchema.parse(fixture("retention-status"));
  it("is confirmed when no pruned run is still expired on the next read", () => {
    expect(checkRetentionPass(report, { ...status, expired_run_ids: ["wf-run-2"], expired_run_count: 1 })).toEqual({
      prunedRunIds: ["wf-run-1"],
      stillExpired: [],
      confirmed: true,
    });
  });
  it("is not when the status still lists a run the pass called pruned", () => {
    expect(checkRetentionPass(report, status)).toMatchObject({ stillExpired: ["wf-run-1"], confirmed: false });
  });
});
