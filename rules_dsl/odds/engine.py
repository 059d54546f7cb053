"""The engine: `distribution(mechanic, **inputs)` and `_Engine`, which walks a mechanic's
plan statement by statement, memoising the rest of the mechanic on what it reads,
and takes each statement's branches from the aggregate fast path or from a replay."""
from __future__ import annotations

import dataclasses
from fractions import Fraction
import math
import time

from ..language import nodes as n

from ..compiler import Ctx, MechanicFn
from ..language.dice import GivenRoller
from ..errors import EvaluationError, NotFound
from ..language.values import Record, show
from .chains import ChainLaw
from .multisets import pool_alternatives
from .plan import GroupStep, plan_of
from .replay import Replay
from .result import Distribution, member_order, NoDice, OrMore, sort_key, TAIL_EPS, TooLarge, ZERO, value_key
from .standins import Face, NoKey, PoolList, Refine, split_key, Tail
from . import aggregates, budget


class _Sub:
    """A (conditional) distribution of results with integer weights over one denominator:
    key -> [value, weight, tail mean mass or None], `den`, and the tainted weight `tw`
    (paths that went through a truncated chain)."""
    __slots__ = ("entries", "den", "tw")

    def __init__(self):
        self.entries, self.den, self.tw = {}, None, 0

    def _align(self, d):
        """Bring this distribution to a denominator that `d` divides; the factor for `d`."""
        if self.den is None:
            self.den = d
            return 1
        if self.den == d:
            return 1
        L = math.lcm(self.den, d)
        f = L // self.den
        if f != 1:
            for e in self.entries.values():
                e[1] *= f
                if e[2] is not None:
                    e[2] *= f
            self.tw *= f
        self.den = L
        return L // d

    def put(self, k, value, w, d, extra, tw):
        f = self._align(d)
        w *= f
        e = self.entries.get(k)
        x = None if extra is None else extra * w
        if e is None:
            self.entries[k] = [value, w, x]
        else:
            e[1] += w
            if x is not None:
                e[2] = x if e[2] is None else e[2] + x
        self.tw += tw * f

    def add(self, sub, bw, bd, btw):
        """Add `sub` scaled by the branch probability bw/bd (of which btw/bd is tainted)."""
        f = self._align(bd * sub.den)
        scale = bw * f
        ent = self.entries
        for k, (v, w, x) in sub.entries.items():
            e = ent.get(k)
            ww = w * scale
            if e is None:
                ent[k] = [v, ww, None if x is None else x * scale]
            else:
                e[1] += ww
                if x is not None:
                    e[2] = x * scale if e[2] is None else e[2] + x * scale
        self.tw += (btw * sub.den + (bw - btw) * sub.tw) * f


class _Rolled(Exception):
    """Internal: a statement thought to roll no dice did roll (it is then enumerated)."""


class _NoRoller:
    def one(self, *a):
        raise _Rolled

    pool = chain = reroll = explode = one


class _Engine:
    def __init__(self, mech, given, meter=None, max_evals=None, eps=TAIL_EPS):
        self.mech = mech
        self.given = GivenRoller(given) if given else None
        self.parts, self.chains, self.laws = {}, {}, {}
        self.memo = {}
        self.evals = 0
        self.meter = meter if meter is not None else budget.Meter(budget.Budget(seconds=None))
        self.max_evals = max_evals
        self.eps = eps
        self.plan = plan_of(mech)
        self.fixed = Ctx(_NoRoller(), budget=None)  # bounded by the engine's own evaluation cap
        self.active = None          # the replay whose statement is being evaluated
        self.step_at = None         # the plan step being enumerated (for the size notes)
        self.noted = {}             # step -> roll name -> (dice, die, worst-case distinguishable rolls)
        self.explode_caps = {}      # roll name -> (cap, largest P(more extra dice than the cap))

    def note_explode(self, name, cap, more):
        old = self.explode_caps.get(name)
        if old is None or more > old[1]:
            self.explode_caps[name] = (cap, more)

    def tick(self):
        self.evals += 1
        if self.max_evals is not None and self.evals > self.max_evals:
            raise self.meter.refusal(f"it takes more than {self.max_evals:,} evaluations", "work")
        self.meter.poll(16)

    def chain_law(self, m, p1, p2):
        key = (m, p1, p2)
        law = self.laws.get(key)
        if law is None:
            law = self.laws[key] = ChainLaw(m, p1, p2, self.eps)
        return law

    # -- statements
    def solve(self, bound):
        for _ in range(1000):
            try:
                return self.run(0, dict(bound))
            except Refine:       # pragma: no cover - every stand-in's enumeration is on the stack
                continue
        raise EvaluationError(f"{self.mech.name}: the exact-odds engine did not settle")  # pragma: no cover

    def run(self, pos, env):
        plan = self.plan
        final = pos == len(plan.steps)
        mk = None
        if final or plan.random[pos]:
            try:
                mk = (pos, tuple(value_key(env[k], False) for k in sorted(plan.live[pos]) if k in env))
            except NoKey:
                mk = None
            if mk is not None:
                hit = self.memo.get(mk)
                if hit is not None:
                    return hit
        res = self.final(env) if final else self.step(pos, env)
        if mk is not None:
            self.meter.hold(len(res.entries) + 1)     # kept for the rest of the computation
            self.memo[mk] = res
        return res

    def step(self, pos, env):
        st = self.plan.steps[pos]
        fn = st.fn
        if not self.plan.random[pos]:          # no dice here: evaluate once, no enumeration
            done, value = self.once(fn, env)
            if done:
                return self.next(pos, env, st, value)
        fast = self.plan.fast[pos] and self.fast(self.plan.fast[pos], env)
        if fast is not None:
            return self.branch(pos, env, st, [[(v,), w, d, tw] for v, w, d, tw in fast])
        self.step_at = pos
        while True:
            rep = Replay(self)
            try:     # a fresh context per evaluation: the calls it makes are numbered alike each time
                return self.branch(pos, env, st, rep.run(lambda: fn(env, Ctx(rep))))
            except Refine as r:
                if rep in r.tokens:
                    continue
                raise

    def once(self, fn, env):
        """(True, value) for a statement the plan found dice-free, evaluated once with
        the given rolls; (False, None) if it rolled after all (then it is enumerated)."""
        try:
            self.tick()
            return True, fn(env, self.fixed)
        except _Rolled:
            return False, None

    def branch(self, pos, env, st, branches):
        """The rest of the mechanic after each value of a statement (step `st`), weighted."""
        if len(branches) == 1 and not branches[0][3]:
            return self.next(pos, env, st, branches[0][0])
        acc = _Sub()
        for value, w, d, tw in branches:
            acc.add(self.next(pos, env, st, value), w, d, tw)
        return acc

    def fast(self, plan, env):
        """The statement's branches from its pools' aggregates (the aggregates module), or None."""
        res = aggregates.law(plan, env, self.given, self.fixed, pool_alternatives, value_key, self.note_explode)
        if res is None:
            return None
        branches, work = res
        self.evals += work
        self.tick()
        return branches

    def next(self, pos, env, st, value):
        if type(st) is GroupStep:
            env = dict(env)
            for k, v in zip(st.keep, value):
                env[k] = v
            value = value[-1]
            st = st.stmt
        if not st.binds:                   # a RequireStep
            if not value:
                raise EvaluationError(f"{self.mech.name}: {st.message}")
            return self.run(pos + 1, env)
        env2 = dict(env)
        env2[st.name] = value
        return self.run(pos + 1, env2)

    def final(self, env):
        fn = self.plan.result
        if not self.plan.result_random:
            done, value = self.once(fn, env)
            if done:
                return self.outcomes([(value, 1, 1, 0)])
        fast = self.plan.fast_result and self.fast(self.plan.fast_result, env)
        if fast is not None:
            return self.outcomes(fast)
        self.step_at = "result"
        while True:
            rep = Replay(self)
            try:
                return self.outcomes(rep.run(lambda: fn(env, Ctx(rep))))
            except Refine as r:
                if rep in r.tokens:
                    continue
                raise

    def outcomes(self, branches):
        acc = _Sub()
        for value, w, d, tw in branches:
            self.outcome(acc, value, w, d, tw)
        return acc

    def outcome(self, acc, value, w, d, tw):
        mech = self.mech
        if isinstance(value, range):
            value = list(value)
        try:
            value = mech.returns.convert(value)
        except ValueError:
            raise EvaluationError(f"{mech.node.span}: {mech.name} produced {show(value)}, "
                                  f"which is not {mech.returns.describe} as declared") from None
        value, tail_mean = self.settle(value)
        acc.put(value_key(value, False), value, w, d, tail_mean, tw)

    def settle(self, value):
        """A final result: no stand-in for several faces may remain (split them); a chain's
        tail becomes an `OrMore` bucket (grown first so that its mass is below 1e-12).
        Returns (value, the bucket's exact conditional mean for an `OrMore`, else None)."""
        t = type(value)
        if t is Face:
            value.origin.split(value.faces, [split_key((True, v)) for v in value.vals])
        if t is Tail:
            law, K = value.origin.law, value.K
            if K < law.K_max:
                value.origin.grow(law.K_max)
            b = OrMore(value._low(), value.a > 0)
            return b, value.a * law.cond_mean(K) + value.b
        if t is list or t is PoolList or t is tuple:
            items = [self.settle(x)[0] for x in value]
            return (items if t is not tuple else tuple(items)), None
        if t is Record:
            return Record({k: self.settle(x)[0] for k, x in value.as_dict().items()}), None
        if t is frozenset:
            return frozenset(self.settle(x)[0] for x in value), None
        return value, None


# ===================================================================== API
MAX_EVALUATIONS = budget.DEFAULT_EVALUATIONS      # evaluations of one computation; beyond, TooLarge


def distribution(mechanic, *args, _budget=None, _meter=None, _deadline=None, _max_evals=None,
                 **kwargs) -> Distribution:
    """The exact distribution of `mechanic`'s result for the given inputs.

    Inputs are checked as in a call (InputError names the parameter).  A roll's name
    given as a keyword (or in `rolls`) fixes that roll, as in a call; the others are
    enumerated.  Raises NoDice for a mechanic that rolls no dice.

    The computation runs within a budget (`rules_dsl.odds.budget`): `_budget`, a
    `Budget` (default: `Budget()`, a few seconds), or `_meter`, a `Meter` already
    running, to share one budget between computations (`rules odds --vs`);
    `_max_evals` caps the evaluations (the site's page odds count them), `_deadline`
    is an absolute `time.monotonic()` (older callers).  Past it: `TooLarge`, saying
    what was too large and what to try.
    """
    if not isinstance(mechanic, MechanicFn):
        raise TypeError(f"distribution() needs a compiled mechanic, got {mechanic!r}")
    roll_names = {r.name for r in mechanic.rolls}
    params = {p.name for p in mechanic.params}
    rolls = kwargs.pop("rolls", None) if "rolls" not in params else None
    given = mechanic.given_rolls(kwargs, rolls)
    _check_repeated_given(mechanic, given)
    bound = mechanic.bind(list(args), kwargs)
    if not mechanic.has_dice:
        raise NoDice(f"{mechanic.book_id}:{mechanic.name} rolls no dice, so it has no odds; "
                     f"use `rules call` for its value")
    meter = _meter
    if meter is None:
        b = _budget if _budget is not None else budget.Budget()
        if _deadline is not None:
            b = dataclasses.replace(b, seconds=max(0.0, _deadline - time.monotonic()))
        meter = b.meter()
    max_evals = _max_evals if _max_evals is not None else meter.budget.evaluations
    try:
        with budget.using(meter):
            return _distribution(mechanic, bound, given, roll_names, meter, max_evals)
    except TooLarge as e:
        raise e.about(_subject(mechanic, bound, given), _hints(mechanic, bound, given, e)) from None
    except RecursionError:     # a structure too deep for Python: as too large, never an internal error
        raise meter.refusal("it nests too deeply").about(_subject(mechanic, bound, given),
                                                          _hints(mechanic, bound, given, None)) from None


def _subject(mechanic, bound, given) -> str:
    shown = ", ".join(f"{k}={show(v)}" for k, v in {**bound, **given}.items())
    if len(shown) > 80:
        shown = shown[:79] + "…"
    return f"{mechanic.book_id}:{mechanic.name}({shown})"


def _hints(mechanic, bound, given, err) -> list:
    """What to try instead: fewer dice, a roll given by name, more time."""
    from .plan import count_params
    hints = []
    sizes = [p.name for p in mechanic.params if p.name in count_params(mechanic)
             and isinstance(bound.get(p.name), int) and not isinstance(bound.get(p.name), bool)
             and bound[p.name] > 1]
    if sizes:
        hints.append("fewer dice (a smaller " + " or ".join(sizes) + ")")
    free = [r.name for r in mechanic.rolls if r.name not in given]
    if free:
        hints.append(f"a roll given by name ({free[0]}=...)")
    hints.append(f"`rules call {mechanic.book_id}:{mechanic.name}` for one random roll")
    if err is not None and err.kind == "time":
        hints.append("more time")
    return hints


def _distribution(mechanic, bound, given, roll_names, meter, max_evals) -> Distribution:
    eps = TAIL_EPS
    evaluations = 0
    for _ in range(4):
        eng = _Engine(mechanic, given, meter, max_evals, eps)
        res = eng.solve(bound)
        evaluations += eng.evals
        tainted = Fraction(res.tw, res.den)
        if tainted < TAIL_EPS:
            break
        eps = eps / 2 ** 20       # several truncated chains on one path: cut deeper
    if eng.given is not None:
        unknown = set(given) - eng.given.used
        if unknown:
            raise NotFound("roll", sorted(unknown)[0], sorted(roll_names), where=f"{mechanic.book_id}:{mechanic.name}")
    order = member_order(mechanic.book)
    items = sorted((e for e in res.entries.values() if e[1]), key=lambda e: sort_key(e[0], order))
    den = res.den
    outcomes = [(v, Fraction(w, den)) for v, w, _ in items]
    mean = None
    if outcomes and all(isinstance(v, (int, Fraction, OrMore)) and not isinstance(v, bool) for v, _, _ in items):
        mass = sum((x if isinstance(v, OrMore) else w * v for v, w, x in items), 0)
        mean = Fraction(mass) / den
    total = sum((p for _, p in outcomes), ZERO)
    if total != 1:   # pragma: no cover - a bug, never a rounding
        raise AssertionError(f"probabilities sum to {total}")
    shown = {**bound, **given}
    dist = Distribution(mechanic, shown, outcomes, mean, tainted)
    dist.evaluations = evaluations   # the work it took (page_odds budgets in this unit)
    dist.steps = meter.steps         # and in steps (`Budget.steps`), so far on this meter
    dist.explode_caps = dict(sorted(eng.explode_caps.items()))
    return dist


def _check_repeated_given(mechanic, given):
    """A roll given by a path through a repeated call (`attack[1].hit_dice`) names that
    call by its order in one evaluation.  The engine evaluates the mechanic's statements
    one at a time, each numbering its own calls; so a path through the k-th call of a
    mechanic that several statements call cannot be followed: refused, not guessed."""
    from ..language import rollpaths
    from ..analysis.callgraph import call_sites
    for k in given:
        parsed = rollpaths.parse(k)
        if parsed is None or not parsed[0] or parsed[0][0][1] == 0:
            continue
        callee = parsed[0][0][0]
        node = mechanic.node
        parts = [s.value if isinstance(s, n.Let) else s.cond if isinstance(s, n.Require) else s.dice
                 for s in node.body] + [node.result]
        holders = 0
        for part in parts:
            sub = dataclasses.replace(node, body=(), result=part) if isinstance(part, n.Expr) else None
            if sub is not None and any(site.callee == callee for site in call_sites(sub, mechanic.book.syms)):
                holders += 1
            elif sub is None and any(isinstance(x, n.Call) and isinstance(x.func, n.Name) and x.func.name == callee
                                     for x in n.iter_nodes(part)):
                holders += 1
        if holders > 1:
            raise EvaluationError(f"the exact odds cannot fix the roll '{k}': {mechanic.name} calls {callee} in "
                                  f"{holders} of its statements, which the odds engine numbers apart; give it to "
                                  f"`rules call` or `rules explain` instead")
