import type { ProcessVariable } from "./schemas";
import { displayValue } from "./variable-edit";

/**
 * An instance's variables as rows (ProcessInstance.variables@3b62f35: name → {name, isTransient,
 * value}), sorted by name, each value as compact JSON so a string, a number and an object read apart
 * (bidi overrides and invisible characters escaped, `displayValue`).
 * Pure and zod-free.
 */
export interface VariableRow {
  readonly name: string;
  readonly value: string;
  /** The value as the engine sent it, for the editor. */
  readonly raw: unknown;
  readonly transient: boolean;
}

export function variableRows(variables: Readonly<Record<string, ProcessVariable>> | null | undefined): VariableRow[] {
  return Object.entries(variables ?? {})
    .map(([key, variable]) => ({
      name: variable.name ?? key,
      value: displayValue(variable.value),
      raw: variable.value ?? null,
      transient: variable.isTransient === true,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
