"""One prose pipeline: `rules_dsl.language.prose` parses the markup once and the site, the
terminal and the hover previews render the same tree, so they agree on structure."""
from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings, strategies as st

from rules_dsl.language.prose import (BulletList, Doc, Emphasis, Paragraph, Ref, Strong, Text, parse_inline, parse_prose,
                             parse_ref, plain_text, to_markup)

TRICKY = [
    "*2 * d6*",
    "**a *b* c**",
    "[[x|y *z*]]",
    "unmatched ** here and *there",
    "**see [[x|a**b]]** and *see [[x|a*b]]*",
    "- a\n  - nested b\n    continued\n- c",
    "Intro:\n- one\n- two\n\nNext *para*.",
    "<script>alert(1)</script> **<b>x</b>** [[x|<i>y</i>]]",
    "```{raw} html\n<b>x</b>\n```\n\n.. raw:: html\n\n   <b>y</b>",
    "[[Bad Ref]] and [[book:rule-x]] and [[rule-y]]",
    "*a **b** c* and 3 * 4 * 5 and a*b*c",
    "***a***",
]


# ------------------------------------------------------------------ the tree
def test_tricky_prose_parses_as_documented():
    p = lambda text: parse_prose(text).blocks
    assert p("*2 * d6*") == (Paragraph((Emphasis((Text("2 * d6"),)),)),)
    assert p("**a *b* c**") == (Paragraph((Strong((Text("a "), Emphasis((Text("b"),)), Text(" c"))),)),)
    assert p("[[x|y *z*]]") == (Paragraph((Ref(None, "x", "y *z*", "[[x|y *z*]]"),)),)
    assert p("a ** b") == (Paragraph((Text("a ** b"),)),)
    assert p("- a\n  - b\n  more\n- c") == (BulletList(tuple(Paragraph((Text(t),)) for t in ("a", "b more", "c")),
                                                      False),)
    intro = p("Intro:\n- one\n\n- two")
    assert [type(b) for b in intro] == [Paragraph, BulletList, BulletList]
    assert intro[1].follows_text and not intro[2].follows_text
    assert p("<script>x</script>") == (Paragraph((Text("<script>x</script>"),)),)
    assert p("[[Bad Ref]]") == (Paragraph((Text("[[Bad Ref]]"),)),)
    assert parse_ref("void:spomm|the S.P.O.M.M.") == ("void", "spomm", "the S.P.O.M.M.")
    assert parse_ref("Not An Id") is None


def test_nodes_are_frozen_and_compare_by_kind():
    t = Text("a")
    with pytest.raises(AttributeError):
        t.text = "b"
    assert Strong((t,)) != Emphasis((t,)) and Strong((t,)) == Strong((Text("a"),))
    assert len({Strong((t,)), Strong((Text("a"),))}) == 1


# ------------------------------------------------------------------ renderers agree
ANSI = re.compile(r"\x1b\[([0-9;]*)m(.*?)\x1b\[0m", re.S)
CODES = {"1": "strong", "3": "emphasis", "36": "ref"}
BULLET = "\x00bullet"


def _chars(text, styles):
    """Text -> its non-space characters with their styles; runs of spaces as one ' '."""
    out = []
    for c in text:
        out.append(" " if c.isspace() else (c, frozenset(styles)))
    return out


def _norm(items):
    out = []
    for x in items:
        if x == " " and (not out or out[-1] == " "):
            continue
        out.append(x)
    while out and out[-1] == " ":
        out.pop()
    return out


def site_structure(text, first_only=False):
    from docutils import nodes
    from sphinx import addnodes

    from rules_dsl.sphinxext.prose import doc_nodes

    out = []

    def walk(node, styles):
        if isinstance(node, nodes.Text):
            out.extend(_chars(str(node), styles))
            return
        if isinstance(node, nodes.raw):
            raise AssertionError("raw node from prose")
        if isinstance(node, nodes.strong):
            styles = styles | {"strong"}
        elif isinstance(node, nodes.emphasis):
            styles = styles | {"emphasis"}
        elif isinstance(node, addnodes.pending_xref):
            styles = styles | {"ref"}
        elif isinstance(node, nodes.list_item):
            out.extend([" ", BULLET, " "])
        elif isinstance(node, nodes.paragraph):
            out.append(" ")
        for child in node.children:
            walk(child, styles)

    doc = parse_prose(text)
    if first_only:
        doc = Doc(_first_chunk(doc))
    for b in doc_nodes(doc, "bk"):
        walk(b, frozenset())
    return _norm(out)


def terminal_structure(text):
    from rules_dsl.faces.terminal_prose import Out, prose_lines
    out = Out(color=True, width=10**6)
    items = []
    for line in prose_lines(text, out, title_of=lambda book, rule: rule, width=10**6):
        line = line.lstrip(" ")
        if line.startswith(out.bullet + " ") or line == out.bullet:
            items.extend([" ", BULLET, " "])
            line = line[len(out.bullet):]
        pos = 0
        for m in ANSI.finditer(line):
            items.extend(_chars(line[pos:m.start()], ()))
            items.extend(_chars(m.group(2), {CODES[c] for c in m.group(1).split(";")}))
            pos = m.end()
        items.extend(_chars(line[pos:], ()))
        items.append(" ")
    return _norm(items)


def hover_words(text):
    from rules_dsl.sphinxext.data import summary_of
    return summary_of([text], lambda book, rule: rule).split()


def _words(structure):
    text = "".join(" " if x == " " else ("" if x == BULLET else x[0]) for x in structure)
    return text.split()


@pytest.mark.parametrize("text", TRICKY)
def test_site_terminal_and_hover_agree(text):
    site = site_structure(text)
    assert terminal_structure(text) == site
    assert hover_words(text) == _words(site_structure(text, first_only=True))


def _first_chunk(doc):
    blocks = doc.blocks[:1]
    if len(doc.blocks) > 1 and isinstance(doc.blocks[1], BulletList) and doc.blocks[1].follows_text:
        blocks = doc.blocks[:2]
    return blocks


def test_agreed_rendering_of_the_tricky_cases():
    s = site_structure("*2 * d6*")
    assert s == [("2", {"emphasis"}), " ", ("*", {"emphasis"}), " ", ("d", {"emphasis"}), ("6", {"emphasis"})]
    label = [x for x in site_structure("[[x|y *z*]]") if x != " "]
    assert "".join(c for c, _ in label) == "y*z*" and all(st == {"ref"} for _, st in label)
    assert hover_words("[[x|y *z*]]") == ["y", "*z*"]
    assert [x[0] for x in site_structure("**a *b* c**") if x[1:] == ({"strong", "emphasis"},)] == ["b"]


# pieces of markup, joined: stars, brackets, refs, bullets, blank lines
MARKUP = st.lists(st.sampled_from(list("ab *-[]|:\n\t<>") + ["**", "[[", "]]", "- ", "\n\n", "[[x]]", "x|",
                                                                "[[b:x|y]]"]),
                  max_size=40).map("".join)


@settings(max_examples=300, deadline=None)
@given(MARKUP)
@example("a[[x| [[x]]")          # a label's leading space: the site kept it, the terminal did not
def test_renderers_agree_on_any_text(text):
    site = site_structure(text)
    assert terminal_structure(text) == site
    assert plain_text(parse_prose(text), lambda book, rule: rule).split() == _words(site)


# ------------------------------------------------------------------ properties of the parser
def _non_space(s: str) -> str:
    return "".join(s.split())


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=200) | MARKUP)
def test_parse_prose_never_raises_and_keeps_every_character(text):
    doc = parse_prose(text)
    assert _non_space(to_markup(doc)) == _non_space(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_characters="*[]"), max_size=100))
def test_text_without_markup_is_one_text(text):
    nodes = parse_inline(text)
    assert nodes == ((Text(text),) if text else ())
