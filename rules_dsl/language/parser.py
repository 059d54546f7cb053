"""Source text -> AST: the entry points (`parse_text`, `parse_layer_text`, `parse_file`).

Each parses with the grammar's LALR parser (`syntax.lark_parser`, built once), guards
what a file may ask of the machine (its size here, its nesting with `syntax.too_deep`),
and hands lark's tree to `tree_builder.TreeBuilder`, one method per grammar rule.
Syntax errors become `RulebookError`s pointing at file:line:column with a caret and a
hint; the parser never lets a lark exception escape. After a syntax error in a book,
`_recover` drives `recovery` to mend or leave out the broken item and parse the rest,
so that one run reports a file's independent errors.
"""
from __future__ import annotations

import functools
from pathlib import Path

from . import nodes as n
from ..errors import Diagnostic, Fix, RulebookError, line_of
from .syntax import (MAX_NESTING, describe_expected, keyword_terminals, lark_parser, missing_open_brace,
                     syntax_diagnostic, too_deep)
from .tree_builder import TreeBuilder

MAX_SYNTAX_ERRORS = 10
# A book is data from strangers: bound what one file can ask of the machine (the
# limits on numbers, dice and layers are the tree builder's: tree_tokens, tree_header,
# tree_layers).
MAX_FILE_BYTES = 2_000_000      # the largest real book file is under 150 kB


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
    sf = TreeBuilder(path, text).visit(tree)
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
    lf = TreeBuilder(path, text).visit(tree)
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
        elif (no_return := _missing_return(e, work, path, line, column)) is not None:
            d = no_return.diagnostic
            if no_return.text:
                work = no_return.text
            else:
                skipped |= recovery.declared_in(text, *no_return.region)
                work = recovery.blank(work, *no_return.region)
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


def _missing_return(e, text, path, line, column):
    """A mechanic's body without `return` (recovery.missing_return), or None."""
    from lark.exceptions import UnexpectedToken

    from . import recovery

    if not isinstance(e, UnexpectedToken) or e.token.type == "$END":
        return None
    return recovery.missing_return(text, path, line, column, str(e.token), e.expected)


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
