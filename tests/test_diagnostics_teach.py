"""Diagnostics that teach: the mistakes a first-time author makes, each with the message it must get.

Every case edits one line of the tutorial book (rulebooks/skirmish-tutorial.rules, the book the
walkthrough in docs/adding-a-book.md builds) the way a new author would get it wrong, then checks
that `rules check` names the problem in the book's terms (never lark's token names), points at
file:line:col with a caret, and suggests the fix.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import rules_dsl
from rules_dsl.errors import RulebookError

from conftest import REPO

TUTORIAL = REPO / "rulebooks" / "skirmish-tutorial.rules"
BOOK = "skirmish-tutorial"


def edited(books: Path, *edits) -> Path:
    """The tutorial book with each (old, new) edit made once; returns the file."""
    text = TUTORIAL.read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text, f"the tutorial no longer has {old!r}: update this test"
        text = text.replace(old, new, 1)
    path = books / f"{BOOK}.rules"
    path.write_text(text, encoding="utf-8")
    return path


def line_of(path: Path, needle: str) -> int:
    return next(i for i, l in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if needle in l)


def check_errors(books: Path, *edits):
    """(the book file, the RulebookError's diagnostics, its rendered text)."""
    path = edited(books, *edits)
    with pytest.raises(RulebookError) as e:
        rules_dsl.load(BOOK).check()
    return path, e.value.diagnostics, e.value.render()


def assert_points_at(text: str, path: Path, line: int, col: int):
    assert f"{path}:{line}:{col}: error:" in text
    caret = re.search(rf"^ *{line} \|.*\n *\| *\^", text, re.M)
    assert caret, f"no caret under line {line}:\n{text}"


@pytest.fixture
def books(demo_books):
    for f in demo_books.iterdir():
        f.unlink()
    return demo_books


# ------------------------------------------------------------------ syntax
def test_missing_opening_brace_says_which_brace(books):
    path, diags, text = check_errors(books, ('    rule profiles "Profiles" {', '    rule profiles "Profiles"'))
    # where the '{' goes: the end of the rule's line, with the fix that inserts it
    assert_points_at(text, path, line_of(path, 'rule profiles "Profiles"'), len('    rule profiles "Profiles"') + 1)
    assert diags[0].message == "a '{' is missing here: the body of rule 'profiles' opens with '{'"
    assert "LBRACE" not in text and len(diags) == 1     # mended, the rule's own text checks clean
    (fix,) = diags[0].fixes
    assert (fix.line, fix.column, fix.text) == (diags[0].line, diags[0].column, " {")


def test_a_missing_brace_before_a_table_s_rows_never_lists_grid(books):
    """Issue 30: "A missing `{` lists `grid` among the expected tokens"."""
    for old, new in (('"The four kinds of fighter" {', '"The four kinds of fighter"'),
                     ('nerve: 2..12)\n            "The four kinds of fighter" {',
                      'nerve: 2..12)\n            "The four kinds of fighter"')):
        path, diags, text = check_errors(books, (old, new))
        line = line_of(path, '"The four kinds of fighter"')
        assert_points_at(text, path, line, len('            "The four kinds of fighter"') + 1)
        assert diags[0].message == "a '{' is missing here: the body of table 'profile' opens with '{'"
        assert "grid" not in text and "expected" not in text


def test_missing_closing_brace_at_the_end(books):
    text = TUTORIAL.read_text(encoding="utf-8").rstrip()
    assert text.endswith("}")
    (books / f"{BOOK}.rules").write_text(text[:-1], encoding="utf-8")
    with pytest.raises(RulebookError) as e:
        rules_dsl.load(BOOK)
    (d,) = e.value.diagnostics
    assert d.message.startswith("a '}' is missing at the end of the file: section 'forces' (opened on line ")
    (fix,) = d.fixes
    assert fix.text == "}\n"


def test_a_missing_closing_brace_inside_the_file_is_found_where_the_next_rule_starts(books):
    path, diags, text = check_errors(books, ('        """\n    }\n\n    rule profiles "Profiles" {',
                                             '        """\n\n    rule profiles "Profiles" {'))
    at = line_of(path, 'rule profiles "Profiles" {')
    assert_points_at(text, path, at, 5)
    opened = line_of(path, 'rule dice "Dice" {')
    assert diags[0].message == f"a '}}' is missing before this line: rule 'dice' (opened on line {opened}) is not closed"
    (fix,) = diags[0].fixes
    assert fix.text == "    }\n" and fix.line == at - 1     # after the rule's last line, before the blank line
    assert len(diags) == 1


def test_a_stray_brace_is_found_where_it_closed_the_section_early(books):
    """Issue 30: a stray `}` closed a section early; it was reported at a later brace, and the
    rules after it were read at the top level."""
    path, diags, text = check_errors(books, ('        >>> profile(brute).nerve\n        6\n        """\n    }',
                                             '        >>> profile(brute).nerve\n        6\n        """\n        }\n    }'))
    stray = line_of(path, '        >>> profile(brute).nerve') + 3
    assert_points_at(text, path, stray, 9)
    opened = line_of(path, 'rule profiles "Profiles" {')
    assert diags[0].message == (f"this '}}' is one too many: it closes rule 'profiles' (opened on line {opened}) "
                                f"here, so the '}}' on line {stray + 1} closes section 'the-basics' early and the "
                                "rules after it are read outside the section")
    assert len(diags) == 1


def test_unclosed_quote_in_a_title(books):
    path, diags, text = check_errors(books, ('rule dice "Dice" {', 'rule dice "Dice {'))
    assert_points_at(text, path, line_of(path, 'rule dice "Dice {'), 15)
    assert "a string must close on the same line" in diags[0].hint


def test_unclosed_prose_names_the_line_where_it_opened(books):
    path, diags, text = check_errors(
        books, ('What every other rule of the game builds on."""', 'What every other rule of the game builds on.'))
    opened = line_of(path, "What every other rule of the game builds on.")
    assert f"opened on line {opened}" in diags[0].hint
    assert "closing \"\"\"" in diags[0].hint


def test_misspelled_keyword_gets_did_you_mean(books):
    path, diags, text = check_errors(books, ("        mechanic needed_score", "        mechanc needed_score"))
    assert_points_at(text, path, line_of(path, "mechanc needed_score"), 9)
    assert "unexpected 'mechanc'" in diags[0].message
    assert "did you mean 'mechanic'?" in diags[0].hint
    assert "MECHANIC" not in text


def test_capitalised_keyword_is_told_keywords_are_lower_case(books):
    path, diags, _ = check_errors(books, ('    rule dice "Dice" {', '    Rule dice "Dice" {'))
    assert diags[0].hint == "keywords are lower case: write 'rule'"


def test_two_syntax_errors_in_different_rules_are_both_reported(books):
    path, diags, text = check_errors(books, ("        mechanic needed_score", "        mechanc needed_score"),
                                     ('    rule profiles "Profiles" {', '    rule profiles "Profiles"'))
    assert [d.line for d in diags] == [line_of(path, "mechanc needed_score"),
                                       line_of(path, 'rule profiles "Profiles"')]
    assert text.endswith("2 errors")     # and no "unknown name 'needed_score'" where the examples call it


def test_a_syntax_error_in_one_rule_does_not_hide_an_undefined_name_in_another(books):
    """Issue 30: "A syntax error hides every semantic error of its file"."""
    path, diags, text = check_errors(books, ("        mechanic needed_score", "        mechanc needed_score"),
                                     ("= clamp(base - modifier, 2, 6)", "= clamp(base - modifier, 2, 6)"),
                                     ("let p = profile(kind)", "let p = profle(kind)"))
    assert [(d.line, d.message) for d in diags] == [
        (line_of(path, "mechanc needed_score"), "unexpected 'mechanc'"),
        (line_of(path, "profle(kind)"), "unknown name 'profle'")]
    assert "did you mean 'profile'" in diags[1].hint and diags[1].fixes[0].text == "profile"


def test_several_independent_syntax_errors_in_one_rule_are_each_reported(books):
    path, diags, text = check_errors(books, ("= (7 - aim) * 2 + strength", "= (7 - aim) ** 2 + strength"),
                                     ("let p = profile(kind)", "let p == profile(kind)"))
    assert [d.line for d in diags] == [line_of(path, "(7 - aim) ** 2"), line_of(path, "let p == profile")]
    assert "no power operator" in diags[0].hint and diags[1].hint.startswith("a `let` gives a name its value")


# ------------------------------------------------------------------ names and types
def test_undefined_name_suggests_the_parameter(books):
    path, diags, text = check_errors(books, ("= clamp(base - modifier, 2, 6)", "= clamp(bse - modifier, 2, 6)"))
    assert_points_at(text, path, line_of(path, "clamp(bse"), 21)
    assert diags[0].message == "unknown name 'bse'"
    assert "did you mean 'base'" in diags[0].hint


def test_misspelled_reference_suggests_the_rule_id(books):
    path, diags, text = check_errors(books, ("(see [[rolling-to-hit]])", "(see [[roling-to-hit]])"))
    assert "unknown rule 'roling-to-hit' in cross-reference" in diags[0].message
    assert "did you mean 'rolling-to-hit'" in diags[0].hint
    assert_points_at(text, path, line_of(path, "[[roling-to-hit]]"), diags[0].column)


def test_name_error_and_reference_error_are_reported_together_without_cascade(books):
    path, diags, text = check_errors(books, ("= clamp(base - modifier, 2, 6)", "= clamp(bse - modifier, 2, 6)"),
                                     ("(see [[rolling-to-hit]])", "(see [[roling-to-hit]])"))
    assert [d.message for d in diags] == ["unknown name 'bse'",
                                         "unknown rule 'roling-to-hit' in cross-reference"]


def test_wrong_type_names_both_sides_in_the_books_terms(books):
    path, diags, text = check_errors(books, ("= clamp(base - modifier, 2, 6)", "= clamp(base - warden, 2, 6)"))
    assert diags[0].message == "'-' needs numbers, but this is a member of fighter_kind"
    assert_points_at(text, path, line_of(path, "base - warden"), 28)


def test_table_row_with_the_wrong_number_of_cells(books):
    """Issue 30: "a row with too few cells does not say which column"."""
    path, diags, text = check_errors(books, ("| scout   | 3 | 3 | 3 | 6 | 7 |", "| scout   | 3 | 3 | 3 | 6 |"))
    assert diags[0].message == ("this row has 5 cells where the table has 6 (kind, aim, strength, toughness, armour, "
                                "nerve): the 'nerve' cell is missing here")
    row = "            | scout   | 3 | 3 | 3 | 6 |"
    assert_points_at(text, path, line_of(path, row.strip()), len(row) + 1)     # after the row's last bar
    path, diags, text = check_errors(books, ("| scout   | 3 | 3 | 3 | 6 | 7 |", "| scout   | 3 | 3 | 3 | 6 | 7 | 1 |"))
    assert diags[0].message.endswith("the cells from here on are extra")
    assert diags[0].column == len("            | scout   | 3 | 3 | 3 | 6 | 7 | ") + 1


def test_a_missing_row_is_reported_where_it_goes_with_its_skeleton(books):
    """Issue 30: "a missing row is reported at the table, not where the row goes"."""
    path, diags, text = check_errors(books, ("            | warden  | 4 | 4 | 4 | 3 | 9 |\n", ""))
    at = line_of(path, "| brute   | 5 | 5 | 5 | 5 | 6 |")
    assert_points_at(text, path, at, 15)       # at the key of the row it goes before
    assert diags[0].message == "table profile has no row for kind=warden: it goes before this row"
    (fix,) = diags[0].fixes
    assert (fix.line, fix.column) == (at, 1)
    assert fix.text == "            | warden | absent | absent | absent | absent | absent |\n"


def test_a_plus_sign_on_a_table_key_is_a_number(books):
    """Issue 30: a key written `+1` got "unexpected '+'" with no hint; `-1` worked."""
    book_text = TUTORIAL.read_text(encoding="utf-8").replace(
        '    rule profiles "Profiles" {',
        '    rule modifiers "Modifiers" {\n        """x"""\n'
        '        table shift(m: -1..+1) -> -2..+2 {\n'
        '            | m | shift |\n            |---|---|\n            | -1 | -2 |\n            | 0 | 0 |\n'
        '            | +1 | +2 |\n        }\n'
        '        example """\n        >>> shift(+1)\n        2\n        >>> shift(-1)\n        -2\n        """\n    }\n\n'
        '    rule profiles "Profiles" {', 1)
    (books / f"{BOOK}.rules").write_text(book_text, encoding="utf-8")
    book = rules_dsl.load(BOOK)
    assert book.tables["shift"](1) == 2 and all(r.passed for r in book.run_examples())


def test_duplicated_rule_id_points_at_both(books):
    path, diags, text = check_errors(books, ('rule profiles "Profiles" {', 'rule dice "Profiles" {'))
    first = diags[0]
    assert first.message == "duplicate id 'dice' (rule)"
    assert first.line == line_of(path, 'rule dice "Profiles" {')
    dice_line = line_of(path, 'rule dice "Dice" {')
    assert f"first used by the rule here at {path}:{dice_line}" in text


# ------------------------------------------------------------------ examples
def test_example_input_out_of_range_names_the_parameter_and_the_expected_form(books):
    path, diags, text = check_errors(books, (">>> needed_score(4, modifier=1)", ">>> needed_score(9, modifier=1)"))
    assert diags[0].message == "needed_score() gets 9 for 'base'; allowed: 2..6"
    assert "'InputError: base'" in diags[0].hint
    assert_points_at(text, path, line_of(path, "needed_score(9"), 26)


def test_misspelled_name_inside_an_example_gets_did_you_mean(books):
    path, diags, _ = check_errors(books, (">>> needed_score(4, modifier=1)", ">>> neded_score(4, modifier=1)"))
    assert diags[0].message == "unknown name 'neded_score'"
    assert "did you mean 'needed_score'" in diags[0].hint


def test_wrong_expected_value_shows_the_line_a_caret_expected_got_and_a_hint(books):
    path = edited(books, ("        >>> needed_score(4, modifier=1)\n        3", "        >>> needed_score(4, modifier=1)\n        4"))
    failed = [r for r in rules_dsl.load(BOOK).run_examples() if not r.passed]
    assert len(failed) == 1
    line = line_of(path, ">>> needed_score(4, modifier=1)")
    lines = failed[0].report.splitlines()
    assert lines[0] == f"{path}:{line}:13: this example fails"
    assert lines[1:5] == [f"{line:>4} | >>> needed_score(4, modifier=1)", "     |     ^",
                          "    expected: 4", "    got:      3"]
    assert lines[5].startswith("     = hint: ") and "write '3' as the expected line" in lines[5]
    assert "Traceback" not in failed[0].report


def test_rules_check_prints_the_failing_example_without_a_traceback(books):
    edited(books, ("        >>> needed_score(4, modifier=1)\n        3", "        >>> needed_score(4, modifier=1)\n        4"))
    env = dict(os.environ, RULES_DSL_BOOKS=str(books))
    proc = subprocess.run([sys.executable, "-m", "rules_dsl", "check", BOOK], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 1
    assert "FAILED example" in proc.stdout and "expected: 4" in proc.stdout and "hint:" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr
    assert len(proc.stdout.splitlines()) < 15


def test_example_expecting_an_error_that_does_not_come(books):
    edited(books, ("        >>> needed_score(4, modifier=1)\n        3",
                          "        >>> needed_score(4, modifier=1)\n        InputError: base"))
    (bad,) = [r for r in rules_dsl.load(BOOK).run_examples() if not r.passed]
    assert "expects an error, but the expression gives a value" in bad.report


def test_a_fresh_copy_of_the_tutorial_is_clean(books):
    shutil.copy(TUTORIAL, books / f"{BOOK}.rules")
    assert all(r.passed for r in rules_dsl.load(BOOK).run_examples())
