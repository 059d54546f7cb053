"""How the command line names a mechanic or table and its inputs: `BOOK:NAME` resolved
(an unknown name says what it is instead, or suggests near names) and `NAME=VALUE` read
as people type them (docs/cli.md, "Inputs"); `rules call`, `rules explain` and `rules
odds` (with its `--vs`) all read their inputs here.
"""
from __future__ import annotations

from .cli_common import die, kinds_of, load_book, short, split_ref


def parse_value(raw: str):
    """One VALUE of NAME=VALUE, as people type it (docs/cli.md, "Inputs"): a whole number
    (`3`, `-1`), a fraction or decimal (`7/2`, `2.5`), `true`/`false`, a list (`1,6`,
    `[1,6]`, `[]`; a trailing comma is allowed, so `2,` is the list [2]), a list of lists
    (`[[1,2],[3]]`), text in double quotes (`"a, b"`), or a name (an enum member, a die
    face, text).  Whether a name is a member of the parameter's type is the type check's
    to say; `typed_inputs` then makes a lone value a one-item list where a list is wanted.
    Raises `BadInput` with the reason."""
    from ..language.values import number
    s = raw.strip()
    if not s:
        raise BadInput("gives no value (an empty list is [])")
    if len(s) >= 2 and s[0] == s[-1] == '"':
        return s[1:-1].replace('\\"', '"')
    parts = _split_items(s)
    if len(parts) == 1 and s[0] == "[" and s[-1] == "]":
        inner = s[1:-1]
        return [] if not inner.strip() else _items(_split_items(inner))
    if len(parts) > 1:
        return _items(parts)
    if s in ("true", "false"):
        return s == "true"
    import re
    if re.fullmatch(r"[+-]?[0-9]+", s):
        try:
            return int(s)
        except ValueError:           # more digits than Python reads as a number
            raise BadInput(f"is a number of {len(s)} digits; no rule needs one that long") from None
    m = re.fullmatch(r"([+-]?[0-9]+)/([0-9]+)|[+-]?[0-9]*\.[0-9]+", s)
    if m and len(s) <= 200:
        from fractions import Fraction
        if m.group(2) is not None and int(m.group(2)) == 0:
            raise BadInput(f"is {s}, a fraction over 0")
        return number(Fraction(s))
    if s[0] in "[]" or s[-1] in "[]":
        raise BadInput(f"has unbalanced brackets: {short(s, 40)}")
    return s


class BadInput(Exception):
    """A VALUE that cannot be read (the reason; `typed_inputs` names the input)."""


def _split_items(s: str) -> list:
    """`s` split at its top-level commas (not inside brackets or double quotes)."""
    parts, depth, quoted, cur = [], 0, False, []
    for ch in s:
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch == "[":
            depth += 1
        elif not quoted and ch == "]":
            depth -= 1
            if depth < 0:
                raise BadInput(f"has a ']' with no '[' before it: {short(s, 40)}")
        elif not quoted and depth == 0 and ch == ",":
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    if depth or quoted:
        raise BadInput(f"has an unclosed {'quote' if quoted else chr(39) + '[' + chr(39)}: {short(s, 40)}")
    parts.append("".join(cur))
    return parts


def _items(parts: list) -> list:
    if len(parts) > 1 and not parts[-1].strip():
        parts = parts[:-1]               # one trailing comma: `2,` is [2]
    if any(not p.strip() for p in parts):
        raise BadInput("has an empty item in its list (two commas in a row?)")
    return [parse_value(p) for p in parts]


def _wants_list(t) -> bool:
    """Whether a declared type takes a list (and nothing else): a lone value given
    for it is a one-item list."""
    from ..language import nodes as n
    if isinstance(t, n.UnionType):
        return all(_wants_list(o) for o in t.options)
    return isinstance(t, n.ListType)


def resolve_ref(ref, allow_tables: bool):
    """BOOK:NAME -> (book, kind, callable), kind 'mechanic' or 'table'; an unknown name
    says what it is instead (a rule, a table for `odds`...) or suggests near names."""
    book_id, name = split_ref(ref)
    book = load_book(book_id)
    if name in book.mechanics:
        return book, "mechanic", book.mechanics[name]
    if allow_tables and name in book.tables:
        return book, "table", book.tables[name]
    from ..errors import NotFound
    wanted = "mechanic or table" if allow_tables else "mechanic"
    kinds = kinds_of(book, name)
    note = ""
    if "a table" in kinds:
        keys = " ".join(f"{p.name}=..." for p in book.tables[name].keys)
        note = f"'{name}' is a table, which rolls no dice; look it up with `rules call {book_id}:{name} {keys}`"
    elif "a rule" in kinds:
        rv = book.rules_by_id[name]
        inside = rv.mechanic_names + (rv.table_names if allow_tables else [])
        note = f"'{name}' is a rule there (`rules show {book_id}:{name}`)"
        if inside:
            note += f"; its {'mechanics and tables' if allow_tables else 'mechanics'}: {', '.join(inside)}"
    elif kinds:
        note = f"'{name}' is {kinds[0]} there"
        owner = book.rule_of(name)
        if owner:
            note += f" (of rule {book_id}:{owner})"
    candidates = list(book.mechanics) + (list(book.tables) if allow_tables else [])
    raise NotFound(wanted, name, candidates, where=book_id, note=note)


def typed_inputs(fn, items, book=None, given=None) -> dict:
    """The NAME=VALUE inputs of a mechanic or table `fn`, read as people type them: the
    one place the command line turns text into arguments (`rules call`, `explain`,
    `odds` and its `--vs`).  Each value is read by `parse_value`; then `book`'s words
    (`display.read_inputs`) read a name or a member in its display form as well as its
    identifier; a lone value for a parameter that takes a list is a one-item list
    (`opposing=2`); a parameter given twice, in either form (`n=3 n=4`), is refused;
    unknown names are left for the mechanic or table to refuse, listing the valid ones.
    `given` (inputs read before, for `--vs`) may be overridden."""
    params = {p.name: p.type for p in (fn.params if hasattr(fn, "params") else fn.keys)}
    words = book.display if book is not None else None
    out, seen = {}, {}
    for a in items:
        typed, eq, raw = a.partition("=")
        typed = typed.strip()
        if not eq or not typed:
            die(f"expected NAME=VALUE, got {short(a)!r} (e.g. n=3)")
        try:
            value = parse_value(raw)
        except BadInput as e:
            die(f"{typed}={short(raw, 40)} {e}")
        ((name, value),) = (words.read_inputs(fn.name, {typed: value}) if words is not None
                            else {typed: value}).items()
        if name in seen:
            die(f"{name} is given twice ({short(seen[name], 30)} and {short(a, 30)}); give it once")
        seen[name] = a
        if name in params and not isinstance(value, list) and _wants_list(params[name]):
            value = [value]
        out[name] = value
    return {**(given or {}), **out}


def callable_and_inputs(args):
    """The mechanic or table `rules call` and `rules explain` name, with its inputs;
    a table's keys are checked by name, and `--seed` refused for it (it rolls nothing)."""
    book, kind, fn = resolve_ref(args.ref, allow_tables=True)
    kwargs = typed_inputs(fn, args.assignments, book)   # names and values in either form (display.py)
    if kind == "table":
        for k in kwargs:
            if k not in [p.name for p in fn.keys]:
                raise fn.unknown_input(k)
        if args.seed is not None:
            die(f"{book.id}:{fn.name} is a table; it rolls no dice, so --seed has no use")
    return book, kind, fn, kwargs

