"""`rules check --watch`: check the books again whenever a source is saved and print
only what changed: new and fixed errors and warnings, examples now failing or
passing again, findings that appear or go.

Each problem has a key that does not depend on where it is (an error's file,
message and source line; an example case's rule and expression; a finding's kind,
rule, check, printed entry and failing cases), so a line inserted above an error does not report it as fixed
and new again.  Watching is polling the books' file stamps (`loader.fingerprint`),
no extra library.
"""
from __future__ import annotations

import time


def snapshot(lib, book_id: str) -> dict:
    """{key: (category, text shown)} of everything `rules check` reports for one book."""
    from ..errors import RulebookError

    out = {}
    try:
        book = lib.load(book_id)
    except RulebookError as e:
        for d in e.diagnostics:
            out[("error", d.file, d.message, d.source_line.strip())] = (
                "error", f"{d.file}:{d.line}:{d.column}: {d.message}" + (f" ({d.hint})" if d.hint else ""))
        return out
    for d in book.warnings:
        out[("warning", d.file, d.message, d.source_line.strip())] = (
            "warning", f"{d.file}:{d.line}:{d.column}: {d.message}")
    for r in book.run_examples():
        for c in r.cases:
            key = ("example", r.rule, c.source)
            if not c.passed:
                out[key] = ("example", f"{c.location} ({r.rule}): >>> {c.source}: expected {c.expected}, got {c.got}")
    for f in book.findings:
        out[("finding", f.kind, f.rule, f.check, f.printed, f.cases)] = ("finding", f"[{f.kind}] {f.location} ({f.rule}): {f.message}")
    return out


GONE = {"error": "fixed", "warning": "gone", "example": "now passing", "finding": "gone"}
NEW = {"error": "new error", "warning": "new warning", "example": "now failing", "finding": "new finding"}


def changes(before: dict, after: dict) -> list:
    """Lines saying what differs between two snapshots (empty when nothing does)."""
    lines = []
    for key, (cat, text) in before.items():
        if key not in after:
            lines.append(f"  {GONE[cat]}: {text}")
    for key, (cat, text) in after.items():
        if key not in before:
            lines.append(f"  {NEW[cat]}: {text}")
    return lines


def poll(stamp, since, interval: float = 0.5):
    """Wait until `stamp()` differs from `since`; True (a KeyboardInterrupt stops the watch)."""
    while stamp() == since:
        time.sleep(interval)
    return True


def watch(lib, ids: list, write, wait=None) -> int:
    """Check `ids`, then after each change print what changed, until `wait` returns False.

    `wait(stamp, since)` blocks until `stamp()` differs from `since`, the books' stamp
    taken before the last check, so a save made during a check is never missed
    (default: `poll`); tests pass their own."""
    from ..library.loader import fingerprint

    def stamp():
        files = []
        for bid in ids:
            try:
                files.extend(lib.book_files(bid))
            except Exception:
                pass
        return fingerprint(files)

    wait = wait or poll
    last = stamp()
    state = {bid: snapshot(lib, bid) for bid in ids}
    for bid in ids:
        problems = state[bid]
        write(f"{bid}: " + (f"{len(problems)} problem(s)" if problems else "ok"))
        for cat, text in problems.values():
            write(f"  {cat}: {text}")
    write("watching for changes (Ctrl-C to stop)")
    while wait(stamp, last):
        last = stamp()
        for bid in ids:
            new = snapshot(lib, bid)
            lines = changes(state[bid], new)
            state[bid] = new
            write(f"{bid}: " + (f"{len(new)} problem(s)" if new else "ok") + ("" if lines else ", nothing changed"))
            for line in lines:
                write(line)
    return 0
