"""One error for one mistake (issue 38): a misspelt or missing name is said once, with its
did-you-mean, and nothing that only restates it follows, in `rules check` and in the editor.

Each case makes one typical mistake in the tutorial book (rulebooks/skirmish-tutorial.rules)
and asserts exactly one error, at the right line and column, both from `rules check --json`
(a subprocess running the checkout's code) and from the language server's diagnostics
(`Workspace.analyse`, what `rules lsp` publishes).  The two take their diagnostics from the
same place (`Library.compile_ast`), and the test holds them to the same answer.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import REPO

TUTORIAL = REPO / "rulebooks" / "skirmish-tutorial.rules"
BOOK = "skirmish-tutorial"

# a mechanic that calls `hits`, with an example giving hits' roll by its path
SHOOT = '''        odds hits(n=3, target=4)
        mechanic shoot(n: 1..6) -> int "Hits at 4+."
            = hits(n, 4)
        example "Shooting three" """
        >>> shoot(3, hits.dice=[1, 4, 6])
        2
        """
'''


@dataclass(frozen=True)
class Mistake:
    name: str
    edits: tuple          # (old, new) pairs made once each in the tutorial
    at: str               # text of the line the error is at (after the edits)
    word: str             # the word on it the caret points at
    message: str          # part of the message
    hint: str             # part of the hint (the did-you-mean, or where `return` goes)


MISTAKES = [
    Mistake("misspelt mechanic", (("        odds hits(n=3, target=4)\n", SHOOT), ("= hits(n, 4)", "= hit(n, 4)")),
            "= hit(n, 4)", "hit", "unknown name 'hit'", "'hits'"),
    Mistake("misspelt mechanic behind a roll path",
            (("= if nerve_test(nerve, reroll) then", "= if nerve_tst(nerve, reroll) then"),),
            "= if nerve_tst(", "nerve_tst", "unknown name 'nerve_tst'", "'nerve_test'"),
    Mistake("misspelt mechanic a design view prices", (("per attack(2,", "per atack(2,"),),
            "per atack(2,", "atack", "unknown name 'atack'", "'attack'"),
    Mistake("misspelt table", (("let p = profile(kind)", "let p = profle(kind)"),),
            "let p = profle(kind)", "profle", "unknown name 'profle'", "'profile'"),
    Mistake("misspelt parameter in a body", (("= clamp(base - modifier, 2, 6)", "= clamp(base - modifer, 2, 6)"),),
            "= clamp(base - modifer", "modifer", "unknown name 'modifer'", "'modifier'"),
    Mistake("misspelt parameter in a call", ((">>> wound_score(4, 3)", ">>> wound_score(4, toughnes=3)"),),
            ">>> wound_score(4, toughnes=3)", "toughnes", "has no parameter or roll 'toughnes'", "'toughness'"),
    Mistake("misspelt enum member", ((">>> profile(warden).armour", ">>> profile(wardn).armour"),),
            ">>> profile(wardn)", "wardn", "unknown name 'wardn'", "'warden'"),
    Mistake("misspelt qualified enum member", (("= state != routed", "= state != token_state.routd"),),
            "= state != token_state.routd", "token_state", "enum 'token_state' has no member 'routd'", "'routed'"),
    Mistake("missing return before the result",
            (("            return count(d for d in dice if d >= target)",
              "            count(d for d in dice if d >= target)"),),
            "mechanic hits(", "hits", "mechanic 'hits' has no `return`", "return count(d for d in dice"),
    Mistake("missing return at the end of the body",
            (("            return wound_count - saved\n", ""),),
            "mechanic attack(", "attack", "mechanic 'attack' has no `return`", "before the '}' on line 165"),
    Mistake("misspelt roll name", ((">>> hits(3, 4, dice=[2, 4, 6])", ">>> hits(3, 4, dise=[2, 4, 6])"),),
            ">>> hits(3, 4, dise=", "dise", "has no parameter or roll 'dise'", "'dice'"),
    Mistake("misspelt roll name in a path", (("after_nerve_test.nerve_test.first=[4, 5]",
                                              "after_nerve_test.nerve_test.frst=[4, 5]"),),
            "after_nerve_test.nerve_test.frst", "after_nerve_test.nerve_test.frst",
            "'frst' is not a roll of nerve_test", "'first'"),
]


def edited(folder: Path, edits) -> Path:
    text = TUTORIAL.read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text, f"the tutorial no longer has {old!r}: update this test"
        text = text.replace(old, new, 1)
    path = folder / f"{BOOK}.rules"
    path.write_text(text, encoding="utf-8")
    return path


def place(path: Path, at: str, word: str):
    """(line, column) of `word` on the first line holding `at`, 1-based."""
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if at in line:
            return i, line.index(word, line.index(at) if word in at else 0) + 1
    raise AssertionError(f"no line holds {at!r}")


def check_errors(books: Path, cache: Path) -> list:
    """The error diagnostics `rules check --json` gives for the book (as JSON records)."""
    env = dict(os.environ, RULES_DSL_BOOKS=str(books), RULES_DSL_CACHE=str(cache))
    r = subprocess.run([sys.executable, "-m", "rules_dsl", "check", "--json", BOOK], cwd=REPO, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode != 0, r.stdout
    assert "Traceback" not in r.stderr, r.stderr
    report = json.loads(r.stdout)
    return [d for e in report["errors"] for d in e["diagnostics"] if d["severity"] == "error"]


def editor_errors(books: Path, cache: Path, path: Path) -> list:
    """The error diagnostics the language server publishes for the open (edited) file."""
    from rules_dsl.faces.workspace import Workspace

    ws = Workspace(books, cache)
    ws.open(path, path.read_text(encoding="utf-8"))
    state = ws.analyse(path)
    return [d for ds in state.diagnostics.values() for d in ds if d.severity == "error"]


@pytest.mark.parametrize("mistake", MISTAKES, ids=[m.name for m in MISTAKES])
def test_one_mistake_gives_one_error_in_check_and_editor(mistake, tmp_path):
    books = tmp_path / "books"
    books.mkdir()
    path = edited(books, mistake.edits)
    line, column = place(path, mistake.at, mistake.word)

    from_check = check_errors(books, tmp_path / "cache")
    assert len(from_check) == 1, "\n".join(f"{d['line']}:{d['column']}: {d['message']}" for d in from_check)
    (d,) = from_check
    assert (d["line"], d["column"]) == (line, column), d
    assert mistake.message in d["message"] and mistake.hint in d["hint"], d

    from_editor = editor_errors(books, tmp_path / "cache-ws", path)
    assert [(e.line, e.column, e.message, e.hint) for e in from_editor] == \
        [(d["line"], d["column"], d["message"], d["hint"])]


# ------------------------------------------------- the defects as reported (issue 38)
def test_a_misspelt_call_is_not_followed_by_a_false_roll_path_error(tmp_path):
    books = tmp_path / "books"
    books.mkdir()
    path = edited(books, (("        odds hits(n=3, target=4)\n", SHOOT), ("= hits(n, 4)", "= hit(n, 4)")))
    for errors in (check_errors(books, tmp_path / "c1"), editor_errors(books, tmp_path / "c2", path)):
        messages = [e["message"] if isinstance(e, dict) else e.message for e in errors]
        assert not any("does not call" in m for m in messages), messages
        assert messages == ["unknown name 'hit'"]


def test_a_body_without_return_is_one_clear_error_at_the_mechanic(tmp_path):
    books = tmp_path / "books"
    books.mkdir()
    path = edited(books, (("            return count(d for d in dice if d >= target)",
                           "            count(d for d in dice if d >= target)"),))
    (d,) = check_errors(books, tmp_path / "c")
    assert "did you mean" not in d["hint"] and "unexpected" not in d["message"]
    assert d["line"] == place(path, "mechanic hits(", "hits")[0]
    result_line = place(path, "count(d for d in dice", "count")[0]
    assert f"on line {result_line}: return count(" in d["hint"]
    # the quick fix writes `return` where it goes, and the mended book checks clean
    (fix,) = d["fixes"]
    assert (fix["line"], fix["text"]) == (result_line, "return ")
    lines = path.read_text(encoding="utf-8").split("\n")
    at = lines[fix["line"] - 1]
    lines[fix["line"] - 1] = at[: fix["column"] - 1] + fix["text"] + at[fix["column"] - 1:]
    path.write_text("\n".join(lines), encoding="utf-8")
    import rules_dsl
    assert rules_dsl.Library(books, cache=tmp_path / "c3").compile_book(BOOK).mechanics["hits"] is not None


def test_a_body_without_return_hides_no_other_error(tmp_path):
    """The mechanic is left out, its uses are not reported, and a mistake elsewhere still is."""
    books = tmp_path / "books"
    books.mkdir()
    path = edited(books, (("            return wound_count - saved\n", ""),
                          ('roll first called "first roll": 2d6', 'roll first called "first roll": 2d7')))
    errors = check_errors(books, tmp_path / "c")
    assert [e["message"].split(":")[0] for e in errors] == ["mechanic 'attack' has no `return`",
                                                           "unknown die 'd7'"]
    assert errors[1]["line"] == place(path, "2d7", "2d7")[0]


def example_failure(tmp_path, old, new):
    books = tmp_path / "books"
    books.mkdir(parents=True)
    edited(books, ((old, new),))
    import rules_dsl
    book = rules_dsl.Library(books, cache=tmp_path / "c").load(BOOK)
    return [c for r in book.run_examples() for c in r.cases if not c.passed]


def test_a_wrong_odds_example_proposes_the_odds_not_an_error_line(tmp_path):
    (c,) = example_failure(tmp_path, "about 82.6%", "about 80.0%")
    assert "InputError" not in c.hint and "Error:" not in c.hint
    assert "write 'about 82.6%' as the expected line" in c.hint
    (c,) = example_failure(tmp_path / "2", "        1/2\n", "        1/3\n")
    assert "write '1/2' as the expected line" in c.hint


def test_an_odds_example_with_an_input_out_of_range_never_proposes_an_error_line(tmp_path):
    (c,) = example_failure(tmp_path, "chance(hits(3, 4) >= 2)", "chance(hits(3 + 4, 4) >= 2)")
    assert c.got.startswith("InputError: n")
    assert "InputError" not in c.hint and "give 'n' a value in its range" in c.hint
    books = tmp_path / "books2"
    books.mkdir()
    edited(books, ((">>> mean(hits(3, 4))", ">>> mean(hits(3, 9))"),))
    (d,) = check_errors(books, tmp_path / "c2")
    assert "InputError" not in d["hint"] and "give 'target' a value in its range" in d["hint"]


def test_a_wrong_value_example_proposes_the_value(tmp_path):
    (c,) = example_failure(tmp_path, "        >>> save_score(5, pierce=2)\n        7",
                           "        >>> save_score(5, pierce=2)\n        8")
    assert "write '7' as the expected line" in c.hint


def test_the_editor_shows_an_example_failure_s_hint(tmp_path):
    books = tmp_path / "books"
    books.mkdir()
    path = edited(books, (("about 82.6%", "about 80.0%"),))
    from rules_dsl.faces.workspace import Workspace
    ws = Workspace(books, tmp_path / "c")
    ws.open(path, path.read_text(encoding="utf-8"))
    (d,) = [d for ds in ws.analyse(path).diagnostics.values() for d in ds if d.message.startswith("example fails")]
    assert "write 'about 82.6%' as the expected line" in d.hint
