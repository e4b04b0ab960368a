import { describe, expect, it } from "vitest";
import {
  legacyRedirectPath,
  runExportHref,
  runHref,
  runsListHref,
  screenHref,
  screenOf,
  switchNamespaceHref,
  workflowHref,
} from "@/lib/routes/route-for";

describe("namespaced links", () => {
  it("put the namespace first and encode every id as one segment", () => {
    expect(screenHref("billing", "overview")).toBe("/namespaces/billing");
    expect(screenHref("billing", "runs")).toBe("/namespaces/billing/runs");
    expect(workflowHref("billing", "order/42")).toBe("/namespaces/billing/workflows/order%2F42");
    expect(runHref("billing", "a?b", "r#1")).toBe("/namespaces/billing/workflows/a%3Fb/runs/r%231");
    expect(runExportHref("default", "wf", "run")).toBe("/namespaces/default/workflows/wf/runs/run/export");
    expect(runsListHref("billing")).toBe("/namespaces/billing/runs");
    expect(runsListHref("billing", "failed")).toBe("/namespaces/billing/runs?status=failed");
  });

  it("differ per namespace for the same run", () => {
    expect(runHref("a", "wf", "run")).not.toBe(runHref("b", "wf", "run"));
  });
});

describe("screenOf and switchNamespaceHref", () => {
  it("name the screen of a namespaced path", () => {
    expect(screenOf("/namespaces/a")).toBe("overview");
    expect(screenOf("/namespaces/a/attention")).toBe("attention");
    expect(screenOf("/namespaces/a/workflows/wf/runs/r")).toBe("runs");
    expect(screenOf("/login")).toBeNull();
  });

  it("keep the screen and leave a run page for the other namespace's runs list", () => {
    expect(switchNamespaceHref("/namespaces/a/workers", "b")).toBe("/namespaces/b/workers");
    expect(switchNamespaceHref("/namespaces/a", "b")).toBe("/namespaces/b");
    expect(switchNamespaceHref("/namespaces/a/workflows/wf/runs/r", "b")).toBe("/namespaces/b/runs");
    expect(switchNamespaceHref("/somewhere-else", "b")).toBe("/namespaces/b");
  });
});

describe("legacyRedirectPath", () => {
  it("moves every pre-namespace screen under the namespace", () => {
    expect(legacyRedirectPath("/", "b")).toBe("/namespaces/b");
    expect(legacyRedirectPath("/runs", "b")).toBe("/namespaces/b/runs");
    expect(legacyRedirectPath("/runs/", "b")).toBe("/namespaces/b/runs");
    expect(legacyRedirectPath("/attention", "b")).toBe("/namespaces/b/attention");
    expect(legacyRedirectPath("/system", "b")).toBe("/namespaces/b/system");
    expect(legacyRedirectPath("/workers", "b")).toBe("/namespaces/b/workers");
    expect(legacyRedirectPath("/workflows/order%2F42", "b")).toBe("/namespaces/b/workflows/order%2F42");
    expect(legacyRedirectPath("/workflows/wf/runs/r/export", "b")).toBe("/namespaces/b/workflows/wf/runs/r/export");
  });

  it("leaves every other path alone", () => {
    for (const path of ["/login", "/api/dw/health", "/namespaces/a/runs", "/runsx", "/workflows", "/icon.svg"])
      expect(legacyRedirectPath(path, "b")).toBeNull();
  });
});
