"""The calls pass: a mechanic that calls itself, directly or through others, is an error.

An evaluation of such a mechanic could only end at the language's depth limit
(50 calls deep, `compiler.context.MAX_CALL_DEPTH`), with an error that names no
rule; the odds engine would never end at all.  The language has no recursion:
repetition is a pool, a chain or a comprehension.  So the cycle is reported
before anything runs, at the call that closes it, naming every mechanic on it,
with a note at each other call of the cycle.
"""
from __future__ import annotations

from .callgraph import cycles, graph
from ..errors import Related


def check_calls(book, syms, report):
    for cycle in cycles(graph(syms, values=True)):
        first = cycle[0]
        names = [s.caller for s in cycle] + [first.caller]
        shown = " -> ".join(names)
        if len(cycle) == 1:
            message = f"mechanic '{first.caller}' calls itself: an evaluation of it never ends"
        else:
            message = f"mechanic '{first.caller}' calls itself through {shown}: an evaluation of it never ends"
        related = [Related.at(s.call.span, f"{s.caller} calls {s.callee} here") for s in cycle[1:]]
        report(cycle[-1].call.span if len(cycle) == 1 else first.call.span, message,
               "the rules language has no recursion (a call more than 50 deep stops with an error): "
               "repeat a roll with a pool (n of d6), a chain (chain of d6 on {6}) or a comprehension "
               "([f(x) for x in 1..n])",
               related=related)
