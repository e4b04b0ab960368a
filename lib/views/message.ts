/**
 * Message descriptors returned by the view functions.
 *
 * Views decide *what* to say; the console's catalog decides *how* to say it in each locale. A
 * descriptor carries the catalog id and its values, and a screen renders `t(message.id,
 * message.values)`. The English table is lib/views/message-catalog.ts: the browser never reads it
 * (next-intl has the catalogs), so it stays out of the pages' scripts.
 */
import type { VIEW_MESSAGES_EN } from "./message-catalog";

export type MessageValues = Readonly<Record<string, string | number>>;

export interface Message {
  id: ViewMessageId;
  values: MessageValues;
}

export type ViewMessageId = keyof typeof VIEW_MESSAGES_EN;

/** Substitutes `{name}` placeholders; unknown placeholders stay visible rather than vanish. */
export function formatTemplate(template: string, values: MessageValues): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : whole,
  );
}

export function message(id: ViewMessageId, values: MessageValues = {}): Message {
  return { id, values };
}
