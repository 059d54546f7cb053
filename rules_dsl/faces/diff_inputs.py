"""`rules diff`'s inputs: which inputs a changed mechanic is compared on, players' first.

A diff that compares random inputs first may spend its whole time on inputs no player
would pick ("shots 98, emp yes") and never reach the ones a table uses.  So a
mechanic's inputs come in two groups (`plan_inputs`):

* **the book's own** (`Candidate.source` "odds", "example", "profile", "website"): the inputs of
  its `odds` lines in either book, those of every worked example that calls it (rolls
  given by name are dropped: the diff compares the whole law), and for a dice mechanic
  the rows of a table of records (a unit's or a weapon's profile) that give two or more
  of its inputs by name (the others as the website's odds start), and for a dice
  mechanic the inputs its website page shows odds for (`odds.page_inputs_of`: defaults,
  then each input's low, middle and high value); each completed with its defaults and
  accepted by both versions;
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
PLAYERS = ("odds", "example", "profile", "website")
MAX_PROFILES = 8             # profile rows tried per mechanic, at most
#: where an input came from, in players' words
SOURCE_WORDS = {"odds": "the book's odds table", "example": "a worked example", "profile": "a profile in the book",
                "website": "the website's odds table", "every": "every input in turn", "random": "drawn at random"}


@dataclass(frozen=True)
class Candidate:
    """One input set to compare (`inputs`: {parameter: value}), where it came from, and
    that in players' words (`said`: "the profile Star Knights in Unit examples")."""
    inputs: dict
    source: str
    said: str = ""

    @property
    def source_said(self) -> str:
        return self.said or SOURCE_WORDS[self.source]


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
    site = []
    if fa.has_dice or fb.has_dice:
        from ..odds.page_inputs import page_inputs_of
        fn = fb if fb.has_dice else fa
        try:
            site = [(fn, dict(x)) for x in page_inputs_of(fn)]
        except RulesError:
            site = []
    start = site[0][1] if site else {}
    for fn, given, said in _profiles(ctx.b, fb, dom):
        got = _complete(fa, fb, fn, dom, {**start, **given})
        if got is not None:
            yield Candidate(got, "profile", said)
    for fn, given in site:
        got = _complete(fa, fb, fn, dom, given)
        if got is not None:
            yield Candidate(got, "website")


def _profiles(book, fn, dom: Domain):
    """(fn, {parameter: value}, words) for each row of a table of records (a unit's or a
    weapon's profile) that gives two or more of the mechanic's inputs by their names;
    the others come from the website's starting inputs or the defaults."""
    found = 0
    for tname, table in book.tables.items():
        fields = [f for f in (table.fields or []) if f in dom.names]
        if len(fields) < 2:
            continue
        for keys, record in table.entries:
            if found >= MAX_PROFILES:
                return
            values = record.as_dict()
            keys_said = ", ".join(book.display.value(k) for k in keys)
            found += 1
            yield fn, {f: values[f] for f in fields}, f"the profile {keys_said} in {book.display.table(tname)}"


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
