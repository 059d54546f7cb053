"""The range analysis of calls, table reads and built-ins: what each can give.

`CallRanges` holds the `visit_Call` of the range analysis and what it leads to: a call of
a mechanic analysed again for its arguments' ranges (memoised, within
`MAX_CALL_ANALYSES` analyses and `MAX_DEPTH` calls deep; past them, the declared
result), a table read as the join of the rows its keys may select (from the values
the cells print), and each built-in's range.

Split from checks_ranges.py (issue 32): a mixin of the analysis, whose core
(range_analysis.py: `expr`, `of_type`, `restrict`, `run_mechanic`, `const`) it uses;
checks_ranges.py's `RangePass` puts the two together.
"""
from __future__ import annotations

from fractions import Fraction

from . import intervals as iv
from ..language import nodes as n
from ..language.builtins import BUILTINS
from .intervals import ALL, BOOL, EMPTY, INF, L, Num, TOP, V, fin
from .range_analysis import Unreachable
from .resolve import resolve_callee

__all__ = ["CallRanges", "MAX_CALL_ANALYSES", "MAX_DEPTH", "MAX_PROOF_CALLS", "MAX_PROOF_CALLS_IN_PASS"]

MAX_CALL_ANALYSES = 4000     # context-sensitive analyses of called mechanics in one pass
MAX_DEPTH = 8                # calls followed into; deeper, a call gives its declared result
MAX_PROOF_CALLS = 500        # analyses of called mechanics in one pinned analysis (range_proofs.py)
MAX_PROOF_CALLS_IN_PASS = 20_000   # the same, in all the pinned analyses of one pass over a book


class CallRanges:
    """Calls, table reads and built-ins, as methods of the range analysis (see the module doc)."""

    # ------------------------------------------------------------ calls
    def visit_Call(self, e, env):
        f = e.func
        kind = resolve_callee(f.name, env, self.syms).kind if isinstance(f, n.Name) else "value"
        if kind == "builtin":
            return self.builtin(f.name, e, env)
        args = [self.expr(a, env) for a in e.args]
        kwargs = {k: self.expr(a, env) for k, a in e.kwargs}
        if kind == "mechanic":
            return self.call(self.syms.mechanics[f.name], args, kwargs, site=e)
        if kind == "table":
            return self.lookup(f.name, args, kwargs)
        return TOP

    def call(self, m: n.Mechanic, args, kwargs, site=None) -> V:
        declared = self.of_type(m.returns)
        bound = {}
        for p, a in zip(m.params, args):
            bound[p.name] = a
        for k, a in kwargs.items():
            if any(p.name == k for p in m.params):
                bound[k] = a
        for p in m.params:
            v = bound.get(p.name)
            if v is not None and site is not None and self.on_arg is not None and not self.active:
                self.on_arg(site, m, p, v, self.unsure == 0)    # a call the checked mechanic makes itself
            if v is None:
                v = self.expr(p.default, {}) if p.default is not None else self.of_type(p.type)
            v = self.restrict(v.plain(), p.type)
            if v.empty:
                return EMPTY          # the call always stops with an InputError
            bound[p.name] = v
        if m.name in self.active or len(self.active) >= MAX_DEPTH or len(self.memo) >= MAX_CALL_ANALYSES:
            return declared
        # While a finding is confirmed the callee's rolls may be pinned too ("hits.d" is
        # the roll d of hits): its analysis is then its own, neither read from the memo
        # nor kept in it.  A memo entry says whether a `require` in it may fail, so a
        # proof that reads it knows (a proof needs every require to hold for sure).
        prefix = m.name + "."
        inner_pins = {k[len(prefix):]: v for k, v in (self.pins or {}).items() if k.startswith(prefix)}
        key = (m.name, tuple(sorted(bound.items(), key=lambda kv: kv[0])))
        use_memo = not inner_pins
        try:
            hit = self.memo.get(key) if use_memo else None
        except TypeError:      # pragma: no cover - every V is hashable
            hit = None
        if hit is not None:
            self.doubts += hit[1]
            return hit[0]
        if self.proving:
            self.proof_calls += 1
            self.proof_calls_in_pass = getattr(self, "proof_calls_in_pass", 0) + 1
            if self.proof_calls > MAX_PROOF_CALLS or self.proof_calls_in_pass > MAX_PROOF_CALLS_IN_PASS:
                return declared        # past the proofs' budget: the declared result proves nothing
        recording, pins, doubts = self.recording, self.pins, self.doubts
        self.recording, self.pins = False, (inner_pins or None)
        self.active.append(m.name)
        try:
            given = {k: v for k, v in bound.items() if any(p.name == k for p in m.params)}
            out = self.run_mechanic(m, given).plain()
        except Unreachable:
            out = EMPTY
        finally:
            self.active.pop()
            self.recording, self.pins = recording, pins
        out = self.restrict(out, m.returns) if not out.empty else out
        if use_memo:
            self.memo[key] = (out, 1 if self.doubts > doubts else 0)
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
