"""The lookup index behind `rules lookup`, `rules show` and `rules books`.

A SQLite database (FTS5 for full text) in the cache folder, built from the
compiled books and stamped with every rulebook file's stamp (path, size, mtime,
ctime, inode) and the stamps of the code that built it, kept whole (no hash to
compute at start-up, no collision to fear).  The fast
path only stats the sources (the `.rules` files where books can be: no walk of
the whole tree) and queries SQLite, so answering a lookup never imports lark or
the compiler; any change to a source or to the code rebuilds the index on the
next call.  Rebuilding compiles only the books whose files changed (or whose
cross-referenced books changed): each book's part of the index is cached on its
own (`book_entries`), and the books to compile are compiled in parallel.

Ranking: a rule's id `book:rule` or exact title (100), exact alias (95), then typo-tolerant title and alias
matches (50..90), then full text (up to 40: 40 x the rule's full-text score over the best
one's), scored as textsearch.py defines (stop words, Porter stems, the vocabulary, BM25F
over title, aliases, keywords, text and notes, nearness), the same definition the site's
search box runs in the browser.  Full text never scans the library in Python either: each
query term's postings come from the `ft_post` table by its key.
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

SCHEMA = 7


def _index_path() -> str:
    key = zlib.crc32(os.path.realpath(paths.books_dir()).encode())
    return os.path.join(paths.cache_dir(), f"index-{key:08x}.sqlite")


def _source_fingerprint() -> str:
    """Every source's stamp (path, size, mtime, ctime, inode: an edit that keeps the
    size and puts the mtime back still changes the ctime, which no user can set) and the
    stamps of the code that builds the index, as a JSON list: the index holds this text and
    is fresh when it is equal (an exact comparison, and no hashlib at start-up: importing
    it costs a cold `rules lookup` about 3 ms).

    Only where books can be is looked at: the books folder's `.rules` files and
    the `.rules` files directly inside its folders (`Library.book_files`), each
    stamped itself: an in-place edit of a file inside a folder book changes
    that file's stamp, never the folder's mtime, so folder mtimes are not relied on."""
    from .textsearch import data_stamps
    d = paths.books_dir()
    parts = [f"schema={SCHEMA}", os.path.realpath(d)] + data_stamps()
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
    parts.append(cachekeys.code_stamps("index"))
    return json.dumps(parts)             # a list: no two different lists of stamps read the same


def _norm(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", s.lower()).strip()


_INNER_HYPHEN = re.compile(r"(?<=[A-Za-z0-9])-(?=[A-Za-z0-9])")


def _unhyphenated(text: str) -> str:
    """`text` with its words' inner hyphens dropped ("Re-roll" -> "Reroll")."""
    return _INNER_HYPHEN.sub("", text)


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
        """The best `limit` rules for `query`: its records with ``score`` and ``matched`` (the
        query's words the rule's text holds; all of them for a rule found by its name)."""
        return self.search(query, book=book, limit=limit)["results"]

    def search(self, query: str, book: str = None, limit: int = 5) -> dict:
        """`lookup`, with what a reader should be told: ``{"results", "words": the query's
        search words (stop words dropped), "unknown": those no rule holds (nor a synonym,
        nor a word they begin: a near spelling found in their place does not count)}``."""
        out = {"results": [], "words": [], "unknown": []}
        if not _norm(query):
            return out
        scores, matched = {}, {}

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
        slots = self._slots(query)
        out["words"] = [s.word for s in slots]
        hits, found = self._fulltext(slots, book, limit)
        out["unknown"] = [s.word for i, s in enumerate(slots) if not found[i]]
        if hits:
            best = hits[0][1]
            for rowid, s, covered in hits:
                offer(rowid, 40 * s / best if best else 40)
                matched[rowid] = [slots[i].word for i, c in enumerate(covered) if c]
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
        for rowid, s in ranked:
            rec = self._record(rowid, s)
            rec["matched"] = matched.get(rowid, [])
            out["results"].append(rec)
        return out

    # ------------------------------------------------------------ full text (textsearch.py)
    def _stem(self, word: str) -> str:
        """A word's stem: the index's own table of every word its books hold (no stemmer to
        import for them), else the stemmer."""
        row = self.con.execute("SELECT stem FROM ft_stems WHERE word = ?", (word,)).fetchone()
        if row is not None:
            return row[0]
        from .textsearch import stem
        return stem(word)

    def _slots(self, query: str) -> list:
        from . import textsearch as ts
        slots = ts.query_slots(query, stem_of=self._stem)
        if not slots:
            return slots
        firsts = sorted({s.stem for s in slots})
        marks = ",".join("?" * len(firsts))
        tables = {}
        for scope, phrase, concept, broader in self.con.execute(
                f"SELECT book, phrase, concept, broader FROM ft_vocab WHERE first IN ({marks}) ORDER BY book, ord", firsts):
            tables.setdefault(scope, []).append((tuple(phrase.split(" ")), concept or None,
                                                 tuple(broader.split(" ")) if broader else ()))
        order = [(None, ts.Vocabulary(tables.pop(None, [])))]
        order += [(b, ts.Vocabulary(tables[b])) for b in sorted(tables)]
        return ts.expand(slots, order, prefixes=self._prefixes, similar=self._similar)

    def _prefixes(self, word: str) -> list:
        """The indexed terms `word` begins (not itself), most common first (`RANK["prefix_max"]`)."""
        from .textsearch import RANK
        upper = word[:-1] + chr(ord(word[-1]) + 1)
        return [r[0] for r in self.con.execute(
            "SELECT term FROM ft_terms WHERE term >= ? AND term < ? AND term != ? ORDER BY df DESC, term LIMIT ?",
            (word, upper, word, RANK["prefix_max"]))]

    def _similar(self, stem: str) -> list:
        """For a stem no rule holds: `textsearch.similar_terms` among the indexed terms with
        its first character and a length within two."""
        from .textsearch import similar_terms
        if self.con.execute("SELECT 1 FROM ft_terms WHERE term = ?", (stem,)).fetchone():
            return []
        upper = chr(ord(stem[0]) + 1)
        rows = self.con.execute("SELECT term, df FROM ft_terms WHERE term >= ? AND term < ? "
                                "AND length(term) BETWEEN ? AND ?", (stem[0], upper, len(stem) - 2, len(stem) + 2))
        return similar_terms(stem, rows.fetchall())

    def _fulltext(self, slots, book, limit: int):
        """([(rowid, score, covered slots)] best first, at most `limit`; [slot found in any
        rule]): `textsearch.score` over every rule holding a query term (postings by key),
        the nearness bonus worked out only for the rules that could still make the list."""
        from . import textsearch as ts
        found = [False] * len(slots)
        if not slots:
            return [], found
        n_rules = int(self._meta("rules") or 0)
        terms = list(dict.fromkeys(t[0] for s in slots for t in s.terms))
        marks = ",".join("?" * len(terms))
        df = dict(self.con.execute(f"SELECT term, df FROM ft_terms WHERE term IN ({marks})", terms))
        idfs = {t: ts.idf(n_rules, d) for t, d in df.items()}
        docs = {}
        span = self._span(book) if book else None
        for term in df:
            sql = "SELECT doc, sat FROM ft_post WHERE term = ?" + (" AND doc BETWEEN ? AND ?" if span else "")
            for doc, sat in self.con.execute(sql, (term,) + span if span else (term,)):
                docs.setdefault(doc, {})[term] = sat
        # a rule's book matters only for a book's own vocabulary (a term scoped to it)
        books = self._book_of if any(t[3] is not None for s in slots for t in s.terms) else (lambda doc: None)
        for i, s in enumerate(slots):       # found by a term of its own, not by a near spelling
            found[i] = any(t[0] in df and t[0] not in s.fuzzy for t in s.terms)
        if not docs:
            return [], found
        # base and slots found for every rule; the nearness bonus only for those that can still place
        scored = []
        for doc, dterms in docs.items():
            base, covered, best = ts.score_parts(slots, idfs, dterms, books(doc))
            if not any(covered):
                continue
            bound = base + ts.proximity_bound(covered, best) + 1e-6
            scored.append((bound, doc, base, covered, best))
        scored.sort(key=lambda x: (-x[0], x[1]))
        exact = []
        for bound, doc, base, covered, best in scored:
            if len(exact) >= limit:
                kth = sorted(exact, key=lambda x: (-x[1], x[0]))[limit - 1]
                if bound < kth[1]:
                    break
            prox = ts.proximity(slots, covered, best, books(doc), docs[doc], self._places(doc)) \
                if any(covered[i] and covered[i + 1] for i in range(len(slots) - 1)) else 0.0
            exact.append((doc, ts.final(covered, base, prox), covered))
        exact.sort(key=lambda x: (-x[1], x[0]))
        return exact[:limit], found

    def _span(self, book: str) -> tuple:
        """The first and last rowid of a book's rules (a book's rules are consecutive)."""
        row = self.con.execute("SELECT first, last FROM books WHERE id = ?", (book,)).fetchone()
        return tuple(row) if row else (0, -1)

    def _book_of(self, doc: int) -> str:
        if not hasattr(self, "_spans"):
            self._spans = self.con.execute("SELECT first, last, id FROM books ORDER BY first").fetchall()
        import bisect
        i = bisect.bisect_right([s[0] for s in self._spans], doc) - 1
        return self._spans[i][2] if i >= 0 and doc <= self._spans[i][1] else None

    def _places(self, doc):
        con = self.con

        def places_of(term):
            from .textsearch import parse_places
            row = con.execute("SELECT places FROM ft_post WHERE term = ? AND doc = ?", (term, doc)).fetchone()
            return parse_places(row[0]) if row else {}
        return places_of

    def _meta(self, key):
        row = self.con.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def near_titles(self, query: str, n: int = 5, book: str = None):
        """Titles close to `query` (difflib, cutoff 0.5) among the names `_candidates`
        finds for it, then titles close to one of its words (a question's typo: "how do I
        shooot"); only that book's with `book`."""
        from difflib import get_close_matches

        from .textsearch import stopwords, words
        out = []
        tries = [query] + [w for w in words(query) if len(w) >= 4 and w not in stopwords()]
        for q in dict.fromkeys(tries):
            nq = _norm(q)
            tids = list(self._candidates(nq)) if nq else []
            if not tids:
                continue
            marks = ",".join("?" * len(tids))
            titles = [r[0] for r in self.con.execute(
                f"SELECT DISTINCT rules.title FROM names JOIN rules ON rules.rowid = names.rowid_ "
                f"WHERE names.term IN ({marks})" + (" AND names.book = ?" if book else "") + " ORDER BY rules.title",
                tids + ([book] if book else []))]
            lowered = {t.lower(): t for t in titles}
            if q is query:
                hits = get_close_matches(q.lower(), list(lowered), n=n, cutoff=0.5)
            else:       # a word against each title's words
                hits = [t for t in sorted(lowered) if get_close_matches(q, t.split(), n=1, cutoff=0.75)]
            for t in hits:
                if lowered[t] not in out:
                    out.append(lowered[t])
            if len(out) >= n:
                break
        return out[:n]


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
    from .errors import RulebookError

    try:
        # the compiled book a build already holds (the site compiled an edited book moments ago)
        book, consulted = library.load_consulted(bid)
    except RulebookError:
        consulted = set()          # which books the failing checks consulted: compiled again to know
        try:
            book = library.compile_book(bid, consulted=consulted)
        except RulebookError as e:
            return {"info": None, "records": [], "deps": sorted(consulted), "error": e.first_line(), "search": None}
    from .textsearch import analyse_book
    records = [_rule_record(book, r) for r in book.rules]
    return {"info": book_info(book), "records": records, "deps": sorted(consulted), "error": None,
            "search": analyse_book(records, book.vocabulary)}


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
            con.executemany("INSERT OR IGNORE INTO dels VALUES (?, ?)", ((k, tid) for k in _delete_keys(norm)))
        return tid

    from .textsearch import shared_vocabulary
    df, stems, n_rules = {}, {}, 0
    vocab = [(None, e) for e in shared_vocabulary().entries]
    for bid, entry in entries.items():
        if entry["error"] is not None:
            sys.stderr.write(f"rules: book '{bid}' does not compile and is left out of the index: {entry['error']}\n")
            continue
        first = n_rules + 1
        search = entry["search"]
        stems.update(search["stems"])
        vocab += [(bid, e) for e in search["vocabulary"]]
        for rec, doc in zip(entry["records"], search["docs"]):
            cur = con.execute("INSERT INTO rules VALUES (?, ?, ?, ?, ?)",
                              (bid, rec["rule"], rec["title"], json.dumps(rec["aliases"]), json.dumps(rec)))
            rowid = cur.lastrowid
            n_rules += 1
            con.executemany("INSERT INTO ft_post VALUES (?, ?, ?, ?)", ((t, rowid, w, p) for t, w, p in doc["post"]))
            for t, _w, _p in doc["post"]:
                df[t] = df.get(t, 0) + 1
            for name, penalty in [(rec["title"], 0)] + [(a, 5) for a in rec["aliases"]]:
                spellings = {_norm(name)}
                if "-" in name:           # "Re-roll" is also found as "reroll"
                    spellings.add(_norm(_unhyphenated(name)))
                for s in spellings:
                    con.execute("INSERT OR IGNORE INTO names VALUES (?, ?, ?, ?)", (term(s), cur.lastrowid, bid, penalty))
        con.execute("INSERT INTO books VALUES (?, ?, ?, ?)", (bid, json.dumps(entry["info"]), first, n_rules))
    con.executemany("INSERT INTO ft_terms VALUES (?, ?)", sorted(df.items()))
    con.executemany("INSERT INTO ft_stems VALUES (?, ?)", sorted(stems.items()))
    con.executemany("INSERT INTO ft_vocab VALUES (?, ?, ?, ?, ?, ?)",
                    ((list(e[0])[0], scope, i, " ".join(e[0]), e[1] or "", " ".join(e[2])) for i, (scope, e) in enumerate(vocab)))
    con.execute("INSERT INTO meta VALUES ('rules', ?)", (str(n_rules),))
    con.executescript("""
        CREATE INDEX rules_ref ON rules(book, rule);
        CREATE INDEX names_term ON names(term);
        CREATE INDEX ft_vocab_first ON ft_vocab(first);
        CREATE INDEX ft_post_term ON ft_post(term, doc);
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
