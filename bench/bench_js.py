"""Benchmark run by hand (not a timed test): `python bench/bench_js.py`.

For every book of rulebooks/: the size of its JavaScript module (rules_dsl/jsgen) and of the
shared runtime, in bytes and gzipped (level 9); the mechanics it defines; and the time node
takes to run every worked example of the book (inside node, after loading; and the whole
process, start-up and module loading included), the median of BENCH_RUNS runs.
"""
from __future__ import annotations

import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
N = int(os.environ.get("BENCH_RUNS", "5"))


def main():
    import rules_dsl
    from rules_dsl import jsgen

    lib = rules_dsl.Library(REPO / "rulebooks")
    out = Path(tempfile.mkdtemp(prefix="bench-js-"))
    rows, total_node, total_wall = [], 0.0, 0.0
    for bid in lib.book_ids():
        book = lib.load(bid)
        paths = jsgen.write(book, str(out), examples=True)
        data = Path(paths["book"]).read_bytes()
        cases = sum(len(ex.cases) for _, ex in book.example_cases())
        inside, wall = [], []
        for _ in range(N):
            t = time.perf_counter()
            p = subprocess.run(["node", str(REPO / "tests" / "jsgen_runner.mjs"), str(out), bid],
                               input=json.dumps({"examples": True}), capture_output=True, text=True, check=True)
            wall.append(time.perf_counter() - t)
            inside.append(json.loads(p.stdout)["ms"])
        node_ms, wall_ms = statistics.median(inside), statistics.median(wall) * 1000
        total_node += node_ms
        total_wall += wall_ms
        rows.append((bid, len(data), len(gzip.compress(data, 9)), len(book.mechanics), cases, node_ms, wall_ms))
    runtime = Path(out / "runtime.mjs").read_bytes()
    print(f"{'book':<20} {'bytes':>8} {'gzip':>7} {'mechanics':>9} {'examples':>8} {'node ms':>8} {'process ms':>10}")
    for r in rows:
        print(f"{r[0]:<20} {r[1]:>8,} {r[2]:>7,} {r[3]:>9} {r[4]:>8} {r[5]:>8.0f} {r[6]:>10.0f}")
    print(f"{'runtime.mjs':<20} {len(runtime):>8,} {len(gzip.compress(runtime, 9)):>7,}")
    print(f"all examples: {sum(r[4] for r in rows)} in {total_node:.0f} ms inside node, "
          f"{total_wall:.0f} ms for the {len(rows)} node processes")


if __name__ == "__main__":
    main()
