import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeClock } from "../clock";
import type { Db } from "../store/db";
import { openDb } from "../store/db";
import { EngineError } from "./errors";
import { GroupCommitter } from "./group-commit";
import type { Tx } from "./tx";
import { DEFAULT_LEASES } from "./tx";
import { WalSync } from "./wal-sync";

let dir: string;
let db: Db;
const clock = new FakeClock();

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "bw-gc-"));
  db = openDb(join(dir, "gc.db"), clock);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function addNamespace(tx: Tx, name: string): string {
  tx.db.prepare("INSERT INTO namespaces (name, created_at, updated_at) VALUES (?, ?, ?)").run(name, tx.now, tx.now);
  return name;
}

function namespaces(): string[] {
  return (
    db.prepare("SELECT name FROM namespaces WHERE name <> 'default' ORDER BY name").all() as { name: string }[]
  ).map((r) => r.name);
}

describe("group commit", () => {
  it("commits a same-tick batch once, isolating a failing op in its savepoint", async () => {
    const committed: number[] = [];
    const group = new GroupCommitter(
      db,
      () => clock.now(),
      DEFAULT_LEASES,
      () => undefined,
      (tx) => committed.push(tx.now),
    );
    const ok1 = group.run((tx) => addNamespace(tx, "a"));
    const bad = group.run((tx) => {
      addNamespace(tx, "b");
      throw new Error("op failed after writing");
    });
    const ok2 = group.run((tx) => addNamespace(tx, "c"));
    // Nothing is visible (or acknowledged) before the shared COMMIT.
    expect(namespaces()).toEqual([]);
    await expect(ok1).resolves.toBe("a");
    await expect(bad).rejects.toThrow("op failed after writing");
    await expect(ok2).resolves.toBe("c");
    expect(namespaces()).toEqual(["a", "c"]);
    // afterCommit ran for the two ops that committed, from a single flush.
    expect(committed).toHaveLength(2);
  });

  it("keeps the writes of a 409 refusal when asked, and still rejects with it", async () => {
    const group = new GroupCommitter(
      db,
      () => clock.now(),
      DEFAULT_LEASES,
      () => undefined,
      () => undefined,
    );
    const refusal = new EngineError(409, "stale_attempt", "no longer current");
    const kept = group.run((tx) => {
      addNamespace(tx, "kept");
      throw refusal;
    }, true);
    const dropped = group.run((tx) => {
      addNamespace(tx, "dropped");
      throw new EngineError(409, "stale_attempt", "no longer current");
    });
    await expect(kept).rejects.toBe(refusal);
    await expect(dropped).rejects.toMatchObject({ reason: "stale_attempt" });
    expect(namespaces()).toEqual(["kept"]);
  });
  it("answers after the WAL sync, with the connection back at synchronous FULL for other writers", async () => {
    const events: string[] = [];
    const group = new GroupCommitter(
      db,
      () => clock.now(),
      DEFAULT_LEASES,
      () => undefined,
      () => events.push("committed"),
      () => events.push("durable"),
    );
    const ok = group
      .run((tx) => addNamespace(tx, "synced"))
      .then((v) => {
        events.push("answered");
        return v;
      });
    const failing = group.run(() => {
      throw new Error("rolled back");
    });
    await expect(ok).resolves.toBe("synced");
    await expect(failing).rejects.toThrow("rolled back");
    // Wake-ups for pollers follow the COMMIT; the answer and history wake-ups follow the sync.
    expect(events).toEqual(["committed", "durable", "answered"]);
    expect(db.pragma("synchronous", { simple: true })).toBe(2);
    expect(namespaces()).toEqual(["synced"]);
  });

  it("coalesces concurrent WAL syncs and has nothing to sync in memory or after close", async () => {
    const memory = openDb(":memory:", clock);
    expect(WalSync.for(memory)).toBeNull();
    memory.close();
    const sync = WalSync.for(db);
    expect(sync).not.toBeNull();
    db.prepare("INSERT INTO namespaces (name, created_at, updated_at) VALUES ('w', 0, 0)").run();
    await expect(Promise.all([sync?.sync(), sync?.sync(), sync?.sync()])).resolves.toHaveLength(3);
    db.close();
    // Closing checkpoints and removes the WAL; a sync requested afterwards has nothing left to do.
    await expect(sync?.sync()).resolves.toBeUndefined();
    db = openDb(join(dir, "gc.db"), clock);
    expect(namespaces()).toEqual(["w"]);
  });
  it("refuses every later answer once a WAL sync has failed", async () => {
    const sync = WalSync.for(db);
    db.prepare("INSERT INTO namespaces (name, created_at, updated_at) VALUES ('lost', 0, 0)").run();
    // The WAL vanishing under an open connection makes the sync fail (ENOENT).
    unlinkSync(join(dir, "gc.db-wal"));
    await expect(sync?.sync()).rejects.toMatchObject({ code: "ENOENT" });
    // A file back at that path would sync fine, but what the failed sync lost is not in it.
    writeFileSync(join(dir, "gc.db-wal"), "");
    await expect(sync?.sync()).rejects.toMatchObject({ code: "ENOENT" });
  });
});
