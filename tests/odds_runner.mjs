// Runs the browser's exact-odds engine (rules_dsl/jsgen/odds.js, odds.mjs) under node for
// tests/test_odds_js.py: reads {"jobs": [{"dir", "id", "cases": [{"mechanic", "inputs", "rolls",
// "budget"}]}]} on stdin (inputs in the tagged canonical form, rules_dsl/jsgen/canonical.py) and
// writes, per case, {"outcomes": [[canonical value, "p/q"]], "mean", "exact", "evaluations",
// "explode_caps", "ms"} or {"error": [kind, message]} as JSON on stdout.  With "view": the folder
// of the site's static scripts: each case also gets "law", the law as a form shows it
// (rules_odds.mjs lawOf), and a job's "percents" ([[p, q]]) come back as percentText writes them.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const load = (dir, file) => import(pathToFileURL(join(dir, file)).href);
const fracText = (q) => (typeof q === "bigint" ? `${q}/1` : `${q.n}/${q.d}`);

async function run(job) {
  const R = await load(job.dir, "runtime.mjs");
  const O = await load(job.dir, "odds.mjs");
  const { plans } = await load(job.dir, `${job.id}.odds.mjs`);
  const view = job.view ? await load(job.view, "rules_odds.mjs") : null;
  const canonical = (v) => (v instanceof O.OrMore ? ["or_more", R.canonical(v.n), v.up] : R.canonical(v));
  const out = [];
  for (const c of job.cases) {
    const inputs = new Map(Object.entries(c.inputs || {}).map(([k, v]) => [k, R.decode(v)]));
    const rolls = new Map(Object.entries(c.rolls || {}).map(([k, v]) => [k, R.decode(v)]));
    const t0 = performance.now();
    try {
      const d = O.distribution(plans, c.mechanic, inputs, { rolls, maxEvaluations: c.budget === undefined ? null : c.budget, budget: { seconds: null, ...(c.limits || {}) } });
      out.push({ outcomes: d.outcomes.map((o) => [canonical(o.value), fracText(o.p)]), mean: d.mean === null ? null : fracText(d.mean),
        exact: d.exact, evaluations: d.evaluations, explode_caps: d.explodeCaps.map((x) => [x.roll, x.cap, fracText(x.p)]),
        ms: performance.now() - t0, ...(view ? { law: view.lawOf(R, O, plans.book, d) } : {}) });
    } catch (e) {
      if (!(e instanceof R.RulesError)) out.push({ error: ["JS", String(e && e.stack || e)] });
      else out.push({ error: [e.kind, e.message], ms: performance.now() - t0 });
    }
  }
  if (view && job.percents) return { cases: out, percents: job.percents.map(([n, d]) => view.percentText(BigInt(n), BigInt(d))) };
  return out;
}

const batch = JSON.parse(readFileSync(0, "utf-8"));
const results = [];
for (const job of batch.jobs) results.push(await run(job));
process.stdout.write(JSON.stringify({ jobs: results }));
