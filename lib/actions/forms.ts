import type { ActionTarget, RequestOf, RunActionName, RunActionRequest } from "./contract";
import { againWorkflowId, parseSignalInput } from "./contract";
import {
  CLEANUP_TIMEOUT_DEFAULT,
  CLEANUP_TIMEOUT_MAX,
  CLEANUP_TIMEOUT_MIN,
  NEW_WORKFLOW_ID_MAX,
  REASON_MAX,
  SIGNAL_NAME_MAX,
  WORKFLOW_ID,
} from "./limits";

/**
 * The browser half of each run action's descriptor (decision 0019): the fields its dialog shows and
 * the mapping from what was typed to the request. Zod-free (it ships to the browser); the handler
 * re-validates with the server half (commands.ts). Words are `actions.form.*` catalog keys, so the
 * screens translate them and this module stays pure.
 */

export type FieldName = "reason" | "signalName" | "signalInput" | "newWorkflowId" | "cleanupTimeout";
export type FormValues = Readonly<Record<FieldName, string>>;

/** `actions.form.*` message keys. */
export type FormWord =
  | "reason"
  | "reasonOptional"
  | "signalName"
  | "signalInput"
  | "signalInputHint"
  | "newWorkflowId"
  | "newWorkflowIdHint"
  | "cleanupTimeout"
  | "cleanupTimeoutHint";
export type FormProblem =
  | "reasonRequired"
  | "signalNameRequired"
  | "signalInputJson"
  | "signalInputArray"
  | "workflowIdInvalid"
  | "cleanupTimeoutRange";

export interface FieldSpec {
  name: FieldName;
  control: "input" | "textarea";
  label: FormWord;
  hint?: FormWord;
  rows?: number;
  maxLength?: number;
  monospace?: boolean;
  /** A number typed into a text input (a phone shows digits). */
  numeric?: boolean;
}

export type FormResult<A extends RunActionName> =
  { ok: true; request: RequestOf<A> } | { ok: false; field: FieldName; problem: FormProblem };

export interface RunActionForm<A extends RunActionName> {
  /** Stops or destroys something: the button and the submit read as dangerous. */
  danger: boolean;
  fields: readonly FieldSpec[];
  toRequest(values: FormValues, target: ActionTarget): FormResult<A>;
}

/** What the dialog starts with: empty, except a fresh id suggestion for start again. */
export function initialValues(workflowId: string, now: number): FormValues {
  return {
    reason: "",
    signalName: "",
    signalInput: "",
    newWorkflowId: againWorkflowId(workflowId, now),
    cleanupTimeout: String(CLEANUP_TIMEOUT_DEFAULT),
  };
}

const REASON: FieldSpec = { name: "reason", control: "textarea", label: "reason", rows: 3, maxLength: REASON_MAX };

function problem(field: FieldName, what: FormProblem): { ok: false; field: FieldName; problem: FormProblem } {
  return { ok: false, field, problem: what };
}

/** A reason is required for both: an empty one is refused before anything is sent. */
function withReason<A extends "cancel" | "terminate">(action: A, danger: boolean): RunActionForm<A> {
  return {
    danger,
    fields: [REASON],
    toRequest: (values, target) => {
      const reason = values.reason.trim();
      if (!reason) return problem("reason", "reasonRequired");
      return { ok: true, request: { action, ...target, reason } as RequestOf<A> };
    },
  };
}

/** Whole seconds within the server's bound; anything else (blank, "1.5", "1e3") is refused. */
export function parseCleanupTimeout(text: string): number | null {
  const trimmed = text.trim();
  if (!/^\d{1,5}$/.test(trimmed)) return null;
  const seconds = Number(trimmed);
  return seconds >= CLEANUP_TIMEOUT_MIN && seconds <= CLEANUP_TIMEOUT_MAX ? seconds : null;
}

export const RUN_ACTION_FORMS: { readonly [A in RunActionName]: RunActionForm<A> } = {
  repair: {
    danger: false,
    fields: [],
    toRequest: (_values, target) => ({ ok: true, request: { action: "repair", ...target } }),
  },
  // Asks the workflow to clean up within the bound; nothing is stopped at once, so not dangerous.
  requestCancellation: {
    danger: false,
    fields: [
      {
        name: "cleanupTimeout",
        control: "input",
        label: "cleanupTimeout",
        hint: "cleanupTimeoutHint",
        maxLength: 5,
        numeric: true,
      },
      { ...REASON, label: "reasonOptional" },
    ],
    toRequest: (values, target) => {
      const cleanupTimeoutSeconds = parseCleanupTimeout(values.cleanupTimeout);
      if (cleanupTimeoutSeconds === null) return problem("cleanupTimeout", "cleanupTimeoutRange");
      const reason = values.reason.trim() || undefined;
      return { ok: true, request: { action: "requestCancellation", ...target, cleanupTimeoutSeconds, reason } };
    },
  },
  // Cancel is the ordinary stop; terminate the forced one, so only it reads as dangerous.
  cancel: withReason("cancel", false),
  terminate: withReason("terminate", true),
  archive: {
    danger: false,
    fields: [{ ...REASON, label: "reasonOptional" }],
    toRequest: (values, target) => ({
      ok: true,
      request: { action: "archive", ...target, reason: values.reason.trim() || undefined },
    }),
  },
  signal: {
    danger: false,
    fields: [
      { name: "signalName", control: "input", label: "signalName", maxLength: SIGNAL_NAME_MAX },
      {
        name: "signalInput",
        control: "textarea",
        label: "signalInput",
        hint: "signalInputHint",
        rows: 4,
        monospace: true,
      },
    ],
    toRequest: (values, target) => {
      const signalName = values.signalName.trim();
      if (!signalName) return problem("signalName", "signalNameRequired");
      const input = parseSignalInput(values.signalInput);
      if (!input.ok) return problem("signalInput", input.problem === "json" ? "signalInputJson" : "signalInputArray");
      return { ok: true, request: { action: "signal", ...target, signalName, input: input.value } };
    },
  },
  startAgain: {
    danger: false,
    fields: [
      {
        name: "newWorkflowId",
        control: "input",
        label: "newWorkflowId",
        hint: "newWorkflowIdHint",
        maxLength: NEW_WORKFLOW_ID_MAX,
        monospace: true,
      },
    ],
    toRequest: (values, target) => {
      const newWorkflowId = values.newWorkflowId.trim();
      if (newWorkflowId.length > NEW_WORKFLOW_ID_MAX || !WORKFLOW_ID.test(newWorkflowId))
        return problem("newWorkflowId", "workflowIdInvalid");
      return { ok: true, request: { action: "startAgain", ...target, newWorkflowId } };
    },
  },
};

/** The form of `action` maps the values; one entry point for the dialog. */
export function formRequest(
  action: RunActionName,
  values: FormValues,
  target: ActionTarget,
): { ok: true; request: RunActionRequest } | { ok: false; field: FieldName; problem: FormProblem } {
  return (RUN_ACTION_FORMS[action] as RunActionForm<RunActionName>).toRequest(values, target);
}
