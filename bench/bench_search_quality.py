"""How well search answers a player's question, in the terminal and in the browser.

    python bench/bench_search_quality.py            # the table, for the real books
    python bench/bench_search_quality.py --json     # every question's ranks, as JSON

The questions are tests/search_questions.json: what a player asks at the table, written
from the seed texts, each with every rule of our books that answers it (decided by
reading the rules, not from either tool's output).  For each question this runs
`rules lookup` (`Index.lookup`, limit 10) and the site's ranking (`rules_search.js`
under node, over the files the site build writes, fetching the shards the box would
fetch: `missing`, until none) and reports the rank of the first answering rule:
top-1 and top-3 are the share of questions answered first and in the first three.
tests/test_search_quality.py asserts the goal on the same numbers.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
QUESTIONS = REPO / "tests" / "search_questions.json"
AGREEMENT = REPO / "tests" / "search_agreement_queries.json"
STATIC = REPO / "rules_dsl" / "sphinxext" / "static"
LIMIT = 10

#: the head of a node script over the site's search files: `node run.js rules_search.js DIR
#: queries.json` gives `RulesSearch`, the names `data`, `shard(name)`, `queries` and `limit`
#: (tests/test_search_js.py starts its scripts with it too)
NODE_FILES = r"""
const fs = require("fs"), path = require("path");
const RulesSearch = require(process.argv[2]);
const dir = process.argv[3];
const unwrap = t => JSON.parse(t.slice(t.indexOf("(") + 1, -");\n".length));
const data = unwrap(fs.readFileSync(path.join(dir, "rules-search-index.js"), "utf8"));
const shard = id => unwrap(fs.readFileSync(path.join(dir, "rules-search", id + ".js"), "utf8"));
const [queries, limit] = JSON.parse(fs.readFileSync(process.argv[4], "utf8"));
"""
RUNNER = NODE_FILES + r"""
const out = {};
for (const q of queries) {
  const e = RulesSearch.create(data);
  let miss, rounds = 0;
  while ((miss = e.missing(q, {limit})).length && rounds++ < 10) miss.forEach(id => e.addShard(shard(id)));
  out[q] = e.search(q, {limit}).map(r => r.book + ":" + r.rule);
}
process.stdout.write(JSON.stringify(out));
"""


def questions() -> list:
    return json.loads(QUESTIONS.read_text(encoding="utf-8"))["questions"]


def cli_results(queries, limit=LIMIT) -> dict:
    """{query: [book:rule, ...]} from `rules lookup`'s ranking (the index of the current books)."""
    from rules_dsl.faces import index
    idx = index.ensure_index()
    return {q: [f"{r['book']}:{r['rule']}" for r in idx.lookup(q, limit=limit)] for q in queries}


def site_results(queries, limit=LIMIT, node=None) -> dict:
    """{query: [book:rule, ...]} from the site's ranking under node, over the site's search files."""
    from rules_dsl.faces import index_build
    from rules_dsl.library.loader import DEFAULT
    from rules_dsl.sphinxext import search_index
    node = node or shutil.which("node")
    if node is None:
        raise RuntimeError("node is not installed: the site's ranking runs in JavaScript")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        files = search_index.build_data(index_build.book_entries(DEFAULT), lambda b, r: f"docs/books/{b}/x.html")
        search_index.write_files(tmp, *files)
        (tmp / "queries.json").write_text(json.dumps([list(queries), limit]), encoding="utf-8")
        (tmp / "run.js").write_text(RUNNER, encoding="utf-8")
        proc = subprocess.run([node, str(tmp / "run.js"), str(STATIC / "rules_search.js"), str(tmp),
                               str(tmp / "queries.json")], capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            raise RuntimeError(proc.stderr)
        return json.loads(proc.stdout)


def rank(results: list, answers) -> int | None:
    """1-based rank of the first answering rule, None when none of the results answers."""
    for i, ref in enumerate(results, 1):
        if ref in answers:
            return i
    return None


def measure(node=None) -> dict:
    """{"questions": [{q, answers, cli, site, cli_rank, site_rank}], "cli": {top1, top3}, "site": {...}}."""
    qs = questions()
    queries = [q["q"] for q in qs]
    cli, site = cli_results(queries), site_results(queries, node=node)
    rows = []
    for q in qs:
        rows.append({"q": q["q"], "answers": q["answers"], "cli": cli[q["q"]], "site": site[q["q"]],
                     "cli_rank": rank(cli[q["q"]], q["answers"]), "site_rank": rank(site[q["q"]], q["answers"])})
    n = len(rows)

    def share(key, k):
        return sum(1 for r in rows if r[key] is not None and r[key] <= k) / n
    return {"questions": rows, "n": n,
            "cli": {"top1": share("cli_rank", 1), "top3": share("cli_rank", 3)},
            "site": {"top1": share("site_rank", 1), "top3": share("site_rank", 3)}}


def agreement(node=None, k=3) -> dict:
    """The recorded queries (tests/search_agreement_queries.json) through both rankings:
    {"n", "same": how many give the same top k, "differ": [(query, cli top k, site top k)]}."""
    queries = json.loads(AGREEMENT.read_text(encoding="utf-8"))["queries"]
    cli, site = cli_results(queries, limit=k), site_results(queries, limit=k, node=node)
    differ = [(q, cli[q][:k], site[q][:k]) for q in queries if cli[q][:k] != site[q][:k]]
    return {"n": len(queries), "same": len(queries) - len(differ), "differ": differ}


def table(m: dict) -> str:
    lines = [f"{m['n']} questions", "", "| | top-1 | top-3 |", "|---|---|---|"]
    for key, name in (("cli", "`rules lookup`"), ("site", "site box")):
        lines.append(f"| {name} | {m[key]['top1']:.0%} ({round(m[key]['top1'] * m['n'])}) "
                     f"| {m[key]['top3']:.0%} ({round(m[key]['top3'] * m['n'])}) |")
    lines += ["", "| question | CLI rank | site rank | CLI first | site first |", "|---|---|---|---|---|"]
    for r in m["questions"]:
        lines.append(f"| {r['q']} | {r['cli_rank'] or '—'} | {r['site_rank'] or '—'} | "
                     f"{r['cli'][0] if r['cli'] else '—'} | {r['site'][0] if r['site'] else '—'} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--agreement", action="store_true", help="also: the recorded queries' top 3 in both rankings")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(REPO))
    m = measure()
    print(json.dumps(m, indent=1) if args.json else table(m))
    if args.agreement:
        a = agreement()
        print(f"\nsame top 3 in `rules lookup` and the site box: {a['same']} of {a['n']} recorded queries")
        for q, c, s in a["differ"]:
            print(f"  {q!r}: CLI {c}, site {s}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
