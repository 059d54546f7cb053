"""Syntax error recovery: after a syntax error, find what went wrong and parse on.

The grammar is LALR; lark stops at the first token it cannot take.  From there:

1. **Braces.**  A book is written indented: each `}` sits under the line that opened
   its block.  When the parse fails, the braces are read against that layout (outside
   strings, prose and comments).  A block still open when a line at its own indent
   starts a new item, or at the end of the file, lacks its `}`; a `}` indented like no
   block still open is one too many (it closed its block early, so the next `}`
   closes the block around it early).  Such a finding replaces lark's message only
   when correcting it (appending the `}`, or removing the stray one) lets the parse
   get past where it failed: the layout is a hint, the grammar decides.
2. **Items.**  Otherwise the error is reported as the parser saw it, and the smallest
   item holding it (a mechanic, a table, an example, a note, a rule or a section:
   lines from its keyword to the line before the next item at its indent) is blanked
   out, spaces for characters, newlines kept, so every position stays true.  When
   the error sits on the first word of a line that starts an item, the item above is
   the one left unfinished (`k +` before the next `mechanic`): that one is reported
   and blanked.

Then the text is parsed again, up to `parser.MAX_SYNTAX_ERRORS` times.  The file's
tree is what parsed once the broken items were blanked: its semantic checks still
run, so an undefined name in another rule is reported in the same run.  The names
and ids the blanked items would have declared are returned, so that their uses are
not reported as unknown too.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import Diagnostic, Fix, line_of

ITEM_WORDS = frozenset({"section", "rule", "mechanic", "table", "const", "enum", "check", "example", "note",
                        "flavour", "aliases", "keywords", "uses", "odds", "source"})
_FIRST_WORD = re.compile(r"[ \t]*([A-Za-z_][A-Za-z0-9_]*|\"\"\"|\}|\{)")
_OPENER = re.compile(r"^[ \t]*(book|section|rule|mechanic|table|enum|check|die)\s+([A-Za-z0-9_-]+)")
_DECLARED = re.compile(r"\b(mechanic|table|const|enum|check)\s+([A-Za-z_][A-Za-z0-9_]*)")
_IDS = re.compile(r"\b(rule|section)\s+([a-z0-9]+(?:-[a-z0-9]+)*)")
_SECOND_WORD = re.compile(r"^[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]+([A-Za-z_][A-Za-z0-9_]*)", re.M)
_ENUM_BODY = re.compile(r"\benum\s+[A-Za-z_][A-Za-z0-9_]*\s*\{([^}]*)\}")


@dataclass
class Line:
    indent: int          # columns of leading whitespace (a tab counts as one)
    code: bool           # the line starts outside prose
    word: str            # its first word in code ("" if none): a keyword, `}`, `\"\"\"`...
    blank: bool
    comment: int         # the column where a comment starts (0: none), 1-based
    end: int             # the column after the last character of code on the line, 1-based
    ends_code: bool = True   # the line ends outside prose (a '}' appended there is code)


def scan(text: str):
    """(lines, braces): each line's layout, and every brace outside strings, prose and
    comments as (line, column, char), both 1-based."""
    lines, braces = [], []
    prose = False
    for i, raw in enumerate(text.split("\n"), 1):
        starts_code = not prose
        j, comment, last = 0, 0, 0
        while j < len(raw):
            if prose:
                k = raw.find('"""', j)
                if k < 0:
                    j = len(raw)
                    break
                prose, j = False, k + 3
                last = j
                continue
            c = raw[j]
            if c == "#":
                comment = j + 1
                break
            if raw.startswith('"""', j):
                prose, j = True, j + 3
                last = j
                continue
            if c == '"':
                k = j + 1
                while k < len(raw) and raw[k] != '"':
                    k += 2 if raw[k] == "\\" else 1
                j = k + 1
                last = j
                continue
            if c in "{}":
                braces.append((i, j + 1, c))
            if not c.isspace():
                last = j + 1
            j += 1
        stripped = raw.lstrip(" \t")
        m = _FIRST_WORD.match(raw) if starts_code else None
        lines.append(Line(len(raw) - len(stripped), starts_code, m.group(1) if m else "",
                          not stripped or (starts_code and stripped.startswith("#")), comment, last + 1, not prose))
    return lines, braces


def opener(text_lines, line):
    """(kind, name) of the block opened on `line` (1-based), e.g. ("mechanic", "attack"); ("block", "")
    when the line opens none.  The parser names an unfinished item with it too."""
    m = _OPENER.match(text_lines[line - 1]) if 0 < line <= len(text_lines) else None
    return (m.group(1), m.group(2)) if m else ("block", "")


def _what(kind, name):
    return f"{kind} '{name}'" if name else "the block"


@dataclass
class Structural:
    diagnostic: Diagnostic
    text: str            # the text with the correction made (positions kept)


def structure(text: str, path: str, error_line: int):
    """The first brace out of place before (or at) the error, with its correction; or None."""
    lines, braces = scan(text)
    text_lines = text.split("\n")
    stack = []          # (line, column, indent of the opening line)
    by_line = {}
    for b in braces:
        by_line.setdefault(b[0], []).append(b)
    for i, info in enumerate(lines, 1):
        if i > error_line + 1:
            break
        if info.code and info.word in ITEM_WORDS:
            for depth, (ol, _oc, oi) in enumerate(stack):
                if ol < i and oi >= info.indent:
                    return _missing(text, text_lines, lines, path, stack[depth:], i)
        for (bl, bc, ch) in by_line.get(i, ()):
            if ch == "{":
                stack.append((bl, bc, info.indent))
                continue
            if not stack:
                return _stray(text, text_lines, path, bl, bc, None, None)
            ol, oc, oi = stack[-1]
            first_on_line = text_lines[bl - 1][: bc - 1].strip() == ""
            if first_on_line and ol != bl and info.indent != oi:
                deeper = [k for k, (_, _, ind) in enumerate(stack) if ind == info.indent]
                if info.indent > oi and not deeper:
                    later = _next_closer(lines, by_line, bl)
                    return _stray(text, text_lines, path, bl, bc, (ol, oi), later and (later, stack[-2] if len(stack) > 1 else None))
                if deeper and deeper[-1] < len(stack) - 1:
                    return _missing(text, text_lines, lines, path, stack[deeper[-1] + 1:], bl)
            stack.pop()
    if stack and error_line >= len(lines) - 1:
        return _missing(text, text_lines, lines, path, stack, len(lines) + 1)
    return None


def _next_closer(lines, by_line, after):
    for ln in sorted(by_line):
        if ln > after and any(ch == "}" for _, _, ch in by_line[ln]):
            return ln
    return None


def _missing(text, text_lines, lines, path, unclosed, before):
    """Blocks `unclosed` (outermost first) lack their '}' before line `before`."""
    ol, oc, oi = unclosed[-1]
    kind, name = opener(text_lines, ol)
    last = before - 1
    while last > ol and (lines[last - 1].blank or not lines[last - 1].ends_code):
        last -= 1
    at_eof = before > len(lines)
    if at_eof:
        where_line, col = last, lines[last - 1].end
    else:
        where_line, col = before, lines[before - 1].indent + 1
    opened = [f"{_what(*opener(text_lines, b[0]))} (opened on line {b[0]})" for b in reversed(unclosed)]
    which = opened[0] + " is" if len(opened) == 1 else ", ".join(opened[:-1]) + " and " + opened[-1] + " are"
    message = (f"{'some' if len(opened) > 1 else 'a'} '}}' {'are' if len(opened) > 1 else 'is'} missing "
               f"{'at the end of the file' if at_eof else 'before this line'}: {which} not closed")
    hint = "close each block with '}' on a line of its own, indented as the line that opened it"
    closers = "".join(" " * ind + "}\n" for (_, _, ind) in reversed(unclosed))
    fix = Fix(f"Insert '}}' to close {_what(kind, name)}", last + 1, 1, last + 1, 1, closers)
    d = Diagnostic(path, where_line, col, message, hint, line_of(text, where_line), fixes=(fix,))
    # keep positions: close the blocks at the end of the last line of code before
    info = lines[last - 1]
    tl = text_lines[last - 1]
    cut = (info.comment - 1) if info.comment else len(tl)
    new_line = tl[:cut] + " }" * len(unclosed) + tl[cut:]
    fixed = text_lines[:]
    fixed[last - 1] = new_line
    return Structural(d, "\n".join(fixed))


def _stray(text, text_lines, path, bl, bc, opened, later):
    if opened is None:
        message = "this '}' closes no block"
        hint = "remove it: every block it could close is already closed"
    else:
        kind, name = opener(text_lines, opened[0])
        message = f"this '}}' is one too many: it closes {_what(kind, name)} (opened on line {opened[0]}) here"
        if later:
            ln, outer = later
            if outer is not None:
                k2, n2 = opener(text_lines, outer[0])
                message += f", so the '}}' on line {ln} closes {_what(k2, n2)} early"
                if k2 == "section":
                    message += " and the rules after it are read outside the section"
        hint = "remove it; each '}' sits under the line that opened its block"
    only = text_lines[bl - 1].strip() == "}"
    fix = Fix("Remove the extra '}'", bl, 1, bl + 1, 1, "") if only else Fix("Remove the extra '}'", bl, bc, bl, bc + 1, "")
    d = Diagnostic(path, bl, bc, message, hint, line_of(text, bl), fixes=(fix,))
    fixed = text_lines[:]
    fixed[bl - 1] = fixed[bl - 1][: bc - 1] + " " + fixed[bl - 1][bc:]
    return Structural(d, "\n".join(fixed))


# ------------------------------------------------------------------ items
def item_region(lines, line: int, starts_item: bool = False):
    """(first, last) lines of the smallest item holding `line`, or None (the header,
    or text outside any item).  `starts_item`: the error is on the line's first word,
    which then starts an item of its own (a misspelt keyword: `mechanc f(...)`)."""
    line = min(line, len(lines))       # positions count "\n" only; a past-the-end line is the last
    info = lines[line - 1] if 0 < line <= len(lines) else None
    if starts_item and info is not None and info.code and info.word and info.word not in ("}", "{", "book"):
        return line, _item_end(lines, line)
    i = line
    while i >= 1:
        info = lines[i - 1]
        if info.code and (info.word in ITEM_WORDS or info.word == '"""') and not info.blank:
            last = _item_end(lines, i)
            if last >= line:
                return i, last
        if info.code and info.word == "book":
            return None
        i -= 1
    return None


def _item_end(lines, first: int) -> int:
    indent = lines[first - 1].indent
    i = first + 1
    while i <= len(lines):
        info = lines[i - 1]
        if info.code and not info.blank:
            if info.indent < indent:
                break
            if info.indent == indent and info.word != "}" and (info.word in ITEM_WORDS or info.word == '"""'):
                break
        i += 1
    last = i - 1
    while last > first and lines[last - 1].blank:
        last -= 1
    return last


def blank(text: str, first: int, last: int) -> str:
    out = text.split("\n")
    for i in range(first - 1, min(last, len(out))):
        out[i] = " " * len(out[i])
    return "\n".join(out)


def declared_in(text: str, first: int, last: int):
    """The names and ids an item of these lines would declare (so their uses are not
    reported as unknown while the item does not parse)."""
    chunk = "\n".join(text.split("\n")[first - 1: last])
    names = {m.group(2) for m in _DECLARED.finditer(chunk)}
    names |= set(_SECOND_WORD.findall(chunk))      # `mechanc needed_score(...)`: a misspelt keyword
    names |= {m.group(2) for m in _IDS.finditer(chunk)}
    for m in _ENUM_BODY.finditer(chunk):
        names |= set(re.findall(r"\b([A-Za-z_][A-Za-z0-9_]*)\b(?=\s*(?:\"[^\"]*\"\s*)?(?:,|$))", m.group(1).strip()))
    return names


def unfinished_above(lines, text: str, line: int, column: int, accepts_keyword) -> bool:
    """Is the error on the first word of a line that starts an item, or just after it,
    while the parser could not take that word as the keyword it is?  Then the item above
    is the one left unfinished (`k +` before the next `mechanic`).  `accepts_keyword(line)`
    says whether the text up to that line can be followed by the line's keyword."""
    info = lines[line - 1] if 0 < line <= len(lines) else None
    if info is None or not info.code or info.word not in ITEM_WORDS:
        return False
    before = line_of(text, line)[: max(column - 1, 0)]
    if before.strip() and not re.fullmatch(r"[ \t]*" + re.escape(info.word) + r"\s+", before):
        return False
    return not accepts_keyword(line, info.word)


def previous_code_line(lines, line: int) -> int:
    """The last line before `line` that ends in code (not blank, not inside prose)."""
    i = line - 1
    while i >= 1 and (lines[i - 1].blank or not lines[i - 1].ends_code):
        i -= 1
    return i


# ------------------------------------------------------------ a missing return
_STATEMENT_WORDS = frozenset({"let", "roll", "require", "return", "explode", "reroll"})
_LET_NAME = re.compile(r"^[ \t]*let[ \t]+([A-Za-z_][A-Za-z0-9_]*)")


@dataclass
class MissingReturn:
    diagnostic: Diagnostic
    text: str = ""       # the text with `return` written in (positions kept), or "" when it cannot be
    region: tuple = ()   # else the mechanic's lines, to be left out


def missing_return(text: str, path: str, line: int, column: int, token: str, expected) -> "MissingReturn | None":
    """A mechanic's `{ }` body that ends without `return`: the parser stops at its `}`
    ("unexpected '}'") or at the bare result on a line of its own ("unexpected 'count'"),
    and either way what follows is noise.  Said once, at the mechanic, with where the
    `return` goes.  A bare result is mended by writing `return` into its indentation
    (every position kept), so the mechanic's uses are checked; otherwise the mechanic is
    left out and its name counted as declared."""
    if "RETURN" not in set(expected):
        return None
    lines, braces = scan(text)
    if not 0 < line <= len(lines):
        return None
    open_at = []
    for (bl, bc, ch) in braces:
        if (bl, bc) >= (line, column):
            break
        if ch == "{":
            open_at.append((bl, bc))
        elif open_at:
            open_at.pop()
    if not open_at:
        return None
    brace_line = open_at[-1][0]
    decl = next((i for i in range(brace_line, 0, -1) if lines[i - 1].code and lines[i - 1].word in ITEM_WORDS), 0)
    text_lines = text.split("\n")
    m = _OPENER.match(text_lines[decl - 1]) if decl else None
    if m is None or m.group(1) != "mechanic":
        return None
    body = range(brace_line + 1, line + 1)
    if any(lines[i - 1].code and lines[i - 1].word == "return" for i in body):
        return None
    name, name_col = m.group(2), m.start(2) + 1
    here = line_of(text, line)
    bare = token != "}" and not here[: column - 1].strip() and lines[line - 1].word not in _STATEMENT_WORDS
    if token != "}" and not bare:
        return None
    message = f"mechanic '{name}' has no `return`: a {{ }} body ends with `return EXPR`, the value it gives"
    if bare:
        result = here[column - 1:].split("#", 1)[0].strip()
        hint = f"write `return` before its result, on line {line}: return {result}"
        fix = Fix("Insert 'return'", line, column, line, column, "return ")
        d = Diagnostic(path, decl, name_col, message, hint, line_of(text, decl), fixes=(fix,))
        if column - 1 >= len("return "):
            mended = text_lines[:]
            mended[line - 1] = here[: column - 1 - len("return ")] + "return " + here[column - 1:]
            return MissingReturn(d, "\n".join(mended))
        return MissingReturn(d, region=(decl, _item_end(lines, decl)))
    last = previous_code_line(lines, line)
    let = _LET_NAME.match(text_lines[last - 1]) if last > brace_line else None
    hint = (f"end the body with `return EXPR` before the '}}' on line {line} (the value the mechanic gives"
            + (f", e.g. return {let.group(1)})" if let else ")"))
    d = Diagnostic(path, decl, name_col, message, hint, line_of(text, decl))
    return MissingReturn(d, region=(decl, _item_end(lines, decl)))
