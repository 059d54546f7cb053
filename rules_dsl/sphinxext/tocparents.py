"""A page that holds a toctree is written again only when a page it lists changed its contents.

Sphinx adds to the pages it writes every page whose toctree lists one of them
(`Builder.write`: ``env.files_to_rebuild``), because a toctree shows its pages' titles
and sections.  But many pages written after an edit were not read again at all: they
are written because a link on them shows the edited rule's title (site.env_get_updated),
and their table of contents is the one their parent already shows; and a page read
again after a prose edit keeps its table of contents.  At a hundred books an edit to
one rule wrote its book's front page, the glossary's and the cross index's front pages
that way: 0.15 s each, for nothing.

So while `Builder.write` adds the parents, it is shown (``env.files_to_rebuild``, put
back afterwards) only the parents of pages whose table of contents (title and section
tree, as Sphinx keeps it in ``env.tocs``) changed when they were read again, or that are
new (when no page was read, none).  When everything is written, or the tables of
contents were not compared this build, Sphinx does as it does.  A change of titles or toctrees anywhere makes
site.env_get_updated write every page anyway (every sidebar shows them).
"""
from __future__ import annotations

from .keys import digest

_BEFORE = "_rules_dsl_tocs_before"
_CHANGED = "_rules_dsl_tocs_changed"


def _toc_key(env, docname: str):
    toc = env.tocs.get(docname)
    title = env.titles.get(docname)
    return digest((toc.pformat() if toc is not None else None, title.astext() if title is not None else None))


def before_read(app, env, docnames):
    """env-before-read-docs: each page's table of contents before it is read again."""
    app.__dict__[_BEFORE] = {d: _toc_key(env, d) for d in docnames}


def after_read(app, env):
    """env-updated: the pages whose table of contents changed (or that are new)."""
    before = app.__dict__.pop(_BEFORE, None)
    if before is not None:
        app.__dict__[_CHANGED] = {d for d, key in before.items() if _toc_key(env, d) != key}
    return []


def install(app):
    """builder-inited: while `write` adds the toctree parents of the pages it writes, it sees
    only the parents of pages whose table of contents changed."""
    builder = app.builder
    write = getattr(builder, "write", None)
    if write is None:
        return

    def write_wrapper(build_docnames, updated_docnames, method="update"):
        env = builder.env
        changed = app.__dict__.pop(_CHANGED, None)
        everything = build_docnames is None or build_docnames == ["__all__"] or method != "update"
        kept = getattr(env, "files_to_rebuild", None)
        if everything or changed is None or not isinstance(kept, dict):
            return write(build_docnames, updated_docnames, method)
        env.files_to_rebuild = {d: parents for d, parents in kept.items() if d in changed}
        try:
            return write(build_docnames, updated_docnames, method)
        finally:
            env.files_to_rebuild = kept

    builder.write = write_wrapper
