"""Rulebook prose mini-markup -> docutils nodes.

The markup is the rules language's own: paragraphs separated by blank lines,
`- ` bullet items, `**bold**`, `*italic*` and `[[rule-id]]`,
`[[book:rule-id]]`, `[[rule-id|shown text]]` cross-references.  Text only ever
becomes `nodes.Text` (which every writer escapes); nothing from a rulebook is
passed through as HTML or as reStructuredText/Markdown source.
"""
from __future__ import annotations

import re

from docutils import nodes
from sphinx import addnodes

from .data import parse_ref

_INLINE = re.compile(
    r"\[\[(?P<ref>.*?)\]\]"
    r"|\*\*(?P<bold>.+?)\*\*"
    r"|(?<![*\w])\*(?P<italic>(?!\s)[^*]+?(?<!\s))\*(?![*\w])",
    re.S,
)


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


def inline(text: str, book: str) -> list:
    """Inline markup of one paragraph or item -> a list of nodes."""
    out = []
    pos = 0
    for m in _INLINE.finditer(text):
        if m.start() > pos:
            out.append(nodes.Text(text[pos:m.start()]))
        if m.group("ref") is not None:
            parsed = parse_ref(m.group("ref"))
            if parsed is None:
                out.append(nodes.Text(m.group(0)))
            else:
                rbook, rule, label = parsed
                out.append(xref(book, f"{rbook or book}:{rule}", label))
        elif m.group("bold") is not None:
            node = nodes.strong()
            node.extend(inline(m.group("bold"), book))
            out.append(node)
        else:
            node = nodes.emphasis()
            node.extend(inline(m.group("italic"), book))
            out.append(node)
        pos = m.end()
    if pos < len(text):
        out.append(nodes.Text(text[pos:]))
    return out


def _paragraph(lines, book, classes=()):
    text = " ".join(line.strip() for line in lines)
    p = nodes.paragraph(classes=list(classes))
    p.extend(inline(text, book))
    return p


def blocks(text: str, book: str, classes=()) -> list:
    """A prose text -> paragraphs and bullet lists."""
    out = []
    for para in re.split(r"\n[ \t]*\n", text.strip("\n")):
        if not para.strip():
            continue
        lines, items = [], []
        blist = None

        def flush_text():
            if lines:
                out.append(_paragraph(lines, book, classes))
                lines.clear()

        def flush_items():
            nonlocal blist
            if items:
                blist = nodes.bullet_list(bullet="-", classes=list(classes))
                for it in items:
                    li = nodes.list_item()
                    li += _paragraph(it, book)
                    blist += li
                out.append(blist)
                items.clear()

        for line in para.split("\n"):
            s = line.strip()
            if s.startswith("- ") or s == "-":
                flush_text()
                items.append([s[2:]])
            elif items:
                items[-1].append(s)   # a continuation line of the last item
            else:
                lines.append(s)
        flush_text()
        flush_items()
    return out
