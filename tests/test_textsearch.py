"""textsearch.py: how text becomes search terms, the vocabulary, and how a rule scores.

The site's ranking is held to the same definition by tests/test_search_js.py; here, the
definition itself: stop words and stems, hyphens, the vocabulary's concepts (a book's
own groups for its own rules only), the scoring's properties, the `vocabulary` header
line and its errors, and the caches that must be rebuilt when the search data changes.
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import write_book
from rules_dsl.faces import textsearch as ts
from rules_dsl.errors import RulebookError


def terms(text):
    return [t[0] for t in ts.tokens(text)]


def test_stop_words_go_and_words_are_stemmed():
    assert terms("Can I shoot after running?") == ["shoot", "after", "run"]
    assert terms("how many actions do I get") == ["action"]
    assert terms("The models' dice") == ["model", "dice"]
    # "can" is a stop word; "cannot" is a word of its own
    assert "can" not in terms("can cannot") and "cannot" in terms("can cannot")


def test_a_hyphenated_word_is_its_parts_and_its_joined_spelling():
    toks = ts.tokens("re-roll dice")
    assert toks == [("re", 0, False), ("roll", 1, False), ("rerol", 1, True), ("dice", 2, False)]
    assert [s.stem for s in ts.query_slots("re-roll")] == ["rerol"] == [s.stem for s in ts.query_slots("reroll")]


def test_folding_outside_ascii_and_apostrophes():
    assert ts.words("Blütkreuz don’t") == ["blutkreuz", "dont"]
    assert ts.stem("s") == "s"          # Porter leaves nothing: the word itself


def test_stop_words_take_no_place_so_phrases_stay_side_by_side():
    d = ts.analyse(ts.rule_fields("T", [], [], "Draw a line of sight to it.", "", ""), ts.shared_vocabulary())
    line, sight = d["terms"]["line"][1][3], d["terms"]["sight"][1][3]
    assert sight[0] == line[0] + 1
    assert d["terms"]["~line_sight"][1][3] == sight      # the concept, at the phrase's last place


def test_the_shared_vocabulary_is_well_formed():
    v = ts.shared_vocabulary()
    assert len(v.entries) > 100
    concepts = {e[1] for e in v.entries}
    for phrase, concept, broader in v.entries:
        assert phrase and concept.startswith("~")
        assert all(b in concepts or not b.startswith("~") for b in broader)
    # "running" finds moving (broader), "move" does not find running
    run = ts.expand(ts.query_slots("running"), [(None, v)])[0].terms
    assert ("~move", ts.RANK["broader"], 0, None) in run
    move = ts.expand(ts.query_slots("move"), [(None, v)])[0].terms
    assert not any(t[0] in ("run", "~run") for t in move)


def test_a_multi_word_phrase_covers_the_words_it_spans():
    slots = ts.expand(ts.query_slots("line of sight"), [(None, ts.shared_vocabulary())])
    doc = {"~line_sight": 0.5}
    base, covered, _best = ts.score_parts(slots, {"line": 1.0, "sight": 1.0, "~line_sight": 2.0}, doc, "b")
    assert covered == [True, True] and base == pytest.approx(ts.RANK["synonym"] * 2.0 * 0.5)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=5, max_size=5), st.lists(st.integers(0, 200), min_size=5, max_size=5))
def test_a_terms_weight_grows_with_its_count_and_saturates(tf, lens):
    lens = [max(a, b) for a, b in zip(lens, tf)]
    w = ts.term_weight(tf, lens)
    assert w >= 0 and 0 <= ts.saturated(w) < 1
    more = list(tf)
    more[0] += 1
    assert ts.term_weight(more, [lens[0] + 1] + lens[1:]) > w


def test_idf_falls_as_more_rules_hold_a_term():
    assert ts.idf(100, 1) > ts.idf(100, 10) > ts.idf(100, 90) > 0


def test_nearness_is_rewarded():
    slots = ts.query_slots("heavy weapon")
    idfs = {"heavi": 1.0, "weapon": 1.0}
    near = {"heavi": {3: [4]}, "weapon": {3: [5]}}
    far = {"heavi": {3: [4]}, "weapon": {3: [40]}}
    doc = {"heavi": 0.5, "weapon": 0.5}
    a, _ = ts.score(slots, idfs, doc, "b", lambda t: near[t])
    b, _ = ts.score(slots, idfs, doc, "b", lambda t: far[t])
    assert a > b == ts.rounded(0.5 + 0.5)


# ------------------------------------------------------------------ a book's own vocabulary
def test_a_books_vocabulary_applies_to_its_own_rules_only(demo_books):
    """Book `a` says players call "frobnicate" "zorch", and adds "pew pew" to the shared
    shooting group: its rules are found so; book `b`'s rules are not (a book can never
    change how another book's rules rank)."""
    from rules_dsl.faces import index
    head = 'book {b} {{\n  title "{t}"\n{v}}}\n'
    write_book(demo_books, "a", 'rule r1 "Alpha" {\n  """You may frobnicate once, or pew pew twice."""\n}\n',
               header=head.format(b="a", t="A", v='  vocabulary "zorch", "frobnicate"\n  vocabulary "shoot", "pew pew"\n'))
    write_book(demo_books, "b", 'rule r2 "Beta" {\n  """Zorch everything; pew pew at will."""\n}\n',
               header=head.format(b="b", t="B", v=""))
    idx = index.ensure_index()

    def found(q):
        return [f"{r['book']}:{r['rule']}" for r in idx.lookup(q, limit=5)]
    assert found("zorch") == ["b:r2", "a:r1"]          # b's literally, a's by its synonym
    assert found("frobnicate") == ["a:r1"]             # a's synonym is not b's
    assert "a:r1" in found("fire") and "b:r2" not in found("fire")


def test_vocabulary_lines_in_a_book_header():
    from rules_dsl.language import parser
    text = 'book v {\n  title "V"\n  vocabulary "gun down", "pew pew" -> "shoot", "attack"\n  vocabulary "zap"\n}\n'
    groups = parser.parse_text(text, "v.rules").header.vocabulary
    assert [(g.phrases, g.broader) for g in groups] == [(("gun down", "pew pew"), ("shoot", "attack")), (("zap",), ())]


@pytest.mark.parametrize("line, message", [
    ('vocabulary "can", "the"', "has no word search would look for"),
    ('vocabulary "one two three four five six seven"', "at most 6 words"),
    ("vocabulary " + ", ".join(f'"w{i}"' for i in range(31)), "at most 30 phrases"),
])
def test_a_bad_vocabulary_line_is_a_clear_error(line, message):
    from rules_dsl.language import parser
    with pytest.raises(RulebookError) as e:
        parser.parse_text(f'book v {{\n  title "V"\n  {line}\n}}\n', "v.rules")
    assert message in str(e.value) and "v.rules:3:" in str(e.value)


# ------------------------------------------------------------------ caches follow the search data
def test_changing_the_shared_vocabulary_rebuilds_what_depends_on_it(demo_books, tmp_path, monkeypatch):
    """The stop words and the vocabulary are in the keys of every book's index entry (so
    of the site's search parts) and in the lookup index's freshness check."""
    from rules_dsl.faces import index, index_build
    from rules_dsl.library.loader import Library
    vocab = tmp_path / "vocabulary.txt"
    vocab.write_text(open(ts.VOCABULARY_FILE, encoding="utf-8").read(), encoding="utf-8")
    monkeypatch.setattr(ts, "VOCABULARY_FILE", str(vocab))
    ts.shared_groups.cache_clear()
    ts.shared_vocabulary.cache_clear()
    try:
        lib = Library(demo_books, demo_books.parent / "cache")
        key, fp = index_build.book_keys(lib)[1]["demo"], index.source_fingerprint()
        vocab.write_text(vocab.read_text(encoding="utf-8") + "frobnicate, zorch\n", encoding="utf-8")
        ts.shared_groups.cache_clear()
        ts.shared_vocabulary.cache_clear()
        assert index_build.book_keys(lib)[1]["demo"] != key
        assert index.source_fingerprint() != fp
    finally:
        ts.shared_groups.cache_clear()
        ts.shared_vocabulary.cache_clear()


def test_rules_lookup_names_the_words_no_rule_mentions():
    import subprocess
    import sys

    from conftest import REPO
    proc = subprocess.run([sys.executable, "-m", "rules_dsl", "lookup", "how do I play chess", "--limit", "2"],
                          capture_output=True, text=True, timeout=300, cwd=REPO)
    assert proc.returncode == 0 and "null-strike:play" in proc.stdout
    assert "no rule mentions 'chess'" in proc.stderr and "'play'" not in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "rules_dsl", "lookup", "how many actions do I get", "--json"],
                          capture_output=True, text=True, timeout=300, cwd=REPO)
    import json
    first = json.loads(proc.stdout)[0]
    assert first["matched"] == ["actions"] and proc.stderr == ""


def test_the_sites_search_parts_are_made_again_when_the_vocabulary_changes(demo_books, tmp_path, monkeypatch):
    """The site's build keys each book's search part by its inputs: the search data is one
    of them, so a vocabulary edit remakes every book's part (and none is read otherwise)."""
    from rules_dsl.faces import index_build
    from rules_dsl.library.loader import Library
    from rules_dsl.sphinxext import search_index
    vocab = tmp_path / "vocabulary.txt"
    vocab.write_text("shoot, fire\n", encoding="utf-8")
    monkeypatch.setattr(ts, "VOCABULARY_FILE", str(vocab))
    for f in (ts.shared_groups, ts.shared_vocabulary):
        f.cache_clear()
    write_book(demo_books, "other", 'rule r "Other" {\n  """Pew pew."""\n}\n')
    lib = Library(demo_books, demo_books.parent / "cache")
    try:
        first = search_index.library_parts(lib)
        asked = []
        real = index_build.book_entries
        monkeypatch.setattr(index_build, "book_entries", lambda library, only=None: asked.append(sorted(only)) or real(library, only))
        assert search_index.library_parts(lib) == first and asked == []
        vocab.write_text("shoot, fire, pew pew\n", encoding="utf-8")
        for f in (ts.shared_groups, ts.shared_vocabulary):
            f.cache_clear()
        again = search_index.library_parts(lib)
        assert asked == [["demo", "other"]]
        assert "~shoot" in again["other"]["stats"] and "~shoot" not in first["other"]["stats"]
    finally:
        for f in (ts.shared_groups, ts.shared_vocabulary):
            f.cache_clear()
