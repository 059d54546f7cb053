"""Source text -> AST.  A tiny cached lark factory (as python-hcl2 does) and a
converter from lark's tree to the frozen dataclasses of `nodes`.

Syntax errors become `RulebookError`s pointing at file:line:column with the
expected tokens as a hint; the parser never lets a lark exception escape.
"""
from __future__ import annotations

import functools
import re
import textwrap
from fractions import Fraction
from pathlib import Path

from . import nodes as n
from .errors import Diagnostic, Fix, RulebookError, line_of
from .prose import REF_HINT, REF_RE, parse_ref
from .syntax import (MAX_NESTING, describe_expected, keyword_terminals, lark_parser, missing_open_brace,
                     syntax_diagnostic, too_deep)
from .values import ABSENT

MAX_SYNTAX_ERRORS = 10
# A book is data from strangers: bound what one file can ask of the machine.
MAX_FILE_BYTES = 2_000_000      # the largest real book file is under 150 kB
MAX_DIGITS = 15                 # a number in a rulebook; larger ones are mistakes or attacks
MAX_DIE_SIDES = 1000            # d2 .. d1000
MAX_FACE_COUNT = 100            # faces of one symbol on a custom die


def parse_text(text: str, path: str = "<string>", partial: bool = False) -> n.SourceFile:
    """Parse one `.rules` source; raise RulebookError on any syntax problem.

    With `partial`, problems the tree builder finds after the grammar accepted the
    text are left in `SourceFile.diagnostics` (the tree is whole) instead of
    raised, so that the semantic checks can run as well.

    After the first syntax error the parser resynchronises at the next line that
    starts a rule or section and parses on from there (line numbers kept), so one
    run reports the independent errors of a file, not just the first.
    """
    from lark.exceptions import UnexpectedInput

    if text.startswith("\ufeff"):
        text = text[1:]  # a byte-order mark some editors write: not part of the source
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_FILE_BYTES:
        raise RulebookError([Diagnostic(path, 1, 1, f"this rulebook file is {size / 1e6:.1f} MB; "
                                        f"a file may hold at most {MAX_FILE_BYTES / 1e6:.0f} MB",
                                        "split the book into a folder of .rules files", line_of(text, 1))])
    syntax, skipped = [], set()
    try:
        tree = lark_parser().parse(text, start="start")
    except UnexpectedInput as e:
        tree, syntax, skipped = _recover(text, path, e)
        if tree is None:
            raise RulebookError(syntax) from None
    deep = too_deep(tree)
    if deep is not None:
        line, col = deep
        raise RulebookError([Diagnostic(path, line, col, f"nested more than {MAX_NESTING} levels deep",
                                        "split the expression with `let`, or the sections into fewer levels",
                                        line_of(text, line))])
    sf = _Builder(path, text).source_file(tree)
    if syntax:
        import dataclasses
        sf = dataclasses.replace(sf, diagnostics=tuple(syntax) + sf.diagnostics, skipped=tuple(sorted(skipped)),
                                 recovered=True)
    if sf.diagnostics and not partial:
        raise RulebookError(list(sf.diagnostics))
    return sf


def parse_layer_text(text: str, path: str = "<string>", partial: bool = False) -> n.LayerFile:
    """Parse one layer file (`layer NAME on BOOK { ... }` and its changes) from the
    grammar's `layer_file` start symbol, within the limits a book keeps; raise
    RulebookError on a syntax problem (with `partial`, the tree builder's own problems
    are left in `LayerFile.diagnostics`, as for `parse_text`)."""
    from lark.exceptions import UnexpectedInput

    if text.startswith("\ufeff"):
        text = text[1:]
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_FILE_BYTES:
        raise RulebookError([Diagnostic(path, 1, 1, f"this layer file is {size / 1e6:.1f} MB; "
                                        f"a file may hold at most {MAX_FILE_BYTES / 1e6:.0f} MB",
                                        "split the layer into layers on top of each other", line_of(text, 1))])
    try:
        tree = lark_parser().parse(text, start="layer_file")
    except UnexpectedInput as e:
        d = syntax_diagnostic(e, text, path)
        if d.line == 1 or not text.lstrip().startswith("layer"):
            first = text.lstrip().split(None, 1)[0] if text.strip() else ""
            if first != "layer":
                d = Diagnostic(path, d.line, d.column, d.message,
                               "a layer file starts with `layer NAME on BOOK { ... }`, then its changes "
                               "(replace, add, remove, change: see docs/language.md, \"Layers\")", d.source_line)
        raise RulebookError([d]) from None
    deep = too_deep(tree)
    if deep is not None:
        line, col = deep
        raise RulebookError([Diagnostic(path, line, col, f"nested more than {MAX_NESTING} levels deep",
                                        "split the expression with `let`", line_of(text, line))])
    lf = _Builder(path, text).layer_file(tree)
    if lf.diagnostics and not partial:
        raise RulebookError(list(lf.diagnostics))
    return lf


def _recover(text: str, path: str, e):
    """After a syntax error: (the tree of what parses once the broken parts are mended
    or left out, or None; the syntax diagnostics; names the left-out items declare).
    See `recovery`."""
    from lark.exceptions import UnexpectedInput, UnexpectedToken

    from . import recovery

    diags, skipped, seen = [], set(), set()
    work = text
    for _ in range(MAX_SYNTAX_ERRORS):
        lines, _ = recovery.scan(work)
        line, column = _error_place(e, work)
        found = recovery.structure(work, path, line)
        opening = missing_open_brace(e, work, path) if isinstance(e, UnexpectedToken) and e.token.type != "$END" \
            else None
        if found is not None and _parses_past(found.text, line):
            d = found.diagnostic
            work = found.text
        elif opening is not None:         # mend it: the block's own text is then checked too
            d = opening
            work = _apply(work, opening.fixes[0])
        else:
            culprit = line
            if recovery.unfinished_above(lines, work, line, column, functools.partial(_accepts, work)):
                culprit = recovery.previous_code_line(lines, line)
                d = _unfinished(work, path, lines, culprit, line) if culprit >= 1 else syntax_diagnostic(e, work, path)
            else:
                d = syntax_diagnostic(e, work, path)
            first_word = culprit == line and not line_of(work, line)[: max(column - 1, 0)].strip()
            region = recovery.item_region(lines, culprit, first_word) if culprit >= 1 else None
            if region is None:
                diags.append(_with_source(d, text))
                return None, diags, skipped
            skipped |= recovery.declared_in(text, *region)
            work = recovery.blank(work, *region)
        diags.append(_with_source(d, text))
        if (d.line, d.column) in seen:
            return None, diags, skipped
        seen.add((d.line, d.column))
        try:
            return lark_parser().parse(work, start="start"), diags, skipped
        except UnexpectedInput as more:
            e = more
    return None, diags, skipped


def _accepts(text: str, line: int, word: str) -> bool:
    """Can the text before `line` be followed by the keyword `word`?"""
    from lark.exceptions import UnexpectedInput

    head = "\n".join(text.split("\n")[: line - 1]) + "\n"
    try:
        lark_parser().parse(head, start="start")
        return True           # the text so far is whole: an item may follow
    except UnexpectedInput as e:
        return _keyword_terminal(word) in set(getattr(e, "expected", None) or ())


def _keyword_terminal(word: str) -> str:
    return next((t for t, kw in keyword_terminals().items() if kw == word), word.upper())


def _apply(text: str, fix: Fix) -> str:
    """`text` with a one-line insertion made (positions before it, and on other lines, kept)."""
    lines = text.split("\n")
    ln = lines[fix.line - 1]
    lines[fix.line - 1] = ln[: fix.column - 1] + fix.text + ln[fix.end_column - 1:]
    return "\n".join(lines)


def _with_source(d: Diagnostic, text: str) -> Diagnostic:
    return Diagnostic(d.file, d.line, d.column, d.message, d.hint, line_of(text, d.line), d.severity, d.related, d.fixes)


def _error_place(e, text):
    from lark.exceptions import UnexpectedToken

    if isinstance(e, UnexpectedToken) and e.token.type == "$END" or getattr(e, "line", None) in (None, -1):
        lines = text.split("\n")           # as the parser counts lines: "\n" only
        return len(lines), len(lines[-1]) + 1
    return e.line, e.column


def _parses_past(text: str, line: int) -> bool:
    """Does `text` (a correction) parse, or fail only after `line`?"""
    from lark.exceptions import UnexpectedInput

    try:
        lark_parser().parse(text, start="start")
        return True
    except UnexpectedInput as e:
        return _error_place(e, text)[0] > line


def _unfinished(text, path, lines, line, next_line) -> Diagnostic:
    """The item ending on `line` is not finished when the next item starts (on `next_line`)."""
    from lark.exceptions import UnexpectedInput

    from .recovery import opener, item_region

    info = lines[line - 1]
    offsets = [0]
    for ln in text.split("\n"):
        offsets.append(offsets[-1] + len(ln) + 1)
    cut = offsets[line - 1] + info.end - 1
    expected = ()
    try:
        lark_parser().parse(text[:cut], start="start")
    except UnexpectedInput as ee:
        expected = getattr(ee, "expected", None) or ()
    region = item_region(lines, line)
    kind, name = opener(text.split("\n"), region[0]) if region else ("block", "")
    what = f"{kind} '{name}'" if name else "the declaration"
    hint = (describe_expected(expected) + f" at the end of this line: line {next_line} already starts the next "
            "declaration") if expected else f"line {next_line} already starts the next declaration"
    return Diagnostic(path, line, info.end, f"{what} is not finished at the end of this line", hint,
                      line_of(text, line))



def parse_file(path) -> n.SourceFile:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise RulebookError([Diagnostic(str(p), 1, 1, f"cannot read rulebook: {e}")]) from None
    return parse_text(text, str(p))




class _LayerBuilding:
    """The tree builder's part for layer files (`layer_file`): the header and one
    `nodes.Change` per change; the things a change brings (rules, declarations, rows,
    prose) are built by the book's own methods."""

    MAX_CHANGES = 10_000     # changes in one layer file

    def layer_file(self, tree) -> n.LayerFile:
        head, *changes = tree.children
        header = self.layer_header(head)
        if len(changes) > self.MAX_CHANGES:
            self.error(changes[self.MAX_CHANGES], f"a layer holds at most {self.MAX_CHANGES} changes",
                       "split it into layers on top of each other")
            changes = changes[:self.MAX_CHANGES]
        out = []
        for ch in changes:
            c = self.change(ch)
            if c is not None:
                out.append(c)
        return n.LayerFile(self.path, header, tuple(out), tuple(self.errors))

    def layer_header(self, t) -> n.LayerHeader:
        name, base, *fields = t.children
        kept = {"title": "", "edition": "", "source": ""}
        prose = []
        for f in fields:
            if f.data in ("h_title", "h_edition", "h_source"):
                kept[f.data[2:]] = self.string(f.children[0])
            elif f.data == "h_prose":
                prose.append(self.prose(f.children[0]))
            else:
                word = {"h_units": "units", "h_findings": "findings", "h_dice": "dice", "h_custom_die": "die",
                        "h_vocabulary": "vocabulary"}.get(f.data, f.data)
                self.error(f, f"a layer keeps its book's `{word}`",
                           "a layer's header holds its title, edition, source and prose; "
                           "the book it amends keeps the rest")
        return n.LayerHeader(self.span(t), str(name), str(base), self.span(base), prose=tuple(prose), **kept)

    def change(self, t):
        body, because = t.children
        sp, bsp = self.span(t), self.span(body)
        first = line_of(self.text, sp.line)
        text = (first[sp.column - 1:bsp.end_column - 1] if bsp.end_line == sp.line
                else first[sp.column - 1:].rstrip() + " …").strip()
        reason = self.prose(because.children[0]) if because is not None else None
        made = getattr(self, "c_" + body.data)(body)
        if made is None:
            return None
        what, target, target_span, extra = made
        verb = body.data.split("_", 1)[0]
        return n.Change(sp, verb, what, target, target_span, reason=reason,
                        text=text if len(text) <= 200 else text[:199] + "…", **extra)

    # each c_<alternative> gives (what, target, where the target is written, the other fields)
    def c_replace_decl(self, t):
        d = self.decl(t.children[0])
        return type(d).__name__.lower(), d.name, d.span, {"value": d}

    def c_replace_rule(self, t):
        r = self.rule(t.children[0])
        return "rule", r.id, self.span(t.children[0].children[0]), {"value": r}

    def c_add_rule(self, t):
        r = self.rule(t.children[0])
        return "rule", r.id, self.span(t.children[0].children[0]), {"value": r, "place": self.place(t.children[1])}

    def c_add_section(self, t):
        sec = self.section(t.children[0])
        place = self.place(t.children[1]) if t.children[1] is not None else ()
        return "section", sec.id, self.span(t.children[0].children[0]), {"value": sec, "place": place}

    def place(self, t):
        how = {"place_in": "section", "place_after": "after", "place_before": "before"}[t.data]
        return (how, str(t.children[0]), self.span(t.children[0]))

    def c_add_decl(self, t):
        d = self.decl(t.children[0])
        rid = t.children[1]
        return "decl", str(rid), self.span(rid), {"value": d}

    def c_add_note(self, t):
        kind, text, rid = t.children
        if str(kind) not in n.NOTE_KINDS:
            from .errors import did_you_mean
            self.error(kind, f"unknown note kind '{kind}'",
                       did_you_mean(str(kind), n.NOTE_KINDS) or "kinds: " + ", ".join(n.NOTE_KINDS))
        return "note", str(rid), self.span(rid), {"value": n.Note(self.span(t), str(kind), self.prose(text))}

    def c_add_example(self, t):
        title, body, rid = t.children
        return "example", str(rid), self.span(rid), {"value": self.example(title, body)}

    def c_add_row(self, t):
        row, name = t.children
        return "row", str(name), self.span(name), {"value": tuple(self.cell(c) for c in row.children)}

    def c_add_member(self, t):
        member, name = t.children
        mname, called, printed = member.children
        value = (str(mname), self.called(called), self.string(printed) if printed is not None else None)
        return "member", str(name), self.span(name), {"value": value, "field": str(mname)}

    def c_add_aliases(self, t):
        *words, rid = t.children
        return "aliases", str(rid), self.span(rid), {"value": tuple(self.string(w) for w in words)}

    def c_add_keywords(self, t):
        *words, rid = t.children
        return "keywords", str(rid), self.span(rid), {"value": tuple(self.string(w) for w in words)}

    def c_remove_rule(self, t):
        return "rule", str(t.children[0]), self.span(t.children[0]), {}

    def c_remove_section(self, t):
        return "section", str(t.children[0]), self.span(t.children[0]), {}

    def c_remove_decl(self, t):
        kind, name = t.children
        return str(kind.children[0]), str(name), self.span(name), {}

    def c_remove_row(self, t):
        return self.row_address(t.children[0], "row")

    def c_remove_member(self, t):
        member, name = t.children
        return "member", str(name), self.span(name), {"field": str(member)}

    def c_remove_note(self, t):
        number, rid = t.children
        return "note", str(rid), self.span(rid), {"index": self.int(number)}

    def example_ref(self, tok) -> dict:
        """An example named by its title ("...") or its number in the rule (from 1)."""
        if tok.type == "INT":
            return {"index": self.int(tok)}
        return {"title": self.string(tok)}

    def c_remove_example(self, t):
        ref, rid = t.children
        return "example", str(rid), self.span(rid), self.example_ref(ref)

    def c_change_title(self, t):
        rid, title = t.children
        return "title", str(rid), self.span(rid), {"value": self.string(title)}

    def c_change_text(self, t):
        rid, text = t.children
        return "text", str(rid), self.span(rid), {"value": self.prose(text)}

    def c_change_note(self, t):
        number, rid, text = t.children
        return "note", str(rid), self.span(rid), {"index": self.int(number), "value": self.prose(text)}

    def c_change_example(self, t):
        ref, rid, body = t.children
        return "example", str(rid), self.span(rid), dict(self.example_ref(ref),
                                                         value=self.example(ref if ref.type == "STRING" else None, body))

    def c_change_question(self, t):
        name, words = t.children
        return "question", str(name), self.span(name), {"value": n.Phrase(self.span(words), self.string(words))}

    def c_change_answer(self, t):
        name, words = t.children
        return "answer", str(name), self.span(name), {"value": n.Phrase(self.span(words), self.string(words))}

    def c_change_row(self, t):
        what, target, where, extra = self.row_address(t.children[0], "row") or (None,) * 4
        if what is None:
            return None
        return what, target, where, dict(extra, value=tuple(self.cell(c) for c in t.children[1].children))

    def c_change_value(self, t):
        target, value = self.expr(t.children[0]), self.expr(t.children[1])
        if isinstance(target, n.Name):
            return "const", target.name, target.span, {"value": value}
        made = self.row_address(t.children[0], "cell")
        if made is None:
            return None
        return made[0], made[1], made[2], dict(made[3], value=value)

    def c_change_called(self, t):
        target, words = self.expr(t.children[0]), t.children[1]
        phrase = n.Phrase(self.span(words), self.string(words))
        if isinstance(target, n.Name):
            return "called", target.name, target.span, {"value": phrase}
        if isinstance(target, n.Attr) and isinstance(target.obj, n.Name):
            return "called", target.obj.name, target.obj.span, {"field": target.name, "value": phrase}
        self.error(target.span, "`change ... called` names a declaration, or one of its inputs, members, "
                   "keys, fields or rolls", 'e.g. change suppression_state.under_fire called "Pinned"')
        return None

    def row_address(self, t, what):
        """`table(keys)` (a row, or a one-value table's cell) or `table(keys).field` (a cell)."""
        e = self.expr(t)
        field = ""
        if what == "cell" and isinstance(e, n.Attr):
            field, e = e.name, e.obj
        if isinstance(e, n.Call) and isinstance(e.func, n.Name) and not e.mode:
            keys = tuple(("", a) for a in e.args) + tuple(e.kwargs)
            return what, e.func.name, e.func.span, {"keys": keys, "field": field}
        self.error(e.span, "a table's row is named by the table and its keys",
                   'e.g. superterrans_prices("Sniper") for a row, superterrans_prices("Sniper").listed for '
                   "one of its cells, max_actions for a constant")
        return None


class _Builder(_LayerBuilding):
    """Walks lark's tree and returns AST nodes with spans."""

    def __init__(self, path: str, text: str):
        self.path, self.text = path, text
        self.errors = []

    # ------------------------------------------------------------ helpers
    def span(self, x) -> n.Span:
        m = getattr(x, "meta", None)
        if m is not None and not getattr(m, "empty", True):
            return n.Span(self.path, m.line, m.column, m.end_line, m.end_column)
        if hasattr(x, "line") and x.line is not None:
            return n.Span(self.path, x.line, x.column, x.end_line or x.line, x.end_column or x.column)
        return n.Span(self.path, 0, 0)

    def error(self, where, message, hint=""):
        sp = where if isinstance(where, n.Span) else self.span(where)
        self.errors.append(Diagnostic(self.path, sp.line, sp.column, message, hint, line_of(self.text, sp.line)))

    def int(self, tok) -> int:
        """A whole number token; a runaway length is a diagnostic, not a huge int."""
        if len(str(tok)) > MAX_DIGITS:
            self.error(tok, "number too large", f"at most {MAX_DIGITS} digits")
            return 0
        return int(str(tok))

    def decimal(self, tok) -> Fraction:
        whole, _, part = str(tok).partition(".")
        if len(whole) > MAX_DIGITS or len(part) > MAX_DIGITS:
            self.error(tok, "number too large", f"at most {MAX_DIGITS} digits on each side of the point")
            return Fraction(0)
        return Fraction(str(tok))

    @staticmethod
    def string(tok) -> str:
        s = str(tok)[1:-1]
        return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), s)

    def prose(self, tok) -> n.Prose:
        raw = str(tok)
        if raw.startswith('"""'):
            body = raw[3:-3]
            offset = 3
        else:
            body = self.string(tok)
            offset = 1
        sp = self.span(tok)
        refs = []
        for m in REF_RE.finditer(body):
            # locate the reference in the file for diagnostics
            before = raw[: offset + m.start()]
            line = sp.line + before.count("\n")
            col = (len(before) - before.rfind("\n")) if "\n" in before else sp.column + len(before)
            rsp = n.Span(self.path, line, col)
            parsed = parse_ref(m.group(1))
            if parsed is None:
                self.error(rsp, f"malformed cross-reference [[{m.group(1)}]]", REF_HINT)
                continue
            refs.append(n.Ref(rsp, *parsed))
        return n.Prose(sp, _dedent(body), tuple(refs))

    def text_or_string(self, tok) -> str:
        return _dedent(str(tok)[3:-3]) if str(tok).startswith('"""') else self.string(tok)

    # ------------------------------------------------------------ structure
    def source_file(self, tree) -> n.SourceFile:
        header = None
        items = []
        for ch in tree.children:
            if getattr(ch, "data", None) == "book_header":
                header = self.header(ch)
            else:
                it = self.item(ch)
                if it is not None:
                    items.append(it)
        return n.SourceFile(self.path, header, tuple(items), tuple(self.errors))

    def header(self, t) -> n.Header:
        fields = {"title": "", "edition": "", "source": "", "units": "", "findings": "report"}
        dice, prose, vocabulary, front = [], [], [], {}
        for f in t.children[1:]:
            d = f.data
            if d in ("h_title", "h_edition", "h_source"):
                fields[d[2:]] = self.string(f.children[0])
            elif d == "h_units":
                fields["units"] = str(f.children[0])
            elif d == "h_findings":
                mode = str(f.children[0])
                if mode not in ("fail", "report"):
                    self.error(f.children[0], f"findings {mode}: unknown mode",
                               "write `findings fail` (a check that finds a disagreement fails `rules check`, "
                               "for a game of your own) or `findings report` (the default, for a restated book)")
                else:
                    fields["findings"] = mode
            elif d == "h_dice":
                for tok in f.children:
                    m = re.fullmatch(r"d([0-9]+)", str(tok))
                    if not m or len(m.group(1)) > 4 or not 2 <= int(m.group(1)) <= MAX_DIE_SIDES:
                        self.error(tok, f"'{tok}' is not a standard die",
                                   f"standard dice are written d6, d10, d100... (2 to {MAX_DIE_SIDES} sides); declare custom dice with `die NAME {{ face: count, ... }}`")
                        continue
                    dice.append(n.Die(self.span(tok), str(tok), tuple(range(1, int(m.group(1)) + 1)), False))
            elif d == "h_custom_die":
                faces, shown = [], []
                for face in f.children[1:]:
                    name, called, count_tok = face.children
                    count = self.int(count_tok)
                    if count > MAX_FACE_COUNT:
                        self.error(count_tok, f"a custom die has at most {MAX_FACE_COUNT} faces of one symbol")
                        count = 1
                    faces.extend([str(name)] * count)
                    if called is not None:
                        shown.append((str(name), self.called(called)))
                dice.append(n.Die(self.span(f), str(f.children[0]), tuple(faces), True, tuple(shown)))
            elif d == "h_prose":
                prose.append(self.prose(f.children[0]))
            elif d == "h_vocabulary":
                group = self.vocabulary_group(f, len(vocabulary))
                if group is not None:
                    vocabulary.append(group)
            elif d in ("h_about", "h_start", "h_quick"):
                key = d[2:]
                if key in front:
                    word = "quick reference" if key == "quick" else key
                    self.error(f.children[0] if f.children else f, f"the book header has a second `{word}`",
                               "write it once")
                    continue
                if key == "about":
                    front["about"] = self.prose(f.children[0])
                elif key == "start":
                    front["start"] = n.Named(self.span(f.children[0]), str(f.children[0]))
                else:
                    front["quick"] = self.quick_reference(f)
        return n.Header(self.span(t), str(t.children[0]), dice=tuple(dice), prose=tuple(prose),
                        vocabulary=tuple(vocabulary), **fields, **front)

    def vocabulary_group(self, f, count: int):
        """`vocabulary "a", "b" -> "c"`: a group of search phrases (textsearch.py), within
        the limits a book from a stranger must keep (`textsearch.MAX_*`)."""
        from . import textsearch as ts
        same = [tok for tok in f.children if getattr(tok, "type", None) == "STRING"]
        wide = next((ch for ch in f.children if getattr(ch, "data", None) == "vocabulary_broader"), None)
        broader = list(wide.children) if wide is not None else []
        if count >= ts.MAX_GROUPS:
            self.error(f.children[0], f"a book declares at most {ts.MAX_GROUPS} vocabulary groups",
                       "merge groups of phrases that mean the same thing")
            return None
        if len(same) + len(broader) > ts.MAX_PHRASES:
            self.error(f.children[0], f"a vocabulary group holds at most {ts.MAX_PHRASES} phrases",
                       "split it into groups of phrases that mean the same thing")
            return None
        phrases = []
        for tok in same + broader:
            text = self.string(tok)
            words = ts.words(text)
            if len(words) > ts.MAX_PHRASE_WORDS or len(text) > 80:
                self.error(tok, f"a vocabulary phrase has at most {ts.MAX_PHRASE_WORDS} words",
                           "a phrase is what a player types for one thing: \"ranged attack\", \"LOS\"")
                return None
            if not any(p not in ts.stopwords() for w in words for p in w.split("-")):
                self.error(tok, f"{text!r} has no word search would look for",
                           "search drops stop words such as \"can\", \"the\" and \"how\" "
                           "(rules_dsl/searchdata/stopwords.txt): give a phrase with a word of its own")
                return None
            phrases.append(text)
        return n.VocabularyGroup(self.span(f), tuple(phrases[:len(same)]), tuple(phrases[len(same):]))

    def quick_reference(self, t) -> n.QuickReference:
        """`quick reference { dice ... turn ... tables ... rules ... }`: each part once."""
        parts = {}
        for item in t.children:
            key = item.data[2:]
            if key in parts:
                self.error(item.children[0], f"the quick reference has a second `{key}`",
                           "write it once" + (" (list every name on that one line)" if key in ("tables", "rules") else ""))
                continue
            if key in ("dice", "turn"):
                parts[key] = self.prose(item.children[0])
            else:
                parts[key] = tuple(n.Named(self.span(tok), str(tok)) for tok in item.children)
        return n.QuickReference(self.span(t), **parts)

    def item(self, t):
        d = getattr(t, "data", None)
        if d in ("loose_prose", "section_prose"):
            return self.prose(t.children[0])
        if d == "section":
            return self.section(t)
        if d == "rule":
            return self.rule(t)
        return self.decl(t)

    def section(self, t) -> n.Section:
        prose, items = [], []
        for ch in t.children[2:]:
            it = self.item(ch)
            (prose if isinstance(it, n.Prose) else items).append(it)
        return n.Section(self.span(t), str(t.children[0]), self.string(t.children[1]), tuple(prose), tuple(items))

    def rule(self, t) -> n.Rule:
        kw = {"aliases": [], "keywords": [], "prose": [], "flavour": [], "notes": [], "examples": [], "decls": [],
              "uses": [], "odds": []}
        source = ""
        for ch in t.children[2:]:
            d = ch.data
            if d in ("aliases", "keywords"):
                kw[d].extend(self.string(s) for s in ch.children)
            elif d == "uses":
                for s in ch.children:
                    if not self.string(s).strip():
                        self.error(s, "`uses` names a term: this string is empty", 'e.g. uses "Weapons Skill", "AP"')
                    kw["uses"].append(n.Use(self.span(s), self.string(s)))
            elif d == "odds_inputs":
                call = self.expr(ch.children[0])
                if isinstance(call, n.Call) and isinstance(call.func, n.Name):
                    kw["odds"].append(n.OddsInputs(self.span(ch), call))
                else:
                    self.error(ch, "`odds` takes a call of a dice mechanic with the inputs to show",
                               "e.g. odds attack(shots=3, armour=4)")
            elif d == "source":
                source = self.string(ch.children[0])
            elif d == "prose":
                kw["prose"].append(self.prose(ch.children[0]))
            elif d == "flavour":
                kw["flavour"].append(self.prose(ch.children[0]))
            elif d == "note":
                kind = str(ch.children[0])
                if kind not in n.NOTE_KINDS:
                    from .errors import did_you_mean
                    self.error(ch.children[0], f"unknown note kind '{kind}'",
                               did_you_mean(kind, n.NOTE_KINDS) or "kinds: " + ", ".join(n.NOTE_KINDS))
                kw["notes"].append(n.Note(self.span(ch), kind, self.prose(ch.children[1])))
            elif d == "example":
                kw["examples"].append(self.example(*ch.children))
            else:
                kw["decls"].append(self.decl(ch))
        return n.Rule(self.span(t), str(t.children[0]), self.string(t.children[1]), source=source,
                      **{k: tuple(v) for k, v in kw.items()})

    def example(self, title_tok, body) -> n.Example:
        """`example ["title"] PROSE`: its text and its `>>>` cases (example_parser.py)."""
        from .example_parser import parse_example
        raw = str(body)[3:-3]
        lead = len(raw) - len(raw.lstrip("\n"))
        return n.Example(self.span(body), self.string(title_tok) if title_tok else "", _dedent(raw),
                         body.line + lead, parse_example(self, body))

    # ------------------------------------------------------------ declarations
    def decl(self, t):
        return getattr(self, "d_" + t.data)(t)

    def called(self, t):
        """`called "words"` (or `question`, `answer`, `finding` "words") -> a located Phrase;
        None when the clause is absent.  The words are checked in checks_display.py."""
        if t is None:
            return None
        tok = t.children[0]
        return n.Phrase(self.span(tok), self.string(tok))

    def d_const(self, t):
        name, called, value, doc = t.children
        return n.Const(self.span(t), str(name), self.expr(value), self.string(doc) if doc else "",
                       self.called(called))

    def d_enum(self, t):
        members = [m.children for m in t.children[2:]]
        return n.Enum(self.span(t), str(t.children[0]), tuple(str(name) for name, _, _ in members),
                      tuple((str(name), self.string(text)) for name, _, text in members if text is not None),
                      tuple((str(name), self.called(called)) for name, called, _ in members if called is not None),
                      self.called(t.children[1]))

    def params(self, t):
        if t is None:
            return ()
        out = []
        for p in t.children:
            name, called, typ, default = p.children
            out.append(n.Param(self.span(p), str(name), self.type(typ), self.expr(default) if default is not None else None,
                               self.called(called)))
        return tuple(out)

    def doc(self, t):
        if t is None:
            return ""
        return self.text_or_string(t.children[0])

    def d_mechanic(self, t):
        name, called, params, ret, ret_called, doc, question, answer, body = t.children
        stmts = []
        if body.data == "expr_body":
            result = self.expr(body.children[0])
        else:
            for s in body.children[:-1]:
                stmts.append(self.stmt(s))
            result = self.expr(body.children[-1])
        return n.Mechanic(self.span(t), str(name), self.params(params), self.type(ret), self.doc(doc),
                          tuple(stmts), result, self.called(called), self.called(ret_called),
                          self.called(question), self.called(answer))

    def stmt(self, s):
        sp = self.span(s)
        if s.data == "let":
            return n.Let(sp, str(s.children[0]), self.expr(s.children[1]))
        if s.data == "require":
            return n.Require(sp, self.expr(s.children[0]), self.string(s.children[1]))
        name, called, dice = s.children
        return n.Roll(sp, str(name), self.dice(dice), self.called(called))

    def dice(self, d) -> n.DiceSpec:
        sp = self.span(d)
        if d.data == "one_die":
            return n.DiceSpec(sp, "one", str(d.children[0]))
        if d.data == "dice_literal":
            count, die = str(d.children[0]).split("d")
            if len(count) > MAX_DIGITS:
                self.error(d, "number too large", f"at most {MAX_DIGITS} digits")
                count = "0"
            return n.DiceSpec(sp, "pool", "d" + die, n.Literal(sp, int(count)))
        if d.data == "pool":
            return n.DiceSpec(sp, "pool", str(d.children[1]), self.expr(d.children[0]))
        if d.data in ("reroll", "explode"):
            base = self.dice(d.children[0])
            cap = d.children[2] if d.data == "explode" else None
            return n.DiceSpec(sp, d.data, base.die, base.count, self.expr(d.children[1]),
                              cap=self.expr(cap) if cap is not None else None)
        count, die, on, then = d.children
        return n.DiceSpec(sp, "chain", str(die), self.expr(count) if count is not None else None,
                          self.expr(on), self.expr(then) if then is not None else None)

    def d_table(self, t):
        name, called, params, ret, doc, grid, *rows = t.children
        keys = self.params(params)
        rtype = self.type(ret)
        header, body = None, []
        for r in rows:
            cells = [self.cell(c) for c in r.children]
            if all(c.value == "---" for c in cells):
                continue
            if header is None:
                header = tuple(cells)
            else:
                body.append(tuple(cells))
        return n.Table(self.span(t), str(name), keys, rtype, self.doc(doc), grid is not None,
                       header or (), tuple(body), self.called(called))

    def cell(self, c) -> n.Cell:
        sp = self.span(c)
        d = c.data
        if d == "int_cell":
            return n.Cell(sp, self.signed(c.children[0]))
        if d == "decimal_cell":
            return n.Cell(sp, self.decimal(c.children[0]))
        if d == "str_cell":
            return n.Cell(sp, self.string(c.children[0]))
        if d == "name_cell":
            return n.Cell(sp, n.Name(sp, str(c.children[0])))
        if d == "dice_cell":
            return n.Cell(sp, str(c.children[0]))
        if d == "true_cell":
            return n.Cell(sp, True)
        if d == "false_cell":
            return n.Cell(sp, False)
        if d == "absent_cell":
            return n.Cell(sp, ABSENT)
        if d == "range_cell":
            return n.Cell(sp, (self.signed(c.children[0]), self.signed(c.children[1])))
        if d == "rule_line":
            return n.Cell(sp, "---")
        raise AssertionError(d)  # pragma: no cover

    def signed(self, s) -> int:
        if getattr(s, "data", None) == "negative":
            return -self.int(s.children[0])
        return self.int(s.children[0])          # a number, or `+1` (positive)

    def d_check(self, t):
        name, doc, finding, *rest = t.children
        where, claim = rest[-2], rest[-1]
        binds = [n.Binding(self.span(b), str(b.children[0]), self.expr(b.children[1])) for b in rest[:-2]]
        return n.Check(self.span(t), str(name), self.doc(doc), tuple(binds),
                       self.expr(where) if where is not None else None, self.expr(claim), self.called(finding))

    def kwarg_name(self, t):
        """The name before `=` in a call: a parameter or roll (`die`), or a roll made in a
        called mechanic by its path (`morale.first`, `attack[1].hit_dice`: rollpaths)."""
        parts = []
        while True:
            d = getattr(t, "data", None)
            if d == "name":
                parts.append(str(t.children[0]))
                break
            if d == "attr":
                parts.append("." + str(t.children[1]))
                t = t.children[0]
                continue
            if d == "index" and getattr(t.children[1], "data", None) == "int_lit" and parts:
                parts.append(f"[{self.int(t.children[1].children[0])}]")
                t = t.children[0]
                continue
            self.error(t, "only a parameter or a roll can be given by name here",
                       "write name=value, or a roll made inside a called mechanic by its path: "
                       "morale_test.first=[6, 6] (attack[1].hit_dice for the second call of attack)")
            return None
        if parts and parts[0].startswith("["):
            self.error(t, "a roll's path ends with the roll's name, not a number", "e.g. attack[1].hit_dice=[6, 6]")
            return None
        return "".join(reversed(parts))

    def d_priced(self, t):
        name, doc, *rest = t.children
        where, cost, effect = rest[-3], rest[-2], rest[-1]
        binds = [n.Binding(self.span(b), str(b.children[0]), self.expr(b.children[1])) for b in rest[:-3]]
        return n.Priced(self.span(t), str(name), self.doc(doc), tuple(binds),
                        self.expr(where) if where is not None else None, self.expr(cost), self.expr(effect))

    # ------------------------------------------------------------------ types
    def type(self, t) -> n.Type:
        if t.data == "type":
            opts = [self.type(c) for c in t.children]
            return opts[0] if len(opts) == 1 else n.UnionType(self.span(t), tuple(opts))
        if t.data == "named_type":
            return n.NamedType(self.span(t), str(t.children[0]))
        if t.data == "range_type":
            lo, hi = self.signed(t.children[0]), self.signed(t.children[1])
            if lo > hi:
                self.error(t, f"empty range {lo}..{hi}", "write the low bound first")
            return n.RangeType(self.span(t), lo, hi)
        if t.data == "list_type":
            return n.ListType(self.span(t), self.type(t.children[0]))
        if t.data == "record_type":
            return n.RecordType(self.span(t), tuple((str(f.children[0]), self.type(f.children[2])) for f in t.children),
                                tuple((str(f.children[0]), self.called(f.children[1])) for f in t.children
                                      if f.children[1] is not None))
        raise AssertionError(t.data)  # pragma: no cover

    # ------------------------------------------------------------ expressions
    def expr(self, t) -> n.Expr:
        from lark import Token

        if isinstance(t, Token):  # pragma: no cover - every atom is wrapped
            return n.Name(self.span(t), str(t))
        sp = self.span(t)
        d, c = t.data, t.children
        if d == "int_lit":
            return n.Literal(sp, self.int(c[0]))
        if d == "decimal_lit":
            return n.Literal(sp, self.decimal(c[0]))
        if d == "str_lit":
            return n.Literal(sp, self.string(c[0]))
        if d == "true_lit":
            return n.Literal(sp, True)
        if d == "false_lit":
            return n.Literal(sp, False)
        if d == "absent_lit":
            return n.Literal(sp, ABSENT)
        if d == "name":
            return n.Name(sp, str(c[0]))
        if d == "ifelse":
            return n.IfElse(sp, *(self.expr(x) for x in c))
        if d in ("or_op", "and_op"):
            return n.BoolOp(sp, d[:-3], self.expr(c[0]), self.expr(c[1]))
        if d == "not_op":
            return n.Not(sp, self.expr(c[0]))
        if d == "compare":
            return n.Compare(sp, str(c[1]), self.expr(c[0]), self.expr(c[2]))
        if d == "member":
            return n.Compare(sp, "in", self.expr(c[0]), self.expr(c[1]))
        if d == "not_member":
            return n.Compare(sp, "notin", self.expr(c[0]), self.expr(c[1]))
        if d == "range_expr":
            return n.RangeExpr(sp, self.expr(c[0]), self.expr(c[1]))
        if d == "binop":
            return n.BinOp(sp, str(c[1]), self.expr(c[0]), self.expr(c[2]))
        if d == "neg":
            return n.Neg(sp, self.expr(c[0]))
        if d == "pos":      # `+1`: a sign as books print modifiers; the value itself
            return self.expr(c[0])
        if d == "call":
            args, kwargs = [], []
            a = c[1]
            if a is not None:
                if a.data == "generator":
                    elem, var, src, cond = a.children
                    args.append(n.Comprehension(self.span(a), self.expr(elem), str(var), self.expr(src),
                                                self.expr(cond) if cond is not None else None))
                else:
                    for arg in a.children:
                        if getattr(arg, "data", None) == "kwarg":
                            key = self.kwarg_name(arg.children[0])
                            if key is not None:
                                kwargs.append((key, self.expr(arg.children[1])))
                        else:
                            if kwargs:
                                hint = ""
                                if getattr(arg, "data", None) == "int_lit":
                                    hint = ("a list of dice is written in brackets: "
                                            f"{kwargs[-1][0]}=[..., {arg.children[0]}]")
                                self.error(arg, "a positional argument cannot follow a named one", hint)
                            args.append(self.expr(arg))
            func = self.expr(c[0])
            if isinstance(func, n.Name) and func.name == "round" and len(args) == 2 and not kwargs \
                    and isinstance(args[1], n.Name):
                # `round(x, up)`: the mode is a word, kept apart from the arguments (checked in checks.py)
                return n.Call(sp, func, (args[0],), (), args[1].name)
            return n.Call(sp, func, tuple(args), tuple(kwargs))
        if d == "attr":
            return n.Attr(sp, self.expr(c[0]), str(c[1]))
        if d == "index":
            return n.Index(sp, self.expr(c[0]), self.expr(c[1]))
        if d == "list_lit":
            return n.ListLit(sp, tuple(self.expr(x) for x in c if x is not None))
        if d == "list_comp":
            elem, var, src, cond = c
            return n.Comprehension(sp, self.expr(elem), str(var), self.expr(src),
                                   self.expr(cond) if cond is not None else None)
        if d == "set_lit":
            return n.SetLit(sp, tuple(self.expr(x) for x in c))
        raise AssertionError(d)  # pragma: no cover


def _dedent(body: str) -> str:
    """Strip the common indentation of a triple-quoted block and its edge blank lines."""
    lines = body.split("\n")
    if lines and not lines[0].strip():
        lines = lines[1:]
    else:
        # text starting on the quote line: dedent the rest, keep the first line as is
        first, rest = (lines[0].strip(), lines[1:]) if lines else ("", [])
        rest_text = textwrap.dedent("\n".join(rest))
        return (first + ("\n" + rest_text if rest else "")).strip()
    return textwrap.dedent("\n".join(lines)).strip()
