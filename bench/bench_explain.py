"""Benchmark run by hand (not a timed test): `python bench/bench_explain.py`.

Does `rules explain` slow plain calls?  The heaviest call of the books' worked
examples (the mechanic call whose explanation has the most steps, with the
arguments the example gives it) is timed as a plain call in two fresh processes:

Both load every book and run every worked example plainly first (the same heap).

* without: `rules_dsl.evaluation.explain` never imported (as in `rules call`);
* with: timed once (the in-process baseline), then every worked example of
  every book explained, so the module is imported and the traced twins of the
  mechanics are compiled and kept on the books; then the same plain call again.

Prints the best of R repeats of N calls (per call, in microseconds of the
process's CPU time, so that other processes on a shared machine count less) for both,
their ratio (goal: no measurable difference), and what one explanation of the
same call costs.  BENCH_RUNS sets N (default 500), BENCH_PAIRS the number of
interleaved process pairs (default 3); the best process of each kind counts.
"""
from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import tempfile

N = int(os.environ.get("BENCH_RUNS", "500"))
R = 21          # many short repeats: the best of them is the least disturbed by a busy machine
PAIRS = int(os.environ.get("BENCH_PAIRS", "3"))

FIND = r"""
import pickle, sys, rules_dsl
from rules_dsl.library.loader import book_ids
best = None
for bid in book_ids():
    book = rules_dsl.load(bid)
    for rule_id, ex in book.example_cases():
        for x in book.explain_example(rule_id, ex):
            for st in x.steps:
                if st.step == "call":
                    size = sum(1 for _ in st.walk())
                    if best is None or size > best[0]:
                        best = (size, bid, st.detail["name"], st.args)
with open(sys.argv[1], "wb") as f:
    pickle.dump(best, f)
"""

TIME = r"""
import json, pickle, sys, time, timeit, rules_dsl
from rules_dsl.library.loader import book_ids
with open(sys.argv[1], "rb") as f:
    size, bid, name, args = pickle.load(f)
with_explain = sys.argv[2] == "with"
N, R = int(sys.argv[3]), int(sys.argv[4])
books = [rules_dsl.load(b) for b in book_ids()]
for b in books:                 # the same work in both kinds of process: every book loaded, every example run
    b.run_examples()
book = rules_dsl.load(bid)
m = book.mechanics[name]
m(**args)


def best():
    return min(timeit.repeat(lambda: m(**args), number=N, repeat=R, timer=time.process_time)) / N * 1e6


out = {"before_us": best()}     # in this process, before the explain module is imported
assert "rules_dsl.evaluation.explain" not in sys.modules
if with_explain:
    for b in books:
        for rule_id, ex in b.example_cases():
            b.explain_example(rule_id, ex)
out.update({"plain_us": best(), "explain_loaded": "rules_dsl.evaluation.explain" in sys.modules})
if with_explain:
    book.explain(name, **args)
    k = max(1, N // 10)
    out["explain_us"] = min(timeit.repeat(lambda: book.explain(name, **args), number=k, repeat=R,
                                          timer=time.process_time)) / k * 1e6
print(json.dumps(out))
"""


def run(code, *args):
    p = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=False)
    if p.returncode:
        sys.exit(p.stderr)
    return p.stdout


def main():
    with tempfile.TemporaryDirectory() as tmp:
        spec = os.path.join(tmp, "call.pickle")
        run(FIND, spec)
        with open(spec, "rb") as f:
            size, bid, name, args = pickle.load(f)
        shown = ", ".join(f"{k}={v!s}" for k, v in args.items())
        print(f"heaviest example call: {bid}:{name}({shown}) ({size} steps explained)")
        results = {}
        for mode in ("without", "with") * PAIRS:     # interleaved to share machine noise
            r = json.loads(run(TIME, spec, mode, str(N), str(R)))
            assert r["explain_loaded"] == (mode == "with")
            best = results.get(mode)
            if best is None or r["plain_us"] < best["plain_us"]:
                results[mode] = r
            if mode == "with":
                results["before_us"] = min(results.get("before_us", r["before_us"]), r["before_us"])
            else:
                results["control_before"] = min(results.get("control_before", r["before_us"]), r["before_us"])
    a, b = results["without"]["plain_us"], results["with"]["plain_us"]
    print(f"plain call, explain machinery absent : {a:8.1f} us per call (best of {R} x {N})")
    print(f"plain call, explain machinery present: {b:8.1f} us per call (every example explained first)")
    print(f"ratio present/absent: {b / a:.3f}  (goal: no measurable difference)")
    w = results["with"]
    print(f"in one process: {results['before_us']:8.1f} us before explaining anything, {w['plain_us']:8.1f} us after "
          f"(ratio {w['plain_us'] / results['before_us']:.3f})")
    print(f"control, a process that never explains timed twice: {results['control_before']:8.1f} us, then "
          f"{a:8.1f} us (ratio {a / results['control_before']:.3f}: the noise of timing twice)")
    print(f"one explanation of the same call     : {results['with']['explain_us']:8.1f} us")


if __name__ == "__main__":
    main()
