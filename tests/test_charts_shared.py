"""One chart look on the whole site: the build's charts (sphinxext/charts.py `svg`) and the
browser's (static/rules_chart.mjs `barChart`) draw the same spec the same way, element by
element and attribute by attribute (ids aside: the build's come from the view's key).

The browser's drawer runs under node with a minimal DOM (createElementNS, setAttribute,
appendChild, textContent): the tree it builds is compared with the build's SVG parsed as XML.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings, strategies as st

from rules_dsl.sphinxext import charts

from conftest import REPO

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not on PATH: the browser's chart is drawn under node")

DRAW = """
import { barChart } from %s;
class El {
  constructor(tag) { this.tag = tag; this.attrs = {}; this.children = []; this.text = ""; }
  setAttribute(k, v) { this.attrs[k] = String(v); }
  appendChild(c) { this.children.push(c); return c; }
  set textContent(t) { this.text = String(t); }
  json() { return [this.tag, this.attrs, this.text, this.children.map((c) => c.json())]; }
}
const doc = { createElementNS: (ns, tag) => new El(tag) };
const specs = JSON.parse(require_stdin());
process.stdout.write(JSON.stringify(specs.map((s) => barChart(doc, s).json())));
"""


def _browser(specs) -> list:
    src = DRAW % json.dumps((REPO / "rules_dsl/sphinxext/static/rules_chart.mjs").as_uri())
    src = src.replace("require_stdin()", '(await import("node:fs")).readFileSync(0, "utf-8")')
    p = subprocess.run([NODE, "--input-type=module", "-e", src], input=json.dumps(specs), capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    return json.loads(p.stdout)


def _tree(e) -> list:
    tag = e.tag.rpartition("}")[2]
    attrs = {k: v for k, v in e.attrib.items() if k != "xmlns"}
    return [tag, attrs, e.text or "", [_tree(c) for c in e]]


def _no_ids(tree, ident):
    """The tree with its chart's ids written as ID (the browser numbers them, the build keys them)."""
    return json.loads(re.sub(re.escape(ident) + r"(?=-[tds]\b)", "ID", json.dumps(tree)))


def _compare(specs):
    got = _browser(specs)
    for spec, js in zip(specs, got):
        py = _tree(ET.fromstring(charts.svg(spec, "rules-chart-k")))
        ident = js[1]["aria-labelledby"].split()[0][:-2]
        assert _no_ids(js, ident) == _no_ids(py, "rules-chart-k"), spec


def _row(label, p, text, b=None):
    r = {"label": label, "a": {"p": p, "text": text}}
    if b is not None:
        r["b"] = {"p": b[0], "text": b[1]}
    return r


def test_the_same_odds_draw_the_same_way_in_the_build_and_in_the_browser():
    long = "a result whose name in words is longer than a third of a phone"
    specs = [
        {"title": "Exact odds: Morale check", "width": 358,
         "rows": [_row("steady", 2 / 3, "66.67%"), _row("panicked", 1 / 3, "33.33%")]},
        {"title": "Exact odds, compared", "width": 390, "names": ["A: as typed", "B: with morale 4"],
         "rows": [_row("steady", 2 / 3, "66.67%", (0.5, "50.00%")), _row("panicked", 1 / 3, "33.33%", (0.5, "50.00%"))]},
        {"title": "long labels <&>", "width": 300,
         "rows": [_row(long, 0.25, "25.00%"), _row("x & <y>", 0.75, "75.00%"), _row("0 or more", 0.0, "0%")]},
        {"title": "design view", "desc": "2 bars. Largest: a, 2.0.", "rows": [_row("a", 2.0, "2.0"), _row("b", 1.0, "1.0")]},
        {"title": "folded", "width": 700, "rows": [dict(_row("5 or more", 0.004, "0.40%"), folded=True), _row("1", 0.996, "99.60%")]},
    ]
    _compare(specs)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.text(st.characters(max_codepoint=0xFFFF, blacklist_categories=("Cs", "Cc")), min_size=1, max_size=40), st.integers(0, 1000), st.integers(0, 1000)),
                min_size=1, max_size=12), st.integers(200, 800), st.booleans())
def test_any_spec_draws_the_same_way(rows, width, paired):
    total = sum(a for _, a, _ in rows) or 1
    specs = [{"title": "t", "width": width, "names": ["A", "B"] if paired else None,
              "rows": [_row(label, a / total, f"{a / total:.2%}", (b / 1000, f"{b / 10:.2f}%") if paired else None)
                       for label, a, b in rows]}]
    if not paired:
        del specs[0]["names"]
    _compare(specs)
