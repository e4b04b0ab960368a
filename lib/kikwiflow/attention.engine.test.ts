import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { scanAttention } from "./attention";
import type { KikwiflowClient } from "./client";
import { withKikwiflowHost } from "./engine-host-suite";

/** The attention scan against the REAL engine host (KIKWIFLOW_HOST_JAR); a missing jar fails the test. */
let kiki: KikwiflowClient;

withKikwiflowHost((suite) => {
  ({ kiki } = suite);
});

async function start(key: string) {
  return kiki.startProcessInstance({ processDefinitionKey: key, businessKey: `${key}-${randomUUID()}` });
}

it("groups the host's fatal and business-error incidents by type × task × root cause", async () => {
  const fatal = [await start("kiki-fatal"), await start("kiki-fatal")];
  const business = await start("kiki-business-error");
  const mine = new Set([...fatal, business].map((p) => p.id));
  const deadline = Date.now() + 20_000;
  let scan = await scanAttention(kiki);
  const openOfMine = () => scan.groups.flatMap((g) => g.instances).filter((i) => mine.has(i.processInstanceId)).length;
  while (openOfMine() < 3 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    scan = await scanAttention(kiki);
  }
  const ofMine = scan.groups
    .map((g) => ({ ...g, instances: g.instances.filter((i) => mine.has(i.processInstanceId)) }))
    .filter((g) => g.instances.length > 0);
  console.info(JSON.stringify(ofMine.map((g) => [g.type, g.taskDefinitionId, g.exception, g.instances.length])));
  expect(ofMine.find((g) => g.exception === "LedgerCorruptedException")).toMatchObject({
    type: "FAILED_JOB",
    taskDefinitionId: "POST_LEDGER",
    instances: expect.arrayContaining(fatal.map((p) => expect.objectContaining({ processInstanceId: p.id }))),
  });
  expect(ofMine.find((g) => g.type === "UNHANDLED_BUSINESS_ERROR")).toMatchObject({
    taskDefinitionId: "CHECK_CREDIT",
    exception: "ProcessErrorException",
    instances: [expect.objectContaining({ processInstanceId: business.id })],
  });
  expect(ofMine.map((g) => g.instances.length)).toEqual([2, 1]);
  expect(scan).toMatchObject({ capped: false });
  expect(scan.scanned).toBeGreaterThanOrEqual(3);
}, 60_000);
