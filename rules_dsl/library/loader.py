"""Finding, parsing (with a cache), checking and compiling books.

A `Library` is a books folder and a cache folder.  The books folder holds one
`.rules` file or one folder of them per book; parsed files are cached as
pickles in the cache folder, keyed by `cachekeys.key` (each file's content and
a fingerprint of the parsing code), so an edited source is re-parsed and nothing
stale is ever used.

`rules_dsl.load` and the other module functions use the *default* library,
whose folders come from the environment at each call: `RULES_DSL_BOOKS` (else
the `rulebooks/` folder beside the package) and `RULES_DSL_CACHE` (else
`~/.cache/rules-dsl`).
"""
from __future__ import annotations

import functools
from pathlib import Path

from . import cachekeys
from .. import paths
from ..errors import NotFound, RulebookError


def fingerprint(paths_) -> tuple:
    """Cheap change detection: `cachekeys.stamp` (path, size, mtime, ctime, inode) of
    every source file (the ctime changes on every edit, even one that restores the
    size and the mtime)."""
    return tuple(cachekeys.stamp(p) for p in paths_)


def parse_cached(path: Path, use_cache: bool = True, cache: Path | None = None, layer: bool = False):
    """Parse one file, reusing a cached AST when the content is unchanged.

    The entry is keyed by `cachekeys.key` (the file's bytes and path, what it is
    parsed as, and the ``parse`` code fingerprint) and replaces the file's older
    entries.  A `layer` file is parsed as one (`parser.parse_layer_text`).
    """
    from ..language.parser import parse_layer_text, parse_text

    path = Path(path)
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        from ..errors import Diagnostic
        raise RulebookError([Diagnostic(str(path), 1, 1, f"the file is not UTF-8 text: {e}")]) from None
    name = str(path)
    folder = Path(cache) if cache is not None else Path(paths.cache_dir())
    key = cachekeys.key(data, name, "layer" if layer else "book", code=cachekeys.code_fingerprint("parse"))
    cfile = folder / "ast" / f"{cachekeys.slot(name)}-{key[:32]}.pickle"
    if use_cache and cfile.is_file():
        try:
            return paths.read_pickle(cfile, root=folder), text
        except Exception:
            pass  # a damaged (or untrusted: paths.read_pickle) cache entry is simply rebuilt
    sf = (parse_layer_text if layer else parse_text)(text, name, partial=True)
    if use_cache and paths.write_pickle(cfile, sf, root=folder):  # caching is an optimisation only
        cachekeys.replace_entry(str(cfile), root=str(folder))
    return sf, text


class _AnyId(frozenset):
    """Stands for the ids of a book that does not parse right now: every id is accepted."""

    def __contains__(self, item):
        return True


ANY_ID = _AnyId()


class Library:
    """A books folder and a cache folder: finds, parses, checks, compiles and
    caches books.

    ``Library()`` reads both folders from the environment at each use
    (`RULES_DSL_BOOKS`, `RULES_DSL_CACHE`); ``Library("my/books", cache="tmp/cache")``
    fixes them (strings or paths).  Compiled books are kept in memory and recompiled when a source
    changes (path, size, mtime, ctime or inode).
    """

    def __init__(self, books=None, cache=None):
        self._books_dir = Path(books) if books is not None else None
        self._cache_dir = Path(cache) if cache is not None else None
        self._loaded: dict = {}      # (folder, book id) -> (fingerprint, Book, consulted ids, their stamps)
        self._elsewhere: dict = {}   # folder -> Library, for load_path

    def __repr__(self):
        return f"Library(books={str(self.books_dir)!r}, cache={str(self.cache_dir)!r})"

    @property
    def books_dir(self):
        """The books folder (a `pathlib.Path`)."""
        return self._books_dir if self._books_dir is not None else Path(paths.books_dir())

    @property
    def cache_dir(self):
        """The cache folder (a `pathlib.Path`)."""
        return self._cache_dir if self._cache_dir is not None else Path(paths.cache_dir())

    # ------------------------------------------------------------ finding
    def book_ids(self) -> list:
        """The ids of the books in the books folder, sorted (empty if there is no such folder)."""
        d = self.books_dir
        if not d.is_dir():
            return []
        ids = set()
        for p in d.iterdir():
            if p.suffix == ".rules" and p.is_file():
                ids.add(p.stem)
            elif p.is_dir() and "+" not in p.name and any(p.glob("*.rules")):
                ids.add(p.name)       # (a layer is one file: `base+name.rules`)
        return sorted(ids)

    def book_files(self, book_id: str) -> list:
        """The source files of a book, in reading order; `NotFound` if there is no such book
        (`BadBookId`, one of them, if `book_id` is not a name: ids are never paths).
        A layered book's (`base+name`, layers.py) are its base's files, then its layer's
        file: what its compiled result depends on.  A base that is missing adds nothing
        here (`parse_book` says so, at the layer's header)."""
        paths.check_book_id(book_id, self.book_ids)
        d = self.books_dir
        if "+" in book_id:
            own = d / f"{book_id}.rules"
            if not own.is_file():
                raise NotFound("book", book_id, self.book_ids())
            base = book_id.rpartition("+")[0]
            try:
                below = self.book_files(base) if base.count("+") < 16 else []
            except NotFound:
                below = []
            return below + [own]
        single = d / f"{book_id}.rules"
        folder = d / book_id
        if single.is_file():
            return [single]
        if folder.is_dir():
            files = sorted(folder.glob("*.rules"))
            if files:
                return files
        raise NotFound("book", book_id, self.book_ids())

    def book_id_of(self, path, strict: bool = False) -> str | None:
        """The id of the book a `.rules` file belongs to, or None if it is not one of this
        library's.  With `strict`, a `.rules` file where a book would be whose name is not a
        book id (`Null Strike.rules`, `...rules`) raises `BadBookId` instead of None."""
        path = Path(path).resolve()
        try:
            rel = path.relative_to(self.books_dir.resolve())
        except ValueError:
            return None
        if path.suffix != ".rules" or len(rel.parts) not in (1, 2):
            return None
        book_id = rel.parts[0] if len(rel.parts) == 2 else path.stem
        if strict:
            paths.check_book_id(book_id)
        try:
            files = self.book_files(book_id)
        except NotFound:
            return None
        return book_id if path in [f.resolve() for f in files] else None

    # ------------------------------------------------------------ building
    def parse_book(self, book_id: str, use_cache: bool = True, partial: bool = False):
        """Parse every file of a book; gather the syntax errors of all its files.

        With `partial`, return (ast, texts, tree-builder diagnostics) when every file
        has a tree, so the semantic passes can run before those are reported."""
        from ..language.model import assemble

        if "+" in book_id:
            return self._parse_layered(book_id, use_cache, partial)
        files, texts, diags, early = [], {}, [], []
        for path in self.book_files(book_id):
            try:
                sf, text = parse_cached(path, use_cache, self.cache_dir)
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

    def _parse_layered(self, book_id: str, use_cache: bool, partial: bool):
        """`parse_book` of a layered book: its base (parsed, or amended by its own layer),
        then the amend pass (layers.apply_layer) with the layer's changes."""
        from . import layers

        path = self.books_dir / f"{book_id}.rules"
        if not path.is_file():
            raise NotFound("book", book_id, self.book_ids())
        lf, text = parse_cached(path, use_cache, self.cache_dir, layer=True)
        problems = layers.check_header(lf, book_id, text, self.book_ids())
        if problems:
            raise RulebookError(problems)
        try:
            base, texts, early = self.parse_book(layers.split_id(book_id)[0], use_cache, partial=True)
        except RulebookError as e:
            raise layers.layered_error(lf, e) from None
        ast, diags = layers.apply_layer(base, lf, book_id, text)
        texts = {**texts, str(path): text}
        early = list(early) + list(lf.diagnostics) + diags
        if partial:
            return ast, texts, early
        if early:
            raise RulebookError(early)
        return ast, texts

    def _other_ids(self):
        """Rule and section ids of another book (parse only), for cross-references."""
        from ..language import nodes as n
        from ..language.model import walk

        @functools.lru_cache(maxsize=None)   # one parse per other book, however many refs point at it
        def ids(other: str):
            if other == "*":
                return set(self.book_ids())
            if other not in self.book_ids():
                return None
            try:
                ast, _ = self.parse_book(other)
            except RulebookError:
                return ANY_ID  # that book's own errors are reported when it is loaded
            return {p.node.id for p in walk(ast.items) if isinstance(p.node, (n.Rule, n.Section))}
        return ids

    def compile_ast(self, ast, texts, early=(), consulted=None):
        """Check and compile an assembled `BookAST` (with its files' `texts`) against this
        library's other books; `early` are the tree builder's diagnostics.  Raises
        `RulebookError` with every diagnostic, sorted by place.  (The editor's workspace
        compiles its open documents' texts through here.)"""
        from .book import Book
        from ..analysis.checks import check_book
        from ..compiler import CompiledBook

        other_ids = self._other_ids()
        if consulted is not None:       # record which other books the references were checked against
            lookup = other_ids

            def other_ids(other):
                consulted.add(other)
                return lookup(other)
        try:
            syms = check_book(ast, texts, other_ids)
        except RulebookError as e:   # the tree builder's problems and the semantic ones, in one report
            found = sorted(list(early) + e.diagnostics, key=lambda d: (d.file, d.line, d.column))
            if ast.layers:           # a layered book: say which change each problem follows from
                from .layer_causes import explain_diagnostics
                found = explain_diagnostics(ast, found)
            raise RulebookError(found) from None
        if early:
            raise RulebookError(list(early))
        return Book(ast, CompiledBook(ast, syms, texts))

    def compile_book(self, book_id: str, use_cache: bool = True, consulted: set | None = None):
        """Parse, check and compile a book afresh (no in-memory reuse).  A set
        `consulted` receives the ids of the other books its cross-references
        were checked against (``*`` for the list of books)."""
        return self.compile_ast(*self.parse_book(book_id, use_cache, partial=True), consulted=consulted)

    # ------------------------------------------------------------ loading
    def load(self, book_id: str, use_cache: bool = True):
        """Load a compiled book by id (e.g. "null-strike"); reloads when a source changes."""
        files = self.book_files(book_id)
        fp = fingerprint(files)
        slot = (str(self.books_dir), book_id)
        hit = self._loaded.get(slot)
        if hit is not None and hit[0] == fp and hit[3] == self._deps_stamp(hit[2]):
            return hit[1]
        consulted = set()
        book = self.compile_book(book_id, use_cache, consulted=consulted)
        self._loaded[slot] = (fp, book, frozenset(consulted), self._deps_stamp(consulted))
        return book

    def _deps_stamp(self, consulted) -> tuple:
        """The stamps of what a book's references were checked against (the other books'
        files; the list of books for ``*``): a kept book is reused only while they hold."""
        from ..errors import RulesError
        parts = []
        for other in sorted(consulted):
            if other == "*":
                parts.append(tuple(self.book_ids()))
                continue
            try:
                parts.append(fingerprint(self.book_files(other)))
            except (OSError, RulesError):
                parts.append(None)
        return tuple(parts)

    def load_consulted(self, book_id: str) -> tuple:
        """(book, the ids of the other books its references were checked against): `load`,
        with what `compile_book(consulted=...)` records, from the same in-memory store."""
        book = self.load(book_id)
        return book, set(self._loaded[(str(self.books_dir), book_id)][2])

    def load_all(self, use_cache: bool = True) -> list:
        """Every book of the folder, compiled."""
        return [self.load(b, use_cache) for b in self.book_ids()]

    def load_path(self, path, use_cache: bool = True):
        """Load the book in a `.rules` file or a folder of them, wherever it is; its
        cross-references resolve against the books beside it."""
        path = Path(path).resolve()
        if not path.exists():
            raise NotFound("book file", str(path), [])
        book_id = path.name if path.is_dir() else path.stem
        folder = path.parent
        if folder == self.books_dir.resolve():
            return self.load(book_id, use_cache)
        lib = self._elsewhere.get(folder)
        if lib is None:
            lib = self._elsewhere[folder] = Library(folder, self.cache_dir)
        return lib.load(book_id, use_cache)

    def loads(self, text: str, name: str = "<text>"):
        """Compile a book from source text (one file's worth; its header names the book).
        Cross-references resolve against this library's books.  Nothing is cached."""
        from ..language.model import assemble
        from ..language.parser import parse_layer_text, parse_text

        if _first_word(text) == "layer":       # a layer: on a book of this library
            from . import layers
            lf = parse_layer_text(text, name)
            book_id = f"{lf.header.base}{layers.SEP}{lf.header.name}"
            problems = layers.check_header(lf, book_id, text, self.book_ids())
            if problems:
                raise RulebookError(problems)
            try:
                base, texts, early = self.parse_book(lf.header.base, partial=True)
            except RulebookError as e:
                raise layers.layered_error(lf, e) from None
            ast, diags = layers.apply_layer(base, lf, book_id, text)
            return self.compile_ast(ast, {**texts, name: text}, list(early) + diags)
        sf = parse_text(text, name)
        book_id = sf.header.id if sf.header is not None else "unnamed"
        return self.compile_ast(assemble(book_id, [sf]), {name: text})


def _first_word(text: str) -> str:
    """The first word of a source, comments and blank lines aside."""
    for line in text.lstrip("\ufeff").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            return line.split(None, 1)[0]
    return ""


DEFAULT = Library()


def books_dir() -> Path:
    return DEFAULT.books_dir


def cache_dir() -> Path:
    return DEFAULT.cache_dir


def book_ids() -> list:
    """The ids of the books in the default library (`RULES_DSL_BOOKS`)."""
    return DEFAULT.book_ids()


def book_files(book_id: str) -> list:
    return DEFAULT.book_files(book_id)


def parse_book(book_id: str, use_cache: bool = True):
    return DEFAULT.parse_book(book_id, use_cache)


def compile_book(book_id: str, use_cache: bool = True):
    return DEFAULT.compile_book(book_id, use_cache)


def load(book_id: str, use_cache: bool = True):
    """Load a compiled book by id (e.g. "null-strike") from the default library;
    reloads when a source changes."""
    return DEFAULT.load(book_id, use_cache)


def load_consulted(book_id: str) -> tuple:
    """(book, the ids of the other books its references were checked against), from the
    default library (`Library.load_consulted`)."""
    return DEFAULT.load_consulted(book_id)


def load_all(use_cache: bool = True) -> list:
    """Every book of the default library, compiled."""
    return DEFAULT.load_all(use_cache)
