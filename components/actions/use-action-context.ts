"use client";

import { useQuery } from "@tanstack/react-query";
import type { ActionContext } from "@/lib/actions/contract";
import { actionContextQuery } from "@/lib/queries/connection";
import { toActionContext } from "@/components/actions/send-action";

export interface ActionContextState extends ActionContext {
  /** False until the console said whether it is read-only; actions stay disabled until then. */
  known: boolean;
}

/** Read-only mode, the person's role and their token's, from the console's own server (per request). */
export function useActionContext(): ActionContextState {
  const query = useQuery({ ...actionContextQuery(), select: toActionContext });
  return query.data ? { ...query.data, known: true } : { readOnly: true, role: null, personRole: null, known: false };
}
