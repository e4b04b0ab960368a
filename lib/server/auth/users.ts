import "server-only";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import bcrypt from "bcryptjs";
import { z } from "zod";
import type { PersonRole } from "./roles";
import { PERSON_ROLES } from "./roles";

/**
 * The users file of password mode: `[{"user":"ada","hash":"$2b$12$…","role":"admin"}]`. Only bcrypt
 * hashes are accepted (verified by the pure-JS bcryptjs, no native build); an argon2 hash is refused
 * at start-up with a message rather than failing every login later.
 */

export interface ConsoleUser {
  user: string;
  hash: string;
  role: PersonRole;
}

const BCRYPT_HASH = /^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/;

const usersSchema = z
  .array(
    z
      .object({
        user: z.string().trim().min(1).max(128),
        hash: z
          .string()
          .refine((hash) => !hash.startsWith("$argon2"), "argon2 hashes are not supported; use a bcrypt hash ($2b$…)")
          .refine((hash) => BCRYPT_HASH.test(hash), "must be a bcrypt hash ($2a$/$2b$/$2y$)"),
        role: z.enum(PERSON_ROLES),
      })
      .strict(),
  )
  .min(1, "must list at least one user")
  .superRefine((users, ctx) => {
    const seen = new Set<string>();
    for (const [index, entry] of users.entries()) {
      if (seen.has(entry.user))
        ctx.addIssue({ code: "custom", path: [index, "user"], message: `duplicate user "${entry.user}"` });
      seen.add(entry.user);
    }
  });

export class UsersFileError extends Error {
  constructor(path: string, detail: string) {
    super(`BREAKWATER_USERS_FILE (${path}): ${detail}`);
    this.name = "UsersFileError";
  }
}

/** Parses the file's text; the message names the entry, never a hash. */
export function parseUsers(text: string, path: string): ConsoleUser[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new UsersFileError(path, "is not JSON");
  }
  const result = usersSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new UsersFileError(path, `${issue?.path.join(".") || "file"}: ${issue?.message ?? "invalid"}`);
  }
  return result.data;
}

export function loadUsers(path: string): ConsoleUser[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new UsersFileError(
      path,
      error instanceof Error && "code" in error ? `cannot be read (${String(error.code)})` : "cannot be read",
    );
  }
  return parseUsers(text, path);
}

const BCRYPT_ALPHABET = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/**
 * A well-formed bcrypt hash of the users file's own (highest) cost that no password matches, compared
 * against when the user is unknown: bcrypt's time is set by the cost in the hash, so an unknown user
 * then takes as long as a wrong password (a fixed cost-10 dummy answered several times faster than
 * the cost-12 hashes docs/configuration.md suggests, which told who has an account). Random per call, so nothing is cached.
 */
export function dummyHash(users: readonly ConsoleUser[]): string {
  const cost = Math.max(4, ...users.map((entry) => bcrypt.getRounds(entry.hash)));
  const body = Array.from(randomBytes(53), (byte) => BCRYPT_ALPHABET[byte % 64]).join("");
  return `$2b$${String(cost).padStart(2, "0")}$${body}`;
}

/** The user when the password matches; null otherwise (unknown user and wrong password look the same). */
export async function verifyPassword(
  users: readonly ConsoleUser[],
  user: string,
  password: string,
): Promise<ConsoleUser | null> {
  const entry = users.find((candidate) => candidate.user === user);
  const matches = await bcrypt.compare(password, entry?.hash ?? dummyHash(users));
  return entry && matches ? entry : null;
}
