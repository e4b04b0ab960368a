"use client";

import { useCallback, useState } from "react";
import type { FieldName, FormProblem, FormValues } from "@/lib/actions/forms";
import { initialValues } from "@/lib/actions/forms";
import type { RunAction } from "@/lib/views/capabilities";

export interface ActionDialogState {
  /** The action whose dialog is open; null when closed. */
  action: RunAction | null;
  values: FormValues;
  /** What the form descriptor refused, on which field. */
  problem: { field: FieldName; problem: FormProblem } | null;
}

/** Which action's dialog is open and what has been typed into it; every opening starts fresh. */
export function useActionDialog(workflowId: string) {
  const [state, setState] = useState<ActionDialogState>(() => ({
    action: null,
    values: initialValues(workflowId, 0),
    problem: null,
  }));
  const open = useCallback(
    (action: RunAction) => setState({ action, values: initialValues(workflowId, Date.now()), problem: null }),
    [workflowId],
  );
  const close = useCallback(() => setState((current) => ({ ...current, action: null })), []);
  const setValue = useCallback(
    (name: FieldName, value: string) =>
      setState((current) => ({ ...current, values: { ...current.values, [name]: value } })),
    [],
  );
  const refuse = useCallback(
    (problem: ActionDialogState["problem"]) => setState((current) => ({ ...current, problem })),
    [],
  );
  return { ...state, open, close, setValue, refuse };
}

export type ActionDialogHandle = ReturnType<typeof useActionDialog>;
