"""Odds and design views as terminal text: tables a player reads, bar charts a designer scans.

One function per view, each returning lines (the CLI prints them, the tests read them):

* `distribution_chart`, `variants_chart`: the same rows as bars (barchart.py), drawn
  under the table of one distribution and of variants side by side;
* `distribution_lines`: one distribution: the rows that matter (the tail of a numeric
  result folded into "K or more" / "K or less" once under 0.1% in all), chances as
  percentages, the mean as a decimal; with `exact`, every row and the exact fractions;
* `sweep_lines`: one input over its range: a row per value (the mean, and the chance
  of at least K for the K that matter; or the chance of each result), then a bar chart;
* `variants_lines`: the base inputs and several variants side by side, with the
  difference of each variant from the base;
* `cost_lines`: a `priced` view: the formula, then per case its cost, the expected
  result and the cost per unit, with bars (the lowest cost per unit is the best buy).

Numbers are exact underneath (`rules_dsl.odds`); here they are rounded for reading.
"""
from __future__ import annotations

from fractions import Fraction

from .barchart import bar as _drawn, bars, grouped
from ..language.values import show

FOLD = Fraction(1, 1000)        # a numeric tail whose whole chance is under 0.1% is folded into one row


# ------------------------------------------------------------------ numbers
def pct(p: Fraction) -> str:
    """A chance as a percentage: two decimals, '<0.01%' for a sliver, '0%' and '100%' exact."""
    if p == 0:
        return "0%"
    if p == 1:
        return "100%"
    x = float(p) * 100
    if x < 0.005:
        return "<0.01%"
    if x > 99.995:
        return ">99.99%"
    return f"{x:.2f}%"


def decimal(x, places: int = 2) -> str:
    """A number as a decimal rounded to `places` (so a column of them lines up)."""
    if isinstance(x, bool) or not isinstance(x, (int, Fraction)):
        return show(x)
    return f"{float(x):.{places}f}"


def fraction(p: Fraction) -> str:
    p = Fraction(p)
    return str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"


def bar(x, top, width: int) -> str:
    """A horizontal bar of x out of top, `width` characters at most (eighths of a block):
    the bar of every terminal chart (barchart.bar)."""
    return _drawn(x, top, width)


def _table(head: list, rows: list, right=None) -> list:
    """Aligned columns: the first left, the rest right (or as `right` says)."""
    k = len(head)
    w = [max([len(head[i])] + [len(r[i]) for r in rows]) for i in range(k)]
    right = right or [i > 0 for i in range(k)]

    def line(cells):
        return "  ".join(f"{c:>{w[i]}}" if right[i] else f"{c:<{w[i]}}" for i, c in enumerate(cells)).rstrip()
    return [line(head), line(["-" * x for x in w])] + [line(r) for r in rows]


# ------------------------------------------------------------------ one distribution
def fold(dist):
    """(rows, low, high): the outcomes to show, and the folded tails as (first value,
    chance, how many results) or None.  Only a numeric result's tails fold, each only
    when it holds two results or more whose whole chance is under 0.1%."""
    outs = list(dist.outcomes)
    if dist.mean is None or len(outs) < 6:
        return outs, None, None
    lo_i, acc = 0, Fraction(0)
    while lo_i < len(outs) - 1 and acc + outs[lo_i][1] < FOLD:
        acc += outs[lo_i][1]
        lo_i += 1
    hi_i, acc2 = len(outs), Fraction(0)
    while hi_i - 1 > lo_i and acc2 + outs[hi_i - 1][1] < FOLD:
        acc2 += outs[hi_i - 1][1]
        hi_i -= 1
    low = (outs[lo_i - 1][0], acc, lo_i) if lo_i >= 2 else None
    high = (outs[hi_i][0], acc2, len(outs) - hi_i) if len(outs) - hi_i >= 2 else None
    return outs[lo_i if low else 0: hi_i if high else len(outs)], low, high


def distribution_lines(dist, exact: bool = False, show=show, title=None, result: str = "result") -> list:
    """`show` writes a value, `title(dist)` the first line and `result` heads the first
    column: in players' words when the CLI passes the book's (display.py), else as the
    rules language writes them."""
    from ..odds.result import explode_lines
    cum = dist.cumulative()
    numeric = cum is not None
    at = {v: (ge, le) for v, _, ge, le in cum} if numeric else {}
    rows, low, high = (list(dist.outcomes), None, None) if exact else fold(dist)
    head = [result, "chance"] + (["exact"] if exact else []) + (["at least", "at most"] if numeric else [])
    body = []
    if low:
        body.append([f"{show(low[0])} or less", pct(low[1])] + ([fraction(low[1])] if exact else [])
                    + (["100%", pct(low[1])] if numeric else []))
    for v, p in rows:
        cells = [show(v), pct(p)] + ([fraction(p)] if exact else [])
        if numeric:
            cells += [pct(at[v][0]), pct(at[v][1])]
        body.append(cells)
    if high:
        body.append([f"{show(high[0])} or more", pct(high[1])] + ([fraction(high[1])] if exact else [])
                    + ([pct(high[1]), "100%"] if numeric else []))
    lines = [title(dist) if title else dist.title(), ""] + _table(head, body) + [""]
    folded = [f for f in (low, high) if f]
    if folded:
        lines.append("folded: " + "; ".join(f"{f[2]} results {'from' if f is high else 'up to'} {show(f[0])}, "
                                           f"{pct(f[1])} in all" for f in folded) + " (--exact shows every row)")
    if dist.mean is not None:
        m = dist.mean
        lines.append(f"mean: {decimal(m)}" + (f" (exactly {fraction(m)})" if exact and Fraction(m).denominator != 1 else ""))
    else:
        lines.append("mean: - (the result is not a number)")
    if not dist.exact:
        lines.append(f"truncated: a chain's tail was cut; total error below {float(dist.error_bound):.3g}")
    if any(type(v).__name__ == "OrMore" for v, _ in dist.outcomes):
        lines.append("a chain has no upper limit: the 'or more' row is its exact remaining probability")
    lines += explode_lines(dist.explode_caps)
    return lines


# ------------------------------------------------------------------ charts of distributions
def distribution_chart(dist, show, width: int = 80, unicode: bool = True, exact: bool = False) -> list:
    """The chart of an odds `Distribution` (rules_dsl.odds), labels said by `show(value)`: the
    rows of its table (distribution_lines), a folded tail as one row ("12 or more"),
    every row when `exact`; a chain's "n or more" bucket says itself."""
    outs, low, high = (list(dist.outcomes), None, None) if exact else fold(dist)
    rows = [(_said(v, show), p) for v, p in outs]
    if low:
        rows.insert(0, (f"{show(low[0])} or less", low[1]))
    if high:
        rows.append((f"{show(high[0])} or more", high[1]))
    return bars(rows, width, unicode, pct)


def variants_chart(dists, show, width: int = 80, unicode: bool = True) -> list:
    """The chart of one mechanic's distributions side by side (`rules odds --vs`, one or
    several variants): every result any gives, in the rows of variants_lines, A's
    chance, then B's, C's..."""
    values = list(dict.fromkeys(v for d in dists for v, _ in d.outcomes))
    if all(d.mean is not None for d in dists):        # numbers: in their order
        values.sort(key=_number_key)
    names = [chr(ord("A") + i) for i in range(len(dists))]
    return grouped([(_said(v, show), [d.probability(v) for d in dists]) for v in values], width, unicode, names, pct)


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


# ------------------------------------------------------------------ sweeps
def thresholds(dists, most: int = 6) -> list:
    """The K of "K or more" worth a column: results above the lowest, with a chance of at
    least 0.5% somewhere in the sweep; at most `most` of them, spread out."""
    values = sorted({v for d in dists for v, _ in d.outcomes if isinstance(v, (int, Fraction))
                     and not isinstance(v, bool)})
    if len(values) < 2:
        return values
    # "K or more" only falls as K grows, so a K is worth a column exactly when it is at
    # most the highest K some row gives at least 0.5%: one pass down each row's results,
    # not a sum per K and row (a 1000-row sweep of a product has thousands of results,
    # and the table must not outlast the command's time limit)
    reach = None
    for d in dists:
        tail = Fraction(0)
        for v, p in sorted(((v, p) for v, p in d.outcomes if isinstance(v, (int, Fraction))
                            and not isinstance(v, bool)), reverse=True):
            tail += p
            if tail >= Fraction(1, 200):
                reach = v if reach is None else max(reach, v)
                break
    keep = [k for k in values[1:] if reach is not None and k <= reach]
    if len(keep) > most:
        step = (len(keep) - 1) / (most - 1)
        keep = [keep[round(i * step)] for i in range(most)]
    return keep


def at_least(d, k) -> Fraction:
    return sum((p for v, p in d.outcomes if isinstance(v, (int, Fraction)) and not isinstance(v, bool) and v >= k),
               Fraction(0))


NOT_COMPUTED = "not computed"     # a table's cell for a row whose refusal is said under the table


def refusal_lines(said: list, width: int = 80, name: str = "") -> list:
    """The refusals of a table's rows, under it, wrapped to `width`: `said` is [(the
    row's value in words, its refusal)], each refusal the words `rules odds` says for it
    (a row too large, or one the time limit did not reach); `name` the input the rows
    are values of; a run of rows that say the same is one line ("n 27 to 1000: not
    computed: ...")."""
    import textwrap
    runs = []                                   # [[first, last, text]]
    for row, text in said:
        if runs and runs[-1][2] == text:
            runs[-1][1] = row
        else:
            runs.append([row, row, text])
    lines = ["Not computed:"] if runs else []
    for first, last, text in runs:
        rows = f"{name} {first}".strip() + ("" if first == last else f" to {last}")
        lines += textwrap.wrap(f"{rows}: {text}", max(width, 24), initial_indent="  ", subsequent_indent="    ",
                               break_long_words=False, break_on_hyphens=False)
    return lines


def sweep_lines(sw, exact: bool = False, width: int = 80, show=show, heading=None, label=None,
                result=None) -> list:
    """`show`, `label` (an input's name) and `result` (what the mechanic gives) in
    players' words when the CLI passes them; `heading` the first line before "with".
    A row without a distribution says "not computed" in its cell, and why under the
    table (`refusal_lines`); when no row has one, the refusals are all there is."""
    m = sw.mechanic
    label = label or (lambda k: k)
    fixed = ", ".join(f"{k}={show(v)}" for k, v in sw.inputs.items())
    values = [v for v, _, _ in sw.rows]
    span = f"{show(values[0])} to {show(values[-1])}" if values else "no value"
    name = label(sw.name)
    result = result or m.name
    lines = [f"{heading}: {name} from {span}" if heading else f"{m.book_id}:{m.name}({fixed}) with {name} from {span}", ""]
    dists = [d for _, d, _ in sw.rows if d is not None]
    notes = refusal_lines([(show(v), err) for v, d, err in sw.rows if d is None], width, name)
    if not dists:
        return lines + [f"No row could be computed ({len(sw.rows)} of {len(sw.rows)})."] + notes
    rows = [(v, d, NOT_COMPUTED if d is None else err) for v, d, err in sw.rows]
    return lines + _sweep_body(sw, rows, dists, exact, width, show, name, result) + ([""] + notes if notes else [])


def _sweep_body(sw, rows, dists, exact, width, show, name, result) -> list:
    """The table and the chart of a sweep with at least one row computed."""
    values = [v for v, _, _ in rows]
    lines = []
    results = list(dict.fromkeys(v for d in dists for v, _ in d.outcomes))
    boolean = results and all(isinstance(v, bool) for v in results)
    if sw.numeric and not boolean and dists:
        ks = thresholds(dists)
        head = [name, "mean"] + [f"{show(k)} or more" for k in ks]
        body = []
        for v, d, err in rows:
            if d is None:
                body.append([show(v), err] + [""] * len(ks))
                continue
            body.append([show(v), decimal(d.mean) + (f" ({fraction(d.mean)})" if exact else "")]
                        + [pct(at_least(d, k)) for k in ks])
        lines += _table(head, body)
        chart = [(show(v), d.mean) for v, d, _ in rows if d is not None]
        lines += ["", f"mean {result} by {name}"] + _bars(chart, width, decimal)
        return lines
    if boolean:
        head = [name, "chance of yes"] + (["exact"] if exact else [])
        body = [[show(v), pct(d.probability(True)) if d else err] + ([fraction(d.probability(True)) if d else ""]
                                                                     if exact else [])
                for v, d, err in rows]
        lines += _table(head, body)
        chart = [(show(v), d.probability(True)) for v, d, _ in rows if d is not None]
        lines += ["", f"chance of yes ({result}), by {name}"] + _bars(chart, width, pct, top=Fraction(1))
        return lines
    head = [name] + [show(r) for r in results]
    body = [[show(v)] + ([pct(d.probability(r)) for r in results] if d else [err] + [""] * (len(results) - 1))
            for v, d, err in rows]
    lines += _table(head, body)
    lines += ["", f"chance of each result by {name} (" + ", ".join(
        f"{_SHADES[i % len(_SHADES)]} {show(r)}" for i, r in enumerate(results)) + ")"]
    label_w = max(len(show(v)) for v in values) if values else 1
    inner = max(10, width - label_w - 4)
    for v, d, _ in rows:
        if d is None:
            continue
        cells, used = [], 0
        for i, r in enumerate(results):
            k = round(float(d.probability(r)) * inner)
            k = min(k, inner - used)
            cells.append(_SHADES[i % len(_SHADES)] * k)
            used += k
        lines.append(f"  {show(v):>{label_w}}  " + "".join(cells))
    return lines


_SHADES = "█▓▒░#=+~"


def _bars(chart, width, label, top=None) -> list:
    """One labelled bar per (label, amount), scaled to the largest amount (or `top`)."""
    if not chart:
        return []
    names = [name for name, _ in chart]
    texts = [label(x) for _, x in chart]
    lw, tw = max(len(s) for s in names), max(len(t) for t in texts)
    inner = max(10, width - lw - tw - 6)
    top = top if top is not None else max((x for _, x in chart), default=0)
    return [f"  {name:>{lw}}  {bar(x, top, inner):<{inner}}  {t:>{tw}}".rstrip() for name, (_, x), t in
            zip(names, chart, texts)]


# ------------------------------------------------------------------ variants
def variants_lines(dists: list, exact: bool = False, show=show, title=None, result: str = "result",
                   label=None) -> list:
    """The base distribution (A) and its variants (B, C...) as one table; `show`,
    `title`, `result` and `label` (an input's name) as for `distribution_lines`."""
    from ..odds.result import explode_lines
    base = dists[0]
    title = title or (lambda d: d.title())
    label = label or (lambda k: k)
    letters = [chr(ord("A") + i) for i in range(len(dists))]
    lines = [f"A: {title(base)}"]
    for letter, d in zip(letters[1:], dists[1:]):
        changed = ", ".join(f"{label(k)} {show(v)}" for k, v in d.inputs.items()
                            if k not in base.inputs or show(base.inputs[k]) != show(v))
        lines.append(f"{letter}: the same with {changed}" if changed else f"{letter}: {title(d)}")
    lines.append("")
    numeric = all(d.mean is not None for d in dists)
    values = list(dict.fromkeys(v for d in dists for v, _ in d.outcomes))
    if numeric:
        values.sort(key=lambda v: (getattr(v, "n", v)))
    head = [result]
    for letter in letters:
        head += [f"{letter} %"] + ([f"{letter} at least"] if numeric else [])
    head += [f"{letter} - A (points)" for letter in letters[1:]]
    body = []
    for v in values:
        row = [show(v)]
        ps = []
        for d in dists:
            p = d.probability(v)
            ps.append(p)
            row += [pct(p)] + ([pct(at_least(d, v)) if isinstance(v, (int, Fraction)) else ""] if numeric else [])
        for p in ps[1:]:
            diff = float(p - ps[0]) * 100
            row.append(f"{diff:+.2f}" if p != ps[0] else "0")
        body.append(row)
    lines += _table(head, body) + [""]
    means = ", ".join(f"{letter} {decimal(d.mean) + (f' ({fraction(d.mean)})' if exact else '') if d.mean is not None else '-'}"
                      for letter, d in zip(letters, dists))
    lines.append(f"mean: {means}")
    for letter, d in zip(letters, dists):
        lines += [f"{letter}: {said}" for said in explode_lines(getattr(d, "explode_caps", {}))]
    return lines


# ------------------------------------------------------------------ cost views
def cost_lines(view, exact: bool = False, width: int = 80, book_title: str = "") -> list:
    what = "chance" if view.chance else "expected"
    per = "success" if view.chance else "expected result"
    lines = [f"{book_title + ': ' if book_title else ''}{view.title}",
             f"  {view.book}:{view.name}" + (f" (rule {view.rule})" if view.rule else ""),
             f"  cost:      {view.cost_text}",
             f"  {what + ':':<10} {'the chance that ' if view.chance else 'the mean of '}{view.effect_text}",
             f"  cost per:  cost / {what}",
             ""]
    head = view.names + ["cost", what, "cost per"] + (["exact"] if exact else [])
    body = []
    for r in view.rows:
        cells = [case_label(r.bindings[k]) for k in view.names]
        cells += [show(r.cost), (pct(r.expected) if view.chance else decimal(r.expected)) if r.expected is not None
                  else NOT_COMPUTED, decimal(r.ratio, 1) if r.ratio is not None else "-"]
        if exact:
            cells.append(fraction(r.ratio) if r.ratio is not None else "")
        body.append(cells)
    lines += _table(head, body, [False] * len(view.names) + [True] * (len(head) - len(view.names)))
    notes = refusal_lines([(" ".join(case_label(r.bindings[k]) for k in view.names), r.note or "not computed")
                           for r in view.rows if r.expected is None], width)
    lines += [""] + notes if notes else []
    chart = [(" ".join(case_label(r.bindings[k]) for k in view.names), r.ratio) for r in view.rows if r.ratio is not None]
    if chart:
        best = view.best()
        lines += ["", f"cost per {per} (shorter is better value)"]
        lines += _bars(chart, width, lambda x: decimal(x, 1))
        lines.append("")
        lines.append(f"best value: {' '.join(case_label(best.bindings[k]) for k in view.names)} at "
                     f"{decimal(best.ratio, 1)} per {per}")
    return lines


def case_label(v) -> str:
    from ..language.values import Record
    if isinstance(v, Record):
        d = v.as_dict()
        for key in ("name", "item", "unit", "weapon", "kind", "faction"):
            if key in d:
                return show(d[key])
    return show(v)
