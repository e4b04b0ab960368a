/**
 * People's roles in the console (not the server's token roles): a viewer reads, an operator also runs
 * run commands, an admin also runs the system passes. Pure, so proxy.ts, the action guard and the
 * tests share one definition.
 */

export const PERSON_ROLES = ["viewer", "operator", "admin"] as const;
export type PersonRole = (typeof PERSON_ROLES)[number];

const RANK: Readonly<Record<PersonRole, number>> = { viewer: 0, operator: 1, admin: 2 };

export function isPersonRole(value: unknown): value is PersonRole {
  return typeof value === "string" && (PERSON_ROLES as readonly string[]).includes(value);
}

/** What a console action needs from the person; the server's route role (server-api §1.2) decides. */
export type ActionNeed = "operator" | "admin";

export function personMay(role: PersonRole, need: ActionNeed): boolean {
  return RANK[role] >= RANK[need];
}

export function higherRole(a: PersonRole | null, b: PersonRole): PersonRole {
  return a === null || RANK[b] > RANK[a] ? b : a;
}

export interface RoleGroupRule {
  role: PersonRole;
  /** A group name, or `*` for every person the auth proxy vouches for. */
  group: string;
}

/** `admin:ops-admins,operator:ops,viewer:*` → rules; null with a message on a malformed entry. */
export function parseRoleGroups(spec: string): { rules: RoleGroupRule[] } | { problem: string } {
  const rules: RoleGroupRule[] = [];
  for (const raw of spec.split(",")) {
    const entry = raw.trim();
    if (entry === "") continue;
    const colon = entry.indexOf(":");
    const role = colon < 0 ? "" : entry.slice(0, colon).trim();
    const group = colon < 0 ? "" : entry.slice(colon + 1).trim();
    if (!isPersonRole(role) || group === "") {
      return { problem: `"${entry}" is not role:group (role is viewer, operator or admin)` };
    }
    rules.push({ role, group });
  }
  return { rules };
}

/** The highest role any of the person's groups maps to; null when none does. */
export function roleForGroups(groups: readonly string[], rules: readonly RoleGroupRule[]): PersonRole | null {
  let role: PersonRole | null = null;
  for (const rule of rules) {
    if (rule.group === "*" || groups.includes(rule.group)) role = higherRole(role, rule.role);
  }
  return role;
}
