"""Every use the site makes of Sphinx's and furo's internals, in one place.

The rest of ``rules_dsl.sphinxext`` talks to Sphinx through its public events and
API only (tests/test_sphinx_compat.py checks it, by scanning their code); what the
public API cannot do at the speed a library of books needs is done here, one small
function per use.  Each says which public API it stands in for, why that is not
enough (with the cost measured, see docs/scale.md and bench/bench_docs.py), and what
breaks when the internal changes.

When an internal this module relies on is gone or has changed shape, it does not
guess: it logs a warning (type ``rules``, subtype ``compat``) naming the entry and the
Sphinx and furo versions, and the build takes Sphinx's (or furo's) own, public, slower
path: a correct site, and a failed build under ``-W``.  Never a stale one.
tests/test_sphinx_compat.py checks every entry against the installed versions
(``bash scripts/test-newest.sh tests/test_sphinx_compat.py``: against the newest).

Over 500 lines because it is, by design, the one module that holds every private use
of Sphinx and furo (the developers' guide asks for them in one named compatibility
module), each a small function with its reason and its fallback: split, the list of
what can break on a Sphinx or furo upgrade would no longer be in one place.

Entries (docs/architecture.md lists them too):

=============================  ===============================================================
``wrap_write``                 ``Builder.write``: which toctree parents are written again
``toctree_parents_only``       ``env.files_to_rebuild`` narrowed during ``write``
``wrap_write_documents``       ``Builder.write_documents``: a few pages written serially
``read_serially``              ``app.parallel`` lowered for a read of a few pages
``wrap_write_genindex``        ``write_genindex`` skipped when its inputs did not change
``wrap_dump_inventory``        ``dump_inventory`` skipped likewise
``wrap_gen_additional_pages``  ``gen_additional_pages`` skipped likewise
``general_index``              ``IndexEntries(env).create_index``: the split general index
``build_info_hashes``          ``builder.build_info``: the configuration's digests
``wrap_search_indexing``       ``load_indexer``/``index_page``/``dump_search_index``
``SearchIndex``                the search indexer's private fields (pages kept, words fed once)
``virtual_doc_names``          ``StandardDomain._virtual_doc_names`` (genindex, search, ...)
``furo_navigation``            ``furo.navigation.get_navigation_tree``, replaced process-wide
``fail_build``                 ``app.statuscode``: failing examples fail the build
=============================  ===============================================================
"""
from __future__ import annotations

import contextlib
import inspect
import json
import weakref

from sphinx.util import logging

from . import buildstate

logger = logging.getLogger(__name__)


class CompatError(RuntimeError):
    """An internal of Sphinx or furo that an entry of this module relies on has changed."""


def versions() -> str:
    """'Sphinx 8.2.3, furo 2025.9.25': for every message about an internal."""
    import sphinx
    try:
        from importlib.metadata import version
        furo = version("furo")
    except Exception:
        furo = "not installed"
    return f"Sphinx {sphinx.__display_version__}, furo {furo}"


def broken(entry: str, what: str, fallback: str) -> None:
    """Say loudly that `entry` cannot work with the installed Sphinx or furo (a warning:
    ``-W`` fails the build), and what the build does instead."""
    logger.warning("rules_dsl.sphinxext.compat.%s: %s (%s); %s. Update rules_dsl/sphinxext/compat.py.",
                   entry, what, versions(), fallback, type="rules", subtype="compat")


# ------------------------------------------------------------------ calls, for the tests
def _count(app, entry: str) -> None:
    """One more call of `entry`'s replacement: tests check that every hook is still called
    during a real build (a hook Sphinx stopped calling would leave the site silently slower)."""
    calls = buildstate.of(app).setdefault("compat_calls", {})
    calls[entry] = calls.get(entry, 0) + 1


def calls(app) -> dict:
    """{entry: calls} of this build's replaced methods."""
    return dict(buildstate.of(app).get("compat_calls", {}))


def write_report(app, exc=None) -> None:
    """build-finished: with ``rules_compat_report`` set (a path), write `calls` there as JSON
    (tests/test_sphinx_compat.py builds a small site with it)."""
    path = getattr(app.config, "rules_compat_report", "")
    if path:
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"versions": versions(), "calls": calls(app)}, f, sort_keys=True)


# ------------------------------------------------------------------ builder methods
#: method -> the parameters the replacement is written against (Sphinx passes them by
#: position: their number must match; the names say what they are)
BUILDER_METHODS = {
    "write": ("build_docnames", "updated_docnames", "method"),
    "write_documents": ("docnames",),
    "write_genindex": (),
    "dump_inventory": (),
    "gen_additional_pages": (),
    "load_indexer": ("docnames",),
    "index_page": ("pagename", "doctree", "title"),
    "dump_search_index": (),
}


def method_shape(builder, method: str) -> str | None:
    """None when `builder.<method>` exists with the parameters `BUILDER_METHODS` expects,
    else what is wrong (tests call it too)."""
    original = getattr(builder, method, None)
    if original is None or not callable(original):
        return f"the builder has no method {method!r}"
    try:
        params = tuple(inspect.signature(original).parameters)
    except (TypeError, ValueError):
        return f"the signature of {method!r} cannot be read"
    if len(params) != len(BUILDER_METHODS[method]):
        return f"{method!r} takes {params}, not {BUILDER_METHODS[method]}"
    return None


def _replace(app, entry: str, method: str, make) -> bool:
    """Put `make(original)` in the place of `app.builder.<method>`, on the instance (no
    event lets an extension take over these methods).  When the method is missing or its
    parameters changed, warn (`broken`) and leave Sphinx's own: True when replaced."""
    builder = app.builder
    wrong = method_shape(builder, method)
    if wrong is not None:
        broken(entry, wrong, f"Sphinx's own {method} is used (correct, slower)")
        return False
    original = getattr(builder, method)
    replacement = make(original)

    def counted(*args, **kwargs):
        _count(app, entry)
        return replacement(*args, **kwargs)
    setattr(builder, method, counted)
    return True


def wrap_write(app, make) -> bool:
    """``Builder.write(build_docnames, updated_docnames, method)`` wrapped (tocparents.py).

    Public stand-in: none.  ``env-get-updated`` can add pages to write, never take out
    the toctree parents `write` adds through ``env.files_to_rebuild`` (see
    `toctree_parents_only`).  Cost without it: at a hundred books, an edit to one rule
    wrote its book's front page and the glossary's and cross index's fronts again, 0.15 s
    each for nothing.  Breaks when: `write` is renamed or takes other parameters (Sphinx
    marks it ``@final``; it is replaced on the instance only); then Sphinx writes the
    parents as it does."""
    return _replace(app, "wrap_write", "write", make)


@contextlib.contextmanager
def toctree_parents_only(env, docnames):
    """While `Builder.write` runs: ``env.files_to_rebuild`` (page -> toctree pages listing
    it) narrowed to `docnames`, put back afterwards.

    Public stand-in: none (see `wrap_write`).  Breaks when: Sphinx no longer keeps the
    parents there as a dict; then nothing is narrowed (a warning) and every parent is
    written, as Sphinx does."""
    kept = getattr(env, "files_to_rebuild", None)
    if not isinstance(kept, dict):
        broken("toctree_parents_only", "env.files_to_rebuild is no dict of toctree parents",
               "every toctree parent is written again")
        yield
        return
    env.files_to_rebuild = {d: parents for d, parents in kept.items() if d in docnames}
    try:
        yield
    finally:
        env.files_to_rebuild = kept


def wrap_write_documents(app, make) -> bool:
    """``Builder.write_documents(docnames)`` wrapped (smallbuild.py), so that a few pages
    are written in one process (``builder.parallel_ok`` off for that call).

    Public stand-in: ``-j`` / ``parallel_write_safe``, which fix the choice for the whole
    build.  Cost without it: a parallel write of a few pages forks workers that each work
    out the navigation and the theme's sidebar again (seconds at a hundred books).
    Breaks when: the method or ``parallel_ok`` goes; then pages are written as Sphinx
    chooses (a warning)."""
    if not hasattr(app.builder, "parallel_ok"):
        broken("wrap_write_documents", "the builder has no parallel_ok", "pages are written as Sphinx chooses")
        return False
    return _replace(app, "wrap_write_documents", "write_documents", make)


@contextlib.contextmanager
def serial_write(builder):
    """``builder.parallel_ok`` off for the block (see `wrap_write_documents`)."""
    if not getattr(builder, "parallel_ok", False):
        yield
        return
    builder.parallel_ok = False
    try:
        yield
    finally:
        builder.parallel_ok = True


def read_serially(app) -> None:
    """env-before-read-docs: read this build's few pages in one process (``app.parallel``
    set to 1 until `restore_parallel`, at env-updated).

    Public stand-in: ``parallel_read_safe``, for every build alike.  Cost without it: each
    parallel reader sends the whole environment back pickled: at a hundred books (16 MB)
    about 1.5 s to read one edited page.  Breaks when: Sphinx decides a parallel read by
    something other than ``app.parallel`` after env-before-read-docs; then the read is
    parallel again (slower, correct; tests/test_sphinx_compat.py notices)."""
    if not isinstance(getattr(app, "parallel", None), int):
        broken("read_serially", "app.parallel is no number", "pages are read as Sphinx chooses")
        return
    if app.parallel > 1:
        buildstate.of(app)["parallel"] = app.parallel
        _count(app, "read_serially")
        app.parallel = 1


def restore_parallel(app) -> None:
    """env-updated: ``app.parallel`` as it was before `read_serially`."""
    saved = buildstate.of(app).pop("parallel", None)
    if saved is not None:
        app.parallel = saved


def wrap_write_genindex(app, make) -> bool:
    """``StandaloneHTMLBuilder.write_genindex()`` wrapped (finish.py): skipped when its
    inputs did not change, and split so that no letter's page grows with the library.

    Public stand-in: none (``html_use_index`` only turns it off; ``html-collect-pages``
    can add pages, not take Sphinx's out).  Cost without it: the whole general index
    written after every build, most of a no-change rebuild at a hundred books.  Breaks
    when: the method is renamed or takes parameters; then Sphinx writes it every build."""
    return _replace(app, "wrap_write_genindex", "write_genindex", make)


def wrap_dump_inventory(app, make) -> bool:
    """``StandaloneHTMLBuilder.dump_inventory()`` wrapped (finish.py): ``objects.inv`` is
    written again only when the domains' objects or the project's name changed.

    Public stand-in: none.  Cost without it: the inventory of every object rewritten each
    build.  Breaks when: renamed or given parameters; then Sphinx writes it every build."""
    return _replace(app, "wrap_dump_inventory", "dump_inventory", make)


def wrap_gen_additional_pages(app, make) -> bool:
    """``StandaloneHTMLBuilder.gen_additional_pages()`` wrapped (finish.py): the search page
    (whose sidebar is the whole navigation) written again only when it could differ.

    Public stand-in: ``html-collect-pages`` adds pages, it cannot keep Sphinx from
    writing its own.  Breaks when: renamed or given parameters; then written every build."""
    return _replace(app, "wrap_gen_additional_pages", "gen_additional_pages", make)


def general_index(app, builder) -> list:
    """The general index as Sphinx's html builder makes it for ``genindex.html``:
    ``IndexEntries(env).create_index(builder)`` (sphinx.environment.adapters, not part of
    the documented API).

    Public stand-in: none that gives the entries grouped by letter.  Breaks when: the
    adapter moves or changes its signature; raises `CompatError` (finish.py then lets
    Sphinx write its own index)."""
    try:
        from sphinx.environment.adapters.indexentries import IndexEntries
        return IndexEntries(app.env).create_index(builder)
    except (ImportError, TypeError, AttributeError) as why:
        raise CompatError(f"general_index: {why} ({versions()})") from why


def build_info_hashes(app) -> tuple:
    """(config_hash, tags_hash) of the html builder's ``build_info``: what Sphinx itself
    compares to decide that every page is out of date.

    Public stand-in: none (``app.config`` would have to be digested again, with Sphinx's
    own rules of which values count).  Breaks when: the attributes go; then (None, None)
    with a warning, and the keys that use them are never trusted (finish.py writes its
    pages every build: slower, correct)."""
    info = getattr(app.builder, "build_info", None)
    if info is None:
        return (None, None)
    hashes = (getattr(info, "config_hash", None), getattr(info, "tags_hash", None))
    if None in hashes:
        broken("build_info_hashes", "builder.build_info has no config_hash or tags_hash",
               "the end-of-build pages are written every build")
        import uuid
        return (uuid.uuid4().hex, None)          # a key never seen again: nothing skipped
    return hashes


def fail_build(app) -> None:
    """Make ``sphinx-build`` exit non-zero although the build finished (failing worked
    examples with ``rules_fail_on_error`` and no ``-W``): ``app.statuscode = 1``.

    Public stand-in: an error logged, which ``sphinx-build`` reports but exits 0 on
    without ``-W``.  Breaks when: Sphinx stops returning ``statuscode``; test_docs.py's
    failing-example build notices."""
    app.statuscode = 1


# ------------------------------------------------------------------ the full-text search index
#: the indexer's fields `SearchIndex` reads and writes (sphinx.search.IndexBuilder)
INDEXER_FIELDS = ("_titles", "_filenames", "_all_titles", "_index_entries", "_mapping", "_title_mapping",
                  "_env_version", "_word_collector", "formats", "load")


def indexer_shape(indexer) -> str | None:
    """None when `indexer` has every field `SearchIndex` relies on, else what it lacks."""
    missing = [f for f in INDEXER_FIELDS if not hasattr(indexer, f)]
    if missing:
        return f"the search indexer ({type(indexer).__name__}) has no {', '.join(missing)}"
    try:
        params = tuple(inspect.signature(indexer._word_collector).parameters)
    except (TypeError, ValueError):
        params = None
    if len(params or ()) != 1:
        return f"the search indexer's _word_collector takes {params}, not ('doctree',)"
    return None


def wrap_search_indexing(app, load, feed, dump) -> bool:
    """``load_indexer(docnames)``, ``index_page(pagename, doctree, title)`` and
    ``dump_search_index()`` of the html builder replaced by `load`, `feed` and `dump`
    (each given Sphinx's own method), for fulltext.py: a page whose words did not change
    is not fed again, and an index no page changed is neither loaded nor dumped.

    Public stand-in: none (``html_search_*`` options choose the language, not when the
    index is made).  Cost without it: Sphinx loads and dumps the whole ``searchindex.js``
    whenever a page is written: 5.4 MB and half a second after any edit at a hundred
    books.  Breaks when: one of the three is renamed or takes other parameters; then
    none is replaced (a warning) and Sphinx makes the index its own way."""
    builder = app.builder
    wrong = [w for w in (method_shape(builder, m) for m in ("load_indexer", "index_page", "dump_search_index"))
             if w is not None]
    if wrong:
        broken("wrap_search_indexing", "; ".join(wrong), "Sphinx makes the search index its own way (slower)")
        return False
    ok = _replace(app, "wrap_search_indexing.load_indexer", "load_indexer", load)
    ok = _replace(app, "wrap_search_indexing.index_page", "index_page", feed) and ok
    return _replace(app, "wrap_search_indexing.dump_search_index", "dump_search_index", dump) and ok


class SearchIndex:
    """The private fields of Sphinx's search indexer (`sphinx.search.IndexBuilder`) that
    fulltext.py needs to keep a loaded index and feed it only the pages that changed.

    Public stand-in: none; `IndexBuilder.prune(docnames)` (semi-public) keeps a set of
    pages, and feeding always collects words again.  Why: see `wrap_search_indexing`.
    Breaks when: a field goes or changes type (`indexer_shape`): `usable` is then False
    with a warning, and fulltext.py feeds every page written, Sphinx's way (slower)."""

    def __init__(self, indexer):
        self.indexer = indexer

    def usable(self) -> bool:
        """Every field is there (warns once per build when not)."""
        wrong = indexer_shape(self.indexer)
        if wrong is not None:
            broken("SearchIndex", wrong, "every page written is fed again, Sphinx's way")
            return False
        return True

    def collect_words(self, doctree):
        """What Sphinx's word collector takes from a page (`IndexBuilder._word_collector`)."""
        return self.indexer._word_collector(doctree)

    @contextlib.contextmanager
    def words_given(self, store):
        """Feed with `store` as the page's words (collected once, not again by `feed`)."""
        self.indexer._word_collector = lambda _doctree: store
        try:
            yield
        finally:
            del self.indexer._word_collector

    def forget(self, docname: str) -> None:
        """Take one page out of a loaded index (the complement of Sphinx's `prune` for one
        page, before the page is fed again)."""
        indexer = self.indexer
        for attr in ("_titles", "_filenames", "_all_titles", "_index_entries"):
            getattr(indexer, attr, {}).pop(docname, None)
        for attr in ("_mapping", "_title_mapping"):
            for docs in getattr(indexer, attr, {}).values():
                docs.discard(docname)

    def drop_empty_terms(self) -> None:
        """Take out every word and title word no page holds any more (`prune` and `forget`
        empty a word's pages but keep the word, and `freeze` writes it: after a rule is
        deleted the search page still found its words, where a clean build has none)."""
        for attr in ("_mapping", "_title_mapping"):
            mapping = getattr(self.indexer, attr, None)
            if isinstance(mapping, dict):
                for word in [w for w, docs in mapping.items() if not docs]:
                    del mapping[word]

    def order_entries(self) -> None:
        """The pages' index entries in page order, however the pages were fed (a rebuild
        feeds a few pages after the loaded ones: a clean build feeds them in order)."""
        entries = getattr(self.indexer, "_index_entries", None)
        if isinstance(entries, dict):
            ordered = sorted(entries.items())
            entries.clear()
            entries.update(ordered)

    @contextlib.contextmanager
    def entries_kept_on_load(self):
        """Around Sphinx's `load_indexer`: put the index entries of the pages kept back in.

        Sphinx's `IndexBuilder.load` reads the words and titles of the index on disk but
        not its index entries (it keeps them in the environment, saved before the pages
        are written): after a rebuild that loads the index, the entries of every page not
        written again were gone from the search page (Sphinx issue #12599).  The index
        file holds them (lower-cased, as `freeze` writes them), so they are read back from
        it for each page the load keeps.  (`IndexBuilder.load` is replaced on the instance
        for the call, to see the data it reads.)"""
        indexer = self.indexer
        captured = {}
        load = indexer.load

        class Given:
            def __init__(self, frozen):
                self.frozen = frozen

            def load(self, _stream):
                return self.frozen

        def load_capturing(stream, format):
            if isinstance(format, str):
                format = indexer.formats[format]
            captured["frozen"] = frozen = format.load(stream)
            return load(stream, Given(frozen))
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
        titles = getattr(indexer, "_titles", {})
        back = {}
        for entry, hits in (frozen.get("indexentries") or {}).items():
            for i, target, main in hits:
                doc = names[i] if 0 <= i < len(names) else None
                if doc is not None and doc not in had and doc in titles:
                    back.setdefault(doc, []).append((entry, target, "main" if main else ""))
        for doc, items in back.items():
            entries[doc] = sorted(items)


# ------------------------------------------------------------------ the standard domain
def virtual_doc_names() -> dict:
    """{name: (docname, title)} of the pages a toctree may list that are no documents
    (genindex, modindex, search): ``StandardDomain._virtual_doc_names``.

    Public stand-in: none (Sphinx hard-codes them there).  Used by navigation.py, which
    renders the sidebar's tree the way Sphinx's toctree does.  Breaks when: the mapping
    moves or changes shape; raises `CompatError` (navigation.py then leaves the sidebar
    to Sphinx, with a warning)."""
    from sphinx.domains.std import StandardDomain
    names = getattr(StandardDomain, "_virtual_doc_names", None)
    if not isinstance(names, dict) or not all(
            isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str) for v in names.values()):
        raise CompatError(f"virtual_doc_names: StandardDomain._virtual_doc_names is gone or changed ({versions()})")
    return dict(names)


# ------------------------------------------------------------------ furo
def furo_navigation(app, make) -> bool:
    """furo's sidebar pass, ``furo.navigation.get_navigation_tree(toctree_html)``,
    replaced in furo's namespace by `make(furo's own function)` for the length of the
    build (put back at build-finished) (furo_nav.py: the pass done once per folder and
    kept between builds, the current page's marks put back by regex).

    Public stand-in: an ``html-page-context`` handler after furo's could replace
    ``furo_navigation_tree`` in the context, but only after furo has made it: the cost
    is furo's pass itself (BeautifulSoup over the whole tree, about 230 ms a page at 25
    books, close to a second at a hundred).  Breaks when: furo no longer looks the
    function up in its package namespace at page time (``furo._compute_navigation_tree``),
    or renames it; then nothing is replaced (a warning) and furo makes every tree.  The
    regex side (furo's markup: ``<li class>``, the checkbox ``<input>`` with
    ``checked=""``) falls back to furo's own tree for anything it does not recognise;
    tests/test_sphinx_compat.py checks that it recognises furo's current markup."""
    try:
        import furo
    except ImportError:
        return False
    original = getattr(furo, "get_navigation_tree", None)
    if getattr(original, "_rules_dsl", False):     # replaced by an earlier build of this process
        original = original.furo_own
    compute = getattr(furo, "_compute_navigation_tree", None)
    code = getattr(compute, "__code__", None)
    if (original is None or code is None or "get_navigation_tree" not in code.co_names
            or getattr(compute, "__globals__", {}).get("__name__") != "furo"):
        broken("furo_navigation", "furo no longer makes its sidebar with furo.get_navigation_tree",
               "furo makes every page's tree its own way (slower)")
        return False
    furo_own = getattr(original, "__wrapped__", original)
    replacement = make(furo_own)
    build = weakref.ref(app)             # the function outlives the build: it must not keep the app

    def get_navigation_tree(toctree_html: str) -> str:
        current = build()
        if current is not None:
            _count(current, "furo_navigation")
        return replacement(toctree_html)
    get_navigation_tree._rules_dsl = True
    get_navigation_tree.furo_own = original
    furo.get_navigation_tree = get_navigation_tree

    def restore(_app, _exc=None):
        """build-finished (last): furo's own function back, so the replacement lives as
        long as this build and no other build of the process (another project, another
        theme configuration) sees it."""
        if furo.get_navigation_tree is get_navigation_tree:
            furo.get_navigation_tree = original
    app.connect("build-finished", restore, priority=1000)
    return True
