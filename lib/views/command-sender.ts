/**
 * Who sent a command, as the server reports it on the export's `commands[]` (HistoryExport::command,
 * workflow src/V2/Support/HistoryExport.php@8dc90d64) and the command snapshots of history events:
 * the principal a custom auth provider named (`principal_label`, else `principal_id`), else the
 * caller label — the forwarded person when the server trusts the console's attribution headers
 * (decision 0058), else the server's own name, "Standalone Server"
 * (app/Support/WorkflowCommandContextFactory.php@11d35b7).
 */

/** The real server's caller label for a command nobody was named for. */
export const SERVER_CALLER_LABEL = "Standalone Server";

export interface CommandSenderFields {
  principal_label?: unknown;
  principal_id?: unknown;
  caller_label?: unknown;
  auth_method?: unknown;
}

export interface CommandSender {
  /** The name the server recorded. */
  name: string;
  /** How the server says the request was authenticated (`auth_method`): `token`, `breakwater_password`, … */
  via: string | null;
  /** The server named itself: it recorded no person or client for this command. */
  serverItself: boolean;
}

const text = (value: unknown): string | null =>
  typeof value === "string" && value.trim() !== "" ? value.trim() : null;

/** Null when the server reports no sender at all (an older server, or a command with no context). */
export function commandSender(command: CommandSenderFields): CommandSender | null {
  const principal = text(command.principal_label) ?? text(command.principal_id);
  const caller = text(command.caller_label);
  const name = principal ?? caller;
  if (name === null) return null;
  return { name, via: text(command.auth_method), serverItself: principal === null && caller === SERVER_CALLER_LABEL };
}

/**
 * The sender of the command an event was recorded with: the `command` snapshot the engine adds to
 * its payload (`WorkflowHistoryEvent::commandSnapshot`, workflow src/V2/Models/
 * WorkflowHistoryEvent.php@8dc90d64). Null when there is none, or when the server named itself,
 * so a history row claims a person only where the server recorded one.
 */
export function eventSender(payload: Readonly<Record<string, unknown>> | null | undefined): CommandSender | null {
  const snapshot = payload?.command;
  if (snapshot === null || typeof snapshot !== "object" || Array.isArray(snapshot)) return null;
  const sender = commandSender(snapshot as CommandSenderFields);
  return sender && !sender.serverItself ? sender : null;
}
