import { describe, expectTypeOf, it } from "vitest";
import type {
  DebugFailure,
  ExportActivity,
  ExportHistoryEvent,
  FailureSnapshot,
  HistoryEvent,
  HistoryExport,
  RunDescription,
  WorkflowDebug,
} from "@/lib/dw";
import type { ActivityRowInput } from "./attempts";
import type { AttentionRunInput } from "./failure-groups";
import type { CapabilityContext, RunDetailInput } from "./capabilities";
import type { HistoryEventInput } from "./events";
import type { ExceptionSource, FailureInput } from "./exceptions";
import type { LivenessInput } from "./liveness";

// The views declare only the fields they read; these checks (run by tsc) prove that what lib/dw
// parses off the wire is accepted as-is, so the console never reshapes data between the layers.
describe("lib/dw types fit the view inputs", () => {
  it("history, failures and activities", () => {
    expectTypeOf<HistoryEvent>().toExtend<HistoryEventInput>();
    expectTypeOf<ExportHistoryEvent>().toExtend<HistoryEventInput>();
    expectTypeOf<FailureSnapshot>().toExtend<FailureInput>();
    expectTypeOf<DebugFailure>().toExtend<FailureInput>();
    expectTypeOf<ExportActivity>().toExtend<ActivityRowInput>();
    expectTypeOf<HistoryExport>().toExtend<ExceptionSource>();
    expectTypeOf<WorkflowDebug>().toExtend<ExceptionSource>();
  });

  it("liveness, capabilities and grouping", () => {
    expectTypeOf<NonNullable<HistoryExport["summary"]>>().toExtend<LivenessInput>();
    expectTypeOf<WorkflowDebug["execution"]>().toExtend<LivenessInput>();
    expectTypeOf<RunDescription>().toExtend<RunDetailInput>();
    expectTypeOf<HistoryExport["workflow"]>().toExtend<RunDetailInput>();
    expectTypeOf<WorkflowDebug["execution"]>().toExtend<NonNullable<CapabilityContext["liveness"]>>();
    expectTypeOf<WorkflowDebug>().toExtend<AttentionRunInput>();
  });
});
