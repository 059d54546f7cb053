"""A budget on every exact computation (issue 31, item 2).

`rules odds`, `Book.odds`/`distribution`, `--vs`, `--explain` and the site's page
odds all run within a `Budget` (time, memory, work): what is known to be too large
before it is made is refused at once, with its size; the rest stops at the deadline,
checked in the engine's loops.  The refusal is one line saying what was too large and
what to try.  No recursion grows with a die's faces.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

import rules_dsl
from rules_dsl.odds import TooLarge, distribution
from rules_dsl.odds.budget import Budget

from conftest import write_book

BIG = '''rule r "Big dice" {
    """Dice with a thousand faces."""
    mechanic one(n: 1..3) -> int {
        roll x: n of d1000
        return sum(x)
    }
    mechanic single() -> int {
        roll d: d1000
        return d
    }
    mechanic best(n: 1..3) -> int {
        roll x: n of d1000
        return max(x)
    }
    mechanic product() -> int {
        roll a: d1000
        roll b: d1000
        roll c: d1000
        return a * b * c
    }
    mechanic graded() -> int {
        roll a: d1000
        roll b: d1000
        roll c: d1000
        return if a > 500 then a * b else b * c
    }
    mechanic small() -> int {
        roll a: d6
        roll b: d6
        return a * 10 + b
    }
    mechanic endless() -> int {
        roll s: chain of d1000 on {2..1000}
        return s
    }
}
'''
HEADER = 'book big {\n  title "Big"\n  dice d6, d1000\n}\n'


@pytest.fixture
def big(tmp_path, monkeypatch):
    books = tmp_path / "books"
    books.mkdir()
    write_book(books, "big", BIG, header=HEADER)
    monkeypatch.setenv("RULES_DSL_BOOKS", str(books))
    monkeypatch.setenv("RULES_DSL_CACHE", str(tmp_path / "cache"))
    return rules_dsl.Library(books, cache=tmp_path / "cache").load("big")


def _cli(*args, env=None, timeout=120):
    full = dict(os.environ, **(env or {}))
    full.pop("COLUMNS", None)
    start = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "rules_dsl", *args], capture_output=True, text=True,
                       env=full, timeout=timeout)
    return p, time.monotonic() - start


def _refused(p, *wanted):
    assert p.returncode == 2, (p.stdout[-500:], p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "internal error" not in p.stderr and "Traceback" not in p.stderr, p.stderr
    for w in wanted:
        assert w in lines[0], (w, lines[0])
    return lines[0]


# ------------------------------------------------------- no recursion by faces
def test_one_die_of_a_thousand_faces_is_exact(big):
    for name, kwargs in (("one", {"n": 1}), ("single", {}), ("best", {"n": 1})):
        d = big.odds(name, **kwargs)
        assert len(d.outcomes) == 1000 and all(p * 1000 == 1 for _, p in d.outcomes), name
        assert d.mean == 1001 / 2


def test_multisets_are_made_without_recursion():
    from rules_dsl.odds.multisets import pool_alternatives
    alts, den = pool_alternatives((1,) * 1500, 1500, 1)       # deeper than Python's recursion limit
    assert len(alts) == 1500 and den == 1500 and sum(w for _, w in alts) == den
    alts, den = pool_alternatives((1,) * 100, 100, 2)
    assert len(alts) == 100 * 101 // 2 and sum(w for _, w in alts) == den


# ------------------------------------------------------------- the refusals
def test_a_sum_of_two_d1000_is_refused_at_once_with_its_size(big):
    start = time.monotonic()
    with pytest.raises(TooLarge) as e:
        big.odds("one", n=2)
    assert time.monotonic() - start < 3
    msg = str(e.value)
    assert msg.startswith("big:one(n=2) is too large for exact odds")
    assert "sum of 2 d1000: about 500,500 distinguishable rolls" in msg
    assert "try fewer dice (a smaller n)" in msg and "a roll given by name (x=...)" in msg
    assert "\n" not in msg


def test_three_dice_are_refused_before_anything_is_made(big):
    start = time.monotonic()
    for name in ("one", "best"):
        with pytest.raises(TooLarge, match="of 3 d1000: about 167,167,000 distinguishable rolls"):
            big.odds(name, n=3)
    assert time.monotonic() - start < 3


def test_the_product_of_three_d1000_stops_at_the_deadline(big):
    start = time.monotonic()
    with pytest.raises(TooLarge) as e:
        distribution(big.mechanics["product"], _budget=Budget(seconds=1))
    took = time.monotonic() - start
    assert 1 <= took < 3, took
    assert e.value.kind == "time" and "it takes more than 1 s" in str(e.value)
    assert "the rolls a, b, c (each a d1000) read together: about 1,000,000,000 distinguishable rolls" in str(e.value)
    assert "more time" in str(e.value)


def test_the_default_budget_is_a_few_seconds(big):
    start = time.monotonic()
    with pytest.raises(TooLarge, match="it takes more than 5 s"):
        big.odds("product")
    assert time.monotonic() - start < 8


def test_work_and_memory_are_budgeted_too(big):
    start = time.monotonic()
    with pytest.raises(TooLarge) as e:          # no clock: counted steps stop it, the same everywhere
        distribution(big.mechanics["product"], _budget=Budget(seconds=None, steps=100_000))
    assert e.value.kind == "work" and "more than 100,000 steps" in str(e.value)
    assert time.monotonic() - start < 3
    with pytest.raises(TooLarge) as e:
        distribution(big.mechanics["small"], _budget=Budget(seconds=None, evaluations=5))
    assert e.value.kind == "work" and "more than 5 evaluations" in str(e.value)
    assert len(big.odds("small").outcomes) == 36
    with pytest.raises(TooLarge) as e:
        distribution(big.mechanics["single"], _budget=Budget(cells=100))
    assert e.value.kind == "memory" and "more than 100 values at once" in str(e.value)


def test_a_chain_that_hardly_ever_stops_is_refused_by_its_terms(big):
    start = time.monotonic()
    with pytest.raises(TooLarge, match="a chain going on 999 times in 1000: about [0-9,]+ terms"):
        big.odds("endless")
    assert time.monotonic() - start < 3


def test_odds_by_branch_shares_one_budget(big):
    from rules_dsl.evaluation.explain import odds_by_branch
    start = time.monotonic()
    with pytest.raises(TooLarge):
        odds_by_branch(big.mechanics["graded"], _budget=Budget(seconds=1))
    assert time.monotonic() - start < 2.5      # not one second for each of its two computations


# ------------------------------------------------------------------ the CLI
@pytest.fixture
def big_env(big, tmp_path):
    return {"RULES_DSL_BOOKS": str(tmp_path / "books"), "RULES_DSL_CACHE": str(tmp_path / "cache")}


def test_rules_odds_refuses_within_a_few_seconds(big_env):
    p, took = _cli("odds", "big:one", "n=2", env=big_env)
    _refused(p, "sum of 2 d1000: about 500,500 distinguishable rolls", "try")
    assert took < 10
    p, took = _cli("odds", "big:product", "--time-limit", "1", env=big_env)
    _refused(p, "it takes more than 1 s", "more time (--time-limit 60)")
    assert took < 6


@pytest.mark.parametrize("extra", [["--vs", "n=3"], ["--explain"]])
def test_vs_and_explain_share_the_command_s_budget(big_env, extra):
    args = ["odds", "big:graded", "--time-limit", "1"] if extra == ["--explain"] else \
        ["odds", "big:one", "n=1", "--time-limit", "1"]
    p, took = _cli(*args, *extra, env=big_env)
    _refused(p, "too large for exact odds")
    assert took < 6


def test_a_one_die_pool_is_answered(big_env):
    p, _ = _cli("odds", "big:one", "n=1", "--json", env=big_env)
    assert p.returncode == 0, p.stderr
    assert p.stdout.count('"value"') == 1000


# ------------------------------------------------------------------ the site
def test_a_too_large_odds_line_is_skipped_and_reported(tmp_path, monkeypatch):
    from rules_dsl.sphinxext.data import compute_odds_one
    books = tmp_path / "books"
    books.mkdir()
    write_book(books, "big", BIG.replace('    mechanic one(n: 1..3) -> int {',
                                         '    odds one(n=1)\n    odds one(n=2)\n    mechanic one(n: 1..3) -> int {'),
               header=HEADER)
    book = rules_dsl.Library(books, cache=tmp_path / "cache").load("big")
    start = time.monotonic()
    rows, err, skipped = compute_odds_one(book.mechanics["one"])
    assert time.monotonic() - start < 10
    assert err is None and [r["inputs_shown"] for r in rows] == [{"n": "1"}]
    (msg,) = skipped
    assert "big:one(n=2) is too large for exact odds" in msg and "sum of 2 d1000" in msg


def test_the_site_build_reports_a_skipped_table(tmp_path):
    from rules_dsl.sphinxext.models import _entry_problems
    derived = {"odds_skipped": {"one": ["big:one(n=2) is too large for exact odds: ..."]}}
    (problem,) = _entry_problems("big", {"derived": derived})
    assert problem[0] == "odds" and "the page leaves that table out" in problem[3]
