"""Chains (`chain [COUNT] of DIE on A then B`): the closed-form law of their count of
successes (`_ChainLaw`, see the package docstring) and the origin of a chain's
"K or more" stand-in (`_ChainOrigin`), which can grow K."""
from __future__ import annotations

import math

from . import budget
from .result import ZERO
from .standins import _Refine

MAX_TERMS = 5_000        # terms of a chain's law (K_max): more is refused before the first


def _chance(p) -> str:
    """`2 times in 3`: a probability as a player says it."""
    return f"{p.numerator} {'time' if p.numerator == 1 else 'times'} in {p.denominator}"


# ================================================================== chains
class _ChainLaw:
    """The exact law of the total successes S of m chains (first roll succeeds with
    probability p1, later rolls with p2).  `pmf` is extended on demand; `K_max` is the
    first K with P(S >= K) < eps; `cap` is how far comparisons may grow K."""

    def __init__(self, m, p1, p2, eps):
        self.m, self.p1, self.p2 = m, p1, p2
        self.finite = p1 == 0 or p2 == 0 or m == 0
        q1, q2 = 1 - p1, 1 - p2
        self.pmf = [q1 ** m]
        self.total = self.pmf[0]
        if self.finite:
            if p1 != 0 and m:     # p2 == 0: S is binomial(m, p1)
                self.pmf = [math.comb(m, s) * p1 ** s * q1 ** (m - s) for s in range(m + 1)]
            self.K_max = self.cap = len(self.pmf)
            self.mean = sum((s * p for s, p in enumerate(self.pmf)), ZERO)
            return
        self.mean = m * p1 / q2
        # the terms needed, known before one is computed: the tail falls like p2^K, so
        # about log(eps) / log(p2) of them, more with more chains (each term is a sum of
        # m fractions whose size grows with K: past MAX_TERMS, refused unmade)
        if p2 > 0:
            terms = math.ceil(math.log(float(eps)) / math.log(float(p2)) + m / float(q2))
            budget.note(f"{'a chain' if m == 1 else f'{m} chains'} going on {_chance(p2)}", terms, "terms")
            if terms > MAX_TERMS:
                raise budget.refuse(f"more than {MAX_TERMS:,} terms of a chain's law",
                                    f"{'a chain' if m == 1 else f'{m} chains'} going on {_chance(p2)}", terms,
                                    "terms")
        self._b = [math.comb(m, b) * (p1 * q2) ** b * q1 ** (m - b) for b in range(m + 1)]
        while 1 - self.total >= eps:
            self._more()
        self.K_max = len(self.pmf)
        self.cap = 4 * self.K_max + 64

    def _more(self):
        if self.finite:
            self.pmf.append(ZERO)
            return
        # P(S=s) = sum_b C(m,b) p1^b q1^(m-b) C(s-1,b-1) p2^(s-b) q2^b
        budget.check()
        s, m, p2 = len(self.pmf), self.m, self.p2
        p = ZERO
        for b in range(1, min(m, s) + 1):
            p += self._b[b] * math.comb(s - 1, b - 1) * p2 ** (s - b)
        self.pmf.append(p)
        self.total += p

    def upto(self, K):
        """P(S=s) for s < K, and P(S >= K)."""
        while len(self.pmf) < K:
            self._more()
        pm = self.pmf[:K]
        return pm, 1 - sum(pm, ZERO)

    def cond_mean(self, K):
        """E[S | S >= K]."""
        pm, t = self.upto(K)
        return (self.mean - sum((s * p for s, p in enumerate(pm)), ZERO)) / t


class _ChainState:
    __slots__ = ("K", "collapsed")

    def __init__(self):
        self.K, self.collapsed = 1, False


class _ChainOrigin:
    __slots__ = ("token", "state", "law")

    def __init__(self, token, state, law):
        self.token, self.state, self.law = token, state, law

    def grow(self, K):
        if K > self.law.cap:
            self.state.collapsed = True
        else:
            self.state.K = max(self.state.K, K)
        raise _Refine({self.token})

    def collapse(self):
        self.state.collapsed = True
        raise _Refine({self.token})
