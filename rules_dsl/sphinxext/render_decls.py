"""A rule's declarations -> docutils nodes: mechanics (signature, parameters, rolls,
formula, exact odds), data tables, constants, enumerations and checks."""
from __future__ import annotations

from docutils import nodes
from sphinx import addnodes

from .rendering import clean_index, field, fold_node, index_node, literal, table_node, text_para, try_form

ODDS_ROWS_SHOWN = 400


def decl_nodes(ctx, d, book) -> list:
    """A declaration for players, in words (display forms: rules_dsl/language/display.py), with its
    identifiers, signature and formula for designers one tap away ("For designers")."""
    kind = d["kind"]
    w = d.get("words") or {}
    if kind == "mechanic":
        return [mechanic_node(ctx, d, book)]
    if kind == "table":
        return [data_table(ctx, d, book)]
    if kind == "const":
        p = nodes.paragraph(classes=["rules-const"])
        p += nodes.strong(w.get("name", d["name"]), w.get("name", d["name"]))
        p += nodes.Text(f": {w.get('value', d['value'])}")
        if d["doc"]:
            p += nodes.Text(" — " + d["doc"])
        text = f"const {d['name']} = {d['value']}" + (f"  ({d['formula']})" if d.get("formula") else "")
        return [p, designer_fold([nodes.paragraph("", "", literal(text))])]
    if kind == "enum":
        p = nodes.paragraph(classes=["rules-enum"])
        p += nodes.strong(w.get("name", d["name"]), w.get("name", d["name"]))
        p += nodes.Text(": " + ", ".join(w.get("members", d["members"])))
        code = f"enum {d['name']} {{ {', '.join(d['members'])} }}"
        return [p, designer_fold([nodes.paragraph("", "", literal(code))])]
    if kind == "priced":
        return [priced_node(d, book)]
    if kind == "check":
        cont = nodes.container(classes=["rules-check"])
        p = nodes.paragraph()
        p += nodes.strong("Check: ", "Check: ")
        p += nodes.Text(w.get("name") or d["doc"] or d["name"])
        cont += p
        formula = f"check {d['name']}: {d['formula']}"
        cont += designer_fold([nodes.literal_block(formula, formula, language="none", classes=["rules-formula"])])
        return [cont]
    return []


def titled_formula(label, d, cls):
    """A cost view: "Label: its title", then its formula for designers (a tap away)."""
    cont = nodes.container(classes=[cls])
    p = nodes.paragraph()
    p += nodes.strong(label, label)
    p += nodes.Text(d["doc"] or (d.get("words") or {}).get("name") or d["name"])
    cont += p
    formula = f"priced {d['name']}: {d['formula']}"
    cont += designer_fold([nodes.literal_block(formula, formula, language="none", classes=["rules-formula"])])
    return cont


def designer_fold(children, label="For designers"):
    """Identifiers, signatures and formulas: one tap away (a small fold)."""
    return fold_node(label, children, "designer")


def mechanic_node(ctx, d, book):
    """A mechanic as a player asks it: its question (or its name in words), what it is for,
    its form ("Try it", built in the browser), its exact odds (a tap away), and for
    designers (a tap away) its signature, parameters, rolls and formula."""
    name, anchor = d["name"], f"{book}:{d['name']}"
    w = d.get("words") or {}
    title = w.get("title") or name
    desc = addnodes.desc(domain="rules", objtype="mechanic", desctype="mechanic", no_index=ctx.no_index,
                         classes=["rules", "mechanic"])
    sig = addnodes.desc_signature("", "", classes=["rules-signature", "rules-ask"])
    sig["fullname"] = anchor
    preview = " ".join(x for x in (title if title != w.get("name") else "", w.get("doc") or d["doc"]) if x)
    ctx.target(sig, "mechanic", anchor, w.get("name") or name, preview or title)
    if not ctx.no_index:
        desc += index_node([(f"{clean_index(w.get('name') or name)} (mechanic, {clean_index(ctx.book_title(book))})",
                             anchor)])
    if d["has_dice"]:
        sig += nodes.inline("dice", "dice", classes=["rules-mech-kind"])
        sig += nodes.Text(" ")
    sig += nodes.inline(title, title, classes=["rules-mech-title"])
    desc += sig
    content = addnodes.desc_content()
    if w.get("doc") or d["doc"]:
        content += text_para(w.get("doc") or d["doc"], ["rules-mech-doc"])
    # "Try it": filled in the browser; a dice mechanic's form shows the exact odds this page
    # holds for the inputs chosen (as data: the same rows as the table below), or says they are not here
    content += try_form(book=book, mechanic=name, odds=form_odds(d), dice=bool(d["has_dice"]))
    if d.get("odds"):
        content += fold_node("Exact odds", odds_nodes(d), "odds")    # a second tap: tables can be tall
    elif d.get("odds_error"):
        content += text_para(f"Exact odds unavailable: {d['odds_error']}", ["rules-odds-error"])
    for i, sw in enumerate(d.get("sweeps") or ()):
        content += fold_node(f"Odds as {sw.get('label') or sw['name']} changes", sweep_nodes(sw, f"{book}:{name}:sweep{i}"),
                             "odds")
    content += designer_fold(_designer_nodes(d, name))
    desc += content
    return desc


def _designer_nodes(d, name):
    """The mechanic as the language writes it: signature, parameters (range, values,
    default), rolls, result, formula."""
    w = d.get("words") or {}
    out = []
    sig = nodes.paragraph(classes=["rules-designer-signature"])
    sig += nodes.Text("mechanic " if not d["has_dice"] else "dice mechanic ")
    sig += literal(d.get("signature") or name)
    out.append(sig)
    fl = nodes.field_list(classes=["rules-fields"])
    if d["params"]:
        lst = nodes.bullet_list()
        said = w.get("params") or [None] * len(d["params"])
        for (pname, ptype, describe, default), words_ in zip(d["params"], said):
            li = nodes.list_item()
            p = nodes.paragraph()
            p += literal(pname)
            if words_ is not None and words_[0] != pname:
                p += nodes.Text(f" ({words_[0]})")
            p += nodes.Text(f" — {describe}")
            if default is not None:
                p += nodes.Text(f"; default {default}")
            li += p
            lst += li
        fl += field("Parameters", lst)
    if d["rolls"]:
        lst = nodes.bullet_list()
        said = w.get("rolls") or [None] * len(d["rolls"])
        for (rname, dice), words_ in zip(d["rolls"], said):
            li = nodes.list_item()
            p = nodes.paragraph()
            p += literal(rname)
            p += nodes.Text(f" — {dice}; rolled unless given by name (e.g. ")
            p += literal(f"{name}(..., {rname}=...)")
            p += nodes.Text(")")
            li += p
            lst += li
        fl += field("Rolls", lst)
    fl += field("Returns", text_para(f"{d['returns'][0]} ({d['returns'][1]})"))
    out.append(fl)
    formula = "\n".join(d["lines"])
    out.append(nodes.literal_block(formula, formula, language="none", classes=["rules-formula"]))
    return out


def _cell(cell):
    text, absent = cell[:2]
    if len(cell) > 2:     # an enum member the source prints its own way: "–", titled "impossible"
        e = nodes.paragraph()
        e += nodes.abbreviation(text, text, explanation=cell[2], classes=["rules-printed"])
        return e
    if absent:
        e = nodes.paragraph(classes=["rules-absent"])
        e += nodes.inline(text, text, classes=["rules-absent"])
        return e
    return nodes.paragraph(text, text)


def data_table(ctx, d, book):
    """A table as the book prints it, headed in words: its caption (what it is), and for
    designers (a tap away) its signature."""
    name, anchor = d["name"], f"{book}:{d['name']}"
    w = d.get("words") or {}
    keys = ", ".join(f"{k}: {t}" for k, t in d["keys"])
    values = d["values"]
    ret = values[0][1] if len(values) == 1 and values[0][0] == "value" else "(" + ", ".join(f"{k}: {t}" for k, t in values) + ")"
    signature = f"table {name}({keys}) -> {ret}"
    caption = nodes.title()
    caption += nodes.Text(w.get("title") or d["doc"] or name)
    if w.get("keys"):
        by = nodes.inline(classes=["rules-table-signature"])
        gives = ", ".join(w.get("values") or []) or w.get("name", "")
        by += nodes.Text(f"Look up by {' and '.join(w['keys'])}" + (f"; gives {gives}" if gives else ""))
        caption += by
    header = [c[0] for c in d["header"]]
    width = max([len(header)] + [len(r) for r in d["rows"]]) if (header or d["rows"]) else 1
    if len(header) < width:
        names = w.get("columns") or ([k for k, _ in d["keys"]] + [k for k, _ in values])
        header = header + names[len(header):width] + [""] * max(0, width - len(names))
    rows = []
    for row in d["rows"]:
        cells = [_cell(c) for c in row] + [nodes.paragraph() for _ in range(width - len(row))]
        rows.append(cells)
    classes = ["rules-data", "rules-grid"] if d["grid"] else ["rules-data"]
    table = table_node(header, rows, classes=classes, title=caption)
    ctx.target(table, "table", anchor, w.get("name") or name, d["doc"] or w.get("name") or signature)
    out = []
    if not ctx.no_index:
        out.append(index_node([(f"{clean_index(w.get('name') or name)} (table, {clean_index(ctx.book_title(book))})",
                                anchor)]))
    out.append(table)
    if d.get("legend"):
        out.append(_legend(d["legend"]))
    out.append(designer_fold([nodes.paragraph("", "", literal(signature))]))
    return nodes.container("", *out, classes=["rules-table-wrapper"])


def _legend(legend):
    """What a printed entry means ("– impossible · A automatic"), under its table."""
    p = nodes.paragraph(classes=["rules-table-legend"])
    for i, (text, member) in enumerate(legend):
        if i:
            p += nodes.inline(" · ", " · ", classes=["rules-meta-sep"])
        p += nodes.strong(text, text)
        p += nodes.Text(f" {member}")
    return p


def form_odds(d) -> str:
    """JSON of the page's exact odds for a mechanic's form and charts: [{"inputs": {param: shown},
    "label": the inputs in words, "rows": [[result, percent, at least, "p/q"]], "mean", "folded"}]
    (the rows of the "Exact odds" table, folded as it is), or "" when the mechanic has none."""
    import json
    blocks = []
    for block in d.get("odds") or ():
        if "inputs_shown" not in block:
            continue
        blocks.append({"inputs": block["inputs_shown"], "label": block["inputs"], "mean": block["mean"],
                       "folded": block.get("folded", 0),
                       "rows": [[value, percent, at_least, f"{num}/{den}"]
                                for value, num, den, percent, at_least in block["outcomes"]]})
    return json.dumps(blocks, ensure_ascii=False, sort_keys=True, separators=(",", ":")) if blocks else ""


def odds_nodes(d):
    rows, shown = [], 0
    for block in d["odds"]:
        outs = block["outcomes"]
        label = nodes.paragraph()
        label += nodes.Text(block["inputs"])
        if block["mean"] is not None:
            label += nodes.inline("", "", nodes.Text(f"mean {block['mean']}"), classes=["rules-odds-mean"])
        if not block.get("exact", True):
            label += nodes.inline("", "", nodes.Text("an unbounded chain is cut where the rest is below 10⁻¹²"),
                                  classes=["rules-odds-mean"])
        for said in block.get("limits", ()):       # an exploding roll's limit of extra dice
            label += nodes.inline("", "", nodes.Text(said), classes=["rules-odds-mean"])
        for i, (value, num, den, percent, at_least) in enumerate(outs):
            exact = f"{num}/{den}" if den != 1 else str(num)
            row = []
            if i == 0:
                row.append((label.deepcopy(), len(outs) - 1) if len(outs) > 1 else label.deepcopy())
            if block.get("folded") and i == len(outs) - 1:   # the unlikely rest, as one row
                row.append(nodes.paragraph("", "", nodes.emphasis(value, value, classes=["rules-odds-folded"])))
            else:
                row.append(nodes.paragraph(value, value))
            row.append(percent)
            row.append(at_least)
            row.append(exact)
            rows.append(row)
        shown += len(outs)
        if shown >= ODDS_ROWS_SHOWN:
            break
    rub = nodes.rubric("Exact odds", "Exact odds", classes=["rules-odds-title"])
    result = (d.get("words") or {}).get("result") or "Result"
    table = table_node(["Inputs", result, "Probability", "At least", "Exact"], rows, classes=["rules-odds"],
                       widths=[3, 3, 1, 1, 1])
    out = [rub, table]
    folded = sum(b.get("folded", 0) for b in d["odds"])
    if folded:
        out.append(text_para(f"The unlikeliest outcomes (together under 1% for each inputs) are folded into "
                             f"one row ({folded} outcomes in all); `rules odds` lists every one.",
                             ["rules-odds-more"]))
    total = sum(len(b["outcomes"]) for b in d["odds"])
    if total > shown:
        out.append(text_para(f"Showing {shown} of {total} rows; use `rules odds` for the others.",
                              ["rules-odds-more"]))
    return out


def _chart(key, title, rows, caption=""):
    from .charts import bar_chart
    html = bar_chart(key, title, rows, caption=caption)
    return nodes.raw("", html, format="html")


def sweep_nodes(sw, key) -> list:
    """One input swept over its range: the table (the chart's text alternative) and the chart."""
    label = designer_fold([nodes.paragraph("", "", literal(f"odds {sw['inputs']}"))])
    if sw.get("error"):
        return [label, text_para(f"Not computed: {sw['error']}", ["rules-odds-error"])]
    rows = [[nodes.paragraph(c, c) for c in r] for r in sw["rows"]]
    table = table_node(sw["header"], rows, classes=["rules-odds", "rules-sweep"])
    out = [label, table]
    if sw.get("chart"):
        out.append(_chart(key, sw["chart_title"], sw["chart"], caption=sw["chart_title"]))
    return out


def priced_node(d, book):
    """A cost view: its title, formula, a table of cases and a bar chart of cost per result."""
    cont = titled_formula("Cost view: ", d, "rules-priced")
    if d.get("error"):
        cont += text_para(f"Not computed: {d['error']}", ["rules-odds-error"])
        return cont
    rows = [[nodes.paragraph(c, c) for c in r] for r in d["rows"]]
    cont += table_node(d["header"], rows, classes=["rules-odds", "rules-priced-table"])
    if d.get("chart"):
        cont += _chart(f"{book}:{d['name']}", d["chart_title"], d["chart"],
                       caption=d["chart_title"])
    if d.get("best"):
        cont += text_para(f"Best value: {d['best'][0]}, at {d['best'][1]} per "
                          f"{'success' if d.get('chance') else 'expected result'}.", ["rules-priced-best"])
    return cont