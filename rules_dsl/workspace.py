"""What an editor asks about `.rules` files, answered from the ordinary pipeline.

`Workspace` holds the text of the documents open in an editor (used in place of
the files on disk, saved or not) and answers, for a place in a document: the
diagnostics of its book (the same `Diagnostic`s as `rules check`: syntax, every
check, failing worked examples, and findings when asked), hover text, the
definition and the uses of a name or a rule id, completions, the outline and
the folding ranges.  It knows nothing of the Language Server Protocol: the
server in `lsp.py` converts.  Positions here are 1-based lines and columns, as
in `nodes.Span` and `Diagnostic`; a `Loc` is (path, line, column, end_line,
end_column), the end exclusive.

Nothing here raises on a broken document: a file that does not parse keeps the
outline and names of its last version that did (and reports its syntax errors).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple, Optional

from . import nodes as n
from .errors import Diagnostic, RulebookError

KEYWORDS = ("book", "title", "edition", "source", "units", "dice", "die", "vocabulary", "about", "start", "quick",
            "reference", "turn", "tables", "section", "rule", "aliases",
            "keywords", "uses", "odds", "findings", "flavour", "note", "example", "const", "enum", "mechanic", "table", "check",
            "let", "roll", "require", "return", "chain", "of", "on", "then", "reroll", "explode", "up", "to", "grid", "for", "in", "where",
            "priced", "per",
            "if", "else", "and", "or", "not", "true", "false", "absent", "list", "int", "bool", "text", "number",
            "called", "question", "answer", "finding")

_HEADER = re.compile(r"^\s*book\s+([a-z][a-z0-9]*(?:-[a-z0-9]+)*)", re.M)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ID_WORD = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_RULE_LINE = re.compile(r"^\s*(rule|section)\s+([a-z0-9]+(?:-[a-z0-9]+)*)")
_REF = re.compile(r"\[\[(.*?)\]\]")
_USES_LINE = re.compile(r"^\s*uses\s")
_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


class Loc(NamedTuple):
    path: str
    line: int
    column: int
    end_line: int
    end_column: int


@dataclass
class Symbol:
    """One entry of a document's outline."""
    name: str
    kind: str            # section | rule | mechanic | table | enum | const | check
    detail: str
    range: Loc
    selection: Loc
    children: list = field(default_factory=list)


@dataclass
class Completion:
    label: str
    kind: str            # rule | section | book | mechanic | table | enum | member | const | die | builtin | keyword | local
    detail: str = ""


@dataclass
class BookState:
    """One book as last analysed: its files' texts and trees, and what the names mean."""
    book_id: str
    books_dir: Path
    files: list                      # str paths in reading order
    texts: dict                      # path -> text
    trees: dict                      # path -> SourceFile (the last that parsed)
    ast: object = None               # model.BookAST over `trees`
    syms: object = None              # checks.Symbols (declarations only)
    resolved: dict = field(default_factory=dict)   # Name -> resolve.Resolved
    diagnostics: dict = field(default_factory=dict)  # path -> [Diagnostic]
    layered: object = None           # a layered book's amended BookAST (layers.py), when the layer applied


def name_loc(text: str, path: str, span: n.Span, name: str) -> Loc:
    """Where `name` is first written at or after `span`'s start (the span itself if not found)."""
    lines = text.split("\n")
    line, col = span.line, max(span.column, 1)
    pat = re.compile(r"(?<![A-Za-z0-9_-])" + re.escape(name) + r"(?![A-Za-z0-9_-])")
    for i in range(line - 1, min(len(lines), line + 20)):
        start = col - 1 if i == line - 1 else 0
        m = pat.search(lines[i], start)
        if m:
            return Loc(path, i + 1, m.start() + 1, i + 1, m.end() + 1)
    return Loc(path, span.line, span.column, span.line, span.column + len(name))


def _span_loc(span: n.Span) -> Loc:
    end_line = span.end_line or span.line
    end_col = span.end_column or span.column
    return Loc(span.file, span.line, span.column, end_line, end_col)


def _contains(span: n.Span, line: int, col: int) -> bool:
    end_line = span.end_line or span.line
    if not span.line <= line <= end_line:
        return False
    if line == span.line and col < span.column:
        return False
    if line == end_line and span.end_column and col > span.end_column:
        return False
    return True


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
        from .loader import Library

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
    def _library(self, folder: Path):
        from .loader import Library

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
                lib, book_id = self._library(folder.parent), folder.name
            else:
                lib, book_id = self._library(folder), p.stem
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
        from .layers import is_layer_file
        from .parser import parse_layer_text, parse_text

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
                from .layers import assemble_layered
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
        book = lib._compile(ast, texts, early)   # raises RulebookError with every diagnostic
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
                                              "", line))
        if findings:
            # the severity `rules check` gives them: a `findings fail` book fails on each
            severity = "error" if book.findings_fail else "information"
            for f in book.findings:
                where = _parse_loc(f.location)
                if where:
                    src = texts.get(where[0], "").split("\n")
                    line = src[where[1] - 1] if 0 < where[1] <= len(src) else ""
                    out.append(Diagnostic(where[0], where[1], where[2], f"finding [{f.kind}]: {f.message}",
                                          "the header says `findings fail`: fix the source or the check"
                                          if book.findings_fail else "", line, severity=severity))
        return out

    def _index(self, state: BookState):
        """Declarations and name resolution over the trees that parsed (never raises)."""
        from .checks import Reporter, collect_declarations
        from .model import BookAST
        from .resolve import resolve_book

        sfs = [state.trees[f] for f in state.files if f in state.trees and isinstance(state.trees[f], n.SourceFile)]
        header = next((sf.header for sf in sfs if sf.header is not None), None) or n.Header(n.NOWHERE, state.book_id)
        state.ast = state.layered or BookAST(state.book_id, header, tuple(sf.path for sf in sfs),
                                                               tuple(it for sf in sfs for it in sf.items))
        try:
            state.syms = collect_declarations(state.ast, Reporter(state.texts))
            state.resolved = resolve_book(state.ast, state.syms)
        except Exception:
            from .symbols import Symbols
            state.syms, state.resolved = state.syms or Symbols(), {}

    def state_of(self, path) -> BookState:
        """The book of `path`, analysed now if its texts changed since (no examples run)."""
        lib, book_id, files = self.locate(path)
        st = self.states.get((str(lib.books_dir), book_id))
        if st is not None and st.files == files and all(st.texts.get(f) == self.text_of(f) for f in files):
            return st
        return self.analyse(path, check=False)

    # ------------------------------------------------------------ what is at a place
    def _line(self, state, path, line) -> str:
        lines = state.texts.get(path, "").split("\n")
        return lines[line - 1] if 0 < line <= len(lines) else ""

    def at(self, path, line: int, col: int):
        """What is written at (line, col): ("ref", (book, rule)), ("rule-id", id), ("name", Resolved,
        Name node or None), or None; with the state."""
        from .prose import parse_ref
        from .resolve import Resolved

        path = str(Path(path).resolve())
        st = self.state_of(path)
        text = self._line(st, path, line)
        for m in _REF.finditer(text):
            if m.start() < col <= m.end() + 1:
                parsed = parse_ref(m.group(1))
                if parsed:
                    return st, ("ref", parsed[0], parsed[1])
        m = _RULE_LINE.match(text)
        if m and m.start(2) < col <= m.end(2) + 1:
            return st, ("rule-id", m.group(2))
        if _USES_LINE.match(text):   # uses "Weapons Skill": the rule whose title or alias it is
            for m in _STRING.finditer(text):
                if m.start() < col <= m.end():
                    from .symbols import defined_names, name_key
                    rule = defined_names(st.ast).get(name_key(m.group(1))) if st.ast is not None else None
                    return st, (("ref", None, rule) if rule else None)
        best = None
        for node, res in st.resolved.items():
            if node.span.file == path and _contains(node.span, line, col):
                if best is None or (node.span.line, node.span.column) > (best[0].span.line, best[0].span.column):
                    best = (node, res)
        if best is not None:
            return st, ("name", best[1], best[0])
        word = _word_at(text, col, _WORD)
        if not word:
            return st, None
        # a declaration's own name, a table's name cell, an enum's member list, or text the checks never saw
        syms = st.syms
        for kind, table in (("const", syms.consts), ("mechanic", syms.mechanics), ("table", syms.tables),
                            ("enum", syms.enums), ("die", syms.dice)):
            if word in table:
                return st, ("name", Resolved(kind, word), None)
        owners = syms.members.get(word, [])
        if owners:
            return st, ("name", Resolved("member", word, owners[0]), None)
        local = self._local_decl(st, path, line, word)
        if local is not None:
            return st, ("name", Resolved("local", word), None)
        return st, None

    def _enclosing_decl(self, st, path, line):
        for p in self._walk(st):
            d = p.node
            if isinstance(d, (n.Mechanic, n.Check, n.Table, n.Priced)) and d.span.file == path \
                    and d.span.line <= line <= (d.span.end_line or d.span.line):
                return d
        return None

    def _local_decl(self, st, path, line, name) -> Optional[Loc]:
        d = self._enclosing_decl(st, path, line)
        if d is None:
            return None
        text = st.texts.get(path, "")
        if isinstance(d, n.Mechanic):
            for pa in d.params:
                if pa.name == name:
                    return name_loc(text, path, pa.span, name)
            for s in d.body:
                if isinstance(s, (n.Let, n.Roll)) and s.name == name:
                    return name_loc(text, path, s.span, name)
        elif isinstance(d, (n.Check, n.Priced)):
            for b in d.bindings:
                if b.name == name:
                    return name_loc(text, path, b.span, name)
        for x in n.iter_nodes(d):
            if isinstance(x, n.Comprehension) and x.var == name:
                return name_loc(text, path, x.span, name)
        return None

    @staticmethod
    def _walk(st):
        from .model import walk
        return list(walk(st.ast.items)) if st.ast is not None else []

    # ------------------------------------------------------------ targets
    def _rule_node(self, st, rule_id):
        for p in self._walk(st):
            if isinstance(p.node, (n.Rule, n.Section)) and p.node.id == rule_id:
                return p
        return None

    def _other_state(self, st, book_id) -> Optional[BookState]:
        lib = self._library(st.books_dir)
        try:
            files = lib.book_files(book_id)
        except Exception:
            return None
        return self.state_of(files[0])

    def _target_of_ref(self, st, book, rule):
        """(BookState, Placed) of a reference's target rule or section, or (None, None)."""
        if book is not None and book != st.book_id:
            st = self._other_state(st, book)
            if st is None:
                return None, None
        p = self._rule_node(st, rule)
        return (st, p) if p is not None else (None, None)

    def _decl_node(self, st, kind, name):
        syms = st.syms
        table = {"const": syms.consts, "mechanic": syms.mechanics, "table": syms.tables, "enum": syms.enums,
                 "die": syms.dice}.get(kind)
        return table.get(name) if table is not None else None

    def definition(self, path, line: int, col: int) -> list:
        """Where the thing at (line, col) is declared: a list of `Loc` (empty if nothing is there)."""
        path = str(Path(path).resolve())
        st, what = self.at(path, line, col)
        if what is None:
            return []
        if what[0] == "ref":
            tst, p = self._target_of_ref(st, what[1], what[2])
            if p is None:
                return []
            return [name_loc(tst.texts.get(p.node.span.file, ""), p.node.span.file, p.node.span, p.node.id)]
        if what[0] == "rule-id":
            p = self._rule_node(st, what[1])
            return [name_loc(st.texts.get(p.node.span.file, ""), p.node.span.file, p.node.span, p.node.id)] if p else []
        res = what[1]
        if res.kind == "local":
            loc = self._local_decl(st, path, line, res.name)
            return [loc] if loc else []
        if res.kind == "member":
            node = self._decl_node(st, "enum", res.owner) or self._decl_node(st, "die", res.owner)
            if node is None:
                return []
            return [name_loc(st.texts.get(node.span.file, ""), node.span.file, n.Span(
                node.span.file, node.span.line, node.span.column + 1), res.name)]
        node = self._decl_node(st, res.kind, res.name)
        if node is None:
            return []
        return [name_loc(st.texts.get(node.span.file, ""), node.span.file, node.span, res.name)]

    def references(self, path, line: int, col: int, include_declaration: bool = True) -> list:
        """Every place in the book that names the thing at (line, col) (`Loc`s, in book order)."""
        path = str(Path(path).resolve())
        st, what = self.at(path, line, col)
        if what is None:
            return []
        out = []
        if what[0] in ("ref", "rule-id"):
            book, rule = (what[1], what[2]) if what[0] == "ref" else (None, what[1])
            tst, p = self._target_of_ref(st, book, rule)
            if p is None:
                return []
            if include_declaration:
                out.append(name_loc(tst.texts.get(p.node.span.file, ""), p.node.span.file, p.node.span, p.node.id))
            from .prose import parse_ref
            for book_id, f in self._all_files(st):
                for i, l in enumerate(self.text_of(f).split("\n")):
                    for m in _REF.finditer(l):
                        r = parse_ref(m.group(1))
                        if r and r[1] == rule and (r[0] or book_id) == tst.book_id:
                            out.append(Loc(f, i + 1, m.start() + 1, i + 1, m.end() + 1))
            return out
        res = what[1]
        if include_declaration:
            out.extend(self.definition(path, line, col))
        if res.kind == "local":
            d = self._enclosing_decl(st, path, line)
            for node, r in st.resolved.items():
                if r.kind == "local" and r.name == res.name and d is not None and node.span.file == path \
                        and _contains(d.span, node.span.line, node.span.column):
                    out.append(_span_loc(node.span))
        else:
            for node, r in st.resolved.items():
                if r.kind == res.kind and r.name == res.name:
                    out.append(_span_loc(node.span))
            if res.kind == "member":
                for p in self._walk(st):
                    if isinstance(p.node, n.Table):
                        for row in (p.node.header,) + p.node.rows:
                            for c in row:
                                if isinstance(c.value, n.Name) and c.value.name == res.name:
                                    out.append(Loc(c.span.file, c.span.line, c.span.column, c.span.line,
                                                   c.span.column + len(res.name)))
        seen, uniq = set(), []
        for loc in sorted(out, key=lambda x: (st.files.index(x.path) if x.path in st.files else 99, x[1:])):
            if (loc.path, loc.line, loc.column) not in seen:
                seen.add((loc.path, loc.line, loc.column))
                uniq.append(loc)
        return uniq

    def _all_files(self, st):
        """(book id, path) of every file of this book and of the other books beside it."""
        out = [(st.book_id, f) for f in st.files]
        lib = self._library(st.books_dir)
        for b in lib.book_ids():
            if b == st.book_id:
                continue
            try:
                out.extend((b, str(f.resolve())) for f in lib.book_files(b))
            except Exception:
                continue
        return out

    # ------------------------------------------------------------ hover
    def hover(self, path, line: int, col: int) -> Optional[str]:
        """Markdown about the thing at (line, col), or None."""
        path = str(Path(path).resolve())
        st, what = self.at(path, line, col)
        if what is None:
            return None
        if what[0] in ("ref", "rule-id"):
            book, rule = (what[1], what[2]) if what[0] == "ref" else (None, what[1])
            tst, p = self._target_of_ref(st, book, rule)
            if p is None:
                return f"unknown rule `{(book + ':') if book else ''}{rule}`"
            return _rule_hover(tst, p)
        res = what[1]
        syms = st.syms
        if res.kind == "member":
            owners = syms.members.get(res.name, [res.owner])
            parts = []
            for o in owners:
                e = syms.enums.get(o)
                if e is not None:
                    parts.append(f"`{res.name}`: a member of enum `{o}` {{ {', '.join(e.members)} }}")
                else:
                    parts.append(f"`{res.name}`: a face of die `{o}`")
            return "\n\n".join(parts)
        if res.kind == "mechanic":
            return _mechanic_hover(syms.mechanics[res.name])
        if res.kind == "table":
            return _table_hover(syms.tables[res.name])
        if res.kind == "enum":
            e = syms.enums[res.name]
            return f"```rules\nenum {e.name} {{ {', '.join(e.members)} }}\n```"
        if res.kind == "const":
            from .render import expr_text
            c = syms.consts[res.name]
            return f"```rules\nconst {c.name} = {expr_text(c.value)}\n```" + (f"\n\n{c.doc}" if c.doc else "")
        if res.kind == "die":
            d = syms.dice[res.name]
            faces = ", ".join(str(f) for f in dict.fromkeys(d.faces)) if d.custom else f"1..{len(d.faces)}"
            return f"die `{d.name}`: faces {faces}"
        if res.kind == "builtin":
            from .builtins import BUILTINS
            return f"built-in `{res.name}`: {BUILTINS[res.name][3]}"
        if res.kind == "local":
            d = self._enclosing_decl(st, path, line)
            if isinstance(d, n.Mechanic):
                from .render import dice_text, type_text
                for pa in d.params:
                    if pa.name == res.name:
                        return f"parameter `{pa.name}: {type_text(pa.type)}` of `{d.name}`"
                for s in d.body:
                    if isinstance(s, n.Roll) and s.name == res.name:
                        return f"roll `{s.name}: {dice_text(s.dice)}` in `{d.name}`"
                    if isinstance(s, n.Let) and s.name == res.name:
                        return f"local `{s.name}` of `{d.name}`"
            return f"local `{res.name}`"
        if res.kind == "round-mode":
            return f"rounding mode `{res.name}`"
        return None

    # ------------------------------------------------------------ completion
    def complete(self, path, line: int, col: int) -> list:
        path = str(Path(path).resolve())
        st = self.state_of(path)
        before = self._line(st, path, line)[: max(col - 1, 0)]
        opened = before.rfind("[[")
        if opened >= 0 and "]]" not in before[opened:]:
            typed = before[opened + 2:]
            if ":" in typed:
                other = self._other_state(st, typed.split(":", 1)[0])
                return self._rule_items(other) if other is not None else []
            items = self._rule_items(st)
            lib = self._library(st.books_dir)
            items += [Completion(b + ":", "book", "another book") for b in lib.book_ids() if b != st.book_id]
            return items
        word = re.search(r"[A-Za-z_][A-Za-z0-9_]*$", before)
        prefix = word.group(0) if word else ""
        syms = st.syms
        out = []
        for kind, table in (("mechanic", syms.mechanics), ("table", syms.tables), ("enum", syms.enums),
                            ("const", syms.consts), ("die", syms.dice)):
            for name, node in table.items():
                out.append(Completion(name, kind, _short_detail(kind, node)))
        for m, owners in syms.members.items():
            out.append(Completion(m, "member", "member of " + ", ".join(owners)))
        callee = _open_call(before)   # inside `f(...`: f's parameters and rolls, by name
        target = syms.mechanics.get(callee) or syms.tables.get(callee)
        if target is not None:
            from .render import type_text
            out += [Completion(pa.name + "=", "local", f"parameter: {type_text(pa.type)}") for pa in target.params]
            if isinstance(target, n.Mechanic):
                from .render import dice_text
                out += [Completion(s.name + "=", "local", f"roll: {dice_text(s.dice)}")
                        for s in target.body if isinstance(s, n.Roll)]
        d = self._enclosing_decl(st, path, line)
        if isinstance(d, n.Mechanic):
            out += [Completion(pa.name, "local", "parameter") for pa in d.params]
            out += [Completion(s.name, "local", "roll" if isinstance(s, n.Roll) else "let")
                    for s in d.body if isinstance(s, (n.Let, n.Roll))]
        from .builtins import BUILTINS
        out += [Completion(b, "builtin", BUILTINS[b][3]) for b in BUILTINS]
        out += [Completion(k, "keyword") for k in KEYWORDS]
        seen, uniq = set(), []
        for c in out:
            if c.label.startswith(prefix) and c.label not in seen:
                seen.add(c.label)
                uniq.append(c)
        return uniq

    def _rule_items(self, st) -> list:
        out = []
        for p in self._walk(st):
            if isinstance(p.node, n.Rule):
                out.append(Completion(p.node.id, "rule", p.node.title))
            elif isinstance(p.node, n.Section):
                out.append(Completion(p.node.id, "section", p.node.title))
        return out

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

    # ------------------------------------------------------------ outline
    def symbols(self, path) -> list:
        """The outline of one file: sections holding rules holding their declarations."""
        path = str(Path(path).resolve())
        st = self.state_of(path)
        sf = st.trees.get(path)
        if sf is None:
            return []
        text = st.texts.get(path, "")

        def sym(node):
            if isinstance(node, n.Section):
                s = Symbol(node.id, "section", node.title, _span_loc(node.span), name_loc(text, path, node.span, node.id))
                s.children = [c for c in (sym(x) for x in node.items) if c is not None]
                return s
            if isinstance(node, n.Rule):
                s = Symbol(node.id, "rule", node.title, _span_loc(node.span), name_loc(text, path, node.span, node.id))
                s.children = [c for c in (sym(x) for x in node.decls) if c is not None]
                return s
            if isinstance(node, (n.Mechanic, n.Table, n.Enum, n.Const, n.Check, n.Priced)):
                kind = type(node).__name__.lower()
                return Symbol(node.name, kind, _short_detail(kind, node), _span_loc(node.span),
                              name_loc(text, path, node.span, node.name))
            return None

        return [s for s in (sym(x) for x in sf.items) if s is not None]

    def folding(self, path) -> list:
        """(first line, last line) of every section and rule of a file spanning more than one line."""
        out = []

        def visit(items):
            for it in items:
                if isinstance(it, (n.Section, n.Rule)) and it.span.end_line > it.span.line:
                    out.append((it.span.line, it.span.end_line))
                if isinstance(it, n.Section):
                    visit(it.items)
        path = str(Path(path).resolve())
        sf = self.state_of(path).trees.get(path)
        if sf is not None:
            visit(sf.items)
        return out


def _at_changes(ast, ex, result, texts) -> list:
    """A base book's worked example that a layer breaks, said at the changes it follows
    from too (layer_causes.py), so that the layer's own file shows why."""
    from .layer_causes import causes
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


def _open_call(before: str) -> str:
    """The name called by the innermost bracket still open in `before` ("" if none)."""
    depth = 0
    for i in range(len(before) - 1, -1, -1):
        c = before[i]
        if c in ")]":
            depth += 1
        elif c in "([":
            if depth == 0:
                m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*$", before[:i]) if c == "(" else None
                return m.group(1) if m else ""
            depth -= 1
    return ""


def _word_at(text: str, col: int, pattern) -> str:
    for m in pattern.finditer(text):
        if m.start() < col <= m.end() + 1:
            return m.group(0)
    return ""


def _short_detail(kind, node) -> str:
    from .render import type_text
    if kind == "mechanic":
        return _signature(node)
    if kind == "table":
        return f"table {node.name}(" + ", ".join(f"{k.name}: {type_text(k.type)}" for k in node.params) + \
            f") -> {type_text(node.returns)}"
    if kind == "enum":
        return "{ " + ", ".join(node.members) + " }"
    if kind == "const":
        from .render import expr_text
        return f"= {expr_text(node.value)}"
    if kind == "die":
        return "die"
    if kind in ("check", "priced"):
        return node.doc or kind
    return ""


def _signature(m: n.Mechanic) -> str:
    from .render import expr_text, type_text
    params = ", ".join(f"{p.name}: {type_text(p.type)}" + (f" = {expr_text(p.default)}" if p.default is not None else "")
                       for p in m.params)
    return f"mechanic {m.name}({params}) -> {type_text(m.returns)}"


def _ranges(params) -> str:
    from .render import type_text
    lines = [f"- `{p.name}`: {type_text(p.type)}" for p in params]
    return "\n".join(lines)


def _decl_hover(head: str, doc: str, params, tail: str = "") -> str:
    """A mechanic's or table's hover: its signature, its doc, its parameters' ranges."""
    out = f"```rules\n{head}\n```"
    if doc:
        out += f"\n\n{doc}"
    if params:
        out += "\n\n" + _ranges(params)
    return out + tail


def _mechanic_hover(m: n.Mechanic) -> str:
    from .render import dice_text
    rolls = [s for s in m.body if isinstance(s, n.Roll)]
    tail = "\n\nrolls: " + ", ".join(f"`{s.name}: {dice_text(s.dice)}`" for s in rolls) if rolls else ""
    return _decl_hover(_signature(m), m.doc, m.params, tail)


def _table_hover(t: n.Table) -> str:
    return _decl_hover(_short_detail("table", t), t.doc, t.params, f"\n\n{len(t.rows)} rows")


def _rule_hover(st: BookState, p) -> str:
    from .prose import parse_prose, plain_text

    node = p.node
    kind = "rule" if isinstance(node, n.Rule) else "section"
    where = " › ".join(p.section_titles)
    out = f"**{node.title}** ({kind} `{st.book_id}:{node.id}`)" + (f"\n\n{where}" if where else "")
    if node.prose:
        text = plain_text(parse_prose(node.prose[0].text), first_only=True)
        if len(text) > 400:
            text = text[:399].rsplit(" ", 1)[0] + "…"
        out += f"\n\n{text}"
    return out
