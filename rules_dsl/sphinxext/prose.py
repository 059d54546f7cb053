"""Rulebook prose -> docutils nodes: a renderer of the `Doc` that
`rules_dsl.language.prose.parse_prose` makes (the markup itself is defined there).

Text only ever becomes `nodes.Text` (which every writer escapes); nothing from a
rulebook is passed through as HTML or as reStructuredText/Markdown source.
"""
from __future__ import annotations

from docutils import nodes
from sphinx import addnodes

from ..language.prose import BulletList, Paragraph, Ref, Strong, Text, parse_inline, parse_prose


def xref(book: str, target: str, label=None, reftype="ref", classes=()):
    """A pending cross-reference to a rule or section, resolved by the rules domain."""
    full = target if ":" in target else f"{book}:{target}"
    node = addnodes.pending_xref(
        "", refdomain="rules", reftype=reftype, reftarget=full, refexplicit=bool(label), refwarn=True,
    )
    node["rules:book"] = book
    node += nodes.inline(label or full.split(":", 1)[1], label or full.split(":", 1)[1],
                         classes=["xref", "rules", f"rules-{reftype}", *classes])
    return node


def inline_nodes(children, book: str) -> list:
    """Inline prose nodes -> docutils nodes."""
    out = []
    for c in children:
        if isinstance(c, Text):
            out.append(nodes.Text(c.text))
        elif isinstance(c, Ref):
            out.append(xref(book, f"{c.book or book}:{c.rule}", c.label))
        else:
            node = nodes.strong() if isinstance(c, Strong) else nodes.emphasis()   # Emphasis
            node.extend(inline_nodes(c.children, book))
            out.append(node)
    return out


def inline(text: str, book: str) -> list:
    """Inline markup of one paragraph or item -> a list of nodes."""
    return inline_nodes(parse_inline(text), book)


def _paragraph(p: Paragraph, book, classes=()):
    node = nodes.paragraph(classes=list(classes))
    node.extend(inline_nodes(p.children, book))
    return node


def doc_nodes(doc, book: str, classes=()) -> list:
    """A parsed prose `Doc` -> paragraphs and bullet lists."""
    out = []
    for block in doc.blocks:
        if isinstance(block, BulletList):
            blist = nodes.bullet_list(bullet="-", classes=list(classes))
            for item in block.items:
                li = nodes.list_item()
                li += _paragraph(item, book)
                blist += li
            out.append(blist)
        else:
            out.append(_paragraph(block, book, classes))
    return out


def blocks(text: str, book: str, classes=()) -> list:
    """A prose text -> paragraphs and bullet lists."""
    return doc_nodes(parse_prose(text), book, classes)
