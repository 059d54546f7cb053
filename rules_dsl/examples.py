"""Running worked examples: the one evaluator behind `rules check`, pytest, the API and the site.

Each case's expression and expected value were parsed by the book grammar and
checked with the book (example_parser.py, checks_examples.py); here they are
compiled to closures by the same compiler as mechanics and evaluated against
the compiled book.  Nothing is handed to Python's doctest, eval or exec.

Values are compared as language values: `true` is not `1`, an enum member is
not the text of its name, 7/2 equals 7/2 whatever its Python type; a mismatch
reports expected and got at the case's file:line:column.  Dice that an example
does not give are rolled from a fixed seed, so an example is repeatable.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction

from . import nodes as n
from .errors import InputError, RulesError
from .values import ABSENT, Record, Sym, literal

@dataclass(frozen=True)
class CaseResult:
    location: str        # file:line:column of the `>>>` expression
    source: str
    expected: str
    got: str
    passed: bool


@dataclass(frozen=True)
class ExampleResult:
    book: str
    rule: str
    title: str
    location: str        # file:line of the example's first line
    passed: bool
    report: str          # empty when passed; else every failing case, expected vs got
    cases: tuple = ()    # of CaseResult


def same(got, want) -> bool:
    """Equality of language values (strict about kinds: true is not 1, a member is not text)."""
    if want is ABSENT or got is ABSENT:
        return got is want
    if isinstance(want, bool) or isinstance(got, bool):
        return type(got) is type(want) and got == want
    if isinstance(want, (int, Fraction)) and not isinstance(want, bool):
        return isinstance(got, (int, Fraction)) and not isinstance(got, bool) and got == want
    if isinstance(want, str) or isinstance(got, str):
        return (isinstance(got, str) and isinstance(want, str) and isinstance(got, Sym) == isinstance(want, Sym)
                and str(got) == str(want))
    if isinstance(want, range):
        want = list(want)
    if isinstance(got, range):
        got = list(got)
    if isinstance(want, (list, tuple)):
        return (isinstance(got, (list, tuple)) and len(got) == len(want)
                and all(same(g, w) for g, w in zip(got, want)))
    if isinstance(want, (set, frozenset)):
        if not isinstance(got, (set, frozenset)) or len(got) != len(want):
            return False
        return all(any(same(g, w) for g in got) for w in want)
    if isinstance(want, Record):
        if not isinstance(got, Record):
            return False
        a, b = got.as_dict(), want.as_dict()
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return got == want


class ExampleRunner:
    """Compiles a book's example cases once and runs them."""

    def __init__(self, book_id: str, compiled):
        self.book_id, self.compiled = book_id, compiled

    def run(self, rule_id: str, example: n.Example) -> ExampleResult:
        results = tuple(self.run_case(c) for c in example.cases)
        failed = [r for r in results if not r.passed]
        report = "\n".join(
            f"{r.location}: >>> {r.source}\n    expected: {r.expected}\n    got:      {r.got}" for r in failed)
        return ExampleResult(self.book_id, rule_id, example.title, f"{example.span.file}:{example.first_line}",
                             not failed and bool(results), report or ("" if results else "no cases"), results)

    def run_case(self, case: n.ExampleCase) -> CaseResult:
        from .compiler import Ctx, compile_expr
        from .dice import GivenRoller

        where = f"{case.span.file}:{case.span.line}:{case.span.column}"

        def result(passed, got):
            return CaseResult(where, case.source, case.expected_text, got, passed)

        try:
            ctx = Ctx(GivenRoller(rng=random.Random(0)))
            value = _guarded(lambda: compile_expr(self.compiled, case.expr, frozenset())({}, ctx))
        except InputError as e:
            if case.error is not None and case.error.kind == "InputError":
                ok = e.param == case.error.param and _contains(str(e), case.error.detail)
                return result(ok, f"InputError: {e.param} ({e})")
            if case.error is not None:
                return result(_contains(str(e), case.error.detail), f"Error: {e}")
            return result(False, f"InputError: {e.param} ({e})")
        except RulesError as e:
            if case.error is not None and case.error.kind == "Error":
                return result(_contains(str(e), case.error.detail), f"Error: {e}")
            return result(False, f"Error: {e}")
        if case.error is not None:
            return result(False, literal(value))
        try:
            want = _guarded(lambda: compile_expr(self.compiled, case.expected, frozenset())({}, Ctx(GivenRoller())))
        except RulesError as e:
            return result(False, f"{literal(value)} (the expected value cannot be evaluated: {e})")
        return result(same(value, want), literal(value))


def _contains(message: str, detail: str) -> bool:
    squash = " ".join
    return not detail or squash(detail.split()) in squash(message.split())


def _guarded(thunk):
    """Run an evaluation; a Python-level failure becomes one of our errors, never a traceback."""
    from .errors import EvaluationError

    try:
        return thunk()
    except RulesError:
        raise
    except RecursionError:
        raise EvaluationError("the evaluation nests too deeply (a mechanic calling itself?)") from None
    except (ArithmeticError, MemoryError, ValueError, TypeError) as e:
        raise EvaluationError(f"cannot evaluate: {type(e).__name__}: {e}") from None
