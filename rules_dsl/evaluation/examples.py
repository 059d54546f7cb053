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

from ..language import nodes as n
from ..errors import InputError, RulesError
from ..language.values import ABSENT, Record, Sym, literal

@dataclass(frozen=True)
class CaseResult:
    location: str        # file:line:column of the `>>>` expression
    source: str
    expected: str
    got: str
    passed: bool
    hint: str = ""       # for a failure: what to change, in the author's terms
    line: int = 0
    column: int = 0

    def render(self) -> str:
        """The failure as a diagnostic: where, the example line with a caret, expected vs got, one hint."""
        gutter = f"{self.line:>4}" if self.line else "    "
        out = [f"{self.location}: this example fails",
               f"{gutter} | >>> {self.source}",
               "     |     ^",
               f"    expected: {self.expected}",
               f"    got:      {self.got}"]
        if self.hint:
            out.append(f"     = hint: {self.hint}")
        return "\n".join(out)


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
        report = "\n".join(r.render() for r in failed)
        return ExampleResult(self.book_id, rule_id, example.title, f"{example.span.file}:{example.first_line}",
                             not failed and bool(results), report or ("" if results else "no cases"), results)

    def run_case(self, case: n.ExampleCase) -> CaseResult:
        from ..compiler import Ctx, compile_expr
        from ..language.dice import GivenRoller

        where = f"{case.span.file}:{case.span.line}:{case.span.column}"

        def result(passed, got, value=_NO_VALUE):
            hint = "" if passed else _failure_hint(case, got, odds is not None, value)
            return CaseResult(where, case.source, case.expected_text, got, passed, hint,
                              case.span.line, case.span.column)

        from .example_odds import evaluate
        from ..analysis.resolve import form_of
        odds = form_of(case.expr, self.compiled.syms)
        try:
            if odds is not None:       # chance(...) / mean(...): exact odds, within a budget
                value = guarded(lambda: evaluate(self.compiled, *odds))
            else:
                ctx = Ctx(GivenRoller(rng=random.Random(0)))
                value = guarded(lambda: compile_expr(self.compiled, case.expr, frozenset())({}, ctx))
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
            return result(False, literal(value), value)
        if case.approx is not None:
            from .example_odds import about
            return result(about(value, case.approx), _shown_with_decimals(value, case.approx), value)
        try:
            want = guarded(lambda: compile_expr(self.compiled, case.expected, frozenset())({}, Ctx(GivenRoller())))
        except RulesError as e:
            return result(False, f"{literal(value)} (the expected value cannot be evaluated: {e})")
        return result(same(value, want), literal(value), value)


def _shown_with_decimals(value, approx) -> str:
    """A value got beside an `about` expectation: exact, and rounded as it is written."""
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
        return literal(value)
    x = Fraction(value) * (100 if approx.percent else 1)
    rounded = f"{float(x):.{approx.places}f}{'%' if approx.percent else ''}"
    return f"{literal(value)} (about {rounded})"


_NO_VALUE = object()     # a case that gave no value (it stopped with an error)


def expected_line(value, approx=None) -> str:
    """The expected line that `value` passes, written as the case wrote its own: rounded
    to the same places (`about 82.6%`) when it says `about`, else exact (`119/144`, `7`)."""
    if approx is not None and not isinstance(value, bool) and isinstance(value, (int, Fraction)):
        x = Fraction(value) * (100 if approx.percent else 1)
        return f"about {float(x):.{approx.places}f}{'%' if approx.percent else ''}"
    return literal(value)


def _failure_hint(case: n.ExampleCase, got: str, odds: bool = False, value=_NO_VALUE) -> str:
    """One suggestion for a failing case, from what was expected and what came out.  A
    chance or a mean (`odds`) is over every roll of inputs the mechanics accept: its hint
    never proposes an error line, and a wrong one proposes the odds computed."""
    expected_error = case.error is not None
    if odds and got.startswith(("Error: ", "InputError: ")) and not expected_error:
        if got.startswith("InputError: "):
            param = got[len("InputError: "):].split(" ", 1)[0]
            return (f"a chance or a mean is taken over inputs the mechanics accept: give '{param}' a value in its "
                    "range; if a mechanic's own result feeds it, that mechanic's declared range is the one to fix")
        return "the odds cannot be had for these inputs (the message says why): give the example other inputs"
    if got.startswith("InputError: ") and not expected_error:
        param = got[len("InputError: "):].split(" ", 1)[0]
        return (f"an input is out of its range; if the example is meant to show that, write "
                f"'InputError: {param}' as its expected line")
    if got.startswith(("Error: ", "InputError: ")) and expected_error:
        return ("the expression fails as expected but not with these words: the expected line's words "
                "must appear in the error's message")
    if got.startswith("Error: "):
        return ("the expression stops with an error; if the example is meant to show that, write "
                "'Error: <words of the message>' as its expected line")
    if expected_error:
        if odds and value is not _NO_VALUE:
            return (f"a chance or a mean is never an error: these odds are {expected_line(value)}; write "
                    f"that as the expected line if the rule's text agrees")
        return "the example expects an error, but the expression gives a value: check its inputs"
    if "the expected value cannot be evaluated" in got:
        return "the expected line must be a value: a number, true/false, an enum member, a \"string\"..."
    if value is not _NO_VALUE:
        line = expected_line(value, case.approx)
        shown = literal(value) + (f", {line} as the example rounds it" if line != literal(value) else "")
        return (f"the book's mechanics give {shown}: if the rule's text agrees with it, write '{line}' as the "
                "expected line; if not, the mechanic (or a table it reads) is wrong")
    return ("the book's mechanics give the 'got' value: if the rule's text agrees with it, correct the "
            "expected line; if not, the mechanic (or a table it reads) is wrong")


def _contains(message: str, detail: str) -> bool:
    squash = " ".join
    return not detail or squash(detail.split()) in squash(message.split())


def guarded(thunk):
    """Run an evaluation; a Python-level failure becomes one of our errors, never a traceback.
    Shared by everything that evaluates an example (examples.py, explain.py)."""
    from ..errors import EvaluationError

    try:
        return thunk()
    except RulesError:
        raise
    except RecursionError:
        raise EvaluationError("the evaluation nests too deeply (a mechanic calling itself?)") from None
    except (ArithmeticError, MemoryError, ValueError, TypeError) as e:
        raise EvaluationError(f"cannot evaluate: {type(e).__name__}: {e}") from None
