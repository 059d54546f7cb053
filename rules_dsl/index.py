"""The lookup index behind `rules lookup`, `rules show` and `rules books`.

A SQLite database (FTS5 for full text) in the cache folder, built from the
compiled books and stamped with `cachekeys.key` over every rulebook file's
stamp (path, size, mtime, ctime, inode) and the code that built it.  The fast path only stats the sources and
queries SQLite, so answering a lookup never imports lark or the compiler; any
change to a source or to the code rebuilds the index on the next call.

Ranking: exact title or alias (100/95), then typo-tolerant title and alias
matches (50..90), then full text over prose, keywords and notes (up to 40).
"""
from __future__ import annotations

import json
import os
import re
import sqlite3
import sys
import zlib

from . import cachekeys, paths

SCHEMA = 4


def _index_path() -> str:
    key = zlib.crc32(os.path.realpath(paths.books_dir()).encode())
    return os.path.join(paths.cache_dir(), f"index-{key:08x}.sqlite")


def _source_fingerprint() -> str:
    """`cachekeys.key` of every source's stamp (path, size, mtime, ctime, inode: an
    edit that keeps the size and puts the mtime back still changes the ctime, which
    no user can set) and of the code that builds the index."""
    d = paths.books_dir()
    parts = [f"schema={SCHEMA}", os.path.realpath(d)]
    if os.path.isdir(d):
        for root, dirs, files in os.walk(d):
            dirs.sort()
            for f in sorted(files):
                if f.endswith(".rules"):
                    parts.append(cachekeys.stamp(os.path.join(root, f)))
    return cachekeys.key(*parts, code=cachekeys.code_fingerprint("index"))


def _norm(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", s.lower()).strip()


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

    def _names(self, book):
        """(rowid, normalised name, penalty) for every title (0) and alias (5)."""
        sql = "SELECT rowid_, norm, penalty FROM names" + (" WHERE book=?" if book else "")
        return self.con.execute(sql, (book,) if book else ()).fetchall()

    def lookup(self, query: str, book: str = None, limit: int = 5):
        q = _norm(query)
        if not q:
            return []
        scores = {}

        def offer(rowid, score):
            if score > scores.get(rowid, 0):
                scores[rowid] = score

        from difflib import SequenceMatcher
        sm = SequenceMatcher(autojunk=False)
        sm.set_seq2(q)
        lq = len(q)
        one_word = len(q) >= 5 and " " not in q
        for rowid, nn, penalty in self._names(book):
            if nn == q:
                offer(rowid, 100 - penalty)
                continue
            words = nn.split()
            if q in words or (lq >= 4 and nn.startswith(q)):
                offer(rowid, 80 - penalty)
                continue
            if lq >= 4 and f" {q}" in f" {nn}":
                offer(rowid, 70 - penalty)
                continue
            # typo-tolerant: a similarity ratio >= 0.75 needs lengths within a factor 0.6
            ln = len(nn)
            if 0.6 * lq <= ln <= lq / 0.6:
                sm.set_seq1(nn)
                if sm.quick_ratio() >= 0.75:
                    r = sm.ratio()
                    if r >= 0.75:
                        offer(rowid, 50 + 40 * (r - 0.75) / 0.25 - penalty)
            # a typo of one word of a longer title (e.g. "supresion" -> "Suppressive Fire")
            if one_word:
                for w in words:
                    if len(w) >= 5 and 0.66 * lq <= len(w) <= lq / 0.66:
                        sm.set_seq1(w)
                        if sm.quick_ratio() >= 0.8 and sm.ratio() >= 0.8:
                            offer(rowid, 45 - penalty)
        for rowid, rank in self._fulltext(q, book, limit * 4):
            offer(rowid, 40 * rank)
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

    def near_titles(self, query: str, n: int = 5):
        from difflib import get_close_matches
        titles = [r[0] for r in self.con.execute("SELECT DISTINCT title FROM rules")]
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


def build(path: str, fingerprint: str):
    from .errors import RulebookError
    from .loader import book_ids, load

    tmp = f"{path}.{os.getpid()}.tmp"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(tmp):
        os.unlink(tmp)
    con = sqlite3.connect(tmp)
    con.executescript("""
        CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
        CREATE TABLE books(id TEXT PRIMARY KEY, data TEXT);
        CREATE TABLE rules(book TEXT, rule TEXT, title TEXT, aliases TEXT, data TEXT);
        CREATE INDEX rules_ref ON rules(book, rule);
        CREATE TABLE names(rowid_ INTEGER, book TEXT, norm TEXT, penalty INTEGER);
        CREATE VIRTUAL TABLE fts USING fts5(book UNINDEXED, rule UNINDEXED, title, aliases, text, notes,
                                            tokenize = 'porter unicode61');
    """)
    for bid in book_ids():
        try:
            book = load(bid)
        except RulebookError as e:
            sys.stderr.write(f"rules: book '{bid}' does not compile and is left out of the index: {e.first_line()}\n")
            continue
        con.execute("INSERT INTO books VALUES (?, ?)", (bid, json.dumps({
            "id": bid, "title": book.title, "edition": book.edition, "rules": len(book.rules),
            "mechanics": len(book.mechanics), "examples": sum(len(r.examples) for r in book.rules),
            "tables": len(book.tables), "findings": len(book.findings)})))
        for r in book.rules:
            rec = _rule_record(book, r)
            cur = con.execute("INSERT INTO rules VALUES (?, ?, ?, ?, ?)",
                              (bid, r.id, r.title, json.dumps(list(r.aliases)), json.dumps(rec)))
            con.execute("INSERT INTO names VALUES (?, ?, ?, 0)", (cur.lastrowid, bid, _norm(r.title)))
            for alias in r.aliases:
                con.execute("INSERT INTO names VALUES (?, ?, ?, 5)", (cur.lastrowid, bid, _norm(alias)))
            notes = " ".join(x["text"] for x in rec["notes"])
            con.execute("INSERT INTO fts(rowid, book, rule, title, aliases, text, notes) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (cur.lastrowid, bid, r.id, r.title, " ".join(list(r.aliases) + list(r.keywords)),
                         r.text + "\n" + " ".join(rec["mechanics"]), notes))
    con.execute("INSERT INTO meta VALUES ('fingerprint', ?)", (fingerprint,))
    con.commit()
    con.close()
    os.replace(tmp, path)      # one index per books folder: the new one replaces the old
    cachekeys.sweep()


def ensure_index() -> Index:
    """Open the index, rebuilding it first if any source changed."""
    path = _index_path()
    fp = _source_fingerprint()
    if os.path.exists(path):
        try:
            con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            row = con.execute("SELECT value FROM meta WHERE key='fingerprint'").fetchone()
            if row and row[0] == fp:
                return Index(con)
            con.close()
        except sqlite3.DatabaseError:
            pass
    build(path, fp)
    return Index(sqlite3.connect(f"file:{path}?mode=ro", uri=True))
