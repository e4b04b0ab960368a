import { endpointQuery } from "@/lib/queries/endpoint-query";
import { namespaceKey } from "@/lib/queries/keys";

/** Every key of the System screen's reads in a namespace: what a maintenance pass invalidates. */
export function systemKey(namespace: string) {
  return namespaceKey(namespace, "system");
}

export function repairStatusQuery(namespace: string) {
  return endpointQuery(namespace, "repairStatus", {});
}

export function activityTimeoutsQuery(namespace: string) {
  return endpointQuery(namespace, "activityTimeouts", {});
}

export function retentionStatusQuery(namespace: string) {
  return endpointQuery(namespace, "retentionStatus", {});
}
