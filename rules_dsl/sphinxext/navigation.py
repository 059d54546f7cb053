"""The theme's sidebar tree, worked out once per build instead of once per page.

Why: furo puts the whole site's navigation into every page's sidebar.  It asks the
page context's ``toctree(collapse=False, titles_only=True, maxdepth=-1,
includehidden=True)`` and Sphinx answers by resolving the root document's toctrees
again for that page: it deep-copies the table of contents of every document of the
library (every rule section of every page), only to prune it back to page titles.
That took about a second per page written at a dozen books, growing with the library,
so "rebuild after editing one rule" would cost seconds per page at a hundred books.

Here the same tree is built once per build and process (lazily, at the first page a
process writes; never stored in the environment, so nothing is pickled and the forked
writers of ``-j auto`` each build or inherit their own) as a small structure of
entries: the root document's toctree nodes (captions, hidden and ``maxdepth``
options), each page's title as its table of contents (``env.tocs``) holds it and the
toctrees nested in it, which are what ``env.toctree_includes`` records.  Each page
then gets its own HTML from that structure: the page's entry and its ancestors marked
``current`` as Sphinx marks them, the page's own link ``#``, every link relative to the
page (``builder.get_relative_uri``).  The links' inner HTML and the captions are
rendered once by Sphinx's own HTML translator, the rest is the translator's markup for
a toctree, so the HTML is byte-identical to Sphinx's (tests/test_site_navigation.py
compares the two on a built site, page by page).

What this does not model makes it step aside, and Sphinx answers as before (warning as
before, where it warns): numbered toctrees, ``only`` directives or ``self`` entries in
the navigation, a page's ``tocdepth``, a missing, untitled or circularly included page,
a toctree that lists nothing under a page, ``mailto:`` links.  Any other ``toctree()``
call (another theme's, other options) is Sphinx's too: see ``handles``.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from docutils import nodes
from sphinx import addnodes
from sphinx.util import logging, url_re

from . import buildstate, compat

logger = logging.getLogger(__name__)

#: the toctree() options furo asks for (maxdepth aside): the only call answered here
_OPTIONS = {"collapse": False, "titles_only": True, "includehidden": True}
_SLOT = "navigation"          # build state: (env id, Navigation or None), one build, one process
_TOKEN = "rules-nav-title-"
_WHITESPACE = re.compile("[\n\r\t\v\f]")
_SPECIAL = {ord("&"): "&amp;", ord("<"): "&lt;", ord('"'): "&quot;", ord(">"): "&gt;", ord("@"): "&#64;"}


@functools.lru_cache(maxsize=1)
def virtual_docs() -> frozenset | None:
    """The pages a toctree may list that are no documents (genindex, search...:
    `compat.virtual_doc_names`); None when Sphinx no longer says (the sidebar is then
    left to Sphinx, with a warning: see `current`)."""
    try:
        return frozenset(doc for doc, _title in compat.virtual_doc_names().values())
    except compat.CompatError:
        return None


class _Unsupported(Exception):
    """Something in the navigation this module does not model: Sphinx answers instead."""


@dataclass(slots=True)
class _Entry:
    refuri: str               # a docname, or a URL when external
    anchor: str               # '' for a page's title; '#id' for a page's later top-level sections
    external: bool            # a URL entry: its href is left as written
    index: int                # position in Navigation.entries
    inner: str = ""           # the link's inner HTML, as Sphinx's translator renders it
    children: list = field(default_factory=list)    # the entries nested under this one


@dataclass(slots=True)
class _Block:
    """One toctree of the root document: its caption and its entries."""
    caption: str              # rendered caption ('' when none)
    entries: list
    maxdepth: int             # the toctree's own :maxdepth: (used when the call passes 0)


def handles(kwargs: dict) -> bool:
    """Is this toctree() call the sidebar's (the options furo passes, any int maxdepth)?"""
    depth = kwargs.get("maxdepth")
    return (set(kwargs) == {*_OPTIONS, "maxdepth"} and all(kwargs[k] is v for k, v in _OPTIONS.items())
            and isinstance(depth, int) and not isinstance(depth, bool))


def reset(app, env=None) -> None:
    """env-updated: the navigation may have changed; the next page builds it again."""
    buildstate.of(app).pop(_SLOT, None)


def sidebar(app, pagename: str, maxdepth: int) -> str | None:
    """The sidebar toctree's HTML for a page, or None when Sphinx must answer."""
    nav = current(app)
    limit = getattr(app.config, "rules_nav_links", 0)
    return None if nav is None else nav.render(app.builder, pagename, maxdepth, limit)


def current(app) -> Navigation | None:
    """This build's navigation in this process, built at the first call (or taken from
    the last build's, when no page's part of it changed: `_kept`)."""
    env = app.env
    state = buildstate.of(app)
    cached = state.get(_SLOT)
    if cached is None or cached[0] != id(env):
        nav = _kept(app)
        if nav is not None:
            logger.verbose("rules_dsl: the sidebar's navigation kept from the last build")
        else:
            try:
                nav = Navigation.build(env, app.builder)
                _keep(app, nav)
                logger.verbose("rules_dsl: the sidebar's navigation worked out")
            except _Unsupported as why:
                logger.info("rules_dsl: the sidebar is left to Sphinx (%s)", why)
                nav = None
            except compat.CompatError as why:
                compat.broken("virtual_doc_names", str(why), "the sidebar is left to Sphinx (slower)")
                nav = None
        cached = state[_SLOT] = (id(env), nav)
    return cached[1]


# ------------------------------------------------------------------ kept between builds
#: the last build's navigation, in the doctree folder
STORE = "rules_dsl-nav.pickle"


def _base_key(app) -> str:
    """What every entry's rendering depends on besides the pages: the builder and its
    configuration, this code, and when the root document was read."""
    from .keys import digest, render_key
    env = app.env
    return digest((app.builder.name, *compat.build_info_hashes(app),
                   render_key(), env.config.root_doc, env.all_docs.get(env.config.root_doc)))


def signature(env, docname: str) -> str:
    """What a page gives the navigation: the top level of its table of contents (each
    entry's link as the environment holds it, and every toctree under it) and its
    tocdepth.  Its rule sections, deeper down, are not in the sidebar."""
    parts = [env.metadata.get(docname, {}).get("tocdepth", 0)]
    toc = env.tocs.get(docname)
    for top in (toc.children if toc is not None else ()):
        if isinstance(top, addnodes.toctree):
            parts.append(repr(sorted(top.attributes.items())))
            continue
        parts.append(str(top[0]) if len(top) else "")
        for node in top.findall(lambda n: isinstance(n, addnodes.toctree | addnodes.only)):
            parts.append(repr(sorted(node.attributes.items())))
    return repr(parts)


def _kept(app):
    """The last build's navigation when it stands: same builder, configuration, code and
    root document, the same pages, and every page read since then gives the same
    `signature`.  (A rebuild after editing one rule reads one page: its signature is
    compared, the navigation is not built again.)  None otherwise."""
    import os

    from ..paths import read_pickle
    path = os.path.join(app.doctreedir, STORE)
    try:
        kept = read_pickle(path)
        if kept["base"] != _base_key(app):
            return None
    except Exception:
        return None
    env = app.env
    reads = kept["reads"]
    if reads.keys() != env.all_docs.keys():
        return None
    moved = [doc for doc, t in env.all_docs.items() if reads[doc] != t]
    for doc in moved:
        if signature(env, doc) != kept["sigs"].get(doc):
            return None
    if moved:
        _save(app, kept["nav"], kept["sigs"])
    return kept["nav"]


def _keep(app, nav) -> None:
    env = app.env
    _save(app, nav, {doc: signature(env, doc) for doc in env.all_docs})


def _save(app, nav, sigs) -> None:
    import os

    from ..paths import write_pickle
    write_pickle(os.path.join(app.doctreedir, STORE),
                 {"base": _base_key(app), "reads": dict(app.env.all_docs), "sigs": sigs, "nav": nav})


def _attval(text: str) -> str:
    """An attribute value as docutils' HTML translator writes it (``attval``)."""
    return _WHITESPACE.sub(" ", text).translate(_SPECIAL)


class Navigation:
    """The root document's toctrees as titles only, ready to be rendered for any page."""

    def __init__(self, blocks: list, entries: list):
        self.blocks = blocks
        self.entries = entries
        # docname -> indexes of the entries Sphinx marks `current` on that page: the page's
        # own entries (anchorless links to it) and all their ancestors
        self.chains: dict[str, frozenset] = {}
        marks: dict[str, set] = {}

        def walk(entries, above):
            for e in entries:
                if not e.anchor:
                    marks.setdefault(e.refuri, set()).update(above + [e.index])
                walk(e.children, above + [e.index])
        for b in blocks:
            walk(b.entries, [])
        self.chains = {doc: frozenset(ix) for doc, ix in marks.items()}

    # ------------------------------------------------------------ building
    @classmethod
    def build(cls, env, builder) -> Navigation:
        if env.numbered_toctrees:
            raise _Unsupported("numbered toctrees")
        maker = _Maker(env)
        blocks = []
        for toctree in env.master_doctree.findall(addnodes.toctree):
            entries = maker.entries(toctree, [])       # hidden toctrees too (includehidden)
            if not entries:
                continue                                # Sphinx drops a toctree that lists nothing
            caption = toctree.attributes.get("caption")
            blocks.append(_Block(_render_caption(builder, toctree, caption) if caption else "", entries,
                                 toctree.get("maxdepth", -1)))
        _render_titles(builder, maker.pending)
        return cls(blocks, maker.all)

    # ------------------------------------------------------------ rendering
    def render(self, builder, pagename: str, maxdepth: int, limit: int = 0) -> str:
        """The tree for `pagename`.  With `limit` (links) and a navigation longer than that,
        the tree is collapsed: only the entries on the page's own branch show their
        children (every book is listed, and the sections of the page's own book).  Every
        page carries the sidebar, so it must not grow with every page of the library: a
        hundred books' sections would make each page's sidebar alone about 400 KB."""
        chain = self.chains.get(pagename, frozenset())
        collapse = bool(limit) and len(self.entries) > limit
        rel = builder.get_relative_uri
        out: list[str] = []

        def items(entries, level, depth):
            for e in entries:
                on = e.index in chain
                out.append(f'<li class="toctree-l{level} current">' if on else f'<li class="toctree-l{level}">')
                if e.external:
                    out.append(f'<a class="reference external" href="{_attval(e.refuri or "#")}">')
                else:
                    href = rel(pagename, e.refuri) + e.anchor
                    mark = "current " if on and e.refuri == pagename and not e.anchor else ""
                    out.append(f'<a class="{mark}reference internal" href="{_attval(href or "#")}">')
                out.append(e.inner)
                out.append("</a>")
                if e.children and (depth <= 0 or level < depth) and (on or not collapse):
                    lists(e.children, level + 1, depth)
                out.append("</li>\n")

        def lists(entries, level, depth):
            on = any(e.index in chain for e in entries)
            out.append('<ul class="current">\n' if on else "<ul>\n")
            items(entries, level, depth)
            out.append("</ul>\n")

        for b in self.blocks:
            out.append(b.caption)
            lists(b.entries, 1, maxdepth or b.maxdepth)
        return "".join(out)


class _Maker:
    """Turns toctree nodes into entries, as Sphinx's `_entries_from_toctree` does with
    titles_only and includehidden, without copying any document's table of contents."""

    def __init__(self, env):
        self.env = env
        self.virtual = compat.virtual_doc_names()      # genindex, modindex, search
        self.all: list[_Entry] = []
        self.pending: list[tuple[_Entry, list]] = []           # entries whose inner HTML is to render

    def entry(self, refuri, anchor, external, inner_nodes, children=()) -> _Entry:
        e = _Entry(refuri, anchor, external, len(self.all), children=list(children))
        self.all.append(e)
        self.pending.append((e, inner_nodes))
        return e

    def entries(self, toctree, parents: list) -> list:
        out = []
        for title, ref in toctree["entries"]:
            if url_re.match(ref):
                if ref.startswith("mailto:"):
                    raise _Unsupported(f"a mailto link in a toctree: {ref}")
                out.append(self.entry(ref, "", True, [nodes.Text(ref if title is None else title)]))
            elif ref == "self":
                raise _Unsupported("a 'self' toctree entry")
            elif ref in self.virtual:
                docname, section = self.virtual[ref]
                text = title or section
                out.append(self.entry(docname, "", False, [nodes.Text(text)] if text else []))
            else:
                out.extend(self.document(title, ref, parents))
        return out

    def document(self, title, ref, parents) -> list:
        env = self.env
        if ref in parents:
            raise _Unsupported(f"a circular toctree: {ref}")
        toc = env.tocs.get(ref)
        if toc is None:
            raise _Unsupported(f"a toctree entry that is no document: {ref}")
        if env.metadata.get(ref, {}).get("tocdepth", 0):
            raise _Unsupported(f"tocdepth in {ref}")
        if not toc.children:
            raise _Unsupported(f"a document without a title: {ref}")
        explicit = bool(title) and len(toc.children) == 1
        out = []
        for top in toc.children:
            if isinstance(top, addnodes.toctree):
                out.extend(self.entries(top, [ref, *parents]))
                continue
            if not (isinstance(top, nodes.list_item) and len(top) >= 1 and isinstance(top[0], addnodes.compact_paragraph)
                    and len(top[0]) == 1 and isinstance(top[0][0], nodes.reference)):
                raise _Unsupported(f"an unexpected table of contents in {ref}")
            link = top[0][0]
            if link.get("secnumber"):
                raise _Unsupported(f"section numbers in {ref}")
            inner = list(link.children)
            if explicit and link["refuri"] == ref and not link["anchorname"]:
                inner = [nodes.Text(title)]
            children = []
            if len(top) > 1:
                subtrees = []
                for node in top.findall(lambda n: isinstance(n, addnodes.toctree | addnodes.only)):
                    if isinstance(node, addnodes.only):
                        raise _Unsupported(f"an only directive in the table of contents of {ref}")
                    subtrees.append(node)
                for sub in subtrees:
                    children.extend(self.entries(sub, [ref, *parents]))
                if subtrees and not children:
                    raise _Unsupported(f"a toctree listing nothing in {ref}")
            e = self.entry(link["refuri"], link["anchorname"], False, inner, children)
            out.append(e)
        return out


def _render_caption(builder, toctree, caption: str) -> str:
    para = addnodes.compact_paragraph("", "", toctree=True)
    para += nodes.title(caption, "", nodes.Text(caption))
    return builder.render_partial(para)["fragment"]


def _render_titles(builder, pending: list) -> None:
    """Every link's inner HTML, in one pass of Sphinx's translator over a toctree-shaped
    tree of the same links (copies: the environment's nodes are never moved)."""
    if not pending:
        return
    root = addnodes.compact_paragraph("", "", toctree=True)
    bullets = nodes.bullet_list()
    for i, (_e, inner) in enumerate(pending):
        link = nodes.reference("", "", *[n.deepcopy() for n in inner], internal=True,
                               refuri=f"{_TOKEN}{i}", anchorname="")
        bullets += nodes.list_item("", addnodes.compact_paragraph("", "", link))
    root += bullets
    html = builder.render_partial(root)["fragment"]
    pieces = html.split(f'href="{_TOKEN}')[1:]
    if len(pieces) != len(pending):
        raise _Unsupported("link titles that do not render apart")
    for i, ((e, _inner), piece) in enumerate(zip(pending, pieces, strict=True)):
        number, _, rest = piece.partition('">')
        end = rest.rfind("</a></li>")
        if number != str(i) or end < 0:
            raise _Unsupported("link titles that do not render apart")
        e.inner = rest[:end]
