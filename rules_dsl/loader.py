"""Finding, parsing (with a cache), checking and compiling books.

Books live in the rulebooks folder: `RULES_DSL_BOOKS` if set, else the
`rulebooks/` folder beside the package.  Parsed files are cached as pickles in
the user cache folder (`RULES_DSL_CACHE`, else `~/.cache/rules-dsl`), keyed by
each file's content hash and the grammar and package versions, so an edited
source is re-parsed and nothing stale is ever used.
"""
from __future__ import annotations

import functools
import hashlib
import os
import pickle
from pathlib import Path

from . import __version__, paths
from .errors import NotFound, RulebookError

_BOOKS: dict = {}      # book id -> (fingerprint, Book)


def books_dir() -> Path:
    return Path(paths.books_dir())


def cache_dir() -> Path:
    return Path(paths.cache_dir())


def book_ids() -> list:
    d = books_dir()
    if not d.is_dir():
        return []
    ids = set()
    for p in d.iterdir():
        if p.suffix == ".rules" and p.is_file():
            ids.add(p.stem)
        elif p.is_dir() and any(p.glob("*.rules")):
            ids.add(p.name)
    return sorted(ids)


def book_files(book_id: str) -> list:
    d = books_dir()
    single = d / f"{book_id}.rules"
    folder = d / book_id
    if single.is_file():
        return [single]
    if folder.is_dir():
        files = sorted(folder.glob("*.rules"))
        if files:
            return files
    raise NotFound("book", book_id, book_ids())


def fingerprint(paths) -> tuple:
    """Cheap change detection: path, size, mtime, ctime and inode of every source file
    (the ctime changes on every edit, even one that restores the size and the mtime)."""
    out = []
    for p in paths:
        st = os.stat(p)
        out.append((str(p), st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino))
    return tuple(out)


@functools.lru_cache(maxsize=1)
def _grammar_key() -> str:
    """What a cached AST depends on besides its source: the grammar and the AST code."""
    from .parser import GRAMMAR_PATH
    h = hashlib.sha256(GRAMMAR_PATH.read_bytes())
    for mod in ("parser.py", "nodes.py"):
        h.update((Path(__file__).with_name(mod)).read_bytes())
    return h.hexdigest()[:16] + "-" + __version__


def parse_cached(path: Path, use_cache: bool = True):
    """Parse one file, reusing a cached AST when the content is unchanged."""
    from .parser import parse_text

    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        from .errors import Diagnostic
        raise RulebookError([Diagnostic(str(path), 1, 1, f"the file is not UTF-8 text: {e}")]) from None
    key = hashlib.sha256(data + str(path).encode() + _grammar_key().encode()).hexdigest()
    cfile = cache_dir() / "ast" / f"{key}.pickle"
    if use_cache and cfile.is_file():
        try:
            with open(cfile, "rb") as f:
                return pickle.load(f), text
        except Exception:
            pass  # a damaged cache entry is simply rebuilt
    sf = parse_text(text, str(path), partial=True)
    if use_cache:
        paths.write_pickle(cfile, sf)  # caching is an optimisation only
    return sf, text


def parse_book(book_id: str, use_cache: bool = True, partial: bool = False):
    """Parse every file of a book; gather the syntax errors of all its files.

    With `partial`, return (ast, texts, builder diagnostics) when every file has a
    tree, so the caller can run the semantic passes before reporting them."""
    from .model import assemble

    files, texts, diags, early = [], {}, [], []
    for path in book_files(book_id):
        try:
            sf, text = parse_cached(path, use_cache)
        except RulebookError as e:
            diags.extend(e.diagnostics)
            continue
        files.append(sf)
        early.extend(sf.diagnostics)
        texts[str(path)] = text
    if diags:
        raise RulebookError(diags + early)
    if partial:
        return assemble(book_id, files), texts, early
    if early:
        raise RulebookError(early)
    return assemble(book_id, files), texts


class _AnyId(frozenset):
    """Stands for the ids of a book that does not parse right now: every id is accepted."""

    def __contains__(self, item):
        return True


ANY_ID = _AnyId()


def _other_ids(book_id: str):
    """Rule and section ids of another book (parse only), for cross-references."""
    from . import nodes as n
    from .model import walk

    @functools.lru_cache(maxsize=None)   # one parse per other book, however many refs point at it
    def ids(other: str):
        if other == "*":
            return set(book_ids())
        if other not in book_ids():
            return None
        try:
            ast, _ = parse_book(other)
        except RulebookError:
            return ANY_ID  # that book's own errors are reported when it is loaded
        return {p.node.id for p in walk(ast.items) if isinstance(p.node, (n.Rule, n.Section))}
    return ids


def compile_book(book_id: str, use_cache: bool = True):
    from .book import Book
    from .checks import check_book
    from .compiler import CompiledBook

    ast, texts, early = parse_book(book_id, use_cache, partial=True)
    try:
        syms = check_book(ast, texts, _other_ids(book_id))
    except RulebookError as e:
        raise RulebookError(sorted(early + e.diagnostics, key=lambda d: (d.file, d.line, d.column))) from None
    if early:
        raise RulebookError(early)
    return Book(ast, CompiledBook(ast, syms, texts))


def load(book_id: str, use_cache: bool = True):
    """Load a compiled book by id (e.g. "null-strike"); reloads when a source changes."""
    fp = fingerprint(book_files(book_id))
    hit = _BOOKS.get(book_id)
    if hit is not None and hit[0] == fp:
        return hit[1]
    book = compile_book(book_id, use_cache)
    _BOOKS[book_id] = (fp, book)
    return book


def load_all(use_cache: bool = True) -> list:
    return [load(b, use_cache) for b in book_ids()]
