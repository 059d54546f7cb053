"""`rules diff`'s mechanics: each mechanic of two books run on both, over its inputs.

A mechanic whose definition and everything it reaches are unchanged is not evaluated.
Each other one is a job (`_Job`): compared input for input on the inputs diff_inputs.py
gives (the book's own first, then every input or a random draw), by its results, or by
its exact distribution when it rolls dice.  What it found is one of three outcomes,
each with its numbers: *changed* (the inputs that show it, and where they came from),
*the same* over N inputs (N > 0; exhaustive or sampled, said), or *not compared* and
why.  Nothing is ever called the same that was not run.

The time is shared so that no job starves the others: the jobs without dice first (a
call is cheap), each on a slice of its own (a `Meter` whose deadline is the time left
divided by the jobs still to come), so a job that finishes early leaves its time to
the later ones and a costly one stops at the end of its slice.  The odds shown are the
laws the comparison computed: nothing runs after the deadline.  diff.py's module doc
says the whole.

Split from diff.py (issue 32): this is the part of a diff that *runs* the books (calls,
the odds engine, the budget and the deadline); diff.py compares what is written (rules,
tables, constants, enums, names, findings) and assembles the JSON.
"""
from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from fractions import Fraction

from ..errors import RulesError
from ..language import nodes as n
from ..language.values import to_json
from .diff_inputs import PLAYERS, SAMPLE_VALUES, domain_of, plan_inputs
from .diff_odds import inputs_said, law_key, odds_json, result_json, results_equal, same_value

__all__ = ["mechanic_changes", "same_value", "MAX_EXAMPLES", "MAX_ODDS", "SAMPLE_VALUES"]

MAX_EXAMPLES = 5             # inputs shown per mechanic whose results differ
MAX_ODDS = 3                 # input sets whose odds are shown per dice mechanic


def mechanic_changes(ctx) -> list:
    """Each mechanic added, removed, or changed in itself or in what it reaches, and
    for a changed one what comparing it on both books found (`compared`: changed, the
    same over how many inputs and how they were chosen, or not compared and why)."""
    ma, mb = ctx.a.mechanics, ctx.b.mechanics
    out, jobs = [], []
    for name in list(mb) + [x for x in ma if x not in mb]:
        if name not in ma:
            out.append(_mech_head(ctx.b, name, "added", ctx))
            continue
        if name not in mb:
            out.append(_mech_head(ctx.a, name, "removed", ctx))
            continue
        same_meaning = ctx.reach_shape("a", name) == ctx.reach_shape("b", name)
        fa, fb = ma[name], mb[name]
        entry = _mech_head(ctx.b, name, "changed", ctx)
        said = _said_changes(fa.node, fb.node)
        if same_meaning and not said:
            continue
        entry.update(said)
        if same_meaning:
            entry["compared"] = {"method": "unchanged", "inputs": 0, "domain": None, "differ": 0,
                                 "evaluations": 0, "note": "its rules are unchanged, so its results are too",
                                 "outcome": "same", "own_inputs": 0, "too_large": 0, "stopped": None}
            entry["differences"], entry["odds"] = [], []
            out.append(entry)
            continue
        entry["definition_changed"] = ctx.shape_of("a", name) != ctx.shape_of("b", name)
        entry["reaches_changed"] = sorted(
            x for x in ctx.reach_b.closure_of(name) | ctx.reach_a.closure_of(name)
            if x != name and (ctx.shape_of("a", x) != ctx.shape_of("b", x)))
        dom, note = domain_of(fa, fb, ctx)
        if dom is None:
            entry.update(compared={"method": "none", "inputs": 0, "domain": None, "differ": 0, "evaluations": 0,
                                   "note": note, "outcome": "not_compared", "own_inputs": 0, "too_large": 0,
                                   "stopped": None}, differences=[], odds=[])
        else:
            own, rest, every = plan_inputs(ctx, fa, fb, dom, f"{ctx.a.id}|{ctx.b.id}|{name}")
            jobs.append((entry, _Job(fa, fb, dom, deque(own), rest, every, ctx.budget,
                                     dice=fa.has_dice or fb.has_dice)))
        out.append(entry)
    _compare_all(ctx, [job for _, job in jobs])
    for entry, job in jobs:
        entry.update(compared=_compared(ctx, job), differences=job.differences, odds=_odds_shown(ctx, job))
    return out


def _mech_head(book, name, status, ctx) -> dict:
    rule = book.rule_of(name) or ""
    return {"name": name, "display": book.display.mechanic(name), "rule": rule, "status": status,
            "dice": book.mechanics[name].has_dice, "changed_by": ctx.changes(name=name)}


def _said_changes(a: n.Mechanic, b: n.Mechanic) -> dict:
    """The changes of a mechanic's signature and words (not of its results)."""
    out = {}
    from ..language.render import Notation
    sig_a = _signature(a, Notation())
    sig_b = _signature(b, Notation())
    if sig_a != sig_b:
        out["signature"] = {"before": sig_a, "after": sig_b}
    for part in ("question", "answer"):
        fa, fb = getattr(a, part), getattr(b, part)
        if (fa.text if fa else "") != (fb.text if fb else ""):
            out[part] = {"before": fa.text if fa else "", "after": fb.text if fb else ""}
    return out


def _signature(m: n.Mechanic, notation) -> str:
    def typ(t):
        if isinstance(t, n.RangeType):
            return f"{t.low}..{t.high}"
        if isinstance(t, n.NamedType):
            return t.name
        if isinstance(t, n.ListType):
            return f"list of {typ(t.item)}"
        if isinstance(t, n.UnionType):
            return " | ".join(typ(o) for o in t.options)
        return "?"
    params = ", ".join(f"{p.name}: {typ(p.type)}" + (f" = {notation.text(p.default)}" if p.default else "")
                       for p in m.params)
    return f"{m.name}({params}) -> {typ(m.returns)}"


# ------------------------------------------------------------------ the comparisons
@dataclass
class _Job:
    """One changed mechanic's comparison: its inputs (the book's own first, then the
    others), what it has spent of its `budget` of evaluations, and what it found."""
    fa: object
    fb: object
    dom: object
    own: deque
    rest: object
    every: bool
    left: int
    dice: bool = False
    done: int = 0
    differ: int = 0
    from_own: int = 0
    too_large: int = 0
    reached: bool = False
    cut: str = ""            # what stopped it before its inputs ran out: "time" or "budget"
    finished: bool = False   # every input it had was tried (or refused as too large)
    differences: list = field(default_factory=list)
    laws: list = field(default_factory=list)      # (Candidate, law before, law after) that differ


def _compare_all(ctx, jobs: list) -> None:
    """Run every job within the diff's time: the mechanics without dice first (a call is
    cheap), each on a time slice, the time left shared equally by the jobs still to
    come (a job that finishes early leaves the rest to the later ones, and none can take
    more than its share from those after it).  Within a job the book's own inputs come
    first, then the others."""
    jobs = sorted(jobs, key=lambda j: j.dice)
    for i, job in enumerate(jobs):
        left = _seconds_left(ctx)
        if left is not None and left <= 0:
            for rest in jobs[i:]:          # the diff's time ran out before these were reached
                rest.cut = "time"
            return
        _run(ctx, job, _slice(ctx, None if left is None else left / (len(jobs) - i)))


def _seconds_left(ctx):
    d = ctx.meter.deadline
    return None if d is None else d - time.monotonic()


def _slice(ctx, seconds):
    """A meter for one job's slice: `seconds` of the diff's time, its memory budget."""
    from ..odds.budget import Budget, Meter
    return Meter(Budget(seconds=seconds, cells=ctx.meter.budget.cells))


def _run(ctx, job: _Job, meter) -> None:
    while job.left > 0:
        if _expired(meter):
            job.cut = "time"
            return
        if job.own:
            cand = job.own.popleft()
        else:
            cand = next(job.rest, None)
            if cand is None:
                job.finished = True
                return
        job.reached = True
        if job.dice:
            ra, rb = _law(job, job.fa, cand, meter), None
            if ra not in (_TIME, _WORK, _SIZE):
                rb = _law(job, job.fb, cand, meter)
            stop = ra if ra in (_TIME, _WORK, _SIZE) else rb
            if stop in (_TIME, _WORK):
                job.cut = "time" if stop is _TIME else "budget"
                return
            if stop is _SIZE:
                job.too_large += 1
                continue
        else:
            ra, rb = _call(job.fa, cand.inputs), _call(job.fb, cand.inputs)
            job.left -= 2
        _record(ctx, job, cand, ra, rb)
    if not job.finished:
        job.cut = "budget"


_TIME, _WORK, _SIZE = object(), object(), object()


def _law(job, fn, cand, meter):
    """The exact law of `fn` for one input set (a Distribution), a refusal as a tuple,
    or why it did not finish: _TIME (the slice's time), _WORK (the job's evaluations),
    _SIZE (too large for exact odds, whatever the time)."""
    from ..odds import TooLarge, distribution
    if not fn.has_dice:
        job.left -= 1
        return _call(fn, cand.inputs)
    try:
        d = distribution(fn, _meter=meter, _max_evals=job.left, **cand.inputs)
    except TooLarge as e:
        if e.kind == "time":
            return _TIME
        if e.kind == "work":
            return _WORK
        return _SIZE
    except RulesError as e:
        job.left -= 1
        return ("error", type(e).__name__, getattr(e, "param", ""), str(e))
    job.left -= max(getattr(d, "evaluations", 1), 1)
    return d


def _as_compared(job, r):
    """A result as compared: for a dice mechanic, a law as {key: probability} (a value
    as a certain law); a refusal (a tuple) and a plain mechanic's value as they are."""
    from ..odds import Distribution
    if not job.dice or isinstance(r, tuple):
        return r
    if isinstance(r, Distribution):
        return {law_key(v): p for v, p in r.outcomes}
    return {law_key(r): Fraction(1)}


def _record(ctx, job, cand, ra, rb) -> None:
    from ..odds import Distribution
    job.done += 1
    if cand.source in PLAYERS:
        job.from_own += 1
    xa, xb = _as_compared(job, ra), _as_compared(job, rb)
    if results_equal(xa, xb):
        return
    job.differ += 1
    name = job.fa.name
    if len(job.differences) < MAX_EXAMPLES:
        job.differences.append({"inputs": {k: to_json(v) for k, v in cand.inputs.items()},
                                "inputs_said": inputs_said(ctx.b, name, cand.inputs),
                                "before": result_json(xa, ctx.a, name), "after": result_json(xb, ctx.b, name),
                                "source": cand.source, "source_said": cand.source_said})
    if isinstance(ra, Distribution) and isinstance(rb, Distribution) and len(job.laws) < MAX_ODDS:
        job.laws.append((cand, ra, rb))


def _expired(meter) -> bool:
    from ..odds import TooLarge
    try:
        meter.check()
    except TooLarge:
        return True
    return False


def _compared(ctx, job: _Job) -> dict:
    """What the comparison of one job found, and how, as the JSON's `compared`."""
    dom = job.dom
    limit = ctx.meter.budget.seconds
    exhaustive = dom.finite and job.done == dom.total
    method = "exhaustive" if exhaustive else ("sampled" if job.done else "none")
    outcome = "changed" if job.differ else ("same" if job.done else "not_compared")
    stopped = None if exhaustive else (job.cut or None)
    if not job.done:
        note = _why_not(ctx, job, limit)
    elif exhaustive:
        note = "every input"
    else:
        note = _how_sampled(ctx, job, limit)
    return {"method": method, "inputs": job.done, "domain": dom.total if dom.finite else None,
            "differ": job.differ, "evaluations": ctx.budget - job.left, "note": note, "outcome": outcome,
            "own_inputs": job.from_own, "too_large": job.too_large, "stopped": stopped}


def _why_not(ctx, job, limit) -> str:
    if job.cut == "time" and not job.reached:
        return f"the diff's time limit ({limit:g} s, --time-limit) ran out before it was reached"
    if job.cut == "time":
        return (f"its first input did not finish within its share of the diff's time limit "
                f"({limit:g} s, --time-limit)")
    if job.cut == "budget":
        return f"its first input needs more than its budget of {_evaluations(ctx.budget)} (--budget)"
    if job.too_large:
        return f"each of the {job.too_large} inputs tried is too large for exact odds"
    return "no input was left to compare it on"


def _how_sampled(ctx, job, limit) -> str:
    """How a sampled comparison chose its inputs and why it did not try them all."""
    dom = job.dom
    parts = []
    if job.from_own:
        parts.append(f"first {job.from_own} input{'s' if job.from_own != 1 else ''} the book itself uses (its "
                     "odds lines, worked examples, profiles and website odds)")
    others = job.done - job.from_own
    if others:
        then = "then " if parts else ""
        if dom.finite:
            parts.append(f"{then}{others} drawn at random from its {dom.total:,} inputs")
        else:
            parts.append(f"{then}{others} drawn from its inputs' ranges and the values its examples and defaults "
                         "give (an input without a range, a number, text or list, cannot have every value tried)")
    if job.cut == "time":
        parts.append(f"until the diff's time limit ({limit:g} s, --time-limit) ran out")
    elif job.cut == "budget" or (dom.finite and dom.total > job.done and not job.too_large):
        parts.append(f"within a budget of {_evaluations(ctx.budget)} (--budget)")
    if job.too_large:
        parts.append(f"leaving out {job.too_large} input{'s' if job.too_large != 1 else ''} too large for exact odds")
    return ", ".join(parts)


def _evaluations(k: int) -> str:
    return f"{k:,} evaluation{'s' if k != 1 else ''}"


def _odds_shown(ctx, job) -> list:
    """The odds before and after where they moved: for the book's `odds` lines when any
    moved (the designer's choice, alone), else for its other own inputs (worked examples,
    profiles, website), else for the first inputs found to differ;
    the laws are those the comparison computed (nothing is computed again)."""
    lines = [x for x in job.laws if x[0].source == "odds"]       # the designer chose these: only them
    own = [x for x in job.laws if x[0].source in PLAYERS]
    chosen = lines or own or job.laws
    out = []
    for cand, da, db in chosen[:MAX_ODDS]:
        entry = odds_json(cand.inputs, da, db, ctx.b, job.fa.name)
        entry["source"], entry["source_said"] = cand.source, cand.source_said
        out.append(entry)
    return out


def _call(fn, inputs):
    try:
        return fn(**inputs)
    except RulesError as e:
        return ("error", type(e).__name__, getattr(e, "param", ""), str(e))
    except (ArithmeticError, RecursionError, ValueError, TypeError) as e:
        return ("error", type(e).__name__, "", str(e))


