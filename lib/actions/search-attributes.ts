import * as z from "zod";
import { SEARCH_ATTRIBUTE_NAME, SEARCH_ATTRIBUTE_TYPES } from "./search-attribute-rules";

export { SEARCH_ATTRIBUTE_NAME, SEARCH_ATTRIBUTE_TYPES } from "./search-attribute-rules";
export type { SearchAttributeType } from "./search-attribute-rules";

/**
 * A search-attribute registry change as the console's handler accepts it: the real server's own
 * rules for a name (`regex:/^[a-zA-Z][a-zA-Z0-9_]*$/`, `max:128`) and its seven types
 * (SearchAttributeDefinition::ALLOWED_TYPES@11d35b7), checked before anything is sent.
 */

const name = z.string().max(128).regex(SEARCH_ATTRIBUTE_NAME);

export const registryChangeSchema = z.discriminatedUnion("op", [
  z.object({ op: z.literal("create"), name, type: z.enum(SEARCH_ATTRIBUTE_TYPES) }).strict(),
  z.object({ op: z.literal("delete"), name }).strict(),
]);
export type RegistryChange = z.infer<typeof registryChangeSchema>;
