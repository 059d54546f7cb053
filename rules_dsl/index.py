"""The lookup index behind `rules lookup`, `rules show` and `rules books`.

A SQLite database (FTS5 for full text) in the cache folder, built from the
compiled books and stamped with `cachekeys.key` over every rulebook file's
stamp (path, size, mtime, ctime, inode) and the code that built it.  The fast
path only stats the sources (the `.rules` files where books can be: no walk of
the whole tree) and queries SQLite, so answering a lookup never imports lark or
the compiler; any change to a source or to the code rebuilds the index on the
next call.  Rebuilding compiles only the books whose files changed (or whose
cross-referenced books changed): each book's part of the index is cached on its
own (`book_entries`), and the books to compile are compiled in parallel.

Ranking: a rule's id `book:rule` or exact title (100), exact alias (95), then typo-tolerant title and alias
matches (50..90), then full text over prose, keywords and notes (up to 40).
Typo-tolerant matching never scans the names in Python: SQLite hands over the
candidates (the distinct names containing the query, the names sharing the most
trigrams with it through an FTS5 trigram index, and the names sharing a
deletion key with it: `_delete_keys`), and difflib scores only those, with the
same scores as a scan of every name would give.
"""
from __future__ import annotations

import json
import os
import re
import sqlite3
import sys
import zlib

from . import cachekeys, paths

SCHEMA = 6


def _index_path() -> str:
    key = zlib.crc32(os.path.realpath(paths.books_dir()).encode())
    return os.path.join(paths.cache_dir(), f"index-{key:08x}.sqlite")


def _source_fingerprint() -> str:
    """`cachekeys.key` of every source's stamp (path, size, mtime, ctime, inode: an
    edit that keeps the size and puts the mtime back still changes the ctime, which
    no user can set) and of the code that builds the index.

    Only where books can be is looked at: the books folder's `.rules` files and
    the `.rules` files directly inside its folders (`Library.book_files`), each
    stamped itself: an in-place edit of a file inside a folder book changes
    that file's stamp, never the folder's mtime, so folder mtimes are not relied on."""
    d = paths.books_dir()
    parts = [f"schema={SCHEMA}", os.path.realpath(d)]
    try:
        with os.scandir(d) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError:
        entries = []
    for e in entries:
        if e.name.endswith(".rules") and e.is_file():
            parts.append(cachekeys.stamp(e.path))
        elif e.is_dir() and not e.name.startswith("."):
            try:
                with os.scandir(e.path) as it:
                    inner = sorted(f.path for f in it if f.name.endswith(".rules") and f.is_file())
            except OSError:
                continue
            parts.extend(cachekeys.stamp(f) for f in inner)
    return cachekeys.key(*parts, code=cachekeys.code_fingerprint("index"))


def _norm(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", s.lower()).strip()


_HYPHENATED = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+")


_INNER_HYPHEN = re.compile(r"(?<=[A-Za-z0-9])-(?=[A-Za-z0-9])")


def _unhyphenated(text: str) -> str:
    """`text` with its words' inner hyphens dropped ("Re-roll" -> "Reroll")."""
    return _INNER_HYPHEN.sub("", text)


def _joined(text: str) -> list:
    """The hyphen-free spelling of each hyphenated word of `text` ("re-roll" ->
    "reroll"): players type both, so the index holds both."""
    return [m.group(0).replace("-", "") for m in _HYPHENATED.finditer(text)]


def _trigram_query(q: str) -> str:
    """An FTS5 trigram query matching any trigram of `q` (words shorter than three
    characters have none)."""
    grams = {q[i:i + 3] for i in range(len(q) - 2)}
    return " OR ".join(f'"{g}"' for g in sorted(grams))


#: how many distinct names the trigram prefilter hands to difflib, best bm25 first
FUZZY_CANDIDATES = 300
#: words longer than this get no deletion keys (their typos share trigrams)
MAX_DELETE_WORD = 14


def _deletions(word: str) -> set:
    """`word` and the strings left by deleting one character (two for words of
    five or more): any name a typo of a short word still shares no trigram with
    (a swap, a dropped or a wrong letter: "aromr" and "armour" both give "armr")
    shares one of these with it."""
    out = {word}
    frontier = {word}
    for _ in range(2 if len(word) >= 5 else 1):
        frontier = {w[:i] + w[i + 1:] for w in frontier for i in range(len(w)) if len(w) > 2}
        out |= frontier
    return out


def _delete_keys(norm: str) -> set:
    """The deletion keys of a normalised name: of each word of two or more
    characters and of the name without its spaces."""
    words = [w for w in norm.split() if len(w) >= 2] + [norm.replace(" ", "")]
    keys = set()
    for w in words:
        if 2 <= len(w) <= MAX_DELETE_WORD:
            keys |= _deletions(w)
    return keys


def _score_name(q: str, nn: str, sm, one_word: bool) -> float:
    """The title/alias score of one normalised name `nn` for the query `q` (before
    the alias penalty): exact 100, a word or a prefix 80, a word prefix 70, a
    similar name 50..90, a typo of one word of a longer name 45; 0 if none."""
    lq = len(q)
    if nn == q:
        return 100
    words = nn.split()
    if q in words or (lq >= 4 and nn.startswith(q)):
        return 80
    if lq >= 4 and f" {q}" in f" {nn}":
        return 70
    best = 0
    # typo-tolerant: a similarity ratio >= 0.75 needs lengths within a factor 0.6
    ln = len(nn)
    if 0.6 * lq <= ln <= lq / 0.6:
        sm.set_seq1(nn)
        if sm.quick_ratio() >= 0.75:
            r = sm.ratio()
            if r >= 0.75:
                best = 50 + 40 * (r - 0.75) / 0.25
    # a typo of one word of a longer title (e.g. "supresion" -> "Suppressive Fire")
    if one_word and best < 45:
        for w in words:
            if len(w) >= 5 and 0.66 * lq <= len(w) <= lq / 0.66:
                sm.set_seq1(w)
                if sm.quick_ratio() >= 0.8 and sm.ratio() >= 0.8:
                    best = 45
                    break
    return best


class Index:
    def __init__(self, con: sqlite3.Connection):
        self.con = con

    # ------------------------------------------------------------ queries
    def books(self):
        rows = self.con.execute("SELECT data FROM books ORDER BY id").fetchall()
        return [json.loads(r[0]) for r in rows]

    def _record(self, rowid, score):
        (data,) = self.con.execute("SELECT data FROM rules WHERE rowid=?", (rowid,)).fetchone()
        rec = json.loads(data)
        rec["score"] = round(score, 2)
        return rec

    def get(self, book: str, rule: str) -> dict:
        row = self.con.execute("SELECT rowid FROM rules WHERE book=? AND rule=?", (book, rule)).fetchone()
        if row is None:
            from .errors import NotFound
            books = [b["id"] for b in self.books()]
            if book not in books:
                raise NotFound("book", book, books)
            ids = [r[0] for r in self.con.execute("SELECT rule FROM rules WHERE book=?", (book,))]
            raise NotFound("rule", rule, ids, where=book)
        return self._record(row[0], 100)

    def _candidates(self, q: str) -> dict:
        """{term id: normalised name} of every distinct title or alias that can score
        for `q`, found by SQLite (never a scan of the names in Python): the name
        itself, every name containing `q` (the trigram index; for a query under
        three characters a LIKE over the names, in C), and the names sharing the
        most trigrams with `q` (bm25 over the trigram index, `FUZZY_CANDIDATES`)."""
        con = self.con
        found = dict(con.execute("SELECT id, norm FROM terms WHERE norm = ?", (q,)).fetchall())
        if len(q) >= 3:
            found.update(con.execute("SELECT rowid, norm FROM tri WHERE tri MATCH ?",
                                     ('"' + q + '"',)).fetchall())
            found.update(con.execute("SELECT rowid, norm FROM tri WHERE tri MATCH ? ORDER BY rank LIMIT ?",
                                     (_trigram_query(q), FUZZY_CANDIDATES)).fetchall())
            keys = sorted(_delete_keys(q))
            if keys:
                marks = ",".join("?" * len(keys))
                found.update(con.execute(f"SELECT DISTINCT terms.id, terms.norm FROM dels JOIN terms ON terms.id = dels.term "
                                         f"WHERE dels.key IN ({marks})", keys).fetchall())
        else:
            found.update(con.execute("SELECT id, norm FROM terms WHERE norm LIKE ? OR norm LIKE ? OR norm LIKE ?",
                                     (f"{q} %", f"% {q}", f"% {q} %")).fetchall())
        return found

    def lookup(self, query: str, book: str = None, limit: int = 5):
        if not _norm(query):
            return []
        scores = {}

        def offer(rowid, score):
            if score > scores.get(rowid, 0):
                scores[rowid] = score

        ref = query.strip().lower()
        if ref.count(":") == 1:        # a rule's stable id `book:rule`, typed as the site shows it
            bid, rid = ref.split(":")
            if book in (None, bid):
                row = self.con.execute("SELECT rowid FROM rules WHERE book=? AND rule=?", (bid, rid)).fetchone()
                if row is not None:
                    offer(row[0], 100)
        from difflib import SequenceMatcher
        # "re-roll" is also asked as "reroll" (one spelling when the query has no hyphen)
        for q in dict.fromkeys((_norm(query), _norm(_unhyphenated(query)))):
            sm = SequenceMatcher(autojunk=False)
            sm.set_seq2(q)
            one_word = len(q) >= 5 and " " not in q
            term_scores = {}
            for tid, nn in self._candidates(q).items():
                s = _score_name(q, nn, sm, one_word)
                if s > 0:
                    term_scores[tid] = s
            if term_scores:
                marks = ",".join("?" * len(term_scores))
                sql = f"SELECT term, rowid_, penalty FROM names WHERE term IN ({marks})" + (" AND book=?" if book else "")
                params = list(term_scores) + ([book] if book else [])
                for tid, rowid, penalty in self.con.execute(sql, params):
                    offer(rowid, term_scores[tid] - penalty)
            for rowid, rank in self._fulltext(q, book, limit * 4):
                offer(rowid, 40 * rank)
            for rowid, rank in self._joined_text(q, book, limit * 4):
                offer(rowid, 36 * rank)
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
        return [self._record(rowid, s) for rowid, s in ranked]

    def _fulltext(self, q: str, book, limit: int):
        words = [w for w in q.split() if w]
        if not words:
            return []
        out = []
        for joiner in (" AND ", " OR "):
            match = joiner.join(f'"{w}"*' for w in words)
            sql = ("SELECT rules.rowid, bm25(fts, 0.0, 0.0, 8.0, 4.0, 1.0, 1.0) AS r FROM fts JOIN rules ON rules.rowid = fts.rowid "
                   "WHERE fts MATCH ?" + (" AND rules.book = ?" if book else "") + " ORDER BY r LIMIT ?")
            params = (match, book, limit) if book else (match, limit)
            try:
                rows = self.con.execute(sql, params).fetchall()
            except sqlite3.OperationalError:
                rows = []
            if rows:
                best = min(r for _, r in rows)  # bm25: more negative is better
                out = [(rowid, (r / best) if best else 1.0) for rowid, r in rows]
                if joiner == " OR ":
                    out = [(rowid, s * 0.5) for rowid, s in out]
                break
        return out

    def _joined_text(self, q: str, book, limit: int):
        """Rows whose hyphenated words, written without the hyphen, match every word
        of `q` ("reroll" finds "re-roll"), ranked as `_fulltext` ranks."""
        words = [w for w in q.split() if w]
        if not words:
            return []
        sql = ("SELECT rowid, bm25(jfts) AS r FROM jfts WHERE jfts MATCH ?" + (" AND book = ?" if book else "")
               + " ORDER BY r LIMIT ?")
        match = " AND ".join(f'"{w}"*' for w in words)
        try:
            rows = self.con.execute(sql, (match, book, limit) if book else (match, limit)).fetchall()
        except sqlite3.OperationalError:
            return []
        best = min((r for _, r in rows), default=0)
        return [(rowid, (r / best) if best else 1.0) for rowid, r in rows]

    def near_titles(self, query: str, n: int = 5, book: str = None):
        """Titles close to `query` (difflib, cutoff 0.5) among the names
        `_candidates` finds for it; only that book's with `book`."""
        from difflib import get_close_matches
        q = _norm(query)
        tids = list(self._candidates(q)) if q else []
        if not tids:
            return []
        marks = ",".join("?" * len(tids))
        titles = [r[0] for r in self.con.execute(
            f"SELECT DISTINCT rules.title FROM names JOIN rules ON rules.rowid = names.rowid_ "
            f"WHERE names.term IN ({marks})" + (" AND names.book = ?" if book else "") + " ORDER BY rules.title",
            tids + ([book] if book else []))]
        lowered = {t.lower(): t for t in titles}
        return [lowered[t] for t in get_close_matches(query.lower(), list(lowered), n=n, cutoff=0.5)]


# ------------------------------------------------------------------ building
def _rule_record(book, r) -> dict:
    from . import nodes as n
    mechs = []
    for d in r.node.decls:
        if isinstance(d, n.Mechanic):
            mechs.append(book.mechanics[d.name].signature_text())
    tables = [f"table {d.name}({', '.join(p.name for p in d.params)})" for d in r.node.decls if isinstance(d, n.Table)]
    findings = [f.message for f in book.findings if f.rule == r.id]
    return {
        "book": book.id, "rule": r.id, "title": r.title, "section": r.section,
        "text": r.text, "aliases": list(r.aliases), "keywords": list(r.keywords), "source": r.source,
        "mechanics": mechs, "tables": tables,
        "notes": [{"kind": note.kind, "text": note.text.text} for note in r.notes],
        "examples": [{"title": ex.title, "text": ex.text} for ex in r.examples],
        "findings": findings,
        "location": str(r.span),
    }


def book_info(book) -> dict:
    """What `rules books --json` says of one compiled book: its id, title, edition and
    counts (`rules export` lists the same counts in its index.json)."""
    return {"id": book.id, "title": book.title, "edition": book.edition, "rules": len(book.rules),
            "mechanics": len(book.mechanics), "examples": sum(len(r.examples) for r in book.rules),
            "tables": len(book.tables), "findings": len(book.findings)}


def _book_key(files) -> str:
    """A book's content key: every file's path and bytes, and the index code."""
    parts = []
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
    from .errors import RulebookError

    try:
        # the compiled book a build already holds (the site compiled an edited book moments ago)
        book, consulted = library.load_consulted(bid)
    except RulebookError:
        consulted = set()          # which books the failing checks consulted: compiled again to know
        try:
            book = library.compile_book(bid, consulted=consulted)
        except RulebookError as e:
            return {"info": None, "records": [], "deps": sorted(consulted), "error": e.first_line()}
    return {"info": book_info(book), "records": [_rule_record(book, r) for r in book.rules],
            "deps": sorted(consulted), "error": None}


def _entry_job(books_dir: str, cache_dir: str, bid: str) -> dict:
    """`book_entry` in a worker process."""
    from .loader import Library
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
        entry = cachekeys.load_fresh(entry_path(bid), dep_keys)
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
        if paths.write_pickle(path, entry):
            cachekeys.replace_entry(str(path), root=str(library.cache_dir))
    return {bid: entries[bid] for bid in ids}


def build(path: str, fingerprint: str, entries: dict | None = None):
    """Build the index at `path` (atomically: a temp file, then a rename) from `entries`
    (default: `book_entries` of the default library).  Raises OSError or
    sqlite3.OperationalError when the cache folder cannot be written."""
    if entries is None:
        from .loader import DEFAULT
        entries = book_entries(DEFAULT)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
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
        CREATE TABLE books(id TEXT PRIMARY KEY, data TEXT);
        CREATE TABLE rules(book TEXT, rule TEXT, title TEXT, aliases TEXT, data TEXT);
        CREATE TABLE terms(id INTEGER PRIMARY KEY, norm TEXT UNIQUE);
        CREATE TABLE names(term INTEGER, rowid_ INTEGER, book TEXT, penalty INTEGER);
        CREATE TABLE dels(key TEXT, term INTEGER, PRIMARY KEY (key, term)) WITHOUT ROWID;
        CREATE VIRTUAL TABLE fts USING fts5(book UNINDEXED, rule UNINDEXED, title, aliases, text, notes,
                                            tokenize = 'porter unicode61');
        CREATE VIRTUAL TABLE jfts USING fts5(book UNINDEXED, joined, tokenize = 'porter unicode61');
    """)
    terms = {}

    def term(norm):
        tid = terms.get(norm)
        if tid is None:
            tid = terms[norm] = len(terms) + 1
            con.execute("INSERT INTO terms VALUES (?, ?)", (tid, norm))
            con.executemany("INSERT OR IGNORE INTO dels VALUES (?, ?)", ((k, tid) for k in _delete_keys(norm)))
        return tid

    for bid, entry in entries.items():
        if entry["error"] is not None:
            sys.stderr.write(f"rules: book '{bid}' does not compile and is left out of the index: {entry['error']}\n")
            continue
        con.execute("INSERT INTO books VALUES (?, ?)", (bid, json.dumps(entry["info"])))
        for rec in entry["records"]:
            cur = con.execute("INSERT INTO rules VALUES (?, ?, ?, ?, ?)",
                              (bid, rec["rule"], rec["title"], json.dumps(rec["aliases"]), json.dumps(rec)))
            for name, penalty in [(rec["title"], 0)] + [(a, 5) for a in rec["aliases"]]:
                spellings = {_norm(name)}
                if "-" in name:           # "Re-roll" is also found as "reroll"
                    spellings.add(_norm(_unhyphenated(name)))
                for s in spellings:
                    con.execute("INSERT OR IGNORE INTO names VALUES (?, ?, ?, ?)", (term(s), cur.lastrowid, bid, penalty))
            notes = " ".join(x["text"] for x in rec["notes"])
            names = " ".join(rec["aliases"] + rec["keywords"])
            text = rec["text"] + "\n" + " ".join(rec["mechanics"])
            con.execute("INSERT INTO fts(rowid, book, rule, title, aliases, text, notes) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (cur.lastrowid, bid, rec["rule"], rec["title"], names, text, notes))
            # hyphen-free spellings ("reroll" for "re-roll") in a table of their own: bm25
            # counts a row's whole length, so adding them to `fts` would move every ranking
            joined = " ".join(_joined(rec["title"] + " " + names) * 2 + _joined(text))
            if joined:
                con.execute("INSERT INTO jfts(rowid, book, joined) VALUES (?, ?, ?)", (cur.lastrowid, bid, joined))
    con.executescript("""
        CREATE INDEX rules_ref ON rules(book, rule);
        CREATE INDEX names_term ON names(term);
        CREATE VIRTUAL TABLE tri USING fts5(norm, content = 'terms', content_rowid = 'id', tokenize = 'trigram');
        INSERT INTO tri(rowid, norm) SELECT id, norm FROM terms;
    """)
    con.execute("INSERT INTO meta VALUES ('fingerprint', ?)", (fingerprint,))
    con.commit()


def ensure_index() -> Index:
    """Open the index, rebuilding it first if any source changed.  A cache folder that
    cannot be written (read-only, a regular file) is no error: a fresh index there is
    read as it is, and anything else is built in memory for this command."""
    path = _index_path()
    fp = _source_fingerprint()
    if os.path.isfile(path):
        try:
            con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            row = con.execute("SELECT value FROM meta WHERE key='fingerprint'").fetchone()
            if row and row[0] == fp:
                return Index(con)
            con.close()
        except sqlite3.DatabaseError:
            pass
    from .loader import DEFAULT
    entries = book_entries(DEFAULT)
    try:
        build(path, fp, entries)
    except (OSError, sqlite3.OperationalError):      # the cache folder cannot be written
        return Index(build_in_memory(fp, entries))
    return Index(sqlite3.connect(f"file:{path}?mode=ro", uri=True))
