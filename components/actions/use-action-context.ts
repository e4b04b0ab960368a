"use client";

import { useQuery } from "@tanstack/react-query";
import type { Role } from "@/lib/views/capabilities";
import { actionContextQuery } from "@/lib/queries/connection";
import { toActionContext } from "@/components/actions/send-action";

export interface ActionContextState {
  readOnly: boolean;
  role: Role | null;
  /** False until the console said whether it is read-only; actions stay disabled until then. */
  known: boolean;
}

/** Read-only mode and the token's known role, from the console's own server. */
export function useActionContext(): ActionContextState {
  const query = useQuery({ ...actionContextQuery(), select: toActionContext });
  return query.data ? { ...query.data, known: true } : { readOnly: true, role: null, known: false };
}
