"""The `rules` command: books, lookup, show, call, explain, odds, check, export, js, preview, lsp.

Start-up is kept lean: argparse and the index (SQLite) load for `lookup`; the
compiler and lark load only for subcommands that need compiled books.  Every
error a user can cause prints one readable line and exits non-zero (2 for a bad
name or argument, 1 for "nothing found" or a failing check).
"""
from __future__ import annotations

import sys


def _out(text=""):
    sys.stdout.write(text + "\n")


def _die(msg: str, code: int = 2):
    sys.stderr.write(f"rules: {msg}\n")
    raise SystemExit(code)


def _json(obj):
    import json
    _out(json.dumps(obj, indent=2, ensure_ascii=False))


#: `--limit` above this is read as this: more results than any library's rules is "all of them"
MAX_LIMIT = 10_000


def _whole(low: int, high: int, clamp: bool = False):
    """An argparse type: a whole number in low..high (above `high`: `high`, with `clamp`),
    else argparse's one-line usage error; never Python's OverflowError from deeper down."""
    def read(text: str) -> int:
        import argparse
        t = text.strip()
        if not t.lstrip("+-").isdigit() or len(t) > 40:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {_short(text, 30)!r}")
        v = int(t)
        if v > high and clamp:
            return high
        if not low <= v <= high:
            raise argparse.ArgumentTypeError(f"expected a whole number in {low}..{high}, got {v}")
        return v
    return read


def _seconds(text: str) -> float:
    """An argparse type: a positive number of seconds (at most a day)."""
    import argparse
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {_short(text, 30)!r}") from None
    if not 0 < v <= 86400:
        raise argparse.ArgumentTypeError(f"expected a number of seconds in (0, 86400], got {_short(text, 30)}")
    return v


#: the subcommands, in the order `rules --help` lists them
COMMANDS = ("books", "lookup", "show", "call", "odds", "explain", "cost", "check", "export", "preview", "js", "lsp")


def _columns() -> int:
    """The terminal's width as argparse finds it (`shutil.get_terminal_size`'s policy:
    COLUMNS, else stdout's terminal, else 80), without importing shutil."""
    import os
    try:
        cols = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        cols = 0
    if cols <= 0:
        try:
            cols = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            cols = 0
    return cols or 80


def _help_formatter(prog):
    """argparse's own HelpFormatter, told the width: by itself it imports shutil to ask
    for it, once per add_argument (about 3 ms of a `rules lookup`, which never prints help)."""
    import argparse
    return argparse.HelpFormatter(prog, width=_columns() - 2)


def build_parser(command: str | None = None):
    """The `rules` argument parser.  With `command` (one of `COMMANDS`), only that
    subcommand's parser is built: what `main` parses a command line with, since building
    all twelve costs a cold `rules lookup` several milliseconds; its usage, help and errors
    are the same as the whole parser's."""
    import argparse

    def wanted(name: str) -> bool:
        return command is None or command == name

    p = argparse.ArgumentParser(prog="rules", formatter_class=_help_formatter,
                                description="Wargame rulebooks as code: look rules up, call their mechanics, check the books.")
    # every subcommand: --color / --no-color (default: colour only on a terminal, never with NO_COLOR or TERM=dumb)
    colour = argparse.ArgumentParser(add_help=False, formatter_class=_help_formatter)
    g = colour.add_mutually_exclusive_group()
    g.add_argument("--color", dest="color", action="store_const", const=True, default=None,
                   help="colour the output even when it is not a terminal (overrides NO_COLOR)")
    g.add_argument("--no-color", dest="color", action="store_const", const=False,
                   help="never colour the output")
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND")

    def add(name: str, text: str, colours: bool = True):
        return sub.add_parser(name, parents=[colour] if colours else [], help=text, formatter_class=_help_formatter)

    if wanted("books"):
        s = add("books", "list the books with their counts")
        s.add_argument("--json", action="store_true")
    if wanted("lookup"):
        s = add("lookup", "find rules by title, alias or text, across every book")
        s.add_argument("query", nargs="+")
        s.add_argument("--book")
        s.add_argument("--limit", type=_whole(1, MAX_LIMIT, clamp=True), default=5,
                       help=f"at most this many results (default 5; above {MAX_LIMIT:,} it is read as {MAX_LIMIT:,})")
        s.add_argument("--json", action="store_true")
    if wanted("show"):
        s = add("show", "show one rule whole: BOOK:RULE (or the rule of BOOK:MECHANIC or BOOK:TABLE)")
        s.add_argument("ref")
        s.add_argument("--json", action="store_true")
    for name, helptext in (("call", "evaluate a mechanic or look a table up: BOOK:MECHANIC NAME=VALUE ..., BOOK:TABLE KEY=VALUE ..."),
                           ("odds", "exact distribution of a dice mechanic: BOOK:MECHANIC NAME=VALUE ...")):
        if not wanted(name):
            continue
        s = add(name, helptext)
        s.add_argument("ref")
        s.add_argument("assignments", nargs="*", metavar="NAME=VALUE")
        if name == "call":
            s.add_argument("--seed", type=int)
        else:
            s.add_argument("--explain", action="store_true",
                           help="name the branch of the mechanic's result each outcome comes from")
            s.add_argument("--vs", nargs="+", action="append", metavar="NAME=VALUE",
                           help="a variant beside the first distribution: the same inputs with these changed "
                                "(e.g. --vs fusion=true); repeat it for several variants")
            s.add_argument("--sweep", metavar="NAME=LOW..HIGH",
                           help="one input over its range: a row per value and a chart (NAME alone: its whole "
                                "declared range; NAME=a,b,c: those values)")
            s.add_argument("--exact", action="store_true",
                           help="every row and the exact fractions (by default the tail under 0.1%% is folded "
                                "and the mean is a decimal)")
            s.add_argument("--time-limit", type=_seconds, default=None, metavar="SECONDS",
                           help="give up after this many seconds (default 5; --vs and --explain share it)")
        s.add_argument("--json", action="store_true")
    if wanted("explain"):
        s = add("explain",
                "call a mechanic and show its working, citing rules, lines and notes: BOOK:MECHANIC NAME=VALUE ...")
        s.add_argument("ref")
        s.add_argument("assignments", nargs="*", metavar="NAME=VALUE")
        s.add_argument("--seed", type=int)
        s.add_argument("--json", action="store_true")
        s.add_argument("--no-locations", dest="locations", action="store_false",
                       help="leave out each step's file:line")
    if wanted("cost"):
        s = add("cost",
                "a book's cost views: what each priced case costs per what its dice give: BOOK[:NAME]")
        s.add_argument("ref", metavar="BOOK[:NAME]")
        s.add_argument("--exact", action="store_true", help="the exact fractions beside the decimals")
        s.add_argument("--json", action="store_true")
    if wanted("check"):
        s = add("check", "compile books, run every example and check")
        s.add_argument("book", nargs="?")
        s.add_argument("--json", action="store_true")
        s.add_argument("--strict", action="store_true", help="also fail when a check reports findings")
        s.add_argument("--watch", action="store_true",
                       help="check again whenever a source is saved and print only what changed (Ctrl-C stops)")
    if wanted("export"):
        s = add("export",
                "write every book (or one) as JSON open data, with index.json and the JSON Schema")
        s.add_argument("book", nargs="?")
        s.add_argument("--out", metavar="DIR",
                       help="the folder to write into (default: ./rules-data); '-' with a BOOK prints that book's JSON")
        s.add_argument("--json", action="store_true", help="report what was written as JSON")
    if wanted("preview"):
        s = add("preview", "serve the website and rebuild it on every save of a book or docs page", colours=False)
        s.add_argument("--project", metavar="DIR", help="the folder with conf.py and docs/ (default: here)")
        s.add_argument("--port", type=_whole(0, 65535), default=8000, help="port to serve on (default 8000; 0 picks a free one)")
        s.add_argument("--host", default="127.0.0.1", help="address to serve on (default 127.0.0.1)")
        s.add_argument("--open", action="store_true", help="open the site in a browser after the first build")
    if wanted("js"):
        s = add("js",
                "compile books to JavaScript: one ES module per book and the shared runtime (runtime.mjs)")
        s.add_argument("book", nargs="*", help="book ids (default: every book)")
        s.add_argument("--out", default="_build/js", help="the folder to write to (default: _build/js)")
        s.add_argument("--examples", action="store_true",
                       help="also write BOOK.examples.mjs: every worked example's expression, compiled (for testing)")
        s.add_argument("--json", action="store_true")
    if wanted("lsp"):
        s = add("lsp", "serve the Language Server Protocol over stdin/stdout, for editors", colours=False)
        s.add_argument("--stdio", action="store_true", help="accepted for editors that pass it; stdio is the only transport")
    return p


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(argv[0] if argv and argv[0] in COMMANDS else None).parse_args(argv)
    if args.cmd is None:
        build_parser().print_help()
        return 2
    try:
        return _run(args)
    except KeyboardInterrupt:  # pragma: no cover
        _die("interrupted", 130)
    except BrokenPipeError:
        # `rules lookup X | head`: the reader has gone; end quietly as Unix tools do.
        # Point stdout at /dev/null so the interpreter's final flush cannot fail again.
        import os
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except OSError:  # pragma: no cover
            pass
        return 0
    except Exception as e:
        from .errors import RulesError     # imported here: a command that succeeds never needs it
        if isinstance(e, RulesError):
            first = e.first_line() if hasattr(e, "first_line") else str(e).splitlines()[0]
            _die(_short(first, 400), 2)
        # a bug of ours: still one line, the traceback on request
        import os
        if os.environ.get("RULES_DEBUG"):
            raise
        _die(f"internal error: {type(e).__name__}: {_short(str(e))} (set RULES_DEBUG=1 for the traceback)", 70)


def _run(args):
    command = {"books": cmd_books, "lookup": cmd_lookup, "show": cmd_show, "call": cmd_call,
               "odds": cmd_odds, "check": cmd_check, "explain": cmd_explain, "export": cmd_export,
               "js": cmd_js, "lsp": cmd_lsp, "preview": cmd_preview, "cost": cmd_cost}[args.cmd]
    try:
        return command(args) or 0
    except Exception as e:
        if getattr(e, "kind", None) == "book":   # an unknown book: perhaps there are no books at all
            _require_books()
        # A damaged lookup index (a truncated file, a disk error) is only a cache:
        # drop it and answer again from a fresh one.
        if type(e).__module__ != "sqlite3" or "sqlite3" not in sys.modules:
            raise
        import os
        from .index import _index_path
        try:
            os.unlink(_index_path())
        except OSError:
            pass
        return command(args) or 0


def _short(text: str, limit: int = 80) -> str:
    """A user's input echoed in a message: one line, and not 100 KB of it."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _require_books():
    """Exit with a clear message when the books folder holds no books (e.g. a wheel
    installed without them): where we looked and how to point the tools elsewhere."""
    import os
    from . import paths
    d = paths.books_dir()
    try:
        found = any(e.name.endswith(".rules") or (e.is_dir() and any(f.endswith(".rules") for f in os.listdir(e.path)))
                    for e in os.scandir(d))
    except OSError:
        found = False
    if not found:
        where = "RULES_DSL_BOOKS" if os.environ.get("RULES_DSL_BOOKS") else "the default books folder"
        _die(f"no books in {d} ({where}); set RULES_DSL_BOOKS to a folder of .rules books "
             "(e.g. the rulebooks/ folder of a rules-dsl checkout)")


# ----------------------------------------------------------------- commands
def cmd_books(args):
    _require_books()
    from .index import ensure_index
    idx = ensure_index()
    books = idx.books()
    if args.json:
        _json(books)
        return 0
    for b in books:
        _out(f"{b['id']:<16} {b['title']:<36} {b['rules']:>4} rules {b['mechanics']:>4} mechanics {b['examples']:>4} examples")
    return 0


def cmd_lookup(args):
    if args.book is not None:
        _book_id(args.book)
    from .index import ensure_index
    idx = ensure_index()
    query = " ".join(args.query)
    if not query.strip():
        _die("give a rule name or some words to look up, e.g. rules lookup suppression")
    if args.book and args.book not in [b["id"] for b in idx.books()]:
        from .errors import NotFound
        raise NotFound("book", args.book, [b["id"] for b in idx.books()])
    found = idx.search(query, book=args.book, limit=args.limit)
    results = found["results"]
    if results and found["unknown"]:
        # say which words found nothing (a question's "chess", a typo): the list is for the rest
        words = ", ".join(repr(w) for w in found["unknown"])
        sys.stderr.write(f"rules: no rule mentions {words}\n")
    if not results:
        _require_books()
        near = idx.near_titles(query, book=args.book)
        where = f" in {args.book}" if args.book else ""
        hint = f"; near titles{where}: {', '.join(near)}" if near else ""
        if args.json:
            _json([])
        sys.stderr.write(f"rules: nothing found for {_short(query)!r}{where}{hint}\n")
        return 1
    if args.json:
        _json(results)
        return 0
    out = _output(args)
    for i, r in enumerate(results):
        if i:
            _out()
        _print_rule(r, out, _titles(idx, r["book"]))
    return 0


def _output(args):
    from .terminal import Out
    return Out(color=getattr(args, "color", None))


def _titles(idx, home: str, book=None):
    """title_of(book, rule) for [[references]]: the index holds every compiled book's
    rule titles (no compiler needed); a loaded `book` adds its section titles."""
    cache = {}

    def title_of(b, rid):
        b = b or home
        if (b, rid) not in cache:
            row = idx.con.execute("SELECT title FROM rules WHERE book=? AND rule=?", (b, rid)).fetchone()
            title = row[0] if row else None
            if title is None and book is not None and b == book.id:
                title = next((p.node.title for p in book.sections if p.node.id == rid), None)
            cache[(b, rid)] = title
        return cache[(b, rid)]
    return title_of


def _print_rule(r, out=None, title_of=None):
    from .terminal import Out, prose_lines, wrap_segments
    out = out or Out(color=False)
    _out(f"{out.style(r['book'] + ':' + r['rule'], 'dim')}  {out.style(r['title'], 'bold')}")
    if r.get("section"):
        _out(f"  section: {r['section']}")
    if r.get("aliases"):
        _out(f"  also: {', '.join(r['aliases'])}")
    for line in prose_lines(r["text"], out, title_of, compact=True):
        _out(line)
    for sig in r.get("mechanics", []):
        for line in wrap_segments([(f"mechanic: {sig}", ())], out.width, out, "  ", "      "):
            _out(line)
    for note in r.get("notes", []):
        for line in prose_lines(f"{note['kind']}: {note['text']}", out, title_of, indent="  note ",
                                subsequent="       ", compact=True):
            _out(line)


def _terminal_prose(text: str, width: int = 100):
    """Prose for a terminal: [[refs]] become their label, emphasis marks go, bullets wrap alone."""
    import re
    import textwrap

    def label(m):
        target, _, shown = m.group(1).partition("|")
        return shown or target.split(":")[-1].replace("-", " ")
    text = re.sub(r"\[\[(.*?)\]\]", label, text, flags=re.S)
    text = re.sub(r"\*\*(.+?)\*\*", r"\1", text, flags=re.S)
    text = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"\1", text)
    out = []
    for para in re.split(r"\n\s*\n", text.strip()):
        items = re.split(r"\n(?=\s*- )", para)
        for item in items:
            item = " ".join(item.split())
            bullet = item.startswith("- ")
            out.extend(textwrap.wrap(item, width=width, initial_indent="  ",
                                     subsequent_indent="    " if bullet else "  ", break_on_hyphens=False))
    return out


def _split_ref(ref: str):
    if ":" not in ref:
        _die(f"expected BOOK:NAME, got {_short(ref)!r} (e.g. null-strike:opposed-stat-rolls)")
    book_id, name = ref.split(":", 1)
    return _book_id(book_id), name


def _book_id(book_id: str) -> str:
    """A book id typed on the command line, checked as every entry checks one
    (`paths.check_book_id`: a name, never a path) before anything reads a file."""
    from .paths import check_book_id

    def known():
        from .loader import book_ids
        return book_ids()
    return check_book_id(book_id, known)


def cmd_show(args):
    book_id, rule_id = _split_ref(args.ref)
    from .errors import NotFound
    from .index import ensure_index
    idx = ensure_index()
    try:
        r = idx.get(book_id, rule_id)
    except NotFound as e:
        if e.kind != "rule":
            raise
        # a mechanic's, table's or constant's name: show the rule that declares it
        book = _load(book_id)
        owner = book.rule_of(rule_id)
        if not owner:
            raise NotFound("rule", rule_id, list(book.rules_by_id) + _decl_names(book), where=book_id) from None
        sys.stderr.write(f"rules: '{rule_id}' is {_kinds_of(book, rule_id)[0]} of rule {book_id}:{owner}; showing that rule\n")
        r = idx.get(book_id, owner)
    if args.json:
        _json(r)
        return 0
    from .terminal import rule_lines
    out = _output(args)
    book = _load(book_id)
    for line in rule_lines(book, book.rule(r["rule"]), r, out, _titles(idx, book_id, book)):
        _out(line)
    return 0


def _load(book_id):
    from .loader import load
    return load(book_id)


def _decl_names(book):
    return list(book.mechanics) + list(book.tables) + list(book.constants) + list(book.enums)


def _kinds_of(book, name) -> list:
    """What `name` is in `book`: 'a mechanic', 'a table', 'a rule', ... (several at once is possible)."""
    kinds = []
    for has, kind in ((book.mechanics, "a mechanic"), (book.tables, "a table"), (book.constants, "a constant"),
                      (book.enums, "an enumeration"), (book.rules_by_id, "a rule")):
        if name in has:
            kinds.append(kind)
    return kinds


def _parse_value(raw: str):
    """One VALUE of NAME=VALUE, as people type it (docs/cli.md, "Inputs"): a whole number
    (`3`, `-1`), a fraction or decimal (`7/2`, `2.5`), `true`/`false`, a list (`1,6`,
    `[1,6]`, `[]`; a trailing comma is allowed, so `2,` is the list [2]), a list of lists
    (`[[1,2],[3]]`), text in double quotes (`"a, b"`), or a name (an enum member, a die
    face, text).  Whether a name is a member of the parameter's type is the type check's
    to say; `_inputs` then makes a lone value a one-item list where a list is wanted.
    Raises `_BadInput` with the reason."""
    from .values import number
    s = raw.strip()
    if not s:
        raise _BadInput("gives no value (an empty list is [])")
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
            raise _BadInput(f"is a number of {len(s)} digits; no rule needs one that long") from None
    m = re.fullmatch(r"([+-]?[0-9]+)/([0-9]+)|[+-]?[0-9]*\.[0-9]+", s)
    if m and len(s) <= 200:
        from fractions import Fraction
        if m.group(2) is not None and int(m.group(2)) == 0:
            raise _BadInput(f"is {s}, a fraction over 0")
        return number(Fraction(s))
    if s[0] in "[]" or s[-1] in "[]":
        raise _BadInput(f"has unbalanced brackets: {_short(s, 40)}")
    return s


class _BadInput(Exception):
    """A VALUE that cannot be read (the reason; `_inputs` names the input)."""


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
                raise _BadInput(f"has a ']' with no '[' before it: {_short(s, 40)}")
        elif not quoted and depth == 0 and ch == ",":
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    if depth or quoted:
        raise _BadInput(f"has an unclosed {'quote' if quoted else chr(39) + '[' + chr(39)}: {_short(s, 40)}")
    parts.append("".join(cur))
    return parts


def _items(parts: list) -> list:
    if len(parts) > 1 and not parts[-1].strip():
        parts = parts[:-1]               # one trailing comma: `2,` is [2]
    if any(not p.strip() for p in parts):
        raise _BadInput("has an empty item in its list (two commas in a row?)")
    return [_parse_value(p) for p in parts]


def _wants_list(t) -> bool:
    """Whether a declared type takes a list (and nothing else): a lone value given
    for it is a one-item list."""
    from . import nodes as n
    if isinstance(t, n.UnionType):
        return all(_wants_list(o) for o in t.options)
    return isinstance(t, n.ListType)


def _resolve(ref, allow_tables: bool):
    """BOOK:NAME -> (book, kind, callable), kind 'mechanic' or 'table'; an unknown name
    says what it is instead (a rule, a table for `odds`...) or suggests near names."""
    book_id, name = _split_ref(ref)
    book = _load(book_id)
    if name in book.mechanics:
        return book, "mechanic", book.mechanics[name]
    if allow_tables and name in book.tables:
        return book, "table", book.tables[name]
    from .errors import NotFound
    wanted = "mechanic or table" if allow_tables else "mechanic"
    kinds = _kinds_of(book, name)
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


def _inputs(fn, items, book=None, given=None) -> dict:
    """The NAME=VALUE inputs of a mechanic or table `fn`, read as people type them: the
    one place the command line turns text into arguments (`rules call`, `explain`,
    `odds` and its `--vs`).  Each value is read by `_parse_value`; then `book`'s words
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
            _die(f"expected NAME=VALUE, got {_short(a)!r} (e.g. n=3)")
        try:
            value = _parse_value(raw)
        except _BadInput as e:
            _die(f"{typed}={_short(raw, 40)} {e}")
        ((name, value),) = (words.read_inputs(fn.name, {typed: value}) if words is not None
                            else {typed: value}).items()
        if name in seen:
            _die(f"{name} is given twice ({_short(seen[name], 30)} and {_short(a, 30)}); give it once")
        seen[name] = a
        if name in params and not isinstance(value, list) and _wants_list(params[name]):
            value = [value]
        out[name] = value
    return {**(given or {}), **out}


def _callable_and_inputs(args):
    """The mechanic or table `rules call` and `rules explain` name, with its inputs;
    a table's keys are checked by name, and `--seed` refused for it (it rolls nothing)."""
    book, kind, fn = _resolve(args.ref, allow_tables=True)
    kwargs = _inputs(fn, args.assignments, book)   # names and values in either form (display.py)
    if kind == "table":
        for k in kwargs:
            if k not in [p.name for p in fn.keys]:
                raise fn.unknown_input(k)
        if args.seed is not None:
            _die(f"{book.id}:{fn.name} is a table; it rolls no dice, so --seed has no use")
    return book, kind, fn, kwargs


def cmd_call(args):
    from .values import to_json
    book, kind, fn, kwargs = _callable_and_inputs(args)
    if kind == "table":
        result, rolls = fn.lookup(**kwargs), {}
    else:
        result, rolls = fn.run(seed=args.seed, **kwargs)
    if args.json:
        _json({"result": to_json(result), "rolls": {k: to_json(v) for k, v in rolls.items()}})
        return 0
    from .terminal import answer_lines, rolls_line
    out = _output(args)
    for line in answer_lines(book, fn.name, result, kwargs, out, table=kind == "table"):
        _out(line)
    if rolls:
        _out(rolls_line(book, fn.name, rolls, out))
    return 0


def cmd_explain(args):
    book, kind, fn, kwargs = _callable_and_inputs(args)
    ex = book.explain(fn.name, seed=args.seed, **kwargs)
    if args.json:
        _json(ex.as_json())
        return 0
    from .terminal import rolls_line
    from .working import text_lines, worked
    out = _output(args)
    for line in text_lines(worked(ex, book.display, locations=args.locations), out.width, out.style,
                           ascii_only=out.arrow != "→"):
        _out(line)
    if ex.rolls:
        _out(rolls_line(book, fn.name, ex.rolls, out))
    return 0


def cmd_odds(args):
    book, _kind, mech = _resolve(args.ref, allow_tables=False)
    if not mech.has_dice:
        _die(f"{book.id}:{mech.name} rolls no dice; use `rules call` for its value", 2)
    from .odds import TooLarge
    modes = [m for m, on in (("--explain", args.explain), ("--vs", args.vs), ("--sweep", args.sweep)) if on]
    if len(modes) > 1:
        _die(f"{' and '.join(modes)} do not combine: ask for each on its own", 2)
    try:
        return _odds(args, book, mech)
    except TooLarge as e:      # say how to allow more time, the command line's way
        if e.kind != "time":
            raise
        longer = max(60, int((args.time_limit or 5) * 10))
        raise e.about(e.subject, [h for h in e.hints if h != "more time"]
                      + [f"more time (--time-limit {longer})"]) from None


def _odds(args, book, mech):
    from .odds import distribution
    from .odds.budget import Budget
    # one budget for the whole command: the first distribution, the --vs ones, the --explain twin
    meter = (Budget(seconds=args.time_limit) if args.time_limit else Budget()).meter()
    inputs = _inputs(mech, args.assignments, book)
    if args.explain:
        return _odds_explained(args, book, mech, dict(inputs, _meter=meter))
    words = book.display
    if args.sweep:
        return _odds_sweep(args, book, mech)
    from . import odds_text
    said = _odds_words(book, mech)
    if args.vs:
        from .design import variants
        dists = variants(mech, inputs, [_inputs(mech, v, book, given=inputs) for v in args.vs], meter=meter)
        if args.json:
            _json({chr(ord("a") + i): d.as_json() for i, d in enumerate(dists)})
            return 0
        for line in odds_text.variants_lines(dists, exact=args.exact, label=lambda k: words.param(mech.name, k), **said):
            _out(line)
        _odds_chart(args, lambda width, uni: odds_text.variants_chart(dists, said["show"], width, uni))
        return 0
    dist = distribution(mech, _meter=meter, **inputs)
    if args.json:
        _json(dist.as_json())
        return 0
    for line in _fit("\n".join(odds_text.distribution_lines(dist, exact=args.exact, **said)), args).split("\n"):
        _out(line)
    _odds_chart(args, lambda width, uni: odds_text.distribution_chart(dist, said["show"], width, uni, exact=args.exact))
    return 0


def _sweep_spec(text: str):
    """NAME, NAME=LOW..HIGH or NAME=a,b,c -> (name, None | (low, high) | [values])."""
    import re
    name, eq, rest = text.partition("=")
    name = name.strip()
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        _die(f"--sweep takes NAME=LOW..HIGH (e.g. --sweep target=2..6), got {_short(text)!r}")
    if not eq:
        return name, None
    m = re.fullmatch(r"\s*([+-]?[0-9]+)\s*\.\.\s*([+-]?[0-9]+)\s*", rest)
    if m:
        return name, (int(m.group(1)), int(m.group(2)))
    value = _parse_value(rest)
    return name, value if isinstance(value, list) else [value]


def _odds_sweep(args, book, mech):
    """`rules odds BOOK:M --sweep NAME=LOW..HIGH`: a distribution per value of one input."""
    from . import odds_text
    from .design import sweep
    from .values import to_json
    name, spec = _sweep_spec(args.sweep)
    words = book.display
    inputs = _inputs(mech, args.assignments, book)
    if name in inputs:
        _die(f"--sweep {name} and {name}={_short(str(inputs[name]))} both set '{name}': sweep it or fix it")
    sw = sweep(mech, name, spec, **inputs)
    if args.json:
        _json({"mechanic": f"{mech.book_id}:{mech.name}", "inputs": {k: to_json(v) for k, v in inputs.items()},
               "sweep": {"name": name, "values": [to_json(v) for v, _, _ in sw.rows]},
               "rows": [{"value": to_json(v), "distribution": d.as_json() if d is not None else None, "error": err}
                        for v, d, err in sw.rows]})
        return 0
    said = _odds_words(book, mech)
    for line in odds_text.sweep_lines(sw, exact=args.exact, width=_output(args).width, show=said["show"],
                                      heading=said["title"](sw), label=lambda k: words.param(mech.name, k),
                                      result=words.result(mech.name)):
        _out(line)
    return 0


def cmd_cost(args):
    """`rules cost BOOK[:NAME]`: the book's `priced` views (design.py), as tables and bars."""
    from . import odds_text
    from .design import price
    from .values import to_json
    book_id, _, name = args.ref.partition(":")
    book = _load(book_id)
    if not book.compiled.priced:
        _die(f"{book.id} prices nothing: it has no `priced` view (see docs/language.md, \"Design views\")", 1)
    views = price(book, name or None)

    def frac(x):
        return None if x is None else f"{x.numerator}/{x.denominator}"
    if args.json:
        _json({"book": book.id, "views": [
            {"name": v.name, "title": v.title, "rule": v.rule, "cost": v.cost_text, "per": v.effect_text,
             "chance": v.chance, "names": v.names,
             "rows": [{"case": {k: to_json(x) for k, x in r.bindings.items()}, "cost": to_json(r.cost),
                       "expected": frac(r.expected), "expected_float": None if r.expected is None else float(r.expected),
                       "ratio": frac(r.ratio), "ratio_float": None if r.ratio is None else float(r.ratio),
                       "note": r.note} for r in v.rows]} for v in views]})
        return 0
    width = _output(args).width
    for i, v in enumerate(views):
        if i:
            _out()
        for line in odds_text.cost_lines(v, exact=args.exact, width=width, book_title=book.title):
            _out(line)
    return 0


def _odds_chart(args, draw):
    """The distribution drawn under its table (odds_text's charts), as wide as the terminal."""
    out = _output(args)
    _out()
    _out("\n".join(draw(out.width, out.arrow == "→")))


def _fit(text: str, args) -> str:
    """An odds text for the terminal: a line of words (a title) wider than the terminal
    wrapped under itself; a table's rows (columns apart by two spaces) kept whole."""
    import textwrap
    width = _output(args).width
    lines = []
    for line in text.split("\n"):
        if len(line) > width and "  " not in line.strip():
            lines.extend(textwrap.wrap(line, width, subsequent_indent="   ", break_long_words=False,
                                       break_on_hyphens=False))
        else:
            lines.append(line)
    return "\n".join(lines)


def _odds_words(book, mech) -> dict:
    """How `rules odds` says a mechanic's results and inputs: in words (display.py)."""
    from .wording import inputs_phrase
    words = book.display

    def title(d):
        given = inputs_phrase(words, mech.name, d.inputs)
        return f"{words.mechanic(mech.name)[:1].upper()}{words.mechanic(mech.name)[1:]}" + (f", with {given}" if given else "")
    return {"show": words.value, "title": title, "result": words.result(mech.name)[:1].upper() + words.result(mech.name)[1:]}


def _odds_explained(args, book, mech, inputs):
    """`rules odds --explain`: the distribution, and for each outcome the branches of
    the mechanic's result (a chain of `if`s) it comes from, with their probabilities
    (`inputs` as `_inputs` reads them, with the command's `_meter`)."""
    from .explain import odds_by_branch
    from .values import percent_text
    found = odds_by_branch(mech, **inputs)
    if found is None:
        from .odds import distribution
        dist = distribution(mech, **inputs)
        note = (f"{book.id}:{mech.name}'s result is not a chain of branches (if ... then ... else ...), "
                "so --explain has no branch to name; `rules explain` shows one evaluation's working")
        if args.json:
            _json(dict(dist.as_json(), branches=None, note=note))
            return 0
        _out(dist.table(**_odds_words(book, mech)))
        _out()
        _out(note)
        return 0
    arms, rows, dist = found
    rule = book.rule_of(mech.name) or ""
    title = book.rule(rule).title if rule else ""

    def frac(p):
        return f"{p.numerator}/{p.denominator}" if p.denominator != 1 else str(p.numerator)
    if args.json:
        data = dist.as_json()
        data["branches"] = [label for label, _ in arms]
        for o, (_v, _p, parts) in zip(data["outcomes"], rows):
            o["from"] = [{"branch": label, "probability": frac(q), "float": float(q)} for label, q in parts]
        _json(data)
        return 0
    words = book.display
    _out(dist.table(**_odds_words(book, mech)))
    _out()
    from .wording import branch_words
    said = branch_words(mech.node, words)       # each branch in words, in the order of `arms`
    _out(f"Where each result comes from: the branches of {words.mechanic(mech.name)} ({title}):")
    for i, (label, arm) in enumerate(said, 1):
        _out(f"  {i}. {label}: {arm}")
    _out()
    index = {label: i for i, (label, _) in enumerate(arms)}
    for value, _p, parts in rows:
        shares = "; ".join(f"branch {index[label] + 1} ({said[index[label]][0]}) {frac(q)} = {percent_text(q)}"
                           for label, q in parts)
        _out(f"  {words.value(value)}: {shares}")
    return 0


def cmd_check(args):
    from .errors import RulebookError
    from .loader import book_ids, load
    ids = [_book_id(args.book)] if args.book is not None else book_ids()
    if not ids:
        _require_books()
    if args.book and args.book not in book_ids():
        from .errors import NotFound
        raise NotFound("book", args.book, book_ids())
    if args.watch:
        from .loader import DEFAULT
        from .watch import watch
        try:
            return watch(DEFAULT, ids, lambda line: (_out(line), sys.stdout.flush()))
        except KeyboardInterrupt:
            return 0
    report = {"books": [], "examples": {"passed": 0, "failed": 0}, "findings": [], "errors": [], "warnings": []}
    failed = False
    for bid in ids:
        try:
            book = load(bid)
        except RulebookError as e:
            failed = True
            report["errors"].append({"book": bid, "message": e.render(),
                                     "diagnostics": [d.as_json() for d in e.diagnostics]})
            if not args.json:
                sys.stderr.write(e.render() + "\n")
            continue
        results = book.run_examples()
        ok = sum(r.passed for r in results)
        bad = [r for r in results if not r.passed]
        report["examples"]["passed"] += ok
        report["examples"]["failed"] += len(bad)
        findings = book.findings
        report["books"].append({"id": bid, "title": book.title, "rules": len(book.rules),
                                "mechanics": len(book.mechanics), "examples": len(results),
                                "examples_failed": len(bad), "findings": len(findings)})
        report["findings"].extend(f.as_json() for f in findings)
        report["warnings"].extend(dict(d.as_json(), book=bid) for d in book.warnings)
        if bad or any(f.kind == "check-error" for f in findings):
            failed = True
        if (args.strict or book.findings_fail) and findings:
            failed = True
        if not args.json:
            _out(f"{bid}: {len(book.rules)} rules, {len(book.mechanics)} mechanics, "
                 f"{ok}/{len(results)} examples pass, {len(findings)} finding(s)")
            for r in bad:
                _out(f"  FAILED example {r.location} ({r.rule})\n" + "\n".join("    " + l for l in r.report.splitlines()))
            for f in findings:
                _out(f"  finding [{f.kind}] {f.location} ({f.rule}): {f.message}")
            if findings and book.findings_fail and not args.strict:
                _out(f"  {bid}: its header says `findings fail`, so these findings fail the check")
            for d in book.warnings:
                _out("  " + d.render().replace("\n", "\n  "))
    if args.json:
        _json(report)
    return 1 if failed else 0


def cmd_export(args):
    """`rules export`: the books as JSON files (rules_dsl/export.py), and where they went."""
    import os
    from . import export
    from .loader import book_ids, load
    if not book_ids():
        _require_books()
    if args.book is not None:
        _book_id(args.book)
    if args.out is not None and not args.out.strip():
        _die("--out needs a folder (or - to print one book's JSON); leave it out for ./rules-data")
    if args.out == "-":
        if not args.book:
            _die("--out - prints one book's JSON: name the book, e.g. rules export null-strike --out -")
        sys.stdout.write(export.book_json(load(args.book)))
        return 0
    out = args.out or export.DEFAULT_OUT
    try:
        result = export.export(out, [args.book] if args.book else None)
    except OSError as e:
        _die(f"cannot write the export to {_short(out)}: {e.strerror or e}")
    for bid, err in result.errors.items():
        sys.stderr.write(f"rules: book '{bid}' does not compile and is not exported: {_short(err, 300)}\n")
    where = os.path.abspath(out)
    if args.json:
        _json({"out": where, "books": result.books, "errors": result.errors,
               "files": [{"name": name, "bytes": size, "written": name in result.written}
                         for name, size in result.sizes.items()]})
    else:
        _out(f"{len(result.books)} book(s) exported to {where}")
        for name, size in result.sizes.items():
            note = "" if name in result.written else "  (unchanged)"
            _out(f"  {name:<30} {size / 1024:8.1f} KB{note}")
    return 1 if result.errors else 0


def cmd_js(args):
    """`rules js [BOOK ...] [--out DIR]`: each book's ES module and the runtime, with their sizes."""
    import gzip
    import os

    if not args.out.strip():
        _die("--out needs a folder; leave it out for _build/js")
    from .jsgen import write
    from .loader import book_ids, load
    known = book_ids()
    ids = args.book or known
    if not ids:
        _require_books()
    for bid in ids:
        _book_id(bid)
        if bid not in known:
            from .errors import NotFound
            raise NotFound("book", bid, known)
    written = []
    for bid in ids:
        book = load(bid)
        for kind, path in write(book, args.out, examples=args.examples).items():
            if kind == "runtime" and any(w["kind"] == "runtime" for w in written):
                continue
            data = open(path, "rb").read()
            written.append({"kind": kind, "book": "" if kind == "runtime" else bid, "path": path, "bytes": len(data),
                            "gzip_bytes": len(gzip.compress(data, 9)),
                            "mechanics": len(book.mechanics) if kind == "book" else 0})
    if args.json:
        _json(written)
        return 0
    for w in written:
        what = f"{w['book']} ({w['mechanics']} mechanics)" if w["kind"] == "book" else w["kind"]
        _out(f"{os.path.relpath(w['path'])}: {w['bytes']:,} bytes, {w['gzip_bytes']:,} gzipped  {what}")
    return 0


def cmd_lsp(args):
    try:
        from .lsp import main as serve   # pygls is imported by this command only
    except ImportError as e:
        _die(f"rules lsp needs pygls ({e}); install it with: pip install 'pygls>=1.3,<3'", 2)
    return serve()


def cmd_preview(args):
    from .preview import run   # sphinx-autobuild runs in its own process
    return run(args.project, args.port, args.host, args.open)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
