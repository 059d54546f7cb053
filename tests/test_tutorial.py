"""docs/adding-a-book.md is a walkthrough of rulebooks/skirmish-tutorial.rules, and
every snippet in it is a checked example:

* every ```text block is a rules-language fragment found in the book, line for line
  (indentation, blank lines and comment lines aside; a `# ...` line in a snippet
  stands for lines left out, so the pieces around it must appear in that order);
* a snippet that starts with `book` compiles on its own (a fresh Library), with
  every example passing and no finding;
* every `$ rules ...` command in a ```console block runs and prints the lines shown
  under it (a command shown without output must succeed).

So a snippet that drifts from the book, or an output that changes, fails here.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

import rules_dsl
from conftest import REPO
from rules_dsl.library.loader import Library

DOC = REPO / "docs" / "adding-a-book.md"
BOOK_ID = "skirmish-tutorial"
BOOK = REPO / "rulebooks" / f"{BOOK_ID}.rules"
LAYER = REPO / "rulebooks" / f"{BOOK_ID}+house.rules"     # "House rules in ten minutes"
ELIDED = "# ..."


def blocks(text: str, lang: str) -> list:
    """(line number in the doc, body) of every fenced block of that language."""
    out, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        if lines[i].strip() == f"```{lang}":
            start, body = i + 1, []
            i += 1
            while lines[i].strip() != "```":
                body.append(lines[i])
                i += 1
            out.append((start + 1, "\n".join(body)))
        i += 1
    return out


def normal_lines(text: str, keep_elisions: bool = False) -> list:
    """Stripped, non-blank lines; comment lines dropped (the elision marker kept if asked)."""
    out = []
    for line in text.splitlines():
        s = line.strip()
        if not s:
            continue
        if s.startswith("#"):
            if keep_elisions and s == ELIDED:
                out.append(ELIDED)
            continue
        out.append(s)
    return out


def pieces(snippet: str) -> list:
    """The snippet's runs of lines between `# ...` markers."""
    runs, cur = [], []
    for s in normal_lines(snippet, keep_elisions=True):
        if s == ELIDED:
            if cur:
                runs.append(cur)
            cur = []
        else:
            cur.append(s)
    if cur:
        runs.append(cur)
    return runs


def found_in(snippet: str, book_lines: list) -> bool:
    """Every piece of the snippet appears contiguously in the book, in order."""
    at = 0
    for run in pieces(snippet):
        n = len(run)
        for i in range(at, len(book_lines) - n + 1):
            if book_lines[i:i + n] == run:
                at = i + n
                break
        else:
            return False
    return True


DOC_TEXT = DOC.read_text(encoding="utf-8")
SNIPPETS = blocks(DOC_TEXT, "text") + blocks(DOC_TEXT, "rules")
CONSOLE = blocks(DOC_TEXT, "console")


def test_the_walkthrough_has_its_snippets():
    assert len(SNIPPETS) >= 10, SNIPPETS
    joined = "\n".join(body for _, body in SNIPPETS)
    for word in ("book skirmish-tutorial", "findings fail", "roll first called \"first roll\": 2d6", "question ",
                 "odds ", "grid", "check ", "example ", "note ", "[[", "rows(roster)"):
        assert word in joined, word


@pytest.mark.parametrize("line, snippet", SNIPPETS, ids=[f"line-{n}" for n, _ in SNIPPETS])
def test_every_snippet_is_in_the_book(line, snippet):
    """A snippet of the book is in the book; one of the house rules' layer, in the layer."""
    book_lines = normal_lines(BOOK.read_text(encoding="utf-8"))
    layer_lines = normal_lines(LAYER.read_text(encoding="utf-8"))
    assert pieces(snippet), f"docs/adding-a-book.md:{line}: an empty snippet"
    assert found_in(snippet, book_lines) or found_in(snippet, layer_lines), (
        f"docs/adding-a-book.md:{line}: this snippet is not in {BOOK.name} or {LAYER.name} as written "
        f"(compare it line for line with the book):\n{snippet}")


def test_the_house_rules_snippets_are_the_whole_layer_in_order():
    """The layer's snippets, joined, are the layer file (comments aside)."""
    layer_snippets = [s for _, s in SNIPPETS if found_in(s, normal_lines(LAYER.read_text(encoding="utf-8")))
                      and not found_in(s, normal_lines(BOOK.read_text(encoding="utf-8")))]
    assert layer_snippets and layer_snippets[0].lstrip().startswith("layer house on skirmish-tutorial")
    joined = [x for s in layer_snippets for x in normal_lines(s)]
    assert joined == normal_lines(LAYER.read_text(encoding="utf-8"))


def test_the_first_house_rule_breaks_the_books_example_as_the_page_says(tmp_path):
    """Step 12: with the hit roll replaced and the examples not yet, the check fails at the
    book's example (line 95) and at its odds example, each naming the change."""
    import shutil
    layer_snippets = [s for _, s in SNIPPETS if s.lstrip().startswith(("layer house", "replace mechanic hits"))]
    books = tmp_path / "books"
    books.mkdir()
    shutil.copy(BOOK, books)
    (books / LAYER.name).write_text("\n".join(layer_snippets) + "\n", encoding="utf-8")
    book = Library(books, cache=tmp_path / "cache").load(f"{BOOK_ID}+house")
    bad, odds = [r for r in book.run_examples() if not r.passed]
    assert bad.title == "Three attacks at Aim 4+" and bad.cases[0].location.endswith(f"{BOOK.name}:95:13")
    assert odds.title.startswith("Three attacks at 4+ score two hits or more half the time")  # "too", says the page
    for r in (bad, odds):
        assert f"a consequence of {BOOK_ID}+house's change at" in r.report and "replace mechanic hits" in r.report


def test_the_matcher_notices_a_drift():
    book_lines = normal_lines(BOOK.read_text(encoding="utf-8"))
    roster = next(s for _, s in SNIPPETS if "table roster(" in s)
    assert found_in(roster, book_lines)
    assert not found_in(roster.replace("| warden  | 30 |", "| warden  | 31 |"), book_lines)
    assert not found_in(roster.replace("| scout   | 21 |\n", ""), book_lines)     # a dropped row
    header = next(s for _, s in SNIPPETS if s.startswith("book "))
    # the pieces around `# ...` must come in the book's order
    first, *rest = header.split(ELIDED)
    assert rest and not found_in(rest[0] + "\n" + ELIDED + "\n" + first, book_lines)


@pytest.mark.parametrize("line, snippet", [(n, s) for n, s in SNIPPETS if s.lstrip().startswith("book ")])
def test_whole_book_snippets_compile_alone(tmp_path, line, snippet):
    (tmp_path / "books").mkdir()
    book = Library(tmp_path / "books", cache=tmp_path / "cache").loads(snippet, name=f"adding-a-book.md:{line}")
    assert book.id == BOOK_ID and book.rules
    results = book.run_examples()
    assert results and all(r.passed for r in results), [r.report for r in results if not r.passed]
    assert not book.findings, book.findings


def test_the_finished_book_is_checked_and_clean():
    book = rules_dsl.load(BOOK_ID)
    assert book.findings_fail and not book.source          # a designer's own game: no source
    assert len(book.rules) >= 12
    results = book.run_examples()
    assert all(r.passed for r in results), [r.report for r in results if not r.passed]
    assert not book.findings, book.findings
    assert any(r.node.odds for r in book.rules)


def _commands(body: str) -> list:
    """(command words, expected output lines) for each `$ rules ...` line."""
    out, cur = [], None
    for line in body.splitlines():
        if line.startswith("$ "):
            cur = None
            words = line[2:].split("#")[0].split()
            if words[:2] == ["rules", "preview"]:   # a server: tests/test_preview.py runs it
                continue
            if words and words[0] == "rules":
                cur = (words[1:], [])
                out.append(cur)
        elif cur is not None:
            cur[1].append(line.rstrip())
    return out


COMMANDS = [(n, words, expected) for n, body in CONSOLE for words, expected in _commands(body)]


def test_the_walkthrough_runs_commands():
    assert any(w[:1] == ["check"] for _, w, _ in COMMANDS) and any(w[:1] == ["odds"] for _, w, _ in COMMANDS)


@pytest.mark.parametrize("line, words, expected", COMMANDS, ids=[f"line-{n}-{w[0]}" for n, w, _ in COMMANDS])
def test_every_rules_command_prints_what_the_page_shows(tmp_path, line, words, expected):
    env = dict(os.environ, RULES_DSL_BOOKS=str(REPO / "rulebooks"), RULES_DSL_CACHE=str(tmp_path / "cache"),
               NO_COLOR="1", COLUMNS="100", PYTHONPATH=str(REPO))
    env.pop("FORCE_COLOR", None)
    p = subprocess.run([sys.executable, "-m", "rules_dsl", *words], capture_output=True, text=True,
                       env=env, cwd=tmp_path, timeout=300)
    assert p.returncode == 0, (line, p.stderr)
    if expected:
        got = [s.rstrip() for s in p.stdout.rstrip("\n").splitlines()]
        assert got == expected, f"docs/adding-a-book.md:{line}: `rules {' '.join(words)}` prints\n{p.stdout}"


def test_no_block_is_left_unchecked():
    """Every fenced block is a rules snippet (text) or a console session."""
    langs = re.findall(r"^```(\S*)\s*$", DOC_TEXT, flags=re.M)
    opened = langs[0::2]
    assert set(opened) <= {"text", "rules", "console"}, opened


def test_the_site_command_is_the_one_the_docs_tests_build_with():
    from rules_dsl.sphinxext.testing import build_command
    shown = [line[2:].split() for _, body in CONSOLE for line in body.splitlines() if line.startswith("$ python -m sphinx")]
    assert shown, "the walkthrough shows no site build"
    flags = [w for w in build_command(REPO, REPO / "_build")[3:] if w.startswith("-") and w != "-d"]
    assert all(f in shown[0] for f in flags), (shown[0], flags)


def test_the_odds_lines_choose_the_site_pages_inputs():
    """Step 10: the site's odds table for nerve_test uses the book's two odds lines, in order."""
    from rules_dsl.odds import page_odds
    book = rules_dsl.load(BOOK_ID)
    assert [inputs for inputs, _ in page_odds(book.mechanics["nerve_test"])] == [
        {"nerve": 7, "reroll": False}, {"nerve": 7, "reroll": True}]
    first, second = (dist for _, dist in page_odds(book.mechanics["attack"]))
    assert sum(p for _, p in first.outcomes) == 1 and sum(p for _, p in second.outcomes) == 1
