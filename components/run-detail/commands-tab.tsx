"use client";

import { useMemo } from "react";
import { useTranslations } from "next-intl";
import type { HistoryExport } from "@/lib/dw/schemas-export";
import { useTimeFormat } from "@/components/hooks/use-time-format";
import { DataTable, dataColumns } from "@/components/ui/data-table";
import { Muted } from "@/components/ui/section";
import { StatusBadge } from "@/components/ui/status-badge";
import { ExportExtras, NOWRAP, cellText, exportCommands } from "@/components/run-detail/export-extras";
import type { RunTabProps } from "@/components/run-detail/run-tab-registry";
import { commandSender } from "@/lib/views/command-sender";

type Command = NonNullable<HistoryExport["commands"]>[number];
const commandCol = dataColumns<Command>();

/** Who the server says sent it (lib/views/command-sender.ts), and how it was authenticated. */
function SenderCell({ command }: { command: Command }) {
  const t = useTranslations("run.commands");
  const sender = commandSender(command);
  if (!sender) return <span>{cellText(null)}</span>;
  return (
    <span className="flex flex-col" data-testid="command-sender">
      <span className="break-words">{sender.name}</span>
      {sender.serverItself ? (
        <span className="text-xs text-fg-muted">{t("noPersonRecorded")}</span>
      ) : sender.via ? (
        <span className="font-mono text-xs text-fg-muted">{sender.via}</span>
      ) : null}
    </span>
  );
}

function useCommandColumns() {
  const t = useTranslations("run.commands");
  const time = useTimeFormat();
  return useMemo(
    () =>
      commandCol.columns([
        commandCol.display({
          id: "sequence",
          header: () => t("sequence"),
          cell: ({ row }) => cellText(row.original.sequence),
          meta: { className: "font-mono" },
        }),
        commandCol.accessor("type", { header: () => t("type") }),
        // Beside the type, so a phone shows who did what before the table scrolls sideways.
        commandCol.display({
          id: "sentBy",
          header: () => t("sentBy"),
          cell: ({ row }) => <SenderCell command={row.original} />,
        }),
        commandCol.accessor("status", {
          header: () => t("status"),
          cell: (info) => <StatusBadge status={info.getValue()} />,
        }),
        commandCol.display({
          id: "outcome",
          header: () => t("outcome"),
          // The server's outcome code (`terminated`, `signal_received`, …), shown as it names it.
          cell: ({ row }) => (
            <span data-code="">{cellText(row.original.outcome ?? row.original.rejection_reason)}</span>
          ),
        }),
        commandCol.display({
          id: "source",
          header: () => t("source"),
          cell: ({ row }) => cellText(row.original.source),
        }),
        commandCol.display({
          id: "requestId",
          header: () => t("requestId"),
          cell: ({ row }) => cellText(row.original.request_id),
          meta: { className: "font-mono text-xs" },
        }),
        commandCol.display({
          id: "accepted",
          header: () => t("accepted"),
          cell: ({ row }) => time.dateTime(row.original.accepted_at ?? row.original.rejected_at),
          meta: NOWRAP,
        }),
      ]),
    [t, time],
  );
}

export function CommandsTable({ commands }: { commands: readonly Command[] }) {
  const t = useTranslations("run.commands");
  const columns = useCommandColumns();
  return (
    <DataTable
      columns={columns}
      data={commands}
      getRowId={(command) => command.id}
      testId="commands-table"
      empty={<Muted>{t("none")}</Muted>}
    />
  );
}

/** The run's commands: only the export has them. */
export function CommandsTab(run: RunTabProps) {
  const tf = useTranslations("run.extrasFields");
  return (
    <ExportExtras {...run} fields={tf("commands")}>
      {(extras) => <CommandsTable commands={exportCommands(extras)} />}
    </ExportExtras>
  );
}
