import { describe, expect, it } from "vitest";
import { stackTraceView } from "./stack-trace";

// The head of the trace the real engine wrote for kiki-fatal (an incident's stackTrace).
const REAL =
  "io.breakwater.kikwiflowhost.handlers.LedgerCorruptedException: Ledger entry checksum mismatch\n" +
  "\tat io.breakwater.kikwiflowhost.handlers.FatalTaskHandler.handle(FatalTaskHandler.java:17)\n" +
  "\tat io.kikwiflow.execution.TaskExecutor.execute(TaskExecutor.java:78)\n" +
  "\tat io.kikwiflow.execution.FlowNodeExecutor.execute(FlowNodeExecutor.java:58)\n";

describe("stackTraceView", () => {
  it("shows a short trace whole, with the exception line as the headline", () => {
    const view = stackTraceView(REAL)!;
    expect(view.headline).toBe(
      "io.breakwater.kikwiflowhost.handlers.LedgerCorruptedException: Ledger entry checksum mismatch",
    );
    expect(view.shown.split("\n")).toHaveLength(4);
    expect(view.shown).toContain("\tat io.kikwiflow.execution.TaskExecutor");
    expect(view.hiddenLines).toBe(0);
  });

  it("caps the lines and counts the rest", () => {
    const trace = ["boom", ...Array.from({ length: 99 }, (_, i) => `\tat f${i}()`)].join("\n");
    const view = stackTraceView(trace, 10)!;
    expect(view.shown.split("\n")).toHaveLength(10);
    expect(view.hiddenLines).toBe(90);
  });

  it("clips a runaway line", () => {
    const view = stackTraceView("x".repeat(5000), 40, 100)!;
    expect(view.shown).toBe(`${"x".repeat(100)}…`);
    expect(view.headline).toHaveLength(101);
  });

  it("replaces control characters (terminal escapes, NUL) but keeps tabs, and folds CRLF", () => {
    const view = stackTraceView("E: \u001b[31mred\u0000\r\n\tat a()\r\n")!;
    expect(view.shown).toBe("E: \uFFFD[31mred\uFFFD\n\tat a()");
    expect(view.hiddenLines).toBe(0);
  });

  it("keeps markup as text: nothing is interpreted", () => {
    const view = stackTraceView("<img src=x onerror=alert(1)>")!;
    expect(view.shown).toBe("<img src=x onerror=alert(1)>");
  });

  it("is null when the engine sent no trace", () => {
    expect(stackTraceView(null)).toBeNull();
    expect(stackTraceView(undefined)).toBeNull();
    expect(stackTraceView("  \n ")).toBeNull();
  });
});
