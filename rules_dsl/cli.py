"""The `rules` command: books, lookup, show, call, explain, odds, check, diff, export, js, preview, lsp.

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


def build_parser():
    import argparse

    p = argparse.ArgumentParser(prog="rules", description="Wargame rulebooks as code: look rules up, call their mechanics, check the books.")
    # every subcommand: --color / --no-color (default: colour only on a terminal, never with NO_COLOR or TERM=dumb)
    colour = argparse.ArgumentParser(add_help=False)
    g = colour.add_mutually_exclusive_group()
    g.add_argument("--color", dest="color", action="store_const", const=True, default=None,
                   help="colour the output even when it is not a terminal (overrides NO_COLOR)")
    g.add_argument("--no-color", dest="color", action="store_const", const=False,
                   help="never colour the output")
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND")
    s = sub.add_parser("books", parents=[colour], help="list the books with their counts")
    s.add_argument("--json", action="store_true")
    s = sub.add_parser("lookup", parents=[colour], help="find rules by title, alias or text, across every book")
    s.add_argument("query", nargs="+")
    s.add_argument("--book")
    s.add_argument("--limit", type=int, default=5)
    s.add_argument("--json", action="store_true")
    s = sub.add_parser("show", parents=[colour], help="show one rule whole: BOOK:RULE (or the rule of BOOK:MECHANIC or BOOK:TABLE)")
    s.add_argument("ref")
    s.add_argument("--json", action="store_true")
    for name, helptext in (("call", "evaluate a mechanic or look a table up: BOOK:MECHANIC NAME=VALUE ..., BOOK:TABLE KEY=VALUE ..."),
                           ("odds", "exact distribution of a dice mechanic: BOOK:MECHANIC NAME=VALUE ...")):
        s = sub.add_parser(name, parents=[colour], help=helptext)
        s.add_argument("ref")
        s.add_argument("assignments", nargs="*", metavar="NAME=VALUE")
        if name == "call":
            s.add_argument("--seed", type=int)
        else:
            s.add_argument("--explain", action="store_true",
                           help="name the branch of the mechanic's result each outcome comes from")
            s.add_argument("--vs", nargs="+", metavar="NAME=VALUE",
                           help="a second distribution beside the first: the same inputs with these changed "
                                "(e.g. --vs fusion=true)")
        s.add_argument("--json", action="store_true")
    s = sub.add_parser("explain", parents=[colour],
                       help="call a mechanic and show its working, citing rules, lines and notes: BOOK:MECHANIC NAME=VALUE ...")
    s.add_argument("ref")
    s.add_argument("assignments", nargs="*", metavar="NAME=VALUE")
    s.add_argument("--seed", type=int)
    s.add_argument("--json", action="store_true")
    s.add_argument("--no-locations", dest="locations", action="store_false",
                   help="leave out each step's file:line")
    s = sub.add_parser("check", parents=[colour], help="compile books, run every example and check")
    s.add_argument("book", nargs="?")
    s.add_argument("--json", action="store_true")
    s.add_argument("--strict", action="store_true", help="also fail when a check reports findings")
    s.add_argument("--watch", action="store_true",
                   help="check again whenever a source is saved and print only what changed (Ctrl-C stops)")
    s = sub.add_parser("diff", parents=[colour],
                       help="what changed from book A to book B (a book and its layer, two editions): rules, "
                            "mechanics' results and odds, tables, findings")
    s.add_argument("a", metavar="A", help="the book before (e.g. xenotactics)")
    s.add_argument("b", metavar="B", help="the book after (e.g. xenotactics+errata)")
    s.add_argument("--budget", type=int, default=None, metavar="N",
                   help="evaluations per mechanic when comparing results (default 20000); past it, inputs are sampled")
    s.add_argument("--json", action="store_true")
    s = sub.add_parser("export", parents=[colour],
                       help="write every book (or one) as JSON open data, with index.json and the JSON Schema")
    s.add_argument("book", nargs="?")
    s.add_argument("--out", metavar="DIR",
                   help="the folder to write into (default: ./rules-data); '-' with a BOOK prints that book's JSON")
    s.add_argument("--json", action="store_true", help="report what was written as JSON")
    s = sub.add_parser("preview", help="serve the website and rebuild it on every save of a book or docs page")
    s.add_argument("--project", metavar="DIR", help="the folder with conf.py and docs/ (default: here)")
    s.add_argument("--port", type=int, default=8000, help="port to serve on (default 8000; 0 picks a free one)")
    s.add_argument("--host", default="127.0.0.1", help="address to serve on (default 127.0.0.1)")
    s.add_argument("--open", action="store_true", help="open the site in a browser after the first build")
    s = sub.add_parser("js", parents=[colour],
                       help="compile books to JavaScript: one ES module per book and the shared runtime (runtime.mjs)")
    s.add_argument("book", nargs="*", help="book ids (default: every book)")
    s.add_argument("--out", default="_build/js", help="the folder to write to (default: _build/js)")
    s.add_argument("--examples", action="store_true",
                   help="also write BOOK.examples.mjs: every worked example's expression, compiled (for testing)")
    s.add_argument("--json", action="store_true")
    s = sub.add_parser("lsp", help="serve the Language Server Protocol over stdin/stdout, for editors")
    s.add_argument("--stdio", action="store_true", help="accepted for editors that pass it; stdio is the only transport")
    return p


def main(argv=None):
    args = build_parser().parse_args(argv)
    if args.cmd is None:
        build_parser().print_help()
        return 2
    from .errors import RulesError
    try:
        return _run(args)
    except RulesError as e:
        first = e.first_line() if hasattr(e, "first_line") else str(e).splitlines()[0]
        _die(_short(first, 300), 2)
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
    except Exception as e:  # a bug of ours: still one line, the traceback on request
        import os
        if os.environ.get("RULES_DEBUG"):
            raise
        _die(f"internal error: {type(e).__name__}: {_short(str(e))} (set RULES_DEBUG=1 for the traceback)", 70)


def _run(args):
    command = {"books": cmd_books, "lookup": cmd_lookup, "show": cmd_show, "call": cmd_call,
               "odds": cmd_odds, "check": cmd_check, "explain": cmd_explain, "export": cmd_export, "diff": cmd_diff,
               "js": cmd_js, "lsp": cmd_lsp, "preview": cmd_preview}[args.cmd]
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
    wid = max([16] + [len(b["id"]) for b in books])
    wtitle = max([36] + [len(b["title"]) for b in books])
    for b in books:
        _out(f"{b['id']:<{wid}} {b['title']:<{wtitle}} {b['rules']:>4} rules {b['mechanics']:>4} mechanics "
             f"{b['examples']:>4} examples")
    return 0


def cmd_lookup(args):
    from .index import ensure_index
    idx = ensure_index()
    query = " ".join(args.query)
    if not query.strip():
        _die("give a rule name or some words to look up, e.g. rules lookup suppression")
    if args.book and args.book not in [b["id"] for b in idx.books()]:
        from .errors import NotFound
        raise NotFound("book", args.book, [b["id"] for b in idx.books()])
    if args.limit < 1:
        _die("--limit must be at least 1")
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
            title = idx.title(b, rid)       # a layered book's inherited rule: its base's title
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
        _die(f"expected BOOK:NAME, got {ref!r} (e.g. null-strike:opposed-stat-rolls)")
    return ref.split(":", 1)


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
    """NAME=VALUE values: numbers, true/false, lists (1,2,3 or [1,2,3]), names."""
    from fractions import Fraction
    s = raw.strip()
    if s.startswith("[") and s.endswith("]"):
        s = s[1:-1]
        return [_parse_value(x) for x in s.split(",") if x.strip()] if s.strip() else []
    if "," in s:
        return [_parse_value(x) for x in s.split(",")]
    if s in ("true", "false"):
        return s == "true"
    try:
        return int(s)
    except ValueError:
        pass
    try:
        return Fraction(s)
    except (ValueError, ZeroDivisionError):
        return s


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


def _assignments(items):
    out = {}
    for a in items:
        if "=" not in a:
            _die(f"expected NAME=VALUE, got {a!r}")
        k, v = a.split("=", 1)
        if not k:
            _die(f"expected NAME=VALUE, got {a!r}")
        out[k.strip()] = _parse_value(v)
    return out


def _callable_and_inputs(args):
    """The mechanic or table `rules call` and `rules explain` name, with its inputs;
    a table's keys are checked by name, and `--seed` refused for it (it rolls nothing)."""
    book, kind, fn = _resolve(args.ref, allow_tables=True)
    kwargs = book.display.read_inputs(fn.name, _assignments(args.assignments))   # names and values in either form
    if kind == "table":
        names = [p.name for p in fn.keys]
        for k in kwargs:
            if k not in names:
                from .errors import NotFound
                raise NotFound("key", k, names, where=f"table {book.id}:{fn.name} (keys: {', '.join(names)})")
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
    from .odds import distribution
    if args.explain and args.vs:
        _die("--explain and --vs do not combine: ask for each on its own", 2)
    if args.explain:
        return _odds_explained(args, book, mech)
    words = book.display
    dist = distribution(mech, **words.read_inputs(mech.name, _assignments(args.assignments)))
    if args.vs:
        other = distribution(mech, **words.read_inputs(mech.name, {**_assignments(args.assignments),
                                                                   **_assignments(args.vs)}))
        if args.json:
            _json({"a": dist.as_json(), "b": other.as_json()})
            return 0
        from .odds import side_by_side
        _out(_fit(side_by_side(dist, other, label=lambda k: words.param(mech.name, k), **_odds_words(book, mech)), args))
        return 0
    if args.json:
        _json(dist.as_json())
        return 0
    _out(_fit(dist.table(**_odds_words(book, mech)), args))
    return 0


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


def _odds_explained(args, book, mech):
    """`rules odds --explain`: the distribution, and for each outcome the branches of
    the mechanic's result (a chain of `if`s) it comes from, with their probabilities."""
    from .explain import odds_by_branch
    from .values import percent_text
    given = book.display.read_inputs(mech.name, _assignments(args.assignments))
    found = odds_by_branch(mech, **given)
    if found is None:
        from .odds import distribution
        dist = distribution(mech, **given)
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
    ids = [args.book] if args.book else book_ids()
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


def cmd_diff(args):
    """`rules diff A B`: diff.py computes, diff_text.py says it in players' words."""
    from . import diff
    from .diff_text import lines
    if args.budget is not None and args.budget < 1:
        _die("--budget is a number of evaluations, at least 1")
    a, b = _load(args.a), _load(args.b)
    d = diff.diff_books(a, b, budget=args.budget or diff.DEFAULT_BUDGET)
    if args.json:
        _json(d)
        return 0
    for line in lines(d, a, b, _output(args).width):
        _out(line)
    return 0


def cmd_export(args):
    """`rules export`: the books as JSON files (rules_dsl/export.py), and where they went."""
    import os
    from . import export
    from .loader import book_ids, load
    if not book_ids():
        _require_books()
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

    from .jsgen import write
    from .loader import book_ids, load
    known = book_ids()
    ids = args.book or known
    if not ids:
        _require_books()
    for bid in ids:
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
