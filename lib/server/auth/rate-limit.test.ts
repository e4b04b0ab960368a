import { describe, expect, it } from "vitest";
import { LOGIN_LIMITS, LoginLimiter, TokenBuckets } from "./rate-limit";

describe("token buckets", () => {
  it("allows the burst, refuses the next, and refills with time", () => {
    const buckets = new TokenBuckets({ capacity: 3, refillPerSecond: 1 / 10 });
    const t0 = 1_000_000;
    expect([1, 2, 3].map(() => buckets.take("k", t0))).toEqual([true, true, true]);
    expect(buckets.take("k", t0)).toBe(false);
    expect(buckets.retryAfterSeconds("k", t0)).toBe(10);
    expect(buckets.take("k", t0 + 9_000)).toBe(false);
    expect(buckets.take("k", t0 + 19_500)).toBe(true);
    expect(buckets.take("other", t0)).toBe(true);
  });
});

/** One login attempt as the route makes it: admitted or not, then verified (correct or wrong). */
function attempt(
  limiter: LoginLimiter,
  address: string,
  user: string,
  correct: boolean,
  nowMs: number,
): "signed_in" | "invalid" | "rate_limited" {
  if (!limiter.admit(address, user, nowMs).allowed) return "rate_limited";
  if (!correct) {
    limiter.failed(address, user, nowMs);
    return "invalid";
  }
  limiter.succeeded(address, user);
  return "signed_in";
}

describe("login limiter: a guesser throttles itself, not the people it guesses at", () => {
  const t0 = 5_000_000;
  const attacker = "203.0.113.66";

  it("stops one address guessing one account after five wrong passwords", () => {
    const limiter = new LoginLimiter();
    const outcomes = Array.from({ length: 8 }, () => attempt(limiter, attacker, "ada", false, t0));
    expect(outcomes).toEqual([...Array(5).fill("invalid"), ...Array(3).fill("rate_limited")]);
    expect(limiter.admit(attacker, "ADA", t0)).toEqual({ allowed: false, retryAfterSeconds: 30 });
    // Its own correct guess is refused too while it is throttled: the throttle is not an oracle.
    expect(attempt(limiter, attacker, "ada", true, t0)).toBe("rate_limited");
    expect(attempt(limiter, attacker, "ada", false, t0 + 30_000)).toBe("invalid");
  });

  it("does not lock the account out for its owner at another address (it did: 5 wrong attempts locked ada everywhere)", () => {
    const limiter = new LoginLimiter();
    for (let n = 0; n < 50; n += 1) attempt(limiter, attacker, "ada", false, t0);
    expect(attempt(limiter, "198.51.100.7", "ada", true, t0)).toBe("signed_in");
  });

  it("lets one address keep nobody else locked: spraying ten accounts stops the sprayer after 20", () => {
    const limiter = new LoginLimiter();
    const users = Array.from({ length: 10 }, (_, i) => `user-${i}`);
    const outcomes = users.flatMap((user) =>
      Array.from({ length: 5 }, () => attempt(limiter, attacker, user, false, t0)),
    );
    expect(outcomes.filter((o) => o === "invalid")).toHaveLength(20);
    for (const [i, user] of users.entries())
      expect(attempt(limiter, `198.51.100.${i + 1}`, user, true, t0), user).toBe("signed_in");
  });

  it("caps a distributed guess at one account, yet lets its owner in with the right password", () => {
    const limiter = new LoginLimiter({ ...LOGIN_LIMITS, global: { capacity: 10_000, refillPerSecond: 1 } });
    // 60 addresses, 5 wrong passwords each, at one account, all at once: the first ten get their
    // five each (50, the per-user ceiling); after that, each new address gets one guess, not five.
    let invalid = 0;
    for (let a = 0; a < 60; a += 1) {
      for (let n = 0; n < 5; n += 1) if (attempt(limiter, `10.1.${a}.1`, "ada", false, t0) === "invalid") invalid += 1;
    }
    expect(invalid).toBe(50 + 50);
    expect(limiter.admit("10.1.59.1", "ada", t0).allowed).toBe(false);
    // Ada, at an address with no wrong password for her, still signs in.
    expect(attempt(limiter, "192.0.2.10", "ada", true, t0)).toBe("signed_in");
  });

  it("forgives an address's mistakes for a user once the right password is given", () => {
    const limiter = new LoginLimiter();
    for (let n = 0; n < 4; n += 1) attempt(limiter, "192.0.2.10", "ada", false, t0);
    expect(attempt(limiter, "192.0.2.10", "ada", true, t0)).toBe("signed_in");
    expect(Array.from({ length: 5 }, () => attempt(limiter, "192.0.2.10", "ada", false, t0))).toEqual(
      Array(5).fill("invalid"),
    );
  });

  it("keeps a process-wide ceiling on password checks", () => {
    const limiter = new LoginLimiter({
      pair: { capacity: 5, refillPerSecond: 1 / 30 },
      address: { capacity: 20, refillPerSecond: 1 / 3 },
      user: { capacity: 50, refillPerSecond: 1 / 60 },
      global: { capacity: 3, refillPerSecond: 1 },
    });
    expect(["a", "b", "c", "d"].map((user, i) => limiter.admit(`10.2.0.${i}`, user, t0).allowed)).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(limiter.admit("10.2.0.9", "e", t0 + 1_000).allowed).toBe(true);
  });
});
