"""Generated and mutated rulebook sources for the hardening tests (issue 11).

Two families, both deterministic from a seed:

* `generated(rng)`: a small book written from the grammar's shapes (rules with
  prose and references, enums, constants, mechanics with random expressions,
  rolls and pools, tables, checks and examples), then often damaged at the
  character or token level;
* `mutated(rng, chunks)`: one or two real rules cut from the real books, with
  lines deleted, duplicated or swapped, truncated at a random point, or with NUL
  bytes, a BOM, CRLF line ends or tabs put in.

`outcome(src)` compiles a source the way `rules_dsl.load` does, runs its
examples and a few mechanic calls, and says how it ended: "compiled",
"diagnostics" (a RulebookError whose every diagnostic has file:line:col),
"traceback" (anything else escaped) or "hang" (past the time limit).  With `odds`,
it also asks each dice mechanic for its exact odds and explains a call, with
inputs across each parameter's declared range (`input_sets`: its low, middle and
high values, so a pool of `x of d1000` is asked for at x = 1000), each odds call
within a small budget: it must answer or refuse (TooLarge) promptly, never hang or
raise anything else.  `generated(rng, large=True)` writes the shapes that make
such inputs large (a d1000, counts up to 100000); without it, the stream of
sources is the one the other tests were written against.
"""
from __future__ import annotations

import random
import re
import signal
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
HEADER = 'book f {\n  title "F"\n  dice d6, d10\n  die dust { army: 2, target: 2, shield: 2 }\n}\n'
HEADER_LARGE = HEADER.replace("dice d6, d10", "dice d6, d10, d1000")
ROLLS = ['d6', 'd10', '2d6', 'x of d6', 'dust', 'chain of dust on {army}']
ROLLS_LARGE = ROLLS + ['d1000', 'x of d1000', 'x of d10', 'y of d6']
TYPES = ["1..10", "0..6", "int", "bool"]
TYPES_LARGE = TYPES + ["0..1000", "1..100000"]

NASTY = ["(", ")", "{", "}", "[", "]", '"""', '"', ">>>", "...", "of", "roll", "return", "let", "require",
         "9" * 40, "1000000 of d6", "\x00", "\t", "\r\n", "\ufeff", "__import__", "__class__", "eval", "exec",
         "[[", "]]", "|", "---", "..", "->", "absent", "true", "not", "if", "then", "else", "chain of dust on",
         "é", "🎲", "\\", "{raw}`x`", ".. raw:: html", "InputError: x", "Error:", "#", "-" * 120, "0/0", "% 0"]
OPS = ["+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "and", "or"]


def _expr(rng, names, depth=0):
    """Any kind of expression, often ill-typed: exercises the checks' diagnostics."""
    r = rng.random()
    if depth > 2 or r < 0.3:
        return rng.choice(names + [str(rng.randint(-3, 12)), "true", "false", "absent", "3/2"])
    if r < 0.55:
        return f"({_expr(rng, names, depth + 1)} {rng.choice(OPS)} {_expr(rng, names, depth + 1)})"
    if r < 0.65:
        return f"(if {_expr(rng, names, depth + 1)} then {_expr(rng, names, depth + 1)} else {_expr(rng, names, depth + 1)})"
    if r < 0.75:
        fn = rng.choice(["max", "min", "sum", "len", "count", "floor", "ceil", "abs"])
        return f"{fn}({_expr(rng, names, depth + 1)})"
    if r < 0.85:
        return f"[{_expr(rng, names, depth + 1)} for x in 1..{rng.randint(0, 5)}]"
    if r < 0.92:
        mode = rng.choice(["up", "down", "half_up", "half_even", "sideways"])
        return f"round({_expr(rng, names, depth + 1)}, {mode})"
    return f"-({_expr(rng, names, depth + 1)})"


def _num(rng, nums, bools, depth=0):
    """A numeric expression that the checks accept: exercises the evaluator."""
    r = rng.random()
    if depth > 2 or r < 0.3:
        return rng.choice(nums + [str(rng.randint(-3, 12)), "3/2"])
    if r < 0.5:
        return f"({_num(rng, nums, bools, depth + 1)} {rng.choice('+-*/%')} {_num(rng, nums, bools, depth + 1)})"
    if r < 0.6:
        return (f"(if {_bool(rng, nums, bools, depth + 1)} then {_num(rng, nums, bools, depth + 1)} "
                f"else {_num(rng, nums, bools, depth + 1)})")
    if r < 0.7:
        fn = rng.choice(["max", "min", "abs", "floor", "ceil"])
        return f"{fn}({_num(rng, nums, bools, depth + 1)}{', 1' if fn in ('max', 'min') else ''})"
    if r < 0.8:
        k = rng.randint(0, 6)
        return f"{rng.choice(['sum', 'len', 'max'])}([{_num(rng, nums + ['x'], bools, depth + 1)} for x in 1..{k}])"
    if r < 0.9:
        return f"round({_num(rng, nums, bools, depth + 1)}, {rng.choice(['up', 'down', 'half_up', 'half_even'])})"
    return f"-({_num(rng, nums, bools, depth + 1)})"


def _bool(rng, nums, bools, depth=0):
    r = rng.random()
    if depth > 2 or r < 0.3:
        return rng.choice(bools + ["true", "false"])
    if r < 0.6:
        return f"({_num(rng, nums, bools, depth + 1)} {rng.choice(['==', '!=', '<', '<=', '>', '>='])} {_num(rng, nums, bools, depth + 1)})"
    if r < 0.8:
        return f"({_bool(rng, nums, bools, depth + 1)} {rng.choice(['and', 'or'])} {_bool(rng, nums, bools, depth + 1)})"
    if r < 0.9:
        return f"even({_num(rng, nums, bools, depth + 1)})"
    return f"not {_bool(rng, nums, bools, depth + 1)}"


def generated(rng: random.Random, large: bool = False) -> str:
    out = [HEADER_LARGE if large else HEADER]
    mechs = []
    for i in range(rng.randint(1, 3)):
        out.append(f'rule r{i} "Rule {i}" {{\n    keywords "k{i}"\n    """Text of rule {i}, see [[r{rng.randint(0, i)}]]."""\n')
        if rng.random() < 0.3:
            out.append(f"    enum e{i} {{ a{i}, b{i} }}\n")
        if rng.random() < 0.3:
            out.append(f"    const c{i} = {rng.randint(0, 9)}\n")
        name = f"m{i}"
        params = ["x", "y"][: rng.randint(0, 2)]
        types = [rng.choice(TYPES_LARGE if large else TYPES) for _ in params]
        sig = ", ".join(f"{p}: {t}" for p, t in zip(params, types))
        body = []
        local = list(params)
        if rng.random() < 0.4:
            body.append(f"        roll d: {rng.choice(ROLLS_LARGE if large else ROLLS)}")
            local.append("d")
        if mechs and rng.random() < 0.4:
            callee = rng.choice(mechs)
            body.append(f"        let z = {callee[0]}({', '.join('1' for _ in callee[1])})")
            local.append("z")
        nums = [p for p, t in zip(params, types) if t != "bool"] + [v for v in local if v in ("z",)]
        bools = [p for p, t in zip(params, types) if t == "bool"]
        if "d" in local and body and ("d6" in body[0] or "d10" in body[0]) and "of" not in body[0] \
                and "2d6" not in body[0]:
            nums.append("d")
        if large and "d" in local and body and " of " in body[0] and "chain" not in body[0] and rng.random() < 0.7:
            nums.append(rng.choice(["sum(d)", "max(d)", "count([f for f in d if f > 3])", "len(d)"]))
        if rng.random() < 0.2:
            body.append(f"        require {_bool(rng, nums, bools)} \"a requirement\"")
        typed = rng.random() < 0.7
        if typed:
            ret = rng.choice(["number", "bool", "number | absent"])
            result = _bool(rng, nums, bools) if ret == "bool" else _num(rng, nums, bools)
        else:
            ret = rng.choice(["int", "number", "bool", "0..20", "list of int", "text"])
            result = _expr(rng, local)
        out.append(f"    mechanic {name}({sig}) -> {ret} {{\n" + "\n".join(body)
                   + f"\n        return {result}\n    }}\n")
        if rng.random() < 0.3:
            out.append(f"    table t{i}(k: 1..3) -> int {{\n        | k | v |\n        |---|---|\n"
                       f"        | 1 | {rng.randint(0, 9)} |\n        | 2..3 | absent |\n    }}\n")
        if rng.random() < 0.2:
            out.append(f"    check k{i} {{ for a in 1..{rng.randint(1, 4)}: {_expr(rng, ['a'])} }}\n")
        args = ", ".join(rng.choice(["true", "false"]) if (t == "bool") != (rng.random() < 0.1)
                         else str(rng.randint(-1, 11) if rng.random() < 0.1 else rng.randint(1, 6)) for t in types)
        want = rng.choice(["1", "true", "[1, 2]", "absent", "InputError: x", "Error: a", "7/2", '"t"'])
        out.append(f'    example """\n    >>> {name}({args})\n    {want}\n    """\n}}\n')
        mechs.append((name, params))
    src = "".join(out)
    if rng.random() < 0.6:
        src = damage(rng, src)
    return src


def damage(rng: random.Random, src: str) -> str:
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(src) + 1)
        op = rng.randrange(4)
        if op == 0:
            src = src[:i] + src[i + rng.randint(1, 12):]
        elif op == 1:
            src = src[:i] + rng.choice(NASTY) + src[i:]
        elif op == 2:
            j = min(len(src), i + rng.randint(1, 40))
            src = src[:i] + src[i:j] * 2 + src[j:]
        else:
            src = src[:i]
    return src


def real_chunks() -> list:
    """Every rule of the real books as a source chunk."""
    chunks = []
    for f in sorted((REPO / "rulebooks").rglob("*.rules")):
        chunks += re.findall(r"(?ms)^    rule .*?^    \}\n", f.read_text(encoding="utf-8"))
    return chunks


def mutated(rng: random.Random, chunks: list) -> str:
    lines = (HEADER + "".join(rng.sample(chunks, rng.randint(1, 2)))).split("\n")
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(8)
        k = rng.randrange(len(lines))
        if op == 0 and len(lines) > 2:
            del lines[k]
        elif op == 1:
            lines.insert(k, lines[k])
        elif op == 2:
            j = rng.randrange(len(lines))
            lines[k], lines[j] = lines[j], lines[k]
        elif op == 3:
            lines = lines[: max(1, k)]
            if lines:
                lines[-1] = lines[-1][: rng.randrange(len(lines[-1]) + 1)]
        elif op == 4:
            pos = rng.randrange(len(lines[k]) + 1)
            lines[k] = lines[k][:pos] + "\x00" + lines[k][pos:]
        elif op == 5:
            lines = [l + "\r" for l in lines]
        elif op == 6:
            lines = [l.replace("    ", "\t") for l in lines]
        else:
            lines[0] = "\ufeff" + lines[0]
    return "\n".join(lines)


class Hang(Exception):
    pass


def _odds_and_explain(compiled, stats: dict) -> str:
    """Odds and an explanation of every dice mechanic (the first three) at `input_sets`;
    a description of the first call slower than its budget allows, else ""."""
    import time

    from rules_dsl.errors import RulesError
    from rules_dsl.evaluation.explain import explain_call
    from rules_dsl.odds import TooLarge, distribution
    from rules_dsl.odds.budget import Budget
    budget = Budget(seconds=ODDS_SECONDS, steps=ODDS_STEPS)
    for name, mech in list(compiled.mechanics.items())[:3]:
        for inputs in input_sets(mech):
            large = any(isinstance(v, int) and not isinstance(v, bool) and v >= 100 for v in inputs.values())
            if mech.has_dice:
                start = time.process_time()
                try:
                    distribution(mech, _budget=budget, **inputs)
                except TooLarge:
                    stats["too_large"] = stats.get("too_large", 0) + 1
                    stats["too_large_large"] = stats.get("too_large_large", 0) + large
                except RulesError:
                    pass
                took = time.process_time() - start
                stats["odds"] = stats.get("odds", 0) + 1
                stats["large"] = stats.get("large", 0) + large
                stats["slowest"] = max(stats.get("slowest", 0.0), took)
                if took > ODDS_SECONDS + SLACK:
                    return f"odds of {name}({inputs}) worked {took:.1f} s"
            start = time.process_time()
            try:
                explain_call(compiled, name, seed=1, **inputs).text()
            except RulesError:
                pass
            stats["explain"] = stats.get("explain", 0) + 1
            took = time.process_time() - start
            if took > ODDS_SECONDS + SLACK:
                return f"explain of {name}({inputs}) worked {took:.1f} s"
    return ""


def _alarm(signum, frame):
    raise Hang()


#: each fuzzed odds call's budget: small, so that ten thousand sources stay quick
ODDS_SECONDS = 0.5
ODDS_STEPS = 200_000
#: a call that works longer than its budget plus this is a hang.  Measured in CPU time:
#: the deadline is wall time, and on a loaded machine the work between two polls of it
#: stretches in wall time, not in CPU time (a loop that never polls grows in both)
SLACK = 1.5


def _values(mech, p) -> list:
    """Values across a parameter's declared range: low, middle and high of a range;
    0, 1 and large for an open number; both booleans; the first and last member."""
    from rules_dsl.language import nodes as n
    t = p.type
    if isinstance(t, n.UnionType):
        t = t.options[0]
    if isinstance(t, n.RangeType):
        return sorted({t.low, (t.low + t.high) // 2, t.high})
    if isinstance(t, n.ListType):
        inner = _values(mech, n.Param(p.span, p.name, t.item))
        return [[], inner[:1], inner[-1:] * 3] if inner else [[]]
    check = mech.checks[p.name]
    finite = check.finite_values(50)
    if finite:
        return [finite[0], finite[-1]] if len(finite) > 1 else finite
    if isinstance(t, n.NamedType) and t.name in ("int", "number"):
        return [0, 1, 1000, 10 ** 6]
    return []


def input_sets(mech, most: int = 8) -> list:
    """Inputs for a mechanic across each parameter's range: every parameter at its first
    value, then each parameter in turn at each of its values (the others at their first)."""
    values = {p.name: _values(mech, p) for p in mech.params}
    if any(not v for v in values.values()):
        return []
    base = {k: v[0] for k, v in values.items()}
    out = [base]
    for k, vs in values.items():
        for v in vs[1:]:
            out.append({**base, k: v})
    return out[:most]


def outcome(src: str, seconds: float = 5.0, odds: bool = False, stats: dict | None = None) -> tuple:
    """(kind, detail) for one source; see the module doc.  With `odds`, `stats` (a dict)
    counts the odds calls made, those with a large input (100 or more), those refused
    as too large, and the slowest call's seconds of CPU time."""
    from rules_dsl.analysis.checks import check_book
    from rules_dsl.compiler import CompiledBook
    from rules_dsl.errors import RulebookError, RulesError
    from rules_dsl.evaluation.examples import ExampleRunner
    from rules_dsl.language.model import assemble
    from rules_dsl.language.parser import parse_text

    path = "/fuzz/f.rules"
    old = signal.signal(signal.SIGALRM, _alarm)
    # with odds, each call is bounded on its own (see _odds_and_explain); the alarm only
    # catches what nothing else would
    signal.setitimer(signal.ITIMER_REAL, seconds if not odds else seconds + 60)
    try:
        try:
            sf = parse_text(src, path)
            ast = assemble("f", [sf])
            syms = check_book(ast, {path: src}, lambda other: None)
            compiled = CompiledBook(ast, syms, {path: src})
        except RulebookError as e:
            bad = [d for d in e.diagnostics if not (d.file == path and d.line >= 1 and d.column >= 1)]
            if bad or not e.diagnostics:
                return "traceback", f"diagnostic without a position: {bad[:1]}"
            e.render()
            return "diagnostics", e.diagnostics[0].message
        runner = ExampleRunner("f", compiled)
        for rule in ast.items:
            for ex in getattr(rule, "examples", ()):
                runner.run(rule.id, ex)
        for _name, mech in compiled.mechanics.items():
            try:
                mech.run(seed=1, **{p.name: 1 for p in mech.params})
            except RulesError:
                pass
        for chk in compiled.checks.values():
            try:
                chk.run()
            except RulesError:
                pass
        if odds:
            slow = _odds_and_explain(compiled, stats if stats is not None else {})
            if slow:
                return "hang", slow
        return "compiled", ""
    except Hang:
        return "hang", src[:200]
    except Exception as e:  # the thing this harness exists to catch
        return "traceback", f"{type(e).__name__}: {e}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
