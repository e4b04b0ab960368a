"use client";

import { useEffect, useRef, useState } from "react";
import type { FormEvent } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { browserDwClientFor } from "@/lib/dw/browser-client";
import { isDwError } from "@/lib/dw/errors";
import { queryWorkflow } from "@/lib/dw/transport";
import type { WorkflowQueryResult } from "@/lib/dw/schemas-query";
import { endpointQuery, endpointQueryKey } from "@/lib/queries/endpoint-query";
import {
  declaredQueryNames,
  parseQueryArguments,
  queryFailure,
  queryNameChoices,
  rememberQueryName,
  startedWorkflowType,
} from "@/lib/views/query-outcome";
import type { QueryFailure } from "@/lib/views/query-outcome";
import { useTimeFormat } from "@/components/hooks/use-time-format";
import { Button } from "@/components/ui/button";
import { NameAndArgsFields } from "@/components/run-detail/name-and-args-fields";
import { Muted } from "@/components/ui/section";
import { decodePayloadTree, payloadEntries } from "@/components/run-detail/payload";
import type { PayloadEntry } from "@/components/run-detail/payload";
import type { RunTabProps } from "@/components/run-detail/run-tab-registry";

/** One answer as shown: kept in the tab's state only, never in the query cache (it is not durable state). */
interface QueryAnswer {
  id: number;
  name: string;
  input: unknown[] | undefined;
  answeredAt: number;
  outcome: { ok: true; entries: PayloadEntry[] } | { ok: false; failure: QueryFailure };
}

const KEEP_ANSWERS = 10;
/** `WorkflowStarted` sits in the first few events (after StartAccepted): one small page holds it. */
const STARTED_PAGE = 5;

/** The run's first events, for the names its worker declared: they never change, so read once. */
function useStartedEvents(namespace: string, workflowId: string, runId: string) {
  const params = { workflowId, runId };
  return useQuery({
    ...endpointQuery(namespace, "getHistory", params, { page_size: STARTED_PAGE }),
    // Its own key: the run page's history head reads the same endpoint for its newest page.
    queryKey: [...endpointQueryKey(namespace, "getHistory", params), "started"],
    refetchInterval: false,
    staleTime: Infinity,
  });
}

function storedNames(storageKey: string): string[] {
  try {
    const stored: unknown = JSON.parse(window.localStorage.getItem(storageKey) ?? "[]");
    return Array.isArray(stored) ? stored.filter((n): n is string => typeof n === "string") : [];
  } catch {
    return [];
  }
}

/**
 * Names sent before for this workflow type, in this browser (free text is always allowed). Read
 * while rendering: the tab renders in the browser only (its registry entry), where storage is.
 */
function useSeenNames(storageKey: string): [string[], (name: string) => void] {
  const [updated, setUpdated] = useState<Readonly<Record<string, string[]>>>({});
  const seen = updated[storageKey] ?? storedNames(storageKey);
  const remember = (name: string) => {
    const next = rememberQueryName(seen, name);
    try {
      window.localStorage.setItem(storageKey, JSON.stringify(next));
    } catch {
      // Storage full or disabled: the names are remembered for this page only.
    }
    setUpdated((previous) => ({ ...previous, [storageKey]: next }));
  };
  return [seen, remember];
}

/** The answer's value: its Avro envelope decoded by the console server, as history payloads are. */
async function resultEntries(answer: WorkflowQueryResult, signal: AbortSignal): Promise<PayloadEntry[]> {
  if (!answer.result_envelope) return payloadEntries({ result: answer.result });
  try {
    const tree = await decodePayloadTree(answer.result_envelope, signal);
    // An envelope the codec could not read comes back as it went: show the server's `result` then.
    const decoded = typeof tree === "object" && tree !== null && "decoded" in tree;
    return payloadEntries({ result: decoded ? tree : answer.result });
  } catch {
    return payloadEntries({ result: answer.result });
  }
}

/** Send a query to the run's worker and read its answer: viewers too, and in read-only mode (it changes nothing). */
export function QueriesTab({ namespace, workflowId, runId }: RunTabProps) {
  const t = useTranslations("run.queries");
  const started = useStartedEvents(namespace, workflowId, runId);
  const events = started.data?.events ?? [];
  const declared = declaredQueryNames(events);
  const type = startedWorkflowType(events);
  const [seen, remember] = useSeenNames(`breakwater.query-names.${namespace}.${type ?? workflowId}`);
  const choices = queryNameChoices(declared, seen);
  const [name, setName] = useState("");
  const [args, setArgs] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const [answers, setAnswers] = useState<QueryAnswer[]>([]);
  const counter = useRef(0);
  const abort = useRef<AbortController | null>(null);
  useEffect(() => () => abort.current?.abort(), []);

  async function send(event: FormEvent) {
    event.preventDefault();
    const queryName = name.trim();
    if (queryName === "") return setProblem(t("nameRequired"));
    const parsed = parseQueryArguments(args);
    if (!parsed.ok)
      return setProblem(parsed.problem === "not_json" ? t("argsNotJson", { detail: parsed.detail }) : t("argsNotList"));
    setProblem(null);
    setSending(true);
    const controller = new AbortController();
    abort.current = controller;
    let outcome: QueryAnswer["outcome"];
    try {
      const answer = await queryWorkflow(
        browserDwClientFor(namespace),
        workflowId,
        queryName,
        { runId, input: parsed.input },
        { signal: controller.signal },
      );
      outcome = { ok: true, entries: await resultEntries(answer, controller.signal) };
      remember(queryName);
    } catch (error) {
      if (controller.signal.aborted) return;
      outcome = { ok: false, failure: queryFailure(isDwError(error) ? error : { message: String(error) }) };
      if (outcome.failure.kind === "handler_failed") remember(queryName);
    } finally {
      setSending(false);
    }
    counter.current += 1;
    const answer = { id: counter.current, name: queryName, input: parsed.input, answeredAt: Date.now(), outcome };
    setAnswers((previous) => [answer, ...previous].slice(0, KEEP_ANSWERS));
  }

  const hint =
    choices.source === "declared" ? t("declaredHint") : choices.source === "seen" ? t("seenHint") : t("noneHint");
  return (
    <div className="flex flex-col gap-4" data-testid="queries-tab">
      <Muted>{t("intro")}</Muted>
      <form className="flex flex-col gap-3" onSubmit={(event) => void send(event)} noValidate>
        <NameAndArgsFields
          catalog="run.queries"
          testId="query"
          name={name}
          onName={(value) => {
            setName(value);
            setProblem(null);
          }}
          args={args}
          onArgs={(value) => {
            setArgs(value);
            setProblem(null);
          }}
          names={choices.names}
          fieldHint={choices.names.length === 0 ? hint : undefined}
          offersHint={hint}
          argsInvalid={problem !== null && problem !== t("nameRequired")}
        />
        <div className="flex flex-wrap items-center gap-3">
          <Button type="submit" variant="primary" size="sm" disabled={sending} data-testid="query-send">
            {sending ? t("sending") : t("send")}
          </Button>
          {problem ? (
            <span role="alert" className="text-sm text-bad" data-testid="query-problem">
              {problem}
            </span>
          ) : null}
        </div>
      </form>
      <section aria-label={t("answers")} className="flex flex-col gap-2">
        <h3 className="text-sm font-semibold text-fg">{t("answers")}</h3>
        {answers.length === 0 ? <Muted>{t("none")}</Muted> : null}
        <ol className="flex flex-col gap-2" aria-live="polite">
          {answers.map((answer) => (
            <AnswerCard key={answer.id} answer={answer} />
          ))}
        </ol>
      </section>
    </div>
  );
}

function AnswerCard({ answer }: { answer: QueryAnswer }) {
  const t = useTranslations("run.queries");
  const time = useTimeFormat();
  const { outcome } = answer;
  return (
    <li
      className="rounded-md border border-line"
      data-testid="query-answer"
      data-outcome={outcome.ok ? "answered" : outcome.failure.kind}
    >
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1 border-b border-line px-3 py-2 text-xs">
        <span className={`rounded px-1.5 py-0.5 font-medium ${outcome.ok ? "bg-ok/10 text-ok" : "bg-bad/10 text-bad"}`}>
          {outcome.ok ? t("answered") : t("refused")}
        </span>
        <span className="font-mono font-semibold break-all">{answer.name}</span>
        <span className="min-w-0 font-mono break-all text-fg-muted">
          {answer.input === undefined ? t("noArgs") : t("withArgs", { args: JSON.stringify(answer.input) })}
        </span>
        <span className="ml-auto whitespace-nowrap text-fg-muted" data-testid="query-answered-at">
          {t("answeredAt", { time: time.dateTime(answer.answeredAt) })}
        </span>
      </div>
      {outcome.ok ? <ResultFields entries={outcome.entries} /> : <FailureText failure={outcome.failure} />}
    </li>
  );
}

function ResultFields({ entries }: { entries: readonly PayloadEntry[] }) {
  const t = useTranslations("run.queries");
  return (
    <dl className="max-h-[320px] overflow-auto px-3 py-2 text-xs" data-testid="query-result">
      {entries.map((entry) => (
        <div key={entry.key}>
          <dt className="sr-only">{t("result")}</dt>
          <dd className="min-w-0 rounded bg-panel-muted px-2 py-1 font-mono break-words whitespace-pre-wrap">
            {entry.text}
          </dd>
        </div>
      ))}
    </dl>
  );
}

function FailureText({ failure }: { failure: QueryFailure }) {
  const t = useTranslations("run.queries");
  const said = failure.kind === "handler_failed" ? "workerSaid" : "serverSaid";
  return (
    <div className="flex flex-col gap-1 px-3 py-2 text-sm" data-testid="query-failure">
      <p className="text-bad">{t(`failure.${failure.kind}`, { status: failure.httpStatus ?? "—" })}</p>
      {failure.detail ? (
        <p className="font-mono text-xs break-words text-fg-muted">{t(said, { detail: failure.detail })}</p>
      ) : null}
    </div>
  );
}
