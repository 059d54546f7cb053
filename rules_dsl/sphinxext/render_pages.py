"""Sections, books and the pages across books -> docutils nodes: a section with its
rules, a book's own page (header, counts, sections), the table of books, the
glossary of keywords and the cross index."""
from __future__ import annotations

from docutils import nodes
from sphinx import addnodes

from . import crossbook, render_front
from .prose import blocks, xref
from .render_decls import decl_nodes
from .render_rules import finding_node, rule_node
from .rendering import clean_index, doc_link, field, fold_node, index_node, literal, table_node, text_para


def section_node(ctx, model, sec, page=None, family=None, docs_of=None) -> nodes.section:
    """A section with its rules and sub-sections; or, given `page` (an entry of the
    site's page plan, pagesplit.py) and `family` ([(docname, page)] of all the
    section's pages), that one page of it: "part 2 of 3" in its title, a line of
    links to the other parts, its share of the items, and each sub-section as a
    link to its own pages (`docs_of(section id)`).  The section's anchor, index
    entry and prose are on its first page."""
    book = model["id"]
    ctx.units.add(("section", book, sec["id"]))
    part, count = (page["part"], page["parts"]) if page else (1, 1)
    head = sec["top"] or page is not None
    node = nodes.section(classes=["rules-section"] + (["rules-section-top"] if head else []))
    title = sec["title"] if count == 1 else f"{sec['title']} (part {part} of {count})"
    node += nodes.title(title, title)
    anchor = f"{book}:{sec['id']}"
    if part == 1:
        ctx.target(node, "section", anchor, sec["title"], sec["summary"] or " > ".join(sec["path_titles"]))
        if not ctx.no_index:
            node += index_node([(f"{clean_index(ctx.book_title(book))}; {clean_index(sec['title'])} (section)",
                                 anchor)])
    else:
        node["ids"].append(f"{anchor}:part-{part}")     # no rule or section id has a second colon
        ctx.document.set_id(node)
    if head:
        p = nodes.paragraph(classes=["rules-meta"])
        p += nodes.Text("Part of ")
        bx = addnodes.pending_xref("", refdomain="rules", reftype="book", reftarget=book, refexplicit=False,
                                   refwarn=True)
        bx += nodes.inline(book, book)
        p += bx
        p += nodes.inline(" · ", " · ", classes=["rules-meta-sep"])
        p += nodes.Text("Reference ")
        p += literal(anchor)
        node += p
    if page is not None:
        ctx.units.add(("pages", book, sec["id"]))
        if count > 1:
            node += parts_line(family, part)
    if part == 1:
        for text in sec["prose"]:
            node.extend(blocks(text, book))
    if page is None or page["items"] is None:
        node.extend(items_nodes(ctx, model, sec["items"]))
        return node
    for kind, value in page["items"]:
        if kind == "section":           # on its own pages: a link where it stands
            ctx.units.add(("pages", book, value))
            node += toctree_node(ctx.docname, docs_of(value), "rules-subsections")
        else:
            node.extend(items_nodes(ctx, model, [(kind, value)]))
    return node


def parts_line(family, current):
    """The pages of a section split for a phone: "Pages: 1. Attack – Cover · 2. Dodge – Fly",
    each a link but the current one (bold)."""
    p = nodes.paragraph(classes=["rules-meta", "rules-parts"])
    p += nodes.inline("Pages: ", "Pages: ", classes=["rules-parts-label"])
    for i, (docname, page) in enumerate(family):
        if i:
            p += nodes.inline(" · ", " · ", classes=["rules-meta-sep"])
        text = f"{page['part']}. {page['label']}" if page["label"] else f"Part {page['part']}"
        if page["part"] == current:
            p += nodes.strong(text, text, classes=["rules-parts-current"])
        else:
            p += doc_link(docname, text)
    return p


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
    """The book's own page, player first: its title, edition and introduction (its `about`,
    else the first paragraph of the book's prose), where to start and its quick reference
    (render_front.py), its sections (a toctree), loose rules;
    then, folded away "For designers", the header facts (book id, source file,
    units, dice, counts, `.rules` files) and the rest of the prose (how the text
    was restated from the source)."""
    book = model["id"]
    ctx.units.add(("book", book, ""))
    node = nodes.section(classes=["rules-book"])
    node += nodes.title(model["title"], model["title"])
    ctx.target(node, "book", book, model["title"], render_front.book_preview(model))
    if not ctx.no_index:
        node += index_node([(f"{clean_index(model['title'])} (book)", book)])
    if model["edition"]:
        node += text_para(model["edition"], ["rules-meta", "rules-book-edition"])
    prose = [b for text in model["prose"] for b in blocks(text, book)]
    intro, prose = render_front.intro(model, prose)
    node.extend(intro)
    node.extend(render_front.front_nodes(ctx, model))
    if section_docs:
        node += toctree_node(ctx.docname, section_docs, "rules-book-toc", maxdepth=2, caption="Sections",
                             titlesonly=False)
    loose = [(k, v) for k, v in model["items"] if k != "section"]
    if loose:
        node.extend(items_nodes(ctx, model, loose))
    designers = [book_facts(model)] + prose + [finding_node(f, bool(model.get("source"))) for f in model["loose_findings"]]
    node += fold_node("For designers: source, files and counts", designers, "designers")
    return node


def book_facts(model):
    """The book's header facts as a field list (kept for designers, not a player's first view)."""
    book = model["id"]
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
            fl += field(label, nodes.paragraph("", "", literal(book)))
        else:
            fl += field(label, text_para(value))
    if model["dice"]:
        p = nodes.paragraph()
        for i, (name, desc) in enumerate(model["dice"]):
            if i:
                p += nodes.Text("; ")
            p += literal(name)
            p += nodes.Text(f" ({desc})")
        fl += field("Dice", p)
    counts = (f"{c['rules']} rules in {c['sections']} sections, {c['mechanics']} mechanics, {c['tables']} tables, "
              f"{c['examples']} worked examples, {c['findings']} findings")
    notes = ", ".join(f"{v} {k}" for k, v in sorted(c["notes"].items()))
    fl += field("Contents", text_para(counts + (f"; notes: {notes}" if notes else "")))
    if c.get("findings_said"):      # what the findings are: "2 disagreements, 2 consequences, 81 names ..."
        fl += field("Findings", text_para(c["findings_said"] + "."))
    fl += field("Source files", nodes.paragraph("", "", *_join_literals(model["files"])))
    return fl


def _join_literals(items):
    out = []
    for i, it in enumerate(items):
        if i:
            out.append(nodes.Text(", "))
        out.append(literal(it))
    return out


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
        return [text_para("No rulebook compiles at the moment.")]
    return [table_node(headers, body, classes=["rules-books"], widths=[4, 4, 1, 1, 1, 1, 1])]


def toctree_node(docname, docs, css, maxdepth=1, caption=None, titlesonly=True):
    """A visible toctree of generated pages, as Sphinx's own directive builds one."""
    toc = addnodes.toctree()
    toc["parent"] = docname
    toc["entries"] = [(None, doc) for doc in docs]
    toc["includefiles"] = list(docs)
    toc["maxdepth"] = maxdepth
    toc["caption"] = caption
    toc["glob"] = False
    toc["hidden"] = False
    toc["includehidden"] = False
    toc["numbered"] = 0
    toc["titlesonly"] = titlesonly
    wrapper = nodes.compound(classes=["toctree-wrapper", css])
    wrapper += toc
    return wrapper


def hidden_toc(docname, docs):
    """Generated pages (the glossary's and cross index's letters, the game picker's pages) in
    the site's navigation, without a bare list of them here: the page shows them its own way."""
    wrapper = toctree_node(docname, docs, "rules-letters")
    wrapper[0]["hidden"] = True
    return wrapper


def jump_bar(targets, docname_of, current=None, index=True):
    """The A–Z jump bar of the glossary or cross-index pages: a link per letter that has
    a page (the current page's letter in bold, letters without entries greyed out), then
    (`index`) a link to the general index (every rule, section, mechanic and table, A–Z)."""
    p = nodes.paragraph(classes=["rules-az"])
    p += nodes.inline("Jump to: ", "Jump to: ", classes=["rules-az-label"])
    for i, (label, slug) in enumerate(targets):
        if i:
            p += nodes.Text(" ")
        if slug is None:
            p += nodes.inline(label, label, classes=["rules-az-empty"])
        elif current is not None and (slug == current or (len(label) == 1 and current.startswith(label.lower())
                                                          and not current[:1].isdigit())):
            p += nodes.strong(label, label, classes=["rules-az-current"])
        else:
            p += doc_link(docname_of(slug), label)
    if not index:
        return p
    p += nodes.inline(" · ", " · ", classes=["rules-meta-sep"])
    g = addnodes.pending_xref("", refdomain="std", reftype="ref", reftarget="genindex", refexplicit=True,
                              refwarn=True)
    g += nodes.inline("General index A–Z", "General index A–Z")
    p += g
    return p


def glossary_nodes(ctx, entries, document, lineno):
    """The glossary entries of one page: each keyword with what it means (the first
    sentence of the rule that defines it, one per book) and the rules that carry it."""
    from sphinx.domains.std import make_glossary_term
    gloss = addnodes.glossary()
    gloss["sorted"] = True
    dl = nodes.definition_list(classes=["glossary", "rules-glossary"])
    for e in entries:
        item = nodes.definition_list_item()
        if e.get("part", 1) == 1:       # a keyword's glossary term (and anchor) is on its first part only
            term = make_glossary_term(ctx.env, [nodes.Text(e["label"])], None, ctx.docname, lineno, None, document)
            ctx.domain.note_keyword(e["key"], ctx.docname, term["ids"][0])
        else:
            term = nodes.term("", e["label"])
        if e.get("parts", 1) > 1:       # the anchor stays the keyword's own, however the pages are cut
            term += nodes.inline("", crossbook.part_label(e)[len(e["label"]):], classes=["rules-part"])
        item += term
        defn = nodes.definition()
        for book, rid, title, text in e.get("definitions", ()):
            d = nodes.paragraph(classes=["rules-gloss-def"])
            d += nodes.Text(text)
            d += nodes.inline(" — ", " — ", classes=["rules-meta-sep"])
            d += xref(book, f"{book}:{rid}", title)
            d += nodes.Text(f" ({ctx.book_title(book)})")
            defn += d
        p = nodes.paragraph(classes=["rules-gloss-rules"])
        p += nodes.inline("Rules: ", "Rules: ", classes=["rules-gloss-label"])
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
    """The cross-index entries of one page: each term, then a line per book that has rules
    for it (its rules whose title has the term, then those that only share a keyword).  A
    list, not a table with a column per book: it reads on a phone, and a book without rules
    for a term takes no room."""
    if not groups:
        return [text_para("No term is shared by two books yet.")]
    dl = nodes.definition_list(classes=["rules-xindex"])
    for g in groups:
        item = nodes.definition_list_item()
        label = crossbook.part_label(g)
        term = nodes.term("", "", nodes.strong(label, label), classes=["rules-xindex-term"])
        part = g.get("part", 1)
        term["ids"].append(f"xindex-{g['stem']}" if part == 1 else f"xindex-{g['stem']}-{part}")
        ctx.document.set_id(term)
        if part == 1:
            ctx.domain.note_term(g["stem"], ctx.docname, term["ids"][0])
        item += term
        defn = nodes.definition()
        bl = nodes.bullet_list(classes=["rules-xindex-books"])
        for b in books:
            rules = g["books"].get(b, [])
            if not rules:
                continue
            line = nodes.paragraph()
            line += nodes.emphasis(ctx.book_title(b) + ": ", ctx.book_title(b) + ": ")
            titled = [x for x in rules if x[2]]
            for j, (rid, title, _) in enumerate(titled):
                if j:
                    line += nodes.Text(", ")
                line += xref(b, f"{b}:{rid}", title)
            others = [x for x in rules if not x[2]]
            if others:
                more = nodes.inline(classes=["rules-xindex-keyword"])
                more += nodes.Text(("; by keyword: " if titled else "by keyword: "))
                for j, (rid, title, _) in enumerate(others):
                    if j:
                        more += nodes.Text(", ")
                    more += xref(b, f"{b}:{rid}", title)
                line += more
            li = nodes.list_item()
            li += line
            bl += li
        defn += bl
        item += defn
        dl += item
    return [dl]
