"use client";

import { useMemo } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { runDescribeQuery } from "@/lib/queries/run";
import { runViewExtrasQuery } from "@/lib/run-view/stream";
import type { RunViewSummary } from "@/lib/run-view/store";
import { updateCapability } from "@/lib/views/capabilities";
import type { UpdateRow, UpdateSender } from "@/lib/views/updates";
import { sendersByCommand } from "@/lib/views/updates";
import { useTimeFormat } from "@/components/hooks/use-time-format";
import { useActionContext } from "@/components/actions/use-action-context";
import { useActionWords } from "@/components/actions/use-action-words";
import { Muted } from "@/components/ui/section";
import { Pill } from "@/components/ui/status-badge";
import { decodePayloadTree, payloadEntries } from "@/components/run-detail/payload";
import type { RunTabProps } from "@/components/run-detail/run-tab-registry";
import { SendUpdateForm } from "@/components/run-detail/update-form";
import { useUpdateSend } from "@/components/run-detail/use-update-send";

type Decoded = Readonly<Record<string, { arguments: string | null; result: string | null }>>;

/**
 * The rows' codec blobs (arguments, results) decoded by the console server in one request, as the
 * History tab decodes payloads; keyed by what the rows hold, so a new or closed update reads again.
 */
function useDecoded(namespace: string, runId: string, rows: readonly UpdateRow[]): Decoded | null {
  const key = rows.map((row) => `${row.updateId}:${row.closedSequence ?? ""}`).join(",");
  const query = useQuery({
    queryKey: ["ns", namespace, "update-payloads", runId, key],
    enabled: rows.length > 0,
    staleTime: Infinity,
    queryFn: async ({ signal }) => {
      const tree = Object.fromEntries(
        rows.map((row) => [
          row.updateId,
          { arguments: row.arguments, result: row.result, payload_codec: row.payloadCodec ?? "avro" },
        ]),
      );
      const decoded = (await decodePayloadTree(tree, signal)) as Record<string, unknown>;
      const text = (value: unknown) => (value === null || value === undefined ? null : shortText(value));
      return Object.fromEntries(
        Object.entries(decoded).map(([id, parts]) => {
          const record = parts as { arguments?: unknown; result?: unknown };
          return [id, { arguments: text(record.arguments), result: text(record.result) }];
        }),
      ) as Decoded;
    },
  });
  // A payload the console server could not decode is shown as recorded rather than "decoding" forever.
  if (query.isError) return Object.fromEntries(rows.map((row) => [row.updateId, raw(row)]));
  return query.data ?? null;
}

function raw(row: UpdateRow): { arguments: string | null; result: string | null } {
  const text = (value: unknown) => (value === null || value === undefined ? null : String(value));
  return { arguments: text(row.arguments), result: text(row.result) };
}

/** A decoded value on one line when it is short (`["WINTER25"]`), else as the payload pane shows it. */
function shortText(value: unknown): string {
  const text = payloadEntries(value)[0]?.text ?? "";
  try {
    const compact = JSON.stringify(JSON.parse(text));
    return compact.length <= 80 ? compact : text;
  } catch {
    return text;
  }
}

/** The run's updates from its history (streamed with the run view), newest first, and the send form. */
export function UpdatesTab({ namespace, workflowId, runId, open, summary }: RunTabProps & { summary: RunViewSummary }) {
  const t = useTranslations("run.updates");
  const words = useActionWords();
  const context = useActionContext();
  const describe = useQuery(runDescribeQuery(namespace, workflowId, runId));
  const capability = useMemo(
    () =>
      describe.data && context.known
        ? updateCapability(describe.data, {
            readOnly: context.readOnly,
            role: context.role,
            personRole: context.personRole,
          })
        : null,
    [describe.data, context.known, context.readOnly, context.role, context.personRole],
  );
  const snapshot = summary.snapshot;
  const { phase, send } = useUpdateSend(namespace, workflowId, runId, snapshot?.lastSequence ?? null);
  const rows = useMemo(() => [...(snapshot?.updates ?? [])].reverse(), [snapshot]);
  const decoded = useDecoded(namespace, runId, rows);
  // The export is read only for updates whose events carry no command snapshot (the twin's, so far).
  const needExport = rows.some((row) => row.sender === null);
  const extras = useQuery({ ...runViewExtrasQuery(namespace, workflowId, runId, open), enabled: needExport });
  // A run whose export cannot be read says so.
  const senders = useMemo(
    () => (extras.data ? sendersByCommand(extras.data.commands) : extras.isError ? "unavailable" : null),
    [extras.data, extras.isError],
  );
  const reason = capability ? words.capability(capability) : null;

  return (
    <div className="flex flex-col gap-5" data-testid="updates-tab">
      <Muted>{t("intro")}</Muted>
      <SendUpdateForm
        namespace={namespace}
        workflowId={workflowId}
        runId={runId}
        capability={capability}
        reason={reason}
        phase={phase}
        onSend={(form) => void send(form)}
      />
      <section aria-label={t("listLabel")} className="flex flex-col gap-2">
        <h3 className="text-sm font-semibold text-fg">{t("list", { count: rows.length })}</h3>
        {snapshot === null ? <Muted>{t("reading")}</Muted> : rows.length === 0 ? <Muted>{t("none")}</Muted> : null}
        {snapshot?.updatesOmitted ? <Muted>{t("omitted", { count: snapshot.updatesOmitted })}</Muted> : null}
        <ol className="flex flex-col gap-2" data-testid="updates-list">
          {rows.map((row) => (
            <UpdateCard
              key={row.updateId}
              row={row}
              decoded={decoded?.[row.updateId] ?? null}
              sender={
                row.sender ??
                (senders === null || senders === "unavailable"
                  ? senders
                  : row.commandId
                    ? (senders.get(row.commandId) ?? "none")
                    : "none")
              }
            />
          ))}
        </ol>
      </section>
    </div>
  );
}

const STATE_TONE = {
  accepted: "info",
  applied: "info",
  completed: "success",
  failed: "danger",
  rejected: "neutral",
} as const;

/**
 * One update: its state, name and when it was sent; its arguments; then what came of it — a result,
 * a handler's failure (Category, type, message, the non-retryable badge) or the server's refusal.
 */
function UpdateCard({
  row,
  decoded,
  sender,
}: {
  row: UpdateRow;
  decoded: { arguments: string | null; result: string | null } | null;
  /** Null while the export's commands load; `none` when it has no row for the update's command. */
  sender: UpdateSender | SenderState;
}) {
  const t = useTranslations("run.updates");
  const time = useTimeFormat();
  return (
    <li
      className="rounded-md border border-line"
      data-testid="update-row"
      data-update-id={row.updateId}
      data-state={row.state}
    >
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1 border-b border-line px-3 py-2 text-xs">
        <Pill tone={STATE_TONE[row.state]} testId="update-state">
          {t(`state.${row.state}`)}
        </Pill>
        <span className="font-mono font-semibold break-all" data-testid="update-row-name">
          {row.name}
        </span>
        {row.failure?.nonRetryable ? (
          <Pill tone="warning" testId="non-retryable-badge">
            {t("nonRetryable")}
          </Pill>
        ) : null}
        <span className="ml-auto whitespace-nowrap text-fg-muted">
          {t("sentAt", { time: time.dateTime(row.sentAt) })}
        </span>
      </div>
      <dl className="grid gap-x-3 gap-y-1.5 px-3 py-2 text-xs sm:grid-cols-[8rem_minmax(0,1fr)]">
        <dt className="text-fg-muted">{t("arguments")}</dt>
        <dd className="min-w-0 font-mono break-words whitespace-pre-wrap" data-testid="update-arguments">
          {decoded ? (decoded.arguments ?? t("noArgs")) : t("decoding")}
        </dd>
        <Outcome row={row} decoded={decoded} />
        <dt className="text-fg-muted">{t("sentBy")}</dt>
        <dd className="min-w-0 break-words" data-testid="update-sender">
          <SenderText sender={sender} />
        </dd>
        <dt className="text-fg-muted">{t("ids")}</dt>
        <dd className="min-w-0 font-mono break-all text-fg-muted">
          {t("idsValue", { updateId: row.updateId, commandId: row.commandId ?? "—" })}
        </dd>
      </dl>
    </li>
  );
}

function Outcome({ row, decoded }: { row: UpdateRow; decoded: { result: string | null } | null }) {
  const t = useTranslations("run.updates");
  const time = useTimeFormat();
  const closed = row.closedAt ? t("closedAt", { time: time.dateTime(row.closedAt) }) : null;
  if (row.state === "completed")
    return (
      <>
        <dt className="text-fg-muted">{t("result")}</dt>
        <dd className="min-w-0 font-mono break-words whitespace-pre-wrap" data-testid="update-result">
          {decoded ? (decoded.result ?? "null") : t("decoding")}
          {closed ? <span className="block font-sans text-fg-muted">{closed}</span> : null}
        </dd>
      </>
    );
  if (row.state === "failed" && row.failure) {
    const failure = row.failure;
    return (
      <>
        <dt className="text-fg-muted">{t("failure")}</dt>
        <dd className="min-w-0 break-words" data-testid="update-failure">
          <span className="text-bad">{t("handlerFailed")}</span>{" "}
          <span className="font-mono" data-testid="update-failure-category">
            {failure.category ?? "-"}
          </span>
          {(failure.exceptionType ?? failure.exceptionClass) ? (
            <span className="font-mono"> · {failure.exceptionType ?? failure.exceptionClass}</span>
          ) : null}
          {failure.message ? <span className="block text-fg">{failure.message}</span> : null}
          {closed ? <span className="block text-fg-muted">{closed}</span> : null}
        </dd>
      </>
    );
  }
  if (row.state === "rejected")
    return (
      <>
        <dt className="text-fg-muted">{t("refusal")}</dt>
        <dd className="min-w-0 break-words" data-testid="update-rejection">
          <RejectionText row={row} />
        </dd>
      </>
    );
  return (
    <>
      <dt className="text-fg-muted">{t("result")}</dt>
      <dd className="text-fg-muted" data-testid="update-pending">
        {t(row.state === "applied" ? "pendingApplied" : "pendingAccepted")}
      </dd>
    </>
  );
}

const KNOWN_REASONS = new Set(["run_not_active", "unknown_update", "selected_run_not_current"]);

/** The reason the event's command snapshot recorded, else only what the rest of history shows. */
function RejectionText({ row }: { row: UpdateRow }) {
  const t = useTranslations("run.updates.rejection");
  const reason = row.rejectionReason;
  if (reason && KNOWN_REASONS.has(reason))
    return <>{t(reason as "run_not_active" | "unknown_update" | "selected_run_not_current")}</>;
  if (reason) return <>{t("reason", { reason })}</>;
  return <>{t(row.rejection ?? "unknown", { errors: row.validationErrors.join("; ") })}</>;
}

type SenderState = null | "none" | "unavailable";

function SenderText({ sender }: { sender: UpdateSender | SenderState }) {
  const t = useTranslations("run.updates");
  if (sender === null) return <span className="text-fg-muted">{t("senderLoading")}</span>;
  if (sender === "none" || sender === "unavailable")
    return <span className="text-fg-muted">{t(sender === "none" ? "senderUnknown" : "senderUnavailable")}</span>;
  if (sender.principal)
    return <span>{t("senderPrincipal", { principal: sender.principal, source: sender.source ?? "—" })}</span>;
  return <span className="text-fg-muted">{t("senderSource", { source: sender.source ?? "—" })}</span>;
}
