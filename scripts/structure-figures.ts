// Structure figures for the "one structure" issue: the ten longest functions, ad-hoc query keys,
// tables not on DataTable and buttons not on Button. Printed, never asserted: they are read
// before and after a refactor (`node --import tsx scripts/structure-figures.ts`).
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const ROOT = process.cwd();
const DIRS = ["app", "components", "lib", "server", "scripts", "proxy.ts", "instrumentation.ts"];
const isTest = (f: string) => /\.(test|spec)\.tsx?$/.test(f) || f.includes("/e2e/");

function walk(p: string, out: string[] = []): string[] {
  const s = statSync(p);
  if (s.isFile()) {
    if (/\.(ts|tsx)$/.test(p)) out.push(p);
    return out;
  }
  for (const e of readdirSync(p)) if (e !== "node_modules" && !e.startsWith(".")) walk(join(p, e), out);
  return out;
}

const files = DIRS.flatMap((d) => {
  try {
    return walk(join(ROOT, d));
  } catch {
    return [];
  }
}).filter((f) => !isTest(relative(ROOT, f)));

type Fn = { name: string; file: string; lines: number };
const fns: Fn[] = [];
let queryKeys = 0,
  tables = 0,
  buttons = 0;
const where = { queryKeys: [] as string[], tables: [] as string[], buttons: [] as string[] };

function nameOf(node: ts.Node): string | null {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name) return node.name.getText();
  if ((ts.isArrowFunction(node) || ts.isFunctionExpression(node)) && ts.isVariableDeclaration(node.parent))
    return node.parent.name.getText();
  return null;
}

for (const file of files) {
  const rel = relative(ROOT, file);
  const text = readFileSync(file, "utf8");
  const sf = ts.createSourceFile(
    file,
    text,
    ts.ScriptTarget.Latest,
    true,
    file.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const visit = (node: ts.Node) => {
    const name = nameOf(node);
    if (name) {
      const a = sf.getLineAndCharacterOfPosition(node.getStart()).line;
      const b = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      fns.push({ name, file: rel, lines: b - a + 1 });
    }
    // A query key written where a query is made (not in the query layer's factories).
    if (ts.isPropertyAssignment(node) && node.name.getText() === "queryKey" && !rel.startsWith("lib/queries/")) {
      queryKeys++;
      where.queryKeys.push(rel);
    }
    if (ts.isJsxOpeningElement(node) || ts.isJsxSelfClosingElement(node)) {
      const tag = node.tagName.getText();
      if (tag === "table" && !rel.startsWith("components/ui/")) {
        tables++;
        where.tables.push(rel);
      }
      if (tag === "button" && !rel.startsWith("components/ui/")) {
        buttons++;
        where.buttons.push(rel);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}

fns.sort((a, b) => b.lines - a.lines);
console.log("ten longest functions (non-test source):");
for (const f of fns.slice(0, 10)) console.log(`  ${String(f.lines).padStart(4)}  ${f.name}  ${f.file}`);
const count = (xs: string[]) =>
  Object.entries(xs.reduce<Record<string, number>>((m, x) => ((m[x] = (m[x] ?? 0) + 1), m), {}))
    .map(([f, n]) => `${f}×${n}`)
    .join(", ");
console.log(
  `ad-hoc query keys (queryKey outside lib/queries/): ${queryKeys}${queryKeys ? `  [${count(where.queryKeys)}]` : ""}`,
);
console.log(
  `tables not on DataTable (<table> outside components/ui/): ${tables}${tables ? `  [${count(where.tables)}]` : ""}`,
);
console.log(
  `buttons not on Button (<button> outside components/ui/): ${buttons}${buttons ? `  [${count(where.buttons)}]` : ""}`,
);
console.log(`functions over 80 lines: ${fns.filter((f) => f.lines > 80).length}`);
