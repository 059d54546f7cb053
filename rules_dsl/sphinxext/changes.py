"""A layered book on the website (layers.py): each changed rule marked "changed by"
its layer, with the base book's text one tap away, and each layer's "what changed"
page, drawn from `rules diff` (rules_dsl/faces/diff.py) of the book and its base.

`add_layers(model, book)` adds to a layered book's render model what the pages
show: `layers` (each layer's id, title, base and changes), per rule `changed_by`
(the changes that touched it, with their reasons) and `base` (the rule as the base
book has it; None for a rule a layer added), and `changes` (the diff's JSON: its
words are made by diff.py, so the page, `rules diff` and `--json` agree).  Like
the rest of the model it is plain data, cached with the book's files as its key
(a layered book's files are its base's and its layer's: layers.py).

`odds_chart(entry)` draws an odds change as a bar chart (charts.py, the design
views' accessible inline SVG), beside the table that is its text alternative; a long
law's tail (results under 0.1% before and after) is one summed row.
"""
from __future__ import annotations

from docutils import nodes

from .prose import blocks
from .rendering import fold_node, literal, table_node, text_para


# ------------------------------------------------------------------ the model
def add_layers(model: dict, book) -> None:
    """Add the layers, each rule's changes and base text, and the diff with the base."""
    from ..faces.diff import diff_books
    from ..library.loader import load
    layers = book.layers
    model["layers"] = [{"id": lay.id, "name": lay.name, "base": lay.base, "title": lay.title,
                        "edition": lay.edition, "source": lay.source, "prose": [p.text for p in lay.prose],
                        "changes": len(lay.changes)} for lay in layers]
    first_base = {}
    for lay in layers:
        for rid, node in lay.before:
            first_base.setdefault(rid, (lay, node))
    for rid, r in model["rules"].items():
        changes = [{"layer": lay.id, "layer_title": lay.title, "number": c.number, "change": c.text,
                    "because": c.reason, "what": c.what}
                   for lay in layers for c in lay.changes if rid in c.rules]
        r["changed_by"] = changes
        if rid in first_base:
            lay, node = first_base[rid]
            r["base"] = None if node is None else {
                "book": lay.base, "title": node.title, "prose": [p.text for p in node.prose],
                "notes": [(x.kind, x.text.text) for x in node.notes]}
    model["changes"] = diff_books(load(layers[-1].base), book)


# ------------------------------------------------------------------ a rule's mark
def rule_marks(ctx, r: dict) -> list:
    """Under a changed rule's title: which layer changed it and why, and the base
    book's text one tap away (an added rule says it is new)."""
    if not r.get("changed_by"):
        return []
    mark = nodes.container(classes=["rules-changed"])
    base = r.get("base", {})
    by = {}
    for c in r["changed_by"]:
        by.setdefault((c["layer"], c["layer_title"]), []).append(c)
    for (layer, title), changes in by.items():
        p = nodes.paragraph(classes=["rules-changed-by"])
        verb = "Added by" if base is None else "Changed by"
        p += nodes.strong(f"{verb} {title}", f"{verb} {title}")
        reasons = [c["because"] for c in changes if c["because"]]
        nums = ", ".join(str(c["number"]) for c in changes)
        p += nodes.Text(f" (change{'s' if len(changes) > 1 else ''} {nums})")
        if reasons:
            text = "; ".join(dict.fromkeys(reasons))
            p += nodes.Text(f": {text}")
        mark += p
    if ctx.site is not None and getattr(ctx.site, "docname_changes", None):
        from .rendering import doc_link
        see = nodes.paragraph(classes=["rules-changed-see"])
        see += doc_link(ctx.site.docname_changes(r["book"]), "What changed in this book")
        mark += see
    if base:
        shown = []
        if base["title"] != r["title"]:
            shown.append(text_para(f"Title: {base['title']}", ["rules-base-title"]))
        for text in base["prose"]:
            shown.extend(blocks(text, base["book"]))      # its references: to the base book's rules
        for kind, text in base["notes"]:
            if (kind, text) not in [tuple(x) for x in r["notes"]]:
                shown.append(text_para(f"{kind.capitalize()} note: {text}", ["rules-base-note"]))
        if not base["prose"] and not shown:
            shown.append(text_para("(the rule has no text of its own)"))
        label = f"As {ctx.book_title(base['book'])} has it"
        mark += fold_node(label, shown, "base")
    return [mark]


# ------------------------------------------------------------------ the "what changed" page
#: an odds change's results under this probability, before and after, are summed in one row
TAIL = 0.001


def odds_chart(entry: dict):
    """A chart of one odds change: a bar per result before and after, in the site's
    accessible inline SVG (charts.py, as the design views draw theirs), the results
    under 0.1% before and after left to the table's summed row; None when there is
    nothing to draw."""
    from .charts import bar_chart
    rows = []
    for r in entry["outcomes"]:
        if max(r["before_float"], r["after_float"]) < TAIL:
            continue
        for when in ("before", "after"):
            x = r[f"{when}_float"]
            rows.append((f"{r['said']}, {when}", x * 100, f"{x * 100:.1f}%"))
    if not rows:
        return None
    mechanic = (entry.get("after") or {}).get("mechanic", "")
    key = "changes-" + mechanic + "-" + "-".join(f"{k}-{v}" for k, v in sorted(entry["inputs"].items()))
    label = f"Odds with {entry['inputs_said']}" if entry.get("inputs_said") else "Odds"
    html = bar_chart(key, f"{label}, before and after", rows,
                     caption="Each result's chance before the change and after it, in percent.")
    return nodes.raw("", html, format="html")


def _words_nodes(ops) -> list:
    """A word diff as inline nodes: words that go struck through, words that come marked."""
    para = nodes.paragraph(classes=["rules-word-diff"])
    for i, (op, text) in enumerate(ops):
        if i:
            para += nodes.Text(" ")
        if op == "-":
            para += nodes.inline(text, text, classes=["rules-del"])
        elif op == "+":
            para += nodes.inline(text, text, classes=["rules-ins"])
        else:
            para += nodes.Text(text)
    return [para]


def _why(changed_by) -> list:
    out = []
    for c in changed_by:
        text = f"Change {c['number']}" + (f": {c['because']}" if c["because"] else "")
        out.append(text_para(text, ["rules-change-why"]))
    return out


def _rule_link(book: str, rid: str, title: str):
    from sphinx import addnodes
    x = addnodes.pending_xref("", refdomain="rules", reftype="rule", reftarget=f"{book}:{rid}", refexplicit=True,
                              refwarn=False)
    x += nodes.inline(title, title)
    return x


def changes_nodes(ctx, model: dict) -> list:
    """The "what changed" page of a layered book: rules, tables, odds, findings, then
    the layer's changes as written (for designers)."""
    from ..faces.diff_text import cells_changed, columns_sentence, compared_sentence, outcome, shared_changes
    d = model["changes"]
    book = model["id"]
    ctx.units.add(("changes", book, ""))
    top = model["layers"][-1]
    sec = nodes.section(classes=["rules-changes"])
    title = f"What changed: {model['title']}"
    sec += nodes.title(title, title)
    sec["ids"].append(f"{book}:what-changed")
    ctx.document.set_id(sec)
    intro = (f"{model['title']} is {d['a']['title']} with the {top['changes']} change"
             f"{'s' if top['changes'] != 1 else ''} of the layer {top['name']}. Each change says why; "
             f"a changed rule's page shows the text of {d['a']['title']} one tap away.")
    sec += text_para(intro, ["rules-changes-intro"])
    for text in top["prose"]:
        sec.extend(blocks(text, book))

    # rules
    r = d["rules"]
    if r["added"] or r["removed"] or r["changed"]:
        part = _part(ctx, "Rules", "rules")
        items = nodes.bullet_list()
        for x in r["changed"]:
            li = nodes.list_item()
            p = nodes.paragraph()
            p += _rule_link(book, x["id"], x["title"])
            what = ", ".join(_PART_WORDS.get(k, k) for k in x["parts"] if k != "declarations")
            decls = x.get("declarations")
            if decls:
                said = [f"{decls['said'][name]} {verb}" for verb in ("changed", "added", "removed")
                        for name in decls[verb]]
                what = ", ".join(p for p in (what, ", ".join(said)) if p)
            p += nodes.Text(f": {what}")
            li += p
            if "title" in x["parts"]:
                li += text_para(f"Title before: {x['title_before']}")
            if "text" in x["parts"]:
                li.extend(_words_nodes(x["text"]["words"]))
            li.extend(_why(c for c in x.get("changed_by", []) if c.get("what") in _RULE_CHANGES))
            items += li
        for key, verb in (("added", "added"), ("removed", "removed")):
            for x in r[key]:
                li = nodes.list_item()
                p = nodes.paragraph()
                if key == "added":
                    p += _rule_link(book, x["id"], x["title"])
                else:
                    p += nodes.Text(x["title"])
                p += nodes.Text(f": {verb}")
                li += p
                li.extend(_why(x.get("changed_by", [])))
                items += li
        part += items
        sec += part

    # tables
    if d["tables"]:
        part = _part(ctx, "Tables", "tables")
        for t in d["tables"]:
            head = t["display"][:1].upper() + t["display"][1:]
            sub = nodes.container(classes=["rules-changes-table"])
            sub += nodes.paragraph("", "", nodes.strong(head, head))
            if t.get("columns"):
                sub += text_para(columns_sentence(t["columns"]), ["rules-changes-columns"])
            shared = shared_changes(t)
            sub.extend(_why(shared))
            items = nodes.bullet_list(classes=["rules-changes-rows"])
            for verb in ("changed", "added", "removed"):
                for row in t["rows"].get(verb, []):
                    said = row["said"]
                    p = nodes.paragraph()
                    p += nodes.strong(said["keys"], said["keys"])
                    if verb == "changed":
                        text = cells_changed(row)
                    elif verb == "added":
                        text = "added: " + "; ".join(f"{said['columns'][c]} {v}" for c, v in said["after"].items())
                    else:
                        text = "removed"
                    p += nodes.Text(f": {text}")
                    li = nodes.list_item()
                    li += p
                    li.extend(_why(c for c in row.get("changed_by", []) if c not in shared))
                    items += li
            sub += items
            part += sub
        sec += part

    # mechanics and their odds; then those that reach a change but gave the same results, or were not compared
    mech = [m for m in d["mechanics"] if m["status"] != "changed" or outcome(m) == "changed" or m.get("odds")]
    rest = [m for m in d["mechanics"] if m not in mech and m.get("compared")]
    if mech or rest:
        part = _part(ctx, "Mechanics and odds", "mechanics")
        for m in mech:
            name = m["display"][:1].upper() + m["display"][1:]
            sub = nodes.container(classes=["rules-changes-mechanic"])
            sub += nodes.paragraph("", "", nodes.strong(name, name))
            if m["status"] != "changed":
                sub += text_para(f"{m['status'].capitalize()}.")
            c = m.get("compared")
            if c and c["method"] != "unchanged":
                if c["method"] == "none":
                    sub += text_para(f"Not compared: {c['note']}.")
                else:
                    how = "every input was tried" if c["method"] == "exhaustive" else f"sampled: {c['note']}"
                    sub += text_para(f"Results differ for {c['differ']} of {c['inputs']} inputs compared ({how}).")
            for o in m.get("odds", []):
                sub += _odds_nodes(o)
            sub.extend(_why(m.get("changed_by", [])))
            part += sub
        for verdict, label in (("same", "Reach a change and give the same results"),
                               ("not_compared", "Reach a change and were not compared")):
            group = [m for m in rest if outcome(m) == verdict]
            if not group:
                continue
            sub = nodes.container(classes=["rules-changes-mechanic", f"rules-changes-{verdict.replace('_', '-')}"])
            sub += nodes.paragraph("", "", nodes.strong(label, label))
            items = nodes.bullet_list()
            for m in group:
                li = nodes.list_item()
                name = m["display"][:1].upper() + m["display"][1:]
                li += text_para(f"{name}: {compared_sentence(m['compared'], lead=False)}")
                items += li
            sub += items
            part += sub
        sec += part

    # constants
    if d["constants"]:
        part = _part(ctx, "Numbers", "constants")
        items = nodes.bullet_list()
        for c in d["constants"]:
            li = nodes.list_item()
            name = c["display"][:1].upper() + c["display"][1:]
            said = f"{name}: {c.get('before', '—')} → {c.get('after', '—')}" if c["status"] == "changed" \
                else f"{name}: {c['status']}"
            li += text_para(said)
            li.extend(_why(c.get("changed_by", [])))
            items += li
        part += items
        sec += part

    # findings
    f = d["findings"]
    for key, label in (("gone", "Findings that go"), ("appeared", "Findings that appear")):
        if f[key]:
            part = _part(ctx, f"{label} ({len(f[key])})", f"findings-{key}")
            items = nodes.bullet_list()
            for x in f[key]:
                if x["kind"] == "check-summary":
                    text = f"{x['rule_title']}: the check “{x['check_title']}” " + \
                        ("holds now" if key == "gone" else f"fails in {x['cases']} cases")
                else:
                    text = f"{x['rule_title']}: " + ("; ".join(x["sentences"]) or x["message"])
                li = nodes.list_item()
                li += text_para(text)
                items += li
            part += items
            sec += part

    # the layer as written, for designers
    listing = nodes.bullet_list()
    for lay in d["layers"]:
        for c in lay["changes"]:
            li = nodes.list_item()
            p = nodes.paragraph()
            p += nodes.Text(f"{c['number']}. ")
            p += literal(c["change"])
            if c["because"]:
                p += nodes.Text(f" — {c['because']}")
            li += p
            listing += li
    sec += fold_node(f"For designers: the changes as written ({sum(len(x['changes']) for x in d['layers'])})",
                     [listing], "designers")
    return [sec]


_PART_WORDS = {"title": "its title", "text": "its text", "flavour": "its flavour text", "notes": "its notes",
               "examples": "its worked examples", "aliases": "its other names", "keywords": "its keywords",
               "source": "its source"}
_RULE_CHANGES = ("rule", "section", "title", "text", "note", "example", "aliases", "keywords")


def _part(ctx, title: str, kind: str):
    part = nodes.section(classes=["rules-changes-part", f"rules-changes-{kind}"])
    part += nodes.title(title, title)
    part["ids"].append(f"what-changed-{kind}")
    ctx.document.set_id(part)
    return part


def _odds_nodes(o: dict) -> list:
    """One odds change: the table (each result, before, after, the change in points),
    the means, and the chart hook's nodes when it gives any."""
    from ..faces.diff_text import LONG_FRACTION
    box = nodes.container(classes=["rules-odds-change"])
    label = f"Odds with {o['inputs_said']}" if o["inputs_said"] else "Odds"
    box += text_para(label, ["rules-odds-change-title"])
    chart = odds_chart(o)
    if chart is not None:
        box += chart

    def pct(f, fl):
        shown = f"{fl * 100:.2f}%" if fl == 0 or fl * 100 >= 0.01 else f"{fl * 100:.2g}%"
        return f"{f} ({shown})" if f not in ("0", "1") and len(f) <= LONG_FRACTION else shown
    from fractions import Fraction
    rows, tail = [], []
    for r in o["outcomes"]:
        if max(r["before_float"], r["after_float"]) < TAIL:
            tail.append(r)        # a long law's tail: summed in one row (`rules diff` lists each)
            continue
        change = Fraction(r["change"])
        rows.append([r["said"], pct(r["before"], r["before_float"]), pct(r["after"], r["after_float"]),
                     "0" if change == 0 else f"{float(change) * 100:+.2f}"])
    if len(tail) > 1:
        before, after = (sum(Fraction(r[k]) for r in tail) for k in ("before", "after"))
        rows.append([f"{len(tail)} other results (each under 0.1%)", f"{float(before) * 100:.2g}%",
                     f"{float(after) * 100:.2g}%", f"{float(after - before) * 100:+.2f}"])
    elif tail:
        r = tail[0]
        rows.append([r["said"], pct(r["before"], r["before_float"]), pct(r["after"], r["after_float"]),
                     f"{float(Fraction(r['change'])) * 100:+.2f}"])
    result = (o.get("result_said") or "Result")
    box += table_node([result[:1].upper() + result[1:], "Before", "After", "Change (points)"], rows,
                      ["rules-odds-delta"])
    m = o["mean"]
    if m["before"] is not None and m["after"] is not None:
        box += text_para(f"Average: {m['before_float']:.3g} before, {m['after_float']:.3g} after "
                         f"({m['after_float'] - m['before_float']:+.3g}).", ["rules-odds-mean"])
    return [box]
