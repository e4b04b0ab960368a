import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { startDemoFleet } from "./fleet";

/**
 * Runs the demo fleet against an already running server, until SIGINT/SIGTERM:
 *
 *   node --import tsx server/demo/run.ts --url http://127.0.0.1:8080 [--data .data/breakwater.db]
 *
 * Tokens come from DW_WORKER_TOKEN / DW_OPERATOR_TOKEN (or DW_AUTH_TOKEN for both). `--data`
 * opens the server's SQLite file (WAL allows a second connection) for the lost-transport fault.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: "string", default: "http://127.0.0.1:8080" },
      data: { type: "string" },
      namespace: { type: "string" },
      trickle: { type: "string", default: "4000" },
    },
  });
  const db = values.data ? new Database(values.data) : undefined;
  db?.pragma("busy_timeout = 5000");
  const fleet = await startDemoFleet({
    baseUrl: values.url,
    token: process.env.DW_AUTH_TOKEN,
    workerToken: process.env.DW_WORKER_TOKEN,
    operatorToken: process.env.DW_OPERATOR_TOKEN ?? process.env.DW_ADMIN_TOKEN,
    namespace: values.namespace,
    db,
    trickleMs: Number(values.trickle),
    log: (line) => console.log(`[demo] ${line}`),
  });
  const stop = async (): Promise<void> => {
    await fleet.stop();
    db?.close();
    process.exit(0);
  };
  process.once("SIGINT", () => void stop());
  process.once("SIGTERM", () => void stop());
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
