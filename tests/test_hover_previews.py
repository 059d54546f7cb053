"""The hover previews' files (rules_dsl/sphinxext/previews.py): one per book, written
only for books whose previews changed, deleted with their book, loaded back whole."""
from __future__ import annotations

from hypothesis import given, strategies as st

from rules_dsl.sphinxext import previews
from rules_dsl.sphinxext.outdated import object_changes


def _objects(**texts):
    """(objtype, fullname) -> (docname, anchor, title, preview), as the domain keeps them."""
    out = {}
    for fullname, text in texts.items():
        fullname = fullname.replace("__", ":").replace("_", "-")
        objtype = "book" if ":" not in fullname else "rule"
        out[(objtype, fullname)] = (f"docs/books/{fullname.split(':')[0]}/p", fullname, fullname.title(), text)
    return out


def test_each_book_gets_a_file_of_its_objects_texts_by_anchor(tmp_path):
    objs = _objects(a="Book A.", a__one="First.", a__two="", b__one="Other.")
    written = previews.write_files(tmp_path, objs, None)
    assert written == ["a.js", "b.js"]
    a = previews.loads((tmp_path / "a.js").read_text(encoding="utf-8"))
    assert a == {"v": 1, "book": "a", "previews": {"a": "Book A.", "a:one": "First."}}   # no text, no entry
    assert previews.loads((tmp_path / "b.js").read_text(encoding="utf-8"))["previews"] == {"b:one": "Other."}


def test_only_changed_or_missing_books_are_written_and_gone_books_deleted(tmp_path):
    before = _objects(a__one="First.", b__one="Other.", c__one="Third.")
    previews.write_files(tmp_path, before, None)
    stamp = {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir()}
    # a's text changes; c is gone; d is new; b's file was deleted by hand
    (tmp_path / "b.js").unlink()
    after = _objects(a__one="First, edited.", b__one="Other.", d__one="New.")
    done = previews.write_files(tmp_path, after, object_changes(before, after))
    assert done == ["a.js", "b.js", "d.js", "c.js"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.js", "b.js", "d.js"]
    assert "First, edited." in (tmp_path / "a.js").read_text(encoding="utf-8")
    # nothing changed: nothing written, nothing read
    stamp = {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir()}
    assert previews.write_files(tmp_path, after, object_changes(after, dict(after))) == []
    assert {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir()} == stamp


def test_a_title_change_alone_writes_no_file():
    """Titles are in the pages' links, not in the files: a retitle is the pages' business."""
    before = _objects(a__one="First.")
    after = {k: (d, a, "Retitled", p) for k, (d, a, _t, p) in before.items()}
    assert object_changes(before, after) != {}
    assert previews.changed_books(object_changes(before, after)) == set()
    moved = {k: (d, a + "-x", t, p) for k, (d, a, t, p) in before.items()}
    assert previews.changed_books(object_changes(before, moved)) == {"a"}
    assert previews.changed_books(None) is None


@given(st.text())
def test_any_text_survives_the_file_and_cannot_end_the_call(text):
    """A book's text (markup, quotes, line separators, "</script>") is data in a JSON
    string: the file is one line, one call, and gives the text back exactly."""
    body = previews.dumps("a", {"a:x": text})
    assert body.startswith("RulesPreviews(") and body.endswith(");\n")
    assert "\n" not in body[:-1] and "\u2028" not in body and "\u2029" not in body
    assert previews.loads(body)["previews"]["a:x"] == text
