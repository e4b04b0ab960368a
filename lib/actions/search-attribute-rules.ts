/**
 * The real server's rules for a search attribute's name (`regex:/^[a-zA-Z][a-zA-Z0-9_]*$/`) and its
 * seven types (SearchAttributeDefinition::ALLOWED_TYPES@11d35b7), with no zod: the registry screen's
 * form reads them in the browser.
 */
export const SEARCH_ATTRIBUTE_TYPES = ["keyword", "text", "int", "double", "bool", "datetime", "keyword_list"] as const;
export type SearchAttributeType = (typeof SEARCH_ATTRIBUTE_TYPES)[number];

export const SEARCH_ATTRIBUTE_NAME = /^[a-zA-Z][a-zA-Z0-9_]*$/;
