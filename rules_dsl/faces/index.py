"""The lookup index behind `rules lookup`, `rules show` and `rules books`: opening it
(rebuilt first when stale: `ensure_index`) and querying it (`Index`); index_build.py
builds it, index_names.py matches names for both.

A SQLite database (FTS5 for full text) in the cache folder, built from the
compiled books and stamped with every rulebook file's stamp (path, size, mtime,
ctime, inode) and the stamps of the code that built it, kept whole (no hash to
compute at start-up, no collision to fear).  The fast
path only stats the sources (the `.rules` files where books can be: no walk of
the whole tree) and queries SQLite, so answering a lookup never imports lark or
the compiler; any change to a source or to the code rebuilds the index on the
next call.  Rebuilding compiles only the books whose files changed (or whose
cross-referenced books changed): each book's part of the index is cached on its
own (`index_build.book_entries`), and the books to compile are compiled in parallel.

Ranking: a rule's id `book:rule` or exact title (100), exact alias (95), then typo-tolerant title and alias
matches (50..90), then full text (up to 40: 40 x the rule's full-text score over the best
one's), scored as textsearch.py defines (stop words, Porter stems, the vocabulary, BM25F
over title, aliases, keywords, text and notes, nearness), the same definition the site's
search box runs in the browser.  Full text never scans the library in Python either: each
query term's postings come from the `ft_post` table by its key.
Typo-tolerant matching never scans the names in Python: SQLite hands over the
candidates (the distinct names containing the query, the names sharing the most
trigrams with it through an FTS5 trigram index, and the names sharing a
deletion key with it: `index_names.delete_keys`), and difflib scores only those, with the
same scores as a scan of every name would give.
"""
from __future__ import annotations

import json
import os
import sqlite3

from ..library import cachekeys
from .. import paths
from .index_names import FUZZY_CANDIDATES, delete_keys, norm_name, score_name, trigram_query, unhyphenated

SCHEMA = 8


def index_path() -> str:
    """Where the lookup index of the current books folder lives (in the cache folder): the CLI
    deletes it to answer again from a fresh one when SQLite finds it damaged.  Named by the
    folder's FNV-1a hash (32 bits, a few microseconds, no zlib to load); two folders that
    share a name only rebuild each other's index, since its fingerprint holds the path whole."""
    key = 0x811C9DC5
    for byte in os.path.realpath(paths.books_dir()).encode():
        key = ((key ^ byte) * 0x01000193) & 0xFFFFFFFF
    return os.path.join(paths.cache_dir(), f"index-{key:08x}.sqlite")


def source_fingerprint() -> str:
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

    def _info(self, book: str) -> dict:
        infos = self.__dict__.setdefault("_infos", {})
        if book not in infos:
            row = self.con.execute("SELECT data FROM books WHERE id = ?", (book,)).fetchone()
            infos[book] = json.loads(row[0]) if row else {}
        return infos[book]

    def _chain(self, book: str) -> list:
        """`book`, then its base, its base's base... (a layered book's, layers.py); one item
        for a book that is no layer.  Bounded: a chain never loops (the loader refuses one)."""
        out = [book]
        while len(out) <= 16:
            base = self._info(out[-1]).get("base")
            if not base or base in out:
                break
            out.append(base)
        return out

    def _holder(self, book: str, rule: str, depth: int = 0):
        """The rowid of the record that answers for `rule` of `book`: its own, or, for a rule
        a layered book inherits unchanged, its base's (None when there is none)."""
        row = self.con.execute("SELECT rowid FROM rules WHERE book=? AND rule=?", (book, rule)).fetchone()
        if row is not None:
            return row[0]
        info = self._info(book)
        if depth < 16 and info.get("base") and rule in info.get("inherits", ()):
            return self._holder(info["base"], rule, depth + 1)
        return None

    def title(self, book: str, rule: str):
        """The title of `rule` of `book` (an inherited rule's from its base), or None."""
        row = self.con.execute("SELECT title FROM rules WHERE book=? AND rule=?", (book, rule)).fetchone()
        if row is not None:         # the book's own record: one query (a lookup asks this for every [[ref]])
            return row[0]
        rowid = self._holder(book, rule)
        if rowid is None:
            return None
        return self.con.execute("SELECT title FROM rules WHERE rowid=?", (rowid,)).fetchone()[0]

    def _as_of(self, rec: dict, book: str) -> dict:
        """A base's record shown as the layered book's (an inherited rule)."""
        if rec.get("book") != book:
            rec = dict(rec, book=book)
        return rec

    def _allowed(self, book: str):
        """The rowids a search of `book` may answer with: its own records, and for a layered
        book the base records of the rules it inherits; None for a book that is no layer.
        Read from the records of the book's chain alone (one query a book of the chain):
        its cost follows the book, not the library."""
        chain = self._chain(book)
        if len(chain) == 1:
            return None
        allowed = set()
        wanted = None          # the rule ids still looked for lower down the chain (None: all)
        for bid in chain:
            rows = dict(self.con.execute("SELECT rule, rowid FROM rules WHERE book=?", (bid,)))
            for rule, rowid in rows.items():
                if wanted is None or rule in wanted:
                    allowed.add(rowid)
            inherits = set(self._info(bid).get("inherits", ()))
            wanted = inherits if wanted is None else (wanted & inherits)
            wanted -= set(rows)
            if not wanted:
                break
        return allowed

    def get(self, book: str, rule: str) -> dict:
        rowid = self._holder(book, rule)
        if rowid is not None:
            return self._as_of(self._record(rowid, 100), book)
        from ..errors import NotFound
        books = [b["id"] for b in self.books()]
        if book not in books:
            raise NotFound("book", book, books)
        ids = [r[0] for r in self.con.execute("SELECT rule FROM rules WHERE book=?", (book,))]
        ids += self._info(book).get("inherits", [])
        raise NotFound("rule", rule, ids, where=book)

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
                                     (trigram_query(q), FUZZY_CANDIDATES)).fetchall())
            keys = sorted(delete_keys(q))
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
        if not norm_name(query):
            return out
        scores, matched = {}, {}
        allowed = self._allowed(book) if book else None     # a layered book: its rules and its base's
        home = book
        scope = self._chain(book) if book else None           # the books whose records may answer

        def offer(rowid, score):
            if allowed is not None and rowid not in allowed:
                return
            if score > scores.get(rowid, 0):
                scores[rowid] = score

        ref = query.strip().lower()
        if ref.count(":") == 1:        # a rule's stable id `book:rule`, typed as the site shows it
            bid, rid = ref.split(":")
            if home in (None, bid):
                rowid = self._holder(bid, rid)
                if rowid is not None:
                    if allowed is not None:
                        allowed.add(rowid)
                    offer(rowid, 100)
        from difflib import SequenceMatcher
        # "re-roll" is also asked as "reroll" (one spelling when the query has no hyphen)
        for q in dict.fromkeys((norm_name(query), norm_name(unhyphenated(query)))):
            sm = SequenceMatcher(autojunk=False)
            sm.set_seq2(q)
            one_word = len(q) >= 5 and " " not in q
            term_scores = {}
            for tid, nn in self._candidates(q).items():
                s = score_name(q, nn, sm, one_word)
                if s > 0:
                    term_scores[tid] = s
            if term_scores:
                marks = ",".join("?" * len(term_scores))
                sql = f"SELECT term, rowid_, penalty FROM names WHERE term IN ({marks})"
                params = list(term_scores)
                if scope:
                    sql += f" AND book IN ({','.join('?' * len(scope))})"
                    params += scope
                for tid, rowid, penalty in self.con.execute(sql, params):
                    offer(rowid, term_scores[tid] - penalty)
        slots = self._slots(query)
        out["words"] = [s.word for s in slots]
        hits, found = self._fulltext(slots, scope, limit, allowed)
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
            out["results"].append(self._as_of(rec, home) if allowed is not None else rec)
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

    def _fulltext(self, slots, scope, limit: int, allowed=None):
        """([(rowid, score, covered slots)] best first, at most `limit`; [slot found in any
        rule]): `textsearch.score` over every rule holding a query term (postings by key),
        the nearness bonus worked out only for the rules that could still make the list.
        `scope`: the ids of the books whose rules may answer (None: every book), each read
        by its span of rowids; `allowed`: the rowids among them that may (a layered book's)."""
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
        spans = [self._span(b) for b in scope] if scope else [None]
        for term in df:
            for span in spans:
                sql = "SELECT doc, sat FROM ft_post WHERE term = ?" + (" AND doc BETWEEN ? AND ?" if span else "")
                for doc, sat in self.con.execute(sql, (term,) + span if span else (term,)):
                    if allowed is None or doc in allowed:
                        docs.setdefault(doc, {})[term] = sat
        # a rule's book matters only for a book's own vocabulary (a term scoped to it)
        book_of = self._book_of if not scope else \
            (lambda doc: next((b for b, (lo, hi) in zip(scope, spans) if lo <= doc <= hi), None))
        books = book_of if any(t[3] is not None for s in slots for t in s.terms) else (lambda doc: None)
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
        scope = self._chain(book) if book else []     # a layered book: its base's titles too
        for q in dict.fromkeys(tries):
            nq = norm_name(q)
            tids = list(self._candidates(nq)) if nq else []
            if not tids:
                continue
            marks = ",".join("?" * len(tids))
            titles = [r[0] for r in self.con.execute(
                f"SELECT DISTINCT rules.title FROM names JOIN rules ON rules.rowid = names.rowid_ "
                f"WHERE names.term IN ({marks})" + (f" AND names.book IN ({','.join('?' * len(scope))})" if scope else "")
                + " ORDER BY rules.title", tids + scope)]
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


def ensure_index() -> Index:
    """Open the index, rebuilding it first if any source changed.  A cache folder that
    cannot be written (read-only, a regular file) is no error: a fresh index there is
    read as it is, and anything else is built in memory for this command.  A cache folder
    or index file another user could write (`paths.trusted_cache_dir`) is neither read
    nor written: the index is built in memory, the book entries made afresh."""
    path = index_path()
    fp = source_fingerprint()
    root = paths.cache_dir()
    if not paths.trusted_cache_dir(root):            # another user could write it: said once, not used
        from .index_build import book_entries, build_in_memory
        from ..library.loader import DEFAULT
        return Index(build_in_memory(fp, book_entries(DEFAULT)))
    if os.path.isfile(path) and paths.trusted_cache_file(path, root):
        try:
            con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            row = con.execute("SELECT value FROM meta WHERE key='fingerprint'").fetchone()
            if row and row[0] == fp:
                return Index(con)
            con.close()
        except sqlite3.DatabaseError:
            pass
    from .index_build import book_entries, build, build_in_memory
    from ..library.loader import DEFAULT
    entries = book_entries(DEFAULT)
    try:
        build(path, fp, entries)
    except (OSError, sqlite3.OperationalError):      # the cache folder cannot be written
        return Index(build_in_memory(fp, entries))
    return Index(sqlite3.connect(f"file:{path}?mode=ro", uri=True))
