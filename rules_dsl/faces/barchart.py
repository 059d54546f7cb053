"""Text bar charts, for the terminal: `bar`, `bars` and `grouped` (odds_text draws `rules odds`,
its sweeps and its cost views with them).

A picture a player reads beside the table: one row per outcome, its label, a bar as long as its
chance against the likeliest row's, and the chance in per cent.  `grouped` draws several laws on
each row (`rules odds --vs`: A's bar, then B's, C's...).  Bars use the eighth blocks of Unicode
(``█▉▊▋▌▍▎▏``, eight steps a character) or ``#`` where the stream cannot print them; `bar` is the
one bar every terminal chart draws.

The functions take plain rows, so any command can draw with them: labels are text in the book's
words (`display.Names.value`), chances are exact fractions (or floats), written by `said`
(odds_text passes its `pct`, so a chart writes a chance as the table above it does)."""
from __future__ import annotations

from fractions import Fraction

from ..language.values import percent_text

#: the longest bar, in characters (a wider terminal gets no wider chart)
MAX_BAR = 50
EIGHTHS = " ▏▎▍▌▋▊▉█"


def bar(p, top, cells: int, unicode: bool = True) -> str:
    """A bar of `cells` characters at most for `p` against the largest amount `top` (to the
    nearest eighth of a character; an amount above zero always shows)."""
    if not top or p is None or top <= 0 or p <= 0:
        return ""
    eighths = round(Fraction(p) / Fraction(top) * cells * 8)
    eighths = max(eighths, 1)
    if not unicode:
        return "#" * max(1, round(eighths / 8))
    return "█" * (eighths // 8) + (EIGHTHS[eighths % 8] if eighths % 8 else "")


def bars(rows, width: int = 80, unicode: bool = True, said=percent_text) -> list:
    """Lines of a bar chart of `rows` [(label, chance)], at most `width` characters wide."""
    if not rows:
        return []
    labels = [str(label) for label, _ in rows]
    pcts = [said(p) for _, p in rows]
    lw = min(max(len(x) for x in labels), max(8, width // 3))
    pw = max(len(x) for x in pcts)
    cells = max(4, min(MAX_BAR, width - 2 - lw - 2 - 1 - pw))
    top = max(Fraction(p) for _, p in rows)
    out = []
    for label, (_, p), pct in zip(labels, rows, pcts):
        drawn = bar(p, top, cells, unicode)
        out.append(f"  {_cut(label, lw, unicode):<{lw}}  {drawn:<{cells}} {pct:>{pw}}".rstrip())
    return out


def grouped(rows, width: int = 80, unicode: bool = True, names=("A", "B"), said=percent_text) -> list:
    """Lines of several laws side by side: `rows` [(label, [chance in each law])], on each row
    one bar per law, in the order of `names`, all against the largest chance of any."""
    if not rows:
        return []
    labels = [str(label) for label, _ in rows]
    pcts = [[said(p) for p in ps] for _, ps in rows]
    lw = min(max(len(x) for x in labels), max(8, width // 3))
    nw = max(len(x) for x in names)
    pw = max(len(x) for row in pcts for x in row)
    cells = max(4, min(MAX_BAR, width - 2 - lw - 2 - nw - 1 - 1 - pw))
    top = max(Fraction(p) for _, ps in rows for p in ps)
    out = []
    for label, (_, ps), texts in zip(labels, rows, pcts):
        for i, (name, p, pct) in enumerate(zip(names, ps, texts)):
            head = _cut(label, lw, unicode) if i == 0 else ""
            out.append(f"  {head:<{lw}}  {name:<{nw}} {bar(p, top, cells, unicode):<{cells}} {pct:>{pw}}".rstrip())
    return out


def _cut(text: str, width: int, unicode: bool) -> str:
    if len(text) <= width:
        return text
    dots = "…" if unicode else "..."
    return text[: max(1, width - len(dots))] + dots
