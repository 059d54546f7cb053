"""The site's renderers (render_rules.py, render_decls.py, render_pages.py) turn
render models (see data.py) into docutils nodes; this module holds what they share:
`Ctx` (the domain, the page, the units shown) and small node builders.

Everything a rulebook says reaches the page as `nodes.Text` (escaped by the
writers); structure comes from docutils/Sphinx nodes only.
"""
from __future__ import annotations

from docutils import nodes
from sphinx import addnodes


class Ctx:
    """What a render needs: the domain to register objects in, the page, the deps.

    `units` records what the page is made of (site.py: each unit's fingerprint decides
    whether the page is read again): the renderers add the rules, sections and pages they
    show, `book_title` the title of every book whose title the page shows and `book_ids`
    the list of books, as they are read, so a page never depends on less than it read."""

    def __init__(self, env, document, site, no_index=False, location=None):
        self.env, self.document, self.site = env, document, site
        self.domain = env.domains["rules"]
        self.docname = env.docname
        self.no_index = no_index
        self.location = location
        self.units = set()

    def book_title(self, book):
        self.units.add(("title", book, ""))
        m = self.site.summaries.get(book)       # the summary: no other book's model is read for its title
        return m["title"] if m else book

    def book_ids(self) -> list:
        """Every book of the site, in order (a page with a column per book reads the list)."""
        self.units.add(("global", "book-ids", ""))
        return sorted(self.site.summaries)

    def target(self, node, objtype, fullname, title, preview=""):
        """Give `node` its stable anchor and register the object (unless no-index)."""
        if self.no_index:
            self.document.set_id(node)
            return
        node["ids"].append(fullname)
        self.document.set_id(node)
        self.domain.note_object(objtype, fullname, self.docname, fullname, title, preview,
                                location=self.location)


def clean_index(text: str) -> str:
    return " ".join(text.replace(";", ",").split()).lstrip("!")


def index_node(entries):
    node = addnodes.index(entries=[("single", text, anchor, "", None) for text, anchor in entries])
    return node


def text_para(text, classes=()):
    return nodes.paragraph(text, text, classes=list(classes))


def literal(text, classes=()):
    return nodes.literal(text, text, classes=list(classes))


def field(name, body):
    f = nodes.field()
    f += nodes.field_name(name, name)
    fb = nodes.field_body()
    fb += body
    f += fb
    return f


def table_node(headers, rows, classes=(), title=None, widths=None):
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


class fold(nodes.General, nodes.Element):
    """A part of a rule one tap away: `<details class="rules-fold rules-fold-KIND">`
    with a `<summary>` label in HTML (keyboard accessible as it is); its children
    alone in other formats.  `open_wide`: the script opens it on a wide screen
    (`data-open-wide`); on a phone every fold starts closed, so the rule's own
    text is what a player sees first."""


def visit_fold_html(self, node):
    from html import escape
    kind = escape(node["kind"], quote=True)
    wide = " data-open-wide" if node.get("open_wide") else ""
    self.body.append(f'<details class="rules-fold rules-fold-{kind}"{wide}>'
                     f'<summary>{escape(node["summary"])}</summary>\n')


def fold_node(label: str, children, kind: str, open_wide: bool = False) -> fold:
    f = fold(kind=kind, summary=label, open_wide=open_wide)
    f.extend(children)
    return f


def depart_fold_html(self, node):
    self.body.append("</details>\n")


class try_form(nodes.General, nodes.Element):
    """Where a mechanic's form goes (built in the browser by static/rules_try.mjs from the
    book's JavaScript module): `<div class="rules-try" data-book data-mechanic>` in HTML
    (`data-dice` for a mechanic that rolls, whose form shows its exact odds; `data-odds` the
    odds the page holds), nothing in other formats.  The names are attributes, escaped; never code."""


def visit_try_form_html(self, node):
    from html import escape
    odds = node.get("odds") or ""
    odds_attr = f' data-odds="{escape(odds, quote=True)}"' if odds else ""
    dice_attr = " data-dice" if node.get("dice") else ""
    self.body.append(f'<div class="rules-try" data-book="{escape(node["book"], quote=True)}" '
                     f'data-mechanic="{escape(node["mechanic"], quote=True)}"{dice_attr}{odds_attr}></div>\n')
    raise nodes.SkipNode


def visit_try_form_other(self, node):
    raise nodes.SkipNode
