/**
 * The tabs that read the run's export (`ExportExtras`: all tasks, commands, projected waits, links),
 * loaded as one chunk through one `import()` site in run-tab-registry.tsx, as they were before the
 * registry: opening or linking one of them loads the four, and the page carries one loader for them.
 */
export { WaitsTab } from "@/components/run-detail/waits-tab";
export { TasksTab } from "@/components/run-detail/tasks-tab";
export { CommandsTab } from "@/components/run-detail/commands-tab";
export { RelationshipsTab } from "@/components/run-detail/relationships-tab";
