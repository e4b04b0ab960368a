/**
 * lib/views: pure functions from Durable Workflow API data to what the console's screens show.
 * No React, no fetch, no Node-only imports.
 */
export * from "./message";
export * from "./events";
export * from "./exceptions";
export * from "./attempts";
export * from "./timeline";
export * from "./liveness";
export * from "./capabilities";
export * from "./forecast";
export * from "./failure-groups";
