"""Which pages a build writes again beyond those Sphinx reads again.

Sphinx writes only the pages it read again.  Two kinds of change reach other pages:
a cross-reference target whose title, page or anchor changed (every page linking to
it shows it: `env_get_updated`, from the domain's objects before and after reading,
`object_changes`), and the navigation (pages added, removed, retitled or moved in a
toctree: every page's sidebar shows it, `navigation_state`).  `env_get_outdated` takes
the snapshots before reading (and deletes the HTML of removed pages).

Split from site.py (issue 32): the rebuild's reach, apart from the build-wide state
(site.py); the snapshots live in the build's state (buildstate.py).
"""
from __future__ import annotations

import os

from . import buildstate

__all__ = ["navigation_state", "env_get_outdated", "object_changes", "env_get_updated"]


def navigation_state(env) -> tuple:
    """What every page's sidebar is made of: the pages, their titles and the toctrees
    that place them.  When it changes, every page must be written again."""
    titles = tuple(sorted((doc, t.astext()) for doc, t in env.titles.items()))
    tocs = tuple(sorted((doc, tuple(kids)) for doc, kids in env.toctree_includes.items()))
    return titles, tocs


def env_get_outdated(app, env, added, changed, removed):
    # remember what every cross-reference target looked like before this build's reading,
    # and the navigation every page shows
    if removed and app.builder.format == "html" and hasattr(app.builder, "get_outfilename"):
        for doc in removed:     # Sphinx leaves a removed page's HTML behind: the published site would keep it
            try:
                os.unlink(app.builder.get_outfilename(doc))
            except OSError:
                pass
    dom = env.domains["rules"]
    state = buildstate.of(app)
    state["objects_before"] = dict(dom.data.get("objects", {}))
    state["object_changes"] = None          # worked out at env-get-updated
    state["nav_before"] = navigation_state(env) if not (added or removed) else None
    return []


def object_changes(before: dict, after: dict) -> dict:
    """{(objtype, fullname): (entry before, entry after)} for the domain's objects added
    (None before), removed (None after) or changed between two snapshots."""
    return {key: (before.get(key), after.get(key)) for key in before.keys() | after.keys()
            if before.get(key) != after.get(key)}


def env_get_updated(app, env):
    """Pages whose links show a rule whose title, page or anchor changed are written again;
    every page, when the navigation changed (a page added, removed or retitled, or
    moved in a toctree): Sphinx itself writes only the pages it read again, so the
    others would keep a sidebar without the new section."""
    state = buildstate.of(app)
    before = state.get("objects_before")
    if before is None:
        return []
    dom = env.domains["rules"]
    # worked out once a build: the previews files (previews.write) take them too
    changes = state["object_changes"] = object_changes(before, dom.data.get("objects", {}))
    nav_before = state.get("nav_before")
    if nav_before is None or nav_before != navigation_state(env):
        return sorted(env.found_docs)
    # what a link shows and where it goes (page, anchor, title); not the preview's text,
    # which the page loads from its book's previews file (previews.py)
    changed = {key[1] for key, (b, a) in changes.items() if b is None or a is None or b[:3] != a[:3]}
    if not changed:
        return []
    out = set()
    for docname, targets in dom.data.get("refs", {}).items():
        if changed.intersection(targets):
            out.add(docname)
    return sorted(out & env.found_docs)
