import * as z from "zod";
import { phpMap } from "./schema-kit";

/**
 * The search-attribute registry (durable-workflow/server SearchAttributeController.php@11d35b7;
 * lib/dw/fixtures/search-attribute.md). `custom_attributes` is `[]` from PHP when the namespace has
 * none; `phpMap` reads it as `{}`. Types are left open: the seven of SearchAttributeDefinition today,
 * whatever a later server adds tomorrow.
 */
export const searchAttributeListSchema = z.looseObject({
  system_attributes: phpMap(z.string()),
  custom_attributes: phpMap(z.string()),
});
export type SearchAttributeList = z.infer<typeof searchAttributeListSchema>;

/** `store` (201 `{name, type, outcome: "created"}`) and `destroy` (`{name, outcome: "deleted"}`). */
export const searchAttributeAnswerSchema = z.looseObject({
  name: z.string(),
  type: z.string().optional(),
  outcome: z.string(),
});
export type SearchAttributeAnswer = z.infer<typeof searchAttributeAnswerSchema>;
