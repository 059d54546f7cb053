"""Every claim of `rules diff` is true (issue 38): a mechanic is reported changed (with an
input that shows it), the same over N inputs (N > 0, exhaustive or sampled, said), or
not compared and why; never "same" over inputs it did not run.

* one costly mechanic does not starve the others (the mechanics without dice run first,
  each on a slice of the time left);
* the inputs compared first are the book's own (odds lines, worked examples, website
  odds), random ones only after: a house rule on Null Strike's armour save shows its
  odds for the book's inputs, not for "shots 98, emp yes";
* a table that gains or loses a column diffs and renders (text, JSON with `changed_by`,
  the site's "What changed" page);
* the whole diff keeps to `--time-limit` (plus start-up), its odds included.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from fractions import Fraction
from typing import ClassVar

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import REPO
from rules_dsl.faces.diff import diff_books
from rules_dsl.faces.diff_text import lines
from rules_dsl.library.loader import Library

PLAYERS = ("odds", "example", "profile", "website")      # the sources of the book's own inputs (diff_inputs.py)
SCHEMA = json.loads((REPO / "rules_dsl" / "faces" / "schema" / "diff.schema.json").read_text())

TOY = '''book toy {
    title "Toy"
    edition "One"
    dice d6
    """A toy book."""
}

section s "Section" {
    """The section."""

    rule r "Rule" {
        """The rule."""
        const k = 1
        mechanic heavy(n: 1..30 = 20, m: 1..30 = 20) -> int "A slow roll."
        {
            roll a: n of d6
            roll b: m of d6
            roll c: n of d6
            return max(a) * k + min(b) + count(d for d in a if d > 3) * count(d for d in b if d > 2)
                + count(d for d in c if d > max(b) - 2) * max(c)
        }
        mechanic prod(x: 1..6, y: 1..6) -> int "x times y." = x * y * k
        mechanic free(x: 1..6, y: 1..6) -> int "x times y, free." = x * y
    }
}
'''

TOY_LAYER = '''layer h on toy {
    title "Toy, house"
}

change k to 2
replace mechanic free(x: 1..6, y: 1..6) -> int "x times y plus one." = x * y + 1
'''


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    """The toy book (a costly dice mechanic first, two cheap ones after) and its layer."""
    folder = tmp_path_factory.mktemp("toy")
    (folder / "toy.rules").write_text(TOY, encoding="utf-8")
    (folder / "toy+h.rules").write_text(TOY_LAYER, encoding="utf-8")
    lib = Library(folder, cache=folder.parent / "toy-cache")
    return folder, lib.load("toy"), lib.load("toy+h")


def mech(d, name):
    return next(m for m in d["mechanics"] if m["name"] == name)


def assert_claims_true(d, a, b):
    """What every diff must hold: each changed mechanic's outcome is one of three, and
    its numbers back it; the text says "same" only of mechanics compared on inputs."""
    for m in d["mechanics"]:
        if m["status"] != "changed":
            continue
        c = m["compared"]
        assert c["outcome"] in ("changed", "same", "not_compared"), m["name"]
        if c["outcome"] == "changed":
            assert c["differ"] > 0 and m["differences"] and c["inputs"] > 0, m["name"]
        elif c["outcome"] == "same":
            assert c["differ"] == 0 and (c["inputs"] > 0 or c["method"] == "unchanged"), m["name"]
        else:
            assert c["inputs"] == 0 and c["method"] == "none" and c["note"], m["name"]
        if c["method"] == "exhaustive":
            assert c["inputs"] == c["domain"]
        if c["domain"] is not None:
            assert c["inputs"] <= c["domain"]
    text = "\n".join(lines(d, a, b, 200))
    assert "where compared" not in text
    for m in d["mechanics"]:
        if m["status"] == "changed" and m["compared"]["outcome"] == "not_compared":
            line = next(x for x in text.splitlines() if f"({m['name']}" in x)
            assert "same" not in line and "not compared" in text.lower(), line
    assert not list(_validator().iter_errors(json.loads(json.dumps(d))))


def _validator():
    import jsonschema
    return jsonschema.Draft202012Validator(SCHEMA)


# ------------------------------------------------------------------ no starvation, no false "same"
def test_a_costly_mechanic_does_not_starve_the_cheap_ones(toy):
    """`heavy` (listed first) takes far longer than the limit; `prod` (which reads the
    changed number) and `free` (replaced) are compared on every input all the same, and
    `heavy` is reported not compared, with why, never "the same"."""
    _, a, b = toy
    d = diff_books(a, b, time_limit=1.0)
    for name in ("prod", "free"):
        c = mech(d, name)["compared"]
        assert c["method"] == "exhaustive" and c["inputs"] == 36 and c["outcome"] == "changed"
        assert c["differ"] == 36               # x*y*2 and x*y+1 differ from x*y for every input
    heavy = mech(d, "heavy")["compared"]
    assert heavy["outcome"] in ("changed", "not_compared")
    if heavy["outcome"] == "not_compared":
        assert "time limit (1 s, --time-limit)" in heavy["note"] or "share of the diff's time" in heavy["note"]
    assert d["summary"]["mechanics_changed"] >= 2
    text = "\n".join(lines(d, a, b, 100))
    assert "same results" not in text
    assert_claims_true(d, a, b)


@settings(max_examples=6, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(limit=st.floats(min_value=1e-6, max_value=0.4), budget=st.integers(min_value=1, max_value=200))
def test_under_any_time_limit_and_budget_every_claim_is_backed(toy, limit, budget):
    """Whatever the limit and budget: an outcome per changed mechanic, "same" only over
    inputs that ran, "not compared" with a reason; and the diff ends near its limit."""
    _, a, b = toy
    start = time.monotonic()
    d = diff_books(a, b, budget=budget, time_limit=limit)
    assert time.monotonic() - start < limit + 1.0
    assert_claims_true(d, a, b)


def test_a_mechanic_the_time_never_reached_says_so(toy):
    _, a, b = toy
    d = diff_books(a, b, time_limit=1e-9)
    for name in ("heavy", "prod", "free"):
        c = mech(d, name)["compared"]
        assert c["outcome"] == "not_compared" and c["inputs"] == 0
        assert "ran out before it was reached" in c["note"]
    text = "\n".join(lines(d, a, b, 100))
    assert "3 other mechanics reach a change and were not compared" in text
    assert "Prod (prod): The diff's time limit (1e-09 s, --time-limit) ran out before it was reached." in text


def test_a_mechanic_compared_on_a_part_of_its_inputs_says_how_many_and_how_chosen(toy):
    """A budget too small for every input: sampled, the count and the budget said."""
    _, a, b = toy
    d = diff_books(a, b, budget=20, time_limit=30)
    c = mech(d, "free")["compared"]
    assert c["method"] == "sampled" and c["inputs"] == 10 and c["stopped"] == "budget"
    assert "drawn at random from its 36 inputs" in c["note"] and "budget of 20 evaluations" in c["note"]


# ------------------------------------------------------------------ the book's own inputs first
SAVE_LAYER = '''layer save on null-strike {
    title "Null Strike, tougher armour"
}

replace mechanic armour_save_target(armour called "Armour": 2..6, penetration called "Penetration": 0..10 = 0) -> 2..6 | chart_entry called "save needed"
    "Score the defender needs on the armour roll: Armour raised by one per point of Penetration past the first."
    question "What does the armour save need on a d6?"
    answer "needs {result}+"
    = score_entry(armour + penetration - 1)
because "house rule: armour should count for more"
'''


@pytest.fixture(scope="module")
def null_strike_save(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ns")
    shutil.copy(REPO / "rulebooks" / "null-strike.rules", folder)
    (folder / "null-strike+save.rules").write_text(SAVE_LAYER, encoding="utf-8")
    lib = Library(folder, cache=folder.parent / "ns-cache")
    return lib.load("null-strike"), lib.load("null-strike+save")


def test_the_attack_that_calls_a_changed_save_is_compared_on_the_books_inputs_first(null_strike_save):
    """The attack calls the changed armour save: it is compared on its worked examples'
    and website's inputs before any random one, and the odds shown are for those (a few
    shots), each as `rules_dsl.odds.distribution` gives it on each book."""
    from rules_dsl.odds import distribution
    a, b = null_strike_save
    d = diff_books(a, b, time_limit=20)
    attack = mech(d, "resolve_attack")
    # where it changed: for a few shots, as the book's examples and website use (it was "shots 104")
    assert attack["differences"] and all(x["inputs"]["shots"] <= 10 for x in attack["differences"])
    c = attack["compared"]
    assert c["outcome"] == "changed" and c["own_inputs"] >= 3
    assert attack["differences"][0]["source"] in PLAYERS
    assert attack["odds"] and all(o["source"] in PLAYERS for o in attack["odds"])
    for o in attack["odds"]:
        assert o["inputs"]["shots"] <= 10
        inputs = {k: v for k, v in o["inputs"].items()}
        inputs["target"] = a.enums["target_class"][inputs["target"]] if "target_class" in a.enums else inputs["target"]
        for book, side in ((a, "before"), (b, "after")):
            law = distribution(book.mechanics["resolve_attack"], **inputs)
            assert [(str(v), p) for v, p in law.outcomes] == \
                [(str(x["value"]), Fraction(x["probability"])) for x in o[side]["outcomes"]]
    save = mech(d, "armour_save_target")
    assert save["compared"]["method"] == "exhaustive"
    assert save["differences"][0]["source"] == "example"        # armour_save_target(3, 2): 5 before, 4 after
    assert_claims_true(d, a, b)
    short = diff_books(a, b, time_limit=0.3)       # "same results where compared: resolve attack", 0 inputs
    assert_claims_true(short, a, b)


# ------------------------------------------------------------------ tables that gain or lose columns
GEAR = '''book gear {
    title "Gear"
    edition "One"
    dice d6
    """A book of gear."""
}

section s "Section" {
    """The section."""

    rule kits "Kits" {
        """Each kit's weight and price."""
        enum kit_kind { rope, lamp }
        table kit(kind: kit_kind) -> (weight: 1..9, price: 1..99) "Kits" {
            | kind | weight | price |
            |---|---|---|
            | rope | 2 | 5 |
            | lamp | 1 | 8 |
        }
    }
}
'''

GEAR_LAYER = '''layer more on gear {
    title "Gear, with bulk"
}

replace table kit(kind: kit_kind) -> (price: 1..99, bulk: 1..5) "Kits" {
    | kind | price | bulk |
    |---|---|---|
    | rope | 5 | 3 |
    | lamp | 9 | 1 |
}
because "bulk counts, weight does not"
'''


@pytest.fixture(scope="module")
def gear(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gear")
    (folder / "gear.rules").write_text(GEAR, encoding="utf-8")
    (folder / "gear+more.rules").write_text(GEAR_LAYER, encoding="utf-8")
    lib = Library(folder, cache=folder.parent / "gear-cache")
    return folder, lib.load("gear"), lib.load("gear+more")


def test_a_replaced_table_with_a_new_and_a_removed_column_diffs(gear):
    _, a, b = gear
    d = diff_books(a, b)
    (t,) = d["tables"]
    assert t["columns"] == {"added": ["bulk"], "removed": ["weight"], "said": {"bulk": "bulk", "weight": "weight"}}
    rows = {r["keys"]["kind"]: r for r in t["rows"]["changed"]}
    assert set(rows) == {"rope", "lamp"}
    assert rows["rope"]["columns"] == ["bulk", "weight"] and rows["lamp"]["columns"] == ["price", "bulk", "weight"]
    for r in rows.values():
        (by,) = r["changed_by"]
        assert by["number"] == 1 and by["because"] == "bulk counts, weight does not"
    assert not list(_validator().iter_errors(json.loads(json.dumps(d))))
    text = "\n".join(lines(d, a, b, 100))
    assert "Column added: bulk. Column removed: weight." in text
    assert "rope: bulk 3 (new column); weight was 2 (column removed)" in text
    assert "lamp: price 8 → 9; bulk 1 (new column); weight was 1 (column removed)" in text
    assert text.count("bulk counts, weight does not") == 1      # the whole table's change, said once


def test_the_what_changed_page_draws_a_table_with_new_columns(gear, monkeypatch):
    """The site's "What changed" page (sphinxext/changes.py) on the same diff: the
    columns said, each row's cells, the change's reason once."""
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser
    from docutils.utils import new_document

    from rules_dsl.sphinxext.changes import add_layers, changes_nodes
    folder, a, b = gear
    monkeypatch.setenv("RULES_DSL_BOOKS", str(folder))

    class Ctx:
        units: ClassVar[set] = set()
        site = None
        document = new_document("<what changed>", get_default_settings(Parser))

        @staticmethod
        def book_title(book_id):
            return {"gear": "Gear"}.get(book_id, book_id)
    model = {"id": b.id, "title": b.title, "rules": {}}
    add_layers(model, b)
    (sec,) = changes_nodes(Ctx, model)
    words = re.sub(r"\s+", " ", sec.astext())
    assert "Column added: bulk. Column removed: weight." in words
    assert "rope: bulk 3 (new column); weight was 2 (column removed)" in words
    assert words.count("bulk counts, weight does not") == 2       # the table's change once, the designers' list once


def test_rules_diff_of_a_table_with_a_new_column_is_not_an_internal_error(gear, tmp_path):
    folder, _, _ = gear
    env = dict(os.environ, NO_COLOR="1", COLUMNS="100", RULES_DSL_BOOKS=str(folder),
               RULES_DSL_CACHE=str(tmp_path / "cache"))
    p = subprocess.run([sys.executable, "-m", "rules_dsl", "diff", "gear", "gear+more"], capture_output=True,
                       text=True, env=env, timeout=300)
    assert p.returncode == 0 and "internal error" not in p.stderr, p.stderr
    assert "bulk 3 (new column)" in p.stdout


# ------------------------------------------------------------------ the whole diff keeps to its limit
def test_the_whole_diff_keeps_to_its_time_limit_odds_included(toy, tmp_path):
    """`heavy`'s odds at its defaults take far more than a second; the diff (in process
    and as `rules diff --time-limit 1`) ends within the limit plus start-up."""
    _, a, b = toy
    start = time.monotonic()
    diff_books(a, b, time_limit=0.5)
    assert time.monotonic() - start < 0.5 + 0.5            # it took 3.5 s (the page's odds on their own budget)
    folder, _, _ = toy
    env = dict(os.environ, NO_COLOR="1", RULES_DSL_BOOKS=str(folder), RULES_DSL_CACHE=str(tmp_path / "cache"))

    def timed(*args):
        t = time.monotonic()
        p = subprocess.run([sys.executable, "-m", "rules_dsl", "diff", *args], capture_output=True, text=True,
                           env=env, timeout=300)
        assert p.returncode == 0, p.stderr
        return time.monotonic() - t
    timed("toy", "toy+h", "--time-limit", "1")              # the books compiled into the cache
    startup = timed("toy", "toy")                           # the same start-up, nothing to compare
    assert timed("toy", "toy+h", "--time-limit", "1") < startup + 1.0 + 0.8    # it took start-up + 3.7 s
