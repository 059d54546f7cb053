"""A book's front door: the header's `about`, `start` and `quick reference`, their checks,
the defaults when a book leaves them out, and the pages across books that show them (the
game picker, the glossary's and cross index's fronts) staying the same size however big
the library (no Sphinx build here: tests/test_docs.py and test_site_browser.py build)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from conftest import write_book

HEADER = '''book t {
  title "T"
  dice d6
  %s
}
'''
BODY = '''section basics "Basics" {
  rule dice "Dice" {
    """Roll a d6: 4+ succeeds."""
    table scores(x: 1..2) -> int "Scores" {
      | x | score |
      |---|---|
      | 1 | 4 |
      | 2 | 5 |
    }
    mechanic roll4() -> bool {
      roll d: d6
      return d >= 4
    }
  }
  rule turn "The Turn" { """Players alternate, see [[dice]].""" }
  rule shoot "Shoot" { """Roll [[dice]] to hit, after [[turn]].""" }
  rule move "Move" { """Move, then [[dice]] and [[turn]].""" }
}
'''


def compile_front(demo_books, front: str):
    from rules_dsl.library.loader import Library
    write_book(demo_books, "t", BODY, header=HEADER % front)
    return Library(demo_books, cache=demo_books.parent / "cache").compile_book("t", use_cache=False)


def errors(demo_books, front: str) -> list:
    from rules_dsl.errors import RulebookError
    with pytest.raises(RulebookError) as e:
        compile_front(demo_books, front)
    return [(d.message, d.hint, d.line) for d in e.value.diagnostics]


def front_of(book) -> dict:
    from rules_dsl.sphinxext.data import build_model
    from rules_dsl.sphinxext.derived import compute_derived
    from rules_dsl.sphinxext.keys import engine_key
    return build_model(book, compute_derived(book, engine_key()))["front"]


def test_a_header_says_its_front_door(demo_books):
    book = compile_front(demo_books, '''about """A game of **dice**: see [[dice]]."""
  start basics
  quick reference {
    dice "One d6."
    turn """
    - Move ([[move]]).
    - Shoot.
    """
    tables scores
    rules shoot, dice, basics
  }''')
    h = book.ast.header
    assert h.about.text == "A game of **dice**: see [[dice]]." and [r.rule for r in h.about.refs] == ["dice"]
    assert h.start.name == "basics" and h.start.span.line == 5
    assert [x.name for x in h.quick.rules] == ["shoot", "dice", "basics"]
    f = front_of(book)
    assert f["about_given"] and f["dice"] == "One d6." and f["dice_given"] and f["given"]
    assert f["start"] == {"kind": "section", "id": "basics", "title": "Basics"}
    assert f["turn"].startswith("- Move") and f["turn_link"] is None
    assert [(t["kind"], t["id"]) for t in f["rules"]] == [("rule", "shoot"), ("rule", "dice"), ("section", "basics")]
    assert f["tables"] == [{"name": "scores", "owner": ("rule", "dice")}]


def test_the_defaults_come_from_the_book_alone(demo_books):
    book = compile_front(demo_books, '"""A small skirmish game about rolling dice and moving fast. It has four rules."""')
    f = front_of(book)
    assert f["about"] == "A small skirmish game about rolling dice and moving fast." and not f["about_given"]
    assert f["dice"] == "Six-sided dice (d6)" and not f["given"]
    assert f["start"]["id"] == "basics"                          # the first section
    assert f["turn"] is None and f["turn_link"]["id"] == "turn"  # a rule whose title speaks of the turn
    # the rules other rules refer to at least twice, in reading order: dice (3), turn (2)
    assert [t["id"] for t in f["rules"]] == ["dice", "turn"]
    assert f["tables"] == [{"name": "scores", "owner": ("rule", "dice")}]    # a small table of theirs


@pytest.mark.parametrize("front, message, hint", [
    ("start nowhere", "`start` names 'nowhere'", ""),
    ("start basic", "`start` names 'basic'", "basics"),
    ("quick reference { rules shooot }", "unknown rule 'shooot' in the quick reference", "shoot"),
    ("quick reference { rules scores }", "unknown rule 'scores'", "'scores' is a table"),
    ("quick reference { tables roll4 }", "unknown table 'roll4'", "'roll4' is a mechanic, not a table"),
    ("quick reference { tables dice }", "unknown table 'dice'", "list it under `rules`"),
    ("quick reference { turn \"\"\"See [[nowhere]].\"\"\" }", "unknown rule 'nowhere' in cross-reference", ""),
    ('about "x"\n  about "y"', "the book header has a second `about`", "write it once"),
    ("quick reference { rules dice }\n  quick reference { rules move }", "a second `quick reference`", ""),
    ("quick reference { rules dice\n rules move }", "the quick reference has a second `rules`", "one line"),
])
def test_what_the_front_door_names_is_checked(demo_books, front, message, hint):
    found = errors(demo_books, front)
    assert any(message in m and hint in h for m, h, _ in found), found
    assert all(line > 0 for _, _, line in found)


def test_a_name_listed_twice_is_a_warning(demo_books):
    book = compile_front(demo_books, "quick reference { rules dice, move, dice\n tables scores, scores }")
    warnings = [d.message for d in book.warnings]
    assert any("rule 'dice' is listed twice" in w for w in warnings), warnings
    assert any("table 'scores' is listed twice" in w for w in warnings), warnings


@pytest.mark.parametrize("header, said", [
    ("dice d6", "Six-sided dice (d6)"),
    ("dice d10, d100", "Ten-sided dice (d10); percentile dice (d100)"),
    ("dice d7", "7-sided dice (d7)"),
    ("die dust { army: 2, target: 2, shield: 2 }", "Dust dice: six faces, two each of army, target and shield"),
    ("die fate { plus: 2, blank: 2, minus: 2 }", "Fate dice: six faces, two each of plus, blank and minus"),
    ("die odd_one { hit_face: 1, blank: 5 }", "Odd one dice: six faces (hit face ×1, blank ×5)"),
    ('die dust { army called "army symbol": 2, target: 2, shield called "shield": 2 }',
     "Dust dice: six faces, two each of army symbol, target and shield"),      # the faces' own words
])
def test_dice_in_a_players_words(demo_books, header, said):
    from rules_dsl.library.loader import Library
    from rules_dsl.sphinxext.front import dice_words
    write_book(demo_books, "d", 'rule r "R" { """x""" }\n', header=f'book d {{\n  title "D"\n  {header}\n}}\n')
    book = Library(demo_books, cache=demo_books.parent / "cache").load("d")
    assert dice_words(book.dice, book.display.member) == said


REAL = ["dust-tactics", "null-strike", "void", "warhammer-40k", "xenotactics"]


@pytest.mark.parametrize("book_id", REAL)
def test_each_real_book_writes_its_front_door(book_id):
    """The five restated books say what they are, their dice, where to start and what their
    quick reference holds (their turn sequence, or that the source has none)."""
    import rules_dsl
    book = rules_dsl.load(book_id)
    f = front_of(book)
    assert f["about_given"] and f["dice_given"] and f["given"], book_id
    assert f["start"] is not None and f["turn"], book_id
    assert f["tables"] and len(f["rules"]) >= 6, book_id
    assert "`" not in f["about"] and "_" not in f["about"], "the card speaks the game's words, not code"


# ------------------------------------------------------------------ pages across books, at scale
def _books(titles):
    return [{"id": f"b{i}", "title": t, "edition": "", "counts": {}, "card": None} for i, t in enumerate(titles)]


def test_the_home_page_holds_every_card_up_to_a_page_and_is_split_past_it():
    from rules_dsl.sphinxext import crossbook
    few = _books(["Null Strike", "Dust Tactics"])
    assert crossbook.games_pages(few, 30) == []
    many = _books([f"{w} {i}" for i in range(40) for w in ("Null Strike", "Dust Tactics", "Xenotactics")]
                  + ["Ashes", "Zulu", "1944", "!Bang"])
    pages = crossbook.games_pages(many, 30)
    assert all(len(bs) <= 30 for _, bs in pages)
    flat = [b["id"] for _, bs in pages for b in bs]
    assert sorted(flat) == sorted(b["id"] for b in many) and len(flat) == len(set(flat))
    order = sorted(many, key=lambda b: (b["title"].lower(), b["id"]))
    assert [b["id"] for b in order if b["title"][:1].isalpha()] == [x for x in flat if
                                                                  next(b for b in many if b["id"] == x)["title"][:1].isalpha()]
    # a thousand books: the home page lists the picker's pages, a few dozen lines, not the books
    thousand = _books([f"{chr(97 + i % 26)}{i:04d} game" for i in range(1000)])
    pages = crossbook.games_pages(thousand, 30)
    assert all(len(bs) <= 30 for _, bs in pages) and len(pages) <= 1000 // 15


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet="abcxyz019 -!", min_size=1, max_size=8), min_size=0, max_size=90),
       st.integers(min_value=1, max_value=12))
def test_the_pickers_pages_hold_every_game_once_within_the_budget(titles, per_page):
    from rules_dsl.sphinxext import crossbook
    books = _books(titles)
    pages = crossbook.games_pages(books, per_page)
    if len(books) <= per_page:
        assert pages == []
        return
    flat = [b["id"] for _, bs in pages for b in bs]
    assert sorted(flat) == sorted(b["id"] for b in books)
    assert all(len(bs) <= per_page for _, bs in pages)
    assert len({slug for slug, _ in pages}) == len(pages)


def _glossary_entry(key, rules, definition=None):
    return {"key": key, "label": key, "rules": rules,
            "definitions": [("b0", "r", "R", definition)] if definition else []}


def test_the_glossary_front_shows_a_few_terms_a_letter_with_their_meaning():
    from rules_dsl.sphinxext import crossbook
    long = "A unit that is hit gets a token; " * 10
    pages = {"a": [_glossary_entry(f"a{i}", [("b0", "r", "R")] * (i + 1), long if i % 2 else None) for i in range(50)],
             "b": [_glossary_entry("blast", [("b0", "r", "R"), ("b1", "s", "S")], "Everyone near is hit.")]}
    front = crossbook.glossary_front(pages, {"b0": "Book Zero", "b1": "Book One"})
    assert [g["letter"] for g in front] == ["A", "B"]
    a = front[0]
    assert a["count"] == 50 and len(a["terms"]) == crossbook.FRONT_PER_LETTER
    assert all(t["meaning"] for t in a["terms"])                  # the defined terms first
    assert all(len(t["meaning"]) <= crossbook.MEANING_CHARS + 2 for t in a["terms"])
    assert [t["key"] for t in a["terms"]] == sorted(t["key"] for t in a["terms"])
    assert front[1]["terms"][0]["usage"] == "In Book One and Book Zero" or \
        front[1]["terms"][0]["usage"] == "In Book Zero and Book One"
    # the front stays the same size however many terms a letter has
    bigger = {"a": pages["a"] * 40, "b": pages["b"]}
    assert len(crossbook.glossary_front(bigger, {})[0]["terms"]) == crossbook.FRONT_PER_LETTER
