"""The grammar and its syntax errors: the LALR parser built once (`lark_parser`), and a
lark error explained as a `Diagnostic` that teaches (`syntax_diagnostic`: what was
expected, in words; a missing brace or an unclosed prose block named; the Python or
another language's habit the author typed).

It sits below the tree builder (`parser.py`) and the worked-examples parser
(`example_parser.py`), which both parse with this grammar and explain their errors
the same way.
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

from ..errors import Diagnostic, Fix, line_of

MAX_NESTING = 100               # levels of the syntax tree; the real books reach 17

GRAMMAR_PATH = Path(__file__).with_name("grammar.lark")


@functools.lru_cache(maxsize=1)
def lark_parser(use_cache: bool = True):
    """Build the LALR parser once per process.

    Grammar analysis is the slow part (~0.25 s), so lark's own cache keeps the
    analysed tables in the cache folder; lark checks the grammar's hash before
    reusing them, so an edited grammar is never served stale.  lark unpickles that
    file, so it is used only in a folder and as a file no other user can write
    (`paths.trusted_cache_file`), and made so (not writable by others) once lark wrote it.
    """
    import os
    from lark import Lark

    from .. import paths

    cache = False
    if use_cache:
        root = paths.cache_dir()
        cache = os.path.join(root, "grammar.lark-cache")
        try:
            paths.make_cache_dirs(root)
            if os.path.lexists(cache) and not paths.trusted_cache_file(cache, root):
                cache = False
        except OSError:
            cache = False
    parser = Lark(GRAMMAR_PATH.read_text(), parser="lalr", lexer="contextual", start=["start", "example_expr", "layer_file"],
                  propagate_positions=True, maybe_placeholders=True, cache=cache)
    if cache:
        try:
            mode = os.stat(cache).st_mode
            if mode & 0o022:                   # lark writes it as the umask says
                os.chmod(cache, mode & ~0o022)
        except OSError:
            pass
    return parser


# Friendly names for the terminals lark reports as expected.
_TOKEN_NAMES = {
    "RBRACE": "'}'", "LBRACE": "'{'", "LPAR": "'('", "RPAR": "')'", "LSQB": "'['", "RSQB": "']'",
    "COMMA": "','", "COLON": "':'", "EQUAL": "'='", "VBAR": "'|'", "NAME": "a name", "ID": "an id",
    "STRING": "a \"string\"", "PROSE": "\"\"\"prose\"\"\"", "INT": "a number", "CMP": "a comparison",
    "ADD": "'+' or '-'", "MUL": "'*', '/' or '%'", "__ANON_0": "'..'", "DICE": "dice such as 3d10",
    "MINUS": "'-'", "DOT": "'.'", "RARROW": "'->'", "$END": "end of file",
}


@functools.lru_cache(maxsize=1)
def _anonymous_terminals() -> dict:
    """lark's names for anonymous tokens (__ANON_1) -> the text they stand for ('->')."""
    out = {}
    for t in lark_parser().terminals:
        if t.name.startswith("__") and getattr(t.pattern, "type", "") == "str":
            out[t.name] = repr(t.pattern.value)
    return out


def describe_expected(expected) -> str:
    anon = _anonymous_terminals()
    names = sorted({_TOKEN_NAMES.get(t) or anon.get(t) or (t.lower() if t.isupper() and not t.startswith("__") else t)
                    for t in expected})
    if len(names) > 8:
        names = names[:8] + ["..."]
    return "expected " + ", ".join(names)



def too_deep(tree):
    """(line, column) of the first place nested deeper than MAX_NESTING, else None (no recursion)."""
    from lark import Tree

    stack = [(tree, 1)]
    while stack:
        t, depth = stack.pop()
        if depth > MAX_NESTING:
            meta = getattr(t, "meta", None)
            if meta is not None and not getattr(meta, "empty", True):
                return meta.line, meta.column
            line = getattr(t, "line", None)
            return (line or 1), (getattr(t, "column", None) or 1)
        if isinstance(t, Tree):
            stack.extend((c, depth + 1) for c in t.children if c is not None)
    return None


def syntax_diagnostic(e, text: str, path: str) -> Diagnostic:
    from lark.exceptions import UnexpectedCharacters, UnexpectedToken

    if isinstance(e, UnexpectedToken) and e.token.type != "$END":
        tok = e.token
        missing = missing_open_brace(e, text, path)
        if missing is not None:
            return missing
        before = line_of(text, e.line)[: max(e.column - 1, 0)]
        hint = (_unclosed_prose(text, e.line, e.column) or _teach(str(tok), before, e.expected)
                or _keyword_hint(tok, e.expected) or _hint_for(tok, e.expected))
        return Diagnostic(path, e.line, e.column, f"unexpected {str(tok)!r}", hint, line_of(text, e.line))
    if isinstance(e, UnexpectedCharacters):
        ch = text[e.pos_in_stream] if e.pos_in_stream < len(text) else ""
        hint = describe_expected(e.allowed) if e.allowed else ""
        if ch == '"':
            hint = "a string must close on the same line; use \"\"\"...\"\"\" for prose"
        before = line_of(text, e.line)[: max(e.column - 1, 0)]
        hint = _teach(ch, before, e.allowed or ()) or hint
        return Diagnostic(path, e.line, e.column, f"unexpected character {ch!r}", hint, line_of(text, e.line))
    line, col = _end_pos(text)
    expected = getattr(e, "expected", None) or []
    return Diagnostic(path, line, col, "unexpected end of file",
                      (describe_expected(expected) + " " if expected else "") + "(is a '}' missing?)",
                      line_of(text, line))



_BLOCK_START = re.compile(r"^[ \t]*(book|section|rule|mechanic|table|enum|check)\s+([A-Za-z0-9_-]+)", re.M)
_BODY_TOKENS = frozenset({"VBAR", "DASHES", "PROSE", "LET", "ROLL", "REQUIRE", "RETURN", "ALIASES", "KEYWORDS",
                          "USES", "ODDS", "SOURCE", "NOTE", "EXAMPLE", "FLAVOUR", "MECHANIC", "TABLE", "CONST",
                          "ENUM", "CHECK", "RULE", "SECTION", "TITLE", "EDITION", "UNITS", "DICE", "DIE", "FINDINGS",
                          "FOR"})
_BODY_WORDS = {"table": "a table's rows go between '{' and '}': table NAME(KEYS) -> TYPE \"doc\" {",
               "mechanic": "a mechanic's statements go between '{' and '}' (or write '= expression')",
               "rule": "a rule's text and declarations go between '{' and '}'",
               "section": "a section's rules go between '{' and '}'",
               "book": "the book header's fields go between '{' and '}'",
               "enum": "an enum's members go between '{' and '}'", "check": "a check's 'for' goes between '{' and '}'"}


def missing_open_brace(e, text: str, path: str):
    """A body written without its '{' ("unexpected '|'" after a table's type): said where
    the '{' goes, with the fix; never as a list of the tokens the parser could take."""
    tok, expected = e.token, set(e.expected)
    lines = text.split("\n")
    if not 0 < e.line <= len(lines):
        return None
    head = "\n".join(lines[: e.line - 1] + [lines[e.line - 1][: e.column - 1]])
    starts = list(_BLOCK_START.finditer(head))
    if not starts:
        return None
    last = starts[-1]
    kind, name = last.group(1), last.group(2)
    if "{" in head[last.start():]:
        return None
    on_own_line = not lines[e.line - 1][: e.column - 1].strip()
    table_rows = kind == "table" and tok.type in ("VBAR", "DASHES") and on_own_line
    if not (("LBRACE" in expected and tok.type in _BODY_TOKENS) or table_rows):
        return None
    decl_line = head[: last.start()].count("\n") + 1
    what = f"{kind} '{name}'" if kind != "book" else "the book header"
    if decl_line == e.line:      # on the declaration's own line: the '{' goes right before the token
        fix = Fix(f"Insert '{{' to open {what}", e.line, e.column, e.line, e.column, "{ ")
        return Diagnostic(path, e.line, e.column, f"a '{{' is missing here: the body of {what} opens with '{{'",
                          _BODY_WORDS.get(kind, "a block opens with '{'"), line_of(text, e.line), fixes=(fix,))
    at = e.line - 1              # the '{' goes at the end of the last line of code before the body
    if table_rows:               # the header row was read as part of the type: the '{' goes before it
        at = next((i - 1 for i in range(decl_line + 1, e.line + 1) if lines[i - 1].strip().startswith("|")), at)
    while at > decl_line and (not lines[at - 1].strip() or lines[at - 1].strip().startswith("#")):
        at -= 1
    code = lines[at - 1] if '"' in lines[at - 1] else lines[at - 1].split("#", 1)[0]
    col = len(code.rstrip()) + 1
    fix = Fix(f"Insert '{{' to open {what}", at, col, at, col, " {")
    return Diagnostic(path, at, col, f"a '{{' is missing here: the body of {what} opens with '{{'",
                      _BODY_WORDS.get(kind, "a block opens with '{'"), line_of(text, at), fixes=(fix,))


_DECL_NAME = re.compile(r"\b(mechanic|table|const|enum|check)\s+[A-Za-z_][A-Za-z0-9_]*$")
_RULE_ID = re.compile(r"\b(rule|section)\s+[a-z0-9-]*$")


def _teach(found: str, before: str, expected) -> str:
    """A hint for the mistakes people make most, in the book's own terms (else "")."""
    expected = set(expected)
    if found == "'":
        return "strings use double quotes: \"like this\""
    if found in ("&", "|") and "|" not in expected:
        return "write 'and' / 'or' (the language has no && or ||)"
    if found == "!" :
        return "write 'not x' or 'x != y'"
    if _RULE_ID.search(before) and (found[:1] == "_" or found[:1].isupper() or "_" in found):
        return "rule and section ids are kebab-case: lower-case words joined by '-', e.g. suppressive-fire"
    if found == "-" and _DECL_NAME.search(before):
        return ("mechanics, tables, constants, enums and checks have snake_case names: words joined "
                "by '_', e.g. roll_to_hit")
    if found == ":" and "->" in describe_expected(expected):
        return "a mechanic's result type follows '->': mechanic f(x: 1..6) -> int = ..."
    if found in ("==", "!=", "<", "<=", ">", ">=") and re.search(r"(==|!=|<=|>=|<|>)[^=<>()]*$", before):
        return "comparisons do not chain: join them with 'and', e.g. (a <= x) and (x <= b), or use x in a..b"
    if found == "*" and before.rstrip().endswith("*"):
        return "the language has no power operator '**': multiply (x * x), or write the number"
    if found == "=" and re.search(r"\blet\s+[A-Za-z_][A-Za-z0-9_]*\s*=$", before):
        return "a `let` gives a name its value with one '=': let x = ...; compare with '==' inside an expression"
    if found == "=" and ("CMP" in expected or not expected):
        return "compare with '=='; '=' only gives a name its value (let x = ...)"
    return ""


@functools.lru_cache(maxsize=1)
def keyword_terminals() -> dict:
    """Terminal name -> keyword text, for the grammar's word tokens ('MECHANIC' -> 'mechanic')."""
    return {t.name: t.pattern.value for t in lark_parser().terminals
            if getattr(t.pattern, "type", "") == "str" and t.pattern.value.isalpha()}


def _keyword_hint(tok, expected) -> str:
    """A misspelled or capitalised keyword ('mechanc', 'Rule'), named as what it probably is."""
    import difflib

    if tok.type not in ("NAME", "ID") and not str(tok).isalpha():
        return ""
    words = sorted({kw for t, kw in keyword_terminals().items() if t in set(expected)})
    found = str(tok)
    if found.lower() in words and found != found.lower():
        return f"keywords are lower case: write '{found.lower()}'"
    close = difflib.get_close_matches(found.lower(), words, n=2, cutoff=0.7)
    if close:
        return f"did you mean {' or '.join(repr(c) for c in close)}? ({describe_expected(expected)})"
    return ""


_PROSE_SWALLOWED = re.compile(r"^[ \t]*(rule|section|mechanic|table|example|enum|const|check)[ \t]", re.M)


def _unclosed_prose(text: str, line: int, column: int) -> str:
    """When the token before the error closes a \"\"\"prose\"\"\" block that swallowed declarations,
    the real mistake is an unclosed \"\"\" further up: say where it opened."""
    lines = text.splitlines()
    pos = sum(len(x) + 1 for x in lines[: line - 1]) + column - 1
    head = text[:pos].rstrip()
    if not head.endswith('"""'):
        return ""
    opening = head.rfind('"""', 0, len(head) - 3)
    if opening < 0 or not _PROSE_SWALLOWED.search(head[opening + 3: len(head) - 3]):
        return ""
    open_line = text.count("\n", 0, opening) + 1
    close_line = text.count("\n", 0, len(head)) + 1
    return (f"the \"\"\"prose\"\"\" opened on line {open_line} only closes on line {close_line}, taking in the "
            f"declarations between: is the closing \"\"\" of the prose on line {open_line} missing?")


def _end_pos(text: str):
    lines = text.splitlines() or [""]
    return len(lines), len(lines[-1]) + 1


def _hint_for(tok, expected) -> str:
    if tok.type in ("NAME", "ID", "INT", "STRING", "DECIMAL") and {"ADD", "MUL", "CMP"} & set(expected):
        return ("an expression cannot follow another directly: is an operator or a comma missing, "
                "or (in a { } body) the 'return' before the result?")
    if tok.type == "LPAR" and "OF" in expected:
        return "a pool's count is a number, a name, or an expression in brackets: roll x: (f(a)) of d6"
    hint = describe_expected(expected)
    if set(expected) == {"LBRACE"}:
        return "a '{' is missing before this: the body of a section, rule, enum or table opens with '{'"
    if "RETURN" in expected:
        hint += "; a { } body ends with 'return <expression>'"
    return hint
