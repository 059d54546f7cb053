"""A page that holds a toctree is written again only when a page it lists changed its contents.

Sphinx adds to the pages it writes every page whose toctree lists one of them
(`Builder.write`: ``env.files_to_rebuild``), because a toctree shows its pages' titles
and sections.  But many pages written after an edit were not read again at all: they
are written because a link on them shows the edited rule's title (outdated.env_get_updated),
and their table of contents is the one their parent already shows; and a page read
again after a prose edit keeps its table of contents.  At a hundred books an edit to
one rule wrote its book's front page, the glossary's and the cross index's front pages
that way: 0.15 s each, for nothing.

So while `Builder.write` adds the parents, it is shown (``env.files_to_rebuild``, put
back afterwards) only the parents of pages whose table of contents (title and section
tree, as Sphinx keeps it in ``env.tocs``) changed when they were read again, or that are
new (when no page was read, none).  When everything is written, or the tables of
contents were not compared this build, Sphinx does as it does.  A change of titles or toctrees anywhere makes
outdated.env_get_updated write every page anyway (every sidebar shows them).
"""
from __future__ import annotations

from . import buildstate, compat
from .keys import digest

_BEFORE = "tocs_before"
_CHANGED = "tocs_changed"


def _toc_key(env, docname: str):
    toc = env.tocs.get(docname)
    title = env.titles.get(docname)
    return digest((toc.pformat() if toc is not None else None, title.astext() if title is not None else None))


def before_read(app, env, docnames):
    """env-before-read-docs: each page's table of contents before it is read again."""
    buildstate.of(app)[_BEFORE] = {d: _toc_key(env, d) for d in docnames}


def after_read(app, env):
    """env-updated: the pages whose table of contents changed (or that are new)."""
    state = buildstate.of(app)
    before = state.pop(_BEFORE, None)
    if before is not None:
        state[_CHANGED] = {d for d, key in before.items() if _toc_key(env, d) != key}
    return []


def install(app):
    """builder-inited: while `write` adds the toctree parents of the pages it writes, it sees
    only the parents of pages whose table of contents changed (`compat.wrap_write`,
    `compat.toctree_parents_only`)."""
    builder = app.builder
    if not hasattr(builder, "write"):
        return

    def make(write):
        def write_wrapper(build_docnames, updated_docnames, method="update"):
            changed = buildstate.of(app).pop(_CHANGED, None)
            everything = build_docnames is None or build_docnames == ["__all__"] or method != "update"
            if everything or changed is None:
                return write(build_docnames, updated_docnames, method)
            with compat.toctree_parents_only(builder.env, changed):
                return write(build_docnames, updated_docnames, method)
        return write_wrapper
    compat.wrap_write(app, make)
