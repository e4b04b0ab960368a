import type { TestServer } from "./test-server";
import { TEST_OPERATOR_TOKEN, TEST_WORKER_TOKEN } from "./test-server";
import type { DemoFleetOptions } from "../demo/fleet";

/**
 * Demo-fleet options for tests against `startTestServer`: both planes' test tokens, the server's
 * SQLite handle and engine, and no background traffic (no trickle, only the seeded lost
 * transport) so a test sees what it seeded and nothing else. Not a test file itself.
 */
export function quietFleetOptions(server: TestServer, more: Partial<DemoFleetOptions> = {}): DemoFleetOptions {
  return {
    baseUrl: server.baseUrl,
    workerToken: TEST_WORKER_TOKEN,
    operatorToken: TEST_OPERATOR_TOKEN,
    db: server.db,
    engine: server.engine,
    trickleMs: 0,
    lostTransportEveryMs: 0,
    ...more,
  };
}
