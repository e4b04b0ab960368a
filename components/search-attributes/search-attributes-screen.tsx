"use client";

import { useState } from "react";
import { useTranslations } from "next-intl";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { endpointQuery } from "@/lib/queries/endpoint-query";
import { registryRows } from "@/lib/views/search-attributes";
import type { RegistryRow } from "@/lib/views/search-attributes";
import { SEARCH_ATTRIBUTE_NAME, SEARCH_ATTRIBUTE_TYPES } from "@/lib/actions/search-attribute-rules";
import type { SearchAttributeType } from "@/lib/actions/search-attributes";
import { useGuardRefusal } from "@/components/actions/use-guard-refusal";
import { Panel } from "@/components/metrics/panel";
import { QueryState } from "@/components/dw/query-state";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { knownType } from "@/components/search-attributes/attribute-values";
import { sendRegistryChange } from "@/components/search-attributes/send-registry-change";
import type { RegistryOutcome } from "@/components/search-attributes/send-registry-change";

type Pending = { op: "create"; name: string; type: SearchAttributeType } | { op: "delete"; name: string };

/** The search-attribute registry of a namespace: everyone reads it; an admin adds and deletes, after confirming. */
export function SearchAttributesScreen({ namespace }: { namespace: string }) {
  const t = useTranslations("searchAttributes");
  const queryClient = useQueryClient();
  const options = endpointQuery(namespace, "searchAttributes", {});
  const registry = useQuery(options);
  const [pending, setPending] = useState<Pending | null>(null);
  const [outcome, setOutcome] = useState<RegistryOutcome | null>(null);
  const [busy, setBusy] = useState(false);

  const refusal = useGuardRefusal("admin", {
    checking: t("checking"),
    readOnly: t("readOnly"),
    token: (role) => t("tokenRole", { role }),
  });

  const confirm = async (change: Pending) => {
    setPending(null);
    setBusy(true);
    // Confirmed by reading the registry back, not by the answer alone.
    const result = await sendRegistryChange(namespace, change, async () => {
      await queryClient.invalidateQueries({ queryKey: options.queryKey });
      return queryClient.fetchQuery(options);
    });
    setOutcome(result);
    setBusy(false);
  };

  const rows = registry.data ? registryRows(registry.data) : [];
  return (
    <div className="grid items-start gap-4 lg:grid-cols-2">
      <ConfirmChange pending={pending} namespace={namespace} onClose={() => setPending(null)} onConfirm={confirm} />
      <Panel title={t("custom")} testId="custom-attributes">
        <p className="mb-3 text-sm text-fg-muted">{t("customHint", { namespace })}</p>
        <QueryState query={registry}>
          {() => (
            <AttributeTable
              rows={rows.filter((r) => !r.system)}
              refusal={refusal}
              busy={busy}
              onDelete={(name) => setPending({ op: "delete", name })}
            />
          )}
        </QueryState>
        <AddForm refusal={refusal} busy={busy} onAdd={(name, type) => setPending({ op: "create", name, type })} />
        <div role="status" aria-live="polite" data-testid="registry-outcome" className="mt-2 text-sm">
          {outcome ? <OutcomeLine outcome={outcome} /> : null}
        </div>
      </Panel>
      <Panel title={t("system")} testId="system-attributes">
        <p className="mb-3 text-sm text-fg-muted">{t("systemHint")}</p>
        <QueryState query={registry}>{() => <AttributeTable rows={rows.filter((r) => r.system)} />}</QueryState>
      </Panel>
    </div>
  );
}

function OutcomeLine({ outcome }: { outcome: RegistryOutcome }) {
  const t = useTranslations("searchAttributes");
  const types = useTranslations("searchAttributes.types");
  switch (outcome.kind) {
    case "confirmed":
      return (
        <p className="text-ok">
          {outcome.op === "create"
            ? t("created", { name: outcome.name, type: knownType(types, outcome.type ?? "") })
            : t("deleted", { name: outcome.name })}
        </p>
      );
    case "unconfirmed":
      return <p className="text-warn">{t("notConfirmed")}</p>;
    case "rejected":
      return <p className="text-bad">{t("rejected", { reason: outcome.reason, message: outcome.message })}</p>;
    case "failed":
      return <p className="text-bad">{t("failed", { message: outcome.message })}</p>;
  }
}

function AttributeTable({
  rows,
  refusal,
  busy = false,
  onDelete,
}: {
  rows: RegistryRow[];
  refusal?: string | null;
  busy?: boolean;
  onDelete?: (name: string) => void;
}) {
  const t = useTranslations("searchAttributes");
  const types = useTranslations("searchAttributes.types");
  if (rows.length === 0) return <p className="text-sm text-fg-muted">{t("none")}</p>;
  return (
    <table className="w-full text-sm">
      <thead>
        <tr className="text-left text-xs text-fg-muted">
          <th className="py-1 font-medium">{t("name")}</th>
          <th className="py-1 font-medium">{t("type")}</th>
          {onDelete ? <th className="py-1 text-right font-medium">{t("actions")}</th> : null}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.name} className="border-t border-line/60" data-testid={`attribute-${row.name}`}>
            <td className="py-1.5 pr-2 font-mono break-all">{row.name}</td>
            <td className="py-1.5 pr-2" data-type={row.type}>
              {knownType(types, row.type)}
            </td>
            {onDelete ? (
              <td className="py-1.5 text-right">
                <Button
                  variant="secondary"
                  disabled={refusal !== null || busy}
                  title={refusal ?? undefined}
                  aria-label={t("deleteLabel", { name: row.name })}
                  onClick={() => onDelete(row.name)}
                >
                  {t("delete")}
                </Button>
              </td>
            ) : null}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function AddForm({
  refusal,
  busy,
  onAdd,
}: {
  refusal: string | null;
  busy: boolean;
  onAdd: (name: string, type: SearchAttributeType) => void;
}) {
  const t = useTranslations("searchAttributes");
  const types = useTranslations("searchAttributes.types");
  const [name, setName] = useState("");
  const [type, setType] = useState<SearchAttributeType>("keyword");
  const invalid = name !== "" && (!SEARCH_ATTRIBUTE_NAME.test(name) || name.length > 128);
  return (
    <form
      className="mt-4 flex flex-wrap items-end gap-2 border-t border-line/60 pt-3"
      onSubmit={(event) => {
        event.preventDefault();
        if (name !== "" && !invalid) onAdd(name, type);
      }}
    >
      <label className="flex min-w-0 basis-full flex-col text-xs text-fg-muted sm:basis-auto sm:flex-1">
        {t("name")}
        <input
          className="mt-1 min-w-0 rounded border border-line bg-panel px-2 py-1.5 font-mono text-sm text-fg"
          name="attribute-name"
          value={name}
          maxLength={128}
          aria-invalid={invalid}
          aria-describedby="attribute-name-hint"
          onChange={(event) => setName(event.target.value)}
        />
      </label>
      <label className="flex flex-col text-xs text-fg-muted">
        {t("type")}
        <select
          className="mt-1 rounded border border-line bg-panel px-2 py-1.5 text-sm text-fg"
          name="attribute-type"
          value={type}
          onChange={(event) => setType(event.target.value as SearchAttributeType)}
        >
          {SEARCH_ATTRIBUTE_TYPES.map((value) => (
            <option key={value} value={value}>
              {types(value)}
            </option>
          ))}
        </select>
      </label>
      <Button
        type="submit"
        variant="primary"
        disabled={refusal !== null || busy || name === "" || invalid}
        title={refusal ?? undefined}
      >
        {t("add")}
      </Button>
      <p id="attribute-name-hint" className={`w-full text-xs ${invalid ? "text-bad" : "text-fg-muted"}`}>
        {refusal ?? (invalid ? t("nameInvalid") : t("nameHint"))}
      </p>
    </form>
  );
}

function ConfirmChange({
  pending,
  namespace,
  onClose,
  onConfirm,
}: {
  pending: Pending | null;
  namespace: string;
  onClose: () => void;
  onConfirm: (change: Pending) => void;
}) {
  const t = useTranslations("searchAttributes");
  const types = useTranslations("searchAttributes.types");
  return (
    <Dialog open={pending !== null} onClose={onClose} labelledBy="confirm-registry-title" testId="confirm-registry">
      {pending ? (
        <div className="space-y-4 p-5">
          <h2 id="confirm-registry-title" className="text-base font-semibold break-words">
            {pending.op === "create" ? t("addTitle", { namespace }) : t("deleteTitle", { name: pending.name })}
          </h2>
          <p className="text-sm break-words">
            {pending.op === "create"
              ? t("addBody", { namespace, name: pending.name, type: types(pending.type) })
              : t("deleteBody", { name: pending.name })}
          </p>
          <div className="flex justify-end gap-2">
            <Button variant="secondary" onClick={onClose}>
              {t("cancel")}
            </Button>
            <Button variant="primary" data-testid="confirm-registry-change" onClick={() => onConfirm(pending)}>
              {pending.op === "create"
                ? t("submitAdd", { name: pending.name })
                : t("submitDelete", { name: pending.name })}
            </Button>
          </div>
        </div>
      ) : null}
    </Dialog>
  );
}
