"""The evaluation context every compiled closure receives, and the limits on one evaluation."""
from __future__ import annotations

import contextvars
import time
from typing import Protocol

from ..language import nodes as n
from ..language.limits import MAX_CALL_DEPTH, MAX_RANGE as MAX_RANGE   # shared with the checks (analysis/); re-exported
from ..errors import Diagnostic, EvaluationError


def fail(span: n.Span, msg: str):
    """Stop an evaluation with an `EvaluationError` that names the place (`file:line:col`).

    Every compiled closure reports a run-time problem through this, so back ends that
    compile closures of their own (odds, explain) say errors the same way."""
    raise EvaluationError(f"{span}: {msg}")


class BookParts(Protocol):
    """What a compiled piece (mechanic, table, check, design view, type check) reads of
    the book that compiles it.  `compiler.book.CompiledBook` is the one implementation;
    the protocol sits here, below the pieces, so they name the book's type without
    importing the module that builds them (which would be an import circle)."""
    book_id: str
    syms: object          # the checked book's `symbols.Symbols`
    texts: dict
    enums: dict
    dice: dict
    members: dict
    tables: dict
    mechanics: dict
    looked_up: set

    def const(self, name: str): ...

    def diag(self, span: n.Span, msg: str, hint: str = "") -> Diagnostic: ...


class Invocable:
    """A compiled mechanic as the expression compiler sees a value it may call: `bind`
    the call's arguments, then `invoke` with a context.  `mechanics.MechanicFn` is the
    one subclass; declaring the base here lets `expressions.py` (which `mechanics.py`
    imports) recognise a mechanic passed as a value without importing it back."""
    name: str

    def bind(self, args, kwargs) -> dict:
        raise NotImplementedError

    def invoke(self, bound: dict, ctx: "Ctx"):
        raise NotImplementedError


# Explicit limits on one evaluation, so a hostile or mistaken book ends with a clear
# error instead of a hang: how deep mechanics may call each other, and how many
# steps (mechanic calls and comprehension items) one top-level call may take
# (MAX_CALL_DEPTH and MAX_RANGE: language/limits.py, imported above).
MAX_STEPS = 100_000          # the real books' heaviest evaluation takes 56
MAX_CHECK_CASES = 200_000    # the real books' largest check domain has 100 cases
UNLIMITED = None  # pass as `budget` where another guard bounds the work (the odds engine)


#: the deadline every evaluation in this context keeps to (an `odds.Deadline`: `.at`, a
#: `time.monotonic()` or None, and `.words()`), set by `within`; None: steps only
_DEADLINE: contextvars.ContextVar = contextvars.ContextVar("rules_dsl_evaluation_deadline", default=None)
CLOCK_EVERY = 1024           # steps between two reads of the clock, when a deadline is set


class within:
    """`with within(deadline):` every evaluation inside also stops at `deadline` (the
    command's one time limit, `rules call/explain --time-limit`), read every
    `CLOCK_EVERY` steps: the count of steps is the same on every machine, the time is
    what a person waits."""
    __slots__ = ("deadline", "_token")

    def __init__(self, deadline):
        self.deadline = deadline

    def __enter__(self):
        self._token = _DEADLINE.set(self.deadline)
        return self.deadline

    def __exit__(self, *exc):
        _DEADLINE.reset(self._token)
        return False


def _past_deadline():
    d = _DEADLINE.get()
    if d is not None and d.at is not None and time.monotonic() > d.at:
        raise EvaluationError(f"the evaluation takes more than {d.words()} (mechanic calls and list items)")


class Ctx:
    """Evaluation context: the roller, the prefix naming nested mechanics' rolls, and
    the step budget shared by every call made under one top-level evaluation.

    `reads`, when a list, collects the table entries that expressions evaluated in
    this very context look up (`(table, entry index)`): a check sets it to learn which
    printed values a case read.  Nested mechanics get a fresh context without it, so
    only the check's own lookups count, and ordinary calls pay one `is None` test.

    `calls` counts the calls this invocation has made of each mechanic, so that the
    rolls of its second call of `attack` are `attack[1].hit_dice` (rules_dsl.language.rollpaths)."""
    __slots__ = ("roller", "prefix", "depth", "budget", "reads", "calls")

    def __init__(self, roller, prefix="", depth=0, budget=False, reads=None):
        self.roller, self.prefix, self.depth, self.reads = roller, prefix, depth, reads
        self.budget = [MAX_STEPS] if budget is False else (budget if budget is not None else [float("inf")])
        self.calls = None

    def child_prefix(self, name) -> str:
        """The roll-name prefix of the call of `name` this invocation is making now."""
        calls = self.calls
        if calls is None:
            calls = self.calls = {}
        k = calls.get(name, 0)
        calls[name] = k + 1
        return f"{self.prefix}{name}." if k == 0 else f"{self.prefix}{name}[{k}]."

    def child(self, name):
        if self.depth >= MAX_CALL_DEPTH:
            chain = [p for p in (self.prefix + name).split(".") if p][-6:]
            raise EvaluationError(f"mechanics call each other more than {MAX_CALL_DEPTH} levels deep "
                                  f"(... {' -> '.join(chain)}): a mechanic that calls itself never ends")
        self.spend(1)
        return Ctx(self.roller, self.child_prefix(name), self.depth + 1, self.budget)

    def spend(self, steps):
        b = self.budget
        b[0] -= steps
        if b[0] < 0:
            raise EvaluationError(f"the evaluation takes more than {MAX_STEPS:,} steps (mechanic calls and "
                                  "list items); is a mechanic calling others in a loop?")
        if b[0] % CLOCK_EVERY < steps:      # a multiple of CLOCK_EVERY passed (never for an unlimited budget)
            _past_deadline()
