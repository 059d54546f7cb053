"""The range analysis: what a mechanic can give, over the abstract values of intervals.py.

`RangeAnalysis` evaluates a mechanic abstractly: each parameter takes every value of
its declared type (`of_type`), each die every face (`roll`), each expression the
values it can take (`expr`, one `visit_<Node>` method per expression node, the shared visitor protocol), and a branch
or a `require` narrows the names its condition reads (`refine`).  It over-approximates:
whatever a run can produce, the result holds; what it cannot follow is "anything".

Split from checks_ranges.py (issue 32), in three parts: this module is the analysis's
core; range_calls.py (`CallRanges`) what a call, a table read or a built-in can give;
checks_ranges.py (`RangePass`) puts the two together and adds the checks that use the
analysis (dice counts, results outside the declared type, dead branches, witnesses).
`RangeAnalysis` is not used alone: its calls are `CallRanges`'s.
"""
from __future__ import annotations

from fractions import Fraction

from . import intervals as iv
from ..language import nodes as n
from ..language.dice import EXPLODE_CAP, MAX_DICE
from ..language.visitor import NodeVisitor
from .intervals import ALL, BOOL, EMPTY, INF, L, Num, TOP, V, fin
from .range_pins import pinned_roll
from .resolve import resolve

__all__ = ["RangeAnalysis", "Unreachable"]


class Unreachable(Exception):
    """The evaluation cannot get here for any input (a require that never holds...)."""


class RangeAnalysis(NodeVisitor):
    """The state and the core of the abstract evaluation (see the module doc)."""

    def __init__(self, syms, report=None):
        self.syms, self.report = syms, report
        self._consts, self._busy, self._tables = {}, set(), {}
        self.memo, self.active = {}, []
        self.recording = False
        self.branches = {}       # IfElse -> [(can hold, can fail, env)] seen while checking its own mechanic
        self.pins = None         # input -> value, while confirming a witness ("callee.roll": a callee's roll)
        self.proving, self.doubts, self.proof_calls, self.unsure = False, 0, 0, 0   # range_proofs.py;
        # unsure > 0: inside a branch, operand or item the evaluation may not reach
        self.on_arg = None       # (call, mechanic, parameter, V, reached for sure) at the mechanic's own calls

    # ------------------------------------------------------------ mechanics
    def run_mechanic(self, m: n.Mechanic, env: dict, on_roll=None, on_require=None) -> V:
        env = dict(env)
        for s in m.body:
            if isinstance(s, n.Let):
                env[s.name] = self.expr(s.value, env)
            elif isinstance(s, n.Roll):
                count = self.expr(s.dice.count, env) if s.dice.count is not None else None
                cap = self.expr(s.dice.cap, env) if s.dice.cap is not None else None
                if on_roll is not None:
                    on_roll(s, count, cap)
                env[s.name] = self.roll(s, count, cap)
            else:
                holds, fails = self.truth(self.expr(s.cond, env))
                if on_require is not None:
                    on_require(s, holds, fails)
                self.doubts += 1 if fails else 0    # a proof needs none (range_proofs.py)
                if not holds:
                    raise Unreachable
                env = self.refine(env, s.cond, True)
        return self.expr(m.result, env)

    def roll(self, s: n.Roll, count, cap) -> V:
        spec = s.dice
        die = self.syms.dice.get(spec.die)
        if die is None:
            return TOP
        if self.pins is not None and s.name in self.pins:
            pinned = pinned_roll(s, self.pins[s.name], count, cap)
            if pinned is not None:
                return pinned
        if die.custom:
            face = V(syms=frozenset(die.faces))
        else:
            lo, hi = min(die.faces), max(die.faces)
            face = V(num=Num(lo, hi, ((s.name, lo),), ((s.name, hi),), True))
        if spec.kind == "one" or (spec.kind == "reroll" and spec.count is None):
            return face
        if spec.kind == "chain":
            return iv.num_range(0, INF)
        k = count.num if count is not None and count.num is not None else Num(0, MAX_DICE, whole=True)
        k = iv.meet(k, 0, MAX_DICE) or Num(0, 0, whole=True)
        if spec.kind == "explode":
            extra = cap.num if cap is not None and cap.num is not None else Num(0, EXPLODE_CAP, whole=True)
            extra = iv.meet(extra, 0, MAX_DICE) or Num(0, 0, whole=True)
            k = Num(k.lo, k.hi + extra.hi, whole=True)
        return V(lst=L(k.plain(), face.plain()))

    # ------------------------------------------------------------ types
    def of_type(self, t, var=None) -> V:
        if isinstance(t, n.UnionType):
            return iv.join_all(self.of_type(o, var) for o in t.options)
        if isinstance(t, n.RangeType):
            w = (lambda x: ((var, x),)) if var else (lambda x: None)
            return V(num=Num(t.low, t.high, w(t.low), w(t.high), True))
        if isinstance(t, n.ListType):
            return V(lst=L(Num(0, INF, whole=True), self.of_type(t.item)))
        if isinstance(t, n.RecordType):
            return V(rec=tuple((f, self.of_type(ft)) for f, ft in t.fields))
        name = getattr(t, "name", "")
        if name == "int":
            return V(num=Num(-INF, INF, whole=True))
        if name == "number":
            return iv.NUM
        if name == "bool":
            return BOOL
        if name in ("text", "absent"):
            return V(other=True)
        if name in self.syms.enums:
            return V(syms=frozenset(self.syms.enums[name].members))
        if name in self.syms.dice:
            die = self.syms.dice[name]
            if die.custom:
                return V(syms=frozenset(die.faces))
            return V(num=Num(1, len(die.faces), whole=True))
        return TOP

    def restrict(self, v: V, t) -> V:
        """`v` as far as a value of type `t` (what passes a call's type check)."""
        if isinstance(t, n.UnionType):
            return iv.join_all(self.restrict(v, o) for o in t.options)
        if isinstance(t, n.RangeType):
            num = iv.meet(v.num, t.low, t.high)
            return V(num=Num(num.lo, num.hi, num.wlo, num.whi, True)) if num is not None else EMPTY
        name = getattr(t, "name", None)
        if name in ("int", "number"):
            if v.num is None:
                return EMPTY
            return V(num=v.num if name == "number" else Num(v.num.lo, v.num.hi, v.num.wlo, v.num.whi, True))
        if name == "bool":
            return V(bools=v.bools)
        if name in self.syms.enums or (name in self.syms.dice and self.syms.dice[name].custom):
            members = frozenset(self.syms.enums[name].members if name in self.syms.enums else self.syms.dice[name].faces)
            if v.syms == ALL:
                return V(syms=members) if v.syms else EMPTY
            got = v.syms & members
            if v.other:            # text naming a member converts to it
                got = members
            return V(syms=got) if got else EMPTY
        if name in self.syms.dice:
            die = self.syms.dice[name]
            num = iv.meet(v.num, 1, len(die.faces))
            return V(num=num) if num is not None else EMPTY
        if isinstance(t, n.ListType):
            return V(lst=v.lst) if v.lst is not None else (V(other=True) if v.other else EMPTY)
        if isinstance(t, n.RecordType):
            return V(rec=v.rec, other=v.other) if (v.rec is not None or v.other) else EMPTY
        return v

    # ------------------------------------------------------------ expressions
    def expr(self, e, env) -> V:
        if e is None:
            return TOP
        m = self.get_visitor(e)          # visit_<Node> (language/visitor.py)
        return m(e, env) if m is not None else TOP

    def visit_Literal(self, e, env):
        v = e.value
        if isinstance(v, bool):
            return iv.TRUE if v else iv.FALSE
        if isinstance(v, (int, Fraction)):
            return iv.point(v)
        return V(other=True)

    def visit_Name(self, e, env):
        r = resolve(e.name, env, self.syms)
        if r.kind == "local":
            return env[e.name]
        if r.kind == "const":
            return self.const(e.name)
        if r.kind == "member":
            return V(syms=frozenset({e.name}))
        return V(other=True) if r.kind != "unknown" else TOP

    def const(self, name) -> V:
        if name in self._consts:
            return self._consts[name]
        if name in self._busy:
            return TOP
        self._busy.add(name)
        try:
            v = self.expr(self.syms.consts[name].value, {})
        finally:
            self._busy.discard(name)
        v = v.plain()
        if v.only_num() and v.num.point is not None:
            # A constant is the same for every input: its value holds under any witness
            # (the empty one), so `a + bonus` keeps a's witness (issue 38: a layer's
            # `change bonus to 3` pushed a result out of range and nothing said so).
            v = V(num=Num(v.num.lo, v.num.hi, (), (), v.num.whole))
        self._consts[name] = v
        return v

    def visit_BinOp(self, e, env):
        a, b = self.expr(e.left, env), self.expr(e.right, env)
        out = EMPTY
        if e.op == "+" and a.lst is not None and b.lst is not None:
            item = None if a.lst.item is None or b.lst.item is None else iv.join(a.lst.item, b.lst.item)
            out = V(lst=L(iv.add(a.lst.length, b.lst.length).plain(), item))
        if a.num is not None and b.num is not None:
            x, y = a.num, b.num
            if e.op == "+":
                r = iv.add(x, y)
            elif e.op == "-":
                r = iv.sub(x, y)
            elif e.op == "*":
                r = iv.mul(x, y)
            elif e.op == "/":
                r = iv.div(x, y) or Num(-INF, INF)
            else:
                r = iv.mod(x, y) if not (y.lo == y.hi == 0) else None
            if r is not None:
                out = iv.join(out, V(num=r))
        return out

    def visit_Neg(self, e, env):
        a = self.expr(e.operand, env)
        return V(num=iv.neg(a.num)) if a.num is not None else EMPTY

    def visit_Compare(self, e, env):
        a, b = self.expr(e.left, env), self.expr(e.right, env)
        if a.empty or b.empty:
            return EMPTY
        op = e.op
        if op in ("<", "<=", ">", ">="):
            if a.num is None or b.num is None:
                return EMPTY          # comparing a non-number stops the evaluation
            return iv.bools(*iv.compare(op, a.num, b.num))
        if op in ("==", "!="):
            return iv.bools(*self.equal(op, a, b))
        if op in ("in", "notin"):
            holds, fails = self.member(e.right, a, b, env)
            return iv.bools(holds, fails) if op == "in" else iv.bools(fails, holds)
        return BOOL

    def equal(self, op, a: V, b: V):
        """(can it hold, can it fail) for a == b (or !=)."""
        kinds_a = [k for k in ("num", "bools", "syms", "lst", "rec", "other") if _has(a, k)]
        kinds_b = [k for k in ("num", "bools", "syms", "lst", "rec", "other") if _has(b, k)]
        if len(kinds_a) == 1 and kinds_a == kinds_b and kinds_a[0] in ("num", "bools", "syms"):
            k = kinds_a[0]
            if k == "num":
                return iv.compare(op, a.num, b.num)
            if k == "bools":
                eq = bool(a.bools & b.bools)
                ne = not (len(a.bools) == 1 and a.bools == b.bools)
            else:
                if ALL in (a.syms, b.syms):
                    eq, ne = True, True
                else:
                    eq = bool(a.syms & b.syms)
                    ne = not (len(a.syms) == 1 and a.syms == b.syms)
            return (eq, ne) if op == "==" else (ne, eq)
        if not (set(kinds_a) & set(kinds_b)) and "other" not in kinds_a and "other" not in kinds_b \
                and "syms" not in kinds_a + kinds_b:
            return (False, True) if op == "==" else (True, False)
        return True, True

    def member(self, right, a: V, b: V, env):
        """(can it hold, can it fail) for `a in right`."""
        if isinstance(right, n.RangeExpr) and a.only_num():
            lo, hi = self.expr(right.low, env), self.expr(right.high, env)
            if lo.num is None or hi.num is None:
                return True, True
            x = a.num
            holds = x.hi >= lo.num.lo and x.lo <= hi.num.hi and lo.num.lo <= hi.num.hi
            fails = x.lo < lo.num.hi or x.hi > hi.num.lo or lo.num.hi > hi.num.lo
            return holds, fails
        if isinstance(right, (n.SetLit, n.ListLit)) and a.syms and a.syms != ALL and not a.num and not a.other:
            items = [self.expr(x, env) for x in right.items]
            if all(it.syms and it.syms != ALL and not it.num and not it.other and len(it.syms) == 1
                   for it in items):
                names = frozenset().union(*(it.syms for it in items)) if items else frozenset()
                return bool(a.syms & names), not a.syms <= names
        return True, True

    def visit_BoolOp(self, e, env):
        lt, lf = self.truth(self.expr(e.left, env))
        if e.op == "and":
            if not lt:
                return iv.FALSE
            rt, rf = self.right_operand(e, env, True, lf)
            return iv.bools(lt and rt, lf or rf)
        if not lf:
            return iv.TRUE
        rt, rf = self.right_operand(e, env, False, lt)
        return iv.bools(lt or rt, lf and rf)

    def right_operand(self, e, env, truth, skipped):
        """(true?, false?) of the right operand where the left is `truth` (`skipped`: may be unreached)."""
        self.unsure += skipped
        try:
            return self.truth(self.expr(e.right, self.refine(env, e.left, truth)))
        finally:
            self.unsure -= skipped

    def visit_Not(self, e, env):
        t, f = self.truth(self.expr(e.operand, env))
        return iv.bools(f, t)

    def truth(self, v: V):
        """(can it be true, can it be false) as a condition (the language's truthiness)."""
        if v.empty:
            return False, False
        t, f = True in v.bools, False in v.bools
        if v.num is not None:
            t = t or not (v.num.lo == v.num.hi == 0)
            f = f or v.num.lo <= 0 <= v.num.hi
        if v.lst is not None:
            t = t or v.lst.length.hi > 0
            f = f or v.lst.length.lo == 0
        if v.syms or v.rec is not None:
            t = True
        if v.other:
            t = f = True
        return t, f

    def visit_IfElse(self, e, env):
        holds, fails = self.truth(self.expr(e.cond, env))
        if self.recording:
            self.branches.setdefault(e, []).append((holds, fails, env))
        out = EMPTY
        doubt = 1 if holds and fails else 0
        self.unsure += doubt
        try:
            if holds:
                out = iv.join(out, self.expr(e.then, self.refine(env, e.cond, True)))
            if fails:
                out = iv.join(out, self.expr(e.orelse, self.refine(env, e.cond, False)))
        finally:
            self.unsure -= doubt
        return out

    def visit_RangeExpr(self, e, env):
        lo, hi = self.expr(e.low, env), self.expr(e.high, env)
        if lo.num is None or hi.num is None:
            return EMPTY
        a, b = lo.num, hi.num
        n_lo = max(0, b.lo - a.hi + 1) if fin(b.lo) and fin(a.hi) else 0
        n_hi = max(0, b.hi - a.lo + 1) if fin(b.hi) and fin(a.lo) else INF
        item = V(num=Num(a.lo, b.hi, whole=True)) if a.lo <= b.hi else EMPTY    # 1..0 has no items
        return V(lst=L(Num(n_lo, n_hi, whole=True), item), other=True)

    def visit_ListLit(self, e, env):
        items = [self.expr(x, env).plain() for x in e.items]
        return V(lst=L(Num(len(items), len(items), whole=True), iv.join_all(items) if items else EMPTY))

    def visit_SetLit(self, e, env):
        for x in e.items:
            self.expr(x, env)
        return V(other=True)

    def visit_Comprehension(self, e, env):
        src = self.expr(e.source, env)
        item, length = self.items_of(e.source, src)
        inner = dict(env)
        inner[e.var] = item
        self.unsure += 1           # per item: reached only if there are items (and they pass)
        try:
            holds, fails = (True, False) if e.cond is None else self.truth(self.expr(e.cond, inner))
            elem = self.expr(e.elem, self.refine(inner, e.cond, True) if e.cond is not None else inner) \
                if holds else EMPTY
        finally:
            self.unsure -= 1
        kept = Num(0 if fails else length.lo, length.hi if holds else 0, whole=True)
        return V(lst=L(kept, elem.plain()))

    def items_of(self, source, src: V):
        """(what one item can be, how many items) of a collection iterated."""
        if isinstance(source, n.Name):
            r = resolve(source.name, (), self.syms)
            if r.kind == "enum":
                members = self.syms.enums[source.name].members
                return V(syms=frozenset(members)), Num(len(members), len(members), whole=True)
            if r.kind == "table":
                rows = self.table_rows(source.name)
                return self.row_record(source.name), Num(len(rows), len(rows), whole=True)
        if src.lst is not None:
            item = src.lst.item if src.lst.item is not None else TOP
            if src.other and not isinstance(source, n.RangeExpr):
                return TOP, Num(0, INF, whole=True)
            return item.plain(), src.lst.length
        return TOP, Num(0, INF, whole=True)

    def visit_Attr(self, e, env):
        if isinstance(e.obj, n.Name) and e.obj.name not in env:
            if e.obj.name in self.syms.enums or (e.obj.name in self.syms.dice and self.syms.dice[e.obj.name].custom):
                return V(syms=frozenset({e.name}))
            if e.obj.name in self.syms.dice:
                return TOP
        obj = self.expr(e.obj, env)
        if obj.rec is not None and not obj.other:
            fields = dict(obj.rec)
            if e.name in fields:
                return fields[e.name]
            return EMPTY
        return TOP

    def visit_Index(self, e, env):
        obj = self.expr(e.obj, env)
        self.expr(e.index, env)
        if obj.lst is not None and obj.lst.item is not None and not obj.other:
            return obj.lst.item
        return TOP

    # ------------------------------------------------------------ refinement
    def refine(self, env, cond, truth: bool) -> dict:
        """The environment where `cond` is `truth` (names narrowed as far as the
        condition says; anything it does not say leaves them as they are)."""
        if cond is None:
            return env
        if isinstance(cond, n.Not):
            return self.refine(env, cond.operand, not truth)
        if isinstance(cond, n.BoolOp):
            if (cond.op == "and") == truth:
                return self.refine(self.refine(env, cond.left, truth), cond.right, truth)
            return env
        if isinstance(cond, n.Name) and cond.name in env:
            v = env[cond.name]
            if v.bools and not (v.num or v.syms or v.lst or v.rec or v.other):
                out = dict(env)
                out[cond.name] = V(bools=v.bools & {truth}) if truth in v.bools else v
                return out
            return env
        if not isinstance(cond, n.Compare):
            return env
        op = cond.op if truth else _NEGATE.get(cond.op)
        if op is None:
            return env
        out = env
        for name_side, other_side, o in ((cond.left, cond.right, op), (cond.right, cond.left, _FLIP.get(op))):
            if o is None or not isinstance(name_side, n.Name) or name_side.name not in env:
                continue
            if resolve(name_side.name, env, self.syms).kind != "local":
                continue
            x, y = env[name_side.name], self.expr(other_side, env)
            new = self.narrow(x, o, y)
            if new is not None:
                out = dict(out)
                out[name_side.name] = new
        return out

    def narrow(self, x: V, op, y: V):
        if op in ("<", "<=", ">", ">=") and x.num is not None and y.num is not None:
            a, b = x.num, y.num
            import math
            if op == "<":
                hi = (math.ceil(b.hi) - 1 if a.whole else b.hi) if fin(b.hi) else INF
                num = iv.meet(a, -INF, hi)
            elif op == "<=":
                num = iv.meet(a, -INF, b.hi)
            elif op == ">":
                lo = (math.floor(b.lo) + 1 if a.whole else b.lo) if fin(b.lo) else -INF
                num = iv.meet(a, lo, INF)
            else:
                num = iv.meet(a, b.lo, INF)
            return V(num=num) if num is not None else EMPTY
        if op == "==":
            if y.only_num() and x.num is not None:
                num = iv.meet(x.num, y.num.lo, y.num.hi)
                return V(num=num) if num is not None else EMPTY
            if y.syms and y.syms != ALL and not (y.num or y.bools or y.lst or y.rec or y.other) and x.syms:
                if x.syms == ALL:
                    return V(syms=y.syms)
                got = x.syms & y.syms
                return V(syms=got) if got else EMPTY
            return None
        if op == "!=":
            if y.syms and y.syms != ALL and len(y.syms) == 1 and x.syms and x.syms != ALL \
                    and not (y.num or y.bools or y.lst or y.rec or y.other):
                return V(num=x.num, bools=x.bools, syms=x.syms - y.syms, lst=x.lst, rec=x.rec, other=x.other)
            if y.only_num() and y.num.lo == y.num.hi and x.num is not None and x.num.whole and x.only_num():
                a = x.num
                if a.lo == y.num.lo:
                    num = iv.meet(a, a.lo + 1, INF)
                    return V(num=num) if num is not None else EMPTY
                if a.hi == y.num.hi:
                    num = iv.meet(a, -INF, a.hi - 1)
                    return V(num=num) if num is not None else EMPTY
            return None
        return None


_NEGATE = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


def _has(v: V, k: str) -> bool:
    x = getattr(v, k)
    return bool(x) if k in ("bools", "syms", "other") else x is not None

