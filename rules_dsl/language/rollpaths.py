"""Roll paths: how a roll made inside a called mechanic is named, given and shown.

A mechanic's own roll is named by its name (`save`).  A roll made inside a
mechanic it calls is named by the path of calls that led to it, each call by
the callee's name: `morale_test.first` is the roll `first` of the `morale_test`
that this mechanic calls, `attack.hits.dice` goes two calls down.  When one
invocation calls the same mechanic several times (twice in a row, or once per
item of a comprehension), the calls are numbered in the order they are made,
from 0 as the language numbers list items: `attack[0].hit_dice`,
`attack[1].hit_dice`.  The first call is also just `attack.hit_dice`, so a
mechanic called once keeps the short name.

One syntax for every place a roll is given: a worked example
(`volley(2, attack[1].hit_dice=[6, 6])`), `rules call` / `explain` / `odds`
(`attack[1].hit_dice=6,6`), Python (`**{"attack[1].hit_dice": [6, 6]}`) and the
JavaScript back end.  Rolls made are shown with the same names (`shown_names`).

This module only handles the names (text); the evaluation context
(`compiler.context.Ctx.child`) numbers the calls.
"""
from __future__ import annotations

import re

_SEGMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:\[([0-9]{1,6})\])?")


def is_path(name: str) -> bool:
    """A roll given by path (through a called mechanic), not by its own name."""
    return "." in name or "[" in name


def parse(path: str):
    """`attack[1].hits.dice` -> ([("attack", 1), ("hits", 0)], "dice"); None when malformed
    (the last part is a roll's name: it takes no number)."""
    parts = path.split(".")
    calls = []
    for i, part in enumerate(parts):
        m = _SEGMENT.fullmatch(part)
        if m is None:
            return None
        if i == len(parts) - 1:
            if m.group(2) is not None:
                return None
            return calls, m.group(1)
        calls.append((m.group(1), int(m.group(2) or 0)))
    return None  # pragma: no cover - split always gives one part


def segment(name: str, k: int) -> str:
    """The name of the `k`-th call (from 0) of mechanic `name` in one invocation."""
    return name if k == 0 else f"{name}[{k}]"


def canonical(path: str) -> str:
    """The name the evaluation uses: a first call's `[0]` is dropped (`a[0].x` is `a.x`)."""
    if "[0]" not in path:
        return path
    parsed = parse(path)
    if parsed is None:
        return path
    calls, roll = parsed
    return ".".join([segment(c, k) for c, k in calls] + [roll])


def shown_names(made: dict) -> dict:
    """Rolls made, named as they are shown: where one invocation called a mechanic more
    than once, its first call is written `name[0]` beside `name[1]`, `name[2]`..."""
    repeated = set()
    for key in made:
        parsed = parse(key)
        if parsed is None:
            continue
        prefix = ""
        for c, k in parsed[0]:
            if k:
                repeated.add((prefix, c))
            prefix += segment(c, k) + "."
    if not repeated:
        return dict(made)
    out = {}
    for key, value in made.items():
        parsed = parse(key)
        if parsed is None:
            out[key] = value
            continue
        prefix, shown = "", []
        for c, k in parsed[0]:
            shown.append(f"{c}[{k}]" if (prefix, c) in repeated else c)
            prefix += segment(c, k) + "."
        out[".".join(shown + [parsed[1]])] = value
    return out
