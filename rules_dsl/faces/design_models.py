"""The render models of design views (plain data, kept with a book's model).

* a mechanic's **sweeps** (`odds hits(n=3, target=2..6)` lines): per value of the swept
  input, the mean (or the chance of true, or of each result) and the chances of
  "K or more" that matter, and the bars of the chart;
* a **cost view** (`priced`): per case, its cost, what it buys on average and the cost
  per unit, with the formula.

Computed once per build of the book (design.py, within its budget per distribution);
render_decls.py turns them into a table and an inline SVG chart (charts.py).
"""
from __future__ import annotations

from ..errors import RulesError
from ..language.values import show


def sweep_models(book, mech) -> list:
    """The mechanic's `odds ... LO..HI` lines: per line a table (a row per value of the
    swept input) and a chart, headed and labelled in the book's words (display.py)."""
    from . import odds_text
    from ..evaluation.design import sweep
    from ..language.display import capitalised
    words = book.display
    said = words.value
    result = words.result(mech.name)
    out = []
    for fixed, name, (lo, hi) in getattr(book.compiled, "odds_sweeps", {}).get(mech.name, []):
        shown_fixed = ", ".join(f"{k}={show(v)}" for k, v in fixed.items())
        label = words.param(mech.name, name)
        model = {"inputs": f"{mech.name}({shown_fixed}{', ' if shown_fixed else ''}{name}={lo}..{hi})",
                 "name": name, "label": label, "error": None}
        try:
            sw = sweep(mech, name, (lo, hi), **fixed)
        except RulesError as e:
            model["error"] = str(e).splitlines()[0]
            out.append(model)
            continue
        dists = [d for _, d, _ in sw.rows if d is not None]
        results = list(dict.fromkeys(v for d in dists for v, _ in d.outcomes))
        if sw.numeric and not all(isinstance(v, bool) for v in results):
            ks = odds_text.thresholds(dists)
            model["header"] = [capitalised(label), "Mean"] + [f"{said(k)} or more" for k in ks]
            model["rows"] = [[said(v), odds_text.decimal(d.mean)] + [odds_text.pct(odds_text.at_least(d, k)) for k in ks]
                             if d is not None else [said(v), err] + [""] * len(ks) for v, d, err in sw.rows]
            model["chart"] = [(f"{label} {said(v)}", float(d.mean), odds_text.decimal(d.mean))
                              for v, d, _ in sw.rows if d is not None]
            model["chart_title"] = f"Mean {result} by {label}"
        elif results and all(isinstance(v, bool) for v in results):
            model["header"] = [capitalised(label), "Chance of yes"]
            model["rows"] = [[said(v), odds_text.pct(d.probability(True)) if d is not None else err]
                             for v, d, err in sw.rows]
            model["chart"] = [(f"{label} {said(v)}", float(d.probability(True)), odds_text.pct(d.probability(True)))
                              for v, d, _ in sw.rows if d is not None]
            model["chart_title"] = f"Chance of yes ({result}) by {label}"
        else:
            model["header"] = [capitalised(label)] + [said(r) for r in results]
            model["rows"] = [[said(v)] + ([odds_text.pct(d.probability(r)) for r in results] if d is not None
                                          else [err] + [""] * (len(results) - 1)) for v, d, err in sw.rows]
            first = results[0] if results else None
            model["chart"] = [(f"{label} {said(v)}", float(d.probability(first)), odds_text.pct(d.probability(first)))
                              for v, d, _ in sw.rows if d is not None] if results else []
            model["chart_title"] = f"Chance of {said(first)} by {label}" if results else ""
        out.append(model)
    return out


def priced_model(book, d) -> dict:
    from . import odds_text
    from ..language.display import capitalised
    from ..evaluation.design import price
    model = {"kind": "priced", "name": d.name, "doc": d.doc, "error": None,
             "formula": f"for {', '.join(f'{b.name} in ' + _text(b.source) for b in d.bindings)}"
                        + (f" where {_text(d.where)}" if d.where is not None else "")
                        + f": {_text(d.cost)} per {_text(d.effect)}"}
    try:
        (view,) = price(book, d.name)
    except RulesError as e:
        model["error"] = str(e).splitlines()[0]
        return model
    per = "success" if view.chance else "expected result"
    model.update(chance=view.chance, names=list(view.names), cost=view.cost_text, per=view.effect_text)
    model["header"] = [*(capitalised(book.display.name(k)) for k in view.names), "Cost", "Chance" if view.chance else "Expected", f"Cost per {per}"]
    rows, chart = [], []
    for r in view.rows:
        label = " ".join(_case(book, r.bindings[k]) for k in view.names)
        expected = (odds_text.pct(r.expected) if view.chance else odds_text.decimal(r.expected)) \
            if r.expected is not None else r.note
        ratio = odds_text.decimal(r.ratio, 1) if r.ratio is not None else "—"
        rows.append([_case(book, r.bindings[k]) for k in view.names] + [show(r.cost), expected, ratio])
        if r.ratio is not None:
            chart.append((label, float(r.ratio), ratio))
    best = view.best()
    model.update(rows=rows, chart=chart, chart_title=f"Cost per {per} (shorter is better value)",
                 best=(" ".join(_case(book, best.bindings[k]) for k in view.names), odds_text.decimal(best.ratio, 1))
                 if best is not None else None)
    return model


def _text(e) -> str:
    from ..language.render import expr_text
    return expr_text(e)


def _case(book, v) -> str:
    """A priced case's label in the book's words: a record by its name-like field."""
    from ..language.values import Record
    if isinstance(v, Record):
        fields = v.as_dict()
        for key in ("name", "item", "unit", "weapon", "kind", "faction"):
            if key in fields:
                return book.display.value(fields[key])
    return book.display.value(v)
