"""The ranges pass: what the declared ranges prove, before anything runs.

Every mechanic is analysed over the abstract values of `intervals.py`: each
parameter takes every value of its declared type, each die every face, each table
the values its rows print, each call what the called mechanic can give for the
arguments' ranges (analysed again for them) within its declared result.  The
analysis over-approximates: whatever a run can produce, the interval holds.  From
that, reported with file:line:col, caret and hint:

* a roll's number of dice that is **always** negative or above the language's
  limit (1000), proven by the intervals alone; or that **can** be, proven by a
  witness: inputs under which it is (found by the analysis, then confirmed by
  analysing the mechanic again with those inputs pinned, its `require`s holding);
  the same for an exploding roll's `up to`, and for its dice and extra dice together
  (the implicit 20 extra dice without `up to` included: issue 38);
* a result **outside the declared result type**, always, or for a witness;
* a **branch that can never be taken**: an `if` whose condition the ranges decide
  the same way every time (a warning: the book still works, but the branch is dead
  text).

It never guesses: what it cannot follow is "anything", which proves nothing.  Where
no single witness reaches a value (a pool's count), range_proofs.py searches pinned
inputs, dice included; checks_arguments.py adds the arguments of calls and the sizes
of ranges, and reports a finding a layer's change causes at that change.

Three modules (split in issue 32): range_analysis.py is the analysis's core,
range_calls.py its calls, table reads and built-ins; this one is the pass (`RangePass`,
the two put together) and the checks that use the analysis.
"""
from __future__ import annotations

from . import intervals as iv
from ..language import nodes as n
from ..language.dice import EXPLODE_CAP, MAX_DICE
from .intervals import Num, V, fin
from ..language.model import decls_of
from .range_analysis import RangeAnalysis, Unreachable
from .range_calls import CallRanges
from .checks_arguments import ArgumentChecks, numeric_ranges
from .range_proofs import Proofs, pins_text


def check_ranges(book, syms, report):
    RangePass(syms, report).run(book)


class RangePass(ArgumentChecks, Proofs, CallRanges, RangeAnalysis):
    """The ranges pass: the analysis (its core and its calls) run over every mechanic, and
    what it proves reported (the arguments of calls: checks_arguments.py; proofs by
    pinned inputs: range_proofs.py)."""

    book = None

    # ------------------------------------------------------------ the pass
    def run(self, book):
        self.book = book
        for p in decls_of(book):
            if isinstance(p.node, n.Mechanic):
                try:
                    self.check_mechanic(p.node)
                except RecursionError:    # pragma: no cover - nesting is bounded by the parser
                    continue
        self.report_branches()

    def check_mechanic(self, m: n.Mechanic):
        counts = []
        args, self.on_arg = self.collect_args()
        ranges, self.on_range = self.collect_ranges()
        self.recording = True
        try:
            result = self.run_mechanic(m, self.inputs(m), on_roll=lambda s, c, cap: counts.append((s, c, cap)))
        except Unreachable:
            return
        finally:
            self.recording, self.on_arg, self.on_range = False, None, None
        self.check_arguments(m, args)
        self.check_range_sizes(m, ranges)
        for s, count, cap in counts:
            said = self.check_count(m, s, count, "count")
            if cap is not None:
                said = self.check_count(m, s, cap, "cap") or said
            if s.dice.kind == "explode" and not said:
                self.check_explode_total(m, s, count, cap)
        self.check_result(m, result)

    def inputs(self, m: n.Mechanic) -> dict:
        return {p.name: self.of_type(p.type, var=p.name) for p in m.params}

    # ------------------------------------------------------------ reports
    def report_branches(self):
        if self.report is None:
            return
        for e, seen in self.branches.items():
            if any(h and f for h, f, _ in seen) or not seen:
                continue
            if all(h and not f for h, f, _ in seen):
                msg, hint = branch_message(e, True, seen[0][2])
            elif all(f and not h for h, f, _ in seen):
                msg, hint = branch_message(e, False, seen[0][2])
            else:
                continue
            self.report(e.cond.span, msg, hint, severity="warning")

    def check_count(self, m, s: n.Roll, v, what):
        if v is None or v.num is None or self.report is None:
            return False
        num = v.num
        expr = s.dice.count if what == "count" else s.dice.cap
        from ..language.render import expr_text
        text = expr_text(expr)
        if what == "count":
            head, limit = f"roll '{s.name}': the number of dice", MAX_DICE
            hint = (f"a roll takes 0 to {MAX_DICE} dice: keep the count in range (e.g. max(0, {text})), "
                    "or narrow the declared ranges of what it reads")
        else:
            head, limit = f"roll '{s.name}': 'up to' (the extra dice)", MAX_DICE
            hint = f"an exploding roll adds 0 to {MAX_DICE} extra dice"
        where = expr.span
        if v.only_num() and num.lo == num.hi and fin(num.lo) and (num.lo < 0 or num.lo > limit):
            said = "dice" if what == "count" else "extra dice"
            self.place(m, where, f"roll '{s.name}' takes {iv.shown(num.lo)} {said}"
                        + (f" ({text})" if text != iv.shown(num.lo) else "")
                        + f": {'a number of dice cannot be negative' if num.lo < 0 else f'a roll takes at most {limit}'}",
                        hint)
            return True
        if v.only_num() and num.hi < 0:
            self.place(m, where, f"{head}, {text}, is always negative ({iv.interval_text(num)})", hint)
            return True
        if v.only_num() and num.lo > limit:
            self.place(m, where, f"{head}, {text}, is always more than {limit} ({iv.interval_text(num)})", hint)
            return True
        if fin(num.lo) and num.lo < 0 and num.wlo is not None:
            if self.confirm(m, num.wlo, ("roll", s.name, what), num.lo):
                self.place(m, where, f"{head}, {text}, can be negative: it is {iv.shown(num.lo)} "
                            f"with {witness_text(num.wlo, m)}", hint)
                return True
        if fin(num.hi) and num.hi > limit and num.whi is not None:
            if self.confirm(m, num.whi, ("roll", s.name, what), num.hi):
                self.place(m, where, f"{head}, {text}, can be more than {limit}: it is {iv.shown(num.hi)} "
                            f"with {witness_text(num.whi, m)}", hint)
                return True
        return False

    def check_explode_total(self, m, s: n.Roll, count, cap):
        """An exploding roll's dice and its extra dice together: at most MAX_DICE.  Without
        `up to`, the extra dice are the language's implicit EXPLODE_CAP (20), a limit the
        book never wrote: so `n of d2 explode on {2}` with n up to 1000 failed only when
        run (issue 38).  Reported at the dice, always or with a confirmed witness, naming
        the limit and how to write it."""
        v = explode_total(count, cap)
        if v is None or not fin(v.num.hi) or v.num.hi <= MAX_DICE:
            return
        total = v.num
        from ..language.render import expr_text
        dice = expr_text(s.dice.count) if s.dice.count is not None else "1"
        if cap is None:
            limit = (f"without 'up to', an exploding roll adds up to {EXPLODE_CAP} extra dice (the language's "
                     f"limit), and a roll takes at most {MAX_DICE} dice in all")
            hint = (f"write the limit of extra dice yourself: '... explode on ... up to (min({EXPLODE_CAP}, "
                    f"{MAX_DICE} - {dice}))', or narrow the declared ranges of what the count reads")
            extra_text = f"{EXPLODE_CAP} extra"
        else:
            limit = f"a roll takes at most {MAX_DICE} dice, its extra dice included"
            hint = (f"keep 'up to' within {MAX_DICE} minus the dice (e.g. up to (min({expr_text(s.dice.cap)}, "
                    f"{MAX_DICE} - {dice}))), or narrow the declared ranges of what they read")
            extra_text = f"up to {expr_text(s.dice.cap)} extra"
        where = s.dice.span
        if total.lo > MAX_DICE:
            self.place(m, where, f"roll '{s.name}': {dice} dice and {extra_text} are always more than "
                        f"{MAX_DICE} in all ({iv.interval_text(total)}): {limit}", hint)
            return
        if total.whi is not None and self.confirm(m, total.whi, ("roll", s.name, "total"), total.hi):
            self.place(m, where, f"roll '{s.name}': {dice} dice and {extra_text} can be more than {MAX_DICE} "
                        f"in all: {iv.shown(total.hi)} with {witness_text(total.whi, m)}; {limit}", hint)

    def check_result(self, m, result: V):
        if self.report is None or result.num is None:
            return
        allowed = numeric_ranges(m.returns, self.syms)
        if allowed is None or not allowed:
            return
        from ..language.render import type_text
        declared = type_text(m.returns)
        num = result.num

        def inside(x):
            return any(lo <= x <= hi for lo, hi in allowed)
        if result.only_num() and all(num.hi < lo or num.lo > hi for lo, hi in allowed):
            self.place(m, m.result.span, f"{m.name}'s result is always outside its declared result {declared}: "
                       f"it is {iv.interval_text(num)}",
                       "correct the formula, or the declared result after '->'")
            return
        hint = result_hint(num, allowed)
        for end, w in ((num.hi, num.whi), (num.lo, num.wlo)):
            if fin(end) and w is not None and not inside(end) and self.confirm(m, w, ("result",), end):
                self.place(m, m.result.span, f"{m.name} can give {iv.shown(end)}, outside its declared result "
                           f"{declared}: with {witness_text(w, m)}", hint)
                return
        if inside(num.lo) and inside(num.hi) and any(lo <= num.lo and num.hi <= hi for lo, hi in allowed):
            return
        proof = self.prove(m, lambda pins: self.pinned_run(m, pins), lambda x: not inside(x))
        if proof is not None:      # e.g. a pool's count, which no single witness reaches
            pins, value = proof
            self.place(m, m.result.span, f"{m.name} can give {iv.shown(value)}, outside its declared result "
                       f"{declared}: with {pins_text(pins, m, self.syms)}", hint)

    def confirm(self, m, witness, target, value) -> bool:
        """Analyse `m` again with the witness's inputs pinned: every `require` must hold
        and the target (a roll's count or cap, or the result) must be exactly `value`."""
        pins = dict(witness)
        params = {p.name: p for p in m.params}
        env = {}
        for p in m.params:
            env[p.name] = iv.point(pins[p.name], ((p.name, pins[p.name]),)) if p.name in pins \
                else self.of_type(p.type, var=p.name)
        seen = {}

        def on_roll(s, count, cap):
            seen[s.name] = (count, cap)
        ok = [True]

        def on_require(s, holds, fails):
            if fails:
                ok[0] = False
        saved = self.pins
        self.pins = {k: v for k, v in pins.items() if k not in params}
        try:
            result = self.run_mechanic(m, env, on_roll=on_roll, on_require=on_require)
        except Unreachable:
            return False
        finally:
            self.pins = saved
        if not ok[0]:
            return False
        if target[0] == "result":
            got = result
        else:
            count, cap = seen.get(target[1], (None, None))
            if target[2] == "total":
                got = explode_total(count, cap)
            else:
                got = count if target[2] == "count" else cap
        return got is not None and got.only_num() and got.num.lo == got.num.hi == value


def explode_total(count, cap):
    """The dice and extra dice of an exploding roll, as a V (None if either is not a number)."""
    if (count is not None and (count.num is None or not count.only_num())) \
            or (cap is not None and (cap.num is None or not cap.only_num())):
        return None
    k = count.num if count is not None else Num(1, 1, (), (), True)
    extra = cap.num if cap is not None else Num(EXPLODE_CAP, EXPLODE_CAP, (), (), True)
    return V(num=iv.add(k, extra))


def result_hint(num, allowed) -> str:
    lo, hi = min(a for a, _ in allowed), max(b for _, b in allowed)
    wide = ""
    if fin(num.lo) and fin(num.hi):
        wide = f" (-> {iv.shown(min(lo, num.lo))}..{iv.shown(max(hi, num.hi))})"
    return (f"widen the declared result after '->'{wide}, or keep the result inside it "
            f"(clamp(x, {iv.shown(lo)}, {iv.shown(hi)}))")


def witness_text(w, m: n.Mechanic) -> str:
    params = {p.name for p in m.params}
    order = [p.name for p in m.params] + [s.name for s in m.body if isinstance(s, n.Roll)]
    parts = []
    for k, v in sorted(w, key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order)):
        shown = iv.shown(v)
        parts.append(f"{k} = {shown}" if k in params else f"the roll {k} showing {shown}")
    return " and ".join(parts) if parts else "any inputs"


def branch_message(e: n.IfElse, holds: bool, env) -> tuple:
    from ..language.render import expr_text
    read = []
    for x in n.iter_nodes(e.cond):
        if isinstance(x, n.Name) and x.name in env and x.name not in [r[0] for r in read]:
            v = env[x.name]
            if v.num is not None and v.only_num():
                read.append((x.name, iv.interval_text(v.num)))
    why = (" (" + "; ".join(f"{k} is {t}" for k, t in read) + ")") if read else ""
    if holds:
        return (f"this condition always holds{why}, so the 'else' branch ({expr_text(e.orelse)}) is never taken",
                "check the comparison against the declared ranges of what it reads; remove the branch if no "
                "input reaches it")
    return (f"this condition never holds{why}, so the 'then' branch ({expr_text(e.then)}) is never taken",
            "check the comparison against the declared ranges of what it reads; remove the branch if no "
            "input reaches it")
