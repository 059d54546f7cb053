"""Exact odds: the distribution of a dice mechanic's result, in exact fractions.

    >>> dist = distribution(book.mechanics["sustained"], n=20)     # doctest: +SKIP
    >>> dist.mean, dist.probability(lambda v: v >= 10)               # doctest: +SKIP

`distribution(mechanic, **inputs)` checks the inputs as a call does (InputError
names the parameter; a roll's name fixes that roll, as in a call), raises NoDice for
a mechanic that rolls nothing, and returns a `Distribution`.  The website's
choice of inputs per mechanic is `rules_dsl.odds.page_inputs.page_odds`
(re-exported here as `page_odds`).

How it works
============
The engine runs the mechanic's own compiled closures, handing them a roller that
enumerates instead of rolling, so nothing is re-implemented and every rule of the
language (tables, nested mechanics, `require`, enums...) behaves exactly as in a call.

* **Statements.**  The mechanic's statements are evaluated one at a time.  A `roll`
  is made inside the statement that first reads it (independent rolls may be taken
  in any order), and the result of the statements still to run is memoised on the
  values of the names they read, so a later roll is enumerated once per distinct
  state (`roll second: (n - hits) of dust` once per `hits`), not once per earlier
  roll.
* **Aggregates** (`aggregates`).  A statement that reads its pools only through
  `count`, `sum`, `max`, `min`, `len`, `any` or `all` over comprehensions (after
  inlining the dice-free mechanics it calls) is not replayed at all: each pool is
  enumerated on its own, over the classes of faces its tests cannot tell apart, once
  per value of the other pools' aggregates that it reads, and the results are
  joined by those values.  Everything below applies to the other statements.
* **Replay.**  Within one statement (which may call mechanics that roll), the roll
  calls form a tree, walked depth-first by re-evaluating the statement: each choice
  point beyond the recorded path takes its first alternative and records the others.
  Repeated calls of a rolling mechanic are independent dice, as in a random call.
* **Face classes.**  A pool is enumerated as a multiset, weighted by multinomial
  coefficients, and not over faces but over *classes* of faces that the mechanic
  cannot tell apart.  A die in a class of several faces is handed over as a stand-in
  (`Face`) that carries every face of its class and checks each use: a comparison,
  membership test (through the compiler's hook, rule 3 of the stand-in protocol in `rules_dsl.language.symbolic`) or conversion that
  gives the same answer for every face of the class is answered; one that does not
  splits the class.  While the statement that rolled it is being evaluated, the split
  is made for the current path only: it is a new choice point (how many of the
  class's dice fall in each part), and the statement is evaluated again along the
  longer path.  (A stand-in used after its statement splits the roll's classes for
  every path, and that enumeration restarts.)  A comparison of two stand-ins that
  depends on both peels the highest face off one class (the lowest, for `<` of a
  class with itself), which amounts to a sweep from the top; `max` and `min` compare
  only distinct stand-ins, so a `max` is decided only as far as it is used.
  Arithmetic on a stand-in gives a stand-in.  A class of one face is handed over as
  the plain face, so results never hold a stand-in.  So `count(f for f in dice if
  f == army)` sees two classes ({army}, {target, shield}): 21 outcomes for 20 dice
  instead of 231 multisets or 3^20 sequences.  A comprehension over a pool evaluates
  its (dice-free) body once per run of identical dice.
* **Pool order.**  The pool is handed over in a canonical order (by face class).
  That is exact for everything that does not read the order: a static pass
  (`_OrderAnalysis`) follows each pool through lets, comprehensions, `+` and calls,
  and a pool whose order is read -- a list following its order is indexed or
  compared, directly or in a called mechanic -- is made as that many single dice in
  a row instead, each split per path as its own uses need (an index on the pool
  itself is also caught at run time).  A result that
  just lists something per die in pool order is therefore shown in that canonical
  order: [ignored, pinned] stands for either order.
* **Chains** (`chain [COUNT] of DIE on A then B`) are not enumerated roll by roll:
  their count of successes has a closed form.  One chain scores 0 with probability
  1-p1 and k >= 1 with p1 * p2^(k-1) * (1-p2); COUNT chains score the sum: with B
  of them starting (binomial), the rest is negative binomial, so
  P(S=s) = sum_b C(m,b) p1^b (1-p1)^(m-b) C(s-1,b-1) p2^(s-b) (1-p2)^b.
  The values 0..K-1 are alternatives with these exact probabilities and the rest is
  one stand-in (`Tail`) for "K or more" carrying the exact tail mass 1 - P(S<K).
  Comparisons and affine arithmetic (+, -, * by a number) on it are answered when
  they agree over the whole tail, else K grows (up to 4 K_max + 64, see below).  A
  result that is (an affine image of) the tail itself becomes a final bucket
  "n or more" (`OrMore`) whose mass and contribution to the mean (from the exact
  conditional mean E[S | S >= K], with E[S] = m p1 / (1 - p2)) are exact; K is
  first grown until that tail mass is below 1e-12 so the table is informative.
  Only a use that no reasonable K settles (the chain's value as a pool size, `%`,
  `even`, a set lookup...) *truncates*: the tail is read as the single value
  K_max, the first K whose tail mass is below 1e-12, i.e. the engine computes
  f(min(S, K_max)).  The exact probability of the paths that went through such a
  truncation is `Distribution.error_bound` (a bound on the total variation distance
  to the true law; K_max is tightened if several truncations add up past 1e-12)
  and `exact` is False.  Either way the probabilities sum to exactly 1.

* **Re-rolls** (`DICE reroll FACES`) are rolls of the die of kept faces
  (`dice.rerolled_die`: P(f) [f not in FACES] + P(FACES) P(f), as a die with
  repeated faces), so pools of them take every path above, the aggregate fast path
  included.
* **Exploding pools** (`DICE explode on FACES [up to N]`, at most N extra dice) are
  three pools (`dice.explode_law`): with p the chance of an exploding face, X extra
  dice before the COUNT-th other face is negative binomial; X < N gives X dice of the
  exploding faces and COUNT of the others, else the N-th exploding face came after
  j < COUNT others (probability C(N-1+j, j) p^N (1-p)^j) and the pool is N, j and
  COUNT - j dice of any face.  The sizes are one choice point, each part is enumerated
  over its own face classes, and the faces are handed over as one pool in the
  canonical order.  The law is exact for the capped rule; `Distribution.explode_caps`
  holds, per roll, N and P(X > N), how often dice that explode forever would differ.
  An exploding pool whose order is read has no exact odds (EvaluationError).

Everything else is exact rational arithmetic: path weights are integers over a
common denominator while enumerating, `fractions.Fraction`s in the result.

Every computation runs within a budget (`budget`: `Budget(seconds, cells,
evaluations, steps)`, by default a few seconds): sizes known before the work (a
pool's distinguishable rolls over its classes, a chain's terms) are checked first and
a roll of more than a million distinguishable outcomes, or a summed pool of more
than 200,000, is refused before it is made; the rest stops at the deadline, which
the loops poll.  The refusal, TooLarge (a RulesError), says what was too large and
what to try: "big:one(n=2) is too large for exact odds: ...; sum of 2 d1000: about
500,500 distinguishable rolls; try fewer dice (a smaller n), ...".

The package, one module per part
================================
* `result`     -- `Distribution` (outcomes, mean, `error_bound`, `table()`, `as_json()`),
  `OrMore`, `NoDice`, `value_key` (the exact keys of values), and the order outcomes are shown in;
* `budget`     -- `Budget`, its `Meter`, and the refusal `TooLarge`;
* `standins`   -- the stand-ins `Face`, `Tail`, `PoolList` (protocol: `rules_dsl.language.symbolic`);
* `multisets`  -- face classes (`Partition`), pools as weighted multisets, `PoolOrigin`;
* `chains`     -- the closed-form law of a chain's successes and its tail's origin;
* `replay`     -- `Replay`, the enumerating roller;
* `plan`       -- `_Plan` (statement order, groups, what is read later), `RunsCompiler`
  (the engine's `ExprCompiler` subclass), `_OrderAnalysis` (pools whose order is read);
* `engine`     -- `_Engine` and `distribution`;
* `budget`     -- `Budget` and `Meter`: what a computation may spend, the estimates, the refusal;
  `Deadline`: one time limit shared by every computation of a command;
* `page_inputs` -- `page_odds`: the inputs a mechanic's web page shows odds for (was `sphinxext.page_odds`);
* `aggregates` -- the fast path for statements that read pools through aggregates
  (formerly `rules_dsl.odds_pools`, still importable under that name): the law from a plan;
* `aggregate_plan` -- its analysis: whether a statement reads its pools only through
  aggregates, and its `PoolPlan`.
"""
from __future__ import annotations

from .budget import Budget, Deadline
from .engine import MAX_EVALUATIONS, distribution
from .result import TAIL_EPS, Distribution, NoDice, OrMore, TooLarge, side_by_side

__all__ = ["distribution", "page_odds", "side_by_side", "Distribution", "OrMore", "NoDice", "TooLarge",
           "Budget", "Deadline", "MAX_EVALUATIONS", "TAIL_EPS"]

for _cls in (Distribution, NoDice, OrMore, TooLarge, Budget, Deadline):     # shown (and pickled) at their public path
    _cls.__module__ = __name__
del _cls


def __getattr__(name):
    # the choice of inputs a mechanic's page shows (page_inputs.py), imported on first use
    if name in ("page_odds", "PAGE_BUDGET"):
        from . import page_inputs as _page_inputs
        return getattr(_page_inputs, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
