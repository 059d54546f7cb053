"""Names in words (issue 26): the `called "..."` clause on every kind of name, a mechanic's
question and answer, a check's finding; their defaults, their checks, the sentences made from
them, and the CLI reading either form and writing words at 80 columns."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

import rules_dsl
from rules_dsl.language import nodes as n, wording
from rules_dsl.evaluation.working import example_cases
from rules_dsl.language.display import Names, fold, words
from rules_dsl.errors import RulebookError
from rules_dsl.language.parser import parse_text

from conftest import REPO, write_book

BODY = '''rule r "R" {
  """Tokens and rolls."""
  enum token called "tokens" { clear, under_fire called "Under Fire", suppressed called "Suppressed" "S" }
  const heavy called "hits that suppress at once" = 10
  mechanic after_attack called "tokens after an attack"(state called "tokens before": token, hits: 0..400,
      immune called "never suppressed": bool = false) -> token called "tokens"
      "Tokens after an attack scored `hits` on the unit."
      question "What tokens does the unit have after the attack?"
      answer "the unit is {result} after {hits} hits"
      = if immune or hits == 0 then state else if hits >= heavy then suppressed else under_fire
  mechanic rally(state: token) -> token {
      roll dice called "the token roll": 2 of dust
      return if count(f for f in dice if f == army) >= 1 then clear else state
  }
  mechanic needed(aim: 2..6) -> 2..6 = aim
  table profile called "profiles"(kind called "fighter": text) -> (move called "Move": 1..9, cost: int) {
    | kind | move | cost |
    | "scout" | 6 | 40 |
  }
  check cheap "Every profile costs at most 30"
      finding "{row}: printed {left} points, more than {right}"
  { for row in rows(profile): row.cost <= 30 }
  example "Hit once" """
  >>> after_attack(clear, 2)
  under_fire

  A suppressed unit rolls two dice; one army symbol clears it.
  >>> rally(suppressed, dice=["army", "shield"])
  clear
  """
}
'''
HEADER = '''book t {
  title "T"
  dice d6
  die dust { army called "army symbol": 2, target: 2, shield: 2 }
}
'''


@pytest.fixture
def book(demo_books):
    write_book(demo_books, "t", BODY, HEADER)
    return rules_dsl.load("t")


def errors_of(demo_books, body):
    write_book(demo_books, "t", body, HEADER)
    with pytest.raises(RulebookError) as e:
        rules_dsl.load("t")
    return e.value.diagnostics


# ------------------------------------------------------------------ syntax
def test_called_parses_on_every_kind_of_name_with_its_span():
    sf = parse_text(HEADER + BODY, "t.rules")
    die = sf.header.dice[-1]
    assert dict((f, p.text) for f, p in die.displays) == {"army": "army symbol"}
    decls = {d.name: d for d in n.iter_nodes(sf) if isinstance(d, (n.Enum, n.Const, n.Mechanic, n.Table, n.Check))}
    enum = decls["token"]
    assert enum.display.text == "tokens" and dict((m, p.text) for m, p in enum.displays) == {
        "under_fire": "Under Fire", "suppressed": "Suppressed"}
    assert enum.printed == (("suppressed", "S"),)             # the printed form still follows
    assert decls["heavy"].display.text == "hits that suppress at once"
    m = decls["after_attack"]
    assert (m.display.text, m.result_display.text) == ("tokens after an attack", "tokens")
    assert [p.display.text if p.display else None for p in m.params] == ["tokens before", None, "never suppressed"]
    assert m.question.text.startswith("What tokens") and m.answer.text == "the unit is {result} after {hits} hits"
    # a span at the words themselves: the opening quote of the string
    line = (HEADER + BODY).splitlines()[m.params[0].display.span.line - 1]
    assert line[m.params[0].display.span.column - 1:].startswith('"tokens before"')
    roll = decls["rally"].body[0]
    assert roll.display.text == "the token roll"
    table = decls["profile"]
    assert table.display.text == "profiles" and table.params[0].display.text == "fighter"
    assert dict((f, p.text) for f, p in table.returns.displays) == {"move": "Move"}
    assert decls["cheap"].finding.text.startswith("{row}: printed")


def test_without_called_nothing_changes():
    sf = parse_text(HEADER.replace(' called "army symbol"', "") + 'mechanic f(a: 1..3) -> int = a\n', "t.rules")
    m = sf.items[0]
    assert (m.display, m.result_display, m.question, m.answer, m.params[0].display) == (None,) * 5


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


@settings(max_examples=150, deadline=None)
@given(st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=40))
def test_display_forms_round_trip_through_the_source(text):
    """Any words, written as the language writes a string, parse back to the same words, on every
    kind of name (the escapes of `"` and `\\` included)."""
    q = _quoted(text)
    src = (f"book b {{ dice d6  die x {{ a called {q}: 1, b: 1 }} }}\n"
           f"enum e called {q} {{ m called {q} }}\n"
           f"const c called {q} = 1\n"
           f"mechanic f called {q}(p called {q}: 1..3) -> int called {q}\n  question {q}\n  answer {q}\n"
           f"{{ roll r called {q}: d6\n return p }}\n"
           f"table t called {q}(k called {q}: 1..2) -> (v called {q}: int) {{\n | k | v |\n | 1 | 2 |\n}}\n"
           f"check k \"doc\" finding {q} {{ for i in 1..2: i > 0 }}\n")
    sf = parse_text(src, "rt.rules")
    phrases = [x.text for x in n.iter_nodes(sf) if isinstance(x, n.Phrase)]
    assert phrases == [text] * 14


# ------------------------------------------------------------------ defaults
@pytest.mark.parametrize("identifier, said", [("under_fire", "under fire"), ("AP", "AP"), ("d6", "d6"),
                                              ("a__b_", "a b"), ("x", "x"), ("_", "_")])
def test_default_words(identifier, said):
    assert words(identifier) == said


def test_names_give_the_books_words_else_the_defaults(book):
    names = book.display
    assert isinstance(names, Names)
    assert names.mechanic("after_attack") == "tokens after an attack" and names.mechanic("needed") == "needed"
    assert names.param("after_attack", "state") == "tokens before" and names.param("after_attack", "hits") == "hits"
    assert names.roll("rally", "dice") == "the token roll"
    assert names.member("token", "under_fire") == "Under Fire" and names.member("token", "clear") == "clear"
    assert names.member("dust", "army") == "army symbol" and names.member("dust", "shield") == "shield"
    assert names.table("profile") == "profiles" and names.field("profile", "move") == "Move"
    assert names.field("profile", "cost") == "cost" and names.const("heavy") == "hits that suppress at once"
    assert names.enum("token") == "tokens" and names.result("after_attack") == "tokens"
    assert names.result("needed") == "needed"               # no words of its own: the mechanic's
    # values in words: members and faces, yes/no, lists, records
    suppressed = book.mechanics["after_attack"](state="clear", hits=12)
    assert names.value(suppressed) == "Suppressed" and names.value(True) == "yes" and names.value([]) == "none"
    assert names.value(book.tables["profile"]("scout"), "profile") == "Move 6, cost 40"
    assert names.describe(book.mechanics["after_attack"].params[0].type) == "one of: clear, Under Fire, Suppressed"
    assert names.describe(n.NamedType(n.NOWHERE, "dust")) == "a face of the Dust die: army symbol, target, shield"


def test_a_mechanic_as_a_question_and_its_answer(book):
    names = book.display
    value = book.mechanics["after_attack"](state="clear", hits=2)
    assert wording.title(names, "after_attack") == "What tokens does the unit have after the attack?"
    assert wording.title(names, "needed") == "Needed"
    assert wording.answer(names, "after_attack", value, {"hits": 2}) == "The unit is Under Fire after 2 hits"
    assert wording.answer(names, "needed", 4) == "Needed: 4"
    assert wording.fill("{{x}} {a}", {"a": "b"}) == "{x} b"


def test_examples_read_as_sentences_the_books_or_made_from_the_call(book):
    rv = book.rule("r")
    cases = example_cases(book, "r", rv.examples[0])
    assert [c["code"].splitlines()[0] for c in cases] == [">>> after_attack(clear, 2)",
                                                          '>>> rally(suppressed, dice=["army", "shield"])']
    assert cases[0]["sentence"] == ("What tokens does the unit have after the attack? With tokens before clear, "
                                    "hits 2: the unit is Under Fire after 2 hits.")
    assert cases[1]["sentence"] == "A suppressed unit rolls two dice; one army symbol clears it."
    working = [text for _, _, text in cases[1]["working"]]
    assert "The token roll (2 Dust dice): army symbol, shield, given." in working
    assert not any(re.search(r"\w_\w", t) for c in cases for _, _, t in c["working"])


def test_findings_read_as_sentences(book):
    (f,) = [f for f in book.findings if f.kind == "disagreement"]
    assert f.sentences == ("Scout: printed 40 points, more than 30",)
    assert f.as_json()["sentences"] == list(f.sentences) and f.cases    # the cases stay, for designers


def test_the_default_finding_sentence_reads_the_comparison_in_words(demo_books):
    write_book(demo_books, "t", BODY.replace('      finding "{row}: printed {left} points, more than {right}"\n', ""),
               HEADER)
    (f,) = [f for f in rules_dsl.load("t").findings if f.kind == "disagreement"]
    assert f.sentences == ("Scout: cost is 40; 30 is 30.",)


# ------------------------------------------------------------------ diagnostics
@pytest.mark.parametrize("change, message, at", [
    (('called "tokens before"', 'called ""'), "a display form cannot be empty", '""'),
    (('called "tokens before"', 'called "hits"'), 'state (called "hits") reads the same as hits', '"hits"'),
    (('called "Under Fire"', 'called "CLEAR"'), "reads the same as clear", '"CLEAR"'),
    (('called "tokens before"', 'called "a {b}"'), "cannot hold { or }", '"a {b}"'),
    (('called "tokens before"', 'called "' + "x" * 61 + '"'), "at most 60 characters", '"xxx'),
    (("after {hits} hits", "after {hitz} hits"), "unknown placeholder {hitz}", "{hitz}"),
    (('question "What tokens', 'question "What {state} tokens'), "a question cannot name an input", "{state}"),
    (("printed {left} points", "printed {lft} points"), "unknown placeholder {lft}", "{lft}"),
    (('table profile called "profiles"', 'table profile called "needed"'), "reads the same as needed", '"needed"'),
])
def test_display_problems_are_located_diagnostics(demo_books, change, message, at):
    old, new = change
    assert old in BODY
    body = BODY.replace(old, new, 1)
    diags = errors_of(demo_books, body)
    d = next(d for d in diags if message in d.message)
    assert d.file.endswith("t.rules") and d.line > 0 and d.hint
    assert d.source_line[d.column - 1:].startswith(at), (d.source_line, d.column)


def test_a_clash_names_the_other_place(demo_books):
    diags = errors_of(demo_books, BODY.replace('called "tokens before"', 'called "hits"', 1))
    d = next(d for d in diags if "reads the same" in d.message)
    assert d.related and "hits is declared here" in d.related[0].message


def test_the_real_books_give_words_and_pass_their_checks():
    names = {b: rules_dsl.load(b).display for b in ("dust-tactics", "xenotactics", "null-strike", "void",
                                                    "warhammer-40k")}
    assert names["dust-tactics"].member("dust", "army") == "army symbol"
    assert names["dust-tactics"].member("suppression_state", "under_fire") == "Under Fire"
    assert names["xenotactics"].member("faction", "renegade_superterrans") == "Renegade Superterrans"
    assert names["xenotactics"].member("cc_type", "slashing") == "Slashing"
    assert names["warhammer-40k"].member("characteristic", "weapon_skill") == "Weapon Skill (WS)"
    xeno = rules_dsl.load("xenotactics")
    said = [s for f in xeno.findings if f.kind == "disagreement" for s in f.sentences]
    assert "Heavy power armor: printed 118 gc; the book's own formula gives 82 gc" in said


# ------------------------------------------------------------------ the command line
def rules(*args, cols=80, **env):
    p = subprocess.run([sys.executable, "-m", "rules_dsl", *args], capture_output=True, text=True, timeout=180,
                       env=dict(os.environ, COLUMNS=str(cols), **env), cwd=str(REPO))
    assert "Traceback" not in p.stderr, p.stderr
    return p


@pytest.mark.parametrize("typed", [["state=under_fire", "hits=1"], ["state=Under Fire", "hits=1"],
                                   ["State=under fire", "HITS=1"], ["state=UNDER FIRE", "hits=1", "immune=no"]])
def test_the_cli_reads_either_form(demo_books, typed):
    write_book(demo_books, "t", BODY, HEADER)
    env = {"RULES_DSL_BOOKS": str(demo_books), "RULES_DSL_CACHE": os.environ["RULES_DSL_CACHE"]}
    p = rules("call", "t:after_attack", *typed, "--json", **env)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["result"] == "under_fire"          # JSON keeps identifiers
    p = rules("call", "t:after_attack", *typed, **env)
    assert p.stdout.strip() == "The unit is Under Fire after 1 hits"


def test_the_cli_reads_parameters_and_faces_by_their_words(demo_books):
    write_book(demo_books, "t", BODY, HEADER)
    env = {"RULES_DSL_BOOKS": str(demo_books), "RULES_DSL_CACHE": os.environ["RULES_DSL_CACHE"]}
    p = rules("call", "t:after_attack", "tokens before=clear", "hits=3", "never suppressed=yes", **env)
    assert p.returncode == 0 and p.stdout.strip() == "The unit is clear after 3 hits", p.stderr
    p = rules("call", "t:rally", "state=suppressed", "the token roll=Army Symbol,shield", **env)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["Rally: clear", "rolled: the token roll army symbol, shield"]
    p = rules("odds", "t:rally", "state=Under Fire", **env)
    assert p.stdout.splitlines()[0] == "Rally, with state Under Fire"
    assert p.stdout.splitlines()[2].split() == ["Rally", "chance"]
    assert "Under Fire" in p.stdout and "under_fire" not in p.stdout
    p = rules("call", "t:after_attack", "state=nowhere", "hits=1", **env)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1       # still one readable line


def _widths_ok(text: str, cols: int) -> bool:
    """No line wider than `cols` unless it is one word (a name or a command kept whole)."""
    return all(len(line) <= cols or len(line.split()) == 1 for line in text.splitlines())


@pytest.mark.parametrize("args", [
    ["explain", "dust-tactics:suppression_on_activation", "state=suppressed", "--seed", "3"],
    ["explain", "dust-tactics:suppression_on_activation", "state=suppressed", "--seed", "3", "--no-locations"],
    ["explain", "xenotactics:faction_base_cost", "faction=Renegade Superterrans"],
    ["explain", "warhammer-40k:bunker_hit_table", "roll=1"],
    ["show", "dust-tactics:suppression"],
    ["odds", "dust-tactics:suppression_on_activation", "state=Suppressed", "--vs", "extra_die=yes"],
    ["call", "xenotactics:faction_statlines", "faction=eldara"],
])
def test_text_outputs_in_words_fit_80_columns(args):
    p = rules(*args)
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert _widths_ok(out, 80), [line for line in out.splitlines() if len(line) > 80]
    if args[0] != "show":          # show keeps designers' lines (the `rules call` command, a check's formula)
        assert not re.search(r"\b[a-z]+_[a-z_]+\b", out.replace(args[1], "")), out
    if args[0] == "explain":
        lines = out.splitlines()
        # a worked solution: indented by depth, notes wrapped under their bullet, never a cut word
        assert lines[0] and not lines[0].startswith(" ")
        assert all(line.startswith("  ") for line in lines[1:] if line.strip() and not line.startswith("rolled: "))


def test_explain_wraps_notes_without_cutting_words():
    p = rules("explain", "dust-tactics:suppression_after_attack", "state=clear", "hits=2", "--no-locations", cols=60)
    lines = p.stdout.splitlines()
    assert _widths_ok(p.stdout, 60)
    note = [i for i, line in enumerate(lines) if line.lstrip().startswith("* Our reading")][0]
    assert lines[note + 1].startswith(" " * (len(lines[note]) - len(lines[note].lstrip()) + 2))   # hanging indent
    words_in = " ".join(line.strip().lstrip("* ") for line in lines[note:note + 4]).split()
    source = rules_dsl.load("dust-tactics").rule("suppression").notes[0].text.text.split()
    assert words_in[2:8] == source[:6]            # the note's words, whole and in order


def test_fold_reads_case_underscores_and_spaces_alike():
    assert fold("Under_Fire") == fold("under  fire") == fold("UNDER-FIRE") == "under fire"
