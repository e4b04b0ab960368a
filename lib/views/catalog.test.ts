import { describe, expect, it } from "vitest";
import en from "@/messages/en.json";
import de from "@/messages/de.json";
import { HISTORY_EVENT_TYPES, LIVENESS_STATES, REPAIR_BLOCKED_REASONS } from "@/lib/dw/enums";
import type { Role, RunDetailInput } from "./capabilities";
import { runCapabilities } from "./capabilities";
import { toViewEvent } from "./events";
import type { RetryForecast } from "./forecast";
import { formatRetryForecast } from "./forecast";
import type { LivenessInput, LivenessView } from "./liveness";
import { livenessLabel, repairBlockedInfo, taskProblemBadge } from "./liveness";
import type { Message, ViewMessageId } from "./message";
import { formatTemplate } from "./message";
import { VIEW_MESSAGES_EN, nestMessages } from "./message-catalog";
import { eventSummary } from "./timeline";
import { catalogLeaves as leaves, placeholdersOf as placeholders } from "@/lib/i18n/catalog-leaves";
import type { CatalogTree as Tree } from "@/lib/i18n/catalog-leaves";

/*
 * The views emit message ids; the screens render them from the next-intl catalogs. These tests drive
 * every view that emits ids and check each id against both catalogs, so a new id (or a new liveness
 * state, capability reason, event type…) cannot ship English-only.
 */

/** The `views.*` part of a catalog, flat. */
function viewLeaves(catalog: Tree): Map<string, string> {
  const views = catalog.views;
  return typeof views === "object" ? leaves({ views }) : new Map();
}

/** Every id the views emit, found by running them over every state, reason and event type they know. */
function emittedIds(): Set<string> {
  const ids = new Set<string>();
  const add = (message: Message | null | undefined) => {
    if (message) ids.add(message.id);
  };
  const addLiveness = (view: LivenessView) => {
    add(view.label);
    add(view.repairBlocked?.label);
    add(view.repairBlocked?.description);
    add(view.taskProblem?.label);
  };

  // Liveness: every state (and an unknown one), with and without a task problem, current or not.
  const states = [...LIVENESS_STATES, "some_future_state"];
  addLiveness(livenessLabel(null));
  addLiveness(livenessLabel({}));
  for (const state of states) {
    for (const extra of [
      {},
      { repair_attention: true },
      { is_current_run: false },
      { task_problem: true },
      { task_problem: true, wait_kind: "timer" },
    ]) {
      addLiveness(livenessLabel({ liveness_state: state, ...extra }));
    }
  }
  for (const code of [...REPAIR_BLOCKED_REASONS, "some_future_reason"]) {
    const info = repairBlockedInfo(code);
    add(info.label);
    add(info.description);
  }
  for (const code of ["replay_blocked", "active", "history", "some_future_problem"]) {
    add(taskProblemBadge({ task_problem_badge: { code, label: "Server label" } })?.label);
  }

  // Capabilities: every rule, for every role, read-only or not.
  const details: RunDetailInput[] = [
    { status: "running", is_terminal: false, is_current_run: true },
    { status: "running", is_terminal: false, is_current_run: false },
    { status: "completed", is_terminal: true, is_current_run: true },
    { status: "completed", is_terminal: true, is_current_run: true, archived_at: "2026-01-01T00:00:00Z" },
    {
      status: "running",
      is_terminal: false,
      is_current_run: true,
      actions: { can_cancel: false, can_terminate: false, can_signal: false, can_repair: false },
    },
    { status: "completed", is_terminal: true, is_current_run: true, actions: { can_archive: false } },
  ];
  const livenesses: (LivenessInput | null)[] = [
    null,
    ...LIVENESS_STATES.map((state) => ({ liveness_state: state })),
    { liveness_state: "workflow_replay_blocked", repair_attention: true },
  ];
  for (const readOnly of [false, true]) {
    for (const role of [null, "worker", "operator", "admin"] as (Role | null)[]) {
      for (const detail of details) {
        for (const liveness of livenesses) {
          for (const personRole of [null, "viewer"] as const)
            for (const cooperativeCancellation of [null, false, true])
              for (const capability of Object.values(
                runCapabilities(detail, { readOnly, role, liveness, personRole, cooperativeCancellation }),
              ))
                add(capability.message);
        }
      }
    }
  }

  // Forecast sentences: every clause, bounded or unlimited, due or overdue, one or many types.
  const base: RetryForecast = {
    activity: "ChargeCard",
    executionId: "e1",
    state: "waiting",
    attempt: 2,
    max: 3,
    unlimited: false,
    dueAt: null,
    dueAtMs: null,
    inMs: null,
    lastAttempt: false,
    nonRetryableTypes: [],
    lastFailure: null,
    time: null,
    relative: null,
    typesText: null,
  };
  const record = (id: ViewMessageId, values: Readonly<Record<string, string | number>>) => {
    ids.add(id);
    return formatTemplate(VIEW_MESSAGES_EN[id], values);
  };
  for (const state of ["waiting", "running", "retry_scheduled"] as const) {
    for (const max of [3, null]) {
      for (const inMs of [60_000, -60_000]) {
        for (const types of [[], ["A"], ["A", "B"]]) {
          for (const lastAttempt of [false, true]) {
            formatRetryForecast(
              {
                ...base,
                state,
                max,
                unlimited: max === null,
                inMs,
                lastAttempt,
                nonRetryableTypes: types,
                typesText: types.join(" and ") || null,
              },
              record,
            );
          }
        }
      }
    }
  }

  // Timeline summaries: every history event type, with the payload variants that change the sentence.
  const variants = [
    {},
    { outcome: "repair_dispatched" },
    { outcome: "archive_not_needed" },
    { timeout_kind: "run_timeout" },
    { failure_id: "f" },
    { timeout_seconds: 5 },
    { signal_name: "approve", reason: "customer left" },
  ];
  for (const type of [...HISTORY_EVENT_TYPES, "SomeFutureEvent"]) {
    for (const payload of variants) add(eventSummary(toViewEvent({ sequence: 1, type, payload })));
  }
  return ids;
}

describe("view message ids in the console catalogs", () => {
  const english = viewLeaves(en);
  const german = viewLeaves(de);
  const emitted = emittedIds();

  it("has every id the views emit in the English and the German catalog", () => {
    const missing = [...emitted].flatMap((id) =>
      [english.has(id) ? [] : [`en: ${id}`], german.has(id) ? [] : [`de: ${id}`]].flat(),
    );
    expect(missing).toEqual([]);
  });

  it("emits every id of the table, so the drive above is exhaustive and no entry is dead", () => {
    expect([...emitted].sort()).toEqual(Object.keys(VIEW_MESSAGES_EN).sort());
  });

  it("keeps messages/en.json's `views` identical to the table in lib/views", () => {
    expect(en.views).toEqual(nestMessages(VIEW_MESSAGES_EN).views);
  });

  it("has the same `views` keys in both catalogs, with the same placeholders", () => {
    expect([...german.keys()].sort()).toEqual([...english.keys()].sort());
    for (const [id, template] of german)
      expect(placeholders(template), id).toEqual(placeholders(english.get(id) ?? ""));
  });

  it("translates German for real: only placeholder-only templates may equal the English", () => {
    const untranslated = [...german].filter(
      ([id, template]) => template === english.get(id) && /\p{L}/u.test(template.replace(/\{\w+\}/g, "")),
    );
    expect(untranslated).toEqual([]);
  });
});
