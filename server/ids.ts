import { monotonicFactory } from "ulid";

const next = monotonicFactory();

/** 26-character ULID, the id form of every durable row except workflow instance ids. */
export function newId(now?: number): string {
  return next(now);
}
