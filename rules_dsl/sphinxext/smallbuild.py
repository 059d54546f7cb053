"""A rebuild that reads or writes a few pages does it in one process, even with ``-j``.

Sphinx 8 reads in parallel whenever ``-j`` asks for it, however few pages changed, and
each worker sends the *whole* environment back pickled, to be unpickled and merged in
the main process: at a hundred books (a 16 MB environment) that is about 1.5 s to read
one edited page.  Writing a few pages in parallel forks workers that each work out the
navigation and the theme's sidebar again.  Both costs grow with the library; reading
or writing a few pages does not.  So below `SERIAL_BELOW` pages (``rules_serial_below``
in conf.py; 0: never) the read and the write run serially; a full build still uses
every core.

A serial read must mean what a parallel one means.  Sphinx's parallel read takes every
page it will read out of the environment first; its serial read takes each page out
just before reading it.  So when a rule moved from a page read later to a page read
earlier (a section's parts cut again), the earlier page found the rule still recorded
on the later one and warned of a duplicate: a rebuild failed (-W) where a clean build
passed.  `purge_pages_to_read` takes every page out first, whichever way they are read.
"""
from __future__ import annotations

from . import compat

#: pages read (or written) in one process when there are fewer than this many
SERIAL_BELOW = 24


def _limit(app) -> int:
    return getattr(app.config, "rules_serial_below", SERIAL_BELOW)


def before_read(app, env, docnames):
    """env-before-read-docs: few pages to read -> read them serially (the parallel
    setting is put back at env-updated, before anything is written: `compat.read_serially`)."""
    if len(docnames) < _limit(app):
        compat.read_serially(app)


def purge_pages_to_read(app, env, docnames):
    """env-before-read-docs (after the other handlers, which may look at the pages as
    they were): every page to read taken out of the environment before the first is
    read, as Sphinx's parallel read does (taking one out again is harmless)."""
    for docname in docnames:
        app.emit("env-purge-doc", env, docname)
        env.clear_doc(docname)


def after_read(app, env):
    """env-updated: the parallel setting as it was."""
    compat.restore_parallel(app)
    return []


def install(app):
    """builder-inited: wrap the builder's `write_documents` so that few pages are written
    serially (`parallel_ok` off for that call only: `compat.wrap_write_documents`)."""
    builder = app.builder
    if not hasattr(builder, "write_documents"):
        return

    def make(original):
        def write_documents(docnames):
            if len(docnames) < _limit(app):
                with compat.serial_write(builder):
                    return original(docnames)
            return original(docnames)
        return write_documents
    compat.wrap_write_documents(app, make)
