"""Bar charts on the website: inline SVG, accessible, no charting framework, one look.

The site draws a chart in two places: at build time (the design views: sweeps and
priced views, here) and in the browser (a form's odds worked out as the player types,
and the "Exact odds" tables: static/rules_chart.mjs).  Both draw with the same
geometry, written twice and kept equal by a test (tests/test_charts_shared.py renders
the same specs with both and compares the SVG element by element): so the same
distribution draws the same way wherever it is drawn.

`svg(spec, ident)` is `barChart` of rules_chart.mjs: one horizontal bar per row, each
as long as its amount against the largest, the amount written at its end (so the chart
reads without colour); a second series (`b`) drawn beside the first on every row, told
apart by colour *and* stripes, with a legend; labels left of the bars when short, above
them when long (a phone is 390 px wide).  The `<svg role="img">` is named by its
`<title>` and described by its `<desc>` (every row in words, or `spec["desc"]`).

`bar_chart(key, title, rows, ...)` wraps it in a `<figure>` with a caption, for the
design views: rows are (label, amount as a float >= 0, the amount as shown).

Every text is escaped (a book is data from strangers); ids come from the view's key, so
every build writes the same bytes; colours are the theme's (static/rules_dsl.css).
"""
from __future__ import annotations

import html
import math

FONT, CHAR = 13, 7.1             # px, and an average character's width at that size
BAR, PAIR, GAP = 16, 11, 7       # bar heights (one series; each of two) and the space between rows
WIDTH = 360                      # a phone's column: the chart scales down, never up, from here


def _n(x) -> str:
    """A number as JavaScript's String(x) writes it (the browser's twin writes the same)."""
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return repr(x) if isinstance(x, float) else str(x)


def _round(x: float) -> int:
    """Math.round: halves up (Python's round takes halves to even)."""
    return math.floor(x + 0.5)


def _el(tag: str, attrs: dict, text: str | None = None, children=()) -> str:
    a = "".join(f' {k}="{html.escape(_n(v), quote=True)}"' for k, v in attrs.items())
    inner = (html.escape(text, quote=False) if text is not None else "") + "".join(children)
    return f"<{tag}{a}>{inner}</{tag}>"


def svg(spec: dict, ident: str) -> str:
    """The SVG of `spec` {title, rows: [{label, a: {p, text}, b?: {p, text}, folded?}],
    names?: [a, b], width?, desc?}; `ident` makes its ids unique on the page."""
    rows = spec["rows"]
    width = max(260, min(640, math.floor(spec.get("width") or WIDTH)))
    paired = any(r.get("b") for r in rows)
    text_w = max(max(len(r["a"]["text"]), len(r["b"]["text"]) if r.get("b") else 0) for r in rows) * CHAR + 8
    fit = math.floor((width - 4) / CHAR)        # a label longer than the chart is cut (the table has it whole)
    labels = [r["label"][: fit - 1] + "…" if len(r["label"]) > fit else r["label"] for r in rows]
    longest = max(len(x) for x in labels) * CHAR
    side = longest <= width * 0.36
    label_w = math.ceil(longest) + 10 if side else 0
    bar_max = width - label_w - text_w - 4
    top = max(max(r["a"]["p"], r["b"]["p"] if r.get("b") else 0) for r in rows)
    top = max(top, 1e-300)
    row_h = (2 * PAIR + 2 if paired else BAR) + (0 if side else FONT + 4) + GAP
    names = spec.get("names")
    legend_h = FONT + 12 if paired and names else 0
    height = legend_h + len(rows) * row_h
    said = spec.get("desc") or "; ".join(
        f"{r['label']}: {names[0] if names else 'A'} {r['a']['text']}, {names[1] if names else 'B'} {r['b']['text']}"
        if r.get("b") else f"{r['label']}: {r['a']['text']}" for r in rows)
    parts = [_el("title", {"id": f"{ident}-t"}, spec["title"]), _el("desc", {"id": f"{ident}-d"}, said)]
    fill_b = f"url(#{ident}-s)"
    if paired:    # stripes for the second series, so the two never differ by colour alone
        parts.append(_el("defs", {}, None, [_el("pattern", {
            "id": f"{ident}-s", "width": 6, "height": 6, "patternUnits": "userSpaceOnUse", "patternTransform": "rotate(45)"},
            None, [_el("rect", {"width": 6, "height": 6, "class": "rules-chart-b"}),
                   _el("rect", {"width": 2, "height": 6, "class": "rules-chart-stripe"})])]))
    y = 0
    if legend_h:
        items, x = [], 0
        for i, name in enumerate(names):
            items.append(_el("rect", {"x": x, "y": 2, "width": 12, "height": 12, "class": "rules-chart-b" if i else "rules-chart-a",
                                      **({"style": f"fill: {fill_b}"} if i else {})}))
            items.append(_el("text", {"x": x + 17, "y": FONT, "class": "rules-chart-text"}, name))
            x += 17 + len(name) * CHAR + 16
        parts.append(_el("g", {"class": "rules-chart-legend", "aria-hidden": "true"}, None, items))
        y = legend_h

    def bar(p):
        return max(1, _round(p / top * bar_max)) if p > 0 else 0
    for r, label in zip(rows, labels):
        items = []
        by = y
        if side:
            items.append(_el("text", {"x": label_w - 8, "y": y + (PAIR + 5 if paired else BAR - 3), "text-anchor": "end",
                                      "class": "rules-chart-label"}, label))
        else:
            items.append(_el("text", {"x": 0, "y": y + FONT, "class": "rules-chart-label"}, label))
            by = y + FONT + 4
        series = ([(r["a"], "rules-chart-a", PAIR, None), (r["b"], "rules-chart-b", PAIR, fill_b)] if r.get("b")
                  else [(r["a"], "rules-chart-a", BAR, None)])
        for i, (s, cls, h, fill) in enumerate(series):
            w, x = bar(s["p"]), label_w
            name = (names[i] if names else "AB"[i]) if r.get("b") else None
            items.append(_el("rect", {"x": x, "y": by + i * (h + 2), "width": w, "height": h, "class": cls,
                                      **({"style": f"fill: {fill}"} if fill else {})},
                             None, [_el("title", {}, f"{r['label']}, {name}: {s['text']}" if name else f"{r['label']}: {s['text']}")]))
            items.append(_el("text", {"x": x + w + 4, "y": by + i * (h + 2) + h - (1 if r.get("b") else 3),
                                      "class": "rules-chart-text"}, s["text"]))
        parts.append(_el("g", {"class": "rules-chart-row rules-chart-folded" if r.get("folded") else "rules-chart-row"},
                         None, items))
        y += row_h
    return _el("svg", {"class": "rules-chart", "width": width, "height": height, "viewBox": f"0 0 {width} {height}",
                       "role": "img", "aria-labelledby": f"{ident}-t {ident}-d", "xmlns": "http://www.w3.org/2000/svg"},
               None, parts)


def bar_chart(key: str, title: str, rows: list, summary: str = "", caption: str = "") -> str:
    """rows: [(label, amount as a float >= 0, the amount as shown)]; the longest bar is the
    largest amount.  `key` (the view's anchor) makes the element ids unique on the page
    and the same in every build."""
    ident = "rules-chart-" + "".join(c if c.isalnum() else "-" for c in key)
    rows = [(str(label), max(float(x), 0.0), str(shown)) for label, x, shown in rows]
    if not rows:
        return ""
    spec = {"title": title, "desc": summary or describe(rows),
            "rows": [{"label": label, "a": {"p": x, "text": shown}} for label, x, shown in rows]}
    parts = ['<figure class="rules-chart-figure">', svg(spec, ident)]
    if caption:
        parts.append(f"<figcaption>{html.escape(caption)}</figcaption>")
    parts.append("</figure>")
    return "".join(parts)


def describe(rows) -> str:
    """The chart in words: how many bars, the largest and the smallest."""
    if not rows:
        return "No values."
    hi = max(rows, key=lambda r: r[1])
    lo = min(rows, key=lambda r: r[1])
    return (f"{len(rows)} bars. Largest: {hi[0]}, {hi[2]}. Smallest: {lo[0]}, {lo[2]}. "
            "The table beside the chart gives every value.")
