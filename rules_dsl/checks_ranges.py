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
  the same for an exploding roll's `up to`;
* a result **outside the declared result type**, always, or for a witness;
* a **branch that can never be taken**: an `if` whose condition the ranges decide
  the same way every time (a warning: the book still works, but the branch is dead
  text).

It never guesses: what it cannot follow is "anything", which proves nothing.
"""
from __future__ import annotations

from fractions import Fraction

from . import intervals as iv
from . import nodes as n
from .builtins import BUILTINS
from .dice import MAX_DICE
from .intervals import ALL, BOOL, EMPTY, INF, L, Num, TOP, V, fin
from .model import decls_of
from .resolve import resolve, resolve_callee

MAX_CALL_ANALYSES = 4000     # context-sensitive analyses of called mechanics in one pass
MAX_DEPTH = 8                # calls followed into; deeper, a call gives its declared result


def check_ranges(book, syms, report):
    RangePass(syms, report).run(book)


class _Unreachable(Exception):
    """The evaluation cannot get here for any input (a require that never holds...)."""


class RangePass:
    def __init__(self, syms, report=None):
        self.syms, self.report = syms, report
        self._consts, self._busy = {}, set()
        self._tables = {}
        self.memo = {}
        self.active = []
        self.recording = False
        self.branches = {}       # IfElse -> [(can hold, can fail, env)] seen while checking its own mechanic
        self.pins = None         # input -> value, while confirming a witness

    # ------------------------------------------------------------ the pass
    def run(self, book):
        for p in decls_of(book):
            if isinstance(p.node, n.Mechanic):
                try:
                    self.check_mechanic(p.node)
                except RecursionError:    # pragma: no cover - nesting is bounded by the parser
                    continue
        self.report_branches()

    def check_mechanic(self, m: n.Mechanic):
        counts = []
        self.recording = True
        try:
            result = self.run_mechanic(m, self.inputs(m), on_roll=lambda s, c, cap: counts.append((s, c, cap)))
        except _Unreachable:
            return
        finally:
            self.recording = False
        for s, count, cap in counts:
            self.check_count(m, s, count, "count")
            if cap is not None:
                self.check_count(m, s, cap, "cap")
        self.check_result(m, result)

    def inputs(self, m: n.Mechanic) -> dict:
        return {p.name: self.of_type(p.type, var=p.name) for p in m.params}

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
                if not holds:
                    raise _Unreachable
                env = self.refine(env, s.cond, True)
        return self.expr(m.result, env)

    def roll(self, s: n.Roll, count, cap) -> V:
        spec = s.dice
        die = self.syms.dice.get(spec.die)
        if die is None:
            return TOP
        if self.pins is not None and s.name in self.pins:
            return iv.point(self.pins[s.name], ((s.name, self.pins[s.name]),))
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
            extra = cap.num if cap is not None and cap.num is not None else Num(0, 20, whole=True)
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
        m = getattr(self, "e_" + type(e).__name__, None)
        return m(e, env) if m is not None else TOP

    def e_Literal(self, e, env):
        v = e.value
        if isinstance(v, bool):
            return iv.TRUE if v else iv.FALSE
        if isinstance(v, (int, Fraction)):
            return iv.point(v)
        return V(other=True)

    def e_Name(self, e, env):
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
        self._consts[name] = v
        return v

    def e_BinOp(self, e, env):
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

    def e_Neg(self, e, env):
        a = self.expr(e.operand, env)
        return V(num=iv.neg(a.num)) if a.num is not None else EMPTY

    def e_Compare(self, e, env):
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

    def e_BoolOp(self, e, env):
        lt, lf = self.truth(self.expr(e.left, env))
        if e.op == "and":
            if not lt:
                return iv.FALSE
            rt, rf = self.truth(self.expr(e.right, self.refine(env, e.left, True)))
            return iv.bools(lt and rt, lf or rf)
        if not lf:
            return iv.TRUE
        rt, rf = self.truth(self.expr(e.right, self.refine(env, e.left, False)))
        return iv.bools(lt or rt, lf and rf)

    def e_Not(self, e, env):
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

    def e_IfElse(self, e, env):
        holds, fails = self.truth(self.expr(e.cond, env))
        if self.recording:
            self.branches.setdefault(e, []).append((holds, fails, env))
        out = EMPTY
        if holds:
            out = iv.join(out, self.expr(e.then, self.refine(env, e.cond, True)))
        if fails:
            out = iv.join(out, self.expr(e.orelse, self.refine(env, e.cond, False)))
        return out

    def e_RangeExpr(self, e, env):
        lo, hi = self.expr(e.low, env), self.expr(e.high, env)
        if lo.num is None or hi.num is None:
            return EMPTY
        a, b = lo.num, hi.num
        n_lo = max(0, b.lo - a.hi + 1) if fin(b.lo) and fin(a.hi) else 0
        n_hi = max(0, b.hi - a.lo + 1) if fin(b.hi) and fin(a.lo) else INF
        return V(lst=L(Num(n_lo, n_hi, whole=True), V(num=Num(a.lo, b.hi, whole=True))), other=True)

    def e_ListLit(self, e, env):
        items = [self.expr(x, env).plain() for x in e.items]
        return V(lst=L(Num(len(items), len(items), whole=True), iv.join_all(items) if items else EMPTY))

    def e_SetLit(self, e, env):
        for x in e.items:
            self.expr(x, env)
        return V(other=True)

    def e_Comprehension(self, e, env):
        src = self.expr(e.source, env)
        item, length = self.items_of(e.source, src)
        inner = dict(env)
        inner[e.var] = item
        holds, fails = (True, False) if e.cond is None else self.truth(self.expr(e.cond, inner))
        elem = self.expr(e.elem, self.refine(inner, e.cond, True) if e.cond is not None else inner) if holds else EMPTY
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

    def e_Attr(self, e, env):
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

    def e_Index(self, e, env):
        obj = self.expr(e.obj, env)
        self.expr(e.index, env)
        if obj.lst is not None and obj.lst.item is not None and not obj.other:
            return obj.lst.item
        return TOP

    # ------------------------------------------------------------ calls
    def e_Call(self, e, env):
        f = e.func
        kind = resolve_callee(f.name, env, self.syms).kind if isinstance(f, n.Name) else "value"
        if kind == "builtin":
            return self.builtin(f.name, e, env)
        args = [self.expr(a, env) for a in e.args]
        kwargs = {k: self.expr(a, env) for k, a in e.kwargs}
        if kind == "mechanic":
            return self.call(self.syms.mechanics[f.name], args, kwargs)
        if kind == "table":
            return self.lookup(f.name, args, kwargs)
        return TOP

    def call(self, m: n.Mechanic, args, kwargs) -> V:
        declared = self.of_type(m.returns)
        bound = {}
        for p, a in zip(m.params, args):
            bound[p.name] = a
        for k, a in kwargs.items():
            if any(p.name == k for p in m.params):
                bound[k] = a
        for p in m.params:
            v = bound.get(p.name)
            if v is None:
                v = self.expr(p.default, {}) if p.default is not None else self.of_type(p.type)
            v = self.restrict(v.plain(), p.type)
            if v.empty:
                return EMPTY          # the call always stops with an InputError
            bound[p.name] = v
        if m.name in self.active or len(self.active) >= MAX_DEPTH or len(self.memo) >= MAX_CALL_ANALYSES:
            return declared
        key = (m.name, tuple(sorted(bound.items(), key=lambda kv: kv[0])))
        try:
            hit = self.memo.get(key)
        except TypeError:      # pragma: no cover - every V is hashable
            hit = None
        if hit is not None:
            return hit
        recording, pins = self.recording, self.pins
        self.recording, self.pins = False, None
        self.active.append(m.name)
        try:
            given = {k: v for k, v in bound.items() if any(p.name == k for p in m.params)}
            out = self.run_mechanic(m, given).plain()
        except _Unreachable:
            out = EMPTY
        finally:
            self.active.pop()
            self.recording, self.pins = recording, pins
        out = self.restrict(out, m.returns) if not out.empty else out
        self.memo[key] = out
        return out

    def table_rows(self, name):
        """[(key Vs, value V)] of a table, from the values its cells print."""
        if name in self._tables:
            return self._tables[name]
        t = self.syms.tables[name]
        fields = [f for f, _ in t.returns.fields] if isinstance(t.returns, n.RecordType) else None
        rows = []
        if t.grid:
            cols = [self.cell(c) for c in t.header[1:]]
            for row in t.rows:
                rk = self.cell(row[0])
                for ck, c in zip(cols, row[1:]):
                    rows.append(((rk, ck), self.cell(c)))
        else:
            nk = len(t.params)
            for row in t.rows:
                keys = tuple(self.cell(c) for c in row[:nk])
                vals = [self.cell(c) for c in row[nk:]]
                if fields:
                    value = V(rec=tuple(zip(fields, vals))) if len(vals) == len(fields) else TOP
                else:
                    value = vals[0] if vals else TOP
                rows.append((keys, value))
        self._tables[name] = rows
        return rows

    def cell(self, c: n.Cell) -> V:
        v = c.value
        if isinstance(v, bool):
            return iv.TRUE if v else iv.FALSE
        if isinstance(v, (int, Fraction)):
            return iv.point(v)
        if isinstance(v, tuple):
            return V(num=Num(v[0], v[1], whole=True))
        if isinstance(v, n.Name):
            if v.name in self.syms.consts:
                return self.const(v.name)
            return V(syms=frozenset({v.name}))
        return V(other=True)

    def row_record(self, name) -> V:
        t = self.syms.tables[name]
        rows = self.table_rows(name)
        fields = [p.name for p in t.params]
        out = []
        for keys, value in rows:
            rec = list(zip(fields, keys))
            if value.rec is not None:
                rec += list(value.rec)
            else:
                rec.append(("value", value))
            out.append(V(rec=tuple(rec)))
        return iv.join_all(out) if out else EMPTY

    def lookup(self, name, args, kwargs) -> V:
        t = self.syms.tables[name]
        keys = [None] * len(t.params)
        for i, a in enumerate(args[: len(keys)]):
            keys[i] = a
        for k, a in kwargs.items():
            for i, p in enumerate(t.params):
                if p.name == k:
                    keys[i] = a
        out = EMPTY
        for row_keys, value in self.table_rows(name):
            if all(k is None or _may_match(k, rk) for k, rk in zip(keys, row_keys)):
                out = iv.join(out, value)
        return out

    def builtin(self, name, e, env) -> V:
        if name == "round":
            x = self.expr(e.args[0], env) if e.args else TOP
            return V(num=iv.round_any(x.num, e.mode)) if x.num is not None and e.mode else V(num=Num(-INF, INF, whole=True))
        args = [self.expr(a, env) for a in e.args]
        first = args[0] if args else TOP
        nums = [a.num for a in args]
        if name in ("count", "len"):
            if first.lst is None or first.other and not isinstance(e.args[0], n.Comprehension):
                return V(num=Num(0, INF, whole=True))
            length = first.lst.length
            if name == "count":
                item = first.lst.item
                always = item is not None and not item.other and False not in item.bools
                return V(num=Num(length.lo if always else 0, length.hi, whole=True))
            return V(num=Num(length.lo, length.hi, whole=True))
        if name == "sum":
            if first.lst is None or first.lst.item is None or first.lst.item.num is None or first.other:
                return iv.NUM
            return V(num=iv.scale_count(first.lst.length, first.lst.item.num))
        if name in ("max", "min"):
            if len(args) == 1:
                if first.lst is not None and first.lst.item is not None and not first.other:
                    return first.lst.item
                return TOP
            if all(x is not None for x in nums) and all(a.only_num() for a in args):
                acc = nums[0]
                for x in nums[1:]:
                    acc = iv.max2(acc, x) if name == "max" else iv.min2(acc, x)
                return V(num=acc)
            return iv.join_all(args)
        if name == "abs":
            return V(num=iv.abs_(first.num)) if first.num is not None else EMPTY
        if name == "floor":
            return V(num=iv.floor_(first.num)) if first.num is not None else EMPTY
        if name == "ceil":
            return V(num=iv.ceil_(first.num)) if first.num is not None else EMPTY
        if name == "clamp":
            if len(args) == 3 and all(x is not None for x in nums):
                x, lo, hi = nums
                return V(num=iv.max2(lo, iv.min2(hi, x)))
            return iv.NUM
        if name in ("even", "odd"):
            x = first.num
            if x is not None and x.lo == x.hi and fin(x.lo) and Fraction(x.lo).denominator == 1:
                even = int(x.lo) % 2 == 0
                return iv.TRUE if even == (name == "even") else iv.FALSE
            return BOOL
        if name in ("sorted", "highest", "lowest"):
            if first.lst is None or first.other:
                return V(lst=L(Num(0, INF, whole=True), None))
            length = first.lst.length
            if name != "sorted":
                k = nums[1] if len(nums) > 1 and nums[1] is not None else Num(1, 1, whole=True)
                length = Num(min(length.lo, k.lo) if fin(k.lo) else length.lo, min(length.hi, k.hi), whole=True)
                length = Num(max(length.lo, 0), max(length.hi, 0), whole=True)
            return V(lst=L(length, first.lst.item))
        if name == "rows":
            a = e.args[0] if e.args else None
            if isinstance(a, n.Name) and a.name in self.syms.tables:
                k = len(self.table_rows(a.name))
                return V(lst=L(Num(k, k, whole=True), self.row_record(a.name)))
            return V(lst=L(Num(0, INF, whole=True), None))
        if name == "or_else":
            return iv.join(V(num=first.num, bools=first.bools, syms=first.syms, lst=first.lst, rec=first.rec,
                             other=first.other), args[1] if len(args) > 1 else TOP)
        if name in ("any", "all", "is_absent", "covers", "defined"):
            return BOOL
        if name in BUILTINS:
            return TOP
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
            return
        num = v.num
        expr = s.dice.count if what == "count" else s.dice.cap
        from .render import expr_text
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
            self.report(where, f"roll '{s.name}' takes {iv.shown(num.lo)} {said}"
                        + (f" ({text})" if text != iv.shown(num.lo) else "")
                        + f": {'a number of dice cannot be negative' if num.lo < 0 else f'a roll takes at most {limit}'}",
                        hint)
            return
        if v.only_num() and num.hi < 0:
            self.report(where, f"{head}, {text}, is always negative ({iv.interval_text(num)})", hint)
            return
        if v.only_num() and num.lo > limit:
            self.report(where, f"{head}, {text}, is always more than {limit} ({iv.interval_text(num)})", hint)
            return
        if fin(num.lo) and num.lo < 0 and num.wlo is not None:
            if self.confirm(m, num.wlo, ("roll", s.name, what), num.lo):
                self.report(where, f"{head}, {text}, can be negative: it is {iv.shown(num.lo)} "
                            f"with {witness_text(num.wlo, m)}", hint)
                return
        if fin(num.hi) and num.hi > limit and num.whi is not None:
            if self.confirm(m, num.whi, ("roll", s.name, what), num.hi):
                self.report(where, f"{head}, {text}, can be more than {limit}: it is {iv.shown(num.hi)} "
                            f"with {witness_text(num.whi, m)}", hint)

    def check_result(self, m, result: V):
        if self.report is None or result.num is None:
            return
        allowed = numeric_ranges(m.returns, self.syms)
        if allowed is None or not allowed:
            return
        from .render import type_text
        declared = type_text(m.returns)
        num = result.num

        def inside(x):
            return any(lo <= x <= hi for lo, hi in allowed)
        if result.only_num() and all(num.hi < lo or num.lo > hi for lo, hi in allowed):
            self.report(m.result.span, f"{m.name}'s result is always outside its declared result {declared}: "
                        f"it is {iv.interval_text(num)}",
                        "correct the formula, or the declared result after '->'")
            return
        for end, w in ((num.hi, num.whi), (num.lo, num.wlo)):
            if fin(end) and w is not None and not inside(end) and self.confirm(m, w, ("result",), end):
                self.report(m.result.span, f"{m.name} can give {iv.shown(end)}, outside its declared result "
                            f"{declared}: with {witness_text(w, m)}",
                            "widen the declared result after '->', or keep the result inside it "
                            "(clamp(x, low, high))")
                return

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
        except _Unreachable:
            return False
        finally:
            self.pins = saved
        if not ok[0]:
            return False
        if target[0] == "result":
            got = result
        else:
            count, cap = seen.get(target[1], (None, None))
            got = count if target[2] == "count" else cap
        return got is not None and got.only_num() and got.num.lo == got.num.hi == value


_NEGATE = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


def _has(v: V, k: str) -> bool:
    x = getattr(v, k)
    return bool(x) if k in ("bools", "syms", "other") else x is not None


def _may_match(arg: V, key: V) -> bool:
    """Could an argument described by `arg` select a row whose key cell is `key`?"""
    if arg.other or key.other:
        return True
    if key.num is not None and arg.num is not None:
        if arg.num.lo <= key.num.hi and key.num.lo <= arg.num.hi:
            return True
    if key.syms and arg.syms:
        if ALL in (key.syms, arg.syms) or key.syms & arg.syms:
            return True
    if key.bools and arg.bools and key.bools & arg.bools:
        return True
    return False


def numeric_ranges(t, syms):
    """The numbers a declared type admits, as [(low, high)]; None when any number is
    admitted (int, number); [] when none is."""
    if isinstance(t, n.UnionType):
        out = []
        for o in t.options:
            r = numeric_ranges(o, syms)
            if r is None:
                return None
            out += r
        return out
    if isinstance(t, n.RangeType):
        return [(t.low, t.high)]
    name = getattr(t, "name", None)
    if name in ("int", "number"):
        return None
    if name in syms.dice and not syms.dice[name].custom:
        return [(1, len(syms.dice[name].faces))]
    return []


def witness_text(w, m: n.Mechanic) -> str:
    params = {p.name for p in m.params}
    order = [p.name for p in m.params] + [s.name for s in m.body if isinstance(s, n.Roll)]
    parts = []
    for k, v in sorted(w, key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order)):
        shown = iv.shown(v)
        parts.append(f"{k} = {shown}" if k in params else f"the roll {k} showing {shown}")
    return " and ".join(parts) if parts else "any inputs"


def branch_message(e: n.IfElse, holds: bool, env) -> tuple:
    from .render import expr_text
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
