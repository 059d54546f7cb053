"""A rule -> docutils nodes: title, index entries, the reference line, prose,
flavour, notes, findings and worked examples (declarations: render_decls.py)."""
from __future__ import annotations

import re

from docutils import nodes
from sphinx import addnodes

from .firstpaint import copy_link
from .prose import blocks, xref
from .render_decls import decl_nodes
from .rendering import Ctx, clean_index, fold_node, index_node, literal, text_para

NOTE_TITLES = {
    "clarification": "Clarification",
    "interpretation": "Interpretation",
    "erratum": "Erratum",
    "absent": "Absent in the source",
}


NOTE_CLASSES = {
    "clarification": "note",
    "interpretation": "tip",
    "erratum": "warning",
    "absent": "rules-absent-note",
}


def rule_node(ctx: Ctx, r: dict) -> nodes.section:
    """A rule, phone first: its title, one line of facts, its own prose, then the
    links (keywords, terms used, referenced by) and, each one tap away (a fold),
    its notes, data tables, mechanics (their exact odds folded once more) and
    worked examples.  On a wide screen the tables and mechanics start open."""
    book, anchor = r["book"], f"{r['book']}:{r['id']}"
    ctx.units.add(("rule", book, r["id"]))
    sec = nodes.section(classes=["rules-rule"])
    sec += nodes.title(r["title"], r["title"])
    ctx.target(sec, "rule", anchor, r["title"], r["summary"])
    if not ctx.no_index:
        bt = ctx.book_title(book)
        entries = [(f"{clean_index(r['title'])} ({bt})", anchor), (f"{clean_index(bt)}; {clean_index(r['title'])}", anchor)]
        entries += [(f"{clean_index(kw)}; {clean_index(r['title'])} ({bt})", anchor) for kw in r["keywords"]]
        entries += [(f"{clean_index(a)} ({bt}, see {clean_index(r['title'])})", anchor) for a in r["aliases"]]
        sec += index_node(entries)
    sec += meta_line(ctx, r)
    if r.get("changed_by"):          # a layered book's rule: which layer changed it, the base text a tap away
        from .changes import rule_marks
        sec.extend(rule_marks(ctx, r))
    body = nodes.container(classes=["rules-rule-text"])
    for text in r["prose"]:
        body.extend(blocks(text, book))
    for text in r["flavour"]:
        quote = nodes.block_quote(classes=["rules-flavour"])
        quote.extend(blocks(text, book))
        body += quote
    sec += body
    links = links_line(ctx, r)
    if links is not None:
        sec += links
    folds = nodes.container(classes=["rules-folds"])     # closed: a row of chips; open: full width
    notes = [note_node(kind, text, book) for kind, text in r["notes"]] + [finding_node(f, r.get("transcribes", True)) for f in r["findings"]]
    if notes:
        label = " · ".join(x for x in (_counted("Note", len(r["notes"])) if r["notes"] else "",
                                        _counted("Finding", len(r["findings"])) if r["findings"] else "") if x)
        folds += fold_node(label, notes, "notes")      # a tap away on every screen: often about our sources
    tables = [d for d in r["decls"] if d["kind"] == "table"]
    if tables:
        folds += fold_node(_counted("Table", len(tables)), [x for d in tables for x in decl_nodes(ctx, d, book)], "tables",
                    open_wide=True)
    # the rule's mechanics, as the questions a player asks, each with its form: in view, not
    # folded (a form is built only when it nears the screen, so the page stays light)
    mechanics = [d for d in r["decls"] if d["kind"] == "mechanic"]
    if mechanics:
        asks = nodes.container(classes=["rules-asks"])
        for d in mechanics:
            asks.extend(decl_nodes(ctx, d, book))
        sec += asks
    code = [d for d in r["decls"] if d["kind"] not in ("table", "mechanic")]
    if code:
        folds += fold_node("Definitions", [x for d in code for x in decl_nodes(ctx, d, book)], "definitions")
    if r["examples"]:
        cases = r.get("cases") or [None] * len(r["examples"])
        ex = []
        for i, ((title, text), said) in enumerate(zip(r["examples"], cases)):
            ex.extend(example_nodes(title, text, i, len(r["examples"]), said))
        folds += fold_node(_counted("Worked example", len(r["examples"])), ex, "examples")
    if len(folds):
        sec += folds
    return sec


def _counted(word: str, count: int) -> str:
    """A fold's label: "Note", "Notes (3)"."""
    return f"{word}s ({count})" if count != 1 else word


def links_line(ctx, r):
    """Keywords, the terms the rule uses and the rules referring to it: after its prose."""
    parts = []
    book = r["book"]
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
                s += xref(book, definer, name)
            elif definer:
                s += nodes.inline(name, name, classes=["rules-use"])
            else:
                s += nodes.inline(name + " (not defined)", name + " (not defined)", classes=["rules-use-undefined"])
        parts.append(s)
    back = getattr(ctx.site, "backlinks", {}).get((book, r["id"]), [])
    if back:
        s = nodes.inline(classes=["rules-meta-item", "rules-meta-backlinks"])
        s += nodes.Text("Referenced by: ")
        for i, (b, rid, title) in enumerate(back):
            if i:
                s += nodes.Text(", ")
            label = title if b == book else f"{title} ({ctx.book_title(b)})"
            s += xref(book, f"{b}:{rid}", label)
        parts.append(s)
    if not parts:
        return None
    p = nodes.paragraph(classes=["rules-meta", "rules-links"])
    for i, part in enumerate(parts):
        if i:
            p += nodes.inline(" · ", " · ", classes=["rules-meta-sep"])
        p += part
    return p


def meta_line(ctx, r):
    p = nodes.paragraph(classes=["rules-meta"])
    p += copy_link(anchor=f"{r['book']}:{r['id']}", title=r["title"])     # in the HTML: nothing moves (firstpaint.py)
    parts = []
    ref = nodes.inline(classes=["rules-meta-item", "rules-meta-ref"])
    ref += nodes.Text("Reference ")
    ref += literal(f"{r['book']}:{r['id']}")
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


def _cases_list(cases, most=12, words=False):
    """A finding's failing cases as a bullet list (the first `most`): sentences in words, or
    literals when the finding has no sentences."""
    lst = nodes.bullet_list(classes=["rules-finding-cases"])
    for case in cases[:most]:
        li = nodes.list_item()
        li += nodes.paragraph(case, case) if words else nodes.paragraph("", "", literal(case))
        lst += li
    return lst


def finding_node(f, transcribes: bool = True):
    """A finding for players: what it is (a disagreement, a gap, a consequence of another
    finding: library/findings.py), in sentences ("Heavy power armor: printed 118 gc; the
    book's own formula gives 82 gc"); the check's name and the printed entry's address for
    designers, a tap away.  `transcribes`: the book restates a published source (its
    header's `source` line), so its findings are facts about that source."""
    from ..library.findings import category_of, heading, standing
    category = f.get("category") or category_of(f["kind"], None)
    adm = nodes.admonition(classes=["rules-finding", f"rules-finding-{f['kind']}",
                                    f"rules-finding-is-{category}", "caution"])
    title = heading(f["kind"], category)
    adm += nodes.title(title, title)
    if f.get("cause"):
        adm += text_para(f"It follows from another finding, of the check \u201c{f.get('cause_doc') or f['cause']}\u201d: "
                         "once that one is put right, this one may go too.")
    m = _FAILS.match(f["message"])
    said = f.get("sentences") or []
    cases = said or f["cases"]
    if f["kind"] == "disagreement" and f.get("printed"):
        # one printed value, shown on the rule that prints it
        p = nodes.paragraph(classes=["rules-finding-printed"])
        where = " (source line {})".format(f["line"]) if f.get("line") else ""
        p += nodes.Text(f"A printed entry{where} names or prices something the book never defines:" if category == "gap"
                        else f"A printed entry{where} disagrees with the book's own rule:")
        adm += p
        adm += _cases_list(cases, words=bool(said))
    elif m and f["cases"]:
        head = m.group("head")
        doc, _, counts = head.rpartition(": fails in ")
        adm += text_para(f"{doc}: not so in {counts}:" if doc else head + ":")
        adm += _cases_list(cases, words=bool(said))
        if len(cases) > 12:
            adm += text_para(f"… and {len(cases) - 12} more.")
    else:
        adm += text_para(f["message"])
    p = nodes.paragraph(classes=["rules-finding-check"])
    p += nodes.Text(standing(category, transcribes))
    adm += p
    designer = []
    if f.get("printed"):
        designer.append(nodes.paragraph("", "", nodes.Text("Printed entry "), literal(f["printed"])))
    if f.get("check"):
        designer.append(nodes.paragraph("", "", nodes.Text("Check "), literal(f["check"])))
    if f.get("cause"):
        designer.append(nodes.paragraph("", "", nodes.Text("Follows from check "), literal(f["cause"])))
    if said and f["cases"]:
        designer.append(_cases_list(f["cases"]))
    if designer:
        from .render_decls import designer_fold
        adm += designer_fold(designer)
    return adm


class working(nodes.General, nodes.Element):
    """A "show working" fold: `<details>` in HTML (fixed tags; its children are
    ordinary escaped nodes), its children alone in other formats."""


WORKING_SUMMARY = "show working"


def visit_working_html(self, node):
    self.body.append('<details class="rules-working"><summary>' + WORKING_SUMMARY + "</summary>\n")


def depart_working_html(self, node):
    self.body.append("</details>\n")


def visit_working_other(self, node):
    pass


def depart_working_other(self, node):
    pass


def working_node(lines, code: str = "") -> working:
    """A worked solution, phone first: a paragraph per step, indented by its depth
    (`rules-depth-N`), that wraps (no sideways scroll, no cut words); notes and answers
    marked by their kind.  The `>>>` line it works out closes it, for designers."""
    fold = working(classes=["rules-working"])
    box = nodes.container(classes=["rules-working-text"])
    for depth, kind, text in lines:
        box += nodes.paragraph(text, text, classes=["rules-work", f"rules-work-{kind}", f"rules-depth-{min(depth, 8)}"])
    fold += box
    if code:
        fold += nodes.doctest_block(code, code, classes=["rules-example"])
    return fold


def example_nodes(title, text, index, count, cases=None):
    """The example's title, then each of its `>>>` lines as a sentence in words with a
    "show working" fold under it (the worked solution, then the `>>>` line itself).
    Without `cases` (an older model), the text in doctest blocks."""
    label = "Example" + (f" {index + 1}" if count > 1 and not title else "")
    rub = nodes.rubric(classes=["rules-example-title"])
    rub += nodes.Text(f"{label}: {title}" if title else label)
    rub += nodes.inline(" checked at build time", " checked at build time", classes=["rules-checked"])
    out = [rub]
    if cases is None:
        code = text.rstrip("\n").strip("\n")
        out.append(nodes.doctest_block(code, code, classes=["rules-example"]))
        return out
    for case in cases:
        if case["sentence"]:
            out.append(text_para(case["sentence"], ["rules-example-sentence"]))
        if case["code"]:
            out.append(working_node(case["working"], case["code"]))
    return out
