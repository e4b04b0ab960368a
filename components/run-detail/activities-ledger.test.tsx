// @vitest-environment jsdom
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render, screen } from "@testing-library/react";
import { NextIntlClientProvider } from "next-intl";
import en from "@/messages/en.json";
import { attemptLedger } from "@/lib/views/attempts";
import type { LedgerActivity } from "@/lib/views/attempts";
import exhausted from "@/lib/views/fixtures/exhausted-retries.json";
import leaseExpiry from "@/lib/views/fixtures/lease-expiry.json";
import activityTimeout from "@/lib/views/fixtures/activity-timeout.json";
import retryThenSuccess from "@/lib/views/fixtures/retry-then-success.json";
import { ActivitiesLedger } from "@/components/run-detail/activities-ledger";

afterEach(cleanup);

function renderLedger(activities: LedgerActivity[]) {
  render(
    <NextIntlClientProvider locale="en" messages={en} timeZone="UTC">
      <ActivitiesLedger activities={activities} />
    </NextIntlClientProvider>,
  );
}

describe("activity ledger wording", () => {
  it("says retries are exhausted with the count, and heads the column 'Failure'", () => {
    renderLedger(attemptLedger(exhausted.history_events, exhausted.activities));
    expect(screen.getByTestId("retry-verdict").textContent).toBe("retries exhausted (3/3)");
    expect(screen.getByRole("columnheader", { name: "Failure" })).toBeTruthy();
    expect(screen.queryByText("Its failure")).toBeNull();
  });

  it("reads the policy's non-retryable list as a rule, not a verdict", () => {
    renderLedger(attemptLedger(retryThenSuccess.history_events, retryThenSuccess.activities));
    const header = screen.getByTestId("ledger-activity").querySelector("header")!;
    expect(header.textContent).toContain("retries stop on: App\\Errors\\PaymentDeclined");
    expect(header.textContent).not.toContain("non-retryable:");
    expect(screen.queryByTestId("retry-verdict")).toBeNull();
  });

  it("explains an expired attempt's gap by its lease, and a timed-out one by its timeout", () => {
    renderLedger(attemptLedger(leaseExpiry.history_events, leaseExpiry.activities));
    const lease = screen.getByTestId("attempt-gap");
    expect(lease.dataset.gap).toBe("lease");
    expect(lease.textContent).toContain("lease expired");
    expect(lease.textContent).toContain("attempt #2 started");
    cleanup();
    const invoice = attemptLedger(activityTimeout.history_events, activityTimeout.activities).filter(
      (activity) => activity.type === "GenerateInvoice",
    );
    renderLedger(invoice);
    const gaps = screen.getAllByTestId("attempt-gap").map((gap) => gap.textContent);
    expect(gaps[0]).toContain("start-to-close timeout after 30 s; attempt #2 started");
  });

  it("truncates worker names whole, with the full name as a title", () => {
    renderLedger(attemptLedger(leaseExpiry.history_events, leaseExpiry.activities));
    const worker = screen.getAllByTestId("attempt-worker")[0]!;
    expect(worker.getAttribute("title")).toBe("worker-crashed");
    expect(worker.className).toContain("truncate");
    expect(worker.closest("td")?.className).not.toContain("break-all");
  });
  it("shows no backoff for an activity that can never retry", () => {
    const [first] = attemptLedger(retryThenSuccess.history_events, retryThenSuccess.activities);
    const once: LedgerActivity = {
      ...first!,
      attemptsUsed: 1,
      attempts: first!.attempts.slice(0, 1),
      maxAttempts: 1,
      retryPolicy: { ...first!.retryPolicy!, maxAttempts: 1, backoffSeconds: [1, 2, 5, 120] },
    };
    renderLedger([once]);
    const header = screen.getByTestId("ledger-activity").querySelector("header")!;
    expect(header.textContent).toContain("attempt 1 of 1");
    expect(header.textContent).not.toContain("backoff");
  });
});
