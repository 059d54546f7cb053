"""Render models (see data.py) -> docutils nodes.

Everything a rulebook says reaches the page as `nodes.Text` (escaped by the
writers); structure comes from docutils/Sphinx nodes only.
"""
from __future__ import annotations

import re

from docutils import nodes
from sphinx import addnodes

from .prose import blocks, xref

NOTE_TITLES = {
    "clarification": "Clarification",
    "interpretation": "Interpretation",
    "erratum": "Erratum",
    "absent": "Absent in the source",
}
# furo colours admonitions by these class names
NOTE_CLASSES = {
    "clarification": "note",
    "interpretation": "tip",
    "erratum": "warning",
    "absent": "rules-absent-note",
}
ODDS_ROWS_SHOWN = 400


class Ctx:
    """What a render needs: the domain to register objects in, the page, the deps."""

    def __init__(self, env, document, site, no_index=False, location=None):
        self.env, self.document, self.site = env, document, site
        self.domain = env.domains["rules"]
        self.docname = env.docname
        self.no_index = no_index
        self.location = location
        self.units = set()

    def book_title(self, book):
        m = self.site.models.get(book)
        return m["title"] if m else book

    def target(self, node, objtype, fullname, title, preview=""):
        """Give `node` its stable anchor and register the object (unless no-index)."""
        if self.no_index:
            self.document.set_id(node)
            return
        node["ids"].append(fullname)
        self.document.set_id(node)
        self.domain.note_object(objtype, fullname, self.docname, fullname, title, preview,
                                location=self.location)


def _clean_index(text: str) -> str:
    return " ".join(text.replace(";", ",").split()).lstrip("!")


def _index(entries):
    node = addnodes.index(entries=[("single", text, anchor, "", None) for text, anchor in entries])
    return node


def _text_para(text, classes=()):
    return nodes.paragraph(text, text, classes=list(classes))


def _literal(text, classes=()):
    return nodes.literal(text, text, classes=list(classes))


# ------------------------------------------------------------------ rules
def rule_node(ctx: Ctx, r: dict) -> nodes.section:
    book, anchor = r["book"], f"{r['book']}:{r['id']}"
    ctx.units.add(("rule", book, r["id"]))
    sec = nodes.section(classes=["rules-rule"])
    sec += nodes.title(r["title"], r["title"])
    ctx.target(sec, "rule", anchor, r["title"], r["summary"])
    if not ctx.no_index:
        bt = ctx.book_title(book)
        entries = [(f"{_clean_index(r['title'])} ({bt})", anchor), (f"{_clean_index(bt)}; {_clean_index(r['title'])}", anchor)]
        entries += [(f"{_clean_index(kw)}; {_clean_index(r['title'])} ({bt})", anchor) for kw in r["keywords"]]
        entries += [(f"{_clean_index(a)} ({bt}, see {_clean_index(r['title'])})", anchor) for a in r["aliases"]]
        sec += _index(entries)
    sec += meta_line(ctx, r)
    for text in r["prose"]:
        sec.extend(blocks(text, book))
    for text in r["flavour"]:
        quote = nodes.block_quote(classes=["rules-flavour"])
        quote.extend(blocks(text, book))
        sec += quote
    for kind, text in r["notes"]:
        sec += note_node(kind, text, book)
    for d in r["decls"]:
        sec.extend(decl_nodes(ctx, d, book))
    for f in r["findings"]:
        sec += finding_node(f)
    for i, (title, text) in enumerate(r["examples"]):
        sec.extend(example_nodes(title, text, i, len(r["examples"])))
    return sec


def meta_line(ctx, r):
    p = nodes.paragraph(classes=["rules-meta"])
    parts = []
    ref = nodes.inline(classes=["rules-meta-item", "rules-meta-ref"])
    ref += nodes.Text("Reference ")
    ref += _literal(f"{r['book']}:{r['id']}")
    parts.append(ref)
    if r["source"]:
        s = nodes.inline(classes=["rules-meta-item", "rules-meta-source"])
        s += nodes.Text("Source: ")
        s += nodes.emphasis(r["source"], r["source"])
        parts.append(s)
    if r["aliases"]:
        s = nodes.inline(classes=["rules-meta-item", "rules-meta-aliases"])
        s += nodes.Text("Also: " + ", ".join(r["aliases"]))
        parts.append(s)
    if r["keywords"]:
        s = nodes.inline(classes=["rules-meta-item", "rules-meta-keywords"])
        s += nodes.Text("Keywords: ")
        for i, kw in enumerate(r["keywords"]):
            if i:
                s += nodes.Text(", ")
            x = addnodes.pending_xref("", refdomain="rules", reftype="keyword", reftarget=kw,
                                      refexplicit=True, refwarn=False)
            x += nodes.inline(kw, kw, classes=["rules-keyword"])
            s += x
        parts.append(s)
    if r.get("uses"):
        # the terms the rule relies on: each links to the rule defining it, or is marked undefined
        s = nodes.inline(classes=["rules-meta-item", "rules-meta-uses"])
        s += nodes.Text("Uses: ")
        for i, (name, definer) in enumerate(r["uses"]):
            if i:
                s += nodes.Text(", ")
            if definer and definer != r["id"]:
                s += xref(r["book"], definer, name)
            elif definer:
                s += nodes.inline(name, name, classes=["rules-use"])
            else:
                s += nodes.inline(name + " (not defined)", name + " (not defined)", classes=["rules-use-undefined"])
        parts.append(s)
    for i, part in enumerate(parts):
        if i:
            p += nodes.inline(" · ", " · ", classes=["rules-meta-sep"])
        p += part
    return p


def note_node(kind, text, book):
    adm = nodes.admonition(classes=["rules-note", f"rules-note-{kind}", NOTE_CLASSES.get(kind, "note")])
    adm += nodes.title(NOTE_TITLES.get(kind, kind), NOTE_TITLES.get(kind, kind))
    adm.extend(blocks(text, book))
    return adm


_FAILS = re.compile(r"^(?P<head>.*?: fails in \d+ of \d+ cases)(?::|$)", re.S)


FINDING_TITLES = {
    "disagreement": "Finding: a printed value disagrees",
    "check-summary": "Finding: the source disagrees with itself",
    "undefined-name": "Finding: a name used but never defined",
    "check-error": "Finding: a check could not run",
}


def finding_node(f):
    adm = nodes.admonition(classes=["rules-finding", f"rules-finding-{f['kind']}", "caution"])
    title = FINDING_TITLES.get(f["kind"], "Finding")
    adm += nodes.title(title, title)
    m = _FAILS.match(f["message"])
    if f["kind"] == "disagreement" and f.get("printed"):
        # one wrong printed value, shown on the rule that prints it
        p = nodes.paragraph(classes=["rules-finding-printed"])
        p += _literal(f["printed"])
        p += nodes.Text(f" (source line {f['line']}) disagrees with the check below:" if f.get("line")
                        else " disagrees with the check below:")
        adm += p
        lst = nodes.bullet_list(classes=["rules-finding-cases"])
        for case in f["cases"][:12]:
            li = nodes.list_item()
            li += nodes.paragraph("", "", _literal(case))
            lst += li
        adm += lst
    elif m and f["cases"]:
        adm += _text_para(m.group("head") + ":")
        lst = nodes.bullet_list(classes=["rules-finding-cases"])
        for case in f["cases"][:12]:
            li = nodes.list_item()
            li += nodes.paragraph("", "", _literal(case))
            lst += li
        adm += lst
        if len(f["cases"]) > 12:
            adm += _text_para(f"… and {len(f['cases']) - 12} more.")
    else:
        adm += _text_para(f["message"])
    p = nodes.paragraph(classes=["rules-finding-check"])
    if f.get("check"):
        p += nodes.Text("Check ")
        p += _literal(f["check"])
        p += nodes.Text(". ")
    p += nodes.Text("Findings are facts about the source rulebook, not errors of this site.")
    adm += p
    return adm


def example_nodes(title, text, index, count):
    label = "Example" + (f" {index + 1}" if count > 1 and not title else "")
    rub = nodes.rubric(classes=["rules-example-title"])
    rub += nodes.Text(f"{label}: {title}" if title else label)
    rub += nodes.inline(" checked at build time", " checked at build time", classes=["rules-checked"])
    code = text.rstrip("\n")
    block = nodes.doctest_block(code, code, classes=["rules-example"])
    return [rub, block]


# ------------------------------------------------------------------ declarations
def decl_nodes(ctx, d, book) -> list:
    kind = d["kind"]
    if kind == "mechanic":
        return [mechanic_node(ctx, d, book)]
    if kind == "table":
        return [data_table(ctx, d, book)]
    if kind == "const":
        p = nodes.paragraph(classes=["rules-const"])
        p += nodes.Text("Constant ")
        text = f"{d['name']} = {d['value']}"
        p += _literal(text)
        if d.get("formula"):
            p += nodes.Text(" (")
            p += _literal(d["formula"])
            p += nodes.Text(")")
        if d["doc"]:
            p += nodes.Text(" — " + d["doc"])
        return [p]
    if kind == "enum":
        p = nodes.paragraph(classes=["rules-enum"])
        p += nodes.Text("Values of ")
        p += _literal(d["name"])
        p += nodes.Text(": ")
        for i, m in enumerate(d["members"]):
            if i:
                p += nodes.Text(", ")
            p += _literal(m)
        return [p]
    if kind == "check":
        cont = nodes.container(classes=["rules-check"])
        p = nodes.paragraph()
        p += nodes.strong("Check: ", "Check: ")
        p += nodes.Text(d["doc"] or d["name"])
        p += nodes.Text(" (")
        p += _literal(d["name"])
        p += nodes.Text(")")
        cont += p
        cont += nodes.literal_block(d["formula"], d["formula"], language="none", classes=["rules-formula"])
        return [cont]
    return []


def mechanic_node(ctx, d, book):
    name, anchor = d["name"], f"{book}:{d['name']}"
    desc = addnodes.desc(domain="rules", objtype="mechanic", desctype="mechanic", no_index=ctx.no_index,
                         classes=["rules", "mechanic"])
    sig = addnodes.desc_signature("", "", classes=["rules-signature"])
    sig["fullname"] = anchor
    ctx.target(sig, "mechanic", anchor, name, d["doc"] or d["signature"])
    if not ctx.no_index:
        desc += _index([(f"{name} (mechanic, {_clean_index(ctx.book_title(book))})", anchor)])
    ann = addnodes.desc_annotation("", "")
    ann += addnodes.desc_sig_keyword("dice mechanic" if d["has_dice"] else "mechanic",
                                     "dice mechanic" if d["has_dice"] else "mechanic")
    ann += addnodes.desc_sig_space()
    sig += ann
    sig += addnodes.desc_name(name, name)
    plist = addnodes.desc_parameterlist()
    for pname, ptype, _describe, default in d["params"]:
        param = addnodes.desc_parameter("", "")
        param += addnodes.desc_sig_name(pname, pname)
        param += addnodes.desc_sig_punctuation(":", ":")
        param += addnodes.desc_sig_space()
        param += nodes.Text(ptype)
        if default is not None:
            param += addnodes.desc_sig_space()
            param += addnodes.desc_sig_operator("=", "=")
            param += addnodes.desc_sig_space()
            param += nodes.inline(default, default, classes=["default_value"])
        plist += param
    for rname, dice in d["rolls"]:
        param = addnodes.desc_parameter("", "", classes=["rules-roll"])
        param += addnodes.desc_sig_keyword("roll", "roll")
        param += addnodes.desc_sig_space()
        param += addnodes.desc_sig_name(rname, rname)
        param += addnodes.desc_sig_punctuation(":", ":")
        param += addnodes.desc_sig_space()
        param += nodes.Text(dice)
        plist += param
    sig += plist
    sig += addnodes.desc_returns(d["returns"][0], d["returns"][0])
    desc += sig
    content = addnodes.desc_content()
    if d["doc"]:
        content += _text_para(d["doc"])
    fl = nodes.field_list(classes=["rules-fields"])
    if d["params"]:
        lst = nodes.bullet_list()
        for pname, ptype, describe, default in d["params"]:
            li = nodes.list_item()
            p = nodes.paragraph()
            p += nodes.strong(pname, pname)
            p += nodes.Text(f" — {describe}")
            if default is not None:
                p += nodes.Text(f"; default {default}")
            li += p
            lst += li
        fl += _field("Parameters", lst)
    if d["rolls"]:
        lst = nodes.bullet_list()
        for rname, dice in d["rolls"]:
            li = nodes.list_item()
            p = nodes.paragraph()
            p += nodes.strong(rname, rname)
            p += nodes.Text(f" — {dice}; rolled unless given by name (e.g. ")
            p += _literal(f"{name}(..., {rname}=...)")
            p += nodes.Text(")")
            li += p
            lst += li
        fl += _field("Rolls", lst)
    fl += _field("Returns", _text_para(d["returns"][1]))
    content += fl
    formula = "\n".join(d["lines"])
    content += nodes.literal_block(formula, formula, language="none", classes=["rules-formula"])
    if d.get("odds"):
        content.extend(odds_nodes(d))
    elif d.get("odds_error"):
        content += _text_para(f"Exact odds unavailable: {d['odds_error']}", ["rules-odds-error"])
    desc += content
    return desc


def _field(name, body):
    f = nodes.field()
    f += nodes.field_name(name, name)
    fb = nodes.field_body()
    fb += body
    f += fb
    return f


def _table(headers, rows, classes=(), title=None, widths=None):
    """rows: list of lists of cells; a cell is a node list, or (nodes, morerows)."""
    table = nodes.table(classes=["rules-table", *classes])
    if isinstance(title, nodes.title):
        table += title
    elif title:
        table += nodes.title(title, title)
    tgroup = nodes.tgroup(cols=len(headers))
    for i in range(len(headers)):
        tgroup += nodes.colspec(colwidth=(widths[i] if widths else 1))
    thead = nodes.thead()
    hrow = nodes.row()
    for h in headers:
        e = nodes.entry()
        e += nodes.paragraph(h, h) if isinstance(h, str) else h
        hrow += e
    thead += hrow
    tgroup += thead
    tbody = nodes.tbody()
    for row in rows:
        r = nodes.row()
        for cell in row:
            morerows = 0
            if isinstance(cell, tuple):
                cell, morerows = cell
            e = nodes.entry(morerows=morerows) if morerows else nodes.entry()
            if isinstance(cell, str):
                e += nodes.paragraph(cell, cell)
            elif isinstance(cell, nodes.Node):
                e += cell
            else:
                for c in cell:
                    e += c
            r += e
        tbody += r
    tgroup += tbody
    table += tgroup
    return table


def _cell(cell):
    text, absent = cell
    if absent:
        e = nodes.paragraph(classes=["rules-absent"])
        e += nodes.inline(text, text, classes=["rules-absent"])
        return e
    return nodes.paragraph(text, text)


def data_table(ctx, d, book):
    name, anchor = d["name"], f"{book}:{d['name']}"
    keys = ", ".join(f"{k}: {t}" for k, t in d["keys"])
    values = d["values"]
    ret = values[0][1] if len(values) == 1 and values[0][0] == "value" else "(" + ", ".join(f"{k}: {t}" for k, t in values) + ")"
    signature = f"table {name}({keys}) -> {ret}"
    caption = nodes.title()
    if d["doc"]:
        caption += nodes.Text(d["doc"])
    sig = nodes.inline(classes=["rules-table-signature"])
    sig += _literal(signature)
    caption += sig
    header = [c[0] for c in d["header"]]
    width = max([len(header)] + [len(r) for r in d["rows"]]) if (header or d["rows"]) else 1
    if len(header) < width:
        names = [k for k, _ in d["keys"]] + [k for k, _ in values]
        header = header + names[len(header):width] + [""] * max(0, width - len(names))
    rows = []
    for row in d["rows"]:
        cells = [_cell(c) for c in row] + [nodes.paragraph() for _ in range(width - len(row))]
        rows.append(cells)
    classes = ["rules-data", "rules-grid"] if d["grid"] else ["rules-data"]
    table = _table(header, rows, classes=classes, title=caption)
    ctx.target(table, "table", anchor, name, d["doc"] or signature)
    out = []
    if not ctx.no_index:
        out.append(_index([(f"{name} (table, {_clean_index(ctx.book_title(book))})", anchor)]))
    out.append(table)
    return nodes.container("", *out, classes=["rules-table-wrapper"])


def odds_nodes(d):
    rows, shown = [], 0
    for block in d["odds"]:
        outs = block["outcomes"]
        label = nodes.paragraph()
        label += _literal(block["inputs"])
        if block["mean"] is not None:
            label += nodes.inline("", "", nodes.Text(f"mean {block['mean']}"), classes=["rules-odds-mean"])
        if not block.get("exact", True):
            label += nodes.inline("", "", nodes.Text("an unbounded chain is cut where the rest is below 10⁻¹²"),
                                  classes=["rules-odds-mean"])
        for i, (value, num, den, percent) in enumerate(outs):
            exact = f"{num}/{den}" if den != 1 else str(num)
            row = []
            if i == 0:
                row.append((label.deepcopy(), len(outs) - 1) if len(outs) > 1 else label.deepcopy())
            row.append(nodes.paragraph("", "", _literal(value)))
            row.append(percent)
            row.append(exact)
            rows.append(row)
        shown += len(outs)
        if shown >= ODDS_ROWS_SHOWN:
            break
    rub = nodes.rubric("Exact odds", "Exact odds", classes=["rules-odds-title"])
    table = _table(["Inputs", "Result", "Probability", "Exact"], rows, classes=["rules-odds"],
                   widths=[3, 3, 1, 1])
    out = [rub, table]
    total = sum(len(b["outcomes"]) for b in d["odds"])
    if total > shown:
        out.append(_text_para(f"Showing {shown} of {total} rows; use `rules odds` for the others.",
                              ["rules-odds-more"]))
    return out


# ------------------------------------------------------------------ sections and books
def section_node(ctx, model, sec) -> nodes.section:
    book = model["id"]
    ctx.units.add(("section", book, sec["id"]))
    node = nodes.section(classes=["rules-section"] + (["rules-section-top"] if sec["top"] else []))
    node += nodes.title(sec["title"], sec["title"])
    anchor = f"{book}:{sec['id']}"
    ctx.target(node, "section", anchor, sec["title"], sec["summary"] or " > ".join(sec["path_titles"]))
    if not ctx.no_index:
        node += _index([(f"{_clean_index(ctx.book_title(book))}; {_clean_index(sec['title'])} (section)", anchor)])
    if sec["top"]:
        p = nodes.paragraph(classes=["rules-meta"])
        p += nodes.Text("Part of ")
        bx = addnodes.pending_xref("", refdomain="rules", reftype="book", reftarget=book, refexplicit=False,
                                   refwarn=True)
        bx += nodes.inline(book, book)
        p += bx
        p += nodes.inline(" · ", " · ", classes=["rules-meta-sep"])
        p += nodes.Text("Reference ")
        p += _literal(anchor)
        node += p
    for text in sec["prose"]:
        node.extend(blocks(text, book))
    node.extend(items_nodes(ctx, model, sec["items"]))
    return node


def items_nodes(ctx, model, items) -> list:
    out = []
    for kind, value in items:
        if kind == "section":
            out.append(section_node(ctx, model, model["sections"][value]))
        elif kind == "rule":
            out.append(rule_node(ctx, model["rules"][value]))
        elif kind == "prose":
            out.extend(blocks(value, model["id"]))
        elif kind == "decl":
            out.extend(decl_nodes(ctx, value, model["id"]))
    return out


def book_node(ctx, model, section_docs) -> nodes.section:
    """The book's own page: header, counts, its sections (a toctree), loose rules."""
    book = model["id"]
    ctx.units.add(("book", book, ""))
    node = nodes.section(classes=["rules-book"])
    node += nodes.title(model["title"], model["title"])
    ctx.target(node, "book", book, model["title"], model["edition"] or model["title"])
    if not ctx.no_index:
        node += _index([(f"{_clean_index(model['title'])} (book)", book)])
    c = model["counts"]
    rows = []
    if model["edition"]:
        rows.append(("Edition", model["edition"]))
    rows.append(("Book id", None))
    if model["source"]:
        rows.append(("Source", model["source"]))
    if model["units"]:
        rows.append(("Units", model["units"]))
    fl = nodes.field_list(classes=["rules-book-meta"])
    for label, value in rows:
        if value is None:
            fl += _field(label, nodes.paragraph("", "", _literal(book)))
        else:
            fl += _field(label, _text_para(value))
    if model["dice"]:
        p = nodes.paragraph()
        for i, (name, desc) in enumerate(model["dice"]):
            if i:
                p += nodes.Text("; ")
            p += _literal(name)
            p += nodes.Text(f" ({desc})")
        fl += _field("Dice", p)
    counts = (f"{c['rules']} rules in {c['sections']} sections, {c['mechanics']} mechanics, {c['tables']} tables, "
              f"{c['examples']} worked examples, {c['findings']} findings")
    notes = ", ".join(f"{v} {k}" for k, v in sorted(c["notes"].items()))
    fl += _field("Contents", _text_para(counts + (f"; notes: {notes}" if notes else "")))
    fl += _field("Source files", nodes.paragraph("", "", *_join_literals(model["files"])))
    node += fl
    for text in model["prose"]:
        node.extend(blocks(text, book))
    if section_docs:
        toc = addnodes.toctree()
        toc["parent"] = ctx.docname
        toc["entries"] = [(None, doc) for doc in section_docs]
        toc["includefiles"] = list(section_docs)
        toc["maxdepth"] = 2
        toc["caption"] = "Sections"
        toc["glob"] = False
        toc["hidden"] = False
        toc["includehidden"] = False
        toc["numbered"] = 0
        toc["titlesonly"] = False
        wrapper = nodes.compound(classes=["toctree-wrapper", "rules-book-toc"])
        wrapper += toc
        node += wrapper
    loose = [(k, v) for k, v in model["items"] if k != "section"]
    if loose:
        node.extend(items_nodes(ctx, model, loose))
    for f in model["loose_findings"]:
        node += finding_node(f)
    return node


def _join_literals(items):
    out = []
    for i, it in enumerate(items):
        if i:
            out.append(nodes.Text(", "))
        out.append(_literal(it))
    return out


# ------------------------------------------------------------------ across books
def books_table(ctx, rows):
    headers = ["Book", "Edition", "Rules", "Mechanics", "Tables", "Examples", "Findings"]
    body = []
    for b in rows:
        x = addnodes.pending_xref("", refdomain="rules", reftype="book", reftarget=b["id"], refexplicit=False,
                                  refwarn=True)
        x += nodes.inline(b["title"], b["title"])
        c = b["counts"]
        body.append([nodes.paragraph("", "", x), b["edition"] or "", str(c["rules"]), str(c["mechanics"]),
                     str(c["tables"]), str(c["examples"]), str(c["findings"])])
    if not body:
        return [_text_para("No rulebook compiles at the moment.")]
    return [_table(headers, body, classes=["rules-books"], widths=[4, 4, 1, 1, 1, 1, 1])]


def glossary_nodes(ctx, entries, document, lineno):
    from sphinx.domains.std import make_glossary_term
    gloss = addnodes.glossary()
    gloss["sorted"] = True
    dl = nodes.definition_list(classes=["glossary", "rules-glossary"])
    for e in entries:
        item = nodes.definition_list_item()
        term = make_glossary_term(ctx.env, [nodes.Text(e["label"])], None, ctx.docname, lineno, None, document)
        ctx.domain.note_keyword(e["key"], ctx.docname, term["ids"][0])
        item += term
        defn = nodes.definition()
        p = nodes.paragraph()
        by_book = {}
        for book, rid, title in e["rules"]:
            by_book.setdefault(book, []).append((rid, title))
        for i, (book, rs) in enumerate(sorted(by_book.items())):
            if i:
                p += nodes.Text("; ")
            p += nodes.emphasis(ctx.book_title(book) + ": ", ctx.book_title(book) + ": ")
            for j, (rid, title) in enumerate(rs):
                if j:
                    p += nodes.Text(", ")
                p += xref(book, f"{book}:{rid}", title)
        defn += p
        item += defn
        dl += item
    gloss += dl
    return [gloss]


def crossindex_nodes(ctx, groups, books):
    if not groups:
        return [_text_para("No term is shared by two books yet.")]
    headers = ["Term"] + [ctx.book_title(b) for b in books]
    rows = []
    for g in groups:
        term = nodes.paragraph(classes=["rules-xindex-term"])
        term += nodes.strong(g["label"], g["label"])
        term["ids"].append(f"xindex-{g['stem']}")
        ctx.document.set_id(term)
        row = [term]
        for b in books:
            p = nodes.paragraph()
            rules = g["books"].get(b, [])
            titled = [x for x in rules if x[2]]
            for j, (rid, title, _) in enumerate(titled):
                if j:
                    p += nodes.Text(", ")
                p += xref(b, f"{b}:{rid}", title)
            others = [x for x in rules if not x[2]]
            if others:
                more = nodes.inline(classes=["rules-xindex-keyword"])
                more += nodes.Text(("; by keyword: " if titled else "by keyword: "))
                for j, (rid, title, _) in enumerate(others):
                    if j:
                        more += nodes.Text(", ")
                    more += xref(b, f"{b}:{rid}", title)
                p += more
            row.append(p)
        rows.append(row)
    return [_table(headers, rows, classes=["rules-xindex"], widths=[2] + [3] * len(books))]
