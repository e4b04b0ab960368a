"use client";

import { useState } from "react";
import { useTranslations } from "next-intl";
import { queryOptions, useQuery, useQueryClient } from "@tanstack/react-query";
import { browserDwClientFor } from "@/lib/dw/browser-client";
import { serverKey } from "@/lib/queries/keys";
import { namespaceHref } from "@/lib/routes/route-for";
import { checkNamespaceForm, deleteBlock, deleteConfirmed, deletedCounts, namespaceRows } from "@/lib/views/namespaces";
import type { FormError, NamespaceFormInput, NamespaceRow } from "@/lib/views/namespaces";
import type { NamespaceAction } from "@/lib/actions/namespace-actions";
import { useGuardRefusal } from "@/components/actions/use-guard-refusal";
import { Panel } from "@/components/metrics/panel";
import { QueryState } from "@/components/dw/query-state";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Field, inputClass } from "@/components/ui/field";
import Link from "@/components/ui/link";
import { sendNamespaceAction } from "@/components/namespaces/send-namespace-action";
import type { NamespaceOutcome } from "@/components/namespaces/send-namespace-action";

/**
 * The full namespace list (the switcher's key `["server","namespaces"]` holds only names, so this
 * one lives under it: invalidating the prefix refreshes both after a change).
 */
function namespaceDetailsQuery(namespace: string) {
  return queryOptions({
    queryKey: serverKey("namespaces", "details"),
    queryFn: ({ signal }) => browserDwClientFor(namespace).read("listNamespaces", {}, undefined, { signal }),
    refetchInterval: 30_000,
    retry: false,
  });
}

type Editing = { mode: "create" } | { mode: "edit"; row: NamespaceRow } | null;

/** Namespaces with retention and storage; an admin creates, edits and deletes them (confirmed, read back). */
export function NamespacesScreen({ namespace }: { namespace: string }) {
  const t = useTranslations("namespaces");
  const queryClient = useQueryClient();
  const list = useQuery(namespaceDetailsQuery(namespace));
  const [editing, setEditing] = useState<Editing>(null);
  const [deleting, setDeleting] = useState<NamespaceRow | null>(null);
  const [outcome, setOutcome] = useState<NamespaceOutcome | null>(null);
  const [busy, setBusy] = useState(false);

  const refusal = useGuardRefusal("admin", {
    checking: t("checking"),
    readOnly: t("readOnly"),
    token: (role) => t("tokenRole", { role }),
  });

  const send = async (action: NamespaceAction) => {
    setEditing(null);
    setDeleting(null);
    setBusy(true);
    const result = await sendNamespaceAction(namespace, action);
    setOutcome(result);
    await queryClient.invalidateQueries({ queryKey: serverKey("namespaces") });
    setBusy(false);
  };

  return (
    <div className="space-y-4">
      <NamespaceForm editing={editing} onClose={() => setEditing(null)} onSubmit={send} />
      <DeleteDialog row={deleting} onClose={() => setDeleting(null)} onConfirm={send} />
      <Panel title={t("listTitle")} testId="namespaces-panel">
        <p className="mb-3 text-sm text-fg-muted">{t("hint")}</p>
        <QueryState query={list}>
          {(data) => (
            <NamespaceTable
              rows={namespaceRows(data.namespaces, namespace)}
              refusal={refusal}
              busy={busy}
              onEdit={(row) => setEditing({ mode: "edit", row })}
              onDelete={setDeleting}
            />
          )}
        </QueryState>
        <div className="mt-4 flex flex-wrap items-center gap-3">
          <Button
            variant="primary"
            data-testid="namespace-create"
            disabled={refusal !== null || busy}
            title={refusal ?? undefined}
            onClick={() => setEditing({ mode: "create" })}
          >
            {t("create")}
          </Button>
          {refusal ? (
            <span className="text-xs text-fg-muted" data-testid="namespace-refusal">
              {refusal}
            </span>
          ) : null}
        </div>
        <div role="status" aria-live="polite" data-testid="namespace-outcome" className="mt-3 text-sm">
          {outcome ? <OutcomeLine outcome={outcome} /> : null}
        </div>
      </Panel>
    </div>
  );
}

function OutcomeLine({ outcome }: { outcome: NamespaceOutcome }) {
  const t = useTranslations("namespaces");
  if (outcome.kind === "refused")
    return <p className="text-bad break-words">{t("refused", { reason: outcome.reason, message: outcome.message })}</p>;
  const { answer, op, name } = outcome;
  if (answer.outcome === "rejected")
    return (
      <p className="text-bad break-words">{t("rejected", { reason: answer.reason, message: answer.message ?? "" })}</p>
    );
  if (!answer.confirmed) return <p className="text-warn break-words">{t("notConfirmed", { name })}</p>;
  const counts = deletedCounts(answer.deleted);
  return (
    <div className="text-ok">
      <p className="break-words">{t(`done.${op}`, { name })}</p>
      {op === "delete" ? (
        counts.length ? (
          <ul className="mt-1 font-mono text-xs text-fg-muted" data-testid="namespace-deleted-counts">
            {counts.map(([table, n]) => (
              <li key={table}>
                {table}: {n}
              </li>
            ))}
          </ul>
        ) : (
          <p className="text-xs text-fg-muted">{t("deletedNothing")}</p>
        )
      ) : null}
    </div>
  );
}

function NamespaceTable({
  rows,
  refusal,
  busy,
  onEdit,
  onDelete,
}: {
  rows: NamespaceRow[];
  refusal: string | null;
  busy: boolean;
  onEdit: (row: NamespaceRow) => void;
  onDelete: (row: NamespaceRow) => void;
}) {
  const t = useTranslations("namespaces");
  return (
    <ul className="divide-y divide-line/60" data-testid="namespace-list">
      {rows.map((row) => {
        const blocked = deleteBlock(row);
        return (
          <li key={row.name} className="py-3" data-testid={`namespace-${row.name}`}>
            <div className="flex flex-wrap items-start justify-between gap-3">
              <div className="min-w-0 flex-1">
                <p className="flex flex-wrap items-center gap-2">
                  <Link
                    href={namespaceHref(row.name)}
                    className="font-mono font-semibold break-all text-accent underline"
                  >
                    {row.name}
                  </Link>
                  {row.current ? (
                    <span className="rounded-full bg-accent-soft px-2 text-xs text-fg">{t("current")}</span>
                  ) : null}
                  <span className="rounded-full border border-line px-2 text-xs text-fg-muted">
                    {row.status ?? t("unknown")}
                  </span>
                </p>
                <p className="mt-1 text-sm break-words text-fg-muted">{row.description ?? t("noDescription")}</p>
                <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 text-sm">
                  <dt className="text-fg-muted">{t("retention")}</dt>
                  <dd data-testid="namespace-retention">
                    {row.retentionDays === null ? t("unknown") : t("days", { count: row.retentionDays })}
                  </dd>
                  <dt className="text-fg-muted">{t("storage")}</dt>
                  <dd data-testid="namespace-storage">
                    {row.storage === null
                      ? t("storageNone")
                      : t(row.storage.enabled ? "storageOn" : "storageOff", { driver: row.storage.driver })}
                  </dd>
                </dl>
              </div>
              <div className="flex shrink-0 gap-2">
                <Button
                  variant="secondary"
                  disabled={refusal !== null || busy}
                  title={refusal ?? undefined}
                  aria-label={t("editLabel", { name: row.name })}
                  onClick={() => onEdit(row)}
                >
                  {t("edit")}
                </Button>
                <Button
                  variant="secondary"
                  disabled={refusal !== null || busy || blocked !== null}
                  title={refusal ?? (blocked ? t("deleteCurrent") : undefined)}
                  aria-label={t("deleteLabel", { name: row.name })}
                  onClick={() => onDelete(row)}
                >
                  {t("delete")}
                </Button>
              </div>
            </div>
            {blocked && refusal === null ? <p className="mt-1 text-xs text-fg-muted">{t("deleteCurrent")}</p> : null}
          </li>
        );
      })}
    </ul>
  );
}

const ERROR_KEYS: Record<FormError, string> = {
  nameRequired: "errors.nameRequired",
  nameTooLong: "errors.nameTooLong",
  nameInvalid: "errors.nameInvalid",
  descriptionTooLong: "errors.descriptionTooLong",
  retentionRange: "errors.retentionRange",
};

function NamespaceForm({
  editing,
  onClose,
  onSubmit,
}: {
  editing: Editing;
  onClose: () => void;
  onSubmit: (action: NamespaceAction) => void;
}) {
  const t = useTranslations("namespaces");
  return (
    <Dialog open={editing !== null} onClose={onClose} labelledBy="namespace-form-title" testId="namespace-form">
      {editing ? (
        <FormBody
          key={editing.mode === "edit" ? editing.row.name : "create"}
          editing={editing}
          onClose={onClose}
          onSubmit={onSubmit}
          t={t}
        />
      ) : null}
    </Dialog>
  );
}

function FormBody({
  editing,
  onClose,
  onSubmit,
  t,
}: {
  editing: NonNullable<Editing>;
  onClose: () => void;
  onSubmit: (action: NamespaceAction) => void;
  t: ReturnType<typeof useTranslations<"namespaces">>;
}) {
  const row = editing.mode === "edit" ? editing.row : null;
  const [input, setInput] = useState<NamespaceFormInput>({
    name: row?.name ?? "",
    description: row?.description ?? "",
    retentionDays: row?.retentionDays === null || row === null ? "" : String(row.retentionDays),
  });
  const [tried, setTried] = useState(false);
  const checked = checkNamespaceForm(input);
  const errors = tried && !checked.ok ? checked.errors : {};
  const error = (field: keyof NamespaceFormInput) => {
    const code = errors[field];
    return code ? t(ERROR_KEYS[code] as "errors.nameRequired") : undefined;
  };
  const set = (field: keyof NamespaceFormInput) => (event: { target: { value: string } }) =>
    setInput((prev) => ({ ...prev, [field]: event.target.value }));
  return (
    <form
      className="space-y-4 p-5"
      onSubmit={(event) => {
        event.preventDefault();
        setTried(true);
        if (!checked.ok) return;
        const { name, description, retentionDays } = checked.value;
        onSubmit(
          editing.mode === "create"
            ? { op: "create", name, description, retentionDays }
            : { op: "update", name: row?.name ?? name, description, retentionDays },
        );
      }}
    >
      <h2 id="namespace-form-title" className="text-base font-semibold break-words">
        {editing.mode === "create" ? t("createTitle") : t("editTitle", { name: row?.name ?? "" })}
      </h2>
      {editing.mode === "create" ? (
        <Field label={t("name")} hint={t("nameHint")} error={error("name")}>
          <input
            className={`${inputClass} font-mono`}
            name="namespace-name"
            value={input.name}
            maxLength={128}
            aria-invalid={errors.name !== undefined}
            onChange={set("name")}
          />
        </Field>
      ) : null}
      <Field label={t("description")} error={error("description")}>
        <textarea
          className={inputClass}
          name="namespace-description"
          rows={2}
          value={input.description}
          aria-invalid={errors.description !== undefined}
          onChange={set("description")}
        />
      </Field>
      <Field label={t("retentionDays")} hint={t("retentionHint")} error={error("retentionDays")}>
        <input
          className={`${inputClass} w-32`}
          name="namespace-retention"
          inputMode="numeric"
          value={input.retentionDays}
          aria-invalid={errors.retentionDays !== undefined}
          onChange={set("retentionDays")}
        />
      </Field>
      {editing.mode === "edit" ? <p className="text-xs text-fg-muted">{t("editKeeps")}</p> : null}
      <div className="flex justify-end gap-2">
        <Button variant="secondary" onClick={onClose}>
          {t("cancel")}
        </Button>
        <Button type="submit" variant="primary" data-testid="namespace-submit">
          {editing.mode === "create" ? t("submitCreate") : t("submitEdit")}
        </Button>
      </div>
    </form>
  );
}

function DeleteDialog({
  row,
  onClose,
  onConfirm,
}: {
  row: NamespaceRow | null;
  onClose: () => void;
  onConfirm: (action: NamespaceAction) => void;
}) {
  const t = useTranslations("namespaces");
  const [typed, setTyped] = useState("");
  const close = () => {
    setTyped("");
    onClose();
  };
  return (
    <Dialog open={row !== null} onClose={close} labelledBy="namespace-delete-title" testId="namespace-delete">
      {row ? (
        <form
          className="space-y-4 p-5"
          onSubmit={(event) => {
            event.preventDefault();
            if (!deleteConfirmed(row, typed)) return;
            setTyped("");
            onConfirm({ op: "delete", name: row.name });
          }}
        >
          <h2 id="namespace-delete-title" className="text-base font-semibold break-words">
            {t("deleteTitle", { name: row.name })}
          </h2>
          <p className="text-sm break-words">{t("deleteBody", { name: row.name })}</p>
          <Field label={t("typeName", { name: row.name })}>
            <input
              className={`${inputClass} font-mono`}
              name="namespace-confirm"
              value={typed}
              autoComplete="off"
              onChange={(event) => setTyped(event.target.value)}
            />
          </Field>
          <div className="flex justify-end gap-2">
            <Button variant="secondary" onClick={close}>
              {t("cancel")}
            </Button>
            <Button
              type="submit"
              variant="danger"
              data-testid="namespace-delete-confirm"
              disabled={!deleteConfirmed(row, typed)}
            >
              {t("submitDelete", { name: row.name })}
            </Button>
          </div>
        </form>
      ) : null}
    </Dialog>
  );
}
