"""Benchmark run by hand (not a timed test): `python bench/bench_explain.py`.

Does `rules explain` slow plain calls?  The heaviest call of the books' worked
examples (the mechanic call whose explanation has the most steps, with the
arguments the example gives it) is timed as a plain call in two fresh processes:

* without: `rules_dsl.explain` never imported (as in `rules call`);
* with: (timed once before, as the in-process baseline, then) every worked example of every book explained first, so the module is
  imported and the traced twins of the mechanics are compiled and kept on the
  books; then the same plain call.

Prints the best of R repeats of N calls (per call, in microseconds) for both,
their ratio (goal: no measurable difference), and what one explanation of the
same call costs.  BENCH_RUNS sets N (default 2000).
"""
from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import tempfile

N = int(os.environ.get("BENCH_RUNS", "2000"))
R = 7

FIND = r"""
import pickle, sys, rules_dsl
from rules_dsl.loader import book_ids
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
import json, pickle, sys, timeit, rules_dsl
from rules_dsl.loader import book_ids
with open(sys.argv[1], "rb") as f:
    size, bid, name, args = pickle.load(f)
with_explain = sys.argv[2] == "with"
N, R = int(sys.argv[3]), int(sys.argv[4])
out = {}
if with_explain:        # the same process, before the module is imported: the in-process baseline
    b0 = rules_dsl.load(bid)
    m0 = b0.mechanics[name]
    m0(**args)
    out["before_us"] = min(timeit.repeat(lambda: m0(**args), number=N, repeat=R)) / N * 1e6
    assert "rules_dsl.explain" not in sys.modules
    for b in book_ids():
        book = rules_dsl.load(b)
        for rule_id, ex in book.example_cases():
            book.explain_example(rule_id, ex)
book = rules_dsl.load(bid)
m = book.mechanics[name]
m(**args)
t = min(timeit.repeat(lambda: m(**args), number=N, repeat=R)) / N
out.update({"plain_us": t * 1e6, "explain_loaded": "rules_dsl.explain" in sys.modules})
if with_explain:
    book.explain(name, **args)
    out["explain_us"] = min(timeit.repeat(lambda: book.explain(name, **args), number=max(1, N // 10), repeat=R)) / max(1, N // 10) * 1e6
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
        for mode in ("without", "with", "without", "with"):     # interleaved to share machine noise
            r = json.loads(run(TIME, spec, mode, str(N), str(R)))
            assert r["explain_loaded"] == (mode == "with")
            best = results.get(mode)
            if best is None or r["plain_us"] < best["plain_us"]:
                results[mode] = r
    a, b = results["without"]["plain_us"], results["with"]["plain_us"]
    print(f"plain call, explain machinery absent : {a:8.1f} us per call (best of {R} x {N})")
    print(f"plain call, explain machinery present: {b:8.1f} us per call (every example explained first)")
    print(f"ratio present/absent: {b / a:.3f}  (goal: no measurable difference)")
    w = results["with"]
    print(f"in one process: {w['before_us']:8.1f} us before explaining anything, {w['plain_us']:8.1f} us after "
          f"(ratio {w['plain_us'] / w['before_us']:.3f})")
    print(f"one explanation of the same call     : {results['with']['explain_us']:8.1f} us")


if __name__ == "__main__":
    main()
