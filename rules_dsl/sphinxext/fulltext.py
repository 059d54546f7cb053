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
`dump_search_index`, installed by finish.py; anything they do not recognise (an
indexer without `_word_collector`) falls back to Sphinx's own behaviour, pages reduced.
"""
from __future__ import annotations

import contextlib
import dataclasses
import os
from pathlib import Path

from docutils import nodes
from sphinx import addnodes

from .. import cachekeys
from ..paths import read_json_dict, write_json_dict
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


def _forget(indexer, docname: str) -> None:
    """Take one page out of a loaded index (Sphinx's `prune` keeps a set of pages: this
    is its complement for one page, before the page is fed again)."""
    for attr in ("_titles", "_filenames", "_all_titles", "_index_entries"):
        getattr(indexer, attr, {}).pop(docname, None)
    for attr in ("_mapping", "_title_mapping"):
        for docs in getattr(indexer, attr, {}).values():
            docs.discard(docname)


def _drop_empty_terms(indexer) -> None:
    """Take out of a loaded index every word and title word no page holds any more.

    Taking a page out (`_forget`, and Sphinx's own `prune` when it loads the index
    without the pages it writes) empties the word's set of pages but keeps the word,
    and `freeze` writes it with no page: after a rule is deleted or retitled the index
    kept its words (the search page then finds them), where a clean build has none."""
    for attr in ("_mapping", "_title_mapping"):
        mapping = getattr(indexer, attr, None)
        if isinstance(mapping, dict):
            for word in [w for w, docs in mapping.items() if not docs]:
                del mapping[word]


class _Given:
    """An index format whose `load` returns data already read."""

    def __init__(self, frozen):
        self.frozen = frozen

    def load(self, _stream):
        return self.frozen


@contextlib.contextmanager
def _index_entries_kept(indexer):
    """Around Sphinx's `load_indexer`: put the index entries of the pages kept back in.

    Sphinx's `IndexBuilder.load` reads the words and titles of the index on disk but not
    its index entries, which it keeps in the environment instead, and the environment is
    saved before the pages are written: so after any rebuild that loads the index, the
    entries of every page not written again were gone from the search page (Sphinx issue
    #12599).  The index file holds them (lower-cased, as `freeze` writes them), so they
    are read back from it for each page the load keeps."""
    captured = {}
    load = indexer.load

    def load_capturing(stream, format):
        if isinstance(format, str):
            format = indexer.formats[format]
        captured["frozen"] = frozen = format.load(stream)
        return load(stream, _Given(frozen))
    indexer.load = load_capturing
    try:
        yield
    finally:
        del indexer.load
    frozen = captured.get("frozen")
    entries = getattr(indexer, "_index_entries", None)
    if (not isinstance(frozen, dict) or entries is None
            or frozen.get("envversion") != getattr(indexer, "_env_version", None)):
        return                            # not loaded (or an old index Sphinx refused)
    names = frozen.get("docnames") or ()
    had = set(entries)
    back = {}
    for entry, hits in (frozen.get("indexentries") or {}).items():
        for i, target, main in hits:
            doc = names[i] if 0 <= i < len(names) else None
            if doc is not None and doc not in had and doc in indexer._titles:
                back.setdefault(doc, []).append((entry, target, "main" if main else ""))
    for doc, items in back.items():
        entries[doc] = sorted(items)


class FullText:
    """The wrappers' state for one build."""

    def __init__(self, app, builder):
        self.app, self.builder = app, builder
        self.load_original = builder.load_indexer
        self.feed_original = builder.index_page
        self.dump_original = builder.dump_search_index
        self.pending = None          # the pages this build writes
        self.loaded = False
        self.skip = False            # may unchanged pages be skipped this build?
        self.pages = None            # page -> digest of what the index holds of it, once read

    @property
    def index_path(self) -> Path:
        return Path(self.builder.outdir) / self.builder.searchindex_filename

    @property
    def state_path(self) -> Path:
        return Path(self.app.doctreedir) / STATE_FILE

    def install(self) -> None:
        self.builder.load_indexer = self.load_indexer
        self.builder.index_page = self.index_page
        self.builder.dump_search_index = self.dump_search_index

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
        self.skip = (len(self.pending) < FEED_ALL_FROM and bool(self.pages)
                     and hasattr(self.builder.indexer, "_word_collector"))
        if not self.skip:                # Sphinx's way: every page written is fed again
            for doc in self.pending:
                self.pages.pop(doc, None)

    def _load(self) -> None:
        if self.loaded or self.pending is None or self.builder.indexer is None:
            return
        # skipping: keep every page (each page fed is taken out first, `_forget`);
        # else Sphinx's way: every page written this build is taken out, then fed
        with _index_entries_kept(self.builder.indexer):
            self.load_original(set() if self.skip else self.pending)
        self.loaded = True

    def _take_out(self, pagename: str) -> None:
        """Before a page is fed (or left out): load the index, and take the page's old
        entries out of it (Sphinx's load did so already unless skipping)."""
        self._load()
        if self.skip:
            _forget(self.builder.indexer, pagename)
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
        collect = None if nosearch else getattr(indexer, "_word_collector", None)
        with searchable(doctree):
            if collect is None:
                key = digest((VERSION, pagename, nosearch, title))
            else:
                store = collect(doctree)
                filename = os.fspath(self.builder.env.doc2path(pagename, base=False))
                key = _store_key(pagename, filename, title, store, doctree)
            if self.skip and self.pages.get(pagename) == key:
                return None                   # the index on disk holds this page as it is
            self._take_out(pagename)
            if collect is not None:
                indexer._word_collector = lambda _doctree: store     # collected once
            try:
                self.feed_original(pagename, doctree, title)
            finally:
                if collect is not None:
                    del indexer._word_collector
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
        _drop_empty_terms(self.builder.indexer)
        entries = getattr(self.builder.indexer, "_index_entries", None)
        if isinstance(entries, dict):        # pages in order, however they were fed
            ordered = sorted(entries.items())
            entries.clear()
            entries.update(ordered)
        self.dump_original()
        write_json_dict(self.state_path, {
            "version": VERSION, "docs": docs, "stamp": _stamp(self.index_path),
            "pages": {doc: key for doc, key in pages.items() if doc in env.all_docs}})


def install(app, builder) -> None:
    FullText(app, builder).install()
