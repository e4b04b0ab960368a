import { describe, expect, it } from "vitest";
import { TYPE, parse } from "@formatjs/icu-messageformat-parser";
import type { MessageFormatElement } from "@formatjs/icu-messageformat-parser";
import en from "@/messages/en.json";
import ptBR from "@/messages/pt-BR.json";
import de from "@/messages/de.json";
import fr from "@/messages/fr.json";
import ja from "@/messages/ja.json";
import es from "@/messages/es.json";
import uk from "@/messages/uk.json";
import zhHans from "@/messages/zh-Hans.json";
import { LOCALES } from "@/lib/i18n/locales";
import type { Locale } from "@/lib/i18n/locales";
import { catalogLeaves } from "@/lib/i18n/catalog-leaves";
import type { CatalogTree } from "@/lib/i18n/catalog-leaves";

/*
 * Every non-English catalog is complete and faithful to the English one: the same keys, messages
 * that parse as ICU, the same arguments with the same types, the same select options and explicit
 * plural cases, and no English left in place of a translation. A partial catalog would fall back to
 * English key by key (lib/i18n/messages.ts) and give a mixed-language screen, so gaps fail here.
 */

const CATALOGS: Record<Exclude<Locale, "en">, CatalogTree> = { "pt-BR": ptBR, de, fr, ja, es, uk, "zh-Hans": zhHans };

/**
 * Words a message may keep from English, so that a message identical to its English source is not
 * English left in place of a translation. Three kinds only, each entry one of them:
 * - shared: product names, units and codes, and the two Durable Workflow concepts the server names
 *   in its API (`X-Namespace`, workflow types): the same in every language;
 * - words the language itself spells the same (German "Status", French "Type", Portuguese "Total");
 * - terms the language's own Durable Workflow page keeps in English (../shared/docs/
 *   durable-workflow-failures-and-recovery.*.txt: Portuguese "lease", "replay", "runtime"; the
 *   Japanese page writes "Worker" and "Server" in Latin letters).
 * A message identical to its English source passes only when each of its words is listed here (or
 * it is bare placeholders and punctuation). Not a way to skip a translation: "Pollers", "Backlog" or
 * "Memo" are none of the three, so a catalog that leaves them in English fails.
 */
const LOANWORDS: Record<"shared" | Exclude<Locale, "en">, readonly string[]> = {
  // Kikwiflow's SLA is the engine's own metric name (KKFMetrics.sla).
  shared: ["breakwater", "kikwiflow", "utc", "sla", "id", "namespace", "namespaces", "workflow"],
  "pt-BR": [
    // Kept by the Portuguese page: "workers relevantes", "expiração de leases", "por replay", backoff(), "estado do runtime".
    ...["worker", "workers", "lease", "replay", "backoff", "runtime"],
    // Portuguese words.
    ...["status", "local", "total"],
  ],
  de: [
    // Kept by the German page: "gesunden Worker", "Exception-Tabelle", "Abgelaufene Leases", "Replay", "die Queue".
    ...["worker", "exception", "exceptions", "lease", "replay", "queue"],
    // German words (Duden).
    ...["server", "system", "status", "version", "plan", "live", "transport", "signal", "timer", "update", "updates"],
    ...["name", "text"],
  ],
  fr: [
    // Kept by the French page: "les workers concernés", la politique backoff(), "l’état du runtime".
    ...["worker", "workers", "backoff", "runtime"],
    // French words.
    ...["version", "type", "types", "message", "source", "total", "pages", "exception", "exceptions"],
    ...["actions", "trace", "transport", "parents", "admission", "signal", "condition", "arguments", "description"],
  ],
  // The Japanese page writes 「正常な Worker」「キューを処理している Server」 in Latin letters.
  ja: ["server", "worker"],
  es: [
    // No Spanish page exists; "worker" stays in English as the Portuguese and French pages keep it.
    ...["worker", "workers"],
    // Spanish words (RAE).
    ...["total", "plan", "error", "no", "local", "fatal", "variables"],
  ],
  // Kept in Latin letters by the Ukrainian pages (durable-workflow/durable-workflow.github.io@19c029dd
  // i18n/uk/…/failures-and-recovery.md: "activity", "worker", "replay", позначка «non-retryable»;
  // …/features/schedules.md@a693e41a: "Jitter", "Backfill"; …/features/heartbeats.md@0de054f8: "Heartbeat", "Runtime").
  uk: ["activity", "worker", "replay", "non-retryable", "jitter", "backfill", "heartbeat", "runtime"],
  // No Chinese page exists; "Worker" stays in Latin letters as the Japanese page writes it.
  "zh-Hans": ["worker"],
};

/** The literal text of a message: what it says around its arguments, plural and select branches included. */
function literalText(elements: MessageFormatElement[]): string {
  return elements
    .map((element) => {
      if (element.type === TYPE.literal) return element.value;
      if (element.type === TYPE.select || element.type === TYPE.plural) {
        return Object.values(element.options)
          .map((option) => literalText(option.value))
          .join(" ");
      }
      return element.type === TYPE.tag ? literalText(element.children) : " ";
    })
    .join("");
}

/** The words of a message outside its placeholders, lower-cased; one-letter units ("s") do not count. */
function wordsOf(message: string): string[] {
  const text = literalText(parse(message));
  return [...text.matchAll(/\p{L}[\p{L}\p{M}-]*/gu)].map((m) => m[0].toLowerCase()).filter((w) => w.length > 1);
}

interface Shape {
  /** Every argument by name, with its type (`argument`, `number`, `plural`, `select`, …). */
  args: Map<string, string>;
  /** Per select argument, its sorted options; per plural, its sorted explicit `=N` cases. */
  cases: Map<string, string[]>;
  /** Plural category keywords used (`one`, `few`, `other`…), per plural argument. */
  categories: Map<string, Set<string>>;
}

const TYPE_NAMES: Partial<Record<TYPE, string>> = {
  [TYPE.argument]: "argument",
  [TYPE.number]: "number",
  [TYPE.date]: "date",
  [TYPE.time]: "time",
  [TYPE.select]: "select",
  [TYPE.plural]: "plural",
  [TYPE.tag]: "tag",
};

function collectShape(elements: MessageFormatElement[], shape: Shape): Shape {
  for (const element of elements) {
    if (element.type === TYPE.literal || element.type === TYPE.pound) continue;
    const typeName = TYPE_NAMES[element.type] ?? String(element.type);
    const previous = shape.args.get(element.value);
    // An argument used twice with different types is recorded as both, so a change cannot hide.
    shape.args.set(element.value, previous && previous !== typeName ? `${previous}|${typeName}` : typeName);
    if (element.type === TYPE.select || element.type === TYPE.plural) {
      const keys = Object.keys(element.options);
      const cases = element.type === TYPE.select ? keys : keys.filter((key) => key.startsWith("="));
      const caseKey = `${element.value}:${typeName}`;
      shape.cases.set(caseKey, [...new Set([...(shape.cases.get(caseKey) ?? []), ...cases])].sort());
      if (element.type === TYPE.plural) {
        const used = shape.categories.get(element.value) ?? new Set<string>();
        for (const key of keys) if (!key.startsWith("=")) used.add(key);
        shape.categories.set(element.value, used);
      }
      for (const option of Object.values(element.options)) collectShape(option.value, shape);
    }
    if (element.type === TYPE.tag) collectShape(element.children, shape);
  }
  return shape;
}

function shapeOf(message: string): Shape {
  return collectShape(parse(message), { args: new Map(), cases: new Map(), categories: new Map() });
}

function sorted<T>(map: Map<string, T>): [string, T][] {
  return [...map].sort(([a], [b]) => a.localeCompare(b));
}

const english = catalogLeaves(en);

describe.each(Object.entries(CATALOGS))("the %s catalog", (locale, catalog) => {
  const messages = catalogLeaves(catalog);
  const categories = new Set<string>(new Intl.PluralRules(locale).resolvedOptions().pluralCategories);
  const loanwords = new Set([...LOANWORDS.shared, ...LOANWORDS[locale as Exclude<Locale, "en">]]);

  it("is listed as a locale", () => {
    expect(LOCALES).toContain(locale);
  });

  it("has every English key", () => {
    const missing = [...english.keys()].filter((key) => !messages.has(key));
    expect(missing, `${missing.length} of ${english.size} keys missing`).toEqual([]);
  });

  it("has no key English lacks", () => {
    expect([...messages.keys()].filter((key) => !english.has(key))).toEqual([]);
  });

  it("has only messages that parse as ICU", () => {
    const broken: string[] = [];
    for (const [key, message] of messages) {
      try {
        parse(message);
      } catch (error) {
        broken.push(`${key}: ${(error as Error).message}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("keeps each message's arguments, their types and their select and explicit plural cases", () => {
    const differing: string[] = [];
    for (const [key, message] of messages) {
      const source = english.get(key);
      if (source === undefined) continue;
      let ours: Shape;
      try {
        ours = shapeOf(message);
      } catch {
        continue; // reported by the parse test
      }
      const theirs = shapeOf(source);
      const summary = (shape: Shape) => JSON.stringify([sorted(shape.args), sorted(shape.cases)]);
      if (summary(ours) !== summary(theirs)) differing.push(`${key}: ${summary(ours)}, English ${summary(theirs)}`);
    }
    expect(differing).toEqual([]);
  });

  it("gives every plural an `other` case and only the plural categories of its language", () => {
    const wrong: string[] = [];
    for (const [key, message] of messages) {
      let shape: Shape;
      try {
        shape = shapeOf(message);
      } catch {
        continue;
      }
      for (const [arg, used] of shape.categories) {
        if (!used.has("other")) wrong.push(`${key}: {${arg}} has no other`);
        for (const category of used) {
          if (!categories.has(category)) wrong.push(`${key}: {${arg}} uses "${category}", not a ${locale} category`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it("writes apostrophes as ’ where English has no ICU quote, so ' cannot swallow a placeholder", () => {
    const quoted = [...messages].filter(([key, message]) => message.includes("'") && !english.get(key)?.includes("'"));
    expect(quoted.map(([key]) => key)).toEqual([]);
  });

  it("translates every message, except loanwords, codes and bare placeholders", () => {
    const untranslated = [...messages]
      .filter(([key, message]) => message === english.get(key))
      .filter(([, message]) => !wordsOf(message).every((word) => loanwords.has(word)))
      .map(([key, message]) => `${key} = ${message}`);
    expect(untranslated).toEqual([]);
  });
});

/**
 * Arguments that hold a number although no message of the catalog formats them as one: counts the
 * screens pass as plain `{name}`. An argument formatted as `number` or used in a `plural` anywhere
 * is numeric without being listed here.
 */
const COUNT_ARGUMENTS = new Set([
  ...["count", "n", "total", "limit", "read", "listed", "toRead", "scanned", "sample", "shown", "hidden", "used"],
  ...["max", "reads", "sends", "sent", "accepted", "rejected", "errors", "dispatched", "notNeeded", "checks"],
  ...["completed", "failed", "open", "other", "stuck", "closed", "done", "pending", "processed", "enforced"],
  ...["skipped", "ready", "leased", "expired", "active", "stale", "running", "unhealthy", "retrying"],
  ...["attempts", "repairs", "executions", "retries", "pageSize", "concurrency", "seconds", "minutes"],
]);

/**
 * Countable nouns of the console's English: a count written next to one of them needs a plural
 * ("1 activities retrying"). Unit symbols (s, ms, min, MB) are not nouns and never change.
 */
const COUNTED_NOUNS = new Set(
  [
    ...["run", "task", "attempt", "event", "check", "second", "minute", "command", "repair", "execution"],
    ...["instance", "lease", "lane", "sample", "group", "request", "start", "page", "worker", "failure", "row"],
  ].flatMap((noun) => [noun, `${noun}s`]),
);
for (const irregular of ["activity", "activities", "match", "matches", "retry", "retries"])
  COUNTED_NOUNS.add(irregular);

/** Words after which a noun is no longer the one the number counts. */
const NOT_COUNTED_AFTER = new Set(["a", "an", "the", "per", "each", "every", "of", "to"]);

function numericArguments(catalog: Map<string, string>): Set<string> {
  const numeric = new Set(COUNT_ARGUMENTS);
  const visit = (elements: MessageFormatElement[]) => {
    for (const element of elements) {
      if (element.type === TYPE.number || element.type === TYPE.plural) numeric.add(element.value);
      if (element.type === TYPE.select || element.type === TYPE.plural)
        for (const option of Object.values(element.options)) visit(option.value);
      if (element.type === TYPE.tag) visit(element.children);
    }
  };
  for (const message of catalog.values()) visit(parse(message));
  return numeric;
}

/**
 * The numeric arguments a message writes as a bare number before a counted noun: the up to three
 * words after it, up to the next argument or punctuation, hold one ("{count} open runs read").
 */
function unpluralisedCounts(message: string, numeric: Set<string>): string[] {
  const found: string[] = [];
  const visit = (elements: MessageFormatElement[]) => {
    elements.forEach((element, index) => {
      if (element.type === TYPE.select || element.type === TYPE.plural)
        for (const option of Object.values(element.options)) visit(option.value);
      if (element.type === TYPE.tag) visit(element.children);
      if ((element.type !== TYPE.argument && element.type !== TYPE.number) || !numeric.has(element.value)) return;
      const next = elements[index + 1];
      if (next?.type !== TYPE.literal) return;
      const clause = next.value.split(/[,.;:()·—–/]/)[0] ?? "";
      const words = clause.toLowerCase().match(/\p{L}+/gu) ?? [];
      // "… dispatched a task", "… per page", "… to repair": the noun is not what the number counts.
      const stop = words.findIndex((word) => NOT_COUNTED_AFTER.has(word));
      const noun = words.slice(0, Math.min(3, stop < 0 ? 3 : stop)).find((word) => COUNTED_NOUNS.has(word));
      if (noun) found.push(`{${element.value}} ${noun}`);
    });
  };
  visit(parse(message));
  return found;
}

describe("counts in the English catalog", () => {
  it("are written with a plural wherever a noun follows them", () => {
    const numeric = numericArguments(english);
    const bare = [...english]
      .map(([key, message]) => [key, unpluralisedCounts(message, numeric)] as const)
      .filter(([, counts]) => counts.length > 0)
      .map(([key, counts]) => `${key}: ${counts.join(", ")}`);
    expect(bare).toEqual([]);
  });
});

describe("the catalog checks themselves", () => {
  it("see an argument renamed, retyped or dropped inside a plural", () => {
    const source = shapeOf("{count, plural, one {# run of {total}} other {# runs of {total}}}");
    const renamed = shapeOf("{count, plural, one {# exécution sur {all}} other {# exécutions sur {all}}}");
    const retyped = shapeOf("{count, select, one {x {total}} other {y {total}}}");
    expect(sorted(renamed.args)).not.toEqual(sorted(source.args));
    expect(sorted(retyped.args)).not.toEqual(sorted(source.args));
  });

  it("see an explicit plural case dropped and an ASCII apostrophe that quotes a placeholder", () => {
    const source = shapeOf("{count, plural, =0 {none} other {#}}");
    expect(sorted(shapeOf("{count, plural, other {#}}").cases)).not.toEqual(sorted(source.cases));
    expect(sorted(shapeOf("l'{name}").args)).toEqual([]);
  });

  it("let a loanword through but not an English sentence around it", () => {
    expect(wordsOf("Workflow {workflowId}")).toEqual(["workflow"]);
    expect(wordsOf("{count} s · {text}")).toEqual([]);
    expect(wordsOf("Worker {name} is stale")).toEqual(["worker", "is", "stale"]);
    expect(wordsOf("{count, plural, one {# run} other {# runs}}")).toEqual(["run", "runs"]);
  });

  it("see a count written before a noun without a plural, and nothing in a plural or before a unit", () => {
    const numeric = new Set(["count", "seconds", "attempt"]);
    expect(unpluralisedCounts("{count} activities retrying", numeric)).toEqual(["{count} activities"]);
    expect(unpluralisedCounts("Updated: {count} open runs read", numeric)).toEqual(["{count} runs"]);
    expect(unpluralisedCounts("{count, plural, one {# activity} other {# activities}} retrying", numeric)).toEqual([]);
    expect(unpluralisedCounts("Retry {attempt} after {seconds} s backoff", numeric)).toEqual([]);
    expect(unpluralisedCounts("and {count} more in this group", numeric)).toEqual([]);
    expect(unpluralisedCounts("oldest ready {type} task", numeric)).toEqual([]);
    expect(unpluralisedCounts("({count} dispatched a task, {count} per page, {count} to repair)", numeric)).toEqual([]);
  });

  it("knows each language's plural categories (French has many, Japanese only other)", () => {
    expect(new Intl.PluralRules("fr").resolvedOptions().pluralCategories).toContain("many");
    expect(new Intl.PluralRules("ja").resolvedOptions().pluralCategories).toEqual(["other"]);
  });
});
