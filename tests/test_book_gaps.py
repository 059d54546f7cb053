"""Book data that hides its own gaps (issue 31, item 6).

* An alias makes its rule the definition of a name; a rule that `uses` a name says
  it takes it from elsewhere.  A rule that uses its own alias (or title) hides a gap:
  the undefined-name check passes and a lookup lands on it.  That is a warning.
* A check that sweeps a table must not leave printed entries unread by every
  check: an `unchecked-rows` finding names them.
* The real books are fixed: the gaps the issue lists are undefined-name findings
  now, and no real book has either problem left.
"""
from __future__ import annotations

import pytest

import rules_dsl
from rules_dsl.analysis.checks import name_key

from conftest import write_book

REAL = ["dust-tactics", "null-strike", "skirmish-tutorial", "void", "warhammer-40k", "xenotactics"]


def _book(folder, body):
    write_book(folder, "t", body)
    return rules_dsl.Library(folder, cache=folder.parent / "cache").load("t")


# ----------------------------------------------------------- aliases and uses
def test_an_alias_the_rule_also_uses_is_a_warning_at_the_use(tmp_path):
    books = tmp_path / "books"
    books.mkdir()
    book = _book(books, 'rule marksman "Marksman" {\n    aliases "Marksmen", "Sniper Rifle"\n'
                        '    uses "sniper rifles"\n    """A marksman fires a sniper rifle."""\n}\n')
    (w,) = book.warnings
    assert w.severity == "warning" and (w.line, w.column) == (8, 10)
    assert "'sniper rifles' is both used by rule 'marksman' and one of its aliases ('Sniper Rifle')" in w.message
    assert "move the alias to `keywords`" in w.hint
    assert not [f for f in book.findings if f.kind == "undefined-name"]      # the gap the alias hides
    fixed = _book(books, 'rule marksman "Marksman" {\n    aliases "Marksmen"\n    keywords "Sniper Rifle"\n'
                         '    uses "sniper rifles"\n    """A marksman fires a sniper rifle."""\n}\n')
    assert not fixed.warnings
    (f,) = [f for f in fixed.findings if f.kind == "undefined-name"]
    assert f.printed == "sniper rifles"


def test_a_rule_that_uses_its_own_title_is_a_warning(tmp_path):
    books = tmp_path / "books"
    books.mkdir()
    book = _book(books, 'rule spotters "Spotters" {\n    uses "spotter"\n    """A spotter helps."""\n}\n')
    (w,) = book.warnings
    assert "is the title of the rule that uses it" in w.message and "remove it from `uses`" in w.hint


def test_an_alias_another_rule_uses_is_fine(tmp_path):
    books = tmp_path / "books"
    books.mkdir()
    book = _book(books, 'rule suppression "Suppression" {\n    aliases "Under Fire"\n    """Pinned."""\n}\n'
                        'rule attack "Attack" {\n    uses "Under Fire"\n    """Puts a unit Under Fire."""\n}\n')
    assert not book.warnings and not [f for f in book.findings if f.kind == "undefined-name"]


@pytest.mark.parametrize("book_id", REAL)
def test_no_real_book_hides_a_gap_behind_an_alias(book_id):
    book = rules_dsl.load(book_id)
    assert [w.message for w in book.warnings] == []


# the gaps issue 31 names, each now a finding of the book (spelled as the source spells it)
NAMED_GAPS = [
    ("void", "marksman", "Sniper Rifle"), ("void", "neural-spike-activation", "Lictor"),
    ("void", "neural-spike-activation", "Censor"), ("warhammer-40k", "going-into-hiding", "Tactical Dreadnought Armor"),
    ("warhammer-40k", "vp-support-weapon-batteries", "Support Weapons"), ("warhammer-40k", "bunkers", "support weapon"),
    ("warhammer-40k", "going-into-hiding", "vehicles"), ("warhammer-40k", "cavalry", "vehicles"),
    ("warhammer-40k", "attacking-buildings", "vehicle"), ("void", "terrifying", "morale check"),
    ("null-strike", "run", "clear terrain"),
]


@pytest.mark.parametrize("book_id, rule, name", NAMED_GAPS)
def test_the_named_gaps_are_findings_now(book_id, rule, name):
    book = rules_dsl.load(book_id)
    assert book.definer(name) is None, (name, book.definer(name))
    assert (rule, name) in {(f.rule, f.printed) for f in book.findings if f.kind == "undefined-name"}
    # recorded on the rule too: an absent note that names it
    notes = [name_key(n.text.text) for n in book.rule(rule).notes if n.kind == "absent"]
    assert any(f" {name_key(name)} " in f" {t} " for t in notes), notes


def test_terrifying_uses_the_source_s_words():
    rule = rules_dsl.load("void").rule("terrifying").node
    assert [u.name for u in rule.uses] == ["morale check"]


def test_a_lookup_of_an_undefined_weapon_still_finds_the_rule_but_not_as_its_name():
    from rules_dsl.faces.index import ensure_index
    hits = ensure_index().lookup("Sniper Rifle", book="void", limit=3)
    assert hits and hits[0]["rule"] == "marksman"
    assert "Sniper Rifle" not in hits[0]["aliases"] and "Sniper Rifle" in hits[0]["keywords"]
    assert hits[0]["score"] < 95          # not an exact alias any more


def test_the_victory_point_tables_do_not_define_vehicles():
    book = rules_dsl.load("warhammer-40k")
    assert book.rule("vp-vehicles").title == "Victory Points for Vehicles"
    assert book.definer("vehicles") is None and book.definer("Victory Points for Vehicles") == "vp-vehicles"


# ------------------------------------------------------------ table coverage
TABLE = '''rule bands "Bands" {
    """Points bands."""
    table vp(points: 0..1000) -> 0..3 "VP by points" {
        | points | vp |
        |---|---|
        | 0..100 | 0 |
        | 101..200 | 1 |
        | 201..300 | 2 |
        | 301..1000 | 3 |
    }
    mechanic band(points: 0..1000) -> 0..3 = if points <= 100 then 0 else if points <= 200 then 1 else if points <= 300 then 2 else 3
    CHECK
}
'''


def test_a_check_that_stops_short_of_a_table_s_rows_is_a_finding(tmp_path):
    books = tmp_path / "books"
    books.mkdir()
    short = 'check follows "The table follows the bands" { for p in 0..250: vp(p) == band(p) }'
    book = _book(books, TABLE.replace("CHECK", short))
    (f,) = [f for f in book.findings if f.kind == "unchecked-rows"]
    assert f.rule == "bands" and f.check == "follows"
    assert f.location.endswith(":14:11") and f.printed == "vp(points=301..1000)"
    assert "1 of its 4 printed entries are read by no check" in f.message and "(line 14)" in f.message
    whole = 'check follows "The table follows the bands" { for p in 0..1000: vp(p) == band(p) }'
    assert not [f for f in _book(books, TABLE.replace("CHECK", whole)).findings if f.kind == "unchecked-rows"]
    rows = 'check follows "Each row follows the bands" { for r in rows(vp) where r.value > 0: r.value == band(low(r.points)) }'
    assert not [f for f in _book(books, TABLE.replace("CHECK", rows)).findings if f.kind == "unchecked-rows"]


def test_a_point_lookup_is_not_a_sweep(tmp_path):
    books = tmp_path / "books"
    books.mkdir()
    point = 'check top "The top band is worth 3" { for p in [1000]: vp(p) == 3 }'
    book = _book(books, TABLE.replace("CHECK", point))
    assert not [f for f in book.findings if f.kind == "unchecked-rows"]


def test_two_checks_together_may_cover_a_table(tmp_path):
    books = tmp_path / "books"
    books.mkdir()
    two = ('check low "Low bands" { for p in 0..250: vp(p) == band(p) }\n'
           '    check high "High bands" { for p in 251..1000: vp(p) == band(p) }')
    assert not [f for f in _book(books, TABLE.replace("CHECK", two)).findings if f.kind == "unchecked-rows"]


@pytest.mark.parametrize("book_id", REAL)
def test_every_printed_entry_a_real_book_checks_is_read(book_id):
    book = rules_dsl.load(book_id)
    assert [f.message for f in book.findings if f.kind == "unchecked-rows"] == []
