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

it("groups the host's incidents by definition × type × task × root cause, fatal ones marked", async () => {
  const fatal = [await start("kiki-fatal"), await start("kiki-fatal")];
  // The same task id (POST_LEDGER) in a second process: its own group, not merged into kiki-fatal's.
  const mirror = await start("kiki-fatal-mirror");
  const business = await start("kiki-business-error");
  const mine = new Set([...fatal, mirror, business].map((p) => p.id));
  const deadline = Date.now() + 20_000;
  let scan = await scanAttention(kiki);
  const openOfMine = () => scan.groups.flatMap((g) => g.instances).filter((i) => mine.has(i.processInstanceId)).length;
  while (openOfMine() < 4 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    scan = await scanAttention(kiki);
  }
  const ofMine = scan.groups
    .map((g) => ({ ...g, instances: g.instances.filter((i) => mine.has(i.processInstanceId)) }))
    .filter((g) => g.instances.length > 0);
  console.info(JSON.stringify(ofMine.map((g) => [g.type, g.taskDefinitionId, g.exception, g.instances.length])));
  const ledger = ofMine.filter((g) => g.exception === "LedgerCorruptedException");
  expect(ledger.map((g) => g.processDefinitionId).sort()).toEqual(
    [fatal[0]!.processDefinitionId, mirror.processDefinitionId].sort(),
  );
  expect(ledger.find((g) => g.processDefinitionId === fatal[0]!.processDefinitionId)).toMatchObject({
    type: "FAILED_JOB",
    taskDefinitionId: "POST_LEDGER",
    instances: expect.arrayContaining(fatal.map((p) => expect.objectContaining({ processInstanceId: p.id }))),
  });
  expect(ledger.find((g) => g.processDefinitionId === mirror.processDefinitionId)).toMatchObject({
    taskDefinitionId: "POST_LEDGER",
    instances: [expect.objectContaining({ processInstanceId: mirror.id })],
  });
  // Fatal from each instance's outbox: all of ours in both groups (other tests' instances may add more).
  for (const group of ledger) expect(group.fatal).toBe(scan.groups.find((g) => g.key === group.key)!.count);
  expect(ofMine.find((g) => g.type === "UNHANDLED_BUSINESS_ERROR")).toMatchObject({
    taskDefinitionId: "CHECK_CREDIT",
    exception: "ProcessErrorException",
    instances: [expect.objectContaining({ processInstanceId: business.id })],
  });
  expect(ofMine.find((g) => g.type === "UNHANDLED_BUSINESS_ERROR")!.fatal).toBe(0);
  expect(ofMine.map((g) => g.instances.length)).toEqual([2, 1, 1]);
  expect(scan).toMatchObject({ capped: false });
  expect(scan.scanned).toBeGreaterThanOrEqual(4);
}, 60_000);
