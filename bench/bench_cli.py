"""Benchmarks run by hand (not timed tests): `python bench/bench_cli.py`.

Prints
* `rules lookup Suppression`, cold process, median of N runs, as a ratio to
  `python -c pass` measured in the same run (goal <= 2.0);
* compile time of every book from source with no cache (parse + check + compile),
  in a fresh process, with the per-book split (goal <= 1 s for Null Strike).
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

N = int(os.environ.get("BENCH_RUNS", "21"))


def cold(cmd, env):
    times = []
    for _ in range(N):
        t = time.perf_counter()
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    env = dict(os.environ)
    import sysconfig
    rules = os.path.join(sysconfig.get_path("scripts"), "rules")  # the console script itself, not a shell shim
    if not os.path.exists(rules):
        sys.exit("install the project first (see README)")
    subprocess.run([rules, "lookup", "Suppression"], env=env, stdout=subprocess.DEVNULL)  # warm the index
    # interleave to share machine noise fairly
    base = cold([sys.executable, "-c", "pass"], env)
    look = cold([rules, "lookup", "Suppression"], env)
    base2 = cold([sys.executable, "-c", "pass"], env)
    base = min(base, base2)
    print(f"python -c pass          median {base * 1000:7.1f} ms  (N={N})")
    print(f"rules lookup Suppression median {look * 1000:7.1f} ms  ratio {look / base:.2f}  (goal <= 2.0)")

    code = r"""
import json, time
t0 = time.perf_counter()
from rules_dsl.parser import lark_parser
lark_parser()
t1 = time.perf_counter()
from rules_dsl.loader import book_ids, compile_book
from rules_dsl.errors import RulebookError
per = {}
for b in book_ids():
    s = time.perf_counter()
    try:
        compile_book(b, use_cache=False)
    except RulebookError as e:
        print("# " + b + " does not compile: " + e.first_line())
        continue
    per[b] = time.perf_counter() - s
print(json.dumps({"grammar": t1 - t0, "books": per, "total": time.perf_counter() - t0}))
"""
    with tempfile.TemporaryDirectory() as tmp:
        env2 = dict(env, RULES_DSL_CACHE=tmp)
        out = subprocess.run([sys.executable, "-c", code], env=env2, capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith("#"):
            print(line)
    data = json.loads(out.splitlines()[-1])
    print(f"compile all books from source, no cache: {data['total'] * 1000:.0f} ms "
          f"(grammar build {data['grammar'] * 1000:.0f} ms)")
    for b, s in data["books"].items():
        print(f"  {b:<16} {s * 1000:7.0f} ms")


if __name__ == "__main__":
    main()
