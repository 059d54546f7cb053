// Runs one book's JavaScript module under node for tests/test_jsgen.py: reads a JSON batch on
// stdin ({"examples": true, "constants": true, "tables": true, "calls": [{"mechanic", "args", "rolls",
// "seed"}]}), writes the canonical results (rules_dsl/jsgen/canonical.py) and the counts of what
// the module defines as JSON on stdout.  argv: folder, book id.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [dir, id] = process.argv.slice(2);
const R = await import(pathToFileURL(join(dir, "runtime.mjs")).href);
const B = (await import(pathToFileURL(join(dir, `${id}.mjs`)).href)).default;
const batch = JSON.parse(readFileSync(0, "utf-8"));

function outcome(thunk) {
  try {
    return R.canonical(thunk());
  } catch (e) {
    return [...R.canonicalError(e), String(e && e.message)];
  }
}

const out = { examples: [], calls: [], constants: {}, tables: {}, ms: 0,
  counts: { mechanics: B.mechanics.size, tables: B.tables.size, constants: B.constants.size, enums: B.enums.size, dice: B.dice.size } };
const t0 = performance.now();
if (batch.examples) {
  const { cases } = await import(pathToFileURL(join(dir, `${id}.examples.mjs`)).href);
  out.examples = cases.map((c) => outcome(() => B.evaluate(c)));
}
if (batch.constants) for (const name of B.constants.keys()) out.constants[name] = outcome(() => B.constant(name));
if (batch.tables) for (const [name, t] of B.tables) out.tables[name] = outcome(() => t.rows());
for (const c of batch.calls || []) {
  const args = new Map(Object.entries(c.args).map(([k, v]) => [k, R.decode(v)]));
  const rolls = new Map(Object.entries(c.rolls || {}).map(([k, v]) => [k, R.decode(v)]));
  let made = null;
  const result = outcome(() => {
    const r = B.call(c.mechanic, args, { rolls, seed: c.seed });
    made = Object.fromEntries([...r.rolls].map(([k, v]) => [k, R.canonical(v)]));
    return r.result;
  });
  out.calls.push({ result, rolls: made });
}
out.ms = performance.now() - t0;
process.stdout.write(JSON.stringify(out));
