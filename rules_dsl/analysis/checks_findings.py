"""What a check's `follows NAME` names: another check of the same book, never itself,
and never in a circle.

A check that `follows` another says its failure is a consequence of that one's (the
40k bunker's door, 20 against 15, follows from the bunker's armour, 25 against 30):
when both fail, its findings are listed under the cause's instead of as a second
contradiction (`library/findings.py`).  A cause that is no check, or a circle of
causes (where no finding would be the first), is an error here, before anything runs.
"""
from __future__ import annotations

from ..language import nodes as n
from ..errors import did_you_mean
from ..language.model import BookAST, decls_of


def check_follows(book: BookAST, report) -> None:
    checks = {p.node.name: p.node for p in decls_of(book) if isinstance(p.node, n.Check)}
    for name, chk in checks.items():
        if chk.follows is None:
            continue
        at = chk.follows_span or chk.span
        if chk.follows == name:
            report(at, f"check '{name}' follows itself",
                   "name the check whose failure this one's follows from, or leave `follows` out")
        elif chk.follows not in checks:
            report(at, f"check '{name}' follows '{chk.follows}', which is no check of this book",
                   did_you_mean(chk.follows, checks) or "name a check of this book (`check NAME ...`)")
        else:
            seen, at_name = [name], chk.follows
            while at_name in checks and at_name not in seen:
                seen.append(at_name)
                at_name = checks[at_name].follows
            if at_name == name:
                report(at, "checks follow each other in a circle: " + " -> ".join(seen + [name]),
                       "a cause must be a check that does not, in the end, follow this one")
