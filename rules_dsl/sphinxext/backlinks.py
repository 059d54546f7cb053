""""Referenced by": the other side of every checked cross-reference between rules.

A rule's render model lists the rules and sections its text points to (`refs`,
from the `[[refs]]` that `checks.check_references` verified).  Turned around
across every book of the build, that gives each rule the rules that point to it,
in any book.  The order is fixed (the target's own book first, then the other
books by id; within a book by title, then id), so two builds write the same page.
"""
from __future__ import annotations


def referenced_by(models: dict) -> dict:
    """(book, rule id) -> [(book, rule id, title), ...] of the rules referring to it."""
    found: dict = {}
    for bid, m in models.items():
        for rid, r in m["rules"].items():
            for tb, tid in r.get("refs", ()):
                target = models.get(tb)
                if target is None or tid not in target["rules"]:
                    continue          # a section, or a book left out of this build
                found.setdefault((tb, tid), set()).add((bid, rid, r["title"]))
    return {target: sorted(srcs, key=lambda s: (s[0] != target[0], s[0], s[2].lower(), s[1]))
            for target, srcs in sorted(found.items())}
