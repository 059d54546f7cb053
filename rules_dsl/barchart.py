"""Text bar charts of distributions, for the terminal: `bars`, `paired` and `fold`.

A picture a player reads before the table: one row per outcome, its label, a bar as long as its
chance against the likeliest row's, and the chance in per cent.  `paired` draws two laws side by
side (`rules odds --vs`: A's bar, then B's, on each row).  Bars use the eighth blocks of Unicode
(``█▉▊▋▌▍▎▏``, eight steps a character) or ``#`` where the stream cannot print them.  A law with
many unlikely outcomes (a chain's long tail) is `fold`-ed first, as the website folds its odds
tables and charts: its likeliest outcomes, then one row for the rest.

The functions take plain rows, so any command can draw with them: labels are text in the book's
words (`display.Names.value`), chances are exact fractions (or floats)."""
from __future__ import annotations

from fractions import Fraction

from .values import percent_text

#: a law longer than this is folded (as the website's odds tables are, sphinxext/data.py)
FOLD_ROWS = 10
#: ... to its likeliest outcomes that hold all but this much of the chance
FOLD_BELOW = Fraction(1, 100)
#: the longest bar, in characters (a wider terminal gets no wider chart)
MAX_BAR = 50
EIGHTHS = " ▏▎▍▌▋▊▉█"


def _bar(p, top, cells: int, unicode: bool) -> str:
    """A bar of `cells` characters at most for chance `p` against the largest chance `top`."""
    if top <= 0 or p <= 0:
        return ""
    eighths = round(Fraction(p) / Fraction(top) * cells * 8)
    eighths = max(eighths, 1)                   # a chance above zero always shows
    if not unicode:
        return "#" * max(1, round(eighths / 8))
    return "█" * (eighths // 8) + (EIGHTHS[eighths % 8] if eighths % 8 else "")


def fold(rows, numeric: bool = False, most: int = FOLD_ROWS, below: Fraction = FOLD_BELOW):
    """(rows, how many were folded): `rows` [(label, chance)] cut to the fewest likeliest that
    hold all but `below` of the chance (at most `most` in all), in their order, then one row for
    the rest: "N or more" when the rest is the tail of a numeric law, else "N other outcomes"."""
    if len(rows) <= most:
        return list(rows), 0
    probs = [Fraction(p) for _, p in rows]
    keep, covered = set(), Fraction(0)
    for i in sorted(range(len(rows)), key=lambda i: (-probs[i], i)):
        if covered >= 1 - below or len(keep) >= most - 1:
            break
        keep.add(i)
        covered += probs[i]
    rest = [i for i in range(len(rows)) if i not in keep]
    if len(rest) < 2:
        return list(rows), 0
    tail = numeric and rest == list(range(rest[0], len(rows)))
    first = rows[rest[0]][0]
    label = f"{first} or more" if tail and not first.endswith(" or more") else f"{len(rest)} other outcomes"
    return [rows[i] for i in sorted(keep)] + [(label, sum((probs[i] for i in rest), Fraction(0)))], len(rest)


def bars(rows, width: int = 80, unicode: bool = True) -> list:
    """Lines of a bar chart of `rows` [(label, chance)], at most `width` characters wide."""
    if not rows:
        return []
    labels = [str(label) for label, _ in rows]
    pcts = [percent_text(p) for _, p in rows]
    lw = min(max(len(x) for x in labels), max(8, width // 3))
    pw = max(len(x) for x in pcts)
    cells = max(4, min(MAX_BAR, width - 2 - lw - 2 - 1 - pw))
    top = max(Fraction(p) for _, p in rows)
    out = []
    for label, (_, p), pct in zip(labels, rows, pcts):
        bar = _bar(p, top, cells, unicode)
        out.append(f"  {_cut(label, lw, unicode):<{lw}}  {bar:<{cells}} {pct:>{pw}}".rstrip())
    return out


def paired(rows, width: int = 80, unicode: bool = True, names=("A", "B")) -> list:
    """Lines of two laws side by side: `rows` [(label, chance in A, chance in B)], each row
    A's bar over B's, both against the largest chance of either."""
    if not rows:
        return []
    labels = [str(label) for label, _, _ in rows]
    pcts = [(percent_text(a), percent_text(b)) for _, a, b in rows]
    lw = min(max(len(x) for x in labels), max(8, width // 3))
    nw = max(len(x) for x in names)
    pw = max(len(x) for pair in pcts for x in pair)
    cells = max(4, min(MAX_BAR, width - 2 - lw - 2 - nw - 1 - 1 - pw))
    top = max(max(Fraction(a), Fraction(b)) for _, a, b in rows)
    out = []
    for label, (_, a, b), (pa, pb) in zip(labels, rows, pcts):
        for i, (name, p, pct) in enumerate(((names[0], a, pa), (names[1], b, pb))):
            head = _cut(label, lw, unicode) if i == 0 else ""
            out.append(f"  {head:<{lw}}  {name:<{nw}} {_bar(p, top, cells, unicode):<{cells}} {pct:>{pw}}".rstrip())
    return out


def _cut(text: str, width: int, unicode: bool) -> str:
    if len(text) <= width:
        return text
    dots = "…" if unicode else "..."
    return text[: max(1, width - len(dots))] + dots


def distribution_chart(dist, show, width: int = 80, unicode: bool = True) -> list:
    """The chart of an odds `Distribution` (rules_dsl.odds), labels said by `show(value)`;
    a chain's "n or more" bucket says itself."""
    rows, folded = fold([(_said(v, show), p) for v, p in dist.outcomes], numeric=dist.mean is not None)
    return bars(rows, width, unicode)


def side_by_side_chart(left, right, show, width: int = 80, unicode: bool = True, names=("A", "B")) -> list:
    """The chart of two distributions of one mechanic (`rules odds --vs`): every result either
    gives, A's chance and B's."""
    a = {_said(v, show): p for v, p in left.outcomes}
    b = {_said(v, show): p for v, p in right.outcomes}
    order = list(dict.fromkeys([_said(v, show) for v, _ in left.outcomes] + [_said(v, show) for v, _ in right.outcomes]))
    if left.mean is not None and right.mean is not None:        # numbers: in their order
        keyed = {_said(v, show): v for v, _ in list(left.outcomes) + list(right.outcomes)}
        order.sort(key=lambda s: _number_key(keyed[s]))
    return paired([(s, a.get(s, 0), b.get(s, 0)) for s in order], width, unicode, names)


def _said(v, show) -> str:
    n = getattr(v, "n", None)
    if n is not None and hasattr(v, "up"):          # odds.OrMore: a chain's unbounded tail
        return f"{show(n)} or {'more' if v.up else 'less'}"
    return show(v)


def _number_key(v):
    n = getattr(v, "n", None)
    if n is not None and hasattr(v, "up"):
        return (1 if v.up else -1, n)
    return (0, v)
