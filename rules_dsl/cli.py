"""The `rules` command's entry point (`rules_dsl.cli:main`): its argument parser, and the
dispatch of each subcommand to the module of its job: cli_lookup (books, lookup, show),
cli_call (call, explain), cli_odds (odds, cost), cli_book_tools (check, diff, export,
js, preview, lsp); what they share is in cli_common, inputs are read by cli_inputs.

Start-up is kept lean: a plain `rules lookup` is read without building argparse's
parsers (`lookup_args`), and loads the index (SQLite), the search and the terminal; the
compiler and lark load only for subcommands that need compiled books.  Every
error a user can cause prints one readable line and exits non-zero (2 for a bad
name or argument, 1 for "nothing found" or a failing check).
"""
from __future__ import annotations

import sys

from .faces.cli_common import die, require_books, short


#: `--limit` above this is read as this: more results than any library's rules is "all of them"
MAX_LIMIT = 10_000


def _whole(low: int, high: int, clamp: bool = False):
    """An argparse type: a whole number in low..high (above `high`: `high`, with `clamp`),
    else argparse's one-line usage error; never Python's OverflowError from deeper down."""
    def read(text: str) -> int:
        import argparse
        t = text.strip()
        if not t.lstrip("+-").isdigit() or len(t) > 40:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {short(text, 30)!r}")
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
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {short(text, 30)!r}") from None
    if not 0 < v <= 86400:
        raise argparse.ArgumentTypeError(f"expected a number of seconds in (0, 86400], got {short(text, 30)}")
    return v


def _time_limit(parser):
    """`--time-limit SECONDS`, declared once for every command that computes (call,
    explain, odds, cost): one deadline (`odds.Deadline`, made by `cli_common.command_deadline`)
    for the whole command, shared by its variants, rows and cases (docs/cli.md, "Time limits")."""
    parser.add_argument("--time-limit", type=_seconds, default=None, metavar="SECONDS",
                        help="the whole command's time (default 5), shared by every variant, row and case "
                             "it computes; past it, what was not computed says so")


#: the subcommands, in the order `rules --help` lists them
COMMANDS = ("books", "lookup", "show", "call", "odds", "explain", "cost", "check", "diff", "export", "preview", "js", "lsp")


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
            _time_limit(s)
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
            _time_limit(s)
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
        _time_limit(s)
    if wanted("cost"):
        s = add("cost",
                "a book's cost views: what each priced case costs per what its dice give: BOOK[:NAME]")
        s.add_argument("ref", metavar="BOOK[:NAME]")
        s.add_argument("--exact", action="store_true", help="the exact fractions beside the decimals")
        _time_limit(s)
        s.add_argument("--json", action="store_true")
    if wanted("check"):
        s = add("check", "compile books, run every example and check")
        s.add_argument("book", nargs="?")
        s.add_argument("--json", action="store_true")
        s.add_argument("--strict", action="store_true", help="also fail when a check reports findings")
        s.add_argument("--watch", action="store_true",
                       help="check again whenever a source is saved and print only what changed (Ctrl-C stops)")
    if wanted("diff"):
        s = add("diff",
                "what changed from book A to book B (a book and its layer, two editions): rules, "
                "mechanics' results and odds, tables, findings")
        s.add_argument("a", metavar="A", help="the book before (e.g. xenotactics)")
        s.add_argument("b", metavar="B", help="the book after (e.g. xenotactics+errata)")
        s.add_argument("--budget", type=int, default=None, metavar="N",
                       help="evaluations per mechanic when comparing results (default 20000); past it, inputs are sampled")
        s.add_argument("--time-limit", type=_seconds, default=None, metavar="SECONDS",
                       help="the whole diff's time for its exact computations (default 60; one budget shared by "
                            "every mechanic's calls and odds); past it, what was not compared says so")
        s.add_argument("--json", action="store_true")
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


def lookup_args(argv: list):
    """The arguments of a plain `rules lookup` read without argparse, or None.

    Plain: `lookup`, then one run of words (none starting with `-`), with `--book B`,
    `--limit N`, `--json`, `--color` or `--no-color` (`--opt=value` too) before or after
    it, each at most once.  Anything else (`-h`, an abbreviation, `--`, a word after the
    options, a bad or repeated option, a value starting with `-`) gives None, and argparse
    reads the line as it always does, with its usage, help and errors.  What this returns
    equals what the lookup parser gives (tests/test_cli_startup.py holds the two together):
    building that parser, and the translations its messages look up, cost a cold lookup
    more than the search itself.
    """
    if not argv or argv[0] != "lookup":
        return None
    words, values, run = [], {}, 0           # run: 0 before the words, 1 in them, 2 after
    rest = iter(argv[1:])
    for arg in rest:
        if not arg.startswith("-"):
            if run == 2:
                return None
            run = 1
            words.append(arg)
            continue
        run = 2 if run else 0
        name, eq, value = arg.partition("=")
        if name in ("--book", "--limit"):
            if not eq:
                value = next(rest, None)
                if value is None or value.startswith("-"):
                    return None
        elif name in ("--json", "--color", "--no-color") and not eq:
            value = True
        else:
            return None
        if name in values or {"--color", "--no-color"} <= set(values) | {name}:
            return None
        values[name] = value
    limit = values.get("--limit", "5")
    if not words or not (limit.isascii() and limit.isdigit() and len(limit) <= 9 and int(limit) >= 1):
        return None
    from types import SimpleNamespace
    color = True if "--color" in values else False if "--no-color" in values else None
    return SimpleNamespace(cmd="lookup", query=words, book=values.get("--book"), limit=min(int(limit), MAX_LIMIT),
                           json="--json" in values, color=color)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    args = lookup_args(argv) or build_parser(argv[0] if argv and argv[0] in COMMANDS else None).parse_args(argv)
    if args.cmd is None:
        build_parser().print_help()
        return 2
    try:
        return _run(args)
    except KeyboardInterrupt:  # pragma: no cover
        die("interrupted", 130)
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
            die(_wrapped(short(first, 400)), 2)
        # a bug of ours: still one line, the traceback on request
        import os
        if os.environ.get("RULES_DEBUG"):
            raise
        die(f"internal error: {type(e).__name__}: {short(str(e))} (set RULES_DEBUG=1 for the traceback)", 70)


def _wrapped(message: str) -> str:
    """An error for a person at a terminal, wrapped to its width under "rules: " (a
    refusal with its sizes and hints runs to 300 columns); into a pipe or a file it stays
    the one line scripts and logs read."""
    try:
        if not sys.stderr.isatty():
            return message
    except (AttributeError, ValueError):
        return message
    import textwrap
    from .faces.terminal_prose import terminal_width
    width = terminal_width(sys.stderr) - len("rules: ")
    return "\n       ".join(textwrap.wrap(message, max(width, 20), break_long_words=False, break_on_hyphens=False)
                            or [message])


def command_function(name: str):
    """The function of subcommand `name`, from the module of its job (only that one is imported)."""
    if name in ("books", "lookup", "show"):
        from .faces import cli_lookup as module
    elif name in ("call", "explain"):
        from .faces import cli_call as module
    elif name in ("odds", "cost"):
        from .faces import cli_odds as module
    else:
        from .faces import cli_book_tools as module
    return getattr(module, "cmd_" + name)


def _run(args):
    command = command_function(args.cmd)
    try:
        return command(args) or 0
    except Exception as e:
        if getattr(e, "kind", None) == "book":   # an unknown book: perhaps there are no books at all
            require_books()
        # A damaged lookup index (a truncated file, a disk error) is only a cache:
        # drop it and answer again from a fresh one.
        if type(e).__module__ != "sqlite3" or "sqlite3" not in sys.modules:
            raise
        import os
        from .faces.index import index_path
        try:
            os.unlink(index_path())
        except OSError:
            pass
        return command(args) or 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
