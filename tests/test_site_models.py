"""The site's model cache: a rebuild reads each unchanged book's small head entry
only, and its render model when one of its pages is rendered."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rules_dsl.sphinxext import models

REPO = Path(__file__).resolve().parent.parent
BOOK = "skirmish-tutorial"


@pytest.fixture
def library(tmp_path, monkeypatch):
    books = tmp_path / "books"
    books.mkdir()
    shutil.copy(REPO / "rulebooks" / f"{BOOK}.rules", books / f"{BOOK}.rules")
    monkeypatch.setenv("RULES_DSL_BOOKS", str(books))
    monkeypatch.setenv("RULES_DSL_CACHE", str(tmp_path / "cache"))
    return books


def _load(folder):
    cache = models.ModelCache(folder)
    lazy, summaries, problems = models.load_models(cache)
    cache.save()
    return cache, lazy, summaries, problems


def test_unchanged_book_is_not_compiled_and_its_model_is_read_when_asked(library, tmp_path, monkeypatch):
    folder = tmp_path / "models"
    _, lazy, summaries, problems = _load(folder)
    assert problems == [] and list(lazy) == [BOOK] and list(summaries) == [BOOK]
    first = lazy[BOOK]
    assert sorted(p.name for p in folder.iterdir()) == [f"{BOOK}.head.pickle", f"{BOOK}.pickle"]
    # the summary carries what the pages across books need, and no more than that
    s = summaries[BOOK]
    assert s["title"] == first["title"] and set(s["rules"]) == set(first["rules"])
    assert all(set(r) == {"id", "title", "keywords", "aliases", "definition", "refs", "terms"}
               for r in s["rules"].values())

    monkeypatch.setattr(models, "_build_entry", lambda *a, **k: pytest.fail("an unchanged book was compiled"))
    cache, lazy, summaries, _ = _load(folder)
    assert cache.full == {}                         # no model read yet
    assert lazy[BOOK] == first                      # read on demand, the same model
    assert set(cache.full) == {BOOK}
    with pytest.raises(KeyError):
        lazy["no-such-book"]


def test_a_missing_or_damaged_model_file_is_made_again(library, tmp_path):
    folder = tmp_path / "models"
    _, lazy, _, _ = _load(folder)
    first = lazy[BOOK]
    (folder / f"{BOOK}.pickle").unlink()
    _, lazy, _, _ = _load(folder)
    assert lazy[BOOK] == first
    (folder / f"{BOOK}.head.pickle").write_bytes(b"not a pickle")
    _, lazy, summaries, problems = _load(folder)
    assert lazy[BOOK] == first and problems == [] and BOOK in summaries


def test_an_edit_rewrites_that_book_and_a_removed_book_loses_its_files(library, tmp_path):
    folder = tmp_path / "models"
    _load(folder)
    src = library / f"{BOOK}.rules"
    text = src.read_text(encoding="utf-8")
    i = text.index('"""', text.index("\nrule ") if "\nrule " in text else 0)
    src.write_text(text[:i + 3] + "Edited. " + text[i + 3:], encoding="utf-8")
    assert "Edited." not in text
    _, lazy, _, _ = _load(folder)
    assert "Edited." in repr(lazy[BOOK])
    src.unlink()
    _, lazy, summaries, _ = _load(folder)
    assert list(lazy) == [] and summaries == {} and list(folder.iterdir()) == []


def test_the_pages_across_books_keep_their_data_until_its_key_changes(tmp_path):
    from rules_dsl.sphinxext.site import CrossBookCache
    made = []
    store = CrossBookCache(tmp_path / "_crossbook")
    assert store.get("xindex", "k1", lambda: made.append(1) or ["one"]) == ["one"]
    again = CrossBookCache(tmp_path / "_crossbook")
    assert again.get("xindex", "k1", lambda: made.append(2) or ["two"]) == ["one"]    # kept: not made again
    assert again.get("xindex", "k2", lambda: made.append(3) or ["three"]) == ["three"]  # another key: made
    assert again.get("glossary", "k1", lambda: made.append(4) or ["four"]) == ["four"]  # one file a part
    assert made == [1, 3, 4]
    (tmp_path / "_crossbook" / "xindex.pickle").write_bytes(b"not a pickle")   # damaged: made again, no error
    assert CrossBookCache(tmp_path / "_crossbook").get("xindex", "k2", lambda: ["five"]) == ["five"]


def test_the_collector_is_paused_while_the_state_loads_and_runs_again_after():
    import gc
    from types import SimpleNamespace
    from rules_dsl.sphinxext import gcpause
    assert gc.isenabled()
    app = SimpleNamespace()
    try:
        gcpause.pause(app)
        assert not gc.isenabled()
        loaded = [object() for _ in range(10)]
        gcpause.resume(app)
        assert gc.isenabled() and gc.get_freeze_count() >= len(loaded)
        gcpause.release(app)
        # kept frozen past the build (the process's exit does not walk it) ...
        assert gc.isenabled() and gc.get_freeze_count() >= len(loaded)
        # ... until the next build of the process starts: the old state may then be freed
        again = SimpleNamespace()
        gcpause.pause(again)
        assert not gc.isenabled() and gc.get_freeze_count() == 0
        gcpause.release(again, RuntimeError("x"))     # a build that fails before builder-inited
        assert gc.isenabled() and gc.get_freeze_count() == 0
        gcpause.pause(app)
        gcpause.resume(app)
        gcpause.release(app)
        gcpause.unfreeze()                            # a process that goes on without building
        assert gc.isenabled() and gc.get_freeze_count() == 0
    finally:
        gc.enable()
        gc.unfreeze()
        gcpause._FROZEN.clear()

