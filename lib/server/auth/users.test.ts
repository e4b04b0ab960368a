import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import bcrypt from "bcryptjs";
import { describe, expect, it } from "vitest";
import { dummyHash, loadUsers, parseUsers, verifyPassword } from "./users";

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
    expect(() => parseUsers(JSON.stringify([{ user: "a", hash: argon, role: "admin" }]), "u.json")).toThrow(
      /argon2 hashes are not supported/,
    );
    expect(() => parseUsers(JSON.stringify([{ user: "a", hash: adaHash, role: "root" }]), "u.json")).toThrow(/0\.role/);
    expect(() =>
      parseUsers(
        JSON.stringify([
          { user: "a", hash: adaHash, role: "viewer" },
          { user: "a", hash: adaHash, role: "admin" },
        ]),
        "u.json",
      ),
    ).toThrow(/duplicate user/);
    expect(() => parseUsers("user: a", "u.json")).toThrow(/not JSON/);
    try {
      parseUsers(JSON.stringify([{ user: "a", hash: adaHash, role: "root" }]), "u.json");
    } catch (error) {
      expect(String(error)).not.toContain(adaHash);
    }
    expect(() => loadUsers(join(tmpdir(), "no-such-breakwater-users.json"))).toThrow(/cannot be read \(ENOENT\)/);
  });

  it("takes as long for an unknown user as for a wrong password, at the users file's own cost", async () => {
    // Cost 8 here, 12 in docs/configuration.md: a fixed cost-10 dummy made unknown users 4x slower here (and
    // 4x faster against cost 12), which tells who has an account. Medians of interleaved samples.
    const users = parseUsers(
      JSON.stringify([{ user: "ada", hash: bcrypt.hashSync("correct horse", 8), role: "admin" }]),
      "u.json",
    );
    const timed = async (user: string): Promise<number> => {
      const started = performance.now();
      await verifyPassword(users, user, "wrong password");
      return performance.now() - started;
    };
    const unknown: number[] = [];
    const wrong: number[] = [];
    await timed("ada");
    for (let i = 0; i < 11; i += 1) {
      unknown.push(await timed(`nobody-${i}`));
      wrong.push(await timed("ada"));
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
    const ratio = median(unknown) / median(wrong);
    expect(ratio, `unknown ${median(unknown).toFixed(1)} ms / wrong ${median(wrong).toFixed(1)} ms`).toBeGreaterThan(
      0.5,
    );
    expect(ratio, `unknown ${median(unknown).toFixed(1)} ms / wrong ${median(wrong).toFixed(1)} ms`).toBeLessThan(2);
  });

  it("makes the dummy a well-formed hash of the highest cost in the file, matching no password", async () => {
    const users = parseUsers(
      JSON.stringify([
        { user: "a", hash: bcrypt.hashSync("x", 4), role: "viewer" },
        { user: "b", hash: bcrypt.hashSync("x", 6), role: "viewer" },
      ]),
      "u.json",
    );
    const dummy = dummyHash(users);
    expect(dummy).toMatch(/^\$2b\$06\$[./A-Za-z0-9]{53}$/);
    expect(bcrypt.getRounds(dummy)).toBe(6);
    expect(await bcrypt.compare("x", dummy)).toBe(false);
    expect(dummyHash(users)).not.toBe(dummy);
  });
});
