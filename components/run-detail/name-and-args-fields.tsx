"use client";

import { useId } from "react";
import { useTranslations } from "next-intl";

import { Button } from "@/components/ui/button";
import { Field, inputClass } from "@/components/ui/field";

/**
 * The name and JSON-arguments fields a query and an update share: a name with the run's declared
 * names offered (datalist and buttons) and the arguments as a JSON list. Each form keeps its own
 * state and checks; this draws the fields in one way for both.
 */
export function NameAndArgsFields({
  catalog,
  testId,
  name,
  onName,
  args,
  onArgs,
  names,
  fieldHint,
  offersHint,
  argsInvalid,
  nameMaxLength,
}: {
  catalog: "run.queries" | "run.updates.form";
  testId: "query" | "update";
  name: string;
  onName: (name: string) => void;
  args: string;
  onArgs: (args: string) => void;
  names: readonly string[];
  fieldHint?: string;
  offersHint?: string;
  argsInvalid: boolean;
  nameMaxLength?: number;
}) {
  const t = useTranslations(catalog);
  const listId = useId();
  return (
    <>
      <div className="grid gap-3 md:grid-cols-[minmax(0,16rem)_minmax(0,1fr)]">
        <Field label={t("name")} hint={fieldHint}>
          <input
            className={`${inputClass} font-mono`}
            value={name}
            maxLength={nameMaxLength}
            onChange={(change) => onName(change.target.value)}
            list={listId}
            autoComplete="off"
            spellCheck={false}
            data-testid={`${testId}-name`}
          />
          <datalist id={listId}>
            {names.map((choice) => (
              <option key={choice} value={choice} />
            ))}
          </datalist>
        </Field>
        <Field label={t("arguments")} hint={t("argumentsHint")}>
          <textarea
            className={`${inputClass} min-h-[2.25rem] font-mono`}
            rows={1}
            value={args}
            onChange={(change) => onArgs(change.target.value)}
            aria-invalid={argsInvalid}
            spellCheck={false}
            data-testid={`${testId}-args`}
          />
        </Field>
      </div>
      {names.length > 0 ? (
        <div className="flex flex-wrap items-center gap-1.5" role="group" aria-label={t("offers")}>
          {offersHint ? <span className="mr-1 text-xs text-fg-muted">{offersHint}</span> : null}
          {names.map((choice) => (
            <Button
              key={choice}
              size="xs"
              variant="secondary"
              pressed={choice === name.trim()}
              className="font-mono"
              onClick={() => onName(choice)}
              data-testid={`${testId}-offer`}
            >
              {choice}
            </Button>
          ))}
        </div>
      ) : null}
    </>
  );
}
