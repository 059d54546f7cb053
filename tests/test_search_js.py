"""One definition of ranking: the site's search box and `rules lookup` agree.

The browser index is generated (`rules_dsl.sphinxext.search_index.build_data`) from the
CLI index's own per-book records (`index.book_entries`), and the ranking in
`static/rules_search.js` is a port of `Index.lookup`.  This test runs the queries a
player types (typos and everyday words included) through both, the JavaScript under
node, and checks that both put the same rule first.  The agreement table is printed
and saved (`search-agreement.md` in the test's tmp folder).
"""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from rules_dsl.sphinxext import search_index

NODE = shutil.which("node")
STATIC = Path(search_index.__file__).resolve().parent / "static"
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed (the site's search runs in JavaScript)")

#: what a player types mid-game: exact titles, typos, everyday words, ids
QUERIES = [
    "supression", "Suppression", "suppression", "dust-tactics:suppression", "under fire token", "victory points",
    "quality roll", "stimulants", "sprint", "overwach", "cover save", "morale", "jet pak", "heavy armor",
    "sidekik", "blutkreutz", "plasma gun", "injury table", "level up", "pinned down", "difficult terrain",
    "line of sight", "wepon stats", "hit wound save", "reanimate", "grenades", "dodge", "charge", "fall back",
    "reroll", "re-roll", "Ld",
]
#: queries where the two rankings are known to differ, with why (none today)
KNOWN_DIFFERENCES: dict = {}

RUNNER = r"""
const fs = require("fs");
const RulesSearch = require(process.argv[2]);
const text = fs.readFileSync(process.argv[3], "utf8");
const data = JSON.parse(text.slice("RulesSearchData(".length, -");\n".length));
const engine = RulesSearch.create(data);
const out = {};
for (const q of JSON.parse(fs.readFileSync(process.argv[4], "utf8"))) {
  out[q] = engine.search(q, {limit: 5}).map(r => [r.book + ":" + r.rule, r.score]);
}
process.stdout.write(JSON.stringify(out));
"""


def _browser_data():
    from rules_dsl import index
    from rules_dsl.loader import DEFAULT
    return search_index.build_data(index.book_entries(DEFAULT), lambda b, r: f"docs/books/{b}/x.html")


def run_js(tmp_path: Path, data: dict, queries) -> dict:
    (tmp_path / "index.js").write_text(search_index.dumps(data), encoding="utf-8")
    (tmp_path / "queries.json").write_text(json.dumps(list(queries)), encoding="utf-8")
    (tmp_path / "run.js").write_text(RUNNER, encoding="utf-8")
    proc = subprocess.run([NODE, str(tmp_path / "run.js"), str(STATIC / "rules_search.js"),
                           str(tmp_path / "index.js"), str(tmp_path / "queries.json")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_index_round_trips_and_holds_every_rule():
    data = _browser_data()
    assert data["fields"] == search_index.FIELDS
    assert search_index.loads(search_index.dumps(data)) == data
    from rules_dsl import index
    n = sum(len(e["records"]) for e in index.book_entries(__import__("rules_dsl.loader").loader.DEFAULT).values())
    assert len(data["rules"]) == n
    text = {(r[0], r[1]): r[7] for r in data["rules"]}
    # prose is plain text: references read as their labels, no markup left
    assert not any("[[" in t for t in text.values())


def test_browser_ranking_agrees_with_rules_lookup(tmp_path):
    from rules_dsl import index
    js = run_js(tmp_path, _browser_data(), QUERIES)
    idx = index.ensure_index()
    rows, differ = [], []
    for q in QUERIES:
        cli = [f"{r['book']}:{r['rule']}" for r in idx.lookup(q, limit=5)]
        site = [ref for ref, _ in js[q]]
        same = (cli[:1] == site[:1])
        rows.append(f"| `{q}` | {cli[0] if cli else '—'} | {site[0] if site else '—'} | {'yes' if same else 'NO'} |")
        if not same and q not in KNOWN_DIFFERENCES:
            differ.append((q, cli[:3], js[q][:3]))
    table = "| query | `rules lookup` first | site search first | same |\n|---|---|---|---|\n" + "\n".join(rows)
    (tmp_path / "search-agreement.md").write_text(table + "\n", encoding="utf-8")
    print(table)
    assert not differ, f"the site's search and `rules lookup` disagree: {differ}"
    assert js["dust-tactics:suppression"][0][0] == "dust-tactics:suppression"


def test_typos_and_ids_find_the_rule(tmp_path):
    js = run_js(tmp_path, _browser_data(), ["supression", "dust-tactics:suppression", "zzzzqqq"])
    assert js["supression"][0][0] == "dust-tactics:suppression"
    assert js["dust-tactics:suppression"][0] == ["dust-tactics:suppression", 100]
    assert js["zzzzqqq"] == []


def test_difflib_port_matches_python(tmp_path):
    """`ratio` in rules_search.js is difflib's SequenceMatcher(autojunk=False).ratio()."""
    from difflib import SequenceMatcher
    pairs = [("suppression", "supression"), ("overwatch", "overwach"), ("jet pack", "jet pak"),
             ("abcabcab", "bcabcabca"), ("blutkreuz", "blutkreutz"), ("aaaa", "aa"), ("", "x"),
             ("morale and panic", "moral"), ("sidekick", "sidekik"), ("weapon stats", "wepon stats")]
    script = ("const R = require(process.argv[1]);"
              f"process.stdout.write(JSON.stringify({json.dumps(pairs)}.map(p => [R.ratio(p[0], p[1]), R.quickRatio(p[0], p[1])])))")
    proc = subprocess.run([NODE, "-e", script, str(STATIC / "rules_search.js")], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    for (a, b), (r, qr) in zip(pairs, got):
        sm = SequenceMatcher(None, a, b, autojunk=False)
        assert r == pytest.approx(sm.ratio()) and qr == pytest.approx(sm.quick_ratio()), (a, b)
