export * from "./client";
export * from "./errors";
export * from "./events";
export * from "./pulse-stream";
export * from "./retry-policy";
export * from "./schemas";
