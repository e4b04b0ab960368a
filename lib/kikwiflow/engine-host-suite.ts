import { afterAll, beforeAll, beforeEach } from "vitest";
import { createKikwiflowClient, type KikwiflowClient } from "./client";
import { startKikwiflowHost, type KikwiflowHost } from "./engine-host";

/** (Tests only.) What a test file gets from {@link withKikwiflowHost}. */
export interface KikwiflowHostSuite {
  host: KikwiflowHost;
  kiki: KikwiflowClient;
}

/**
 * (Tests only.) Starts the real engine host once for the calling test file, with a client on it,
 * then runs `setup` (environment, route imports); stops it after the file. A failed start (no jar,
 * JVM crash) or setup is rethrown by every test, so each one FAILS: a throwing beforeAll would only
 * mark them skipped, which a summary could read as "nothing wrong".
 */
export function withKikwiflowHost(setup?: (suite: KikwiflowHostSuite) => Promise<void> | void): void {
  let host: KikwiflowHost | undefined;
  let setupError: unknown = null;
  beforeAll(async () => {
    try {
      host = await startKikwiflowHost();
      const kiki = createKikwiflowClient({ baseUrl: host.baseUrl, timeoutMs: 10_000 });
      console.info(`Kikwiflow host ready in ${host.startupMs} ms at ${host.baseUrl}`);
      await setup?.({ host, kiki });
    } catch (error) {
      setupError = error;
    }
  }, 150_000);
  beforeEach(() => {
    if (setupError) throw setupError;
  });
  afterAll(async () => {
    await host?.stop();
  });
}
