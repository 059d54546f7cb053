"""Replay: the roller that enumerates one statement's rolls (`Replay`) by re-evaluating
the statement depth-first along recorded choice paths (values are keyed by
`result.value_key`)."""
from __future__ import annotations

import math
import operator

from ..language.dice import DieInfo, explode_law, explode_more, rerolled_die
from ..errors import EvaluationError
from . import budget
from .chains import ChainOrigin, ChainState
from .multisets import PoolOrigin, Partition, pool_alternatives
from .result import ZERO, value_key
from .standins import Face, NoKey, PoolList, Refine, Tail


# ============================================================ the replay roller
class _Restart(BaseException):
    """Internal: a class was split for the current path (a new choice point): evaluate
    the statement again along the extended path.  A BaseException, like Refine."""

    def __init__(self, rep):
        super().__init__()
        self.rep = rep


class Replay:
    """The roller for one statement: walks the tree of its rolls depth-first by
    re-evaluation, and returns the statement's values with their probabilities.

    A path is the list of choices made at its choice points, in the order they were
    met: a roll (which alternative of its partition), or a local split of a class of
    an earlier roll (how many of its dice fall in each part).  Evaluating a path again
    is deterministic up to its last choice, so a roll applies the splits recorded for
    it further along the path as it is made; their positions are then skipped."""

    def __init__(self, eng):
        self.eng = eng
        self.origins = {}          # chains: one origin per roll name
        self.serial = 0

    # -- the roller protocol (see dice.GivenRoller)
    def one(self, name, die):
        if self.eng.given is not None and name in self.eng.given.given:
            return self.eng.given.one(name, die)
        return self._roll(name, die, self._part(name, die), 1, single=True)

    def pool(self, name, die, count):
        count = operator.index(count)
        if self.eng.given is not None and name in self.eng.given.given:
            return self.eng.given.pool(name, die, count)
        part = self._part(name, die)
        if count == 0:
            return []
        if part.ordered:
            return self._sequence(name, die, part, count)
        return self._roll(name, die, part, count)

    def chain(self, name, die, count, on, then):
        count = operator.index(count)
        if self.eng.given is not None and name in self.eng.given.given:
            return self.eng.given.chain(name, die, count, on, then)
        p1 = sum((die.weight(f) for f in die.distinct if f in on), ZERO)
        p2 = sum((die.weight(f) for f in die.distinct if f in then), ZERO)
        if p1 > 0 and p2 == 1 and count > 0:
            raise EvaluationError(f"roll '{name}': the chain never stops (every face of {die.describe()} continues it)")
        law = self.eng.chain_law(count, p1, p2)
        key = ("chain", name)
        state = self.eng.chains.get(key)
        if state is None:
            state = self.eng.chains[key] = ChainState()
        origin = self.origins.get(key)
        if origin is None or origin.law is not law:
            origin = self.origins[key] = ChainOrigin(self, state, law)
        if law.finite:
            alts = [(s, p, False) for s, p in enumerate(law.pmf) if p]
        else:
            K = min(state.K, law.cap)
            if state.collapsed:
                K = max(K, law.K_max)
            pm, t = law.upto(K)
            alts = [(s, p, False) for s, p in enumerate(pm) if p]
            if state.collapsed:
                alts.append((K, t, True))
            else:
                alts.append((Tail(origin, K), t, False))
        den = math.lcm(*(p.denominator for _, p, _ in alts))
        alts = [(v, p.numerator * (den // p.denominator), tainted) for v, p, tainted in alts]
        return self._pick(alts, den)

    def reroll(self, name, die, count, faces):
        """A re-roll once is a roll of the die of kept faces (`dice.rerolled_die`): one die,
        or a pool of independent such dice."""
        if self.eng.given is not None and name in self.eng.given.given:
            return self.eng.given.reroll(name, die, count, faces)    # checked against the die itself
        kept = rerolled_die(die, faces)
        return self.one(name, kept) if count is None else self.pool(name, kept, count)

    def explode(self, name, die, count, on, cap):
        """An exploding pool as three pools (see `dice.explode_law`): A dice of the explode
        faces, B of the other faces, C of any face (those rolled once the cap was reached),
        the sizes a choice point with their exact probabilities, the faces handed over as
        one pool in the canonical order.  Its order cannot be read (see the package doc)."""
        count = operator.index(count)
        if self.eng.given is not None and name in self.eng.given.given:
            return self.eng.given.explode(name, die, count, on, cap)
        part = self._part(name, die)
        if part.ordered:
            raise EvaluationError(f"roll '{name}': the exact odds of an exploding roll whose order the mechanic "
                                  f"reads are not computed; read it through count, sum, max or a comprehension")
        p = sum((die.weight(f) for f in die.distinct if f in on), ZERO)
        self.eng.note_explode(name, cap, explode_more(count, p, cap))
        law = explode_law(count, p, cap)
        den = math.lcm(*(pr.denominator for _, pr in law))
        at = self.pos
        abc = self._pick([(v, pr.numerator * (den // pr.denominator), False) for v, pr in law], den)
        hot = DieInfo(die.name, tuple(f for f in die.faces if f in on), die.custom)
        cold = DieInfo(die.name, tuple(f for f in die.faces if f not in on), die.custom)
        items = []
        for tag, d, k in (("explode", hot, abc[0]), ("other", cold, abc[1]), ("any", die, abc[2])):
            if k:
                sub = f"{name}:{tag}"
                items.extend(self._roll(sub, d, self._part(sub, d), k))
        rank = part.rank
        items.sort(key=lambda x: rank[x.faces[0] if type(x) is Face else x])
        out = PoolList(items)
        out.origin = PoolOrigin(self, part, (name, "explode", at))
        out.mixed = True
        out.shape = (abc,) + tuple(value_key(x, True) for x in items)
        return out

    # -- choice points
    def _next(self):
        """The position of the next choice point met (skipping splits applied early)."""
        p, pre = self.pos, self.pre
        while p in pre:
            p += 1
        self.pos = p + 1
        return p

    def _take(self, p, nalts):
        c = self.path[p] if p < len(self.path) else 0
        chosen = self.chosen
        while len(chosen) <= p:
            chosen.append(None)
            self.nalts.append(None)
        chosen[p] = c
        self.nalts[p] = nalts
        return c

    def _part(self, name, die):
        key = (name, die.name, die.faces)     # a re-roll's kept-face die differs from its die
        part = self.eng.parts.get(key)
        if part is None:
            part = self.eng.parts[key] = Partition(die)
            prefix, _, roll = name.rpartition(".")
            owner = prefix.rpartition(".")[2].partition("[")[0] if prefix else self.eng.mech.name
            part.ordered = (owner, roll) in self.eng.plan.ordered
        return part

    def _note(self, name, die, k, ordered=False):
        """Note, once per statement and roll, how many distinguishable rolls the statement
        could have to tell apart at worst (every face told apart; the rolls it makes
        multiply): what a refusal names if the computation runs out."""
        seen = self.eng.noted.setdefault(self.eng.step_at, {})
        if name in seen:
            return
        f = len(die.distinct)
        seen[name] = (k, die.name, f ** k if ordered else math.comb(k + f - 1, f - 1))
        size = math.prod(w for _, _, w in seen.values())
        kinds = {(k_, d) for k_, d, _ in seen.values()}
        if len(seen) == 1 or len(kinds) > 1:
            parts = [f"{n} ({budget.pool_words(k_, d)})" for n, (k_, d, _) in seen.items()]
        else:                       # the rolls are alike: say the dice once
            parts = list(seen) + [f"(each {budget.pool_words(*kinds.pop())})"]
        words = f"the roll {' '.join(parts)}" if len(seen) == 1 else \
            f"the rolls {', '.join(parts[:-1])} {parts[-1]} read together" if len(parts) > len(seen) else \
            f"the rolls {', '.join(parts)} read together"
        budget.note(words + (" die by die" if ordered else ""), size)

    def _roll(self, name, die, part, k, single=False):
        """A single die or an unordered pool, its classes split as this path says."""
        self._note(name, die, k)
        p = self._next()
        if single:
            alts, den = tuple(enumerate(part.weights)), len(die.faces)
        else:
            alts, den = part.alternatives(k)
        shape, w = alts[self._take(p, len(alts))]
        self.w *= w
        self.d *= den
        if single:
            classes = {part.classes[shape]: 1}
        else:
            classes = {c: m for c, m in zip(part.classes, shape) if m}
        for q in self.refs.get(p, ()):
            faces, parts, sizes = self.points[q][1:]
            m = classes.pop(faces)
            alts2, den2 = pool_alternatives(sizes, sum(sizes), m)
            counts, w2 = alts2[self._take(q, len(alts2))]
            self.pre.add(q)
            self.w *= w2
            self.d *= den2
            for c, m2 in zip(parts, counts):
                if m2:
                    classes[c] = m2
        origin = PoolOrigin(self, part, (name, p), classes, self.serial)
        rank = part.rank
        items = sorted(classes.items(), key=lambda cm: rank[cm[0][0]])
        if single:
            c = items[0][0]
            return c[0] if len(c) == 1 else Face(origin, c, c)
        out = PoolList()
        for c, m in items:
            out.extend([c[0] if len(c) == 1 else Face(origin, c, c)] * m)
        out.origin, out.mixed, out.shape = origin, len(items) > 1, tuple(items)
        return out

    def _sequence(self, name, die, part, k):
        """A pool whose order the mechanic reads: k single dice in a row, each split for
        this path only as far as its own uses need (a die tested once against its own
        threshold stays two classes)."""
        self._note(name, die, k, ordered=True)
        p = self.pos
        items = [self._roll(name, die, part, 1, single=True) for _ in range(k)]
        out = PoolList(items)
        out.origin = PoolOrigin(self, part, (name, "sequence", p))
        out.mixed = True
        out.shape = tuple(value_key(x, True) for x in items)
        return out

    def _pick(self, alts, den):
        v, w, tainted = alts[self._take(self._next(), len(alts))]
        self.w *= w
        self.d *= den
        if tainted:
            self.tainted = True
        return v

    def refine(self, origin, faces, keys):
        """Split class `faces` of a roll made on this path: a new choice point."""
        groups = {}
        for f, key in zip(faces, keys):
            groups.setdefault(key, []).append(f)
        parts = tuple(tuple(g) for g in groups.values())
        sizes = tuple(origin.part.size(g) for g in parts)
        alts, _ = pool_alternatives(sizes, sum(sizes), origin.counts[faces])
        q = self._next()
        if q < len(self.path):     # pragma: no cover - replay is deterministic
            raise EvaluationError(f"{self.eng.mech.name}: the exact-odds engine lost its path")
        self._take(q, len(alts))
        self.points[q] = (origin.ident[1], faces, parts, sizes)
        raise _Restart(self)

    def run(self, thunk, keyed=True):
        """[[value, weight, denominator, tainted weight]] over every path of `thunk`:
        the value has probability weight/denominator (integers, to stay fast)."""
        eng = self.eng
        while True:
            out = {}
            path, points = [], {}
            try:
                while True:
                    self.path, self.points, self.pos, self.chosen, self.nalts = path, points, 0, [], []
                    refs = {}
                    for q in sorted(points):
                        if q < len(path):
                            refs.setdefault(points[q][0], []).append(q)
                    self.refs, self.pre = refs, set()
                    self.w, self.d, self.tainted = 1, 1, False
                    self.serial += 1
                    eng.tick()
                    outer, eng.active = eng.active, self
                    try:
                        v = thunk()
                    except _Restart as r:
                        if r.rep is not self:
                            raise
                        path = list(self.chosen)
                        continue
                    finally:
                        eng.active = outer
                    try:
                        k = value_key(v, True) if keyed else None
                    except NoKey:
                        k = None
                    if k is None:
                        k = ("path", len(out))
                    e = out.get(k)
                    w, d = self.w, self.d
                    tw = w if self.tainted else 0
                    if e is None:
                        out[k] = [v, w, d, tw]
                    elif e[2] == d:
                        e[1] += w
                        e[3] += tw
                    else:
                        L = math.lcm(e[2], d)
                        a, b = L // e[2], L // d
                        e[1], e[2], e[3] = e[1] * a + w * b, L, e[3] * a + tw * b
                    chosen, nalts = self.chosen, self.nalts
                    i = len(chosen) - 1
                    while i >= 0 and chosen[i] + 1 >= nalts[i]:
                        i -= 1
                    if i < 0:
                        return list(out.values())
                    path = chosen[:i] + [chosen[i] + 1]
                    points = {q: pt for q, pt in points.items() if q <= i}
            except Refine as r:
                if self in r.tokens:
                    self.origins = {}
                    continue
                raise
