"""Sphinx's full-text search index (`searchindex.js`): what it holds, and when it is made.

**What it holds.**  Every page, but of a rule only its title (with its anchor) and its
reference line: a rule's prose, mechanics, tables, examples, links, and its index
entries (title, keywords and aliases: four or more a rule, most of the index at a
hundred books) are searched by the rule search (search_index.py: a names file and
per-book shards, fetched only for the books that can match), which the search page
shows first (`static/rules_search_ui.js`).  The general index keeps every entry.  So
the index Sphinx makes grows with the library's pages and titles, not with its text
(a phone that opens the search page loads it whole), and it does not change when a
rule's prose does.  Book and section introductions, the guide, the glossary and the
cross index stay in it in full.

**When it is made.**  Sphinx loads the whole index and dumps it again whenever a page
is written: at a hundred books, 5.4 MB and half a second after any edit.  Here each
page written is first reduced to what it feeds (`searchable`, then Sphinx's own word
collector, run once a page), and a digest of that is compared with the one recorded when the index on disk was dumped
(`STATE_FILE`, with the index file's stamp): a page whose words, titles and index
entries are unchanged is not fed again, and when no page is, and no page was added or
removed, the index is neither loaded nor dumped.  A build that writes many pages
(`FEED_ALL_FROM`) or finds the index changed behind its back does what Sphinx does:
load it without the pages written, and feed them all.

Wrappers around the html builder's `load_indexer`, `index_page` and
`dump_search_index`, installed by finish.py through `compat.wrap_search_indexing`; the
indexer's private fields are reached through `compat.SearchIndex`.  An indexer it does not
recognise (`compat.indexer_shape`) is fed Sphinx's way, pages reduced, with a warning.
"""
from __future__ import annotations

import contextlib
import dataclasses
import os
from pathlib import Path

from docutils import nodes
from sphinx import addnodes

from ..library import cachekeys
from ..paths import read_json_dict, write_json_dict
from . import compat
from .keys import digest

STATE_FILE = "rules_dsl-search-pages.json"
#: bump when what a page feeds changes meaning (the digests on disk are then void)
VERSION = 1
#: a build writing at least this many pages feeds them all, as Sphinx does (a digest per
#: page saves nothing when most pages changed, and skipping needs the index kept whole)
FEED_ALL_FROM = 64
#: the classes of a rule's section (render_rules.rule_node) and of its parts that stay
RULE_CLASS = "rules-rule"
_KEPT_TYPES = (nodes.title, nodes.target, nodes.section)


def _kept(child) -> bool:
    """Of a rule's section: its title, anchor, rules inside it, and its reference line
    (`rules-meta`; not the links line: back-links change with other rules)."""
    if isinstance(child, _KEPT_TYPES):
        return True
    classes = child.get("classes", ()) if isinstance(child, nodes.Element) else ()
    return isinstance(child, nodes.paragraph) and "rules-meta" in classes and "rules-links" not in classes


@contextlib.contextmanager
def searchable(doctree):
    """The doctree with every rule reduced to what Sphinx's index keeps of it (`_kept`),
    for the duration of the block; put back whole afterwards (the page is written from
    the same doctree)."""
    saved = []
    for sec in list(doctree.findall(nodes.section)):
        if RULE_CLASS in sec.get("classes", ()):
            kept = [c for c in sec.children if _kept(c)]
            if len(kept) != len(sec.children):
                saved.append((sec, sec.children))
                sec.children = kept
    try:
        yield doctree
    finally:
        for sec, children in reversed(saved):
            sec.children = children


def _store_key(pagename: str, filename: str, title: str, store, doctree) -> str:
    """A digest of everything `IndexBuilder.feed` takes from a page."""
    fields = dataclasses.astuple(store) if dataclasses.is_dataclass(store) else repr(vars(store))
    entries = [n["entries"] for n in doctree.findall(addnodes.index)]
    return digest((VERSION, pagename, filename, title, fields, entries))


def _stamp(path: Path):
    """The index file's `cachekeys.stamp`, None when there is none."""
    try:
        return cachekeys.stamp(path)
    except OSError:
        return None


class FullText:
    """The wrappers' state for one build."""

    def __init__(self, app, builder):
        self.app, self.builder = app, builder
        self.load_original = self.feed_original = self.dump_original = None
        self.pending = None          # the pages this build writes
        self.loaded = False
        self.skip = False            # may unchanged pages be skipped this build?
        self.usable = False          # has Sphinx's indexer the fields compat.SearchIndex reads?
        self.pages = None            # page -> digest of what the index holds of it, once read

    @property
    def index_path(self) -> Path:
        return Path(self.builder.outdir) / self.builder.searchindex_filename

    @property
    def state_path(self) -> Path:
        return Path(self.app.doctreedir) / STATE_FILE

    def install(self) -> None:
        def load(original):
            self.load_original = original
            return self.load_indexer

        def feed(original):
            self.feed_original = original
            return self.index_page

        def dump(original):
            self.dump_original = original
            return self.dump_search_index
        compat.wrap_search_indexing(self.app, load, feed, dump)

    @property
    def index(self) -> compat.SearchIndex:
        return compat.SearchIndex(self.builder.indexer)

    def _trusted(self, state: dict) -> dict:
        """The digests recorded with the index on disk, if it is still that index."""
        stamp = state.get("stamp")
        if state.get("version") == VERSION and stamp is not None and stamp == _stamp(self.index_path):
            return dict(state.get("pages") or {})
        return {}

    # ------------------------------------------------------------------ the builder's hooks
    def load_indexer(self, docnames) -> None:
        """Called before the first page is written: note the pages, load nothing yet."""
        self.pending = set(docnames)
        if not self.pending or self.builder.indexer is None:
            return
        self.pages = self._trusted(read_json_dict(self.state_path))
        self.usable = self.index.usable()           # warns when Sphinx's indexer changed shape
        self.skip = len(self.pending) < FEED_ALL_FROM and bool(self.pages) and self.usable
        if not self.skip:                # Sphinx's way: every page written is fed again
            for doc in self.pending:
                self.pages.pop(doc, None)

    def _load(self) -> None:
        if self.loaded or self.pending is None or self.builder.indexer is None:
            return
        # skipping: keep every page (each page fed is taken out first, `SearchIndex.forget`);
        # else Sphinx's way: every page written this build is taken out, then fed
        kept = (self.index.entries_kept_on_load() if compat.indexer_shape(self.builder.indexer) is None
                else contextlib.nullcontext())
        with kept:
            self.load_original(set() if self.skip else self.pending)
        self.loaded = True

    def _take_out(self, pagename: str) -> None:
        """Before a page is fed (or left out): load the index, and take the page's old
        entries out of it (Sphinx's load did so already unless skipping)."""
        self._load()
        if self.skip:
            self.index.forget(pagename)
        self.pages.pop(pagename, None)

    def index_page(self, pagename, doctree, title):
        indexer = self.builder.indexer
        if indexer is None or self.pending is None:
            return self.feed_original(pagename, doctree, title)
        if not title:                         # Sphinx indexes only pages with a title
            if self.skip and pagename in self.pages:
                self._take_out(pagename)
            return None
        meta = self.builder.env.metadata.get(pagename, {})
        nosearch = "no-search" in meta or "nosearch" in meta      # Sphinx feeds it empty
        index = compat.SearchIndex(indexer)
        collect = not nosearch and self.usable
        with searchable(doctree):
            if not collect:
                key = digest((VERSION, pagename, nosearch, title))
            else:
                store = index.collect_words(doctree)
                filename = os.fspath(self.builder.env.doc2path(pagename, base=False))
                key = _store_key(pagename, filename, title, store, doctree)
            if self.skip and self.pages.get(pagename) == key:
                return None                   # the index on disk holds this page as it is
            self._take_out(pagename)
            if collect:
                with index.words_given(store):           # collected once
                    self.feed_original(pagename, doctree, title)
            else:
                self.feed_original(pagename, doctree, title)
            self.pages[pagename] = key
        return None

    def dump_search_index(self) -> None:
        if self.builder.indexer is None:         # a builder without search (epub)
            return self.dump_original()
        env = self.app.env
        docs = digest(sorted(env.all_docs))
        state = read_json_dict(self.state_path)
        if not self.loaded and state.get("docs") == docs and self._trusted(state):
            return                       # no page fed, same pages: the index on disk stands
        pages = self.pages if self.pages is not None else self._trusted(state)
        self._load()
        if not self.loaded:              # nothing written this build: Sphinx loads it here
            self.load_original(set())
        if self.usable or compat.indexer_shape(self.builder.indexer) is None:
            self.index.drop_empty_terms()
            self.index.order_entries()       # pages in order, however they were fed
        self.dump_original()
        write_json_dict(self.state_path, {
            "version": VERSION, "docs": docs, "stamp": _stamp(self.index_path),
            "pages": {doc: key for doc, key in pages.items() if doc in env.all_docs}})


def install(app, builder) -> None:
    FullText(app, builder).install()
