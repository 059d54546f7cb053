"""The editor's books: open documents over the files on disk, each book analysed on demand.

`Workspace` holds the text of the documents open in an editor (used in place of
the files on disk, saved or not), finds the book each file belongs to, and
analyses a book into a `BookState` (ws_state.py): its trees, the diagnostics of
`rules check` (syntax, every check, failing worked examples, and findings when
asked) and its `SymbolIndex` (symbol_index.py), cached until a text changes.  It
knows nothing of the Language Server Protocol: the server in `lsp.py` converts.

The features are pure functions over that state, one module each, the way pygls'
examples keep one handler per method: `ws_places` (what is at a place),
`ws_navigation` (definition, references), `ws_hover`, `ws_completion` and
`ws_outline` (outline, folding).  The methods below only route to them, so
`lsp.py` and the tests have one object to hold.  Positions are 1-based lines and
columns, as in `nodes.Span` and `Diagnostic`; answers are `ws_state.Loc`s.

Nothing here raises on a broken document: a file that does not parse keeps the
outline and names of its last version that did (and reports its syntax errors).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Optional

from ..language import nodes as n
from . import ws_completion, ws_hover, ws_navigation, ws_outline
from ..errors import Diagnostic, RulebookError
from ..analysis.symbol_index import SymbolIndex
from .ws_state import BookState, Loc

_HEADER = re.compile(r"^\s*book\s+([a-z][a-z0-9]*(?:-[a-z0-9]+)*)", re.M)


def _parse_loc(location: str):
    """'file:line:col' (or 'file:line') -> (file, line, col)."""
    m = re.match(r"^(.*?):(\d+)(?::(\d+))?$", location)
    if not m:
        return None
    return m.group(1), int(m.group(2)), int(m.group(3) or 1)


class Workspace:
    """Open documents over the books on disk.  `books_dir` is the preferred books
    folder (default: the library's, `RULES_DSL_BOOKS`); a file elsewhere is a book
    on its own (`<dir>/<id>.rules`) or part of one (`<dir>/<id>/*.rules`)."""

    def __init__(self, books_dir=None, cache=None):
        from ..library.loader import Library

        self.default = Library(books_dir, cache)
        self.cache = cache
        self.overlays: dict = {}     # resolved path -> text of an open document
        self._parsed: dict = {}      # path -> (text, SourceFile | None, [Diagnostic])
        self._good: dict = {}        # path -> the last SourceFile that parsed
        self._libs: dict = {}        # books folder -> Library
        self.states: dict = {}       # (books folder, book id) -> BookState
        self.checked: dict = {}      # path -> the diagnostics of its last full check (with their fixes)

    # ------------------------------------------------------------ documents
    def open(self, path, text: str):
        self.overlays[str(Path(path).resolve())] = text

    change = open

    def close(self, path):
        self.overlays.pop(str(Path(path).resolve()), None)

    def text_of(self, path) -> str:
        p = str(Path(path).resolve())
        if p in self.overlays:
            return self.overlays[p]
        try:
            return Path(p).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return ""

    # ------------------------------------------------------------ books
    def library(self, folder: Path):
        """The `Library` of a books folder (the default one, or one made once per folder)."""
        from ..library.loader import Library

        folder = folder.resolve()
        if folder == self.default.books_dir.resolve():
            return self.default
        if folder not in self._libs:
            self._libs[folder] = Library(folder, self.cache)
        return self._libs[folder]

    def locate(self, path):
        """(Library, book id, [file paths]) of the book a `.rules` file belongs to."""
        p = Path(path).resolve()
        lib = self.default
        book_id = lib.book_id_of(p) if p.exists() else None
        if book_id is None and not p.parent.is_dir():
            # a buffer that is no file (an editor's untitled document): a book of its own,
            # named by its header, whose references resolve against the library's books
            m = _HEADER.search(self.text_of(p))
            return lib, (m.group(1) if m else p.stem), [str(p)]
        if book_id is None:
            folder = p.parent
            m = _HEADER.search(self.text_of(p))
            in_folder = False
            if m is not None:
                in_folder = m.group(1) == folder.name and m.group(1) != p.stem
            else:
                for sib in sorted(folder.glob("*.rules")):
                    mm = _HEADER.search(self.text_of(sib))
                    if mm is not None and mm.group(1) == folder.name:
                        in_folder = True
                        break
            if in_folder:
                lib, book_id = self.library(folder.parent), folder.name
            else:
                lib, book_id = self.library(folder), p.stem
        try:
            files = [f.resolve() for f in lib.book_files(book_id)]
        except Exception:
            files = []
        if "+" in book_id:       # a layered book (layers.py): its base's files and its layer's, in that order
            return lib, book_id, [str(f) for f in files] + ([str(p)] if p not in files else [])
        if p not in files:
            files = sorted(files + [p])
        if len(files) > 1 or (files and files[0].parent.name == book_id and files[0].stem != book_id):
            # a folder book: its open documents not yet saved are files of it too
            extra = [Path(o) for o in self.overlays if Path(o).parent == files[0].parent and o.endswith(".rules")]
            files = sorted(set(files) | set(extra))
        return lib, book_id, [str(f) for f in files]

    def _parse(self, path: str, text: str):
        from ..library.layers import is_layer_file
        from ..language.parser import parse_layer_text, parse_text

        hit = self._parsed.get(path)
        if hit is not None and hit[0] == text:
            return hit[1], hit[2]
        try:
            sf = (parse_layer_text if is_layer_file(path) else parse_text)(text, path, partial=True)
            out = (sf, list(sf.diagnostics))
            if not sf.recovered:     # a tree mended after syntax errors lacks the item being edited
                self._good[path] = sf
        except RulebookError as e:
            out = (None, list(e.diagnostics))
        except Exception as e:   # a bug of ours must not take the editor's server down
            out = (None, [Diagnostic(path, 1, 1, f"internal error while parsing: {type(e).__name__}: {e}")])
        self._parsed[path] = (text,) + out
        return out

    def analyse(self, path, run_examples: bool = True, findings: bool = False, check: bool = True) -> BookState:
        """Parse and check the book of `path` with the open documents' texts; every
        diagnostic of every file of the book, keyed by path (files without any: []).
        Without `check`, only parse and index the names (syntax errors only)."""

        lib, book_id, files = self.locate(path)
        texts, trees, syntax, early = {}, {}, [], []
        for f in files:
            texts[f] = self.text_of(f)
            sf, diags = self._parse(f, texts[f])
            if sf is None:
                syntax.extend(diags)
                if f not in self._good and f in self.overlays:   # outline and names from the saved file
                    try:
                        self._parse(f, Path(f).read_text(encoding="utf-8"))
                    except (OSError, UnicodeDecodeError):
                        pass
                if f in self._good:
                    trees[f] = self._good[f]
            else:
                trees[f] = sf
                early.extend(diags)
        # outline and names: a file mended after syntax errors shows its last whole version (if any)
        shown = {f: (self._good[f] if t.recovered and f in self._good else t) for f, t in trees.items()}
        state = BookState(book_id, lib.books_dir, files, texts, shown)
        found = []
        if syntax or not check:
            found = syntax + early
        else:
            try:
                from ..library.layers import assemble_layered
                ast, amended = assemble_layered(book_id, [trees[f] for f in files], texts)
                state.layered = ast if ast.layers else None
                found = self._check(lib, ast, texts, early + amended, run_examples, findings)
            except RulebookError as e:
                found = list(e.diagnostics)
            except Exception as e:
                found = [Diagnostic(path if isinstance(path, str) else str(path), 1, 1,
                                    f"internal error while checking: {type(e).__name__}: {e}")]
        state.diagnostics = {f: [] for f in files}
        for d in found:
            key = str(Path(d.file).resolve()) if d.file and not d.file.startswith("<") else files[0]
            state.diagnostics.setdefault(key, []).append(d)
        if check:
            for f in files:
                self.checked[f] = list(state.diagnostics.get(f, ()))
        self._index(state)
        self.states[(str(lib.books_dir), book_id)] = state
        return state

    def _check(self, lib, ast, texts, early, run_examples, findings) -> list:
        book = lib.compile_ast(ast, texts, early)   # raises RulebookError with every diagnostic
        out = list(book.warnings)
        if run_examples:
            for (_rid, ex), r in zip(book.example_cases(), book.run_examples()):
                if ast.layers and not r.passed:
                    out.extend(_at_changes(ast, ex, r, texts))
                for c in r.cases:
                    if c.passed:
                        continue
                    where = _parse_loc(c.location)
                    if where:
                        src = texts.get(where[0], "").split("\n")
                        line = src[where[1] - 1] if 0 < where[1] <= len(src) else ""
                        out.append(Diagnostic(where[0], where[1], where[2],
                                              f"example fails: >>> {c.source}: expected {c.expected}, got {c.got}",
                                              c.hint, line))
        if findings:
            # the severity `rules check` gives them: a `findings fail` book fails on each
            severity = "error" if book.findings_fail else "information"
            for f in book.findings:
                where = _parse_loc(f.location)
                if where:
                    src = texts.get(where[0], "").split("\n")
                    line = src[where[1] - 1] if 0 < where[1] <= len(src) else ""
                    out.append(Diagnostic(where[0], where[1], where[2], f"finding [{f.category or f.kind}]: {f.text}",
                                          "the header says `findings fail`: fix the source or the check"
                                          if book.findings_fail else "", line, severity=severity))
        return out

    def _index(self, state: BookState):
        """Declarations and name resolution over the trees that parsed (never raises)."""
        from ..analysis.checks import Reporter, collect_declarations
        from ..language.model import BookAST
        from ..analysis.resolve import resolve_book

        sfs = [state.trees[f] for f in state.files if f in state.trees and isinstance(state.trees[f], n.SourceFile)]
        header = next((sf.header for sf in sfs if sf.header is not None), None) or n.Header(n.NOWHERE, state.book_id)
        state.ast = state.layered or BookAST(state.book_id, header, tuple(sf.path for sf in sfs),
                                                               tuple(it for sf in sfs for it in sf.items))
        try:
            state.syms = collect_declarations(state.ast, Reporter(state.texts))
            state.resolved = state.syms.resolved = resolve_book(state.ast, state.syms)
        except Exception:
            from ..analysis.symbols import Symbols
            state.syms, state.resolved = state.syms or Symbols(), {}
            state.syms.resolved = {}
        try:
            state.index = SymbolIndex(state.ast, state.syms, state.texts)
        except Exception:        # a bug of ours must not take the editor's server down: an empty index
            from ..analysis.symbols import Symbols
            state.index = SymbolIndex(None, Symbols(), {})

    def state_of(self, path) -> BookState:
        """The book of `path`, analysed now if its texts changed since (no examples run)."""
        lib, book_id, files = self.locate(path)
        st = self.states.get((str(lib.books_dir), book_id))
        if st is not None and st.files == files and all(st.texts.get(f) == self.text_of(f) for f in files):
            return st
        return self.analyse(path, check=False)

    # ------------------------------------------------------------ features (ws_*.py)
    def hover(self, path, line: int, col: int) -> Optional[str]:
        """Markdown about the thing at (line, col), or None."""
        return ws_hover.hover(self, str(Path(path).resolve()), line, col)

    def definition(self, path, line: int, col: int) -> list:
        """Where the thing at (line, col) is declared: a list of `Loc` (empty if nothing is there)."""
        return ws_navigation.definition(self, str(Path(path).resolve()), line, col)

    def references(self, path, line: int, col: int, include_declaration: bool = True) -> list:
        """Every place that names the thing at (line, col) (`Loc`s, in book order)."""
        return ws_navigation.references(self, str(Path(path).resolve()), line, col, include_declaration)

    def complete(self, path, line: int, col: int) -> list:
        """The `ws_completion.Completion`s for the cursor at (line, col)."""
        return ws_completion.complete(self, str(Path(path).resolve()), line, col)

    def symbols(self, path) -> list:
        """The outline of one file (`ws_outline.Symbol`s)."""
        path = str(Path(path).resolve())
        return ws_outline.symbols(self.state_of(path), path)

    def folding(self, path) -> list:
        """(first line, last line) of every section and rule of a file spanning more than one line."""
        path = str(Path(path).resolve())
        return ws_outline.folding(self.state_of(path), path)

    # ------------------------------------------------------------ quick fixes
    def code_actions(self, path, first_line: int, last_line: int) -> list:
        """Quick fixes for the diagnostics of the last check on lines first..last (1-based):
        [(title, Diagnostic, [(Loc, new text)])].  A diagnostic whose line has changed
        since is not offered (its fix would land in the wrong place)."""
        path = str(Path(path).resolve())
        lines = self.text_of(path).split("\n")
        out = []
        for d in self.checked.get(path, ()):
            if not d.fixes or not first_line <= d.line <= last_line:
                continue
            current = lines[d.line - 1] if 0 < d.line <= len(lines) else ""
            if d.source_line and current != d.source_line:
                continue
            for fx in d.fixes:
                out.append((fx.title, d, [(Loc(path, fx.line, fx.column, fx.end_line, fx.end_column), fx.text)]))
        return out


def _at_changes(ast, ex, result, texts) -> list:
    """A base book's worked example that a layer breaks, said at the changes it follows
    from too (layer_causes.py), so that the layer's own file shows why."""
    from ..library.layer_causes import causes
    out = []
    for case, c in zip(ex.cases, result.cases):
        if c.passed:
            continue
        for ch in causes(ast, case.expr)[:3]:
            src = texts.get(ch.span.file, "").split("\n")
            line = src[ch.span.line - 1] if 0 < ch.span.line <= len(src) else ""
            out.append(Diagnostic(ch.span.file, ch.span.line, ch.span.column,
                                  f"this change breaks a worked example of the base book at {c.location}: "
                                  f">>> {c.source}: expected {c.expected}, got {c.got}",
                                  "give the example its new value in the layer (change example ... of rule ... "
                                  "to ...), or change this change", line))
    return out
