"""Proofs for the ranges pass: inputs under which a value the ranges allow is reached.

Intervals over-approximate, so "the ranges allow 10" proves nothing by itself.  A
finding said with "can" needs a proof: inputs under which it happens.  The proof is
an analysis of the mechanic again with its inputs pinned (`pinned_run`): its
parameters to values, its rolls (and the rolls of the mechanics it calls, by path:
"hits.d") to one face on every die (range_pins.py).  The analysis is sound, so when
every input is pinned and the value analysed is one number, that number is what a
run gives; every `require` met on the way must hold for sure (one that may fail
voids the proof, in a called mechanic too: a memo entry says whether one may), and
a called mechanic whose rolls are pinned is analysed afresh, never from the memo.

`prove` searches a bounded set of pinnings (`candidates`): the interval's own
witness first, then each parameter at an end of its declared range, each roll at
its lowest or highest face; at most MAX_CANDIDATES analyses (MAX_PINNED_RUNS in
one pass over a book), each within
range_calls.MAX_PROOF_CALLS analyses of called mechanics.  What it does not find stays
unproven (a finding then says "may", or is not made).  A proof is then made
minimal: a pin that the value does not need is dropped, so the message names only
the inputs that matter.
"""
from __future__ import annotations

import itertools
from typing import Callable, Optional

from . import intervals as iv
from ..language import nodes as n
from .callgraph import callees
from .intervals import V
from .range_analysis import Unreachable

__all__ = ["Proofs", "MAX_CANDIDATES", "MAX_PINNED_RUNS", "pins_text"]

MAX_CANDIDATES = 48          # pinned analyses tried for one finding
MAX_PINNED_RUNS = 2000       # pinned analyses in one pass over a book; past them, nothing more is proven
MAX_COMBINATIONS = 32        # parameters' ends combined; past it, all low and all high only
ROLL_DEPTH = 3               # calls followed to find the rolls a pin may fix


class Proofs:
    """A mixin of the ranges pass (it uses `run_mechanic`, `of_type` and the pass's state)."""

    def pinned_run(self, m: n.Mechanic, pins: dict, on_arg=None) -> Optional[V]:
        """`m` analysed with `pins` (parameter -> value, roll path -> face); None when it
        cannot be evaluated so, or a `require` on the way may fail."""
        self.pinned_runs = getattr(self, "pinned_runs", 0) + 1
        if self.pinned_runs > MAX_PINNED_RUNS:
            return None                 # the pass's budget for proofs is spent: unproven
        params = {p.name for p in m.params}
        env = {p.name: (pin_value(p.name, pins[p.name]) if p.name in pins else self.of_type(p.type, var=p.name))
               for p in m.params}
        saved = (self.pins, self.proving, self.doubts, self.on_arg, self.proof_calls)
        self.pins = {k: v for k, v in pins.items() if k not in params}
        self.proving, self.doubts, self.on_arg, self.proof_calls = True, 0, on_arg, 0
        try:
            result = self.run_mechanic(m, env)
            doubts = self.doubts
        except Unreachable:
            return None
        finally:
            self.pins, self.proving, self.doubts, self.on_arg, self.proof_calls = saved
        return None if doubts else result

    def prove(self, m: n.Mechanic, value_of: Callable, outside: Callable, first=()) -> Optional[tuple]:
        """(pins, value): a pinning of `m`'s inputs under which `value_of(pins)` (a V or
        None) is one number for which `outside(number)` holds; None if none is found."""
        def shows(pins):
            v = value_of(pins)
            if v is None or not v.only_num() or v.num.point is None or not outside(v.num.point):
                return None
            return v.num.point
        for pins in self.candidates(m, first):
            if shows(pins) is None:
                continue
            for k in list(pins):            # minimal: drop each pin the value does not need
                fewer = {x: y for x, y in pins.items() if x != k}
                if shows(fewer) is not None:
                    pins = fewer
            return pins, shows(pins)
        return None

    def candidates(self, m: n.Mechanic, first=()):
        """Pinnings to try (dicts), the witnesses `first` (each ((input, value), ...)) first."""
        rolls = self.roll_paths(m)
        modes = [{}, {path: hi for path, lo, hi in rolls}, {path: lo for path, lo, hi in rolls}]
        ends = [(p.name, param_ends(p.type, self.syms)) for p in m.params]
        ends = [(k, vs) for k, vs in ends if vs]
        combos = []
        for w in first:
            if w is not None:
                combos.append(dict(w))
        size = 1
        for _, vs in ends:
            size *= len(vs)
        if size <= MAX_COMBINATIONS:
            combos += [dict(zip([k for k, _ in ends], vals)) for vals in itertools.product(*[vs for _, vs in ends])]
        else:
            combos += [{k: vs[0] for k, vs in ends}, {k: vs[-1] for k, vs in ends}]
        seen, count = set(), 0
        for combo in combos:
            for mode in modes:
                pins = dict(mode)
                pins.update(combo)
                key = tuple(sorted(pins.items(), key=lambda kv: kv[0]))
                if key in seen:
                    continue
                seen.add(key)
                count += 1
                if count > MAX_CANDIDATES:
                    return
                yield pins

    def roll_paths(self, m: n.Mechanic, prefix: str = "", depth: int = 0, active=()) -> list:
        """[(path, lowest face, highest face)] of the rolls of standard dice `m` makes and
        those of the mechanics it calls (to ROLL_DEPTH calls), named by path."""
        out = []
        for s in m.body:
            if isinstance(s, n.Roll) and s.dice.kind != "chain":
                die = self.syms.dice.get(s.dice.die)
                if die is not None and not die.custom:
                    out.append((prefix + s.name, min(die.faces), max(die.faces)))
        if depth < ROLL_DEPTH:
            for name in callees(m, self.syms):
                if name not in active and name != m.name:
                    out += self.roll_paths(self.syms.mechanics[name], f"{prefix}{name}.", depth + 1,
                                           tuple(active) + (m.name,))
        return out


def pin_value(name, value) -> V:
    if isinstance(value, bool):
        return iv.TRUE if value else iv.FALSE
    if isinstance(value, str):
        return V(syms=frozenset({value}))
    return iv.point(value, ((name, value),))


def param_ends(t, syms) -> list:
    """The values a parameter is pinned to: the ends of its declared range, both truth
    values, an enum's first and last members ([] when none can be named)."""
    if isinstance(t, n.RangeType):
        return list(dict.fromkeys([t.low, t.high]))
    name = getattr(t, "name", None)
    if name == "bool":
        return [False, True]
    if name in syms.enums:
        members = syms.enums[name].members
        return list(dict.fromkeys([members[0], members[-1]])) if members else []
    if name in syms.dice and not syms.dice[name].custom:
        return list(dict.fromkeys([1, len(syms.dice[name].faces)]))
    return []


def pins_text(pins: dict, m: n.Mechanic, syms) -> str:
    """The pins in words, as the witnesses are said (checks_ranges.witness_text):
    "shots = 10 and every die of hits's roll d showing 6"."""
    params = [p.name for p in m.params]
    parts = []
    for k in sorted(pins, key=lambda x: (params.index(x) if x in params else len(params), x)):
        v = pins[k]
        shown = ("yes" if v else "no") if isinstance(v, bool) else (v if isinstance(v, str) else iv.shown(v))
        if k in params:
            parts.append(f"{k} = {shown}")
            continue
        *path, roll = k.split(".")
        owner = m
        for name in path:
            owner = syms.mechanics.get(name, owner)
        node = next((s for s in owner.body if isinstance(s, n.Roll) and s.name == roll), None)
        single = node is not None and node.dice.count is None
        whose = f"{path[-1]}'s roll {roll}" if path else f"the roll {roll}"
        parts.append(f"{whose} showing {shown}" if single else f"every die of {whose} showing {shown}")
    return " and ".join(parts) if parts else "any inputs"
