"""The calls pass: a mechanic that calls itself, directly or through others, is an error.

An evaluation of such a mechanic could only end at the language's depth limit
(50 calls deep, `compiler.context.MAX_CALL_DEPTH`), with an error that names no
rule; the odds engine would never end at all.  The language has no recursion:
repetition is a pool, a chain or a comprehension.  So the cycle is reported
before anything runs, at the call that closes it, naming every mechanic on it,
with a note at each other call of the cycle.

Without a cycle, calls can still go deeper than the evaluator's MAX_CALL_DEPTH
(language/limits.py) through a chain of different mechanics: a warning at the
chain's first call, since a run stops there only if it follows every call of the
chain (calls in branches may not be made), and a worked example or a check adds a
level of its own.
"""
from __future__ import annotations

from .callgraph import cycles, graph
from ..errors import Related
from ..language.limits import MAX_CALL_DEPTH


def check_calls(book, syms, report):
    g = graph(syms, values=True)
    check_depth(g, report)
    for cycle in cycles(g):
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


def check_depth(g: dict, report):
    """A warning for each mechanic no other calls that starts a chain of MAX_CALL_DEPTH
    calls or more, at its first call of the chain.  Cycles are cut (they are errors of
    their own) and the search stops past the limit, so a depth is never overstated."""
    longest, busy = {}, set()

    def depth(name):           # (calls in the longest chain from `name`, its first CallSite)
        if name in longest:
            return longest[name]
        if name in busy or name not in g or len(busy) > MAX_CALL_DEPTH:
            return 0, None
        busy.add(name)
        best = (0, None)
        for site in g[name]:
            d, _ = depth(site.callee)
            if d + 1 > best[0]:
                best = (d + 1, site)
        busy.discard(name)
        longest[name] = best
        return best
    called = {site.callee for sites in g.values() for site in sites}
    for name in g:
        if name in called:
            continue
        d, site = depth(name)
        if d >= MAX_CALL_DEPTH and site is not None:
            report(site.call.span, f"mechanic '{name}' starts a chain of {d} calls or more, one inside the next: "
                   f"an evaluation that follows it stops past {MAX_CALL_DEPTH} levels, a limit of the language "
                   "(a worked example or a check that calls it adds a level)",
                   "call fewer mechanics inside each other (compute a part once and pass its value)",
                   severity="warning")
