"""`rules explain` / `Book.explain`: the working of an answer, citing rules, lines and notes.

Over every worked example of every book: the explanation gives the same result as
the plain evaluation, and every step's location lies inside the source lines of
the rule the step names.  Then one mechanic per book, its text asserted on key lines.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import rules_dsl
from rules_dsl.evaluation.examples import same

BOOKS = ["null-strike", "xenotactics", "dust-tactics", "void", "warhammer-40k", "skirmish-tutorial"]


@pytest.fixture(scope="module")
def books():
    return {bid: rules_dsl.load(bid) for bid in BOOKS}


def _rule_lines(book) -> dict:
    """rule id -> (file relative to the books folder, first line, last line)."""
    base = os.path.realpath(str(rules_dsl.library.loader.books_dir()))
    out = {}
    for r in book.rules:
        f = os.path.relpath(os.path.realpath(r.span.file), base)
        out[r.id] = (f, r.span.line, r.span.end_line)
    return out


def _assert_located(book, ex, lines):
    for st in ex.steps:
        assert st.rule in lines, f"step {st.step} {st.text!r} names no rule of {book.id} ({st.rule!r})"
        f, lo, hi = lines[st.rule]
        file, _, line = st.location.rpartition(":")
        assert file == f and lo <= int(line) <= hi, (
            f"{book.id}: step {st.step} {st.text!r} is located at {st.location}, outside rule "
            f"{st.rule} ({f}:{lo}-{hi})")
        assert st.title == book.rule(st.rule).title


@pytest.mark.parametrize("book_id", BOOKS)
def test_every_example_explains_to_the_same_result_with_steps_in_their_rules(books, book_id):
    book = books[book_id]
    lines = _rule_lines(book)
    cases = steps = 0
    for rule_id, example in book.example_cases():
        plain = book.run_example(rule_id, example)
        for case, result, ex in zip(example.cases, plain.cases, book.explain_example(rule_id, example)):
            cases += 1
            steps += len(ex.steps)
            assert ex.root.rule == rule_id and ex.root.step == "example"
            if case.error is not None or result.got.startswith(("Error:", "InputError:")):
                assert ex.error is not None, f"{result.location}: the call fails ({result.got}), the explanation does not"
            else:
                assert ex.error is None, f"{result.location}: {ex.error}"
                from rules_dsl.language.values import literal
                got = result.got.split(" (about ")[0] if case.approx is not None else result.got
                assert literal(ex.result) == got, f"{result.location}: {literal(ex.result)} != {got}"
                assert same(ex.root.value, ex.result)
            _assert_located(book, ex, lines)
            # every call step's value is what the mechanic gives when called plainly with its arguments
    assert cases > 20 and steps > cases


@pytest.mark.parametrize("book_id", BOOKS)
def test_explain_equals_call_for_dice_mechanics_with_a_seed(books, book_id):
    """Random rolls: with the arguments the worked examples call each dice mechanic
    with, the explanation rolls and gives what `call` rolls and gives, seed for seed."""
    book = books[book_id]
    lines = _rule_lines(book)
    calls = {}
    for rule_id, example in book.example_cases():
        for ex in book.explain_example(rule_id, example):
            for st in ex.steps:
                if st.step == "call" and book.mechanics[st.detail["name"]].rolls:
                    calls.setdefault(st.detail["name"], st.args)
    assert calls, f"{book_id}: no worked example calls a dice mechanic"
    for name, args in calls.items():
        m = book.mechanics[name]
        for seed in (1, 2):
            try:
                want, rolls = m.run(seed=seed, **args)
            except rules_dsl.RulesError as e:
                with pytest.raises(type(e)):
                    book.explain(name, seed=seed, **args)
                continue
            ex = book.explain(name, seed=seed, **args)
            assert same(ex.result, want) and ex.rolls == rolls, name
            assert ex.root.step == "call" and same(ex.root.value, want)
            assert any(s.step == "roll" and not s.detail["given"] for s in ex.steps), name
            _assert_located(book, ex, lines)


def _kinds(ex):
    return {s.step for s in ex.steps}


def test_null_strike_nested_calls_table_read_and_notes(books):
    book = books["null-strike"]
    rule_id, example = next((r, e) for r, e in book.example_cases()
                            if any('unit_examples("Star Knights")' in c.source for c in e.cases))
    case_ex = next(x for c, x in zip(example.cases, book.explain_example(rule_id, example))
                   if 'unit_examples("Star Knights")' in c.source)
    assert {"lookup", "call", "branch", "result"} <= _kinds(case_ex)
    look = next(s for s in case_ex.steps if s.step == "lookup")
    assert look.detail["table"] == "unit_examples" and look.detail["keys"] == {"unit": "Star Knights"}
    text = case_ex.text()
    assert "table unit_examples" in text and "unit=Star Knights" in text
    # a random roll, a nested call and the interpretation note of the Dice rule
    ex = book.explain("morale_check", morale=4, seed=2)
    assert ex.result == book.mechanics["morale_check"](morale=4, seed=2)
    lines = ex.lines()
    assert lines[0].startswith("Morale and Panic (morale-and-panic): morale_check(morale=4, penalty=0, fearless=false)")
    assert any(line.strip().startswith("roll die (d6):") and "(rolled at random)" in line for line in lines)
    assert any("Dice (dice): needed_score(base=4, penalty=0, bonus=0)" in line for line in lines)
    assert any("interpretation note: The mechanics follow the opposed chart's own convention" in line for line in lines)
    assert any(line.strip().startswith("if face_meets(need, die):") for line in lines)
    assert lines[-1].strip() == f"=> morale_check gives {ex.result}"
    # the same note is printed once, though the Dice rule is used twice
    assert sum("opposed chart's own convention" in line for line in lines) == 1
    assert sum(any("opposed chart's own convention" in t for _, t, _ in s.notes) for s in ex.steps) >= 2


def test_xenotactics_given_rolls_nested_call_and_table(books):
    book = books["xenotactics"]
    ex = book.explain("end_of_activation", quality=6, action_points=3, quality_dice=[2, 7, 9], seed=5)
    assert ex.result == book.mechanics["end_of_activation"](quality=6, action_points=3, quality_dice=[2, 7, 9], seed=5)
    text = ex.text(locations=False)
    assert "roll quality_dice ((quality_roll_count(action_points, ai, robot)) of d10): [2, 7, 9] (given)" in text
    assert "roll leader_reroll (d10):" in text and "(rolled at random)" in text
    assert "Activation and Quality Rolls (activation-and-quality-rolls): quality_failures(quality=6, results=[2, 7, 9]" in text
    assert "interpretation note: A Leader re-roll is spent on one failed Quality roll" in text
    assert "if failures >= failures_to_end_turn: holds with failures = 2; takes then turn_ends" in text
    # a table read inside a mechanic, located on the printed row
    cost = book.explain("faction_base_cost", faction="locust")
    look = next(s for s in cost.steps if s.step == "lookup")
    assert look.detail["table"] == "faction_statlines" and look.detail["keys"] == {"faction": "locust"}
    rows = {book.compiled.tables["faction_statlines"].spans[i].line
            for i, (k, _) in enumerate(book.compiled.tables["faction_statlines"].entries) if str(k[0]) == "locust"}
    assert int(look.location.rsplit(":", 1)[1]) in rows
    assert cost.result == book.mechanics["faction_base_cost"](faction="locust")
    # the note naming faction_base_cost bears on it; a note naming other mechanics does not
    call_notes = [(t, r) for _, t, r in cost.root.notes]
    assert any("`faction_base_cost`" in t and r == "locust" for t, r in call_notes), call_notes
    assert "interpretation note (of locust): The book does not say whether a faction's listed cost" in cost.text()


def test_dust_tactics_custom_dice_random_and_nested(books):
    book = books["dust-tactics"]
    ex = book.explain("attack_hits", dice=6, sustained=True, seed=4)
    want = book.mechanics["attack_hits"].run(6, sustained=True, seed=4)
    assert ex.result == want[0] and ex.rolls == want[1]
    text = ex.text(locations=False)
    assert "attack_hits(dice=6, sustained=true, extra_target=false)" in text.splitlines()[0]
    assert "roll first (dice of dust):" in text and "(rolled at random)" in text
    assert any(s.step == "call" and s is not ex.root for s in ex.steps), "a nested call"
    assert any(k == "interpretation" for s in ex.steps for k, _, _ in s.notes)
    assert text.splitlines()[-1].strip() == f"=> attack_hits gives {ex.result}"


def test_void_dodge_nested_comprehension_branches_and_note(books):
    book = books["void"]
    ex = book.explain("damage_dodged", needed=6, points=3, dice=[3, 10, 2])
    assert ex.result == 1 == book.mechanics["damage_dodged"](needed=6, points=3, dice=[3, 10, 2])
    text = ex.text(locations=False)
    assert "roll dice (points of d10): [3, 10, 2] (given)" in text
    assert "Dodge (dodge): dodge_results(needed=6, dice=[3, 10, 2])" in text
    assert "if i <= first: does not hold with i = 2, first = 1" in text
    assert "interpretation note: The penalty sentence is ambiguous." in text
    # a table read of the book: spomm_grade_radius through an example
    rule_id, example = next((r, e) for r, e in book.example_cases() if any("spomm_grade_radius(" in c.source for c in e.cases))
    exs = book.explain_example(rule_id, example)
    assert any(s.step == "lookup" and s.detail["table"] == "spomm_grade_radius" for x in exs for s in x.steps)


def test_warhammer_nested_call_table_and_interpretation(books):
    book = books["warhammer-40k"]
    ex = book.explain("spots", initiative=3, distance=2)
    text = ex.text(locations=False)
    assert text.splitlines()[0] == "Spotting Hidden Models (spotting-hidden-models): spots(initiative=3, distance=2)"
    assert "interpretation note: 'Within a radius' includes a distance exactly equal to the Initiative." in text
    assert "require distance >= 0: holds" in text
    assert "spotting_radius(initiative=3)" in text and "=> spots gives true" in text
    door = book.explain("door_armour_value", building="hut_or_shack")
    assert any(s.step == "lookup" and s.detail["table"] == "material_grade" for s in door.steps)
    assert door.result == book.mechanics["door_armour_value"](building="hut_or_shack")


def test_absent_cells_and_failed_require_are_explained(books):
    book = books["warhammer-40k"]
    ex = book.explain("bunker_hit_armour", die=1)
    look = next(s for s in ex.steps if s.step == "lookup")
    assert look.detail["absent"] == ["armour"] and look.detail["keys"] == {"roll": "1"}
    assert "(absent in the source: armour)" in ex.text()
    # a failing require stops as the plain call does, with the same message
    with pytest.raises(rules_dsl.RulesError) as plain:
        book.mechanics["spots"](initiative=3, distance=-1)
    with pytest.raises(rules_dsl.RulesError) as traced:
        book.explain("spots", initiative=3, distance=-1)
    assert str(plain.value) == str(traced.value)


def test_json_schema_keys(books):
    ex = books["null-strike"].explain("morale_check", morale=4, die=3)
    data = ex.as_json()
    assert set(data) == {"book", "result", "error", "rolls", "explanation"}
    assert data["rolls"] == {"die": 3}
    json.dumps(data)

    def walk(s):
        assert {"step", "rule", "location", "value", "children", "notes", "text", "detail", "shown"} == set(s)
        assert set(s["rule"]) == {"id", "title"}
        for n in s["notes"]:
            assert set(n) == {"kind", "text", "rule"} and n["kind"] in ("interpretation", "erratum", "clarification")
        for c in s["children"]:
            walk(c)
    walk(data["explanation"])
    roll = data["explanation"]["children"][0]
    assert roll["step"] == "roll" and roll["value"] == 3 and roll["detail"]["given"] is True


def test_plain_calls_do_not_import_or_compile_the_tracer():
    code = ("import sys, rules_dsl; b = rules_dsl.load('null-strike'); b.mechanics['morale_check'](4, die=3); "
            "b.run_examples(); print('rules_dsl.evaluation.explain' in sys.modules, '_explain' in b.compiled.__dict__)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       cwd=str(Path(__file__).resolve().parents[1]))
    assert p.stdout.split() == ["False", "False"], p.stderr


# ------------------------------------------------------------------ the command
def cli(*args):
    p = subprocess.run([sys.executable, "-m", "rules_dsl", *args], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, COLUMNS="100"))
    assert "Traceback" not in p.stderr, p.stderr
    return p


def test_cli_explain_text_json_and_same_as_call():
    p = cli("explain", "null-strike:morale_check", "morale=4", "--seed", "2")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    # a worked solution in words: the mechanic by its words, its rule's title, where it is written
    assert lines[0].startswith("Morale check (Morale and Panic)")
    assert "[null-strike.rules:" in lines[0]
    assert lines[1] == "  With morale 4, penalty 0, fearless no."
    c = cli("call", "null-strike:morale_check", "morale=4", "--seed", "2", "--json")
    j = cli("explain", "null-strike:morale_check", "morale=4", "--seed", "2", "--json")
    call, expl = json.loads(c.stdout), json.loads(j.stdout)
    assert expl["result"] == call["result"] and expl["rolls"] == call["rolls"]
    said = cli("call", "null-strike:morale_check", "morale=4", "--seed", "2").stdout.splitlines()[0]
    assert f"  {said}." in lines or f"  {said}" in lines          # the answer, as `rules call` says it
    assert expl["explanation"]["rule"] == {"id": "morale-and-panic", "title": "Morale and Panic"}


@pytest.mark.parametrize("args, words", [
    (["nope:x"], "unknown book 'nope'"),
    (["null-strike:morale_chek"], "did you mean 'morale_check'"),
    (["null-strike:morale_check", "morale=9"], "parameter 'morale' got 9; allowed: 2..6"),
    (["null-strike:morale_check", "moral=4"], "unknown parameter 'moral'"),
    (["null-strike:morale_check", "morale"], "expected NAME=VALUE"),
    (["null-strike:morale_check", "morale=4", "die=9"], "not a face of d6"),
    (["null-strike:dice"], "'dice' is a rule there"),
    (["null-strike:opposed_chart", "yours=1", "opposed=1", "--seed", "3"], "it rolls no dice"),
    (["null-strike:opposed_chart", "yours=1", "opponent=1"], "unknown key 'opponent'"),
])
def test_cli_explain_errors_are_one_line(args, words):
    p = cli("explain", *args)
    assert p.returncode == 2
    assert len(p.stderr.strip().splitlines()) == 1 and words in p.stderr, p.stderr


# ------------------------------------------------------------------ odds with reasons
def test_odds_by_branch_is_exact_and_adds_up(books):
    from fractions import Fraction

    from rules_dsl.evaluation.explain import branch_chain, odds_by_branch
    book = books["dust-tactics"]
    arms, rows, plain = odds_by_branch(book.mechanics["initiative_winner"])
    assert [label for label, _ in arms] == ["if army_a > army_b", "else if army_b > army_a",
                                             "else if target_a > target_b", "else if target_b > target_a", "else"]
    by_value = {str(v): (p, dict(parts)) for v, p, parts in rows}
    p, parts = by_value["player_a_wins"]
    assert p == Fraction(106, 243)
    assert parts == {"if army_a > army_b": Fraction(242, 729), "else if target_a > target_b": Fraction(76, 729)}
    assert by_value["roll_again"][1] == {"else": Fraction(31, 243)}
    # for every dice mechanic of every book whose result is a chain of branches: the shares add up
    for bid, b in books.items():
        for name, m in b.mechanics.items():
            if not m.has_dice or not branch_chain(m.node) or any(p.default is None for p in m.params):
                continue
            _, rows, plain = odds_by_branch(m)
            assert [(v, p) for v, p, _ in rows] == plain.outcomes
            for v, p, parts in rows:
                assert parts and sum(q for _, q in parts) == p, (bid, name, v)
    assert odds_by_branch(book.mechanics["attack_hits"], dice=2) is None


def test_cli_odds_explain():
    p = cli("odds", "warhammer-40k:caught_in_area", "status=hidden", "--explain")
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert "Where each result comes from: the branches of caught in area (" in out
    assert "  2. else if die ≥ 4: hit" in out
    assert "  hit: branch 2 (else if die ≥ 4) 1/2 = 50.00%" in out
    assert "  not hit: branch 3 (otherwise) 1/2 = 50.00%" in out
    j = json.loads(cli("odds", "warhammer-40k:caught_in_area", "status=hidden", "--explain", "--json").stdout)
    assert j["branches"][0].startswith("if status == visible")
    assert {o["value"]: [f["branch"] for f in o["from"]] for o in j["outcomes"]} == {
        "hit": ["else if die >= 4"], "not_hit": ["else"]}
    p = cli("odds", "dust-tactics:attack_hits", "dice=2", "--explain")
    assert p.returncode == 0 and "is not a chain of branches" in p.stdout


def test_a_library_book_is_located_in_its_own_books_folder(demo):
    ex = demo.explain("needed", 5, 3)
    assert ex.result == demo.mechanics["needed"](5, 3)
    for st in ex.steps:
        file, _, line = st.location.rpartition(":")
        assert file == "demo.rules" and int(line) > 0, st.location
    assert ex.lines()[0].endswith(f"[demo.rules:{demo.mechanics['needed'].node.span.line}]")


def test_explain_a_table_lookup(books):
    book = books["warhammer-40k"]
    ex = book.explain("bunker_hit_table", roll=1)
    assert ex.result == book.tables["bunker_hit_table"](roll=1)
    assert ex.root.step == "lookup" and ex.root.detail["absent"] == ["armour"]
    assert ex.lines()[0].startswith("table bunker_hit_table (Bunker Hit Table (D6)) at roll=1:")
    assert any(k == "clarification" and "Vision Slit" in t for k, t, _ in ex.root.notes)
    _assert_located(book, ex, _rule_lines(book))
    p = cli("explain", "warhammer-40k:bunker_hit_table", "roll=1", "--json")
    assert p.returncode == 0 and json.loads(p.stdout)["explanation"]["step"] == "lookup"


def test_cli_colour_only_when_asked():
    plain = cli("explain", "warhammer-40k:spots", "initiative=3", "distance=2").stdout
    coloured = cli("explain", "warhammer-40k:spots", "initiative=3", "distance=2", "--color").stdout
    assert "\x1b[" not in plain
    assert "\x1b[1mSpots (Spotting Hidden Models)\x1b[0m" in coloured
    assert "  \x1b[2m[warhammer-40k.rules:" in coloured
