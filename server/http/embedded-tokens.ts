import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  unlinkSync,
  writeSync,
} from "node:fs";

/**
 * The embedded server's own credentials (docs/decisions/0043): with no DW_AUTH_DRIVER and no token
 * variable, `server/main.ts` runs the `token` driver with one random token per role, kept beside the
 * data file so a restart (and `npm start`'s console) uses the same ones. Only the owner may read the
 * file: any local user who can read it is admin on this server.
 */

export interface RoleTokens {
  worker: string;
  operator: string;
  admin: string;
}

const ROLES = ["worker", "operator", "admin"] as const;
const MIN_TOKEN_LENGTH = 32;

/** `<data file>.tokens.json`: one file per data file, like the demo fleet's state. */
export function tokensFilePath(dataFile: string): string {
  return `${dataFile}.tokens.json`;
}

function newTokens(): RoleTokens {
  const make = (role: string): string => `bw_${role}_${randomBytes(32).toString("base64url")}`;
  return { worker: make("worker"), operator: make("operator"), admin: make("admin") };
}

/**
 * Reads the tokens file; refuses one that others could read or write, or that another user owns,
 * rather than fixing its mode: a token someone else may already have read is no longer a secret.
 */
export function readTokensFile(path: string): RoleTokens {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ELOOP")
      throw new Error(`${path} is a symbolic link; refusing to read tokens from it.`);
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new Error(`${path} is not a regular file.`);
    if (typeof process.getuid === "function" && st.uid !== process.getuid())
      throw new Error(`${path} belongs to another user (uid ${st.uid}); delete it to have new tokens made.`);
    if ((st.mode & 0o077) !== 0)
      throw new Error(
        `${path} is readable or writable by other users (mode ${(st.mode & 0o777).toString(8)}), so its tokens may be known: ` +
          `delete it to have new tokens made (workers must then be given the new worker token), or chmod 600 it if no one else could have read it.`,
      );
    const parsed = JSON.parse(readFileSync(fd, "utf8")) as Record<string, unknown>;
    for (const role of ROLES) {
      const token = parsed[role];
      if (typeof token !== "string" || token.trim().length < MIN_TOKEN_LENGTH)
        throw new Error(`${path}: "${role}" must be a token of at least ${MIN_TOKEN_LENGTH} characters.`);
    }
    return { worker: String(parsed.worker), operator: String(parsed.operator), admin: String(parsed.admin) };
  } finally {
    closeSync(fd);
  }
}

/**
 * The tokens in `path`, made on first use. The new file is written whole under a temporary name
 * with mode 0600 and then hard-linked into place, which fails if the name exists: two servers
 * starting on one data file agree on one set, and no reader ever sees half a file.
 */
export function loadOrCreateTokens(path: string): { tokens: RoleTokens; created: boolean } {
  try {
    return { tokens: readTokensFile(path), created: false };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  const tokens = newTokens();
  const temp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, `${JSON.stringify(tokens, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    return { tokens: readTokensFile(path), created: false };
  } finally {
    unlinkSync(temp);
  }
  return { tokens, created: true };
}
