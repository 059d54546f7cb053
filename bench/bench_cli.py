"""Benchmarks run by hand (not timed tests): `python bench/bench_cli.py [--runs N] [--here]`.

Prints
* a cold `rules lookup Suppression` as the README installs it, against its floor: the
  interpreter importing the standard modules a lookup needs (argparse, sqlite3, json,
  re), and against `python -c pass`; the two run in turn, A B A B ..., and the ratio is
  taken pair by pair, its median quoted (goal: within 1.4x of the floor);
* compile time of every book from source with no cache (parse + check + compile),
  in a fresh process, with the per-book split (goal <= 1 s for Null Strike).

"As the README installs": `scripts/install.sh` installs the checkout in editable "compat"
mode (a `.pth` file naming the checkout, no import hook) and byte-compiles the package, and
pip writes a `rules` console script.  This benchmark makes the same in a throwaway virtual
environment (no pip, nothing else in its site-packages: a fresh machine's interpreter, not
whatever this machine's site-packages start with) and times its `rules` script and `python
-m rules_dsl`.  `--here` times this interpreter instead, with `python -m rules_dsl` from the
checkout.  The lookup answers from the index in a cache folder of its own, built first.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FLOOR = "import argparse, sqlite3, json, re"
QUERY = ["lookup", "Suppression"]
GOAL = 1.4

CONSOLE_SCRIPT = """#!{python}
# -*- coding: utf-8 -*-
import re
import sys
from rules_dsl.cli import main
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit(main())
"""


def installed_like_the_readme(tmp: Path, checkout: Path = ROOT) -> Path:
    """A virtual environment holding `checkout` as scripts/install.sh installs it (a .pth
    file and pip's console script), byte-compiled; returns its python."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(checkout / "rules_dsl")],
                   stdout=subprocess.DEVNULL, check=True)
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "__editable__.rules_dsl.pth").write_text(str(checkout) + "\n")
    script = venv / "bin" / "rules"
    script.write_text(CONSOLE_SCRIPT.format(python=python))
    script.chmod(0o755)
    return python


def build_index(checkout: Path, env):
    """The lookup index of `checkout`'s books, built by this interpreter (the measured
    environment has no lark: a lookup needs none, building the index does)."""
    out = subprocess.run([sys.executable, "-m", "rules_dsl", "books"], env=dict(env, PYTHONPATH=str(checkout)),
                         cwd=env["RULES_DSL_CACHE"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"building the index of {checkout} failed: {out.stderr.strip()}")


def run(cmd, env) -> tuple:
    """(wall, cpu) seconds of one process: cpu (user + sys) is what a busy shared machine
    disturbs least."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
                   cwd=env["RULES_DSL_CACHE"])      # not a checkout: `-m` must find the installed package
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def paired(commands: dict, env, runs: int) -> dict:
    """Each command's times, run in turn (one round = every command once), `runs` rounds
    after one round of warm-up."""
    for cmd in commands.values():
        run(cmd, env)
    times = {name: [] for name in commands}
    for _ in range(runs):
        for name, cmd in commands.items():
            times[name].append(run(cmd, env))
    return times


def ratio(times, a, b, kind=0) -> float:
    """The median of the ratios a/b pair by pair (kind 0: wall time, 1: cpu time)."""
    return statistics.median(x[kind] / y[kind] for x, y in zip(times[a], times[b]))


def lookup_vs_floor(python: Path, rules: list, env, runs: int, before: Path | None = None):
    commands = {"pass": [str(python), "-c", "pass"], "floor": [str(python), "-c", FLOOR],
                "rules": rules + QUERY, "-m": [str(python), "-m", "rules_dsl"] + QUERY}
    if before is not None:
        commands["before"] = [str(before.parent / "rules")] + QUERY
    for name in ("rules", "before") if before is not None else ("rules",):
        out = subprocess.run(commands[name], env=env, capture_output=True, text=True, cwd=env["RULES_DSL_CACHE"])
        if out.returncode != 0 or "Suppression" not in out.stdout:
            sys.exit(f"the lookup failed: {out.stderr.strip()}")
    times = paired(commands, env, runs)
    print(f"interpreter: {python}")
    print(f"{runs} rounds, the commands in turn; medians of wall and cpu (user+sys) time, ratios pair by pair")
    print(f"floor: python -c '{FLOOR}'")
    rows = [("pass", "python -c pass"), ("floor", "floor"), ("rules", "rules lookup Suppression"),
            ("-m", "python -m rules_dsl lookup Suppression")]
    if before is not None:
        rows.append(("before", "rules lookup Suppression (--before)"))
    print(f"  {'':<40}{'wall':>8}{'cpu':>8}   {'/floor wall':>11}{'cpu':>6}   {'/pass wall':>10}{'cpu':>6}")
    for name, label in rows:
        wall, cpu = (statistics.median(t[k] for t in times[name]) * 1000 for k in (0, 1))
        print(f"  {label:<40}{wall:6.1f}ms{cpu:6.1f}ms   {ratio(times, name, 'floor'):10.2f}x"
              f"{ratio(times, name, 'floor', 1):5.2f}x   {ratio(times, name, 'pass'):9.2f}x{ratio(times, name, 'pass', 1):5.2f}x")
    r = ratio(times, "rules", "floor")
    print(f"rules lookup: {r:.2f}x its floor (wall): {'within' if r <= GOAL else 'over'} the goal of {GOAL}x")
    return times


def compile_times(env):
    code = r"""
import json, time
t0 = time.perf_counter()
from rules_dsl.language.parser import lark_parser
lark_parser()
t1 = time.perf_counter()
from rules_dsl.library.loader import book_ids, compile_book
from rules_dsl.errors import RulebookError
per = {}
for b in book_ids():
    s = time.perf_counter()
    try:
        compile_book(b, use_cache=False)
    except RulebookError as e:
        print("# " + b + " does not compile: " + e.first_line())
        continue
    per[b] = time.perf_counter() - s
print(json.dumps({"grammar": t1 - t0, "books": per, "total": time.perf_counter() - t0}))
"""
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run([sys.executable, "-c", code], env=dict(env, RULES_DSL_CACHE=tmp), cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith("#"):
            print(line)
    data = json.loads(out.splitlines()[-1])
    print(f"compile all books from source, no cache: {data['total'] * 1000:.0f} ms "
          f"(grammar build {data['grammar'] * 1000:.0f} ms)")
    for b, s in data["books"].items():
        print(f"  {b:<16} {s * 1000:7.0f} ms")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=int(os.environ.get("BENCH_RUNS", "31")))
    ap.add_argument("--here", action="store_true",
                    help="time this interpreter and `python -m rules_dsl` from the checkout, not a fresh install")
    ap.add_argument("--no-compile", action="store_true", help="only the lookup")
    ap.add_argument("--before", type=Path, metavar="CHECKOUT",
                    help="another checkout (an earlier commit, e.g. from `git archive`), installed and timed "
                         "the same way in the same rounds")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as tmp:
        env = dict(os.environ, RULES_DSL_CACHE=str(Path(tmp, "cache")))
        env.pop("PYTHONPATH", None)
        os.makedirs(env["RULES_DSL_CACHE"])
        for checkout in [ROOT] + ([args.before.resolve()] if args.before else []):
            build_index(checkout, env)
        if args.here:
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "rules_dsl")],
                           stdout=subprocess.DEVNULL, check=True)
            env["PYTHONPATH"] = str(ROOT)
            lookup_vs_floor(Path(sys.executable), [sys.executable, "-m", "rules_dsl"], env, args.runs)
        else:
            python = installed_like_the_readme(Path(tmp))
            before = installed_like_the_readme(Path(tmp, "before"), args.before.resolve()) if args.before else None
            lookup_vs_floor(python, [str(python.parent / "rules")], env, args.runs, before)
        if not args.no_compile:
            compile_times(dict(os.environ, PYTHONPATH=str(ROOT)))


if __name__ == "__main__":
    main()
