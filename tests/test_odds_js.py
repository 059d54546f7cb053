"""The browser's exact-odds engine (rules_dsl/jsgen/odds.js) gives what `rules odds` gives.

Every dice mechanic of every book (the real ones in rulebooks/, the odds engine's test book of
tests/test_odds.py, and tests/jsgen_book.rules: re-rolls, explosions, chains and hostile names)
is run through the JavaScript engine under node (tests/odds_runner.mjs) and through
`rules_dsl.odds.distribution` in Python, on the inputs its web page shows (`page_odds`) and on
seeded random in-range inputs (`RULES_ODDS_JS_N` sets how many per mechanic; 6 by default).
Both are compared exactly: the same outcomes in the same order with the same fractions
("p/q"), the same mean, the same exactness and the same number of evaluations (the two engines
do the same work, so a budget means the same in both); over a budget both refuse (TooLarge), and
bad inputs are refused alike.  A few rolls are also given by name, as `rules odds` takes them.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

import rules_dsl
from rules_dsl import jsgen
from rules_dsl.language import nodes as n
from rules_dsl.errors import RulesError
from rules_dsl.jsgen.canonical import canonical, encode
from rules_dsl.odds import Budget, OrMore, distribution, page_odds

from conftest import REPO

HERE = Path(__file__).resolve().parent
RUNNER = HERE / "odds_runner.mjs"
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not on PATH: the JavaScript odds engine is tested under node")

REAL = rules_dsl.Library(REPO / "rulebooks").book_ids()
RANDOM_N = int(os.environ.get("RULES_ODDS_JS_N", "6"))
BUDGET = 40_000          # evaluations: random inputs past it are refused by both engines


@pytest.fixture(scope="module")
def libraries(tmp_path_factory):
    from test_odds import ODDS_BOOK
    own = tmp_path_factory.mktemp("oddsjs-books")
    shutil.copy(HERE / "jsgen_book.rules", own / "jsgen.rules")
    (own / "oddsbook.rules").write_text(ODDS_BOOK)
    return {"real": rules_dsl.Library(REPO / "rulebooks", cache=own / "cache-real"),
            "own": rules_dsl.Library(own, cache=own / "cache")}


@pytest.fixture(scope="module")
def out_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("oddsjs")


def run_node(jobs) -> list:
    p = subprocess.run([NODE, str(RUNNER)], input=json.dumps({"jobs": jobs}), capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout)["jobs"]


def _frac(q) -> str:
    q = Fraction(q)
    return f"{q.numerator}/{q.denominator}"


def _value(v):
    return ["or_more", canonical(v.n), v.up] if isinstance(v, OrMore) else canonical(v)


KINDS = {"EvaluationError": "Error", "InputError": "InputError", "NotFound": "NotFound", "TooLarge": "TooLarge",
         "NoDice": "NoDice"}


def python_odds(mech, inputs, rolls=None, budget=None):
    """What `rules odds` computes, in the runner's form."""
    try:
        d = distribution(mech, **inputs, **({"rolls": rolls} if rolls else {}), _budget=Budget(seconds=None),
                         **({"_max_evals": budget} if budget is not None else {}))
    except RulesError as e:
        return {"error": [KINDS.get(type(e).__name__, type(e).__name__), str(e)]}
    return {"outcomes": [[_value(v), _frac(p)] for v, p in d.outcomes], "mean": None if d.mean is None else _frac(d.mean),
            "exact": d.exact, "evaluations": d.evaluations,
            "explode_caps": [[r, cap, _frac(q)] for r, (cap, q) in d.explode_caps.items()]}


# ---------------------------------------------------------------- random inputs
def _random_value(rng, book, t, depth=0):
    if isinstance(t, n.UnionType):
        return _random_value(rng, book, rng.choice(t.options), depth)
    if isinstance(t, n.RangeType):
        lo, hi = t.low, t.high
        # small values more often: most inputs a player types are small, and large pools cost the most
        return rng.choice([lo, min(hi, lo + rng.randint(0, 3)), rng.randint(lo, hi)])
    if isinstance(t, n.ListType):
        return [_random_value(rng, book, t.item, depth + 1) for _ in range(rng.randint(0, 3))]
    name = t.name
    if name == "bool":
        return rng.random() < 0.5
    if name in book.enums:
        return str(rng.choice(list(book.enums[name])))
    if name in book.dice:
        die = book.dice[name]
        f = rng.choice(die.distinct)
        return str(f) if die.custom else f
    if name == "int":
        return rng.randint(0, 6)
    if name == "number":
        return Fraction(rng.randint(0, 12), rng.choice([1, 2, 3]))
    if name == "absent":
        return None
    return "x"


def random_inputs(rng, mech):
    book = mech.book
    return {p.name: _random_value(rng, book, p.type) for p in mech.params
            if p.default is None or rng.random() < 0.7}


def cases_of(book, rng):
    """[(case for node, python result)] for every dice mechanic of `book`: its page's inputs,
    random inputs (under BUDGET), and a single die given by name."""
    out = []
    for name, mech in book.mechanics.items():
        if not mech.has_dice:
            continue
        shown = []
        try:
            shown = [dict(inputs) for inputs, _ in page_odds(mech)]
        except RulesError:
            pass
        for inputs in shown:
            out.append(({"mechanic": name, "inputs": {k: encode(v) for k, v in inputs.items()}},
                        python_odds(mech, inputs)))
        for _ in range(RANDOM_N):
            inputs = random_inputs(rng, mech)
            enc = {k: (["absent"] if v is None else encode(v)) for k, v in inputs.items()}
            py_inputs = {k: (rules_dsl.language.values.ABSENT if v is None else v) for k, v in inputs.items()}
            out.append(({"mechanic": name, "inputs": enc, "budget": BUDGET}, python_odds(mech, py_inputs, budget=BUDGET)))
        one = next((r for r in mech.rolls if r.dice.kind == "one" and not book.dice[r.dice.die].custom), None)
        if one is not None and shown:
            face = rng.choice(book.dice[one.dice.die].distinct)
            out.append(({"mechanic": name, "inputs": {k: encode(v) for k, v in shown[0].items()},
                         "rolls": {one.name: encode(face)}}, python_odds(mech, shown[0], rolls={one.name: face})))
    return out


def agree(py, js, books_dir) -> bool:
    js = dict(js)
    js.pop("ms", None)
    if "error" in py or "error" in js:
        if "error" not in py or "error" not in js:
            return False
        kind_py, msg_py = py["error"]
        kind_js, msg_js = js["error"]
        if kind_py != kind_js:
            return False
        if kind_py in ("InputError", "NotFound"):
            return True            # the words are the runtime's (tests/test_jsgen.py compares them)
        return msg_py.replace(books_dir.rstrip("/") + "/", "") == msg_js
    return py == js


@pytest.mark.parametrize("book_id", REAL + ["oddsbook", "jsgen"])
def test_browser_odds_equal_python_odds(book_id, libraries, out_dir):
    lib = libraries["real" if book_id in REAL else "own"]
    book = lib.load(book_id)
    jsgen.write(book, str(out_dir), odds=True)
    rng = random.Random(f"odds-js-{book_id}")
    cases = cases_of(book, rng)
    assert cases, f"{book_id} has no dice mechanic"
    results = run_node([{"dir": str(out_dir), "id": book_id, "cases": [c for c, _ in cases]}])[0]
    bad = [(c, py, js) for (c, py), js in zip(cases, results) if not agree(py, js, str(lib.books_dir))]
    assert not bad, "\n".join(f"{c}\n  python: {json.dumps(py)[:500]}\n  node:   {json.dumps(js)[:500]}" for c, py, js in bad[:5])
    # the comparison is worth something: most cases have odds, some were refused, all agreed
    computed = [py for _, py in cases if "outcomes" in py]
    assert len(computed) >= len(cases) // 2, (len(computed), len(cases))


def test_a_budget_means_the_same_in_both(libraries, out_dir):
    """Null Strike's whole attack with 40 shots: past a budget of evaluations both engines refuse,
    in the same words; within it, both give the same law having done the same work."""
    book = libraries["real"].load("null-strike")
    jsgen.write(book, str(out_dir), odds=True)
    mech = book.mechanics["resolve_attack"]
    inputs = dict(shots=40, weapons=5, evasion=4, strength=5, toughness=4, armour=4)
    full = python_odds(mech, inputs)
    assert "outcomes" in full and full["evaluations"] > 100, full
    small = full["evaluations"] - 1
    cases = [{"mechanic": "resolve_attack", "inputs": {k: encode(v) for k, v in inputs.items()}, "budget": b}
             for b in (full["evaluations"], small)]
    got = run_node([{"dir": str(out_dir), "id": "null-strike", "cases": cases}])[0]
    assert agree(full, got[0], ""), (full, got[0])
    refused = python_odds(mech, inputs, budget=small)
    assert refused["error"][0] == "TooLarge" and agree(refused, got[1], ""), (refused, got[1])


def test_hostile_names_stay_data_in_the_odds_module(libraries, out_dir):
    """The odds module is generated from the checked AST: a book's names are JSON strings and
    prefixed identifiers, never code (the jsgen book's names include `__proto__` and `</script>`)."""
    book = libraries["own"].load("jsgen")
    paths = jsgen.write(book, str(out_dir), odds=True)
    text = Path(paths["odds"]).read_text()
    assert "</script" not in text and "eval(" not in text and "Function(" not in text
    for name, mech in book.mechanics.items():
        if mech.has_dice:
            assert f"P.set({json.dumps(name)}" in text


# ------------------------------------------------------------------ as a page shows it
STATIC = REPO / "rules_dsl" / "sphinxext" / "static"


def _page_rows(mech, inputs):
    """The rows of the page's odds block for these inputs, as its form reads them (data-odds)."""
    from rules_dsl.faces.records import fold_odds
    from rules_dsl.sphinxext.data import compute_odds_one
    from rules_dsl.sphinxext.render_decls import form_odds
    rows, err, _skipped = compute_odds_one(mech)
    assert err is None, err
    block = next(b for b in rows if all(b["inputs_shown"].get(k) == rules_dsl.language.values.show(v) for k, v in inputs.items()))
    return json.loads(form_odds({"odds": [fold_odds(block)]}))[0]


@pytest.mark.parametrize("book_id", REAL)
def test_a_form_shows_what_the_page_shows(book_id, libraries, out_dir):
    """For every set of inputs a page holds odds for, the law the form works out in the browser is
    shown exactly as the page's own rows: the results in words, "xx.xx%", "at least", the exact
    fraction, the mean, and a long law folded the same way (rules_odds.mjs lawOf against
    sphinxext/data.py compute_odds_one, fold_odds and render_decls.form_odds)."""
    book = libraries["real"].load(book_id)
    jsgen.write(book, str(out_dir), odds=True)
    cases, want = [], []
    for name, mech in book.mechanics.items():
        if not mech.has_dice:
            continue
        for inputs, _ in page_odds(mech):
            cases.append({"mechanic": name, "inputs": {k: encode(v) for k, v in dict(inputs).items()}})
            want.append(_page_rows(mech, dict(inputs)))
    got = run_node([{"dir": str(out_dir), "id": book_id, "view": str(STATIC), "cases": cases}])[0]
    for c, w, g in zip(cases, want, got):
        law = g["law"]
        assert [w["rows"], w["mean"], w["folded"]] == [law["rows"], law["mean"], law["folded"]], (c, w, law)


def test_percents_are_written_as_python_writes_them(libraries, out_dir):
    """values.percent_text in JavaScript: the nearest double to the fraction, times 100, two decimals
    rounded half to even -- ties included (12.125% is "12.12%", 0.375% is "0.38%"), huge numerators
    and denominators, the edges (<0.01%, >99.99%, 0%, 100%)."""
    from rules_dsl.language.values import percent_text
    rng = random.Random(27)
    fracs = [Fraction(j, 800) for j in range(0, 801)]                       # every x.xx5 tie there is
    fracs += [Fraction(rng.randint(0, 10 ** k), 10 ** k) for k in (3, 5, 9) for _ in range(60)]
    fracs += [Fraction(rng.randint(1, 6 ** 60), 6 ** 60) for _ in range(150)]
    fracs += [Fraction(1, 3), Fraction(2, 3), Fraction(1, 10 ** 5), Fraction(10 ** 5 - 1, 10 ** 5), Fraction(1), Fraction(0),
              Fraction(3968, 5559060566555523), Fraction(6 ** 70 - 1, 6 ** 70)]
    book = libraries["real"].load("skirmish-tutorial")
    jsgen.write(book, str(out_dir), odds=True)
    got = run_node([{"dir": str(out_dir), "id": "skirmish-tutorial", "view": str(STATIC), "cases": [],
                     "percents": [[str(f.numerator), str(f.denominator)] for f in fracs]}])[0]["percents"]
    bad = [(f, percent_text(f), g) for f, g in zip(fracs, got) if percent_text(f) != g]
    assert not bad, bad[:10]
    assert "12.12%" in got and percent_text(Fraction(97, 800)) == "12.12%"


def test_the_browser_refuses_as_python_does_in_the_same_words(tmp_path, out_dir):
    """The JavaScript engine's budget is stated as Python's (odds/budget.py): the estimates made
    before the work (a summed pool past 200,000 rolls, a roll past a million, a chain past 5,000
    terms) refuse at once, the evaluations cap and the memory budget in the loops, each refusal
    saying the computation, what ran out, the largest estimate and what to try, word for word;
    and what fits is exact (a d1000 alone: no recursion by a die's faces)."""
    from test_budget import BIG, HEADER
    from conftest import write_book
    books = tmp_path / "books"
    books.mkdir()
    write_book(books, "big", BIG, header=HEADER)
    lib = rules_dsl.Library(books, cache=tmp_path / "cache")
    book = lib.load("big")
    where = out_dir / "big"
    where.mkdir()
    jsgen.write(book, str(where), odds=True)
    cases = [({"mechanic": "one", "inputs": {"n": encode(2)}}, {}),            # sum of 2 d1000: 500,500 rolls
             ({"mechanic": "one", "inputs": {"n": encode(3)}}, {}),            # about 167 million: past a million
             ({"mechanic": "endless", "inputs": {}}, {}),                      # a chain going on 999 times in 1000
             ({"mechanic": "small", "inputs": {}, "budget": 10}, {}),          # the evaluations cap
             ({"mechanic": "small", "inputs": {}, "limits": {"cells": 20}}, {"cells": 20}),   # memory
             ({"mechanic": "best", "inputs": {"n": encode(2)}}, {}),           # max of 2 d1000: 4,000,000 values
             ({"mechanic": "best", "inputs": {"n": encode(1)}}, {}),
             ({"mechanic": "small", "inputs": {}}, {})]
    want = []
    for case, limits in cases:
        mech = book.mechanics[case["mechanic"]]
        inputs = {k: v[1] if isinstance(v, list) else v for k, v in case["inputs"].items()}
        inputs = {k: int(v) for k, v in inputs.items()}
        try:
            d = distribution(mech, **inputs, _budget=Budget(seconds=None, **limits),
                             **({"_max_evals": case["budget"]} if "budget" in case else {}))
            want.append({"outcomes": len(d.outcomes), "mean": _frac(d.mean)})
        except RulesError as e:
            want.append({"error": ["TooLarge", str(e)]})
    got = run_node([{"dir": str(where), "id": "big", "cases": [c for c, _ in cases]}])[0]
    got = [{"error": g["error"]} if "error" in g else {"outcomes": len(g["outcomes"]), "mean": g["mean"]} for g in got]
    assert got == want
    refused = [w["error"][1] for w in want if "error" in w]
    assert len(refused) == 6 and want[6] == {"outcomes": 1000, "mean": "1001/2"}, want
    assert "sum of 2 d1000: about 500,500 distinguishable rolls" in refused[0]
    assert "it takes more than 10 evaluations" in refused[3] and "more than 20 values at once" in refused[4]
    # the deadline (wall time: the browser's last resort), polled in the engine's loops
    slow = run_node([{"dir": str(where), "id": "big", "cases": [{"mechanic": "graded", "inputs": {}, "limits": {"seconds": 0.5}}]}])[0][0]
    assert slow["error"][1].startswith("big:graded() is too large for exact odds: it takes more than 0.5 s; the rolls a, b, c")
    assert slow["error"][1].endswith("or more time") and slow["ms"] < 5_000, slow


def test_the_forms_budget_is_the_pages_budget():
    """A form works out odds on the budget of the page's own odds, stated as Python's Budget."""
    from rules_dsl.odds.page_inputs import PAGE_BUDGET, SITE_SECONDS, SITE_STEPS
    url = (REPO / "rules_dsl/sphinxext/static/rules_odds.mjs").as_uri()
    p = subprocess.run([NODE, "--input-type=module", "-e",
                        f"import {{ BUDGET }} from {json.dumps(url)}; process.stdout.write(JSON.stringify(BUDGET));"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == {"evaluations": PAGE_BUDGET, "steps": SITE_STEPS, "seconds": SITE_SECONDS}
