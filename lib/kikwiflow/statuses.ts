/** kikwi-model ProcessInstanceStatus@3b62f35: the statuses the instances list filters by. */
export const PROCESS_INSTANCE_STATUSES = ["ACTIVE", "CANCELLED", "COMPLETED"] as const;
