"""The `rules` command as a user runs it: output, JSON contracts, exit codes, one-line errors."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import write_book


def run(books, *args, env_extra=None):
    env = dict(os.environ)
    env["RULES_DSL_BOOKS"] = str(books)
    env["RULES_DSL_CACHE"] = str(books.parent / "cache")
    env.update(env_extra or {})
    p = subprocess.run([sys.executable, "-m", "rules_dsl", *args], capture_output=True, text=True, env=env, timeout=120)
    assert "Traceback" not in p.stderr, p.stderr
    return p


def test_books_json_contract(demo_books):
    p = run(demo_books, "books", "--json")
    assert p.returncode == 0
    (b,) = json.loads(p.stdout)
    assert {"id", "title", "rules", "mechanics", "examples"} <= set(b)
    assert (b["id"], b["rules"], b["mechanics"], b["examples"]) == ("demo", 2, 5, 2)


def test_lookup_ranks_exact_alias_typo_and_text(demo_books):
    p = run(demo_books, "lookup", "Opposed Stat Roles", "--json")
    res = json.loads(p.stdout)
    assert res[0]["rule"] == "opposed-stat-rolls" and res[0]["score"] == 95
    assert {"book", "rule", "title", "section", "score", "text"} <= set(res[0])
    typo = json.loads(run(demo_books, "lookup", "opossed stat rols", "--json").stdout)
    assert typo[0]["rule"] == "opposed-stat-rolls"
    text = json.loads(run(demo_books, "lookup", "rolls", "--json").stdout)
    assert "dice-rolls" in [r["rule"] for r in text]


def test_lookup_text_output_shows_section_mechanics_and_notes(demo_books):
    p = run(demo_books, "lookup", "Opposed Stat Rolls")
    assert p.returncode == 0
    assert "demo:opposed-stat-rolls" in p.stdout and "section: The Basics" in p.stdout
    assert "mechanic: needed(" in p.stdout and "note erratum" in p.stdout


def test_lookup_nothing_found_suggests_and_exits_1(demo_books):
    p = run(demo_books, "lookup", "xylophone quartz")
    assert p.returncode == 1
    assert "nothing found" in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_show_whole_rule_and_unknown_rule(demo_books):
    p = run(demo_books, "show", "demo:dice-rolls", "--json")
    rec = json.loads(p.stdout)
    assert rec["rule"] == "dice-rolls" and rec["examples"] and rec["mechanics"]
    bad = run(demo_books, "show", "demo:dice-rols")
    assert bad.returncode == 2 and "did you mean 'dice-rolls'" in bad.stderr


def test_call_with_given_and_seeded_rolls(demo_books):
    p = run(demo_books, "call", "demo:defence", "defence=5", "hits=2", "dice=4,10", "--json")
    assert json.loads(p.stdout) == {"result": ["ignored", "out_of_action"], "rolls": {"dice": [4, 10]}}
    a = run(demo_books, "call", "demo:sustained", "n=8", "--seed", "3", "--json").stdout
    assert a == run(demo_books, "call", "demo:sustained", "n=8", "--seed", "3", "--json").stdout
    assert set(json.loads(a)["rolls"]) == {"first", "second"}


@pytest.mark.parametrize("args, needle", [
    (("call", "demo:needed", "yours=11", "opposed=2"), "parameter 'yours' got 11; allowed: 1..10"),
    (("call", "demo:neded"), "did you mean 'needed'"),
    (("call", "dem:needed"), "did you mean 'demo'"),
    (("call", "demo:needed", "yours"), "expected NAME=VALUE"),
    (("call", "demo:needed", "yours=3", "opposed=2", "pennalty=1"), "did you mean 'penalty'"),
    (("show", "nocolon"), "expected BOOK:NAME"),
    (("lookup", "x", "--book", "nope"), "unknown book 'nope'"),
])
def test_bad_input_is_one_readable_line_exit_2(demo_books, args, needle):
    p = run(demo_books, *args)
    assert p.returncode == 2
    assert needle in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_check_json_contract_and_exit_codes(demo_books):
    p = run(demo_books, "check", "--json")
    assert p.returncode == 0
    rep = json.loads(p.stdout)
    assert rep["examples"] == {"passed": 2, "failed": 0}
    value, summary = rep["findings"]   # the wrong printed cell, then the check's summary
    assert {"book", "rule", "kind", "check", "message", "location", "cases"} <= set(value)
    assert (value["kind"], summary["kind"]) == ("disagreement", "check-summary")
    assert value["location"].endswith("demo.rules:19:17") and value["printed"] == "chart(yours=2, opposed=2)"
    assert summary["location"] == value["check_location"]
    assert run(demo_books, "check", "--strict").returncode == 1
    write_book(demo_books, "t", 'rule r "R" { mechanic f() -> int = 1\n example """\n >>> f()\n 2\n """ }\n')
    assert run(demo_books, "check", "t").returncode == 1


def test_broken_book_fails_check_with_location_but_lookup_still_answers(demo_books):
    write_book(demo_books, "t", 'rule r "R" { mechanic f() -> int = nope }\n')
    p = run(demo_books, "check", "t")
    assert p.returncode == 1 and "t.rules:6:" in p.stderr and "unknown name 'nope'" in p.stderr
    q = run(demo_books, "lookup", "Dice")
    assert q.returncode == 0 and "demo:dice-rolls" in q.stdout


def test_index_is_rebuilt_when_a_source_changes(demo_books):
    assert run(demo_books, "lookup", "Brand New Rule").returncode == 1
    path = demo_books / "demo.rules"
    path.write_text(path.read_text() + '\nrule brand-new-rule "Brand New Rule" { """Fresh text.""" }\n')
    p = run(demo_books, "lookup", "Brand New Rule", "--json")
    assert json.loads(p.stdout)[0]["rule"] == "brand-new-rule"


def test_lookup_does_not_import_the_compiler_when_index_is_fresh(demo_books):
    run(demo_books, "lookup", "Dice")  # build the index
    code = ("import sys, rules_dsl.cli as c\n"
            "try:\n    c.main(['lookup', 'Dice'])\nexcept SystemExit:\n    pass\n"
            "bad = [m for m in ('lark', 'rules_dsl.compiler', 'rules_dsl.language.parser') if m in sys.modules]\n"
            "print('IMPORTED', bad)")
    env = dict(os.environ, RULES_DSL_BOOKS=str(demo_books), RULES_DSL_CACHE=str(demo_books.parent / "cache"))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert "IMPORTED []" in p.stdout, p.stdout + p.stderr


def test_call_takes_a_called_mechanics_roll_by_its_printed_name(demo_books):
    from test_language import COMBINED
    write_book(demo_books, "cm", COMBINED)
    p = run(demo_books, "call", "cm:attack", "n=3", "--seed", "2", "--json")
    printed = json.loads(p.stdout)["rolls"]
    assert set(printed) == {"hit.hit_dice", "save"}
    p = run(demo_books, "call", "cm:attack", "n=3", "hit.hit_dice=[4,4,1]", "save=1", "--json")
    assert p.returncode == 0 and json.loads(p.stdout)["result"] == 2
    p = run(demo_books, "odds", "cm:attack", "n=3", "hit.hit_dice=[4,4,1]", "--json")
    assert p.returncode == 0, p.stderr


OWN_GAME = '''book own {
  title "My Game"
  findings fail
  dice d6
}

rule troopers "Troopers" {
  """A trooper costs 5 points a model."""
  mechanic price(models: 1..10) -> int = 5 * models
  table roster(models: 1..3) -> int {
    | models | points |
    | 1 | 5 |
    | 2 | 10 |
    | 3 | 16 |
  }
  check roster_prices "The roster's prices follow the formula" {
    for row in rows(roster): row.value == price(row.models)
  }
}
'''


def test_findings_fail_in_the_header_makes_findings_fail_check_and_pytest(demo_books, tmp_path):
    (demo_books / "own.rules").write_text(OWN_GAME)
    p = run(demo_books, "check", "own")
    assert p.returncode == 1 and "2 finding(s)" in p.stdout and "  disagreement, printed value, " in p.stdout, p.stdout
    assert "findings fail" in p.stdout                 # it says why the run fails
    (demo_books / "own.rules").write_text(OWN_GAME.replace("| 3 | 16 |", "| 3 | 15 |"))
    assert run(demo_books, "check", "own").returncode == 0
    (demo_books / "own.rules").write_text(OWN_GAME)
    env = dict(os.environ, RULES_DSL_BOOKS=str(demo_books), RULES_DSL_CACHE=str(tmp_path / "c"))
    q = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(demo_books / "own.rules")],
                       capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
    assert q.returncode == 1 and "own[findings]" in q.stdout and "roster(models=3) (line 14) disagrees" in q.stdout, q.stdout
    # a restated book (the default, `findings report`) reports the same finding and passes
    (demo_books / "own.rules").write_text(OWN_GAME.replace("  findings fail\n", ""))
    assert run(demo_books, "check", "own").returncode == 0


def test_an_unknown_findings_mode_is_a_diagnostic(demo_books):
    (demo_books / "own.rules").write_text(OWN_GAME.replace("findings fail", "findings loud"))
    p = run(demo_books, "check", "own")
    assert p.returncode != 0 and "findings loud: unknown mode" in p.stderr + p.stdout
    assert "findings fail" in p.stderr + p.stdout


def test_odds_vs_puts_two_distributions_side_by_side(demo_books):
    p = run(demo_books, "odds", "demo:sustained", "n=2", "--vs", "n=3")
    assert p.returncode == 0, p.stderr
    assert "B: the same with n 3" in p.stdout and "B - A (points)" in p.stdout
    j = json.loads(run(demo_books, "odds", "demo:sustained", "n=2", "--vs", "n=3", "--json").stdout)
    assert j["a"]["inputs"]["n"] == 2 and j["b"]["inputs"]["n"] == 3
    bad = run(demo_books, "odds", "demo:sustained", "n=2", "--vs", "m=3")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "unknown parameter 'm'" in bad.stderr
    both = run(demo_books, "odds", "demo:sustained", "n=2", "--explain", "--vs", "n=3")
    assert both.returncode == 2 and "do not combine" in both.stderr
