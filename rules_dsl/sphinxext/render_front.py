"""The front door -> docutils nodes: the home page's game picker (a card per book: what it
is, its dice, where to start) and a book's quick reference (its dice, turn sequence, key
tables and most looked-up rules), from the plain data of `front.py`.

Written for players: no ids, signatures or commands here (the book page's "For designers"
fold keeps those).  `rules_front.css` lays them out; `rules_print.css` prints the quick
reference alone, cleanly, from the book's page.
"""
from __future__ import annotations

from docutils import nodes
from sphinx import addnodes

from . import crossbook
from .firstpaint import print_button
from .prose import blocks, xref
from .render_decls import data_table
from .rendering import Ctx, doc_link, text_para

QUICKREF_ID = "quick-reference"


def _book_link(book: str, text: str, explicit: bool = False):
    """A link to the book's page, showing its title (or, `explicit`, `text` as written)."""
    x = addnodes.pending_xref("", refdomain="rules", reftype="book", reftarget=book, refexplicit=explicit,
                              refwarn=True)
    x += nodes.inline(text, text)
    return x


def _text(text: str, given: bool, book: str, classes=()) -> list:
    """A front-door text: the book's own markup when it wrote one, else plain words."""
    if given:
        return blocks(text, book, classes)
    return [text_para(text, classes)] if text else []


def _labelled(label: str, content: list, classes) -> nodes.paragraph:
    """"Label: content" as one paragraph (the content's first paragraph's children)."""
    p = nodes.paragraph(classes=list(classes))
    p += nodes.strong(label + ": ", label + ": ")
    first = content[0] if content else None
    if isinstance(first, nodes.paragraph):
        p.extend(first.children)
    return p


def game_card(book: dict):
    """A list item: the game's title (its page) and edition, what it is, its dice, where
    to start."""
    bid, card = book["id"], book.get("card") or {}
    item = nodes.list_item(classes=["rules-game"])
    head = nodes.paragraph(classes=["rules-game-title"])
    head += nodes.strong("", "", _book_link(bid, book["title"]))
    if book.get("edition"):
        head += nodes.inline(book["edition"], book["edition"], classes=["rules-game-edition"])
    item += head
    about = _text(card.get("about", ""), card.get("about_given", False), bid, ["rules-game-about"])
    item.extend(about[:1])
    if card.get("dice"):
        item += _labelled("Dice", _text(card["dice"], card.get("dice_given", False), bid), ["rules-game-dice"])
    start = card.get("start")
    p = nodes.paragraph(classes=["rules-game-start"])
    if start:
        p += nodes.strong("Start with: ", "Start with: ")
        p += xref(bid, f"{bid}:{start['id']}", start["title"])
        p += nodes.inline(" · ", " · ", classes=["rules-meta-sep"])
    p += _book_link(bid, "Quick reference and contents", explicit=True)
    item += p
    return item


def games_nodes(books: list) -> list:
    """The game picker: a card per book, in title order."""
    if not books:
        return [text_para("No rulebook compiles at the moment.")]
    lst = nodes.bullet_list(classes=["rules-games"])
    for b in sorted(books, key=lambda b: (b["title"].lower(), b["id"])):
        lst += game_card(b)
    return [lst]


def games_index(pages: list, docname_of) -> list:
    """Many books: instead of every card, the picker's pages (by the first letters of the
    titles), each with the titles it starts and ends with and how many games it holds."""
    lst = nodes.bullet_list(classes=["rules-games-pages"])
    for slug, books in pages:
        li = nodes.list_item()
        p = nodes.paragraph()
        p += doc_link(docname_of(slug), f"Games: {crossbook.page_title(slug)}")
        first, last = books[0]["title"], books[-1]["title"]
        span = first if len(books) == 1 else f"{first} … {last}"
        p += nodes.Text(f" ({len(books)}: {span})")
        li += p
        lst += li
    return [lst]


# ------------------------------------------------------------------ the quick reference
def _steps(nodes_list: list) -> list:
    """A turn sequence's bullet items are its steps, in order: an enumerated list."""
    out = []
    for node in nodes_list:
        if isinstance(node, nodes.bullet_list):
            en = nodes.enumerated_list(enumtype="arabic", prefix="", suffix=".", classes=["rules-quickref-steps"])
            en.extend(node.children)
            out.append(en)
        else:
            out.append(node)
    return out


def _decl_of(model: dict, owner, name: str):
    kind, oid = owner
    if kind == "rule":
        return next((d for d in model["rules"][oid]["decls"] if d["kind"] == "table" and d["name"] == name), None)
    return next((v for k, v in model["sections"][oid]["items"] if k == "decl" and v["name"] == name), None)


def quickref_node(ctx, model: dict) -> nodes.section:
    """The book's quick reference: its dice, the turn sequence, the key tables and the most
    looked-up rules, each rule with its first sentence.  Its tables are shown again (not
    registered: their anchors stay on their rules' pages)."""
    book, f = model["id"], model["front"]
    sec = nodes.section(classes=["rules-quickref"])
    sec["ids"].append(QUICKREF_ID)
    title = "Quick reference"
    sec += nodes.title(title, title)
    sec += print_button(label=f"Print the quick reference of {model['title']}")
    if f["dice"]:
        sec += _labelled("Dice", _text(f["dice"], f["dice_given"], book), ["rules-quickref-dice"])
    if f["turn"]:
        sec += nodes.rubric("Turn sequence", "Turn sequence", classes=["rules-quickref-head"])
        sec.extend(_steps(blocks(f["turn"], book)))
    elif f["turn_link"]:
        p = nodes.paragraph(classes=["rules-quickref-turn"])
        p += nodes.strong("Turn sequence: ", "Turn sequence: ")
        p += nodes.Text("see ")
        p += xref(book, f"{book}:{f['turn_link']['id']}", f["turn_link"]["title"])
        sec += p
    tables = [(t, _decl_of(model, t["owner"], t["name"])) for t in f["tables"]]
    tables = [(t, d) for t, d in tables if d is not None]
    if tables:
        sec += nodes.rubric("Key tables", "Key tables", classes=["rules-quickref-head"])
        quiet = Ctx(ctx.env, ctx.document, ctx.site, no_index=True, location=ctx.location)
        for t, d in tables:
            box = nodes.container(classes=["rules-quickref-table"])
            box += data_table(quiet, d, book)
            kind, oid = t["owner"]
            owner = model["rules"][oid] if kind == "rule" else model["sections"][oid]
            p = nodes.paragraph(classes=["rules-quickref-from"])
            p += nodes.Text("From ")
            p += xref(book, f"{book}:{oid}", owner["title"])
            box += p
            sec += box
    if f["rules"]:
        sec += nodes.rubric("Most looked-up rules", "Most looked-up rules", classes=["rules-quickref-head"])
        dl = nodes.definition_list(classes=["rules-quickref-rules"])
        for t in f["rules"]:
            item = nodes.definition_list_item()
            term = nodes.term()
            term += xref(book, f"{book}:{t['id']}", t["title"])
            item += term
            target = model["rules"].get(t["id"]) if t["kind"] == "rule" else model["sections"].get(t["id"])
            said = (target.get("definition") or target.get("summary") or "") if target else ""
            d = nodes.definition()
            if said:
                d += text_para(said)
            item += d
            dl += item
        sec += dl
    if len(sec) == 1:        # a book with no dice, turn, tables or references to show
        sec += text_para("This book has no quick reference yet: its sections are below.")
    return sec


def start_line(model: dict):
    """Under the book's introduction: where to start, and where the quick reference and the
    sections are on the page."""
    book, f = model["id"], model["front"]
    p = nodes.paragraph(classes=["rules-book-start"])
    if f["start"]:
        p += nodes.strong("Start with: ", "Start with: ")
        p += xref(book, f"{book}:{f['start']['id']}", f["start"]["title"])
    return p if len(p) else None


# ------------------------------------------------------------------ the book's own page
def intro(model: dict, prose: list) -> tuple:
    """(what opens the book's page, the prose left for the designers' fold): the book's
    `about` when it wrote one (its header's prose then stays for designers), else the
    prose's first paragraph."""
    f = model["front"]
    if f["about_given"]:
        return blocks(f["about"], model["id"], ["rules-book-about"]), prose
    return prose[:1], prose[1:]


def book_preview(model: dict) -> str:
    """The book link's preview text (plain): what the game is, and what the link opens."""
    from ..language.prose import parse_prose, plain_text
    f = model["front"]
    about = plain_text(parse_prose(f["about"])) if f["about_given"] else f["about"]
    return " ".join(x for x in (about, "The book's page: quick reference and contents.") if x)


def front_nodes(ctx, model: dict) -> list:
    """Where to start, then the quick reference; the page shows the rules it lists (units)."""
    from .front import units_of
    ctx.units.update(units_of(model))
    start = start_line(model)
    return ([start] if start is not None else []) + [quickref_node(ctx, model)]


# ------------------------------------------------------------------ glossary and cross-index fronts
def _anchor(kind: str, letter: str) -> str:
    return f"{kind}-" + ("0-9" if letter == "0–9" else letter.lower())


def front_jump_bar(kind: str, groups: list):
    """The A–Z bar of a front page: each letter jumps to its group on this page."""
    p = nodes.paragraph(classes=["rules-az"])
    p += nodes.inline("Jump to: ", "Jump to: ", classes=["rules-az-label"])
    have = {g["letter"] for g in groups}
    letters = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"] + [x for x in ("0–9", "Other") if x in have]
    for i, letter in enumerate(letters):
        if i:
            p += nodes.Text(" ")
        if letter in have:
            p += nodes.reference(letter, letter, refuri="#" + _anchor(kind, letter), internal=True)
        else:
            p += nodes.inline(letter, letter, classes=["rules-az-empty"])
    return p


def _front(kind: str, groups: list, docname_of, noun: str, term_link) -> list:
    """A glossary's or cross index's front: the jump bar, then per letter a few terms, each
    with its meaning on one line, and a link to every term of that letter."""
    out = [front_jump_bar(kind, groups)]
    for g in groups:
        box = nodes.container(classes=["rules-front-letter"])
        box["ids"].append(_anchor(kind, g["letter"]))
        head = nodes.paragraph(classes=["rules-front-head"])
        head += nodes.strong(g["letter"], g["letter"])
        box += head
        dl = nodes.definition_list(classes=["rules-front-terms"])
        for t in g["terms"]:
            item = nodes.definition_list_item()
            term = nodes.term()
            term += term_link(t)
            item += term
            d = nodes.definition()
            p = nodes.paragraph()
            if t["meaning"]:
                p += nodes.Text(t["meaning"] + " ")
            p += nodes.inline(t["usage"], t["usage"], classes=["rules-front-usage"])
            d += p
            item += d
            dl += item
        box += dl
        more = nodes.paragraph(classes=["rules-front-more"])
        n_terms = g["count"]
        label = f"All {n_terms} {noun}s in {g['letter']} →" if n_terms != 1 else f"The {noun} in {g['letter']} →"
        more += doc_link(docname_of(g["slug"]), label)
        box += more
        out.append(box)
    return out


def glossary_front_nodes(groups: list, docname_of) -> list:
    def link(t):
        x = addnodes.pending_xref("", refdomain="rules", reftype="keyword", reftarget=t["key"], refexplicit=True,
                                  refwarn=False)
        x += nodes.inline(t["label"], t["label"], classes=["rules-keyword"])
        return x
    return _front("glossary", groups, docname_of, "keyword", link)


def xindex_front_nodes(groups: list, docname_of) -> list:
    def link(t):
        x = addnodes.pending_xref("", refdomain="rules", reftype="term", reftarget=t["stem"], refexplicit=True,
                                  refwarn=False)
        x += nodes.inline(t["label"], t["label"])
        return x
    return _front("xindex", groups, docname_of, "term", link)
