"""Exact odds in worked examples: `>>> chance(CONDITION)` and `>>> mean(EXPRESSION)`.

A book prints odds ("three dice at 4+ score two hits or more half the time"); an
example states them and `rules check`, pytest and the docs build verify them like
any other number::

    >>> chance(hits(3, 4) >= 2)
    1/2
    >>> mean(hits(3, 4))
    3/2
    >>> chance(nerve_test(7, reroll=true))
    about 82.6%

`chance(C)` is the exact probability that the condition C holds, over every roll
the mechanics it calls make (rolls it gives by name stay fixed); `mean(E)` the
exact mean of E.  Both are a whole `>>>` line: they are not functions of the
language (a mechanic works with one roll of its dice, never with all of them).
The expected value is exact (`1/2`, `0.5`) or rounded as a book prints it
(`about 82.6%`, `about 1.33`: the exact value, rounded to the places written).

The exact-odds engine computes them (`rules_dsl.odds`) within a budget: past it,
the example fails with a clear message, never a hang.  A name a book declares
itself (a mechanic called `mean`) keeps its meaning.
"""
from __future__ import annotations

import time
from fractions import Fraction

from ..language import nodes as n
from ..errors import EvaluationError
from ..analysis.resolve import FORMS, form_name, form_of  # noqa: F401  (the forms are resolution's; re-exported)

EVALUATIONS = 300_000        # the engine's evaluations for one example line
SECONDS = 20.0               # and its time, on a loaded machine


def evaluate(compiled, form: str, inner) -> Fraction:
    """The exact chance or mean, or EvaluationError (no dice, too large, not a condition)."""
    from ..compiler.mechanics import MechanicFn
    from ..odds import distribution
    from ..odds.result import NoDice, TooLarge
    from ..language.values import number

    returns = n.NamedType(inner.span, "bool" if form == "chance" else "number")
    twin = MechanicFn(compiled, n.Mechanic(inner.span, form, (), returns, "", (), inner))
    if not twin.has_dice:
        raise EvaluationError(f"{form}(...) needs dice: this expression rolls none, so it has one value; "
                              "write it as a plain example line")
    try:
        dist = distribution(twin, _deadline=time.monotonic() + SECONDS, _max_evals=EVALUATIONS)
    except NoDice as e:      # pragma: no cover - has_dice said otherwise
        raise EvaluationError(str(e)) from None
    except TooLarge:
        raise EvaluationError(f"the exact odds of this {form}(...) take more than an example's budget "
                              f"({EVALUATIONS:,} evaluations or {SECONDS:.0f} s): give an example fewer dice") from None
    if form == "chance":
        return number(dist.probability(True))
    if dist.mean is None:
        raise EvaluationError("mean(...) needs a number: this expression gives "
                              + ", ".join(str(v) for v, _ in dist.outcomes[:3]))
    return number(dist.mean)


def about(value, approx: "n.Approx") -> bool:
    """Does `value` (a number) round to what `about X[%]` says, to its places?"""
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
        return False
    x = Fraction(value) * (100 if approx.percent else 1)
    half = Fraction(1, 2 * 10 ** approx.places)
    return approx.value - half <= x <= approx.value + half
