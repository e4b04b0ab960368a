import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeClock } from "../clock";
import { openDb } from "./db";

/**
 * The embedded server's data holds every run's inputs and outputs: no other local user may read it,
 * under the usual umask 022 (decision 0043). The tokens file beside it is already 0600.
 */
const root = mkdtempSync(join(tmpdir(), "bw-db-mode-"));
const mode = (path: string): number => statSync(path).mode & 0o777;
let savedUmask = 0;

beforeAll(() => {
  savedUmask = process.umask(0o022);
});
afterAll(() => {
  process.umask(savedUmask);
  rmSync(root, { recursive: true, force: true });
});

/** One write, so SQLite has made the -wal and -shm files. */
function openAndWrite(file: string): void {
  const db = openDb(file, new FakeClock(0));
  db.prepare(
    "INSERT OR IGNORE INTO namespaces (name, description, created_at, updated_at) VALUES ('x', '', 0, 0)",
  ).run();
  expect(mode(`${file}-wal`)).toBe(0o600);
  expect(mode(`${file}-shm`)).toBe(0o600);
  expect(mode(file)).toBe(0o600);
  db.close();
}

describe("openDb file modes", () => {
  it("makes a new data directory 0700 and the database, -wal and -shm 0600", () => {
    const dir = join(root, "fresh", "data");
    openAndWrite(join(dir, "breakwater.db"));
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(root, "fresh"))).toBe(0o700);
  });

  it("leaves a directory the user already had as it was", () => {
    const dir = join(root, "existing");
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    openAndWrite(join(dir, "breakwater.db"));
    expect(mode(dir)).toBe(0o755);
  });

  it("narrows a database file an earlier release left readable by others", () => {
    const file = join(root, "old.db");
    writeFileSync(file, "");
    chmodSync(file, 0o644);
    openAndWrite(file);
  });
});
