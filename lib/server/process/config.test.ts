import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "@/lib/server/process/config";

describe("parseConfig", () => {
  it("defaults to the embedded server on 8080, namespace default, writable", () => {
    const config = parseConfig({});
    expect(config).toMatchObject({
      serverUrl: "http://127.0.0.1:8080",
      serverHost: "127.0.0.1:8080",
      embedded: true,
      token: null,
      tokenSource: null,
      namespace: "default",
      readOnly: false,
      timeoutMs: 10_000,
    });
  });

  it("follows DW_EMBEDDED_PORT when no server URL is set, and treats an empty URL as unset", () => {
    expect(parseConfig({ DW_EMBEDDED_PORT: "18080", DW_SERVER_URL: "" }).serverUrl).toBe("http://127.0.0.1:18080");
  });

  it("uses DW_SERVER_URL without trailing slashes and exposes only its host", () => {
    const config = parseConfig({ DW_SERVER_URL: "https://dw.example.com:9443/", DW_NAMESPACE: "Billing" });
    expect(config.serverUrl).toBe("https://dw.example.com:9443");
    expect(config.serverHost).toBe("dw.example.com:9443");
    expect(config.embedded).toBe(false);
    expect(config.namespace).toBe("billing");
  });

  it("picks DW_TOKEN, then DW_ADMIN_TOKEN, then DW_OPERATOR_TOKEN", () => {
    expect(parseConfig({ DW_OPERATOR_TOKEN: "op" })).toMatchObject({ token: "op", tokenSource: "DW_OPERATOR_TOKEN" });
    expect(parseConfig({ DW_OPERATOR_TOKEN: "op", DW_ADMIN_TOKEN: "adm" })).toMatchObject({
      token: "adm",
      tokenSource: "DW_ADMIN_TOKEN",
    });
    expect(parseConfig({ DW_TOKEN: "t", DW_ADMIN_TOKEN: "adm" })).toMatchObject({
      token: "t",
      tokenSource: "DW_TOKEN",
    });
    expect(parseConfig({ DW_TOKEN: "  " })).toMatchObject({ token: null, tokenSource: null });
  });

  it("reads BREAKWATER_READ_ONLY flags", () => {
    expect(parseConfig({ BREAKWATER_READ_ONLY: "1" }).readOnly).toBe(true);
    expect(parseConfig({ BREAKWATER_READ_ONLY: "TRUE" }).readOnly).toBe(true);
    expect(parseConfig({ BREAKWATER_READ_ONLY: "0" }).readOnly).toBe(false);
    expect(parseConfig({ BREAKWATER_READ_ONLY: "" }).readOnly).toBe(false);
  });

  it("names every bad variable in one error", () => {
    let error: unknown;
    try {
      parseConfig({
        DW_SERVER_URL: "ftp://dw",
        DW_EMBEDDED_PORT: "99999",
        BREAKWATER_READ_ONLY: "maybe",
        DW_NAMESPACE: "a/b",
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const configError = error as ConfigError;
    expect(configError.variables.sort()).toEqual([
      "BREAKWATER_READ_ONLY",
      "DW_EMBEDDED_PORT",
      "DW_NAMESPACE",
      "DW_SERVER_URL",
    ]);
    expect(configError.message).toContain(
      'DW_SERVER_URL: must be an absolute http:// or https:// URL without credentials (got "ftp://dw")',
    );
  });

  it("has no Kikwiflow engine unless KIKWIFLOW_URL is set, and reads its tenant", () => {
    expect(parseConfig({}).kikwiflow).toBeNull();
    expect(parseConfig({ KIKWIFLOW_URL: "" }).kikwiflow).toBeNull();
    expect(parseConfig({ KIKWIFLOW_URL: "http://kiki.internal:8095/", KIKWIFLOW_TENANT: " acme " }).kikwiflow).toEqual({
      url: "http://kiki.internal:8095",
      host: "kiki.internal:8095",
      tenant: "acme",
    });
    expect(parseConfig({ KIKWIFLOW_URL: "http://127.0.0.1:8095" }).kikwiflow?.tenant).toBeNull();
    expect(() => parseConfig({ KIKWIFLOW_URL: "kiki:8095" })).toThrow(/KIKWIFLOW_URL/);
  });

  it("refuses credentials in the URL, since the host is shown to operators", () => {
    expect(() => parseConfig({ DW_SERVER_URL: "http://user:pw@dw:8080" })).toThrow(/DW_SERVER_URL/);
  });

  it("reads BREAKWATER_EXPORT_MAX_MB as a byte limit, 1024 MB by default, and names a bad value", () => {
    expect(parseConfig({}).exportMaxBytes).toBe(1024 * 1024 * 1024);
    expect(parseConfig({ BREAKWATER_EXPORT_MAX_MB: " 5 " }).exportMaxBytes).toBe(5 * 1024 * 1024);
    for (const bad of ["0", "1.5", "-3", "lots", "70000"])
      expect(() => parseConfig({ BREAKWATER_EXPORT_MAX_MB: bad }), bad).toThrow(/BREAKWATER_EXPORT_MAX_MB: must be/);
  });

  it("keeps V8's heap small during walks unless BREAKWATER_RUN_VIEW_SMALL_HEAP turns it off (empty is the default)", () => {
    const smallHeap = (value?: string) =>
      parseConfig(value === undefined ? {} : { BREAKWATER_RUN_VIEW_SMALL_HEAP: value }).runView.smallHeap;
    expect([undefined, "", "1", "on", "TRUE"].map(smallHeap)).toEqual([true, true, true, true, true]);
    expect(["0", "off", "no", "false"].map(smallHeap)).toEqual([false, false, false, false]);
    expect(() => smallHeap("tiny")).toThrow(/BREAKWATER_RUN_VIEW_SMALL_HEAP: must be 1\/0/);
  });

  it("bounds the run view: cache 256 MB, 4 walks, 2 upstream long-polls by default, each settable", () => {
    expect(parseConfig({}).runView).toEqual({
      cacheMaxBytes: 256 * 1024 * 1024,
      maxWalks: 4,
      maxLongPolls: 2,
      smallHeap: true,
    });
    expect(
      parseConfig({
        BREAKWATER_RUN_VIEW_CACHE_MB: "16",
        BREAKWATER_RUN_VIEW_WALKS: "2",
        BREAKWATER_RUN_VIEW_LONG_POLLS: "0",
      }).runView,
    ).toEqual({ cacheMaxBytes: 16 * 1024 * 1024, maxWalks: 2, maxLongPolls: 0, smallHeap: true });
    let error: unknown;
    try {
      parseConfig({ BREAKWATER_RUN_VIEW_WALKS: "0", BREAKWATER_RUN_VIEW_CACHE_MB: "lots" });
    } catch (caught) {
      error = caught;
    }
    expect((error as ConfigError).variables.sort()).toEqual([
      "BREAKWATER_RUN_VIEW_CACHE_MB",
      "BREAKWATER_RUN_VIEW_WALKS",
    ]);
  });
});
