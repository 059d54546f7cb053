"""One time limit everywhere (issue 38): every command that computes (call, explain,
odds, cost) keeps to one `--time-limit` (`odds.Deadline`), shared by its rows, variants
and cases.

* `--sweep` rows share the command's deadline (they took a fixed 30 s each: a
  1001-row sweep could run for hours); rows the time did not reach say so in words.
* `rules cost` takes `--time-limit` (it had none: 500 cases of 30 s each).
* A sweep whose every row is refused prints each refusal and exits cleanly (it died
  with `internal error: IndexError`).
* Refusals wrap at the terminal's width, under the table or under "rules: " (they
  ran to about 400 columns).

Each command runs in a subprocess against a hostile book; the start-up (`rules
books`) is measured in the same test, and the margin is generous (a shared machine).
"""
from __future__ import annotations

import os
import pty
import subprocess
import sys
import time

import pytest

import rules_dsl
from rules_dsl.evaluation import design
from rules_dsl.odds import Deadline, page_odds

from conftest import write_book

HEADER = 'book hostile {\n  title "Hostile"\n  dice d6, d1000\n}\n'
HOSTILE = '''rule r "Hostile dice" {
    """Dice a player would never throw."""
    mechanic pool(n: 1..1000) -> int {
        roll x: n of d6
        return sum(x)
    }
    mechanic product(k: 1..3) -> int {
        roll a: d1000
        roll b: d1000
        roll c: d1000
        return if a > 500 then a * b * c * k else b * c
    }
    mechanic many(n: 1..1000) -> bool {
        roll x: n of d1000
        return sum(x) > 10
    }
    mechanic burst(n: 1..900) -> int {
        roll x: n of d6 explode on {1..5} up to 20
        return sum([sum([a * b for b in x]) for a in 1..300])
    }
    mechanic loops(n: 1..1000) -> int {
        return sum([sum([a * b for b in 1..n]) for a in 1..n])
    }
    priced per_point {
        for n in 1..500: n per pool(n)
    }
}
'''
MARGIN = 2.0          # seconds beyond the limit and the start-up: the machine is shared


@pytest.fixture
def hostile(tmp_path, monkeypatch):
    books = tmp_path / "books"
    books.mkdir()
    write_book(books, "hostile", HOSTILE, header=HEADER)
    monkeypatch.setenv("RULES_DSL_BOOKS", str(books))
    monkeypatch.setenv("RULES_DSL_CACHE", str(tmp_path / "cache"))
    return rules_dsl.Library(books, cache=tmp_path / "cache").load("hostile")


@pytest.fixture
def env(hostile, tmp_path):
    full = dict(os.environ, RULES_DSL_BOOKS=str(tmp_path / "books"), RULES_DSL_CACHE=str(tmp_path / "cache"),
                COLUMNS="80")
    return full


def _cli(env, *args, timeout=30):
    start = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "rules_dsl", *args], capture_output=True, text=True,
                       env=env, timeout=timeout)
    return p, time.monotonic() - start


def _startup(env) -> float:
    """The command's start-up on this machine now: the slowest of two `rules books`
    (which compile the book, as every command below does)."""
    return max(_cli(env, "books")[1] for _ in range(2))


def _clean(p):
    for stream in (p.stdout, p.stderr):
        assert "Traceback" not in stream and "internal error" not in stream, stream[-2000:]


# --------------------------------------------------------------- every command
COMMANDS = {
    "odds": (["odds", "hostile:product", "k=1"], 2, "it takes more than 1 s"),
    "odds --vs": (["odds", "hostile:product", "k=1", "--vs", "k=2"], 2, "it takes more than 1 s"),
    "odds --explain": (["odds", "hostile:product", "k=1", "--explain"], 2, "it takes more than 1 s"),
    "odds, exploding": (["odds", "hostile:burst", "n=900"], 2, "it takes more than 1 s"),
    "odds --sweep": (["odds", "hostile:pool", "--sweep", "n=1..1000"], 0,
                     "not computed: the time limit of 1 s ran out before it was reached"),
    "cost": (["cost", "hostile"], 0, "not computed: the time limit of 1 s ran out before it was reached"),
}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_computing_command_ends_within_its_time_limit(env, name):
    args, code, said = COMMANDS[name]
    startup = _startup(env)
    p, took = _cli(env, *args, "--time-limit", "1")
    _clean(p)
    assert p.returncode == code, (p.returncode, p.stdout[-1500:], p.stderr)
    assert took < 1 + startup + MARGIN, (name, took, startup)
    out = " ".join((p.stdout + p.stderr).split())          # the words, however wrapped
    assert said in out, out[-1500:]
    assert "more time (--time-limit 60)" in out


@pytest.mark.parametrize("command", ["call", "explain"])
def test_one_evaluation_keeps_to_the_time_limit_and_its_steps(env, command):
    """`rules call` and `rules explain` compute no odds: one evaluation, bounded by a
    count of steps (100,000) and by the command's `--time-limit`."""
    startup = _startup(env)
    for args in (["hostile:loops", "n=1000"], ["hostile:pool", "n=1000"], ["hostile:loops", "n=300"]):
        p, took = _cli(env, command, *args, "--time-limit", "1")
        _clean(p)
        assert took < 1 + startup + MARGIN, (args, took, startup)
        assert p.returncode in (0, 2), p.stderr
    assert "more than 100,000 steps" in _cli(env, command, "hostile:loops", "n=1000")[0].stderr
    p, _ = _cli(env, command, "hostile:loops", "n=316", "--time-limit", "0.001")     # 99,856 steps
    _clean(p)
    assert p.returncode == 2
    assert p.stderr.strip() == ("rules: the evaluation takes more than the time limit of 0.001 s "
                                "(mechanic calls and list items)")


# --------------------------------------------------------------------- sweeps
def test_a_sweep_shares_one_deadline_and_says_every_row(hostile):
    deadline = Deadline(0.5)
    start = time.monotonic()
    sw = design.sweep(hostile.mechanics["pool"], "n", (1, 1000), _deadline=deadline)
    assert time.monotonic() - start < 0.5 + MARGIN
    assert [v for v, _, _ in sw.rows] == list(range(1, 1001))        # no row dropped
    assert sw.rows[0][1] is not None and sw.rows[0][1].mean == 3.5
    assert sw.rows[-1] == (1000, None, "not computed: the time limit of 0.5 s ran out before it was reached")
    for v, d, err in sw.rows:
        assert (d is None) != (err is None), v


def test_a_sweep_whose_every_row_is_refused_says_each_refusal(env):
    p, _ = _cli(env, "odds", "hostile:many", "--sweep", "n=3..4")
    _clean(p)
    assert p.returncode == 0, p.stderr
    out = " ".join(p.stdout.split())
    assert "No row could be computed (2 of 2)." in out
    for n in (3, 4):
        assert f"n {n}: hostile:many(n={n}) is too large for exact odds" in out
    data = __import__("json").loads(_cli(env, "odds", "hostile:many", "--sweep", "n=3..4", "--json")[0].stdout)
    assert [r["distribution"] for r in data["rows"]] == [None, None]
    assert all("too large for exact odds" in r["error"] for r in data["rows"])


def test_a_sweep_s_refusals_are_wrapped_under_its_table(env):
    p, _ = _cli(env, "odds", "hostile:many", "--sweep", "n=1..3")
    _clean(p)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80, max(lines, key=len)
    assert "Not computed:" in lines
    assert "n 2: hostile:many(n=2) is too large for exact odds" in " ".join(p.stdout.split())


def test_a_cost_view_shares_one_deadline(hostile):
    deadline = Deadline(0.5)
    start = time.monotonic()
    (view,) = design.price(hostile, "per_point", deadline=deadline)
    assert time.monotonic() - start < 0.5 + MARGIN
    assert len(view.rows) == 500 and view.rows[0].expected == 3.5
    assert view.rows[-1].note == "not computed: the time limit of 0.5 s ran out before it was reached"
    assert all("rules call" not in r.note for r in view.rows)      # a view is no mechanic to call


def test_page_odds_keep_a_caller_s_deadline(hostile):
    deadline = Deadline(0.01)
    time.sleep(0.02)
    skipped: list = []
    assert page_odds(hostile.mechanics["pool"], deadline=deadline, skipped=skipped) == []
    assert page_odds(hostile.mechanics["pool"])          # without one: the page's own budget


# ------------------------------------------------------------------ the terminal
def test_a_refusal_wraps_at_the_terminal_s_width(env):
    """On a terminal the refusal wraps under "rules: " at its width; into a pipe it is
    the one line scripts read."""
    primary, replica = pty.openpty()
    try:
        p = subprocess.run([sys.executable, "-m", "rules_dsl", "odds", "hostile:many", "n=3"],
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=replica,
                           env=dict(env, COLUMNS="60"), timeout=60)
    finally:
        os.close(replica)
    chunks = []
    while True:
        try:
            chunk = os.read(primary, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(primary)
    lines = b"".join(chunks).decode().replace("\r", "").strip().splitlines()
    assert p.returncode == 2
    assert len(lines) > 2 and max(len(line) for line in lines) <= 60, lines
    assert lines[0].startswith("rules: hostile:many(n=3) is too large for exact odds")
    assert all(line.startswith("       ") for line in lines[1:])
    piped, _ = _cli(env, "odds", "hostile:many", "n=3")
    assert len(piped.stderr.strip().splitlines()) == 1
