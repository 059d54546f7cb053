"""The browser search at scale (run by hand, not a test).

    python bench/bench_search.py            # N = 6 (the real books) and 100
    python bench/bench_search.py -n 25

For each N, a library of N books made by bench_scale.make_library, its browser index
made as the site build makes it (`search_index.build_data` over `index.book_entries`),
and reported: the index file's size (raw and gzip), and under node the time to build
the search engine from it and the median time of a query (typos included).  Needs node
for the timings.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from bench_scale import make_library  # noqa: E402

from rules_dsl import index  # noqa: E402
from rules_dsl.loader import Library  # noqa: E402
from rules_dsl.sphinxext import search_index  # noqa: E402

QUERIES = ["supression", "Suppression", "under fire token", "victory points", "quality roll", "stimulants",
           "sprint", "overwach", "cover save", "jet pak", "wepon stats", "hit wound save"]
TIMER = r"""
const fs = require("fs");
const RulesSearch = require(process.argv[2]);
const text = fs.readFileSync(process.argv[3], "utf8");
let t = process.hrtime.bigint();
const engine = RulesSearch.create(JSON.parse(text.slice("RulesSearchData(".length, -");\n".length)));
const build = Number(process.hrtime.bigint() - t) / 1e6;
const times = [];
for (let round = 0; round < 3; round++) for (const q of JSON.parse(process.argv[4])) {
  t = process.hrtime.bigint(); engine.search(q, {limit: 8}); times.push(Number(process.hrtime.bigint() - t) / 1e6);
}
times.sort((a, b) => a - b);
process.stdout.write(JSON.stringify({build_ms: build, query_median_ms: times[times.length >> 1],
                                     query_max_ms: times[times.length - 1]}));
"""


def measure(books: Path, cache: Path, tmp: Path) -> dict:
    entries = index.book_entries(Library(str(books), str(cache)))
    data = search_index.build_data(entries, lambda b, r: f"docs/books/{b}/section.html")
    text = search_index.dumps(data).encode()
    out = {"books": len(data["books"]), "rules": len(data["rules"]), "bytes": len(text),
           "gzip_bytes": len(gzip.compress(text, 9))}
    node = shutil.which("node")
    if node:
        f = tmp / "index.js"
        f.write_bytes(text)
        (tmp / "timer.js").write_text(TIMER)
        proc = subprocess.run([node, str(tmp / "timer.js"), str(REPO / "rules_dsl/sphinxext/static/rules_search.js"),
                               str(f), json.dumps(QUERIES)], capture_output=True, text=True, check=True)
        out.update(json.loads(proc.stdout))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, action="append")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        for n in args.n or [6, 100]:
            books = REPO / "rulebooks" if n == 6 else make_library(n, tmp / f"books-{n}")
            os.environ["RULES_DSL_BOOKS"] = str(books)
            row = measure(books, tmp / f"cache-{n}", tmp)
            print(json.dumps({"n": n, **row}), flush=True)


if __name__ == "__main__":
    main()
