/**
 * The search-attribute registry of durable-workflow/server@11d35b7: app/Models/SearchAttributeDefinition.php
 * (types and system attributes) and app/Http/Controllers/Api/SearchAttributeController.php (what is
 * listed, created and removed, and every refusal in its words).
 */
import type { Db } from "../store/db";
import { EngineError, validationError } from "./errors";

export const SEARCH_ATTRIBUTE_TYPES = ["keyword", "text", "int", "double", "bool", "datetime", "keyword_list"] as const;
export type SearchAttributeType = (typeof SEARCH_ATTRIBUTE_TYPES)[number];

/** Always available, never stored, in the model's order. */
export const SYSTEM_SEARCH_ATTRIBUTES: Readonly<Record<string, string>> = {
  WorkflowType: "keyword",
  WorkflowId: "keyword",
  RunId: "keyword",
  Status: "keyword",
  StartTime: "datetime",
  CloseTime: "datetime",
  TaskQueue: "keyword",
  BuildId: "keyword",
};

/** `config('server.limits.max_search_attributes', 100)` per namespace. */
export const MAX_CUSTOM_SEARCH_ATTRIBUTES = 100;

const NAME_PATTERN = /^[a-zA-Z][a-zA-Z0-9_]*$/;

function isSystem(name: string): boolean {
  return Object.prototype.hasOwnProperty.call(SYSTEM_SEARCH_ATTRIBUTES, name);
}

/** Custom definitions of a namespace, by name (the controller's `orderBy('name')`, byte order as MySQL's binary collation). */
export function customSearchAttributes(db: Db, namespace: string): Record<string, string> {
  const rows = db
    .prepare("SELECT name, type FROM search_attribute_definitions WHERE namespace = ? ORDER BY name")
    .all(namespace) as { name: string; type: string }[];
  return Object.fromEntries(rows.map((r) => [r.name, r.type]));
}

export function listSearchAttributes(db: Db, namespace: string) {
  return {
    system_attributes: { ...SYSTEM_SEARCH_ATTRIBUTES },
    custom_attributes: customSearchAttributes(db, namespace),
  };
}

/** Laravel's messages for `required|string|max:128|regex:…` and `required|string|in:…`. */
function validateBody(body: unknown): { name: string; type: string } {
  const b = (body && typeof body === "object" && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const errors: Record<string, string[]> = {};
  const name = b.name;
  if (name === undefined || name === null || name === "") errors.name = ["The name field is required."];
  else if (typeof name !== "string") errors.name = ["The name field must be a string."];
  else {
    const nameErrors: string[] = [];
    if (name.length > 128) nameErrors.push("The name field must not be greater than 128 characters.");
    if (!NAME_PATTERN.test(name)) nameErrors.push("The name field format is invalid.");
    if (nameErrors.length > 0) errors.name = nameErrors;
  }
  const type = b.type;
  if (type === undefined || type === null || type === "") errors.type = ["The type field is required."];
  else if (typeof type !== "string")
    errors.type = ["The type field must be a string.", "The selected type is invalid."];
  else if (!(SEARCH_ATTRIBUTE_TYPES as readonly string[]).includes(type))
    errors.type = ["The selected type is invalid."];
  if (Object.keys(errors).length > 0) throw validationError(errors);
  return { name: name as string, type: type as string };
}

export function createSearchAttribute(db: Db, namespace: string, body: unknown, now: number) {
  const { name, type } = validateBody(body);
  if (isSystem(name))
    throw new EngineError(409, "name_reserved", `The name [${name}] is reserved as a system search attribute.`);
  return db.transaction(() => {
    const existing = db
      .prepare("SELECT name, type FROM search_attribute_definitions WHERE namespace = ? AND name = ?")
      .get(namespace, name) as { name: string; type: string } | undefined;
    if (existing)
      throw new EngineError(
        409,
        "attribute_already_exists",
        `A custom search attribute [${name}] already exists in namespace [${namespace}].`,
        { name: existing.name, type: existing.type },
      );
    const count = db
      .prepare("SELECT COUNT(*) FROM search_attribute_definitions WHERE namespace = ?")
      .pluck()
      .get(namespace) as number;
    if (count >= MAX_CUSTOM_SEARCH_ATTRIBUTES)
      throw new EngineError(
        422,
        "search_attribute_limit_reached",
        `Namespace [${namespace}] has reached the maximum of ${MAX_CUSTOM_SEARCH_ATTRIBUTES} custom search attributes.`,
        { limit: MAX_CUSTOM_SEARCH_ATTRIBUTES },
      );
    db.prepare(
      "INSERT INTO search_attribute_definitions (namespace, name, type, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
    ).run(namespace, name, type, now, now);
    return { name, type, outcome: "created" };
  })();
}

export function deleteSearchAttribute(db: Db, namespace: string, name: string) {
  if (isSystem(name))
    throw new EngineError(409, "system_attribute", `The system search attribute [${name}] cannot be removed.`);
  const removed = db
    .prepare("DELETE FROM search_attribute_definitions WHERE namespace = ? AND name = ?")
    .run(namespace, name).changes;
  if (removed === 0)
    throw new EngineError(
      404,
      "attribute_not_found",
      `Custom search attribute [${name}] not found in namespace [${namespace}].`,
    );
  return { name, outcome: "deleted" };
}
