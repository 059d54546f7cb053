"""The caches below the website give, after any edits, what an empty cache gives (issue 31).

"A cache may skip work, never change an answer." The same random sequences of edits as
the site's property (tests/rebuild_books.py; tests/test_site_rebuild.py builds the site)
are made to small books, and after each step:

* **the compiled-book cache** (`Library`: the parsed files on disk, the compiled books
  in memory): every book loaded from the library that lived through the edits equals
  the book loaded by a new library with an empty cache (its syntax tree, source
  positions included; its open data; its findings; its worked examples' outcomes), and
  a book that does not compile fails with the same diagnostics;
* **the lookup index** (`rules lookup`: the SQLite file rebuilt from each book's cached
  part): its whole content (`iterdump`) equals that of an index built from an empty
  cache, and so do the answers to lookups of every word the books use;
* **the site's model cache** (`sphinxext.models`: each book's head and model kept in
  the doctree folder, the derived results kept in the cache folder): the models, the
  summaries, the digests and the problems equal those made from empty folders.

These run in the fast loop (no Sphinx build): ``RULES_REBUILD_EXAMPLES`` (default 15
here) and ``RULES_REBUILD_STEPS`` (default 6) make a longer run by hand.
"""
from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
from pathlib import Path

from hypothesis import example, given, settings

import rebuild_books as rb

EXAMPLES = int(os.environ.get("RULES_REBUILD_EXAMPLES", "15"))
STEPS = int(os.environ.get("RULES_REBUILD_STEPS", "6"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=not os.environ.get("RULES_REBUILD_EXAMPLES"))


@contextlib.contextmanager
def _environment(**values):
    """Set environment variables for the block (the default library reads them at each use)."""
    old = {k: os.environ.get(k) for k in values}
    os.environ.update({k: str(v) for k, v in values.items()})
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@contextlib.contextmanager
def _fresh_default():
    """The default library replaced by a new one for the block: nothing compiled in memory."""
    from rules_dsl.library import loader
    kept = loader.DEFAULT
    loader.DEFAULT = loader.Library()
    try:
        yield
    finally:
        loader.DEFAULT = kept


def first_difference(a, b, path="") -> str:
    """Where two nested values first differ (a readable failure for big models)."""
    if type(a) is not type(b):
        return f"{path}: {type(a).__name__} {a!r:.200} != {type(b).__name__} {b!r:.200}"
    if isinstance(a, dict):
        for k in sorted(a.keys() | b.keys(), key=repr):
            if k not in a or k not in b:
                return f"{path}[{k!r}]: only in {'the cached' if k in a else 'the fresh'}"
            if a[k] != b[k]:
                return first_difference(a[k], b[k], f"{path}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return first_difference(x, y, f"{path}[{i}]")
        if len(a) != len(b):
            return f"{path}: length {len(a)} != {len(b)}"
    return f"{path}: {a!r:.300} != {b!r:.300}"


def _steps(seq):
    """(step number, the library after it) for the start and each step."""
    lib = rb.start()
    yield 0, lib
    for k, step in enumerate(seq, 1):
        for edit in step:
            lib = rb.apply(lib, edit)
        yield k, lib


# ------------------------------------------------------------------ the compiled-book cache
def _book_state(library, bid: str):
    """Everything a load gives of a book, comparable across libraries."""
    from rules_dsl.faces import export
    from rules_dsl.errors import RulebookError
    try:
        book = library.load(bid)
    except RulebookError as e:
        return ("error", e.render())
    return ("book", book.ast, export.dumps(export.book_data(book, library)), book.findings,
            [(r.passed, r.report) for r in book.run_examples()])


@SETTINGS
@given(seq=rb.steps(STEPS))
@example(seq=rb.EVERY_KIND)
@example(seq=rb.DANGLING)
def test_a_load_after_edits_equals_a_load_from_an_empty_cache(seq):
    from rules_dsl.library.loader import Library
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        books = tmp / "books"
        kept = Library(books, cache=tmp / "cache")
        for k, lib in _steps(seq):
            rb.write(lib, books)
            fresh = Library(books, cache=tmp / f"empty-{k}")
            assert kept.book_ids() == fresh.book_ids()
            for bid in kept.book_ids():
                got, want = _book_state(kept, bid), _book_state(fresh, bid)
                assert got == want, (f"step {k}: book {bid} loaded through the cache differs from a fresh load: "
                                     + first_difference(got, want))


# ------------------------------------------------------------------ the lookup index and the site's models
def _each_step(seq, measure):
    """For the start and each step of `seq`: the books written to one folder (the default
    library's), then `measure(folder)` run with the cache that lived through the edits, and
    again with an empty cache and a new default library (nothing compiled in memory).
    Yields (step, kept result, fresh result)."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        books = tmp / "books"
        with _environment(RULES_DSL_BOOKS=books, RULES_DSL_JOBS=1):
            for k, lib in _steps(seq):
                rb.write(lib, books)
                with _environment(RULES_DSL_CACHE=tmp / "cache"):
                    kept = measure(tmp / "kept")
                with _environment(RULES_DSL_CACHE=tmp / f"empty-{k}"), _fresh_default():
                    fresh = measure(tmp / f"fresh-{k}")
                yield k, kept, fresh


WORDS = sorted(set(rb.WORDS) | {"Cover", "sniper marksman", "alpha:cover"})


def _lookup_index(_folder) -> tuple:
    """(the answers to a lookup of every word, the whole content of the SQLite file)."""
    from rules_dsl.faces import index
    idx = index.ensure_index()
    answers = [(w, [(r["book"], r["rule"], r["score"]) for r in idx.lookup(w, limit=10)]) for w in WORDS]
    con = sqlite3.connect(f"file:{index.index_path()}?mode=ro", uri=True)
    try:
        return answers, list(con.iterdump())
    finally:
        con.close()


@SETTINGS
@given(seq=rb.steps(STEPS))
@example(seq=rb.EVERY_KIND)
@example(seq=rb.DANGLING)
def test_the_lookup_index_after_edits_equals_one_built_from_an_empty_cache(seq):
    for k, (answers, content), (fresh_answers, fresh) in _each_step(seq, _lookup_index):
        assert answers == fresh_answers, f"step {k}: lookups differ from an index built afresh"
        differ = [(a, b) for a, b in zip(content, fresh) if a != b]
        assert len(content) == len(fresh) and not differ, f"step {k}: the index differs from one built afresh: {differ[:3]}"


def _models(doctrees: Path) -> tuple:
    """Everything the site's model cache gives a build, and what the next build reads back."""
    from rules_dsl.sphinxext import models
    cache = models.ModelCache(doctrees)
    loaded, summaries, problems = models.load_models(cache)
    cache.save()
    again = models.ModelCache(doctrees)
    return ({bid: loaded[bid] for bid in loaded}, summaries, sorted(problems, key=repr),
            {bid: head.get("digests") for bid, head in again.heads.items()},
            {bid: head.get("content_key") for bid, head in again.heads.items()})


@SETTINGS
@given(seq=rb.steps(STEPS))
@example(seq=rb.EVERY_KIND)
@example(seq=rb.DANGLING)
@example(seq=rb.FINDING_MOVED)
def test_the_sites_models_after_edits_equal_models_made_from_empty_folders(seq):
    for k, got, want in _each_step(seq, _models):
        for part, a, b in zip(("models", "summaries", "problems", "digests", "content keys"), got, want):
            assert a == b, f"step {k}: the {part} differ from those made afresh: {first_difference(a, b)}"
