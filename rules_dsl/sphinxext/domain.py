"""The `rules` Sphinx domain: books, sections, rules, mechanics and tables as objects.

Every object has a stable anchor, `book:id` (`null-strike:opposed-stat-rolls`,
`null-strike:opposed_target`), and is written to objects.inv, so other Sphinx
projects can link to rules through intersphinx.  Roles:

    {rules:rule}`null-strike:opposed-stat-rolls`   a rule (or a section)
    {rules:section}`null-strike:the-basics`        a section
    {rules:mechanic}`null-strike:opposed_target`   a mechanic or a table
    {rules:book}`null-strike`                      a book

Inside a book's pages the book may be left out (`{rules:rule}`dice``).
Resolved links carry the target's title and book as their `title` attribute; a
small script turns that into a hover preview, with the target's first paragraph
loaded from its book's previews file (previews.py) when the link is first used.

Only plain data (str, tuples, dicts) is stored, so the environment pickles
and parallel reads merge (`merge_domaindata`).
"""
from __future__ import annotations

from docutils import nodes
from sphinx import addnodes
from sphinx.domains import Domain, ObjType
from sphinx.roles import XRefRole
from sphinx.util import logging
from sphinx.util.nodes import make_refnode

logger = logging.getLogger(__name__)

# role name -> object types it may resolve to, in order
_ROLE_TYPES = {
    "rule": ("rule", "section"),
    "ref": ("rule", "section"),
    "section": ("section", "rule"),
    "mechanic": ("mechanic", "table"),
    "table": ("table", "mechanic"),
    "book": ("book",),
    "keyword": ("keyword",),
    "term": ("term",),
}


class RulesXRefRole(XRefRole):
    """Records the current book so that `{rules:rule}`id`` works inside a book's pages."""

    def process_link(self, env, refnode, has_explicit_title, title, target):
        book = env.ref_context.get("rules:book")
        if book:
            refnode["rules:book"] = book
        target = target.strip()
        if not has_explicit_title and ":" in title and self.reftype != "book":
            title = title.split(":", 1)[1]
        return title, target


class RulesDomain(Domain):
    name = "rules"
    label = "Rulebooks"
    object_types = {
        "book": ObjType("book", "book"),
        "section": ObjType("section", "section", "rule", "ref"),
        "rule": ObjType("rule", "rule", "ref"),
        "mechanic": ObjType("mechanic", "mechanic"),
        "table": ObjType("table", "table", "mechanic"),
    }
    roles = {
        "rule": RulesXRefRole(innernodeclass=nodes.inline, warn_dangling=True),
        "ref": RulesXRefRole(innernodeclass=nodes.inline, warn_dangling=True),
        "section": RulesXRefRole(innernodeclass=nodes.inline, warn_dangling=True),
        "mechanic": RulesXRefRole(innernodeclass=nodes.literal, warn_dangling=True),
        "table": RulesXRefRole(innernodeclass=nodes.literal, warn_dangling=True),
        "book": RulesXRefRole(innernodeclass=nodes.inline, warn_dangling=True),
        "keyword": RulesXRefRole(innernodeclass=nodes.inline),
        "term": RulesXRefRole(innernodeclass=nodes.inline),
    }
    dangling_warnings = {
        "rule": "unknown rule or section %(target)r",
        "ref": "unknown rule or section %(target)r",
        "section": "unknown section %(target)r",
        "mechanic": "unknown mechanic or table %(target)r",
        "table": "unknown table or mechanic %(target)r",
        "book": "unknown book %(target)r",
    }
    initial_data = {
        # (objtype, fullname) -> (docname, anchor, title, preview)
        "objects": {},
        # keyword (lower case) -> (docname, anchor) of its glossary entry
        "keywords": {},
        # stem -> (docname, anchor) of its cross-index entry (the cross index's front links there)
        "terms": {},
        # docname -> tuple of fullnames the page links to (to refresh previews)
        "refs": {},
        # docname -> (units the page shows, their fingerprint when it was read): site.Site.depend
        "units": {},
    }
    data_version = 4

    # -------------------------------------------------------------- recording
    @property
    def objects(self) -> dict:
        return self.data.setdefault("objects", {})

    def note_object(self, objtype, fullname, docname, anchor, title, preview="", location=None):
        key = (objtype, fullname)
        if key in self.objects and self.objects[key][0] != docname:
            other = self.objects[key][0]
            logger.warning("duplicate %s %s, also described in %s (use :no-index: on one of them)",
                           objtype, fullname, other, location=location, type="rules", subtype="duplicate")
        self.objects[key] = (docname, anchor, title, preview)

    def note_keyword(self, key, docname, anchor):
        self.data.setdefault("keywords", {})[key] = (docname, anchor)

    def note_term(self, stem, docname, anchor):
        self.data.setdefault("terms", {})[stem] = (docname, anchor)

    def note_refs(self, docname, targets):
        if targets:
            self.data.setdefault("refs", {})[docname] = tuple(sorted(set(targets)))
        else:
            self.data.setdefault("refs", {}).pop(docname, None)

    def page_units(self, docname) -> tuple:
        return self.data.setdefault("units", {}).get(docname, ((), None))[0]

    def note_units(self, docname, units: tuple, fingerprint: str):
        self.data.setdefault("units", {})[docname] = (units, fingerprint)

    def clear_doc(self, docname: str) -> None:
        for key, value in list(self.objects.items()):
            if value[0] == docname:
                del self.objects[key]
        for kind in ("keywords", "terms"):
            kws = self.data.setdefault(kind, {})
            for key, value in list(kws.items()):
                if value[0] == docname:
                    del kws[key]
        self.data.setdefault("refs", {}).pop(docname, None)
        self.data.setdefault("units", {}).pop(docname, None)

    def merge_domaindata(self, docnames, otherdata: dict) -> None:
        for key, value in otherdata.get("objects", {}).items():
            if value[0] in docnames:
                self.objects[key] = value
        for kind in ("keywords", "terms"):
            for key, value in otherdata.get(kind, {}).items():
                if value[0] in docnames:
                    self.data.setdefault(kind, {})[key] = value
        for docname, targets in otherdata.get("refs", {}).items():
            if docname in docnames:
                self.data.setdefault("refs", {})[docname] = targets
        for docname, value in otherdata.get("units", {}).items():
            if docname in docnames:
                self.data.setdefault("units", {})[docname] = value

    # -------------------------------------------------------------- lookups
    def find(self, typ: str, target: str, node=None):
        """(objtype, fullname, entry) for a role's target, or None."""
        target = target.strip()
        if typ == "keyword":
            entry = self.data.get("keywords", {}).get(" ".join(target.lower().split()))
            return ("keyword", target, entry + (target, "")) if entry else None
        if typ == "term":
            entry = self.data.get("terms", {}).get(target)
            return ("keyword", target, entry + (target, "")) if entry else None
        if ":" not in target and typ != "book":
            book = node.get("rules:book") if node is not None else None
            if not book:
                return None
            target = f"{book}:{target}"
        for objtype in _ROLE_TYPES.get(typ, ()):
            entry = self.objects.get((objtype, target))
            if entry is not None:
                return objtype, target, entry
        return None

    def _refnode(self, builder, fromdocname, found, node, contnode):
        objtype, fullname, (docname, anchor, title, preview) = found
        if objtype == "keyword":
            return make_refnode(builder, fromdocname, docname, anchor, contnode)
        if not node.get("refexplicit") and title:
            cls = contnode.__class__
            contnode = cls(title, title, classes=list(contnode.get("classes", [])))
        book_title = ""
        if objtype != "book":
            bentry = self.objects.get(("book", fullname.split(":", 1)[0]))
            book_title = bentry[2] if bentry else fullname.split(":", 1)[0]
        # the title and the book only: the preview's text is loaded per book when the link is
        # first used (previews.py), so a page need not change when a rule's text does
        # (no EM SPACE in it: rules_dsl.js reads one as an older page's "title EM SPACE text")
        head = (f"{title} — {book_title}" if book_title else title).replace("\u2003", " ")
        ref = make_refnode(builder, fromdocname, docname, anchor, contnode, head)
        ref["classes"] += ["rules-ref", f"rules-ref-{objtype}"]     # the kind: a preview says what a tap opens
        return ref

    def resolve_xref(self, env, fromdocname, builder, typ, target, node, contnode):
        found = self.find(typ, target, node)
        if found is None:
            if typ in ("keyword", "term"):
                return contnode   # no glossary page in this project: plain text, no warning
            return None
        return self._refnode(builder, fromdocname, found, node, contnode)

    def resolve_any_xref(self, env, fromdocname, builder, target, node, contnode):
        results = []
        for typ, role in (("rule", "rule"), ("mechanic", "mechanic"), ("book", "book")):
            found = self.find(typ, target, node)
            if found is not None:
                results.append((f"rules:{role}", self._refnode(builder, fromdocname, found, node, contnode)))
        return results

    def get_objects(self):
        # The display name is the full name: Sphinx's search page builds an object's
        # link from its display name when the anchor equals the full name (ours always
        # does: the anchor *is* `book:id`).  Titles are found through the page titles.
        prio = {"book": 1, "rule": 1, "mechanic": 1, "table": 1, "section": 2}
        for (objtype, fullname), (docname, anchor, _title, _preview) in sorted(self.objects.items()):
            yield fullname, fullname, objtype, docname, anchor, prio.get(objtype, 1)

    def get_full_qualified_name(self, node):
        target = node.get("reftarget")
        if target and ":" not in target and node.get("rules:book"):
            return f"{node['rules:book']}:{target}"
        return target


def collect_refs(app, doctree):
    """doctree-read: remember which rules a page links to (for preview refreshes)."""
    targets = []
    for node in doctree.findall(addnodes.pending_xref):
        if node.get("refdomain") == "rules" and node.get("reftype") not in ("keyword", "term"):
            target = node.get("reftarget", "")
            if ":" not in target and node.get("rules:book"):
                target = f"{node['rules:book']}:{target}"
            targets.append(target)
    app.env.domains["rules"].note_refs(app.env.docname, targets)
