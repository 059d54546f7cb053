"""The browser search's data: a small names file, per-book text shards, terms files.

The site's search box (`static/rules_search.js`, ranking; `static/rules_search_ui.js`,
the box) answers as `rules lookup` does, from static files alone.  Its data is made
here from the *same* per-book entries as the CLI's index (`index_build.book_entries`: the
records of `records.rule_record` and the search analysis of `textsearch.analyse_book`,
made from the compiled books, never from source text), so the two rank the same names
and the same terms; rules_search.js ports textsearch.py and reads its constants, stop
words and vocabulary from these files.  A phone must not download the whole library's
text to find one rule, so the data is split:

**The names file**, ``_static/rules-search-index.js``: one line
``RulesSearchData(<json>);`` (a script, not a JSON fetch: a page opened from disk may
not fetch files, but may load a script), loaded when the box is first used.  Names
only: it answers exact and typo-tolerant title/alias matches on its own.  The JSON
(`VERSION` 3)::

    {"v": 3,
     "books":    [[id, title, rules], ...],                              # by id
     "pages":    ["docs/books/<id>/<page>.html", ...],                  # each page once
     "sections": ["Combat", ...],                                       # each section once
     "rules":    [[book, rule_id, title, section, page, alias...], ...],
     "n":        rules,                                                  # the idf's N (layered books' rules aside)
     "rank":     textsearch.RANK, "stop": [stop word, ...],
     "termfiles": ["a", "b", ..., "~", "_"]}                             # the terms files there are

`rules` are in the CLI index's order (books by id, rules in book order), which is also
the order ties are broken in; ``book``, ``section`` and ``page`` index the tables above;
``rule_id`` is ``""`` when it is the title's slug (`slug`); the rule's link is
``pages[page] + "#" + book_id + ":" + rule_id``.

**The filters file**, ``_static/rules-search/_filters.js``: one line
``RulesSearchFilters(<json>);``, ``{"v": 3, "filters": [[bits, base64], ...], "k":
hashes, "vocab": {"shared": [entry, ...], "books": [[book index, [entry, ...]], ...]}}``:
one Bloom filter per book in the names file's order (`bloom_filter`, FNV-1a over UTF-8
with double hashing, about 2% false positives) of every term its rules hold, and the
vocabulary's phrase table (`textsearch.Vocabulary`; an entry is ``[phrase terms joined
by spaces, concept or "", broader terms joined by spaces]``): the shared one, and the
entries each book's own groups add.  Fetched (in the background) once the box is used.

**The shards**, ``_static/rules-search/<book id>.js``: one line
``RulesSearchShard(<json>);``, ``{"v": 3, "book": id, "rules": [[text, notes,
mechanics, keyword...], ...]}``, one array per rule of the names file's rows for that
book, in order: exactly the strings `textsearch.record_fields` analyses (prose as plain
text, references read as their labels; notes cut to `textsearch.NOTE_CHARS`, searched
but never shown; mechanics by name), which the browser analyses again the same way.

**The terms files**, ``_static/rules-search/terms/<c>.js``: one line
``RulesSearchTerms(<json>);``, ``{"v": 3, "terms": c, "df": {term: [rules, rest, book,
bound, book, bound, ...]}}`` for every term in file `c` (`term_file`: its first
character, ``~`` for the vocabulary's concepts, ``_`` for a first character outside
``[a-z0-9]``): how many rules of the library hold it (the idf's df) and, for the
`TOP_BOOKS` books where it weighs most, the most it weighs in one of their rules
(saturated tf~, x1000, rounded up); ``rest`` bounds it in every other book.

Why the bounds: a query's score in a rule is a sum of term weights, so a book's bound
(`RulesSearch` `_bound`: the sum of its terms' bounds, with the nearness bonus at its
largest) says whether any of its rules could still enter the list.  The box fetches the
terms files of the query's words, then only the books whose bound could place a rule,
best first; its list is then the whole index's (tests/test_search_js.py and
test_search_ui.py check it).

Incremental: each book's part (the costly bits: its shard, counts, bounds and filter)
is cached in ``<cache>/search-books/``.  The site's build keys it by the book's inputs
(`library_parts`: its files, those of the books its references consulted, and the search
data files, through `index_build.book_keys`), so it reads no book's index entry unless that
book's part must be made; `book_parts` keys it by the index entry's values, for callers
that hold the entries.  A rebuild with no change, or one changed book, redoes no other
book; every file is written only when its bytes change, and shards of books that are
gone (and terms files no term is in) are deleted.  Output is deterministic (sorted
keys, books by id, terms sorted).
"""
from __future__ import annotations

import base64
import json
import math
import os
import re

from ..faces import textsearch

#: the data format the browser reads (bump when the layout above changes)
VERSION = 3
#: books whose bound a terms file lists per term (the others share the `rest` bound)
TOP_BOOKS = 8
PREFIX, SUFFIX = "RulesSearchData(", ");\n"
SHARD_PREFIX = "RulesSearchShard("
FILENAME = "rules-search-index.js"
SHARD_DIR = "rules-search"
#: Bloom filter: bits per term (about 2% false positives with BLOOM_K hashes) and hashes
BLOOM_BITS_PER_ITEM = 8
BLOOM_K = 5
CACHE_DIR = "search-books"
TERMS_DIR = "terms"
TERMS_PREFIX = "RulesSearchTerms("
FILTERS = "_filters"      # no book id starts with "_"
FILTERS_PREFIX = "RulesSearchFilters("
_FILE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789~")


def slug(title: str) -> str:
    """The id a rule's title would give (a rule whose id is this stores ``""``)."""
    return re.sub(r"[^a-z0-9]+", " ", title.lower()).strip().replace(" ", "-")


def term_file(term: str) -> str:
    """The terms file a term is in: its first character, or ``_`` outside ``[a-z0-9~]``."""
    return term[0] if term[0] in _FILE_CHARS else "_"


# ------------------------------------------------------------------ the Bloom filter
def _fnv(s: str, basis: int) -> int:
    h = basis
    for b in s.encode("utf-8"):
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


def bloom_positions(item: str, bits: int, k: int = BLOOM_K):
    """The bits of `item` (FNV-1a twice, double hashing; rules_search.js `bloomHas`)."""
    h1, h2 = _fnv(item, 2166136261), _fnv(item, 84696351) | 1
    return [(h1 + i * h2) % bits for i in range(k)]


def bloom_filter(items) -> list:
    """``[bits, base64]`` of a Bloom filter holding `items`."""
    items = sorted(set(items))
    bits = max(64, -(-len(items) * BLOOM_BITS_PER_ITEM // 8) * 8)
    arr = bytearray(bits // 8)
    for item in items:
        for p in bloom_positions(item, bits):
            arr[p >> 3] |= 1 << (p & 7)
    return [bits, base64.b64encode(bytes(arr)).decode("ascii")]


def bloom_has(flt, item: str) -> bool:
    bits, raw = flt[0], base64.b64decode(flt[1])
    return all(raw[p >> 3] >> (p & 7) & 1 for p in bloom_positions(item, bits))


def bound(sat: float) -> int:
    """A term's weight in a rule (saturated tf~, below 1) as the terms files bound it: x1000,
    rounded up."""
    return min(1000, math.ceil(sat * 1000))


# ------------------------------------------------------------------ one book's part (cached)
def book_part(entry: dict) -> dict:
    """What the search keeps of one book: its names rows, shard rows, each rule's terms and
    weights (`docs`: [{term: saturated tf~}], to count them again when a site leaves some
    rules out), each term's count and largest weight (`stats`), its vocabulary entries and
    its filter."""
    names, shard = [], []
    for rec in entry["records"]:
        notes = textsearch.note_text(rec["notes"])[:textsearch.NOTE_CHARS]
        text, mech = textsearch.plain(rec["text"]), textsearch.mechanic_names(rec["mechanics"])
        rid = "" if slug(rec["title"]) == rec["rule"] else rec["rule"]
        names.append([rec["rule"], rid, rec["title"], rec["section"], list(rec["aliases"])])
        shard.append([text, notes, mech] + list(rec["keywords"]))
    docs = [{t: w for t, w, _p in d["post"]} for d in entry["search"]["docs"]]
    stats = term_stats(docs)
    return {"title": entry["info"]["title"], "names": names, "shard": shard, "docs": docs, "stats": stats,
            "vocabulary": entry["search"]["vocabulary"], "filter": bloom_filter(stats),
            "layered": bool(entry["info"].get("base"))}


def term_stats(docs) -> dict:
    """{term: [rules holding it, `bound` of the most it weighs in one of them]} over a
    book's rules."""
    out = {}
    for d in docs:
        for t, w in d.items():
            e = out.get(t)
            if e is None:
                out[t] = [1, w]
            else:
                e[0] += 1
                if w > e[1]:
                    e[1] = w
    for e in out.values():
        e[1] = bound(e[1])
    return out


def _part_key(bid: str, entry: dict) -> str:
    """The key of a book's part: its index entry's *values*, written as canonical JSON (a
    pickle's bytes depend on which objects happen to be shared, which differs between an
    entry made in this process, one sent back by a worker and one read from the cache)."""
    import json

    from ..library import cachekeys
    blob = json.dumps([bid, entry["info"], entry["records"], (entry.get("search") or {}).get("vocabulary")],
                      sort_keys=True, ensure_ascii=False, default=repr)
    # the part is the entry's search analysis too: the search data and textsearch.py (index scope) key it
    return cachekeys.key(blob, textsearch.data_key(), code=cachekeys.code_fingerprint("site", "index", salt=str(VERSION)))


def book_parts(entries: dict, cache_dir=None, folder: str = "") -> dict:
    """{book id: `book_part`} for the books that compiled, each cached on its own under
    `cache_dir` (None: not cached) and recomputed only when its entry changes."""
    from pathlib import Path

    from ..library import cachekeys
    from .. import paths
    parts = {}
    for bid, entry in entries.items():
        if entry.get("error") is not None or entry.get("info") is None:
            continue
        path = None
        if cache_dir is not None:
            path = Path(cache_dir) / CACHE_DIR / f"{cachekeys.slot(folder, bid)}-{_part_key(bid, entry)[:32]}.pickle"
            try:
                parts[bid] = paths.read_pickle(path, root=cache_dir)
                continue
            except Exception:
                pass      # absent, damaged or untrusted: made again
        parts[bid] = book_part(entry)
        if path is not None and paths.write_pickle(path, parts[bid], root=cache_dir):
            cachekeys.replace_entry(str(path), root=str(cache_dir))
    return parts


def library_parts(library) -> dict:
    """{book id: `book_part`} for the books of `library` that compile, each cached under
    ``<cache>/search-books/`` by its *inputs*: the key of the book's files and the keys
    of the books its references consulted (as the index caches entries).  A book's index
    entry is read (or made) only when its part must be made: after an edit, one book's,
    where keying parts by the entries' values read and serialised every book's entry
    (about a second at a hundred books)."""
    from pathlib import Path

    from ..library import cachekeys
    from ..faces import index_build
    from .. import paths
    ids, keys, dep_keys = index_build.book_keys(library)
    folder = os.path.realpath(library.books_dir)
    store = Path(library.cache_dir) / CACHE_DIR
    code = cachekeys.code_fingerprint("site", salt=str(VERSION))

    def path_of(bid):
        return store / f"{cachekeys.slot(folder, 'inputs', bid)}-{cachekeys.key(keys[bid], code=code)[:32]}.pickle"

    parts, todo = {}, []
    for bid in ids:
        kept = cachekeys.load_fresh(path_of(bid), dep_keys, root=library.cache_dir)
        if kept is None:
            todo.append(bid)          # absent, damaged, or a book it consulted changed: made again
        elif kept["part"] is not None:
            parts[bid] = kept["part"]
    if todo:
        entries = index_build.book_entries(library, only=todo)
        for bid in todo:
            entry = entries[bid]
            ok = entry.get("error") is None and entry.get("info") is not None
            part = book_part(entry) if ok else None
            if part is not None:
                parts[bid] = part
            path = path_of(bid)
            if paths.write_pickle(path, {"deps": dict(entry.get("deps") or {}), "part": part}, root=library.cache_dir):
                cachekeys.replace_entry(str(path), root=str(library.cache_dir))
    return {bid: parts[bid] for bid in ids if bid in parts}


# ------------------------------------------------------------------ the files
def build_files(parts: dict, url_of) -> tuple:
    """(names data, {shard name: shard data}) from `book_parts`: a book's shard is named by
    its id, a terms file ``terms/<c>``, the filters `FILTERS`; `url_of(book, rule)` is the
    rule's page (relative to the site root, without the anchor) or None to leave it out."""
    books, pages, sections, rules, shards, filters, vocab = [], {}, {}, [], {}, [], []
    df, per_book = {}, {}
    # a layered book's records (its changed rules: index_build's `book_entry`) are scored against
    # the books' statistics, as the CLI's index does: not counted in `n`, and in a term's
    # count only for a term no book holds
    n_books, df_layers = 0, {}
    for bi, bid in enumerate(sorted(parts)):
        part = parts[bid]
        rows, kept = [], []
        for name, srow, doc in zip(part["names"], part["shard"], part["docs"]):
            rule, rid, title, section, aliases = name
            url = url_of(bid, rule)
            if url is None:
                continue
            rules.append([bi, rid, title, sections.setdefault(section, len(sections)),
                          pages.setdefault(url, len(pages))] + aliases)
            rows.append(srow)
            kept.append(doc)
        books.append([bid, part["title"], len(rows)])
        layered = part.get("layered", False)
        if not layered:
            n_books += len(rows)
        whole = len(kept) == len(part["docs"])      # else the site left some rules out: counted again
        filters.append(part["filter"] if whole else bloom_filter(t for d in kept for t in d))
        if part["vocabulary"]:
            vocab.append([bi, [_vocab_row(e) for e in part["vocabulary"]]])
        shards[bid] = {"v": VERSION, "book": bid, "rules": rows}
        for t, (count, q) in (part["stats"] if whole else term_stats(kept)).items():
            counts = df_layers if layered else df
            counts[t] = counts.get(t, 0) + count
            per_book.setdefault(t, []).append((-q, bi))
    for t, count in df_layers.items():
        df.setdefault(t, count)
    for t in sorted(df):
        ranked = sorted(per_book[t])         # the largest bound first, then the earlier book
        entry = [df[t], -ranked[TOP_BOOKS][0] if len(ranked) > TOP_BOOKS else 0]
        for q, bi in ranked[:TOP_BOOKS]:
            entry += [bi, -q]
        name = term_file(t)
        shards.setdefault(f"{TERMS_DIR}/{name}", {"v": VERSION, "terms": name, "df": {}})["df"][t] = entry
    shared = [_vocab_row(e) for e in textsearch.shared_vocabulary().entries]
    shards[FILTERS] = {"v": VERSION, "filters": filters, "k": BLOOM_K, "vocab": {"shared": shared, "books": vocab}}
    data = {"v": VERSION, "books": books, "pages": list(pages), "sections": list(sections), "rules": rules,
            "n": n_books, "rank": textsearch.RANK, "stop": sorted(textsearch.stopwords()),
            "termfiles": sorted({term_file(t) for t in df})}
    return data, shards


def _vocab_row(entry) -> list:
    phrase, concept, broader = entry
    return [" ".join(phrase), concept or "", " ".join(broader)]


def build_data(entries: dict, url_of, cache_dir=None) -> tuple:
    """`build_files` straight from `index_build.book_entries`' entries."""
    return build_files(book_parts(entries, cache_dir), url_of)


def _script(prefix: str, data: dict) -> str:
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    # inside a <script>-loaded file "</script" means nothing, but U+2028/9 must not break the line
    body = body.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return prefix + body + SUFFIX


def dumps(data: dict) -> str:
    """The script text of the names file (deterministic: two builds give the same bytes)."""
    return _script(PREFIX, data)


def dumps_shard(shard: dict) -> str:
    """The script text of one book's shard, or of one terms file."""
    prefix = TERMS_PREFIX if "terms" in shard else FILTERS_PREFIX if "filters" in shard else SHARD_PREFIX
    return _script(prefix, shard)


def _loads(text: str, prefix: str, what: str) -> dict:
    if not (text.startswith(prefix) and text.endswith(SUFFIX)):
        raise ValueError(f"not a rules search {what}")
    return json.loads(text[len(prefix):-len(SUFFIX)])


def loads(text: str) -> dict:
    """The names data back from the script text (tests, tools)."""
    return _loads(text, PREFIX, "index")


def loads_shard(text: str) -> dict:
    if text.startswith(TERMS_PREFIX):
        return _loads(text, TERMS_PREFIX, "terms file")
    if text.startswith(FILTERS_PREFIX):
        return _loads(text, FILTERS_PREFIX, "filters file")
    return _loads(text, SHARD_PREFIX, "shard")


def write_files(static_dir, data: dict, shards: dict) -> list:
    """Write the names file and the shards under `static_dir` (each only if its bytes
    change) and delete shards of books that are gone; the names of the files written."""
    from pathlib import Path

    from ..paths import write_text_if_changed
    static_dir = Path(static_dir)
    written = []
    if write_text_if_changed(static_dir / FILENAME, dumps(data)):
        written.append(FILENAME)
    folder = static_dir / SHARD_DIR
    for name, shard in shards.items():
        if write_text_if_changed(folder / f"{name}.js", dumps_shard(shard)):
            written.append(f"{SHARD_DIR}/{name}.js")
    for sub in (folder, folder / TERMS_DIR):
        if sub.is_dir():
            for p in sub.glob("*.js"):
                if p.relative_to(folder).with_suffix("").as_posix() not in shards:
                    p.unlink(missing_ok=True)      # a book that is gone, a letter no word starts with
    return written


#: the key of what the files were last written from, in the doctree folder
STATE_FILE = "rules_dsl-search.key"


def write_index(app, exc):
    """build-finished: write the names file and the shards for the html builders."""
    if exc is not None or app.builder.format != "html":
        return
    from pathlib import Path

    from ..faces import index
    from ..library.loader import DEFAULT

    objects = app.env.domains["rules"].objects

    def url_of(bid, rid):
        entry = objects.get(("rule", f"{bid}:{rid}"))
        return app.builder.get_target_uri(entry[0]) if entry else None

    # nothing to do when no source, no rule's page and no code changed since the files were
    # written (the stamps of the sources: no book is read; a hundred books' parts cost seconds)
    from ..library import cachekeys
    static = Path(app.outdir) / "_static"
    state = Path(app.doctreedir) / STATE_FILE
    pages = sorted((name, entry[0]) for (kind, name), entry in objects.items() if kind == "rule")
    key = cachekeys.key(index.source_fingerprint(), repr(pages), app.builder.name,
                        code=cachekeys.code_fingerprint("site", salt=str(VERSION)))
    try:
        if state.read_text(encoding="utf-8") == key and (static / FILENAME).is_file():
            return
    except OSError:
        pass
    data, shards = build_files(library_parts(DEFAULT), url_of)
    write_files(static, data, shards)
    from ..paths import write_text_if_changed
    write_text_if_changed(state, key)
