"""The browser search at scale (run by hand, not a test).

    python bench/bench_search.py            # N = 6 (the real books) and 100
    python bench/bench_search.py -n 25

For each N, a library of N books made by bench_scale.make_library, its browser search
data made as the site build makes it (`search_index.build_data` over
`index_build.book_entries`, a fake page per book), and reported:

* the names file and the filters file (raw and gzip);
* the shards (total, and per book the median and the largest, raw and gzip);
* the time to make every book's part, with an empty cache, again with the cache warm,
  and after one book changed (`book_parts`, the costly step of `write_index`);
* under node, for the player queries: the time to build the engine from the names
  file, and per query how many shards (and gzip bytes) the box fetches (`missing`:
  none when the names alone settle the list), what it fetches when the names do not
  (books and terms files: as for a list longer than the names fill), and the median
  time of a query once they are in.
"""
from __future__ import annotations

import argparse
import copy
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from bench_scale import make_library  # noqa: E402

from rules_dsl.faces import index_build  # noqa: E402
from rules_dsl.library.loader import Library  # noqa: E402
from rules_dsl.sphinxext import search_index  # noqa: E402

QUERIES = ["supression", "Suppression", "under fire token", "victory points", "quality roll", "stimulants",
           "sprint", "overwach", "cover save", "jet pak", "wepon stats", "hit wound save", "blutkreutz",
           "reanimate", "roll"]
TIMER = r"""
const fs = require("fs"), path = require("path");
const RulesSearch = require(process.argv[2]);
const dir = process.argv[3];
const unwrap = t => JSON.parse(t.slice(t.indexOf("(") + 1, -");\n".length));
const text = fs.readFileSync(path.join(dir, "rules-search-index.js"), "utf8");
const shard = id => unwrap(fs.readFileSync(path.join(dir, "rules-search", id + ".js"), "utf8"));
let t = process.hrtime.bigint();
const data = unwrap(text);
const engine = RulesSearch.create(data);
const build = Number(process.hrtime.bigint() - t) / 1e6;
const per = {}, times = [];
for (const q of JSON.parse(process.argv[4])) {
  const e = RulesSearch.create(data);
  t = process.hrtime.bigint(); e.search(q, {limit: 8});
  const names = Number(process.hrtime.bigint() - t) / 1e6;
  const miss = [];     // what the box fetches, stage by stage (filters, then books and terms files)
  let more;
  while ((more = e.missing(q, {limit: 8})).length) { more.forEach(id => e.addShard(shard(id))); miss.push(...more); }
  e.search(q, {limit: 8});        // analyses the shards fetched
  const qt = [];
  for (let round = 0; round < 3; round++) { t = process.hrtime.bigint(); e.search(q, {limit: 8}); qt.push(Number(process.hrtime.bigint() - t) / 1e6); }
  qt.sort((a, b) => a - b); times.push(qt[1]);
  // what the box fetches when the names do not settle the list (as with a longer list)
  const full = RulesSearch.create(data), admitted = [];
  let m;
  while ((m = full.missing(q, {limit: 1e9})).length) { m.forEach(id => full.addShard(shard(id))); admitted.push(...m); }
  per[q] = {shards: miss.length, names_ms: +names.toFixed(1), ms: +qt[1].toFixed(1), books: miss,
            admitted: admitted};
}
times.sort((a, b) => a - b);
process.stdout.write(JSON.stringify({build_ms: +build.toFixed(1), query_median_ms: times[times.length >> 1], queries: per}));
"""


def _sizes(text: str):
    b = text.encode()
    return len(b), len(gzip.compress(b, 9))


def measure(books: Path, cache: Path, tmp: Path) -> dict:
    entries = index_build.book_entries(Library(str(books), str(cache)))
    store = tmp / f"parts-{len(entries)}"
    t = time.perf_counter()
    parts = search_index.book_parts(entries, store)
    cold = time.perf_counter() - t
    t = time.perf_counter()
    search_index.book_parts(entries, store)
    warm = time.perf_counter() - t
    changed = copy.deepcopy(entries)
    changed[sorted(changed)[0]]["records"][0]["text"] += " One more sentence."
    t = time.perf_counter()
    search_index.book_parts(changed, store)
    one = time.perf_counter() - t
    data, shards = search_index.build_files(parts, lambda b, r: f"docs/books/{b}/section.html")
    out_dir = tmp / f"static-{len(entries)}"
    search_index.write_files(out_dir, data, shards)
    first = _sizes(search_index.dumps(data))
    sh = {b: _sizes(search_index.dumps_shard(s)) for b, s in shards.items()}
    terms = {b: x for b, x in sh.items() if "/" in b}
    sh_books = {b: x for b, x in sh.items() if "/" not in b and b != search_index.FILTERS}
    out = {"books": len(data["books"]), "rules": len(data["rules"]),
           "names_file": {"bytes": first[0], "gzip_bytes": first[1]},
           "filters_file": {"bytes": sh[search_index.FILTERS][0], "gzip_bytes": sh[search_index.FILTERS][1]},
           "shards": {"bytes": sum(x[0] for x in sh_books.values()),
                      "gzip_bytes": sum(x[1] for x in sh_books.values()),
                      "per_book_median": [statistics.median(x[0] for x in sh_books.values()),
                                          statistics.median(x[1] for x in sh_books.values())],
                      "per_book_max": [max(x[0] for x in sh_books.values()), max(x[1] for x in sh_books.values())]},
           "terms_files": {"files": len(terms), "bytes": sum(x[0] for x in terms.values()),
                           "gzip_bytes": sum(x[1] for x in terms.values()),
                           "max": [max(x[0] for x in terms.values()), max(x[1] for x in terms.values())]},
           "book_parts_s": {"cold": round(cold, 3), "warm": round(warm, 3), "one_book_changed": round(one, 3)}}
    node = shutil.which("node")
    if node:
        (tmp / "timer.js").write_text(TIMER, encoding="utf-8")
        proc = subprocess.run([node, str(tmp / "timer.js"), str(REPO / "rules_dsl/sphinxext/static/rules_search.js"),
                               str(out_dir), json.dumps(QUERIES)], capture_output=True, text=True, check=True)
        res = json.loads(proc.stdout)
        for r in res["queries"].values():
            r["gzip_bytes"] = sum(sh[b][1] for b in r.pop("books"))
            admitted = r.pop("admitted")
            r["admitted_books"] = sum(1 for b in admitted if b in sh_books)
            r["admitted_terms_files"] = sum(1 for b in admitted if "/" in b)
            r["admitted_gzip_bytes"] = sum(sh[b][1] for b in admitted)
        out.update(res)
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
