"""The examples pass: worked examples are checked like mechanics, before anything runs.

* the `>>>` expression goes through the same name/arity checker as a mechanic's
  body (`checks_names.ExprChecker`), with no local names;
* the expected side must be a value (literals, enum members and die faces,
  constants, lists, sets, fractions written `7/2`, `-3`), never a computation;
* an argument written as a literal is checked against the parameter's declared
  type and range, so `opposed_target(11, 3)` is a diagnostic at the 11, unless
  the example expects exactly that error (`InputError: yours`).
"""
from __future__ import annotations

from ..language import nodes as n
from ..language.builtins import BUILTINS
from .checks_names import ExprChecker
from .resolve import form_name
from ..language.model import BookAST, walk

def check_examples(book: BookAST, syms, report):
    ex = ExprChecker(syms, report)
    for p in walk(book.items):
        rule = p.node
        if not isinstance(rule, n.Rule):
            continue
        for example in rule.examples:
            if not example.cases and ">>>" not in example.text:   # a '>>>' that did not parse is reported there
                report(example.span, "this example has no '>>>' line",
                       "write '>>> expression' and, on the next line, the value it must give")
            for case in example.cases:
                if form_name(case.expr, syms) is not None:
                    _check_odds_form(case, syms, report, ex)
                else:
                    ex.visit(case.expr, set())
                if case.expected is not None:
                    _check_value(case.expected, syms, report)
                    ex.visit(case.expected, set())
                _check_literal_arguments(case, syms, report, *(
                    () if form_name(case.expr, syms) is None else (_ODDS_HINT,)))
        for odds in rule.odds:
            _check_odds_inputs(odds, syms, report, ex)


# a chance or a mean is over every roll of inputs the mechanics accept: it never shows an error
_ODDS_HINT = "a chance or a mean is taken over inputs the mechanic accepts: give '{param}' a value in its range"


def _check_odds_form(case, syms, report, ex):
    """`chance(CONDITION)` / `mean(EXPRESSION)` (example_odds.py): one expression that rolls
    dice (through the mechanics it calls); a chance's is a condition, a mean's a number."""
    from .callgraph import rolls_in
    from .checks_types import BOOL, NUM, TypePass, describe
    from .resolve import form_of

    call = case.expr
    name = call.func.name
    if form_of(call, syms) is None:
        report(call.span, f"{name}(...) takes one expression", f"e.g. {name}(hits(3, 4) >= 2)" if name == "chance"
               else "e.g. mean(hits(3, 4))")
        return
    inner = call.args[0]
    ex.visit(inner, set())
    calls = [x.func.name for x in n.iter_nodes(inner) if isinstance(x, n.Call) and isinstance(x.func, n.Name)]
    mechs = [c for c in dict.fromkeys(calls) if c in syms.mechanics]
    if not rolls_in(inner, syms) and all(c in syms.mechanics or c in syms.tables or c in BUILTINS for c in calls):
        what = f"{', '.join(mechs)} roll{'s' if len(mechs) == 1 else ''} none" if mechs else "it calls no mechanic"
        report(call.span, f"{name}(...) needs dice: {what}",
               "a chance or a mean is over the rolls of the mechanics it calls; for one value write the call itself")
        return
    got = TypePass(syms, lambda *a, **k: None).expr(inner, {}, quiet=True)
    want = BOOL if name == "chance" else NUM
    if got is not None and got and want not in got:
        report(inner.span, f"{name}(...) takes {'a condition (true or false)' if name == 'chance' else 'a number'}, "
               f"but this is {describe(got)}",
               "e.g. chance(hits(3, 4) >= 2)" if name == "chance" else "e.g. mean(hits(3, 4))")


def _check_odds_inputs(odds, syms, report, ex):
    """`odds mech(NAME=VALUE, ...)`: a mechanic of this book, given values (never
    computations) that fit its parameters; the dice mechanic's own check (it rolls)
    is the compiler's, which knows what a mechanic calls."""
    call = odds.call
    name = call.func.name
    if name not in syms.mechanics:
        if name in syms.skipped:     # its declaration did not parse: the syntax error says so
            return
        from ..errors import did_you_mean
        report(call.func.span, f"`odds` shows a mechanic's odds, and '{name}' is not a mechanic of this book",
               did_you_mean(name, sorted(syms.mechanics)) or "write odds MECHANIC(NAME=VALUE, ...)")
        return
    ex.visit(call, set())
    swept = [a for a in list(call.args) + [a for _, a in call.kwargs] if isinstance(a, n.RangeExpr)]
    if len(swept) > 1:
        report(swept[1].span, "an `odds` line sweeps one input at a time",
               "e.g. odds hits(n=3, target=2..6); write another line for another input")
    for a in list(call.args) + [a for _, a in call.kwargs]:
        if isinstance(a, n.RangeExpr) and a is swept[0]:      # a sweep: LOW..HIGH, whole numbers written out
            for end in (a.low, a.high):
                if not _is_int(end):
                    report(end.span, "a swept input runs between two whole numbers written out",
                           "e.g. odds hits(n=3, target=2..6)")
            _check_sweep_ends(call, a, syms, report)
            continue
        _check_value(a, syms, report, "an `odds` input")
    _check_literal_arguments(_OddsCase(call), syms, report, "the page shows odds for inputs the mechanic accepts")


def _check_sweep_ends(call, a, syms, report):
    """Both ends of a swept input fit the parameter it sweeps."""
    target = syms.mechanics.get(call.func.name)
    params = list(target.params) if target is not None else []
    pairs = list(zip(params, call.args)) + [(next(p for p in params if p.name == k), x)
                                             for k, x in call.kwargs if any(p.name == k for p in params)]
    for param, arg in pairs:
        if arg is not a:
            continue
        for end in (a.low, a.high):
            value = _literal(end, syms)
            if value is not _UNKNOWN and not _fits(value, param.type, syms):
                report(end.span, f"{call.func.name}() is swept to {value} for '{param.name}'; allowed: "
                       f"{_describe(param.type)}", "sweep within the parameter's range")


class _OddsCase:
    """An `odds` line seen as an example case that expects no error."""
    error = None

    def __init__(self, call):
        self.expr = call


def _check_value(e, syms, report, what="an expected value"):
    """An expected value (or an `odds` input) is a value: report the first part that computes."""
    if isinstance(e, n.Literal):
        return
    if isinstance(e, n.Neg) and isinstance(e.operand, n.Literal):
        return
    if isinstance(e, n.BinOp) and e.op == "/" and all(_is_int(x) for x in (e.left, e.right)):
        return
    if isinstance(e, n.Name):
        if e.name in syms.mechanics or e.name in syms.tables:
            report(e.span, f"'{e.name}' is a {'mechanic' if e.name in syms.mechanics else 'table'}, not a value",
                   f"{what} is written as the value itself")
        return
    if isinstance(e, n.Attr) and isinstance(e.obj, n.Name):
        return  # enum.member / die.face: the expressions pass checks the member
    if isinstance(e, (n.ListLit, n.SetLit)):
        for x in e.items:
            _check_value(x, syms, report, what)
        return
    report(e.span, f"{what} must be a value, not a computation",
           "write what the expression gives: a number, 7/2, true/false, a name, \"text\", [a list], {a set} or absent")


def _is_int(e):
    return (isinstance(e, n.Literal) and type(e.value) is int) or (
        isinstance(e, n.Neg) and isinstance(e.operand, n.Literal) and type(e.operand.value) is int)


_UNKNOWN = object()


def _literal(e, syms):
    """The value of an argument written as a literal (or an enum member), else _UNKNOWN."""
    if isinstance(e, n.Literal):
        return e.value
    if isinstance(e, n.Neg) and isinstance(e.operand, n.Literal) and type(e.operand.value) is int:
        return -e.operand.value
    if isinstance(e, n.Name) and len(syms.members.get(e.name, ())) == 1:
        return ("member", e.name, syms.members[e.name][0])
    return _UNKNOWN


def _fits(value, t, syms) -> bool:
    from ..language.values import ABSENT

    if isinstance(t, n.UnionType):
        return any(_fits(value, o, syms) for o in t.options)
    member = isinstance(value, tuple) and value[:1] == ("member",)
    if isinstance(t, n.RangeType):
        return type(value) is int and t.low <= value <= t.high
    if isinstance(t, n.NamedType):
        if t.name == "bool":
            return isinstance(value, bool)
        if t.name == "absent":
            return value is ABSENT
        if t.name in ("int", "number"):
            return not isinstance(value, (bool, str)) and not member and value is not ABSENT
        if t.name == "text":
            return isinstance(value, str)
        if t.name in syms.enums or t.name in syms.dice:
            return member and value[2] == t.name
    return True  # lists and records: checked when the example runs


def _describe(t) -> str:
    if isinstance(t, n.RangeType):
        return f"{t.low}..{t.high}"
    if isinstance(t, n.UnionType):
        return " or ".join(_describe(o) for o in t.options)
    if isinstance(t, n.NamedType):
        return t.name
    return "a list" if isinstance(t, n.ListType) else "a record"


def _check_literal_arguments(case, syms, report,
                             hint="if the example shows this error, write 'InputError: {param}' as its expected line"):
    expects = case.error.param if case.error is not None and case.error.kind == "InputError" else None
    for call in n.iter_nodes(case.expr):
        if not (isinstance(call, n.Call) and isinstance(call.func, n.Name)):
            continue
        target = syms.mechanics.get(call.func.name) or syms.tables.get(call.func.name)
        if target is None:
            continue
        params = list(target.params)
        pairs = list(zip(params, call.args)) + [
            (next(p for p in params if p.name == k), a) for k, a in call.kwargs if any(p.name == k for p in params)]
        for param, arg in pairs:
            value = _literal(arg, syms)
            if value is _UNKNOWN or _fits(value, param.type, syms) or expects == param.name:
                continue
            shown = value[1] if isinstance(value, tuple) else (
                "true" if value is True else "false" if value is False else repr(value) if isinstance(value, str) else str(value))
            report(arg.span, f"{call.func.name}() gets {shown} for '{param.name}'; allowed: {_describe(param.type)}",
                   hint.format(param=param.name))
