"""The budget of one exact computation: time, memory and work, and the refusal.

Every exact computation runs against a `Budget` (`distribution(..., _budget=...)`,
`Book.odds`, `rules odds --time-limit`, the site's page odds); its `Meter` is what
is spent so far.  Two things keep a refusal quick and informative:

* **Estimates before the work.**  Where the size of what is about to be enumerated
  is known before it is made -- a pool's distinguishable rolls over its classes of
  faces (`multisets.pool_alternatives`, the aggregate fast path), a chain's number
  of terms (`chains.ChainLaw`) -- it is checked against the budget first, and noted
  (`Meter.note`): "sum of 2 d1000: about 500,500 distinguishable rolls".  A size
  past `MAX_ROLLS`, or one that would hold more than the budget's cells, is refused
  at once, before anything is built.
* **A deadline checked in the loops.**  Everything that can take long polls
  `check()`: the engine's evaluations (`engine._Engine.tick`), the multiset and join
  loops of the fast path, the chain terms, the making of alternatives.  No signals
  and no threads: the check is a clock read every few hundred steps, so a refusal
  comes within milliseconds of the deadline, from whatever thread asked.

The refusal (`TooLarge`) names the computation, what ran out, the largest thing the
estimates saw, and what to try (fewer dice, a roll given by name, more time).

The meter in use is kept in a context variable, so the deep loops need no extra
arguments, and two computations in two threads (a language server, a site build
with workers) each see their own.
"""
from __future__ import annotations

import contextvars
import dataclasses
import time

from ..errors import RulesError

class TooLarge(RulesError):
    """An exact computation went over its budget (`rules_dsl.odds.budget`): `reason`, what
    ran out; `largest`, the largest size its estimates saw, as (size, words) or None;
    `subject`, the computation (`book:mechanic(inputs)`), and `hints`, what to try, once
    `distribution` has said them.  One line: "big:sum_pool(n=2) is too large for exact
    odds: it takes more than 5 s; sum of 2 d1000: about 500,500 distinguishable rolls;
    try fewer dice (n=1), ..."."""

    def __init__(self, reason: str, largest=None, subject: str = "", hints=(), kind: str = "size"):
        self.reason, self.largest, self.subject, self.hints = reason, largest, subject, tuple(hints)
        self.kind = kind         # what ran out: "time", "work" (evaluations), "memory" or "size" (an estimate)
        super().__init__(self._text())

    def _text(self) -> str:
        head = f"{self.subject} is too large for exact odds" if self.subject else "too large for exact odds"
        text = f"{head}: {self.reason}"
        if self.largest is not None:
            text += f"; {self.largest[1]}"
        if self.hints:
            text += "; try " + ", ".join(self.hints[:-1]) + (" or " if len(self.hints) > 1 else "") + self.hints[-1]
        return text

    def about(self, subject: str, hints=()) -> "TooLarge":
        """The same refusal, saying which computation it was and what to try."""
        return TooLarge(self.reason, self.largest, subject or self.subject, tuple(hints) or self.hints, self.kind)

    def __reduce__(self):
        return (TooLarge, (self.reason, self.largest, self.subject, self.hints, self.kind))


DEFAULT_SECONDS = 5.0        # a few seconds: `rules odds` answers or refuses in about this
DEFAULT_CELLS = 4_000_000    # values held at once (alternatives x classes, memo entries, outcomes)
DEFAULT_EVALUATIONS = 2_000_000   # the engine's evaluations of a statement (page odds budget in them)
MAX_ROLLS = 1_000_000        # distinguishable rolls of one roll: more is refused before it is made


@dataclasses.dataclass(frozen=True)
class Budget:
    """What one exact computation may spend: `seconds` of wall time (None: no deadline);
    `cells` of memory (values held at once: a pool's alternatives times its classes,
    memo entries, outcomes); and two counts of work, the same on every machine:
    `evaluations` (of a statement by the engine: the unit the site's page odds share
    out) and `steps` (every unit of work the loops count: an evaluation, a face of a
    class a use is tried on, a multiset made, a join; None: no limit), which bound a
    computation whose evaluations are slow without reading a clock."""
    seconds: float | None = DEFAULT_SECONDS
    cells: int = DEFAULT_CELLS
    evaluations: int = DEFAULT_EVALUATIONS
    steps: int | None = None

    def meter(self) -> "Meter":
        return Meter(self)


class Deadline:
    """One time limit for everything a command computes: `rules odds` (with its `--vs`
    variants, `--explain` twin or `--sweep` rows), `rules cost`'s cases, `rules diff`.
    `--time-limit SECONDS` makes one (`seconds`; None: no limit) when the command starts,
    and every computation of the command takes its meter from it (`meter`), so that the
    whole command ends within the limit, however many rows it has: a 1001-row sweep
    shares the one limit rather than taking a limit per row.  A row begun after the time
    ran out is not computed, and says so in the same words everywhere (`not_reached`).
    Public: every face (the odds, the cost views, the diff) keeps to it."""
    __slots__ = ("seconds", "start", "at")

    def __init__(self, seconds: float | None = DEFAULT_SECONDS):
        self.seconds = seconds
        self.start = time.monotonic()
        self.at = None if seconds is None else self.start + seconds

    def left(self) -> float | None:
        """Seconds left (0 once past), or None without a limit."""
        return None if self.at is None else max(0.0, self.at - time.monotonic())

    @property
    def expired(self) -> bool:
        return self.at is not None and time.monotonic() >= self.at

    def budget(self, base: Budget | None = None) -> Budget:
        """`base` (memory and work; default `Budget()`) with this limit's seconds."""
        return dataclasses.replace(base or Budget(), seconds=self.seconds)

    def meter(self, base: Budget | None = None) -> "Meter":
        """A meter for one computation that stops at this deadline (not `seconds` from now)."""
        return Meter(self.budget(base), deadline=self)

    def words(self) -> str:
        """"the time limit of 1 s": how every refusal names the limit."""
        return f"the time limit of {_seconds(self.seconds)}"

    def not_reached(self) -> str:
        """What a row, variant or case begun after the time ran out says instead of a result."""
        return f"not computed: {self.words()} ran out before it was reached"


class Meter:
    """What a computation has spent of its `Budget`, and the largest sizes seen so far.
    With a `deadline` (a `Deadline` shared by a whole command) it stops at that deadline;
    else `budget.seconds` from now."""
    __slots__ = ("budget", "start", "deadline", "cells", "steps", "largest", "_next", "shared", "_ticks")

    def __init__(self, budget: Budget | None = None, deadline: Deadline | None = None):
        self.budget = budget or Budget()
        self.start = time.monotonic()
        s = self.budget.seconds
        self.shared = deadline
        if deadline is not None:
            self.deadline = deadline.at
        else:
            self.deadline = None if s is None else self.start + s
        self.cells = 0
        self.steps = 0
        self.largest = None          # (size, what) of the largest estimate noted
        self._next = 0
        self._ticks = 0

    # -- time and steps
    def check(self):
        """Refuse when past the deadline (a clock read) or past the steps."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise self.refusal(self._late(), "time")
        limit = self.budget.steps
        if limit is not None and self.steps > limit:
            raise self.refusal(f"it takes more than {limit:,} steps", "work")

    def _late(self) -> str:
        """Why the time ran out: the whole limit, or what was left of a shared one."""
        d = self.shared
        if d is not None and d.seconds is not None and self.start - d.start > 0.05 * d.seconds:
            left = max(0.0, d.at - self.start)
            return f"it takes more than the {left:.2g} s left of {d.words()}"
        return f"it takes more than {_seconds(self.budget.seconds)}"

    def poll(self, every: int = 256):
        """One step of work; `check` every `every` steps: for the innermost loops."""
        self.steps += 1
        if self.steps >= self._next:
            self._next = self.steps + every
            self.check()

    def tick(self, every: int = 256):
        """A clock read every `every` calls, counting no step: for work too small to count
        as a step (an operation on a few faces of a stand-in) that can still be done a
        million times, so that it stops at the deadline too; the steps, and so the
        site's tables counted in them, stay as they were."""
        self._ticks += 1
        if self._ticks >= every:
            self._ticks = 0
            if self.deadline is not None and time.monotonic() > self.deadline:
                raise self.refusal(self._late(), "time")

    # -- memory
    def hold(self, cells: int):
        """Count `cells` more values held; refuse past the budget (before they are made)."""
        if self.cells + cells > self.budget.cells:
            raise self.refusal(f"it would hold more than {self.budget.cells:,} values at once", "memory")
        self.cells += cells

    def release(self, cells: int):
        self.cells = max(0, self.cells - cells)

    # -- what was large
    def note(self, what: str, size: int, unit: str = "distinguishable rolls"):
        """Remember an estimate ("sum of 2 d1000", 500500 distinguishable rolls): the
        largest is what a refusal names."""
        if self.largest is None or size > self.largest[0]:
            self.largest = (size, f"{what}: about {size:,} {unit}")

    def refusal(self, reason: str, kind: str = "size") -> TooLarge:
        return TooLarge(reason, self.largest, kind=kind)


def refuse(reason: str, what: str, size: int, unit: str = "distinguishable rolls") -> TooLarge:
    """A refusal decided by an estimate, before the work: noted on the meter in use."""
    m = _CURRENT.get()
    if m is None:
        return TooLarge(reason, (size, f"{what}: about {size:,} {unit}"))
    m.note(what, size, unit)
    return m.refusal(reason)


def note(what: str, size: int, unit: str = "distinguishable rolls"):
    """`Meter.note` on the meter in use (nothing outside a computation)."""
    m = _CURRENT.get()
    if m is not None:
        m.note(what, size, unit)


def hold(cells: int):
    """`Meter.hold` on the meter in use, if any (else: always allowed)."""
    m = _CURRENT.get()
    if m is not None:
        m.hold(cells)


def _seconds(s) -> str:
    return f"{s:g} s" if s is not None else "its time"


_CURRENT: contextvars.ContextVar = contextvars.ContextVar("rules_dsl_odds_meter", default=None)


def current() -> Meter | None:
    """The meter of the computation running in this context, if any."""
    return _CURRENT.get()


def check():
    """The deadline check of the computation in progress (nothing outside one)."""
    m = _CURRENT.get()
    if m is not None:
        m.check()


class using:
    """`with using(meter):` the meter of the computation inside."""
    __slots__ = ("meter", "_token")

    def __init__(self, meter: Meter):
        self.meter = meter

    def __enter__(self):
        self._token = _CURRENT.set(self.meter)
        return self.meter

    def __exit__(self, *exc):
        _CURRENT.reset(self._token)
        return False


def pool_words(k: int, die_name: str) -> str:
    """`2 d1000`, `a d6`: a pool as a player says it."""
    return f"a {die_name}" if k == 1 else f"{k} {die_name}"
