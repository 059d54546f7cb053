"""`rules diff`'s inputs: which inputs a changed mechanic is compared on, players' first.

A diff that compares random inputs first may spend its whole time on inputs no player
would pick ("shots 98, emp yes") and never reach the ones a table uses.  So a
mechanic's inputs come in two groups (`plan_inputs`):

* **the book's own** (`Candidate.source` "odds", "example", "website"): the inputs of
  its `odds` lines in either book, those of every worked example that calls it (rolls
  given by name are dropped: the diff compares the whole law), and for a dice mechanic
  the inputs its website page shows odds for (`odds.page_inputs`: defaults, then each
  input's low, middle and high value), each completed with its defaults and accepted
  by both versions;
* **the others** ("every" or "random"): every input in a fixed random order when there
  are few enough, else inputs drawn at random with a fixed seed, never one already
  compared.

diff_mechanics.py runs them, within the budget and the time slices it shares out.
"""
from __future__ import annotations

import itertools
import json
import random
from dataclasses import dataclass, field

from ..errors import RulesError
from ..language import nodes as n
from ..language.values import ABSENT, to_json

__all__ = ["Candidate", "Domain", "PLAYERS", "SOURCE_WORDS", "domain_of", "plan_inputs", "input_key",
           "SAMPLE_VALUES", "MAX_PLAYERS"]

SAMPLE_VALUES = (0, 1, 2, 3, 4, 5, 6, 8, 10, 12)    # tried for a whole number without a range
MAX_PLAYERS = 32             # the book's own inputs compared per mechanic, at most
PLAYERS = ("odds", "example", "website")
#: where an input came from, in players' words
SOURCE_WORDS = {"odds": "the book's odds table", "example": "a worked example",
                "website": "the website's odds table", "every": "every input in turn", "random": "drawn at random"}


@dataclass(frozen=True)
class Candidate:
    """One input set to compare (`inputs`: {parameter: value}) and where it came from."""
    inputs: dict
    source: str


@dataclass
class Domain:
    """The inputs both versions of a mechanic take: `names`, the values tried for each
    (`values`), whether those are all of them (`finite`) and how many sets that makes."""
    names: list
    values: list
    finite: bool
    total: int = field(init=False)

    def __post_init__(self):
        total = 1
        for vs in self.values:
            total *= len(vs)
        self.total = total


def input_key(inputs: dict) -> str:
    return json.dumps({k: to_json(v) for k, v in inputs.items()}, sort_keys=True)


def domain_of(fa, fb, ctx):
    """(Domain, "") of the inputs both versions take; (None, why) when they cannot be
    compared input for input."""
    name = fa.name
    params_a = {p.name: p for p in fa.params}
    params_b = {p.name: p for p in fb.params}
    for p in fb.params:
        if p.name not in params_a and p.default is None:
            return None, (f"it takes a new input, {ctx.b.display.param(name, p.name)}, with no default, "
                          "so its results cannot be compared input for input")
    names, values, finite = [], [], True
    seen = _example_values(ctx, name)
    for p in fa.params:
        if p.name not in params_b:
            continue
        ca, cb = fa.checks[p.name], fb.checks[p.name]
        vs = ca.finite_values(ctx.budget)
        if vs is None:
            finite = False
            cands = list(seen.get(p.name, []))
            for side in (fa, fb):
                if p.name in side.defaults:
                    try:
                        cands.append(side.default(p.name))
                    except RulesError:
                        pass
            if isinstance(p.type, n.NamedType) and p.type.name in ("int", "number"):
                cands.extend(SAMPLE_VALUES)
            vs = []
            for v in cands:
                v = _convert(ca, v)
                if v is not _NO and not any(_same(v, w) for w in vs):
                    vs.append(v)
        kept = [w for w in (_convert(cb, v) for v in vs) if w is not _NO]
        if not kept:
            return None, (f"its input {ctx.b.display.param(name, p.name)} has no value both versions accept "
                          "(and no range to try), so its results were not compared")
        names.append(p.name)
        values.append(kept)
    return Domain(names, values, finite), ""


def plan_inputs(ctx, fa, fb, dom: Domain, seed: str):
    """([Candidate] the book's own inputs, an iterator of the others, whether the
    others are every input)."""
    own, keys = [], set()
    for cand in _players(ctx, fa, fb, dom):
        k = input_key(cand.inputs)
        if k not in keys and len(own) < MAX_PLAYERS:
            keys.add(k)
            own.append(cand)
    rest, every = _others(dom, ctx.budget, seed, keys)
    return own, rest, every


# ------------------------------------------------------------------ the book's own inputs
def _players(ctx, fa, fb, dom):
    name = fa.name
    for book in (ctx.b, ctx.a):
        fn = book.mechanics[name]
        for args, kwargs in getattr(book.compiled, "odds_inputs", {}).get(name, []):
            got = _complete(fa, fb, fn, dom, {**dict(zip([p.name for p in fn.params], args)), **kwargs})
            if got is not None:
                yield Candidate(got, "odds")
    for book in (ctx.b, ctx.a):
        fn = book.mechanics[name]
        for given in _example_calls(book, name):
            got = _complete(fa, fb, fn, dom, given)
            if got is not None:
                yield Candidate(got, "example")
    if fa.has_dice or fb.has_dice:
        from ..odds.page_inputs import page_inputs_of
        for fn in (fb, fa):
            if fn.has_dice:
                try:
                    chosen = page_inputs_of(fn)
                except RulesError:
                    chosen = []
                for given in chosen:
                    got = _complete(fa, fb, fn, dom, dict(given))
                    if got is not None:
                        yield Candidate(got, "website")
                break


def _complete(fa, fb, fn, dom: Domain, given: dict):
    """`given` with the defaults (of `fn`, the book it came from) for what it leaves out,
    each value accepted by both versions; None when one is missing or refused."""
    out = {}
    for name in dom.names:
        if name in given:
            v = given[name]
        elif name in fn.defaults:
            try:
                v = fn.default(name)
            except RulesError:
                return None
        else:
            return None
        v = _convert(fa.checks[name], v)
        if v is _NO:
            return None
        v = _convert(fb.checks[name], v)
        if v is _NO:
            return None
        out[name] = v
    return out


def _example_calls(book, name):
    """{parameter: value} of every call of `name` in a worked example whose inputs are
    all written out as values (rolls given by name dropped)."""
    order = [p.name for p in book.mechanics[name].params]
    for _rid, ex in book.example_cases():
        for case in ex.cases:
            for x in n.iter_nodes(case.expr):
                if not (isinstance(x, n.Call) and isinstance(x.func, n.Name) and x.func.name == name):
                    continue
                given, ok = {}, True
                for k, e in list(zip(order, x.args)) + [kv for kv in x.kwargs if kv[0] in order]:
                    v = _literal(e)
                    if v is None:
                        ok = False
                        break
                    given[k] = v
                if ok and len(x.args) <= len(order):
                    yield given


def _example_values(ctx, name) -> dict:
    """{parameter: [values]} the two books' worked examples give `name`."""
    out = {}
    for book in (ctx.a, ctx.b):
        for given in _example_calls(book, name):
            for k, v in given.items():
                out.setdefault(k, []).append(v)
    return out


def _literal(e):
    from ..language.values import Sym
    if isinstance(e, n.Literal) and e.value is not ABSENT:
        return e.value
    if isinstance(e, n.Neg) and isinstance(e.operand, n.Literal) and isinstance(e.operand.value, int):
        return -e.operand.value
    if isinstance(e, n.Name):
        return Sym(e.name)
    if isinstance(e, n.ListLit):
        items = [_literal(x) for x in e.items]
        return None if any(x is None for x in items) else items
    return None


# ------------------------------------------------------------------ the others
def _others(dom: Domain, budget: int, seed: str, skip: set):
    """(an iterator of Candidates, every input?): every input in a fixed random order
    when there are at most `budget`, else up to `budget` drawn at random; none in `skip`."""
    rng = random.Random(seed)
    names, values = dom.names, dom.values
    if dom.total <= budget:
        combos = list(itertools.product(*values))
        rng.shuffle(combos)
        source = "every" if dom.finite else "random"
        gen = (dict(zip(names, c)) for c in combos)
        return (Candidate(x, source) for x in gen if input_key(x) not in skip), dom.finite

    def drawn():
        seen, tries, given = set(), 0, 0
        while given < budget and tries < budget * 4:
            tries += 1
            idx = tuple(rng.randrange(len(vs)) for vs in values)
            if idx in seen:
                continue
            seen.add(idx)
            x = {k: vs[i] for k, vs, i in zip(names, values, idx)}
            if input_key(x) in skip:
                continue
            given += 1
            yield Candidate(x, "random")
    return drawn(), False


_NO = object()


def _convert(check, v):
    try:
        return check.convert(v)
    except (ValueError, TypeError, RulesError):
        return _NO


def _same(x, y) -> bool:
    from ..evaluation.examples import same
    return same(x, y)
