import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import bcrypt from "bcryptjs";
import { describe, expect, it } from "vitest";
import { loadUsers, parseUsers, verifyPassword } from "./users";

// Cost 4 keeps the suite fast; the format is the same as production's cost 10–12.
const adaHash = bcrypt.hashSync("correct horse", 4);

describe("users file", () => {
  it("loads bcrypt users from a JSON file and verifies passwords", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bw-users-"));
    const file = join(dir, "users.json");
    writeFileSync(file, JSON.stringify([{ user: "ada", hash: adaHash, role: "admin" }]));
    const users = loadUsers(file);
    expect(await verifyPassword(users, "ada", "correct horse")).toMatchObject({ user: "ada", role: "admin" });
    expect(await verifyPassword(users, "ada", "wrong")).toBeNull();
    expect(await verifyPassword(users, "nobody", "correct horse")).toBeNull();
  });

  it("refuses argon2 hashes, unknown roles, duplicates and non-JSON without echoing a hash", () => {
    const argon = "$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA";
    expect(() => parseUsers(JSON.stringify([{ user: "a", hash: argon, role: "admin" }]), "u.json")).toThrow(/argon2 hashes are not supported/);
    expect(() => parseUsers(JSON.stringify([{ user: "a", hash: adaHash, role: "root" }]), "u.json")).toThrow(/0\.role/);
    expect(() => parseUsers(JSON.stringify([{ user: "a", hash: adaHash, role: "viewer" }, { user: "a", hash: adaHash, role: "admin" }]), "u.json")).toThrow(/duplicate user/);
    expect(() => parseUsers("user: a", "u.json")).toThrow(/not JSON/);
    try {
      parseUsers(JSON.stringify([{ user: "a", hash: adaHash, role: "root" }]), "u.json");
    } catch (error) {
      expect(String(error)).not.toContain(adaHash);
    }
    expect(() => loadUsers(join(tmpdir(), "no-such-breakwater-users.json"))).toThrow(/cannot be read \(ENOENT\)/);
  });
});
