"""The browser search's data: a small names file, per-book full-text shards, word counts.

The site's search box (`static/rules_search.js`, ranking; `static/rules_search_ui.js`,
the box) answers as `rules lookup` does, from static files alone.  Its data is made
here from the *same* per-book records as the CLI's index (`index.book_entries`,
`index._rule_record`: built from the compiled books, never from source text), so the
two rank the same names and the same text.  A phone must not download the whole
library's text to find one rule, so the data is split:

**The names file**, ``_static/rules-search-index.js``: one line
``RulesSearchData(<json>);`` (a script, not a JSON fetch: a page opened from disk may
not fetch files, but may load a script), loaded when the box is first used.  Names
only: it answers exact and typo-tolerant title/alias matches on its own.  The JSON
(`VERSION` 2)::

    {"v": 2,
     "books":    [[id, title, rules], ...],                              # by id
     "pages":    ["docs/books/<id>/<page>.html", ...],                  # each page once
     "sections": ["Combat", ...],                                       # each section once
     "rules":    [[book, rule_id, title, section, page, alias...], ...],
     "stats":    {"n": rules, "avg": [average field length, by FT_FIELDS]},
     "termfiles": "0123...xyz"}                                         # the terms files there are

`rules` are in the CLI index's order (books by id, rules in book order), which is also
the order ties are broken in; ``book``, ``section`` and ``page`` index the tables above;
``rule_id`` is ``""`` when it is the title's slug (`slug`); the rule's link is
``pages[page] + "#" + book_id + ":" + rule_id``.  `stats` are the full-text engine's
statistics over *all* rules (MiniSearch's document count and average field lengths,
computed here as MiniSearch computes them: `tokenize`, `field_lengths`).

**The filters file**, ``_static/rules-search/_filters.js``: one line
``RulesSearchFilters(<json>);``, ``{"v": 2, "filters": [[bits, base64], ...], "k":
hashes, "cap": longest prefix kept}``, one Bloom filter per book in the names file's
order (`bloom_filter`, FNV-1a with double hashing, about 2% false positives) of every
prefix (up to `BLOOM_CAP` characters, ``[a-z0-9]`` only: a query is normalised to
those) of every term the book's full text indexes, so the box fetches only the shards
that can match a query's words.  Fetched (in the background) once the box is used.

**The shards**, ``_static/rules-search/<book id>.js``: one line
``RulesSearchShard(<json>);``, ``{"v": 2, "book": id, "rules": [[text, notes,
mechanics, keyword...], ...]}``, one array per rule of the names file's rows for that
book, in order.  Prose is plain text (references read as their labels); notes are kept
only as text to search, cut to `NOTE_CHARS`; mechanics by name.

**The terms files**, ``_static/rules-search/terms/<c>.js``: one line
``RulesSearchTerms(<json>);``, ``{"v": 2, "terms": c, "df": {term: [rules, by
FT_FIELDS]}}``: for every indexed term starting with the character ``c`` (one file per
first character, ``[a-z0-9]``), how many rules of the whole library hold it in each
field (MiniSearch's document frequency).

Why the counts: with the library-wide document count, field lengths and document
frequencies, MiniSearch over only the shards loaded scores each loaded rule exactly
as over every rule; so the box needs only the books whose rules can match (those
whose filter admits every word of the query; those that admit any word only when no
rule has them all, since full text then takes any word) and the terms files of the
query's words, and its list is the whole index's (`RulesSearch` `missing`;
tests/test_search_js.py and test_search_ui.py check it).

Incremental: each book's part (the costly bits: prose to plain text, the word counts
and the filter) is cached in ``<cache>/search-books/``.  The site's build keys it by
the book's inputs (`library_parts`: its files and those of the books its references
consulted), so it reads no book's index entry unless that book's part must be made;
`book_parts` keys it by the index entry's values, for callers that hold the entries.
A rebuild with no change, or one changed book, redoes no other book; every file is written only when its bytes change, and shards of books
that are gone (and terms files of letters no word starts with) are deleted.  Output
is deterministic (sorted keys, books by id, terms sorted).
"""
from __future__ import annotations

import base64
import functools
import json
import os
import re
import unicodedata

#: the data format the browser reads (bump when the layout above changes)
VERSION = 2
#: the full-text fields, in MiniSearch's field order (rules_search.js builds the same documents)
FT_FIELDS = ["title", "names", "text", "notes", "joined"]
#: notes are searched (as the CLI searches them) but never shown: a bounded share of each rule
NOTE_CHARS = 600
PREFIX, SUFFIX = "RulesSearchData(", ");\n"
SHARD_PREFIX = "RulesSearchShard("
FILENAME = "rules-search-index.js"
SHARD_DIR = "rules-search"
#: Bloom filter: bits per prefix (about 2% false positives with BLOOM_K hashes), hashes,
#: and the longest prefix kept (a longer query word is looked up by its first BLOOM_CAP)
BLOOM_BITS_PER_ITEM = 8
BLOOM_K = 5
BLOOM_CAP = 8
CACHE_DIR = "search-books"
TERMS_DIR = "terms"
TERMS_PREFIX = "RulesSearchTerms("
FILTERS = "_filters"      # no book id starts with "_"
FILTERS_PREFIX = "RulesSearchFilters("


# ------------------------------------------------------------------ text as MiniSearch sees it
def _plain(text: str) -> str:
    """Prose without markup, on one line (references as their labels or ids' words)."""
    from ..prose import parse_prose, plain_text
    try:
        return plain_text(parse_prose(text))
    except Exception:      # prose the parser rejects stays as written (it is escaped when shown)
        return " ".join(text.split())


def _mechanic_names(signatures) -> str:
    return " ".join(s.split("(", 1)[0] for s in signatures)


def _is_separator(c: str) -> bool:
    return c in "\n\r" or unicodedata.category(c)[0] in "ZP"


_SPLIT = None
#: below this code point the separators are one precompiled class; above it, each is looked up
_FAST_BELOW = "\u3000"


def tokenize(text: str) -> list:
    """MiniSearch's default tokenizer, ``text.split(/[\\n\\r\\p{Z}\\p{P}]+/u)`` (empty
    pieces at the ends included, as JavaScript's split gives them)."""
    global _SPLIT
    if _SPLIT is None:
        seps = "".join(chr(i) for i in range(ord(_FAST_BELOW)) if _is_separator(chr(i)))
        _SPLIT = re.compile("[" + re.escape(seps) + "]+")
    if not text or max(text) < _FAST_BELOW:
        return _SPLIT.split(text)
    parts, buf, in_sep = [], [], False
    for c in text:
        if _is_separator(c):
            if not in_sep:
                parts.append("".join(buf))
                buf, in_sep = [], True
        else:
            buf.append(c)
            in_sep = False
    parts.append("".join(buf))
    return parts


_PLURAL_KEEP = re.compile(r"(ss|us|is)$")


@functools.lru_cache(maxsize=1 << 16)
def process_term(term: str) -> str:
    """rules_search.js's `processTerm`: lower case, plurals stemmed."""
    t = term.lower()
    if len(t) > 4 and t.endswith("ies"):
        return t[:-3] + "y"
    if len(t) > 3 and t.endswith("s") and not _PLURAL_KEEP.search(t):
        return t[:-1]
    return t


_HYPHENATED = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+")


def _joined(text: str) -> list:
    return [m.group(0).replace("-", "") for m in _HYPHENATED.finditer(text)]


def documents(title, aliases, keywords, text, notes, mechanics) -> list:
    """A rule's full-text document, field by field (`FT_FIELDS`), as rules_search.js makes it."""
    names = " ".join(list(aliases) + list(keywords))
    body = text + "\n" + mechanics
    j = _joined(title + " " + names)
    return [title, names, body, notes, " ".join(j + j + _joined(body))]


def field_lengths(fields) -> list:
    """MiniSearch's field length: the number of distinct tokens (before processing)."""
    return [len(set(tokenize(f))) for f in fields]


def _field_terms(fields) -> tuple:
    """(`field_lengths`, the distinct processed terms of each field) in one pass."""
    lengths, terms = [], []
    for f in fields:
        toks = set(tokenize(f))
        lengths.append(len(toks))
        terms.append({process_term(t) for t in toks})
    return lengths, terms


def slug(title: str) -> str:
    """The id a rule's title would give (a rule whose id is this stores ``""``)."""
    return re.sub(r"[^a-z0-9]+", " ", title.lower()).strip().replace(" ", "-")


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


_ASCII_HEAD = re.compile(r"[a-z0-9]*")
_QUERY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def prefixes(terms) -> set:
    """Every prefix a query word can be (``[a-z0-9]``, up to `BLOOM_CAP` characters) of `terms`."""
    out = set()
    for t in terms:
        head = _ASCII_HEAD.match(t).group(0)[:BLOOM_CAP]
        out.update(head[:i] for i in range(1, len(head) + 1))
    return out


def bloom_filter(items) -> list:
    """``[bits, base64]`` of a Bloom filter holding `items` (``[a-z0-9]`` strings)."""
    items = set(items)
    bits = max(64, -(-len(items) * BLOOM_BITS_PER_ITEM // 8) * 8)
    arr = bytearray(bits // 8)
    # FNV-1a runs along a word: one pass gives the hashes of all its prefixes
    hashes, heads = {}, sorted(items)
    for i, head in enumerate(heads):
        if i + 1 < len(heads) and heads[i + 1].startswith(head):
            continue                     # a prefix of the next word: hashed with it
        h1, h2 = 2166136261, 84696351
        for n, b in enumerate(head.encode("ascii"), 1):
            h1 = ((h1 ^ b) * 16777619) & 0xFFFFFFFF
            h2 = ((h2 ^ b) * 16777619) & 0xFFFFFFFF
            if n < len(head):
                p = head[:n]
                if p in items and p not in hashes:
                    hashes[p] = (h1, h2 | 1)
        hashes[head] = (h1, h2 | 1)
    for h1, h2 in hashes.values():
        for k in range(BLOOM_K):
            p = (h1 + k * h2) % bits
            arr[p >> 3] |= 1 << (p & 7)
    return [bits, base64.b64encode(bytes(arr)).decode("ascii")]


def bloom_has(flt, item: str) -> bool:
    bits, raw = flt[0], base64.b64decode(flt[1])
    return all(raw[p >> 3] >> (p & 7) & 1 for p in bloom_positions(item, bits))


# ------------------------------------------------------------------ one book's part (cached)
def book_part(entry: dict) -> dict:
    """What the search keeps of one book: its names rows, shard rows, field lengths and
    filter.  The costly step of the whole index (prose to plain text), hence cached."""
    names, shard, lengths, df = [], [], [], {}
    for rec in entry["records"]:
        notes = " ".join(" ".join(n["text"].split()) for n in rec["notes"])[:NOTE_CHARS]
        text, mech = _plain(rec["text"]), _mechanic_names(rec["mechanics"])
        rid = "" if slug(rec["title"]) == rec["rule"] else rec["rule"]
        names.append([rec["rule"], rid, rec["title"], rec["section"], list(rec["aliases"])])
        shard.append([text, notes, mech] + list(rec["keywords"]))
        ln, terms = _field_terms(documents(rec["title"], rec["aliases"], rec["keywords"], text, notes, mech))
        lengths.append(ln)
        _count(df, terms)
    return {"title": entry["info"]["title"], "names": names, "shard": shard, "lengths": lengths,
            "df": df, "filter": bloom_filter(prefixes(df))}


def doc_freqs(names, shard) -> dict:
    """{term: [rules holding it, by FT_FIELDS]} over a book's rules (MiniSearch's document
    frequency, summed over books into the library's), for terms a query word can start:
    those beginning with ``[a-z0-9]``."""
    df = {}
    for (_, _, title, _, aliases), row in zip(names, shard):
        _count(df, _field_terms(documents(title, aliases, row[3:], row[0], row[1], row[2]))[1])
    return df


def _count(df: dict, field_terms) -> None:
    for fi, terms in enumerate(field_terms):
        for t in terms:
            if t and t[0] in _QUERY_CHARS:
                counts = df.get(t)
                if counts is None:
                    counts = df[t] = [0] * len(FT_FIELDS)
                counts[fi] += 1


def _part_key(bid: str, entry: dict) -> str:
    """The key of a book's part: its index entry's *values*, written as canonical JSON (a
    pickle's bytes depend on which objects happen to be shared, which differs between an
    entry made in this process, one sent back by a worker and one read from the cache)."""
    import json

    from .. import cachekeys
    blob = json.dumps([bid, entry["info"], entry["records"]], sort_keys=True, ensure_ascii=False, default=repr)
    return cachekeys.key(blob, code=cachekeys.code_fingerprint("site", salt=str(VERSION)))


def book_parts(entries: dict, cache_dir=None, folder: str = "") -> dict:
    """{book id: `book_part`} for the books that compiled, each cached on its own under
    `cache_dir` (None: not cached) and recomputed only when its entry changes."""
    import pickle
    from pathlib import Path

    from .. import cachekeys, paths
    parts = {}
    for bid, entry in entries.items():
        if entry.get("error") is not None or entry.get("info") is None:
            continue
        path = None
        if cache_dir is not None:
            path = Path(cache_dir) / CACHE_DIR / f"{cachekeys.slot(folder, bid)}-{_part_key(bid, entry)[:32]}.pickle"
            try:
                with open(path, "rb") as f:
                    parts[bid] = pickle.load(f)
                continue
            except Exception:
                pass      # absent or damaged: made again
        parts[bid] = book_part(entry)
        if path is not None and paths.write_pickle(path, parts[bid]):
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

    from .. import cachekeys, index, paths
    ids, keys, dep_keys = index.book_keys(library)
    folder = os.path.realpath(library.books_dir)
    store = Path(library.cache_dir) / CACHE_DIR
    code = cachekeys.code_fingerprint("site", salt=str(VERSION))

    def path_of(bid):
        return store / f"{cachekeys.slot(folder, 'inputs', bid)}-{cachekeys.key(keys[bid], code=code)[:32]}.pickle"

    parts, todo = {}, []
    for bid in ids:
        kept = cachekeys.load_fresh(path_of(bid), dep_keys)
        if kept is None:
            todo.append(bid)          # absent, damaged, or a book it consulted changed: made again
        elif kept["part"] is not None:
            parts[bid] = kept["part"]
    if todo:
        entries = index.book_entries(library, only=todo)
        for bid in todo:
            entry = entries[bid]
            ok = entry.get("error") is None and entry.get("info") is not None
            part = book_part(entry) if ok else None
            if part is not None:
                parts[bid] = part
            path = path_of(bid)
            if paths.write_pickle(path, {"deps": dict(entry.get("deps") or {}), "part": part}):
                cachekeys.replace_entry(str(path), root=str(library.cache_dir))
    return {bid: parts[bid] for bid in ids if bid in parts}


# ------------------------------------------------------------------ the files
def build_files(parts: dict, url_of) -> tuple:
    """(names data, {shard name: shard data}) from `book_parts`: a book's shard is named by
    its id, a terms file ``terms/<c>``, the filters `FILTERS`; `url_of(book, rule)` is the
    rule's page (relative to the site root, without the anchor) or None to leave it out."""
    books, pages, sections, rules, shards, lengths, df, filters = [], {}, {}, [], {}, [], {}, []
    for bi, bid in enumerate(sorted(parts)):
        part = parts[bid]
        rows, kept = [], []
        for name, srow, ln in zip(part["names"], part["shard"], part["lengths"]):
            rule, rid, title, section, aliases = name
            url = url_of(bid, rule)
            if url is None:
                continue
            rules.append([bi, rid, title, sections.setdefault(section, len(sections)),
                          pages.setdefault(url, len(pages))] + aliases)
            rows.append(srow)
            kept.append(name)
            lengths.append(ln)
        books.append([bid, part["title"], len(rows)])
        filters.append(part["filter"])
        shards[bid] = {"v": VERSION, "book": bid, "rules": rows}
        book_df = part["df"] if len(rows) == len(part["names"]) else doc_freqs(kept, rows)
        for t, counts in book_df.items():
            total = df.setdefault(t, [0] * len(FT_FIELDS))
            for fi, c in enumerate(counts):
                total[fi] += c
    for t in sorted(df):
        first = t[0]
        shards.setdefault(f"{TERMS_DIR}/{first}", {"v": VERSION, "terms": first, "df": {}})["df"][t] = df[t]
    avg = [0.0] * len(FT_FIELDS)
    for count, ln in enumerate(lengths):       # MiniSearch's running average, in its order
        for f, n in enumerate(ln):
            avg[f] = (avg[f] * count + n) / (count + 1)
    shards[FILTERS] = {"v": VERSION, "filters": filters, "k": BLOOM_K, "cap": BLOOM_CAP}
    data = {"v": VERSION, "books": books, "pages": list(pages), "sections": list(sections), "rules": rules,
            "stats": {"n": len(lengths), "avg": avg}, "termfiles": "".join(sorted({t[0] for t in df}))}
    return data, shards


def build_data(entries: dict, url_of, cache_dir=None) -> tuple:
    """`build_files` straight from `index.book_entries`' entries."""
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

    from .. import index
    from ..loader import DEFAULT

    objects = app.env.domains["rules"].objects

    def url_of(bid, rid):
        entry = objects.get(("rule", f"{bid}:{rid}"))
        return app.builder.get_target_uri(entry[0]) if entry else None

    # nothing to do when no source, no rule's page and no code changed since the files were
    # written (the stamps of the sources: no book is read; a hundred books' parts cost seconds)
    from .. import cachekeys
    static = Path(app.outdir) / "_static"
    state = Path(app.doctreedir) / STATE_FILE
    pages = sorted((name, entry[0]) for (kind, name), entry in objects.items() if kind == "rule")
    key = cachekeys.key(index._source_fingerprint(), repr(pages), app.builder.name,
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
