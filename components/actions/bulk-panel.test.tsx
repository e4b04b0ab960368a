// @vitest-environment jsdom
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render, screen, within } from "@testing-library/react";
import type { BulkView } from "@/lib/confirm/bulk-runner";
import type { BulkWords } from "@/components/actions/bulk-panel";
import { BulkPanel, BulkPlanBuckets } from "@/components/actions/bulk-panel";

afterEach(cleanup);

interface Plan {
  send: number;
}

const none = { plan: null, reads: null, progress: null, outcome: null, checks: 0, done: false };
const planned: BulkView<Plan, string> = { ...none, shown: "planned", plan: { send: 2 } };
const sending: BulkView<Plan, string> = {
  ...none,
  shown: "sending",
  plan: { send: 2 },
  progress: { sent: 1, total: 2 },
};
const finished: BulkView<Plan, string> = {
  ...none,
  shown: "tracking",
  plan: { send: 2 },
  outcome: "2 closed",
  checks: 3,
  done: true,
};

/** The catalog's words as `key a=1 b=2`, so the test sees which sentence with which values. */
const words: BulkWords = (key, values = {}) =>
  [key, ...Object.entries(values).map(([name, value]) => `${name}=${value}`)].join(" ");

function panel(view: BulkView<Plan, string>, extra: { place?: "section" | "group"; controlsFirst?: boolean } = {}) {
  render(
    <BulkPanel
      testId="panel"
      place={extra.place ?? "group"}
      view={view}
      words={words}
      title="Do it to all"
      onClose={() => undefined}
      trackForMs={120_000}
      limits={{ rule: "One at a time.", capped: "Only the first 2." }}
      reading={(reads) => `read ${reads.read} of ${reads.total}`}
      plan={(plan, heading) => <p data-testid="plan">{`${heading}: ${plan.send}`}</p>}
      progress={{ barLabel: "Progress" }}
      outcome={(outcome, tracking) => <p data-testid="outcome">{`${outcome} (${tracking})`}</p>}
      controls={(plan) => <button type="button">{`Send ${plan.send}`}</button>}
      controlsFirst={extra.controlsFirst}
    />,
  );
  return screen.getByTestId("panel");
}

describe("BulkPanel", () => {
  it("offers the send only while the dry run's plan waits, and words the plan as sent afterwards", () => {
    expect(panel(planned).dataset.stage).toBe("planned");
    expect(screen.getByTestId("plan").textContent).toBe("planHeading: 2");
    expect(screen.getByRole("button", { name: "Send 2" })).toBeTruthy();
    cleanup();

    expect(panel(sending).dataset.stage).toBe("sending");
    expect(screen.getByTestId("plan").textContent).toBe("planExecuted: 2");
    expect(screen.queryByRole("button", { name: "Send 2" })).toBeNull();
    expect(screen.getByTestId("bulk-progress").textContent).toBe("sending sent=1 total=2");
    expect(screen.getByRole("progressbar", { name: "Progress" }).getAttribute("value")).toBe("1");
    cleanup();

    panel(finished);
    expect(screen.getByTestId("outcome").textContent).toBe("2 closed (trackingDone checks=3)");
    expect(screen.queryByTestId("bulk-progress")).toBeNull();
  });

  it("states the bounds from the flow's tracking time, between its rule and the capped note", () => {
    panel(planned);
    expect(screen.getByText(/^One at a time\. limits /).textContent).toBe(
      "One at a time. limits reads=3 sends=3 interval=3 minutes=2 cacheMinutes=10 Only the first 2.",
    );
    expect(screen.getByRole("button", { name: "close" })).toBeTruthy();
  });

  it("states the dry run's reads while it reads, inside the live status region", () => {
    panel({ ...none, shown: "planning", reads: { read: 1, total: 4 } });
    expect(within(screen.getByRole("status")).getByText("read 1 of 4")).toBeTruthy();
    expect(screen.queryByTestId("plan")).toBeNull();
  });

  it("puts the controls above the status when asked, below it otherwise", () => {
    const order = (root: HTMLElement) =>
      Array.from(root.children).map((child) => (child.getAttribute("role") === "status" ? "status" : child.tagName));
    expect(order(panel(planned))).toEqual(["DIV", "P", "status", "BUTTON"]);
    cleanup();
    expect(order(panel(planned, { controlsFirst: true }))).toEqual(["DIV", "P", "BUTTON", "status"]);
  });

  it("is a named section with its own h2 on the runs list, and sits under its group (h4) elsewhere", () => {
    const section = panel(planned, { place: "section" });
    expect(section.tagName).toBe("SECTION");
    expect(screen.getByRole("region", { name: "Do it to all" })).toBe(section);
    expect(screen.getByRole("heading", { level: 2, name: "Do it to all" })).toBeTruthy();
    cleanup();
    expect(panel(planned).tagName).toBe("DIV");
    expect(screen.getByRole("heading", { level: 4, name: "Do it to all" })).toBeTruthy();
  });
});

describe("BulkPlanBuckets", () => {
  it("names each line's first three runs, linked to their run pages, and only counts the rest", () => {
    const runs = ["a", "b", "c", "d"].map((id) => ({ bucket: "send", workflowId: `wf-${id}`, runId: `run-${id}` }));
    render(
      <BulkPlanBuckets
        testId="plan"
        namespace="default"
        heading="Dry run"
        namedLabel="e.g."
        runs={[...runs, { bucket: "skip", workflowId: "wf-z", runId: "run-z" }]}
        lines={[
          { bucket: "send", count: 4, label: "will be sent" },
          { bucket: "none", count: 0, label: "nothing here" },
        ]}
      />,
    );
    const send = screen.getByText("will be sent", { exact: false }).closest("li");
    expect(send?.getAttribute("data-count")).toBe("4");
    const links = within(send as HTMLElement).getAllByRole("link");
    expect(links.map((link) => link.textContent)).toEqual(["wf-a", "wf-b", "wf-c"]);
    expect(links[0]?.getAttribute("href")).toBe("/namespaces/default/workflows/wf-a/runs/run-a");
    expect(send?.textContent).toContain("e.g. wf-a, wf-b, wf-c");
    const empty = screen.getByText("nothing here", { exact: false }).closest("li");
    expect(within(empty as HTMLElement).queryAllByRole("link")).toHaveLength(0);
  });
});
