"""The theme's pass over the sidebar tree, done once per folder instead of once per page.

Why: furo turns the sidebar's toctree HTML into its collapsible tree
(`furo.navigation.get_navigation_tree`: a checkbox and a label for every entry with
children, ``checked`` on the current branch, ``current-page`` on the current entry) by
parsing the whole tree with BeautifulSoup, for every page written.  The tree lists every
page of the library, so that pass grows with it: about 230 ms a page at 25 books, close
to a second at a hundred, which made a rebuild after editing one rule cost seconds per
page written.

Two pages of one folder get the same tree but for the marks of the current page: its
entry and its ancestors (``current`` on their ``<li>`` and ``<ul>``, and the page's own
link ``<a class="current reference internal" href="#">``).  So the marks are taken out
(the page's link gets the address its siblings use for it), the *neutral* tree goes
through furo's own function (memoised: once per folder), and the marks are put back in
furo's output exactly where furo would have put them: the same classes in the same order
(the page's own, then ``has-children``, then ``current-page`` on the last current entry),
``checked=""`` among a current entry's checkbox's attributes where BeautifulSoup writes it
(alphabetical order).

furo's trees are also kept between builds (`KeptTrees`, by a digest of the neutral tree),
so a rebuild that writes a few pages makes no tree again for the folders it wrote before.

Anything unexpected (no unique current link, a tree this does not recognise) is handed to
furo unchanged.  With ``rules_nav_check = True`` every page is also made furo's way and a
difference is a warning (tests/test_site_navigation.py builds with it).
"""
from __future__ import annotations

import posixpath
import re
from pathlib import Path

from sphinx.util import logging

from . import buildstate, compat

logger = logging.getLogger(__name__)
_KEPT = "furo_trees"

_LI = re.compile(r'<li class="([^"]*)">')
_CURRENT_A = '<a class="current reference internal" href="#">'
_state = {"page": None, "href": None}


def page_context(app, pagename, templatename, context, doctree):
    """html-page-context (before the theme's): remember which page furo is about to do."""
    _state["page"] = pagename
    try:
        uri = app.builder.get_target_uri(pagename)
    except Exception:     # a page the builder cannot name: furo does it its own way
        uri = None
    _state["href"] = posixpath.basename(uri) if uri else None


def install(app):
    """builder-inited: put `navigation_tree` in the place of furo's function (html builders
    with the furo theme only: `compat.furo_navigation`)."""
    if app.builder.format != "html" or not getattr(app.config, "rules_nav_fast", True):
        return
    if getattr(app.config, "html_theme", None) != "furo":
        return
    check = bool(getattr(app.config, "rules_nav_check", False))

    # furo's own cache keeps every tree it was given (a page's, with its marks: for a hundred
    # books' pages, gigabytes); ours keeps one neutral tree a folder, and keeps them between
    # builds (`KeptTrees`), so a rebuild that writes a few pages of folders written before
    # makes none again
    def make(furo_own):
        kept = KeptTrees(Path(app.doctreedir) / STORE, furo_own)
        buildstate.of(app)[_KEPT] = kept

        def get_navigation_tree(toctree_html: str) -> str:
            ours = navigation_tree(toctree_html, _state["href"], kept.tree)
            if check:
                theirs = furo_own(toctree_html)
                if ours != theirs:
                    logger.warning("rules_dsl: the sidebar of %s differs from furo's own", _state["page"],
                                   type="rules", subtype="navigation")
                    return theirs
            return ours
        return get_navigation_tree
    compat.furo_navigation(app, make)


#: furo's trees of the last builds, in the doctree folder
STORE = "rules_dsl-furo-trees.pickle"
#: trees kept (a folder's tree each; a hundred books have about 110 folders)
KEPT_TREES = 256


class KeptTrees:
    """furo's tree for a neutral sidebar tree, by a digest of that tree, kept between
    builds: read when a page is first written, the most recently used `KEPT_TREES` held,
    saved at build-finished when a tree was made.  A tree is furo's function of the HTML
    alone, so the digest is its whole key (and furo's version, should furo change)."""

    def __init__(self, path: Path, furo_tree):
        self.path = path
        self.furo_tree = furo_tree
        self.trees = None
        self.made = False
        try:
            from importlib.metadata import version
            self.salt = version("furo")
        except Exception:
            self.salt = "?"

    def _key(self, html: str) -> str:
        import hashlib
        return hashlib.sha256(f"{self.salt}\0{html}".encode()).hexdigest()

    def tree(self, html: str) -> str:
        if self.trees is None:
            from ..paths import read_pickle
            try:
                self.trees = dict(read_pickle(self.path))
            except Exception:
                self.trees = {}
        key = self._key(html)
        out = self.trees.pop(key, None)
        if out is None:
            out = self.furo_tree(html)
            self.made = True
        self.trees[key] = out             # the most recently used last
        if len(self.trees) > KEPT_TREES:  # a page's own tree (furo's way, marks and all) is one too
            del self.trees[next(iter(self.trees))]
        return out

    def save(self):
        if self.made and self.trees is not None:
            from ..paths import write_pickle
            write_pickle(self.path, list(self.trees.items()))
            self.made = False


def save(app, exc=None):
    """build-finished: keep the trees made by this build (main process: trees made in forked
    writers of -j are made again next time)."""
    kept = buildstate.of(app).get(_KEPT)
    if kept is not None and exc is None:
        kept.save()


def navigation_tree(html: str, own_href, furo_tree) -> str:
    """furo's tree for `html`, made from the tree without the current page's marks."""
    if not html or own_href is None or html.count(_CURRENT_A) != 1:
        return furo_tree(html)
    classes = _LI.findall(html)
    current = [i for i, c in enumerate(classes) if "current" in c.split()]
    if not current:
        return furo_tree(html)
    own = f'<a class="reference internal" href="{own_href}">'
    if own in html:                        # the page's address already stands for another entry
        return furo_tree(html)
    neutral = _LI.sub(lambda m: '<li class="%s">' % " ".join(c for c in m.group(1).split() if c != "current"), html)
    neutral = neutral.replace('<ul class="current">', "<ul>").replace(_CURRENT_A, own)
    if "current" in " ".join(_LI.findall(neutral)) or 'class="current' in neutral:
        return furo_tree(html)             # marks this does not know: furo's own way
    out = furo_tree(neutral)
    if out.count(own) != 1:
        return furo_tree(html)
    pieces, last, n = [], 0, 0
    for m in _LI.finditer(out):
        i = n
        n += 1
        if i >= len(classes):
            return furo_tree(html)
        if i not in current:
            continue
        got = m.group(1).split()
        mine = classes[i].split()
        if [c for c in got if c != "has-children"] != [c for c in mine if c != "current"]:
            return furo_tree(html)
        new = mine + (["has-children"] if "has-children" in got else [])
        if i == current[-1]:
            new.append("current-page")
        pieces.append(out[last:m.start()])
        pieces.append('<li class="%s">' % " ".join(new))
        last = m.end()
        if "has-children" in got:          # its checkbox: the first <input> after its link
            j = out.find("<input ", last)
            k = out.find("/>", j)
            c = out.find(' class="toctree-checkbox"', j, k)
            if j < 0 or k < 0 or c < 0:
                return furo_tree(html)
            # BeautifulSoup writes attributes in alphabetical order: aria-label, checked, class
            pieces.append(out[last:c] + ' checked=""')
            last = c
    if n != len(classes):
        return furo_tree(html)
    pieces.append(out[last:])
    result = "".join(pieces).replace(own, _CURRENT_A)
    if 'class="current"' in html:          # the current branch's lists
        result = _restore_lists(html, result)
        if result is None:
            return furo_tree(html)
    return result


def _restore_lists(html: str, out: str):
    """Put `<ul class="current">` back: the n-th `<ul` of furo's output is the n-th of the input."""
    marks = [m.group(0) for m in re.finditer(r"<ul(?: class=\"current\")?>", html)]
    found = list(re.finditer(r"<ul>", out))
    if len(found) != len(marks):
        return None
    pieces, last = [], 0
    for m, mark in zip(found, marks):
        pieces.append(out[last:m.start()])
        pieces.append(mark)
        last = m.end()
    pieces.append(out[last:])
    return "".join(pieces)
