import { afterEach } from "vitest";

/**
 * next-intl only logs a message it cannot resolve or format (its default onError), so a component
 * test would pass while the screen shows a key path. Any such log fails the test it happened in.
 */
const INTL_FAILURE = /\b(MISSING_MESSAGE|INVALID_MESSAGE|FORMATTING_ERROR|INVALID_KEY)\b/;
const logError = console.error.bind(console);
let intlFailures: string[] = [];

console.error = (...args: unknown[]) => {
  const text = args.map((arg) => (arg instanceof Error ? `${arg.name}: ${arg.message}` : String(arg))).join(" ");
  if (INTL_FAILURE.test(text)) intlFailures.push(text.slice(0, 300));
  logError(...args);
};

afterEach(() => {
  if (intlFailures.length === 0) return;
  const [first] = intlFailures;
  const count = intlFailures.length;
  intlFailures = [];
  throw new Error(`next-intl could not render ${count} message(s); first: ${first}`);
});
