"""What every `rules` command shares: printing a line or JSON, a one-line error and its
exit code, a user's input echoed short, the checks of a book id typed on the command
line (a name, never a path; a books folder that holds no books said so plainly), and
the command's one deadline (`--time-limit`).

Nothing is imported at module level but `sys`: `rules lookup` loads this module.
"""
from __future__ import annotations

import sys


def out_line(text=""):
    sys.stdout.write(text + "\n")


def die(msg: str, code: int = 2):
    sys.stderr.write(f"rules: {msg}\n")
    raise SystemExit(code)


def print_json(obj):
    import json
    out_line(json.dumps(obj, indent=2, ensure_ascii=False))


def short(text: str, limit: int = 80) -> str:
    """A user's input echoed in a message: one line, and not 100 KB of it."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def require_books():
    """Exit with a clear message when the books folder holds no books (e.g. a wheel
    installed without them): where we looked and how to point the tools elsewhere."""
    import os
    from .. import paths
    d = paths.books_dir()
    try:
        found = any(e.name.endswith(".rules") or (e.is_dir() and any(f.endswith(".rules") for f in os.listdir(e.path)))
                    for e in os.scandir(d))
    except OSError:
        found = False
    if not found:
        where = "RULES_DSL_BOOKS" if os.environ.get("RULES_DSL_BOOKS") else "the default books folder"
        die(f"no books in {d} ({where}); set RULES_DSL_BOOKS to a folder of .rules books "
            "(e.g. the rulebooks/ folder of a rules-dsl checkout)")


def split_ref(ref: str):
    if ":" not in ref:
        die(f"expected BOOK:NAME, got {short(ref)!r} (e.g. null-strike:opposed-stat-rolls)")
    book_id, name = ref.split(":", 1)
    return checked_book_id(book_id), name


def checked_book_id(book_id: str) -> str:
    """A book id typed on the command line, checked as every entry checks one
    (`paths.check_book_id`: a name, never a path) before anything reads a file."""
    from ..paths import check_book_id

    def known():
        from ..library.loader import book_ids
        return book_ids()
    return check_book_id(book_id, known)


def load_book(book_id):
    from ..library.loader import load
    return load(book_id)


def decl_names(book):
    return list(book.mechanics) + list(book.tables) + list(book.constants) + list(book.enums)


def kinds_of(book, name) -> list:
    """What `name` is in `book`: 'a mechanic', 'a table', 'a rule', ... (several at once is possible)."""
    kinds = []
    for has, kind in ((book.mechanics, "a mechanic"), (book.tables, "a table"), (book.constants, "a constant"),
                      (book.enums, "an enumeration"), (book.rules_by_id, "a rule")):
        if name in has:
            kinds.append(kind)
    return kinds


def output(args):
    from .terminal_prose import Out
    return Out(color=getattr(args, "color", None))


def command_deadline(args):
    """The command's one deadline (`odds.Deadline`), from `--time-limit` (default
    `odds.budget.DEFAULT_SECONDS`), started now: every computation of the command (a
    call, the odds with their variants and rows, a cost view's cases) keeps to it."""
    from ..odds.budget import DEFAULT_SECONDS, Deadline
    return Deadline(getattr(args, "time_limit", None) or DEFAULT_SECONDS)
