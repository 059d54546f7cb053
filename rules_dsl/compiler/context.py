"""The evaluation context every compiled closure receives, and the limits on one evaluation."""
from __future__ import annotations

from .. import nodes as n
from ..errors import EvaluationError


def _fail(span: n.Span, msg: str):
    raise EvaluationError(f"{span}: {msg}")


# Explicit limits on one evaluation, so a hostile or mistaken book ends with a clear
# error instead of a hang: how deep mechanics may call each other, and how many
# steps (mechanic calls and comprehension items) one top-level call may take.
MAX_CALL_DEPTH = 50
MAX_STEPS = 100_000          # the real books' heaviest evaluation takes 56
MAX_RANGE = 1_000_000
MAX_CHECK_CASES = 200_000    # the real books' largest check domain has 100 cases
UNLIMITED = None  # pass as `budget` where another guard bounds the work (the odds engine)


class Ctx:
    """Evaluation context: the roller, the prefix naming nested mechanics' rolls, and
    the step budget shared by every call made under one top-level evaluation.

    `reads`, when a list, collects the table entries that expressions evaluated in
    this very context look up (`(table, entry index)`): a check sets it to learn which
    printed values a case read.  Nested mechanics get a fresh context without it, so
    only the check's own lookups count, and ordinary calls pay one `is None` test.

    `calls` counts the calls this invocation has made of each mechanic, so that the
    rolls of its second call of `attack` are `attack[1].hit_dice` (rules_dsl.rollpaths)."""
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
