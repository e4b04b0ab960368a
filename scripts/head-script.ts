import { writeFileSync } from "node:fs";
import { format, resolveConfig } from "prettier";
import { buildHeadScript, GENERATED_FILE, generatedModule } from "../lib/preferences/head-script-build";

/** Regenerates lib/preferences/head-script.generated.ts from lib/preferences/head-script-source.ts. */
async function main(): Promise<void> {
  const options = { ...(await resolveConfig(GENERATED_FILE)), filepath: GENERATED_FILE };
  writeFileSync(GENERATED_FILE, await format(generatedModule(buildHeadScript()), options));
  console.log(`wrote ${GENERATED_FILE}`);
}

void main();
