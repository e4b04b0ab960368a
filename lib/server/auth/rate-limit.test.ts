import { describe, expect, it } from "vitest";
import { LoginLimiter, TokenBuckets } from "./rate-limit";

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

describe("login limiter", () => {
  const t0 = 5_000_000;

  it("throttles one user name from any address", () => {
    const limiter = new LoginLimiter({ capacity: 100, refillPerSecond: 1 }, { capacity: 5, refillPerSecond: 1 / 30 });
    for (let attempt = 0; attempt < 5; attempt += 1) expect(limiter.attempt(`10.0.0.${attempt}`, "ada", t0).allowed).toBe(true);
    const refused = limiter.attempt("10.0.0.99", "ADA", t0);
    expect(refused).toEqual({ allowed: false, retryAfterSeconds: 30 });
    expect(limiter.attempt("10.0.0.99", "grace", t0).allowed).toBe(true);
    expect(limiter.attempt("10.0.0.99", "ada", t0 + 30_000).allowed).toBe(true);
  });

  it("throttles one address across user names, without charging the users it refused", () => {
    const limiter = new LoginLimiter({ capacity: 3, refillPerSecond: 1 / 3 }, { capacity: 5, refillPerSecond: 1 / 30 });
    for (const user of ["a", "b", "c"]) expect(limiter.attempt("203.0.113.7", user, t0).allowed).toBe(true);
    expect(limiter.attempt("203.0.113.7", "d", t0).allowed).toBe(false);
    // "d" was refused by the address bucket, so its own bucket is still full.
    for (let attempt = 0; attempt < 5; attempt += 1) expect(limiter.attempt(`198.51.100.${attempt}`, "d", t0).allowed).toBe(true);
  });
});
