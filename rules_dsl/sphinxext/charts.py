"""Design views on the website: an inline SVG bar chart, accessible, no charting framework.

`bar_chart(title, rows, ...)` returns the HTML of a `<figure>` holding an `<svg
role="img">` with a `<title>` and a `<desc>` (what the chart shows, in words, and its
largest and smallest bars), one horizontal bar per row, each with its label and its
value written beside it (so the chart reads without colour), and a `<figcaption>`.
The same numbers are in the table the page shows with it: the chart's text
alternative, for a screen reader and for a phone too narrow to see the bars.

Every text is escaped (a book is data from strangers); sizes are a viewBox that scales
to the column; colours are the theme's (CSS classes in static/rules_dsl.css).
"""
from __future__ import annotations

import html

ROW = 22          # px per bar
LABEL = 170       # px for the labels
VALUE = 64        # px for the value written after each bar
WIDTH = 640

def bar_chart(key: str, title: str, rows: list, summary: str = "", caption: str = "") -> str:
    """rows: [(label, amount as a float >= 0, the amount as shown)]; the longest bar is the
    largest amount.  `key` (the view's anchor) makes the element ids unique on the page
    and the same in every build."""
    ident = "rules-chart-" + "".join(c if c.isalnum() else "-" for c in key)
    rows = [(str(label), max(float(x), 0.0), str(shown)) for label, x, shown in rows]
    top = max((x for _, x, _ in rows), default=0.0) or 1.0
    height = ROW * len(rows) + 8
    inner = WIDTH - LABEL - VALUE
    desc = summary or describe(rows)
    parts = ['<figure class="rules-chart">',
             f'<svg class="rules-chart-svg" role="img" viewBox="0 0 {WIDTH} {height}" '
             f'preserveAspectRatio="xMinYMin meet" aria-labelledby="{ident}-t {ident}-d" '
             f'xmlns="http://www.w3.org/2000/svg">',
             f'<title id="{ident}-t">{html.escape(title)}</title>',
             f'<desc id="{ident}-d">{html.escape(desc)}</desc>']
    for i, (label, x, shown) in enumerate(rows):
        y = 4 + i * ROW
        w = max(1.0, inner * x / top) if x > 0 else 0.0
        parts.append(f'<g class="rules-chart-row"><text class="rules-chart-label" x="{LABEL - 8}" y="{y + 15}" '
                     f'text-anchor="end">{html.escape(_short(label))}</text>'
                     f'<rect class="rules-chart-bar" x="{LABEL}" y="{y + 3}" width="{w:.1f}" height="{ROW - 6}" '
                     f'rx="2"><title>{html.escape(label)}: {html.escape(shown)}</title></rect>'
                     f'<text class="rules-chart-value" x="{LABEL + w + 6:.1f}" y="{y + 15}">{html.escape(shown)}</text></g>')
    parts.append("</svg>")
    if caption:
        parts.append(f'<figcaption>{html.escape(caption)}</figcaption>')
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


def _short(label: str, most: int = 26) -> str:
    return label if len(label) <= most else label[: most - 1] + "…"
