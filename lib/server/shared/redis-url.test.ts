import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "@/lib/server/process/config";

describe("BREAKWATER_REDIS_URL", () => {
  it("is optional: unset or empty, each instance keeps its own state", () => {
    expect(parseConfig({}).redisUrl).toBeNull();
    expect(parseConfig({ BREAKWATER_REDIS_URL: " " }).redisUrl).toBeNull();
  });

  it("takes redis:// and rediss:// URLs", () => {
    expect(parseConfig({ BREAKWATER_REDIS_URL: "redis://127.0.0.1:6379/2" }).redisUrl).toBe("redis://127.0.0.1:6379/2");
    expect(parseConfig({ BREAKWATER_REDIS_URL: "rediss://:pw@cache:6380" }).redisUrl).toBe("rediss://:pw@cache:6380");
  });

  it("refuses anything else at start-up, without echoing it (it may carry a password)", () => {
    let error: unknown;
    try {
      parseConfig({ BREAKWATER_REDIS_URL: "http://:secret-pw@cache:6379" });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variables).toEqual(["BREAKWATER_REDIS_URL"]);
    expect((error as ConfigError).message).not.toContain("secret-pw");
  });
});
