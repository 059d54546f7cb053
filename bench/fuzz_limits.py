"""Hostile books and layers against the command line's time limits (issue 38's done-when).

Not a test: a script with a fixed seed and a bounded count, run by hand
(`python3 bench/fuzz_limits.py --cases 30 --time-limit 1`).  Each case writes one book
`fz` and one layer `fz+h` into a fresh books folder, from shapes that make the exact
computations large or the layer's changes awkward:

* big pools (`n of d6`, n up to 100000), mechanics no convolution computes (`sum(x) * sum(y)`,
  `sum(dice) * max(dice)`), deep explosions (`n of d2 explode on {2}`, n up
  to 1000), huge sweep ranges (up to 1000 rows), a priced view over many cases;
* a layer that replaces a table and adds a column, replaces a mechanic so that its
  result leaves the declared range, changes a constant, or misspells a name;
* now and then a book of `tests/fuzz_sources.py` (`generated(rng, large=True)`:
  often damaged), which `check` must refuse cleanly.

Then it runs `python -m rules_dsl` subcommands on them, each in a subprocess with this
checkout first on PYTHONPATH and a private RULES_DSL_CACHE: `check`, `odds --time-limit
T`, `odds --sweep ... --time-limit T`, `odds --vs ...`, `cost`, `diff A A+layer
--time-limit T`, `explain`.  A command whose `--help` has no `--time-limit` is run without
it, recorded as a finding ("no --time-limit"), and held to the default limit
(`--default-limit`, the 5 s `rules odds` documents).

Per run it records the exit code, the wall time, whether stdout or stderr holds a
traceback or "internal error", and whether the wall time exceeded its limit plus the
measured start-up plus `--margin`.  Start-up is measured per case: the wall time of
`rules show` on the book (the interpreter, the imports and compiling the book: what
every command pays before it computes).  It prints a table per command and the runs
that failed, and exits 1 on any traceback or overrun (2 on its own bad usage).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

TRACEBACK = re.compile(r"Traceback \(most recent call last\)|internal error", re.I)
COMMANDS = ("check", "check-layer", "odds", "odds-explode", "odds-calls", "odds-sweep", "odds-sweep-refused",
            "odds-vs", "cost", "diff", "explain")


@dataclass
class Case:
    """One generated books folder's sources and the inputs its commands use."""
    index: int
    book: str
    layer: str
    pool: int            # the pool mechanic's n for `odds`
    explode: int         # the exploding mechanic's n
    sweep_high: int      # `--sweep n=1..sweep_high`
    hits_hi: int = 6     # the top of hits' n (10: hits can give more than saves takes)
    costly: str = "pool"  # the mechanic `odds` and `--vs` ask (spread, squares, product: no fast path)
    small: int = 3       # its n for `odds`: small enough to compute, often not within the limit
    from_fuzz_sources: bool = False


@dataclass
class Run:
    case: int
    command: str
    argv: list
    code: int | None
    wall: float
    limit: float
    startup: float
    traceback: bool
    overrun: bool
    killed: bool
    has_time_limit: bool
    tail: str = ""


@dataclass
class Summary:
    runs: list = field(default_factory=list)
    findings: list = field(default_factory=list)


# ------------------------------------------------------------------ the sources
HEADER = '''book fz {{
  title "Fuzz {i}"
  dice d2, d6, d10
}}
'''


def hostile_book(rng: random.Random, i: int) -> tuple:
    """(book source, pool n, explode n, sweep high, hits' top, a costly mechanic, its n): a well-formed book whose exact odds
    are large where the inputs let them be."""
    pool_max = rng.choice([30, 200, 1000, 1000, 100000 if rng.random() < 0.3 else 1000])   # over 1000: check refuses
    explode_max = rng.choice([5, 50, 200, 1000])
    cap = rng.choice(["", "", f" up to {rng.choice([3, 20, 500])}"])
    free_hi = rng.choice([82, 82, 90])                 # x*y+1 over 1..9 reaches 82
    cases = rng.choice([3, 20, 200])
    hits_hi = rng.choice([6, 10])
    src = HEADER.format(i=i) + f'''section s "Section" {{
  """Hostile shapes for the time limits."""
  rule pools "Pools" {{
    """Big pools and deep explosions."""
    const base = {rng.randint(1, 4)}
    mechanic pool(n: 1..{pool_max}, target: 2..6 = 4) -> int "Hits of n dice." {{
      roll dice: n of d6
      return count(d for d in dice if d >= target) + base - base
    }}
    mechanic boom(n: 1..{explode_max}) -> int "Sum of exploding coins." {{
      roll c: n of d2 explode on {{2}}{cap}
      return sum(c)
    }}
    mechanic hits(n: 1..{hits_hi}) -> int {{
      roll dice: n of d6
      return count(d for d in dice if d >= 4)
    }}
    mechanic saves(hits: 0..6) -> int {{
      roll dice: hits of d6
      return count(d for d in dice if d >= 5)
    }}
    mechanic attack(n: 1..{hits_hi}) -> int = saves(hits(n))
    mechanic free(x: 1..9, y: 1..9) -> 1..{free_hi} = x * y + 1
    mechanic spread(n: 1..1000) -> int "Sum times highest: no convolution gives it." {{
      roll dice: n of d6
      return sum(dice) * max(dice)
    }}
    mechanic squares(n: 1..1000) -> int {{
      roll dice: n of d10
      return sum(d * d for d in dice) % 97
    }}
    mechanic product(n: 1..1000) -> int "Two pools multiplied." {{
      roll x: n of d6
      roll y: n of d6
      return sum(x) * sum(y)
    }}
    odds pool(n=3)
    odds pool(n={min(pool_max, rng.choice([10, 60, 500]))}, target=2..6)
    example """
    >>> free(2, 3)
    7
    """
  }}
  rule roster "Roster" {{
    """Prices and profiles."""
    table profile(unit: text) -> (shots: 1..{pool_max}, price: 1..1000) {{
      | unit | shots | price |
      | "Trooper" | {min(pool_max, 3)} | 10 |
      | "Gunner" | {min(pool_max, rng.choice([6, 40, 400]))} | 25 |
    }}
    table cost_of(n: 1..{cases}) -> int {{
      | n | cost |
      | 1..{cases} | 5 |
    }}
    priced per_hit "Points per hit" {{
      for n in 1..{cases}: cost_of(n) per {rng.choice(["pool", "product", "spread"])}(n * {rng.choice([1, 3, 10])} % {min(pool_max, 1000)} + 1)
    }}
  }}
}}
'''
    return (src, rng.randint(1, min(pool_max, 1000)), rng.randint(1, explode_max), rng.choice([4, 12, 50, 300, 1000]),
            hits_hi, rng.choice(["pool", "spread", "squares", "product"]), rng.randint(2, 14))


def hostile_layer(rng: random.Random) -> str:
    """A layer on `fz` with two to four awkward changes."""
    changes = [
        # replaces a table and adds a column (issue 38: diff KeyError, changes page)
        '''replace table profile(unit: text) -> (shots: 1..1000, price: 1..1000, armour: 2..6) {
  | unit | shots | price | armour |
  | "Trooper" | 3 | 10 | 4 |
  | "Gunner" | 6 | 25 | 5 |
}
because "armour joins the profile"''',
        # a result outside the declared range
        'replace mechanic free(x: 1..9, y: 1..9) -> 1..82 = x * y + 100\nbecause "house: everything costs more"',
        # a different result for every input, cheap
        'replace mechanic free(x: 1..9, y: 1..9) -> 1..82 = x * y\nbecause "house"',
        # an expensive mechanic that changes
        '''replace mechanic pool(n: 1..1000, target: 2..6 = 4) -> int "Hits of n dice." {
  roll dice: n of d6 explode on {6}
  return count(d for d in dice if d >= target)
}
because "house: sixes explode"''',
        'change base to 3\nbecause "house"',
        'change profile("Gunner").shots to 9\nbecause "errata"',
    ]
    misspelt = ['replace mechanic boomm(n: 1..5) -> int = n\nbecause "typo"',
                'change profil("Gunner").shots to 9\nbecause "typo"',
                'replace mechanic attack(n: 1..6) -> int = saves(hit(n))\nbecause "typo in a call"']
    picked = rng.sample(changes, rng.randint(2, 4))
    if rng.random() < 0.2:                              # a misspelt name: one clean error
        picked.append(rng.choice(misspelt))
    return 'layer h on fz {\n  title "Fuzz, housed"\n}\n\n' + "\n\n".join(picked) + "\n"


def make_case(rng: random.Random, index: int) -> Case:
    if rng.random() < 0.15:
        import fuzz_sources
        src = fuzz_sources.generated(rng, large=True).replace("book f {", "book fz {", 1)
        return Case(index, src, hostile_layer(rng), 3, 3, 4, from_fuzz_sources=True)
    book, pool, explode, sweep, hits_hi, costly, small = hostile_book(rng, index)
    return Case(index, book, hostile_layer(rng), pool, explode, sweep, hits_hi, costly, small)


# ------------------------------------------------------------------ running
def _env(books: Path, cache: Path) -> dict:
    env = dict(os.environ, RULES_DSL_BOOKS=str(books), RULES_DSL_CACHE=str(cache), COLUMNS="100",
               NO_COLOR="1", RULES_DSL_JOBS="1")
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env


def _run(argv: list, env: dict, kill_after: float) -> tuple:
    """(exit code or None when killed, wall seconds, stdout + stderr)."""
    t0 = time.perf_counter()
    try:
        p = subprocess.run([sys.executable, "-m", "rules_dsl", *argv], env=env, capture_output=True,
                           text=True, timeout=kill_after, cwd=str(REPO))
        return p.returncode, time.perf_counter() - t0, p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"") + (e.stderr or b"")
        return None, time.perf_counter() - t0, out.decode("utf-8", "replace") if isinstance(out, bytes) else out


def has_time_limit(command: str, env: dict) -> bool:
    code, _, out = _run([command, "--help"], env, 60)
    return code == 0 and "--time-limit" in out


def argv_of(command: str, case: Case, t: float, limited: dict) -> list:
    tl = ["--time-limit", str(t)]
    if command == "check":
        return ["check", "fz"]
    if command == "check-layer":
        return ["check", "fz+h"]
    if command == "odds":
        n = case.pool if case.costly == "pool" else case.small
        return ["odds", f"fz:{case.costly}", f"n={n}", *tl]
    if command == "odds-explode":
        return ["odds", "fz:boom", f"n={case.explode}", *tl]
    if command == "odds-calls":                   # saves(hits(n)): hits can give more than saves takes
        return ["odds", "fz:attack", f"n={case.hits_hi}", *tl]
    if command == "odds-sweep":                   # a huge range of a mechanic with no fast path
        return ["odds", "fz:product", "--sweep", f"n=1..{case.sweep_high}", *tl]
    if command == "odds-sweep-refused":           # rows that are all refused (too large)
        return ["odds", "fz:spread", "--sweep", f"n={200 + case.small}..{203 + case.small}", *tl]
    if command == "odds-vs":
        return ["odds", "fz:squares", f"n={case.small}", "--vs", f"n={case.small + 1}", *tl]
    if command == "cost":
        return ["cost", "fz"] + (tl if limited["cost"] else [])
    if command == "diff":
        return ["diff", "fz", "fz+h"] + (tl if limited["diff"] else [])
    if command == "explain":
        return ["explain", "fz:product", f"n={case.pool}", "--seed", "1"] + (tl if limited["explain"] else [])
    raise ValueError(command)


def run_case(case: Case, args, limited: dict, root: Path) -> list:
    folder = root / f"case{case.index:03d}"
    books, cache = folder / "books", folder / "cache"
    books.mkdir(parents=True)
    (books / "fz.rules").write_text(case.book, encoding="utf-8")
    (books / "fz+h.rules").write_text(case.layer, encoding="utf-8")
    env = _env(books, cache)
    _run(["show", "fz:pools"], env, 120)                          # fills the cache (AST, grammar)
    startup = min(_run(["show", "fz:pools"], env, 120)[1] for _ in range(2))
    runs = []
    for command in args.commands:
        key = command.split("-")[0]
        limit_given = key not in limited or limited[key]
        limit = args.time_limit if limit_given else args.default_limit
        argv = argv_of(command, case, args.time_limit, limited)
        code, wall, out = _run(argv, env, limit + startup + args.kill_after)
        tb = bool(TRACEBACK.search(out))
        overrun = code is None or wall > limit + startup + args.margin
        last = [ln for ln in out.strip().splitlines() if ln.strip()]
        runs.append(Run(case.index, command, argv, code, round(wall, 3), limit, round(startup, 3), tb, overrun,
                        code is None, limit_given, (last[-1] if last else "")[:200]))
    return runs


# ------------------------------------------------------------------ the report
def table(runs: list, commands) -> str:
    head = f"{'command':<20}{'runs':>5}{'exit 0/1/2/other/killed':>25}{'tracebacks':>12}{'overruns':>10}" \
           f"{'median s':>10}{'max s':>8}{'max over limit+start s':>24}"
    lines = [head, "-" * len(head)]
    for command in commands:
        rs = [r for r in runs if r.command == command]
        if not rs:
            continue
        codes = [sum(r.code == c for r in rs) for c in (0, 1, 2)]
        other = sum(r.code not in (0, 1, 2, None) for r in rs)
        killed = sum(r.killed for r in rs)
        over = max(r.wall - r.limit - r.startup for r in rs)
        name = command + ("" if rs[0].has_time_limit else " *")
        lines.append(f"{name:<20}{len(rs):>5}{'/'.join(map(str, codes + [other, killed])):>25}"
                     f"{sum(r.traceback for r in rs):>12}{sum(r.overrun for r in rs):>10}"
                     f"{statistics.median(r.wall for r in rs):>10.2f}{max(r.wall for r in rs):>8.2f}{over:>24.2f}")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=30, help="books to generate (default 30)")
    ap.add_argument("--seed", type=int, default=38, help="the generator's seed (default 38)")
    ap.add_argument("--time-limit", type=float, default=1.0, help="--time-limit given to each command (default 1)")
    ap.add_argument("--default-limit", type=float, default=5.0,
                    help="the limit a command without --time-limit is held to (default 5: `rules odds`' default)")
    ap.add_argument("--margin", type=float, default=0.5, help="seconds allowed past limit + start-up (default 0.5)")
    ap.add_argument("--kill-after", type=float, default=10.0,
                    help="seconds past limit + start-up after which a run is killed and counted an overrun (default 10)")
    ap.add_argument("--commands", default=",".join(COMMANDS), help=f"comma-separated, of: {', '.join(COMMANDS)}")
    ap.add_argument("--json", metavar="FILE", help="write every run and finding as JSON")
    ap.add_argument("--keep", action="store_true", help="keep the generated books (their folder is printed)")
    args = ap.parse_args(argv)
    args.commands = [c for c in args.commands.split(",") if c]
    unknown = [c for c in args.commands if c not in COMMANDS]
    if unknown or args.cases < 1 or args.time_limit <= 0:
        ap.error(f"unknown command {unknown[0]!r}" if unknown else "--cases and --time-limit must be positive")

    rng = random.Random(args.seed)
    root = Path(tempfile.mkdtemp(prefix="rules-fuzz-limits-"))
    root.chmod(0o700)
    summary = Summary()
    env = _env(root / "none", root / "probe-cache")
    limited = {c: has_time_limit(c, env) for c in ("odds", "cost", "diff", "explain", "check")}
    for c, ok in limited.items():
        if not ok and c != "check":
            summary.findings.append(f"rules {c} has no --time-limit: held to the default {args.default_limit:g} s")
    t_start = time.perf_counter()
    for i in range(args.cases):
        case = make_case(rng, i)
        summary.runs.extend(run_case(case, args, limited, root))
        print(f"case {i + 1}/{args.cases} done ({time.perf_counter() - t_start:.0f} s)", file=sys.stderr, flush=True)
    runs = summary.runs
    print(f"fuzz_limits: seed {args.seed}, {args.cases} cases, --time-limit {args.time_limit:g}, margin "
          f"{args.margin:g} s, {len(runs)} runs in {time.perf_counter() - t_start:.0f} s; start-up (rules show) "
          f"median {statistics.median(r.startup for r in runs):.2f} s, max {max(r.startup for r in runs):.2f} s")
    print(table(runs, args.commands))
    if any(not r.has_time_limit for r in runs):
        print(f"* no --time-limit: held to --default-limit {args.default_limit:g} s")
    for f in summary.findings:
        print("finding:", f)
    bad = [r for r in runs if r.traceback or r.overrun]
    seen = set()
    for r in bad:
        kind = ("traceback" if r.traceback else "") + (" overrun" if r.overrun else "")
        sig = (r.command, kind.strip(), r.tail if r.traceback else "")
        if sig in seen:
            continue
        seen.add(sig)
        print(f"{kind.strip()}: case {r.case}: rules {' '.join(r.argv)}: exit {r.code}, {r.wall:.2f} s "
              f"(limit {r.limit:g} + start-up {r.startup:.2f}): {r.tail}")
    if args.json:
        Path(args.json).write_text(json.dumps({"args": {k: v for k, v in vars(args).items()},
                                               "findings": summary.findings,
                                               "runs": [asdict(r) for r in runs]}, indent=1), encoding="utf-8")
    if args.keep:
        print("books kept in", root)
    else:
        import shutil
        shutil.rmtree(root, ignore_errors=True)
    tracebacks, overruns = sum(r.traceback for r in runs), sum(r.overrun for r in runs)
    print(f"tracebacks: {tracebacks}, overruns: {overruns}")
    return 1 if tracebacks or overruns else 0


if __name__ == "__main__":
    sys.exit(main())
