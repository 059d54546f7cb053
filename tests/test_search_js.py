"""One definition of ranking: the site's search box and `rules lookup` agree.

The browser index is generated (`rules_dsl.sphinxext.search_index.build_data`) from the
CLI index's own per-book entries (`index_build.book_entries`), and `static/rules_search.js`
ports `Index.lookup` and textsearch.py.  These tests hold the two to one definition:
the same stems for every word (the vendored Snowball Porter against `snowballstemmer`),
the same terms, weights and places for every rule, and, for every query of the recorded
set (tests/search_agreement_queries.json: titles, typos, everyday words and the player
questions of search_questions.json), the same top three with the same scores, the
JavaScript under node.  The agreement table is printed and saved
(`search-agreement.md` in the test's tmp folder).

The browser data is split (a names file, a full-text shard per book, loaded as a
query needs them): the tests here also check that the split ranks exactly as the whole
index does, that the per-book filters never skip a book that matches, and that each
book's part is cached and each file rewritten only when it changes.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO
from rules_dsl.sphinxext import search_index

sys.path.insert(0, str(REPO / "bench"))
from bench_search_quality import NODE_FILES  # noqa: E402

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
#: the recorded set (at least 100): the browser's top 3 equals `rules lookup`'s for each
AGREEMENT = json.loads((Path(__file__).with_name("search_agreement_queries.json")).read_text(encoding="utf-8"))["queries"]

RUNNER = NODE_FILES + r"""
// every shard loaded: the whole library's index
const all = RulesSearch.create(data);
all.addShard(shard("_filters"));
data.termfiles.forEach(c => all.addShard(shard("terms/" + c)));
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
process.stdout.write(JSON.stringify(out));
"""


def _browser_data(cache_dir=None):
    from rules_dsl.faces import index_build
    from rules_dsl.library.loader import DEFAULT
    return search_index.build_data(index_build.book_entries(DEFAULT), lambda b, r: f"docs/books/{b}/x.html", cache_dir)


def run_js(tmp_path: Path, files, queries, limit=5) -> dict:
    """Each query through rules_search.js under node: `all` (every shard loaded), `names`
    (the names file alone), `lazy` (the shards `missing` asks for, as the box loads them)
    and `loaded` (which those were)."""
    search_index.write_files(tmp_path, *files)
    (tmp_path / "queries.json").write_text(json.dumps([list(queries), limit]), encoding="utf-8")
    (tmp_path / "run.js").write_text(RUNNER, encoding="utf-8")
    proc = subprocess.run([NODE, str(tmp_path / "run.js"), str(STATIC / "rules_search.js"),
                           str(tmp_path), str(tmp_path / "queries.json")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_index_round_trips_and_holds_every_rule():
    from rules_dsl.faces import index_build, textsearch
    from rules_dsl.library.loader import DEFAULT
    data, shards = _browser_data()
    assert data["v"] == search_index.VERSION
    assert search_index.loads(search_index.dumps(data)) == data
    for shard in shards.values():
        assert search_index.loads_shard(search_index.dumps_shard(shard)) == shard
    entries = index_build.book_entries(DEFAULT)
    n = sum(len(e["records"]) for e in entries.values())
    # a layered book's changed rules are in the data, but not in the idf's N (index.build's statistics)
    assert len(data["rules"]) == n and data["n"] == sum(len(e["records"]) for e in entries.values()
                                                        if not e["info"].get("base")) < n
    # one definition: the constants and stop words the browser ranks with are textsearch's
    assert data["rank"] == textsearch.RANK and set(data["stop"]) == textsearch.stopwords()
    books = {name: s for name, s in shards.items() if "/" not in name and name != search_index.FILTERS}
    assert [b[0] for b in data["books"]] == sorted(books)
    # the filters: one per book, in the names file's order, and the vocabulary
    filters = shards[search_index.FILTERS]
    assert len(filters["filters"]) == len(data["books"]) and all(f[0] % 8 == 0 for f in filters["filters"])
    assert filters["k"] == search_index.BLOOM_K
    assert len(filters["vocab"]["shared"]) == len(textsearch.shared_vocabulary().entries)
    # the terms files: each term's count of rules, summed over the books, and its bounds
    terms = {name: s for name, s in shards.items() if name.startswith(search_index.TERMS_DIR + "/")}
    assert set(shards) == set(books) | set(terms) | {search_index.FILTERS}
    df = {t: c for s in terms.values() for t, c in s["df"].items()}
    assert all(search_index.term_file(t) == name.split("/")[1] for name, s in terms.items() for t in s["df"])
    holding = [d for e in entries.values() if not e["info"].get("base")
               for d in e["search"]["docs"] if any(p[0] == "suppress" for p in d["post"])]
    assert df["suppress"][0] == len(holding) > 0
    for entry in df.values():
        listed = entry[2::2]
        assert len(listed) == len(set(listed)) <= search_index.TOP_BOOKS and all(0 < q <= 1000 for q in entry[3::2])
    assert "~shoot" in df and df["~shoot"][0] > df["shoot"][0]        # the vocabulary's concept
    assert data["termfiles"] == sorted(name.split("/")[1] for name in terms)
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


def test_every_term_of_a_book_passes_its_filter_and_is_bounded():
    """The Bloom filters have no false negatives, and the terms files' bounds are upper
    bounds of each term's weight in each book's rules (else the box would skip a book
    that places a rule); the filters do leave books out (else they would be useless)."""
    from rules_dsl.faces import index_build
    from rules_dsl.library.loader import DEFAULT
    parts = search_index.book_parts(index_build.book_entries(DEFAULT))
    _data, shards = search_index.build_files(parts, lambda b, r: "x.html")
    df = {t: c for name, s in shards.items() if name.startswith("terms/") for t, c in s["df"].items()}
    for bi, (bid, part) in enumerate(sorted(parts.items())):
        for doc in part["docs"]:
            for term, weight in doc.items():
                assert search_index.bloom_has(part["filter"], term), (bid, term)
                entry = df[term]
                listed = dict(zip(entry[2::2], entry[3::2]))
                assert weight * 1000 <= listed.get(bi, entry[1]), (bid, term)
    assert not all(search_index.bloom_has(p["filter"], "blutkreuz") for p in parts.values())


def test_shards_load_only_where_needed_and_rank_as_the_whole_index(tmp_path):
    """Exactness of the split: for every query, the names plus the shards `missing` asks
    for rank exactly as every shard loaded; a typo of a title needs no shard; a rare word
    loads only the books that hold it."""
    queries = list(dict.fromkeys(AGREEMENT + ["roll", "a", "under fire", "reanim", "tok", "zzzzqqq"]))
    js = run_js(tmp_path, _browser_data(), queries, limit=8)
    differ = [q for q in js["all"] if js["lazy"][q] != js["all"][q]]
    assert not differ, differ
    data = search_index.loads((tmp_path / search_index.FILENAME).read_text(encoding="utf-8"))
    ids = {row[0] for row in data["books"]}
    # a typo of a title: first from the names at once; full text fetches only the books
    # holding the word it is a typo of (textsearch's fuzzy terms)
    assert js["names"]["supression"][0][0] == "dust-tactics:suppression" == js["lazy"]["supression"][0][0]
    assert len([b for b in js["loaded"]["supression"] if b in ids]) < len(ids)
    rare = [b for b in js["loaded"]["blutkreutz"] if b in ids]
    assert rare and len(rare) < len(data["books"])
    assert [b for b in js["loaded"]["zzzzqqq"] if b in ids] == []       # no book holds it
    assert len(js["loaded"]["under fire token"]) >= 1


def test_book_parts_are_cached_per_book(tmp_path):
    """A rebuild reads each book's part from the cache; a changed book is made again, alone."""
    import copy

    from rules_dsl.faces import index_build
    from rules_dsl.library.loader import DEFAULT
    entries = index_build.book_entries(DEFAULT)
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
    from rules_dsl.faces import index_build
    from rules_dsl.library.loader import Library
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
    real = index_build.book_entries
    monkeypatch.setattr(index_build, "book_entries",
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
    gone = sorted(b for b in shards if "/" not in b and b != search_index.FILTERS)[-1]
    fewer = {b: s for b, s in shards.items() if b != gone}
    data2 = dict(data, books=[b for b in data["books"] if b[0] != gone])
    assert search_index.write_files(tmp_path, data2, fewer) == [search_index.FILENAME]
    assert not (tmp_path / search_index.SHARD_DIR / f"{gone}.js").exists()
    assert sorted(p.stem for p in (tmp_path / search_index.SHARD_DIR).glob("*.js")) == \
        sorted(b for b in fewer if "/" not in b)
    # a terms file no term is in any more goes
    some = sorted(b for b in fewer if "/" in b)[-1]
    del fewer[some]
    search_index.write_files(tmp_path, data2, fewer)
    assert not (tmp_path / search_index.SHARD_DIR / f"{some}.js").exists()


def test_browser_ranking_agrees_with_rules_lookup(tmp_path):
    """The recorded set: for every query the box's final list (the names plus the shards
    `missing` fetched) has the same top three as `rules lookup`, with the same scores."""
    from rules_dsl.faces import index
    assert len(AGREEMENT) >= 100
    js = run_js(tmp_path, _browser_data(), AGREEMENT, limit=3)["lazy"]
    idx = index.ensure_index()
    rows, differ = [], []
    for q in AGREEMENT:
        cli = [(f"{r['book']}:{r['rule']}", r["score"]) for r in idx.lookup(q, limit=3)]
        site = [(ref, score) for ref, score in js[q]]
        same = cli == site
        rows.append(f"| `{q}` | {', '.join(r for r, _ in cli) or '—'} | {'yes' if same else 'NO: ' + str(site)} |")
        if not same:
            differ.append((q, cli, site))
    table = "| query | `rules lookup` top 3 | site search the same |\n|---|---|---|\n" + "\n".join(rows)
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
    """rules_search.js's `bloomHas` reads the filters search_index.py writes, bit for bit
    (FNV-1a over UTF-8: terms outside ASCII too)."""
    flt = search_index.bloom_filter(["suppress", "overwatch", "d6", "grenad", "~shoot", "blütkreuz"])
    items = ["suppress", "overwatch", "d6", "grenad", "~shoot", "blütkreuz", "x", "zq", "blutkreutz", "q",
             "gren", "~move", "suppres"]
    script = ("const R = require(process.argv[1]);"
              f"const f = {json.dumps(flt)}; const b = new Uint8Array(Buffer.from(f[1], 'base64'));"
              f"process.stdout.write(JSON.stringify({json.dumps(items)}.map(i => R.bloomHas(b, f[0], {search_index.BLOOM_K}, i))))")
    proc = subprocess.run([NODE, "-e", script, str(STATIC / "rules_search.js")], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert got == [search_index.bloom_has(flt, i) for i in items]
    assert all(got[:6]) and not all(got)


def _all_words(seeds=None) -> list:
    """Every word of the books (titles, aliases, keywords, text, notes) and, when there, of
    the seed texts; a few outside ASCII."""
    import re

    from rules_dsl.faces import index_build, textsearch
    from rules_dsl.library.loader import DEFAULT
    words = set()
    for e in index_build.book_entries(DEFAULT).values():
        for rec in e["records"]:
            for items in textsearch.record_fields(rec):
                for item in items:
                    for w in textsearch.words(item):
                        words.update(w.split("-"))
                        words.add(w.replace("-", ""))
    if seeds is not None:
        for f in sorted(seeds.glob("*.txt")):
            words.update(w.lower() for w in re.findall(r"[A-Za-z]+", f.read_text(encoding="utf-8", errors="replace")))
    words.update(["blutkreuz", "naïve", "s", "ys", "generously", "sky", "dying", "succeeding", "ÿ"])
    return sorted(words)


def test_the_stemmer_is_the_same_in_both_runtimes(tmp_path):
    """The vendored Snowball Porter (snowball-*-stemmer.js) stems every word of the books
    and of the seed texts (when they are there) as the `snowballstemmer` package does."""
    from conftest import SEEDS

    from rules_dsl.faces import textsearch
    words = _all_words(SEEDS if SEEDS.is_dir() else None)
    assert len(words) > 3000
    (tmp_path / "words.json").write_text(json.dumps(words), encoding="utf-8")
    script = ("const R = require(process.argv[1]); const fs = require('fs');"
              "process.stdout.write(JSON.stringify(JSON.parse(fs.readFileSync(process.argv[2], 'utf8')).map(R.stem)))")
    proc = subprocess.run([NODE, "-e", script, str(STATIC / "rules_search.js"), str(tmp_path / "words.json")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    differ = [(w, js, textsearch.stem(w)) for w, js in zip(words, json.loads(proc.stdout)) if js != textsearch.stem(w)]
    assert not differ, differ[:20]
    assert textsearch.stem("running") == "run" and textsearch.stem("models") == "model"


def test_the_browser_analyses_every_rule_as_the_index_does(tmp_path):
    """For every rule, the terms rules_search.js makes from the shard (with the vocabulary's
    concepts), their counts per field, places and the fields' lengths are textsearch's."""
    from rules_dsl.faces import index_build, textsearch
    from rules_dsl.library.loader import DEFAULT
    files = _browser_data()
    search_index.write_files(tmp_path, *files)
    script = r"""
const fs = require("fs"), path = require("path");
const R = require(process.argv[1]), dir = process.argv[2];
const unwrap = t => JSON.parse(t.slice(t.indexOf("(") + 1, -");\n".length));
const data = unwrap(fs.readFileSync(path.join(dir, "rules-search-index.js"), "utf8"));
const e = R.create(data);
e.addShard(unwrap(fs.readFileSync(path.join(dir, "rules-search", "_filters.js"), "utf8")));
data.books.forEach(b => e.addShard(unwrap(fs.readFileSync(path.join(dir, "rules-search", b[0] + ".js"), "utf8"))));
process.stdout.write(JSON.stringify(e.rules.map(r => e.document(r.i))));
"""
    proc = subprocess.run([NODE, "-e", script, str(STATIC / "rules_search.js"), str(tmp_path)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    js_docs = json.loads(proc.stdout)
    py_docs = []
    for bid, e in sorted(index_build.book_entries(DEFAULT).items()):
        vocab = textsearch.book_vocabulary(DEFAULT.load(bid).vocabulary)
        py_docs += [textsearch.analyse(textsearch.record_fields(rec), vocab) for rec in e["records"]]
    assert len(js_docs) == len(py_docs)
    for i, (js, py) in enumerate(zip(js_docs, py_docs)):
        assert js["len"] == py["len"], i
        assert js["terms"] == {t: [tf, places] for t, (tf, places) in py["terms"].items()}, i


def test_no_terms_file_is_asked_for_that_does_not_exist(tmp_path):
    """A query's word may start with a character no indexed term starts with: the box must
    not fetch a terms file that is not there."""
    data, shards = _browser_data()
    data = dict(data, termfiles=[c for c in data["termfiles"] if c != "q"])
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

    from rules_dsl.faces import index_build
    from rules_dsl.library.loader import DEFAULT
    e = index_build.book_entry(DEFAULT, "skirmish-tutorial")
    apart = {"info": pickle.loads(pickle.dumps(e["info"])), "records": pickle.loads(pickle.dumps(e["records"])),
             "search": pickle.loads(pickle.dumps(e["search"]))}
    key = search_index._part_key("skirmish-tutorial", e)
    assert key == search_index._part_key("skirmish-tutorial", pickle.loads(pickle.dumps(e)))
    assert key == search_index._part_key("skirmish-tutorial", apart)
    edited = copy.deepcopy(e)
    edited["records"][0]["text"] += " Edited."
    assert search_index._part_key("skirmish-tutorial", edited) != key


def test_a_books_text_fetched_before_the_filters_waits_for_them(tmp_path):
    """The box fetches a shown rule's book for its snippet while the filters (which hold
    the book's vocabulary) may still be on their way: the text is read once they are in."""
    data, shards = _browser_data()
    search_index.write_files(tmp_path, data, shards)
    script = r"""
const fs = require("fs"), path = require("path");
const R = require(process.argv[1]), dir = process.argv[2];
const unwrap = t => JSON.parse(t.slice(t.indexOf("(") + 1, -");\n".length));
const e = R.create(unwrap(fs.readFileSync(path.join(dir, "rules-search-index.js"), "utf8")));
e.addShard(unwrap(fs.readFileSync(path.join(dir, "rules-search", "void.js"), "utf8")));
const before = e.books.find(b => b.id === "void").loaded;
e.addShard(unwrap(fs.readFileSync(path.join(dir, "rules-search", "_filters.js"), "utf8")));
process.stdout.write(JSON.stringify([before, e.books.find(b => b.id === "void").loaded]));
"""
    proc = subprocess.run([NODE, "-e", script, str(STATIC / "rules_search.js"), str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [False, True]
