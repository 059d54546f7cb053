"""The book's call graph: which mechanic calls which, from where, and its cycles.

Read by the checks (a roll given by path must follow calls that exist; a cycle
of calls is an error: `checks_calls.py`) and by the design views.  Calls are
found in every expression of a mechanic (defaults excepted: they are constants),
its dice counts and faces included, each with the local names in scope there, so
a local that hides a mechanic's name is not a call of it.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..language import nodes as n
from .resolve import resolve, resolve_callee, scoped_parts


@dataclass(frozen=True)
class CallSite:
    caller: str            # the calling mechanic
    callee: str            # the mechanic called
    call: n.Call           # the call (its span locates it)
    repeated: bool         # inside a comprehension: made once per item


def call_sites(mech: n.Mechanic, syms, values: bool = False) -> list:
    """Every call of a mechanic made by `mech`'s body, in source order.  With `values`,
    also every mention of a mechanic as a value (`let g = f`), which may be called
    through it: what a search for cycles must follow."""
    out = []

    def visit(e, scope, repeated):
        if e is None:
            return
        if values and isinstance(e, n.Name) and resolve(e.name, scope, syms).kind == "mechanic":
            out.append(CallSite(mech.name, e.name, n.Call(e.span, e, (), ()), True))
            return
        if isinstance(e, n.Comprehension):
            visit(e.source, scope, repeated)
            inner = scope | {e.var}
            visit(e.elem, inner, True)
            visit(e.cond, inner, True)
            return
        if isinstance(e, n.Call) and isinstance(e.func, n.Name):
            if resolve_callee(e.func.name, scope, syms).kind == "mechanic":
                out.append(CallSite(mech.name, e.func.name, e, repeated))
            for a in e.args:
                visit(a, scope, repeated)
            for _, a in e.kwargs:
                visit(a, scope, repeated)
            return
        for f in getattr(e, "__dataclass_fields__", ()):
            if f == "span":
                continue
            v = getattr(e, f)
            if isinstance(v, n.Expr):
                visit(v, scope, repeated)
            elif isinstance(v, tuple):
                for x in v:
                    if isinstance(x, n.Expr):
                        visit(x, scope, repeated)
                    elif isinstance(x, tuple) and len(x) == 2 and isinstance(x[1], n.Expr):
                        visit(x[1], scope, repeated)

    for what, part, scope in scoped_parts(mech):
        if what == "expr":
            if any(part is p.default for p in mech.params):
                continue
            visit(part, frozenset(scope), False)
        else:
            for e in part.dice.parts():
                visit(e, frozenset(scope), False)
    return out


def graph(syms, values: bool = False) -> dict:
    """{mechanic name: [CallSite, ...]} for every mechanic of the book (`values`: as
    `call_sites`)."""
    return {name: call_sites(m, syms, values) for name, m in syms.mechanics.items()}


def callees(mech: n.Mechanic, syms) -> list:
    """The names of the mechanics `mech` calls, in order of first call."""
    return list(dict.fromkeys(s.callee for s in call_sites(mech, syms)))


def rolling(syms) -> set:
    """The mechanics that roll dice, themselves or through a mechanic they call."""
    return _reaching(syms, {m for m, node in syms.mechanics.items() if any(isinstance(s, n.Roll) for s in node.body)})


def rolls_in(expr, syms) -> bool:
    """Does the expression (an example's, a design view's) call a mechanic that rolls?

    A call the checks cannot follow counts as one that may roll: a name that resolves
    to nothing (misspelt, or declared by text a syntax error left out) or a mechanic
    that is `incomplete` (resolve.py), or calls one.  That name has its own
    diagnostic; "this rolls no dice" would only restate it."""
    calls = {x.func.name for x in n.iter_nodes(expr) if isinstance(x, n.Call) and isinstance(x.func, n.Name)}
    if any(resolve_callee(c, (), syms).kind == "unknown" for c in calls):
        return True
    return bool(calls & (rolling(syms) | _reaching(syms, syms.incomplete)))


def _reaching(syms, targets) -> set:
    """The mechanics among `targets` and those that call one of them, directly or not."""
    g = graph(syms)
    out = {m for m in targets if m in syms.mechanics}
    changed = bool(out)
    while changed:
        changed = False
        for m, sites in g.items():
            if m not in out and any(s.callee in out for s in sites):
                out.add(m)
                changed = True
    return out


def rolls_of(mech: n.Mechanic) -> list:
    return [s.name for s in mech.body if isinstance(s, n.Roll)]


def path_to_roll(syms, start: str, roll: str, limit: int = 6):
    """The shortest roll path from mechanic `start` to a roll named `roll` made in a
    mechanic it calls (directly or not), e.g. "morale_test.first"; None if none."""
    from collections import deque

    seen, queue = {start}, deque([(start, "")])
    while queue:
        name, path = queue.popleft()
        if path.count(".") >= limit:
            continue
        for callee in callees(syms.mechanics[name], syms):
            p = f"{path}{callee}."
            if roll in rolls_of(syms.mechanics[callee]):
                return p + roll
            if callee not in seen:
                seen.add(callee)
                queue.append((callee, p))
    return None


def cycles(g: dict) -> list:
    """The cycles of calls, each as a list of CallSites a -> b -> ... -> a, one per
    strongly connected component that loops (Tarjan's algorithm, iterative), starting
    at its first mechanic in book order."""
    order = list(g)
    index, low, on, stack, comps = {}, {}, set(), [], []
    counter = [0]
    for root in order:
        if root in index:
            continue
        work = [(root, iter(g[root]))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for site in it:
                w = site.callee
                if w not in g:
                    continue
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(g[w])))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                comps.append(set(comp))
    out = []
    for comp in comps:
        first = min(comp, key=order.index)
        if len(comp) == 1 and not any(s.callee == first for s in g[first]):
            continue
        out.append(_cycle_from(g, first, comp))
    out.sort(key=lambda c: order.index(c[0].caller))
    return out


def _cycle_from(g, start, comp) -> list:
    """A shortest cycle start -> ... -> start inside one component (breadth first)."""
    from collections import deque

    prev = {}
    queue = deque([start])
    seen = {start}
    while queue:
        v = queue.popleft()
        for site in g[v]:
            w = site.callee
            if w not in comp:
                continue
            if w == start:
                path = [site]
                while v != start:
                    path.append(prev[v])
                    v = prev[v].caller
                return list(reversed(path))
            if w not in seen:
                seen.add(w)
                prev[w] = site
                queue.append(w)
    return []  # pragma: no cover - a component that loops has a cycle through each member
