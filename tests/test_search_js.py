"""One definition of ranking: the site's search box and `rules lookup` agree.

The browser index is generated (`rules_dsl.sphinxext.search_index.build_data`) from the
CLI index's own per-book records (`index.book_entries`), and the ranking in
`static/rules_search.js` is a port of `Index.lookup`.  This test runs the queries a
player types (typos and everyday words included) through both, the JavaScript under
node, and checks that both put the same rule first.  The agreement table is printed
and saved (`search-agreement.md` in the test's tmp folder).

The browser data is split (a names file, a full-text shard per book, loaded as a
query needs them): the tests here also check that the split ranks exactly as the whole
index does, that the per-book filters never skip a book that matches, and that each
book's part is cached and each file rewritten only when it changes.
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
const fs = require("fs"), path = require("path");
const RulesSearch = require(process.argv[2]);
const dir = process.argv[3];
const unwrap = t => JSON.parse(t.slice(t.indexOf("(") + 1, -");\n".length));
const data = unwrap(fs.readFileSync(path.join(dir, "rules-search-index.js"), "utf8"));
const shard = id => unwrap(fs.readFileSync(path.join(dir, "rules-search", id + ".js"), "utf8"));
const [queries, limit] = JSON.parse(fs.readFileSync(process.argv[4], "utf8"));
// every shard loaded: the whole library's index, as before the split
const all = RulesSearch.create(data);
data.books.forEach(b => all.addShard(shard(b[0])));
const out = {all: {}, lazy: {}, loaded: {}, names: {}};
for (const q of queries) {
  out.all[q] = all.search(q, {limit}).map(r => [r.book + ":" + r.rule, r.score]);
  // as the box does it: the names first, then only the shards `missing` names
  const lazy = RulesSearch.create(data);
  out.names[q] = lazy.search(q, {limit}).map(r => [r.book + ":" + r.rule, r.score]);
  let miss, loaded = [];
  while ((miss = lazy.missing(q, {limit})).length) { miss.forEach(id => lazy.addShard(shard(id))); loaded.push(...miss); }
  out.lazy[q] = lazy.search(q, {limit}).map(r => [r.book + ":" + r.rule, r.score]);
  out.loaded[q] = loaded;
}
all._index();
out.natural = all.natural;
process.stdout.write(JSON.stringify(out));
"""


def _browser_data(cache_dir=None):
    from rules_dsl import index
    from rules_dsl.loader import DEFAULT
    return search_index.build_data(index.book_entries(DEFAULT), lambda b, r: f"docs/books/{b}/x.html", cache_dir)


def run_js(tmp_path: Path, files, queries, limit=5) -> dict:
    """Each query through rules_search.js under node: `all` (every shard loaded), `names`
    (the names file alone), `lazy` (the shards `missing` asks for, as the box loads them)
    and `loaded` (which those were); `natural` is MiniSearch's own statistics over all."""
    search_index.write_files(tmp_path, *files)
    (tmp_path / "queries.json").write_text(json.dumps([list(queries), limit]), encoding="utf-8")
    (tmp_path / "run.js").write_text(RUNNER, encoding="utf-8")
    proc = subprocess.run([NODE, str(tmp_path / "run.js"), str(STATIC / "rules_search.js"),
                           str(tmp_path), str(tmp_path / "queries.json")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_index_round_trips_and_holds_every_rule():
    from rules_dsl import index
    from rules_dsl.loader import DEFAULT
    data, shards = _browser_data()
    assert data["v"] == search_index.VERSION
    assert search_index.loads(search_index.dumps(data)) == data
    for shard in shards.values():
        assert search_index.loads_shard(search_index.dumps_shard(shard)) == shard
    entries = index.book_entries(DEFAULT)
    n = sum(len(e["records"]) for e in entries.values())
    assert len(data["rules"]) == n == data["stats"]["n"]
    books = {name: s for name, s in shards.items() if "/" not in name and name != search_index.FILTERS}
    assert [b[0] for b in data["books"]] == sorted(books)
    # the filters: one per book, in the names file's order
    filters = shards[search_index.FILTERS]
    assert len(filters["filters"]) == len(data["books"]) and all(f[0] % 8 == 0 for f in filters["filters"])
    assert (filters["k"], filters["cap"]) == (search_index.BLOOM_K, search_index.BLOOM_CAP)
    # the terms files: each word's document frequencies, summed over the books
    terms = {name: s for name, s in shards.items() if name.startswith(search_index.TERMS_DIR + "/")}
    assert set(shards) == set(books) | set(terms) | {search_index.FILTERS}
    df = {t: c for s in terms.values() for t, c in s["df"].items()}
    assert all(t[0] == name[-1] for name, s in terms.items() for t in s["df"])
    supp = [row for b in books.values() for row in b["rules"] if "suppression" in row[0].lower()]
    assert df["suppression"][2] >= len(supp) > 0
    assert data["termfiles"] == "".join(sorted(name[-1] for name in terms))
    for bi, (bid, _title, count) in enumerate(data["books"]):
        assert count == len(shards[bid]["rules"]) == sum(1 for r in data["rules"] if r[0] == bi)
    # names only in the first file: no prose; each page and section path stored once
    assert len(data["pages"]) == len(set(data["pages"])) and len(data["sections"]) == len(set(data["sections"]))
    # a rule id is "" exactly when it is its title's slug
    ids = [(e["records"][k]["rule"], e["records"][k]["title"]) for e in entries.values() for k in range(len(e["records"]))]
    assert [r[1] or search_index.slug(r[2]) for r in data["rules"]] == [rid for rid, _ in ids]
    assert any(r[1] == "" for r in data["rules"]) and any(r[1] for r in data["rules"])
    # prose is plain text: references read as their labels, no markup left
    assert not any("[[" in row[0] for s in books.values() for row in s["rules"])


def test_every_word_of_a_book_passes_its_filter():
    """The Bloom filters have no false negatives (else the box would skip a shard that
    matches), and they do leave books out (else they would be useless)."""
    from rules_dsl import index
    from rules_dsl.loader import DEFAULT
    parts = search_index.book_parts(index.book_entries(DEFAULT))
    filters = {bid: p["filter"] for bid, p in parts.items()}
    for bid, part in parts.items():
        words = set()
        for (_, _, title, _, aliases), row in zip(part["names"], part["shard"]):
            fields = search_index.documents(title, aliases, row[3:], row[0], row[1], row[2])
            words.update(search_index.process_term(t) for f in fields for t in search_index.tokenize(f))
        for p in search_index.prefixes(words):
            assert search_index.bloom_has(filters[bid], p), (bid, p)
    assert not all(search_index.bloom_has(f, "blutkreutz") for f in filters.values())


def test_shards_load_only_where_needed_and_rank_as_the_whole_index(tmp_path):
    """Exactness of the split: for every query, the names plus the shards `missing` asks
    for rank exactly as every shard loaded; the statistics in the names file are
    MiniSearch's own over all rules; a typo of a title needs no shard; a rare word loads
    only the books that hold it."""
    js = run_js(tmp_path, _browser_data(), QUERIES + ["roll", "a", "under fire", "reanim", "tok", "zzzzqqq"], limit=8)
    for q in js["all"]:
        assert js["lazy"][q] == js["all"][q], q
    data = search_index.loads((tmp_path / search_index.FILENAME).read_text(encoding="utf-8"))
    assert js["natural"]["n"] == data["stats"]["n"]
    assert js["natural"]["avg"] == data["stats"]["avg"]
    ids = {row[0] for row in data["books"]}
    # a typo of a title: no book's text needed (at most the filters, to learn that)
    assert js["names"]["supression"][0][0] == "dust-tactics:suppression"
    assert [b for b in js["loaded"]["supression"] if b in ids] == []
    rare = [b for b in js["loaded"]["blutkreutz"] if b in ids]
    assert rare and len(rare) < len(data["books"])
    assert js["loaded"]["zzzzqqq"] == [search_index.FILTERS]      # the filters say no book holds it
    assert len(js["loaded"]["under fire token"]) >= 1


def test_book_parts_are_cached_per_book(tmp_path):
    """A rebuild reads each book's part from the cache; a changed book is made again, alone."""
    import copy

    from rules_dsl import index
    from rules_dsl.loader import DEFAULT
    entries = index.book_entries(DEFAULT)
    first = search_index.book_parts(entries, tmp_path)
    store = tmp_path / search_index.CACHE_DIR
    assert len(list(store.glob("*.pickle"))) == len(first)
    changed = copy.deepcopy(entries)
    bid = sorted(changed)[0]
    changed[bid]["records"][0]["text"] += " Zebracorns stampede."
    made = []
    real = search_index.book_part
    search_index.book_part = lambda e: made.append(e) or real(e)
    try:
        again = search_index.book_parts(changed, tmp_path)
    finally:
        search_index.book_part = real
    assert len(made) == 1 and made[0] is changed[bid]
    assert again[bid]["shard"][0][0].endswith("Zebracorns stampede.")
    assert {b: p for b, p in again.items() if b != bid} == {b: p for b, p in first.items() if b != bid}
    assert len(list(store.glob("*.pickle"))) == len(first)     # the book's old entry was replaced


def test_a_library_reads_no_index_entry_when_its_parts_are_cached(tmp_path, monkeypatch):
    """The site's rule search takes each book's part from the cache by the book's inputs:
    an unchanged library reads no book's index entry; an edit makes the edited book's part
    again, and that of every book whose references consulted it, and no other."""
    from rules_dsl import index
    from rules_dsl.loader import Library
    books = tmp_path / "books"
    books.mkdir()
    book = 'book {b} {{\n    title "{t}"\n}}\nsection s "S" {{\n    rule {r} "{t} Rule" {{\n        """{text}"""\n    }}\n}}\n'
    (books / "a.rules").write_text(book.format(b="a", t="A", r="r", text="See [[b:target]]."), encoding="utf-8")
    (books / "b.rules").write_text(book.format(b="b", t="B", r="target", text="T."), encoding="utf-8")
    (books / "c.rules").write_text(book.format(b="c", t="C", r="r", text="Alone."), encoding="utf-8")
    lib = Library(books, tmp_path / "cache")
    first = search_index.library_parts(lib)
    assert sorted(first) == ["a", "b", "c"]
    asked = []
    real = index.book_entries
    monkeypatch.setattr(index, "book_entries",
                        lambda library, only=None: asked.append(sorted(only)) or real(library, only))
    assert search_index.library_parts(lib) == first and asked == []       # nothing read
    (books / "b.rules").write_text(book.format(b="b", t="B", r="target", text="Zebracorns."), encoding="utf-8")
    again = search_index.library_parts(lib)
    assert asked == [["a", "b"]]                    # b, and a whose reference consulted b
    assert "Zebracorns." in again["b"]["shard"][0][0] and again["c"] == first["c"]


def test_files_are_written_only_when_they_change(tmp_path):
    data, shards = _browser_data()
    written = search_index.write_files(tmp_path, data, shards)
    assert set(written) == {search_index.FILENAME} | {f"{search_index.SHARD_DIR}/{b}.js" for b in shards}
    assert search_index.write_files(tmp_path, data, shards) == []
    gone = sorted(shards)[-1]
    fewer = {b: s for b, s in shards.items() if b != gone}
    data2 = dict(data, books=[b for b in data["books"] if b[0] != gone])
    assert search_index.write_files(tmp_path, data2, fewer) == [search_index.FILENAME]
    assert not (tmp_path / search_index.SHARD_DIR / f"{gone}.js").exists()
    assert sorted(p.stem for p in (tmp_path / search_index.SHARD_DIR).glob("*.js")) == \
        sorted(b for b in fewer if "/" not in b)
    # a letter no word starts with any more loses its terms file
    some = sorted(b for b in fewer if "/" in b)[-1]
    del fewer[some]
    search_index.write_files(tmp_path, data2, fewer)
    assert not (tmp_path / search_index.SHARD_DIR / f"{some}.js").exists()


def test_browser_ranking_agrees_with_rules_lookup(tmp_path):
    from rules_dsl import index
    js = run_js(tmp_path, _browser_data(), QUERIES)["lazy"]
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
    js = run_js(tmp_path, _browser_data(), ["supression", "dust-tactics:suppression", "zzzzqqq"])["lazy"]
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


def test_bloom_filter_agrees_with_python():
    """rules_search.js's `bloomHas` reads the filters search_index.py writes, bit for bit."""
    flt = search_index.bloom_filter(search_index.prefixes(["suppression", "overwatch", "d6", "grenade"]))
    items = ["s", "su", "suppress", "suppres", "overwatc", "o", "overw", "d6", "d", "grenade", "x", "zq",
             "blutkreutz", "q", "g", "gren"]
    script = ("const R = require(process.argv[1]);"
              f"const f = {json.dumps(flt)}; const b = new Uint8Array(Buffer.from(f[1], 'base64'));"
              f"process.stdout.write(JSON.stringify({json.dumps(items)}.map(i => R.bloomHas(b, f[0], {search_index.BLOOM_K}, i))))")
    proc = subprocess.run([NODE, "-e", script, str(STATIC / "rules_search.js")], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert got == [search_index.bloom_has(flt, i) for i in items]
    assert all(got[:10]) and not all(got)
    # a word longer than BLOOM_CAP is held by its first BLOOM_CAP characters (the box cuts queries so)
    assert search_index.bloom_has(flt, "suppression"[:search_index.BLOOM_CAP])


def test_no_terms_file_is_asked_for_that_does_not_exist(tmp_path):
    """A word may start with a character no indexed word starts with (a filter's false
    positive admits its book): the box must not fetch a terms file that is not there."""
    data, shards = _browser_data()
    data = dict(data, termfiles=data["termfiles"].replace("q", ""))
    (tmp_path / "d.json").write_text(json.dumps(data), encoding="utf-8")
    (tmp_path / "f.json").write_text(json.dumps(shards[search_index.FILTERS]), encoding="utf-8")
    script = ("const R = require(process.argv[1]); const fs = require('fs');"
              "const e = R.create(JSON.parse(fs.readFileSync(process.argv[2], 'utf8')));"
              "e.addShard(JSON.parse(fs.readFileSync(process.argv[3], 'utf8')));"
              "process.stdout.write(JSON.stringify([e.missing('quality roll', {limit: 8}),"
              " e.missing('cover save', {limit: 8})]));")
    proc = subprocess.run([NODE, "-e", script, str(STATIC / "rules_search.js"), str(tmp_path / "d.json"),
                           str(tmp_path / "f.json")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    quality, cover = json.loads(proc.stdout)
    assert "terms/r" in quality and "terms/q" not in quality
    assert "terms/c" in cover and "terms/s" in cover


def test_a_books_cached_part_is_keyed_by_its_values_not_its_objects():
    """An index entry made here, sent back by a worker or read from the cache shares its
    strings differently, so its pickle differs: the cached part must be found all the same."""
    import copy
    import pickle

    from rules_dsl import index
    from rules_dsl.loader import DEFAULT
    e = index.book_entry(DEFAULT, "skirmish-tutorial")
    apart = {"info": pickle.loads(pickle.dumps(e["info"])), "records": pickle.loads(pickle.dumps(e["records"]))}
    key = search_index._part_key("skirmish-tutorial", e)
    assert key == search_index._part_key("skirmish-tutorial", pickle.loads(pickle.dumps(e)))
    assert key == search_index._part_key("skirmish-tutorial", apart)
    edited = copy.deepcopy(e)
    edited["records"][0]["text"] += " Edited."
    assert search_index._part_key("skirmish-tutorial", edited) != key
