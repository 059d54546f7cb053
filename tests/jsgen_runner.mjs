// Runs books' JavaScript modules under node for tests/test_jsgen.py: reads a JSON batch on stdin
// ({"examples": true, "constants": true, "tables": true, "calls": [{"mechanic", "args", "rolls",
// "seed"}]}) and writes the canonical results (rules_dsl/jsgen/canonical.py), with the counts of
// what the module defines and the milliseconds taken, as JSON on stdout.
// argv: FOLDER BOOK_ID (one book), or none: then stdin is {"jobs": [{"dir", "id", ...batch}]}.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const load = (dir, file) => import(pathToFileURL(join(dir, file)).href);

function outcome(R, thunk) {
  try {
    return R.canonical(thunk());
  } catch (e) {
    return [...R.canonicalError(e), String(e && e.message)];
  }
}

async function run(job) {
  const R = await load(job.dir, "runtime.mjs");
  const B = (await load(job.dir, `${job.id}.mjs`)).default;
  const out = { examples: [], calls: [], constants: {}, tables: {}, ms: 0,
    counts: { mechanics: B.mechanics.size, tables: B.tables.size, constants: B.constants.size, enums: B.enums.size, dice: B.dice.size } };
  const t0 = performance.now();
  if (job.examples) {
    const { cases } = await load(job.dir, `${job.id}.examples.mjs`);
    out.examples = cases.map((c) => outcome(R, () => B.evaluate(c)));
  }
  if (job.words) {   // names in words (runtime Words, the twin of rules_dsl/language/display.py and wording.py)
    const { cases } = await load(job.dir, `${job.id}.examples.mjs`);
    out.words = { values: [], answers: [], signatures: [] };
    cases.forEach((c, i) => {
      let v;
      try { v = B.evaluate(c); } catch (e) { out.words.values.push(null); out.words.answers.push(null); return; }
      out.words.values.push(B.words.value(v));
      const m = job.words.answer_of[i];
      out.words.answers.push(m ? B.answer(m, v, {}) : null);
    });
    for (const name of B.mechanics.keys()) {
      const sig = B.signature(name);
      out.words.signatures.push([name, { title: sig.title, result: sig.result, rollLabels: sig.rollLabels,
        params: sig.params.map((p) => [p.label, p.describeWords]) }]);
    }
    out.words.read = (job.words.read || []).map(([t, text]) => { const got = B.words.read(t, text); return got === undefined ? null : String(got); });
  }
  if (job.constants) for (const name of B.constants.keys()) out.constants[name] = outcome(R, () => B.constant(name));
  if (job.tables) for (const [name, t] of B.tables) out.tables[name] = outcome(R, () => t.rows());
  for (const c of job.calls || []) {
    const args = new Map(Object.entries(c.args).map(([k, v]) => [k, R.decode(v)]));
    const rolls = new Map(Object.entries(c.rolls || {}).map(([k, v]) => [k, R.decode(v)]));
    let made = null;
    const result = outcome(R, () => {
      const r = B.call(c.mechanic, args, { rolls, seed: c.seed });
      made = Object.fromEntries([...r.rolls].map(([k, v]) => [k, R.canonical(v)]));
      return r.result;
    });
    out.calls.push({ result, rolls: made });
  }
  out.ms = performance.now() - t0;
  return out;
}

const batch = JSON.parse(readFileSync(0, "utf-8"));
const [dir, id] = process.argv.slice(2);
if (dir) {
  process.stdout.write(JSON.stringify(await run({ ...batch, dir, id })));
} else {
  const jobs = [];
  for (const job of batch.jobs) jobs.push(await run(job));
  process.stdout.write(JSON.stringify({ jobs }));
}
