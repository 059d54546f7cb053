"""The ranges pass across calls: an argument outside the called mechanic's declared range.

`saves(hits: 0..6)` fed `hits(shots)`, which can give 10, passed `rules check`; `rules
odds` then stopped with "saves: parameter 'hits' got 7; allowed: 0..6", naming no
place (issue 38).  The analysis carries each call's result into the calls that read
it, so while a mechanic is checked every argument of each call it makes itself is
compared with the parameter's declared range (`on_arg`, range_calls.py).  Where the
ranges allow a value outside it:

* **always** outside (every value the argument can take), at a call made whenever
  the mechanic runs: an error;
* outside for inputs the proof search finds (range_proofs.py: the mechanic analysed
  again with them pinned gives exactly that value at that call, and the call is
  made for sure): an error that names the inputs (said "with shots = 10 and
  every die of hits's roll d showing 6", as the pass's witnesses are);
* otherwise nothing is proven, and nothing is said (kept in `unproven`, for tests and
  tools).  Intervals over-approximate: `x > 0` after `require x != 1` still allows 1,
  and `total - needed` after `total >= needed` still allows negatives.  Of the four
  such calls in the real books (issue 38), two are of that kind (null-strike, void):
  a "may" warning there would be false, an error would block a working book.  So, as
  everywhere in this pass, only what is proven is said.

The same for a range `a..b` past the language's MAX_RANGE values (language/limits.py):
always, or with inputs that give it, at the range.

Each is reported at the argument, with the fix: widen the parameter's range, or keep
the argument inside it with min/max (clamp).  In a layered book, a finding in the
base's text that a change of the layers causes is reported at that change
(`place`), since that is where the designer wrote what broke it.
"""
from __future__ import annotations

from . import intervals as iv
from ..errors import Related
from ..language import nodes as n
from .intervals import fin
from ..language.limits import MAX_RANGE
from .range_proofs import pins_text

__all__ = ["ArgumentChecks", "numeric_ranges"]


class ArgumentChecks:
    """A mixin of the ranges pass (`RangePass`): the arguments of each checked mechanic's calls."""

    def collect_args(self):
        """A fresh record of the calls the checked mechanic makes, and the hook that fills it."""
        found = {}

        def on_arg(site, callee, param, v, sure):
            key = (id(site), param.name)
            if key in found:
                old = found[key]
                found[key] = (site, callee, param, iv.join(old[3], v), old[4] or sure)
            else:
                found[key] = (site, callee, param, v, sure)
        return found, on_arg

    unproven = ()
    on_range = None           # (RangeExpr, low, high, reached for sure) in the checked mechanic itself

    def visit_RangeExpr(self, e, env):
        """A range `a..b` holds at most MAX_RANGE values: its ends are read once more for
        the check (only in the checked mechanic's own body, where the hook is set)."""
        if self.on_range is not None and not self.active:
            self.on_range(e, self.expr(e.low, env), self.expr(e.high, env), self.unsure == 0)
        return super().visit_RangeExpr(e, env)

    def collect_ranges(self):
        found = {}

        def on_range(e, lo, hi, sure):
            if lo.num is not None and hi.num is not None:
                old = found.get(id(e))
                width = iv.sub(hi.num, lo.num)
                if old is not None:
                    width = iv.join(iv.V(num=old[1]), iv.V(num=width)).num
                    sure = sure or old[2]
                found[id(e)] = (e, width, sure, lo.only_num() and hi.only_num())
        return found, on_range

    def check_range_sizes(self, m: n.Mechanic, found: dict):
        for e, width, sure, plain in found.values():
            if not fin(width.hi) or width.hi < MAX_RANGE or self.report is None:
                continue
            from ..language.render import expr_text
            text = f"{expr_text(e.low)}..{expr_text(e.high)}"
            hint = (f"a range holds at most {MAX_RANGE:,} values (a limit of the language): narrow the declared "
                    f"ranges of what its ends read, or bound it ({expr_text(e.low)}..min({expr_text(e.high)}, "
                    f"{expr_text(e.low)} + {MAX_RANGE - 1}))")
            if plain and width.lo >= MAX_RANGE:
                self.place(m, e.span, f"the range {text} always has more than {MAX_RANGE:,} values",
                           hint, severity="error" if sure else "warning")
                continue
            proof = self.prove(m, lambda pins, e=e: self.width_under(m, pins, e), lambda x: x >= MAX_RANGE,
                               first=(width.whi,))
            if proof is not None:
                pins, value = proof
                self.place(m, e.span, f"with {pins_text(pins, m, self.syms)}, the range {text} has "
                           f"{iv.shown(value + 1)} values: more than the {MAX_RANGE:,} a range holds", hint)

    def width_under(self, m, pins, e):
        got = []
        saved = self.on_range

        def on_range(x, lo, hi, sure):
            if x is e and lo.num is not None and hi.num is not None:
                got.append((iv.V(num=iv.sub(hi.num, lo.num)), sure))
        self.on_range = on_range
        try:
            ok = self.pinned_run(m, pins) is not None
        finally:
            self.on_range = saved
        return got[0][0] if ok and len(got) == 1 and got[0][1] else None

    def check_arguments(self, m: n.Mechanic, found: dict):
        if not self.unproven:
            self.unproven = []
        for site, callee, param, v, sure in found.values():
            self.check_argument(m, site, callee, param, v, sure)

    def check_argument(self, m, site: n.Call, callee: n.Mechanic, param, v, sure):
        allowed = numeric_ranges(param.type, self.syms)
        if not allowed or v.num is None or self.report is None:
            return
        num = v.num

        def inside(x):
            return any(lo <= x <= hi for lo, hi in allowed)
        if inside(num.lo) and inside(num.hi) and any(lo <= num.lo and num.hi <= hi for lo, hi in allowed):
            return
        from ..language.render import expr_text, type_text
        arg = argument_of(site, callee, param)
        if arg is None:
            return
        text, declared = expr_text(arg), type_text(param.type)
        takes = f"{callee.name} takes {param.name} {declared}"
        hint = fix_hint(callee, param, num, allowed, text)
        if v.only_num() and all(num.hi < lo or num.lo > hi for lo, hi in allowed):
            self.place(m, arg.span, f"{text} is always outside what {takes}: it is {iv.interval_text(num)}",
                       hint, severity="error" if sure else "warning")
            return
        proof = self.prove(m, lambda pins: self.arg_under(m, pins, site, param.name),
                           lambda x: not inside(x), first=(num.whi, num.wlo))
        if proof is not None:
            pins, value = proof
            self.place(m, arg.span, f"with {pins_text(pins, m, self.syms)}, {text} gives {iv.shown(value)}, "
                       f"but {takes}", hint)
            return
        self.unproven.append((site, param.name, num))     # nothing proven: nothing said

    def arg_under(self, m, pins, site, param_name):
        """The argument for `param_name` at `site`, with `m`'s inputs pinned; None unless
        the call is made for sure."""
        got = []

        def on_arg(s, callee, param, v, sure):
            if s is site and param.name == param_name:
                got.append((v, sure))
        if self.pinned_run(m, pins, on_arg=on_arg) is None or len(got) != 1 or not got[0][1]:
            return None
        return got[0][0]

    # ------------------------------------------------------------ where
    def place(self, m: n.Mechanic, span: n.Span, message: str, hint: str, severity: str = "error"):
        """Report at `span`; in a layered book, a finding in the base's files that a
        change of the layers causes is reported at that change, the base's place noted."""
        book = getattr(self, "book", None)
        layers = getattr(book, "layers", ()) if book is not None else ()
        mine = {layer.file for layer in layers}
        if not layers or span.file in mine:
            self.report(span, message, hint, severity=severity)
            return
        from .reach import Reach
        names = Reach(book).closure(m)
        found = [c for layer in layers for c in layer.changes if set(c.names) & names]
        if not found:
            self.report(span, message, hint, severity=severity)
            return
        first = found[0]
        related = [Related.at(span, f"in {m.name}, here")]
        related += [Related.at(c.span, f"also caused by change {c.number} of {c.layer}: {c.text}") for c in found[1:3]]
        self.report(first.span, f"after this change ({first.text}), {message}",
                    f"the layer's change causes this; fix it in the layer: {hint} (a base mechanic is "
                    "changed with `replace mechanic NAME ...`), or make the change keep it in range",
                    severity=severity, related=related)


def argument_of(site: n.Call, callee: n.Mechanic, param):
    """The argument expression `site` gives `param` (positional or by name)."""
    for k, a in site.kwargs:
        if k == param.name:
            return a
    i = [p.name for p in callee.params].index(param.name)
    return site.args[i] if i < len(site.args) else None


def fix_hint(callee, param, num, allowed, text) -> str:
    lo = min(a for a, _ in allowed)
    hi = max(b for _, b in allowed)
    wide_lo = min(lo, num.lo) if fin(num.lo) else None
    wide_hi = max(hi, num.hi) if fin(num.hi) else None
    if wide_lo is not None and wide_hi is not None:
        widen = f"widen the parameter's range ({param.name}: {iv.shown(wide_lo)}..{iv.shown(wide_hi)} in {callee.name})"
    else:
        widen = f"widen the range of {callee.name}'s parameter {param.name}"
    if num.hi > hi and num.lo < lo:
        clamp = f"clamp({text}, {iv.shown(lo)}, {iv.shown(hi)})"
    elif num.hi > hi:
        clamp = f"min({text}, {iv.shown(hi)})"
    else:
        clamp = f"max({text}, {iv.shown(lo)})"
    return f"{widen}, or keep the argument inside it: {clamp}"


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
