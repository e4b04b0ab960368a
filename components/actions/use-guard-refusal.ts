"use client";

import { useActionContext } from "@/components/actions/use-action-context";
import { useActionWords } from "@/components/actions/use-action-words";
import { guardRefusal } from "@/lib/views/capabilities";
import type { Role } from "@/lib/views/capabilities";

/** The screen's own words for the guard's refusals other than the person's role (shared wording). */
export interface GuardRefusalWords {
  checking: string;
  readOnly: string;
  token: (role: Role) => string;
}

/** Why this person may not send an action needing `required` here, in words, or null when they may. */
export function useGuardRefusal(required: "operator" | "admin", say: GuardRefusalWords): string | null {
  const context = useActionContext();
  const words = useActionWords();
  const refusal = guardRefusal(context, required);
  if (refusal === null) return null;
  switch (refusal.kind) {
    case "checking":
      return say.checking;
    case "readOnly":
      return say.readOnly;
    case "person":
      return words.capability(refusal.capability);
    case "token":
      return say.token(refusal.role);
  }
}
