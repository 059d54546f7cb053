"""Building the lookup index (index.py queries it): each book compiled into what the
index holds of it (`book_entry`: its records, its search analysis, the books its
references consulted), cached per book and made in parallel (`book_entries`), then
written into SQLite (`build`, or `build_in_memory` where the cache folder cannot be
written).  The site's search data (sphinxext/search_index.py) is made from the same
per-book entries, so the CLI and the site rank the same records.
"""
from __future__ import annotations

import json
import os
import sqlite3
import sys

from ..library import cachekeys
from .. import paths
from .index_names import delete_keys, norm_name, unhyphenated


def book_info(book) -> dict:
    """What `rules books --json` says of one compiled book: its id, title, edition and
    counts (`rules export` lists the same counts in its index.json)."""
    return {"id": book.id, "title": book.title, "edition": book.edition, "rules": len(book.rules),
            "mechanics": len(book.mechanics), "examples": sum(len(r.examples) for r in book.rules),
            "tables": len(book.tables), "findings": len(book.findings)}


def _book_key(files) -> str:
    """A book's content key: every file's path and bytes, the search data (stop words and
    the shared vocabulary: a book's search terms depend on them) and the index code."""
    from .textsearch import data_key
    parts = [data_key()]
    for f in files:
        parts += [str(f), f.read_bytes()]
    return cachekeys.key(*parts, code=cachekeys.code_fingerprint("index"))


def _ids_key(ids) -> str:
    return cachekeys.key(*ids, code="ids")


def book_entry(library, bid: str) -> dict:
    """Compile one book and turn it into what the index holds of it:
    ``{"info", "records", "deps", "error"}``.  `deps` names every other book
    whose rule ids its cross-references were checked against (``*``: the list
    of books), so the entry is reused only while they are unchanged."""
    from ..errors import RulebookError

    try:
        # the compiled book a build already holds (the site compiled an edited book moments ago)
        book, consulted = library.load_consulted(bid)
    except RulebookError:
        consulted = set()          # which books the failing checks consulted: compiled again to know
        try:
            book = library.compile_book(bid, consulted=consulted)
        except RulebookError as e:
            return {"info": None, "records": [], "deps": sorted(consulted), "error": e.first_line(), "search": None}
    from .records import rule_record
    from .textsearch import analyse_book
    records = [rule_record(book, r) for r in book.rules]
    info = book_info(book)
    if book.layers:
        records, info = _own_records(library, book, records, info)
    return {"info": info, "records": records, "deps": sorted(consulted), "error": None,
            "search": analyse_book(records, book.vocabulary)}


def _own_records(library, book, records, info) -> tuple:
    """A layered book's records (layers.py): only those of rules that differ from its
    base's (changed or added by a layer); the others are the base's, and the book's info
    says which (`inherits`), so the index holds each unchanged rule once and a search
    across every book finds it once (`Index.get` and a search of the layered book read
    them through its base)."""
    from ..errors import RulesError
    from .records import rule_record
    try:
        base = library.load(book.base_id)
    except RulesError:
        return records, info
    theirs = {r.id: _comparable(rule_record(base, r)) for r in base.rules}
    own, inherits = [], []
    for rec in records:
        if theirs.get(rec["rule"]) == _comparable(rec):
            inherits.append(rec["rule"])
        else:
            own.append(rec)
    return own, dict(info, base=book.base_id, inherits=inherits)


def _comparable(rec: dict) -> dict:
    return {k: v for k, v in rec.items() if k not in ("book", "location")}


def _entry_job(books_dir: str, cache_dir: str, bid: str) -> dict:
    """`book_entry` in a worker process."""
    from ..library.loader import Library
    return book_entry(Library(books_dir, cache_dir), bid)


def _jobs(n: int) -> int:
    env = os.environ.get("RULES_DSL_JOBS", "")
    jobs = int(env) if env.isdigit() and int(env) > 0 else (os.cpu_count() or 1)
    return max(1, min(jobs, n))


def book_keys(library) -> tuple:
    """(ids, {book id: key of its files}, {book id or "*": key}): what a cached entry's
    `deps` are checked against ("*": the list of books)."""
    ids = library.book_ids()
    keys = {bid: _book_key(library.book_files(bid)) for bid in ids}
    return ids, keys, dict(keys, **{"*": _ids_key(ids)})


def book_entries(library, only=None) -> dict:
    """{book id: entry} for every book of `library` (or the books `only` names).  Each
    book's entry is cached on its own (`<cache>/index-books/`, keyed by the book's
    files, the index code and the books its cross-references consulted), so an edit to
    one book recompiles that book only.  Books to compile are compiled in parallel
    (`RULES_DSL_JOBS` processes, default one per core)."""
    ids, keys, dep_keys = book_keys(library)
    if only is not None:
        wanted = set(only)
        ids = [bid for bid in ids if bid in wanted]
    store = library.cache_dir / "index-books"
    folder = os.path.realpath(library.books_dir)

    def entry_path(bid):
        return store / f"{cachekeys.slot(folder, bid)}-{keys[bid][:32]}.pickle"

    entries, todo = {}, []
    for bid in ids:
        entry = cachekeys.load_fresh(entry_path(bid), dep_keys, root=library.cache_dir)
        if entry is not None:
            entries[bid] = entry
        else:
            todo.append(bid)   # absent, damaged or stale: compiled again
    fresh = None
    jobs = _jobs(len(todo))
    if jobs > 1:
        from concurrent.futures import ProcessPoolExecutor
        try:
            pool = ProcessPoolExecutor(max_workers=jobs)
        except (OSError, ImportError, NotImplementedError):   # no process pools here: one process it is
            pool = None
        if pool is not None:
            with pool:
                futures = {bid: pool.submit(_entry_job, str(library.books_dir), str(library.cache_dir), bid)
                           for bid in todo}
                fresh = {bid: fut.result() for bid, fut in futures.items()}
    if fresh is None:
        fresh = {bid: book_entry(library, bid) for bid in todo}
    for bid, entry in fresh.items():
        entry["deps"] = {d: dep_keys.get(d) for d in entry["deps"]}
        entries[bid] = entry
        path = entry_path(bid)
        if paths.write_pickle(path, entry, root=library.cache_dir):
            cachekeys.replace_entry(str(path), root=str(library.cache_dir))
    return {bid: entries[bid] for bid in ids}


def build(path: str, fingerprint: str, entries: dict | None = None):
    """Build the index at `path` (atomically: a temp file, then a rename) from `entries`
    (default: `book_entries` of the default library).  Raises OSError or
    sqlite3.OperationalError when the cache folder cannot be written (`paths.UntrustedCache`
    when another user could write it)."""
    if entries is None:
        from ..library.loader import DEFAULT
        entries = book_entries(DEFAULT)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        paths.make_cache_dirs(os.path.dirname(path), root=paths.cache_dir())
        if os.path.exists(tmp):
            os.unlink(tmp)
        con = sqlite3.connect(tmp)
        try:
            _fill(con, entries, fingerprint)
        finally:
            con.close()
        os.replace(tmp, path)      # one index per books folder: the new one replaces the old
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    cachekeys.sweep()


def build_in_memory(fingerprint: str, entries: dict) -> sqlite3.Connection:
    """The index in memory, for a cache folder that cannot be written (read-only, a
    regular file, not there and not creatable): the answers are the same, only
    nothing is kept for the next command."""
    con = sqlite3.connect(":memory:")
    _fill(con, entries, fingerprint)
    return con


def _fill(con: sqlite3.Connection, entries: dict, fingerprint: str):
    """Write the index's tables into `con`: every book's rules, names and full text."""
    con.executescript("""
        PRAGMA journal_mode = OFF;
        PRAGMA synchronous = OFF;
        CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
        CREATE TABLE books(id TEXT PRIMARY KEY, data TEXT, first INTEGER, last INTEGER);
        CREATE TABLE rules(book TEXT, rule TEXT, title TEXT, aliases TEXT, data TEXT);
        CREATE TABLE terms(id INTEGER PRIMARY KEY, norm TEXT UNIQUE);
        CREATE TABLE names(term INTEGER, rowid_ INTEGER, book TEXT, penalty INTEGER);
        CREATE TABLE dels(key TEXT, term INTEGER, PRIMARY KEY (key, term)) WITHOUT ROWID;
        -- full text (textsearch.py): each term's rules with its saturated weight and places
        CREATE TABLE ft_post(term TEXT, doc INTEGER, sat REAL, places TEXT);   -- indexed when filled
        CREATE TABLE ft_terms(term TEXT PRIMARY KEY, df INTEGER) WITHOUT ROWID;
        CREATE TABLE ft_stems(word TEXT PRIMARY KEY, stem TEXT) WITHOUT ROWID;
        CREATE TABLE ft_vocab(first TEXT, book TEXT, ord INTEGER, phrase TEXT, concept TEXT, broader TEXT);
    """)
    terms = {}

    def term(norm):
        tid = terms.get(norm)
        if tid is None:
            tid = terms[norm] = len(terms) + 1
            con.execute("INSERT INTO terms VALUES (?, ?)", (tid, norm))
            con.executemany("INSERT OR IGNORE INTO dels VALUES (?, ?)", ((k, tid) for k in delete_keys(norm)))
        return tid

    from .textsearch import shared_vocabulary
    df, stems, n_rules = {}, {}, 0
    vocab = [(None, e) for e in shared_vocabulary().entries]
    n_layered, df_layers = 0, {}   # layered books' records: not in the corpus' statistics (a term
                                   # only they hold counts their rules)
    for bid, entry in entries.items():
        if entry["error"] is not None:
            sys.stderr.write(f"rules: book '{bid}' does not compile and is left out of the index: {entry['error']}\n")
            continue
        layered = "base" in entry["info"]
        first = n_rules + n_layered + 1
        search = entry["search"]
        stems.update(search["stems"])
        vocab += [(bid, e) for e in search["vocabulary"]]
        for rec, doc in zip(entry["records"], search["docs"]):
            cur = con.execute("INSERT INTO rules VALUES (?, ?, ?, ?, ?)",
                              (bid, rec["rule"], rec["title"], json.dumps(rec["aliases"]), json.dumps(rec)))
            rowid = cur.lastrowid
            con.executemany("INSERT INTO ft_post VALUES (?, ?, ?, ?)", ((t, rowid, w, p) for t, w, p in doc["post"]))
            if layered:        # a layer's changed rule is scored against the books' statistics
                n_layered += 1
                for t, _w, _p in doc["post"]:
                    df_layers[t] = df_layers.get(t, 0) + 1
            else:
                n_rules += 1
                for t, _w, _p in doc["post"]:
                    df[t] = df.get(t, 0) + 1
            for name, penalty in [(rec["title"], 0)] + [(a, 5) for a in rec["aliases"]]:
                spellings = {norm_name(name)}
                if "-" in name:           # "Re-roll" is also found as "reroll"
                    spellings.add(norm_name(unhyphenated(name)))
                for s in spellings:
                    con.execute("INSERT OR IGNORE INTO names VALUES (?, ?, ?, ?)", (term(s), cur.lastrowid, bid, penalty))
        con.execute("INSERT INTO books VALUES (?, ?, ?, ?)", (bid, json.dumps(entry["info"]), first,
                                                              n_rules + n_layered))
    for t, count in df_layers.items():
        df.setdefault(t, count)
    con.executemany("INSERT INTO ft_terms VALUES (?, ?)", sorted(df.items()))
    con.executemany("INSERT INTO ft_stems VALUES (?, ?)", sorted(stems.items()))
    con.executemany("INSERT INTO ft_vocab VALUES (?, ?, ?, ?, ?, ?)",
                    ((list(e[0])[0], scope, i, " ".join(e[0]), e[1] or "", " ".join(e[2])) for i, (scope, e) in enumerate(vocab)))
    con.execute("INSERT INTO meta VALUES ('rules', ?)", (str(n_rules),))
    con.executescript("""
        CREATE INDEX rules_ref ON rules(book, rule, title);   -- covering: a [[ref]]'s title without its row
        -- a search of one book (and its base) reads its own names; covering: no row of the table is read
        CREATE INDEX names_term ON names(term, book, rowid_, penalty);
        CREATE INDEX ft_vocab_first ON ft_vocab(first);
        -- covering (doc, sat): a query reads a term's postings from the index alone, never the rows
        -- (whose places spread them over many pages: a cold lookup read a page a posting)
        CREATE INDEX ft_post_term ON ft_post(term, doc, sat);
        CREATE VIRTUAL TABLE tri USING fts5(norm, content = 'terms', content_rowid = 'id', tokenize = 'trigram');
        INSERT INTO tri(rowid, norm) SELECT id, norm FROM terms;
    """)
    con.execute("INSERT INTO meta VALUES ('fingerprint', ?)", (fingerprint,))
    con.commit()


