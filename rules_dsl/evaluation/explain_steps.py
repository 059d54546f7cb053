"""An explanation's record: its steps (`Step`), the whole working (`Explanation`), and
the working as indented text.

Split from explain.py (issue 32) so that the record a reader gets back, its JSON and its
text, sits apart from the tracing that makes it (explain_trace.py) and from the entry
points (explain.py): working.py and the website read this record without the tracer.
"""
from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from typing import Optional

from ..language.values import show, to_json

__all__ = ["Step", "Explanation", "repeated_calls"]


@dataclass
class Step:
    """One step of an explanation (see docs/cli.md for its JSON form).

    `step` is the kind: `call`, `let`, `roll`, `branch`, `lookup`, `require`,
    `result` or `example`; `text` says what was done in the rule's own notation;
    `detail` holds what is particular to the kind (a branch's condition, a roll's
    dice, a lookup's keys and row...)."""
    step: str
    rule: str
    title: str
    location: str
    text: str
    value: object = None
    has_value: bool = False
    children: list = field(default_factory=list)
    notes: list = field(default_factory=list)      # of (kind, text, rule id)
    detail: dict = field(default_factory=dict)
    args: Optional[dict] = None     # a call's bound arguments as values (not in the JSON)
    node: object = None             # the AST the step stands for, for renderers in words (not in the JSON)
    owner: str = ""                 # the mechanic the step is in (not in the JSON)
    reads: Optional[dict] = None    # a branch's values read, a lookup's keys, as values (not in the JSON)

    def set(self, value):
        self.value, self.has_value = value, True
        return value

    def walk(self):
        """This step and every step under it, depth first."""
        yield self
        for c in self.children:
            yield from c.walk()

    def as_json(self) -> dict:
        return {"step": self.step, "rule": {"id": self.rule, "title": self.title},
                "location": self.location, "text": self.text,
                "value": to_json(self.value) if self.has_value else None,
                "shown": show(self.value) if self.has_value else None,
                "detail": {k: _json_detail(v) for k, v in self.detail.items()},
                "notes": [{"kind": k, "text": t, "rule": r} for k, t, r in self.notes],
                "children": [c.as_json() for c in self.children]}


def _json_detail(v):
    if isinstance(v, dict):
        return {k: _json_detail(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_json_detail(x) for x in v]
    if isinstance(v, (str, int, bool)) or v is None:
        return v
    return to_json(v)


@dataclass
class Explanation:
    """The working of one evaluation: `root` is its top step (the mechanic's call, or
    the example's expression); `result` the value (as a plain call gives it),
    `rolls` the rolls made, `error` the message when the evaluation stopped."""
    book: str
    root: Step
    result: object = None
    rolls: dict = field(default_factory=dict)
    error: Optional[str] = None

    @property
    def steps(self):
        """Every step, depth first (the root first)."""
        return list(self.root.walk())

    def as_json(self) -> dict:
        return {"book": self.book, "result": to_json(self.result) if self.error is None else None,
                "error": self.error, "rolls": {k: to_json(v) for k, v in self.rolls.items()},
                "explanation": self.root.as_json()}

    def lines(self, width: int = 100, locations: bool = True, style=None) -> list:
        """The working as indented text, like a worked solution.  `style(text, *styles)`
        (as `terminal.Out.style`) marks rule titles bold and locations dim."""
        out = []
        _lines(self.root, 0, out, width, locations, set(), style or _plain)
        if self.error is not None:
            out.append(f"stopped: {self.error}")
        return out

    def text(self, width: int = 100, locations: bool = True) -> str:
        return "\n".join(self.lines(width, locations))


# ------------------------------------------------------------------ text
_IND = "  "


def _plain_prose(text: str) -> str:
    """Prose as plain words: [[refs]] become their label, emphasis marks go."""
    def label(m):
        target, _, shown = m.group(1).partition("|")
        return shown or target.split(":")[-1].replace("-", " ")
    text = re.sub(r"\[\[(.*?)\]\]", label, text, flags=re.S)
    text = re.sub(r"\*\*(.+?)\*\*", r"\1", text, flags=re.S)
    return " ".join(text.split())


def _note_lines(st: Step, pad: str, out: list, width: int, seen: set):
    for kind, text, rule in st.notes:
        if (kind, text) in seen:
            continue
        seen.add((kind, text))
        of = f" (of {rule})" if rule != st.rule else ""
        out.extend(textwrap.wrap(f"{kind} note{of}: {_plain_prose(text)}", width=max(len(pad) + 44, width),
                                 initial_indent=pad + _IND + "* ", subsequent_indent=pad + _IND + "  ",
                                 break_on_hyphens=False))


def _plain(text, *styles):
    return text


def repeated_calls(children: list) -> list:
    """The children of a step with each run of calls of one mechanic (two or more in a
    row: once per item of a list, once per die) gathered into a list."""
    out = []
    for c in children:
        if c.step == "call" and out and isinstance(out[-1], list) and out[-1][0].detail.get("name") == c.detail.get("name"):
            out[-1].append(c)
        elif c.step == "call" and out and isinstance(out[-1], Step) and out[-1].step == "call" \
                and out[-1].detail.get("name") == c.detail.get("name"):
            out[-1] = [out[-1], c]
        else:
            out.append(c)
    return out


def _group_lines(calls: list, depth: int, out: list, width: int, locations: bool, seen: set, style=_plain):
    """Repeated calls of one mechanic: what they share once, one line per call with what
    differs and its result, then the working of the first call only."""
    first = calls[0]
    pad = _IND * depth
    where = style(f"  [{first.location}]", "dim") if locations else ""
    args = [c.detail.get("arguments", {}) for c in calls]
    names = list(args[0])
    same = [k for k in names if all(a.get(k) == args[0].get(k) for a in args)]
    differ = [k for k in names if k not in same]
    shared = ", ".join(f"{k}={args[0][k]}" for k in same)
    head = f"{first.title} ({first.rule})"
    out.append(f"{pad}{style(head, 'bold')}: {first.detail.get('name', '')}, {len(calls)} calls"
               + (f" with {shared}" if shared else "") + where)
    _note_lines(first, pad, out, width, seen)
    for c, a in zip(calls, args):
        which = ", ".join(f"{k}={a[k]}" for k in differ) or "the same arguments"
        result = f" => {show(c.value)}" if c.has_value else " => (stopped)"
        out.append(f"{pad}{_IND}{which}{result}")
    which = ", ".join(f"{k}={args[0][k]}" for k in differ)
    out.append(f"{pad}{_IND}the working of the first call{f' ({which})' if which else ''}:")
    for c in first.children:
        _lines(c, depth + 2, out, width, locations, seen, style)


def _children_lines(st: Step, depth: int, out: list, width: int, locations: bool, seen: set, style=_plain):
    for c in repeated_calls(st.children):
        if isinstance(c, list):
            _group_lines(c, depth, out, width, locations, seen, style)
        else:
            _lines(c, depth, out, width, locations, seen, style)


def _lines(st: Step, depth: int, out: list, width: int, locations: bool, seen: set, style=_plain):
    """One step and its children; a note is printed the first time it bears (`seen`)."""
    pad = _IND * depth
    where = style(f"  [{st.location}]", "dim") if locations else ""
    if st.step in ("call", "example"):
        head = f"{st.title} ({st.rule})" if st.step == "call" else f"Example of {st.title} ({st.rule})"
        out.append(f"{pad}{style(head, 'bold')}: {st.text}{where}")
        _note_lines(st, pad, out, width, seen)
        _children_lines(st, depth + 1, out, width, locations, seen, style)
        if st.has_value and st.step == "call":
            out.append(f"{pad}{_IND}=> {st.detail.get('name', '')} gives {show(st.value)}")
        elif st.has_value:
            out.append(f"{pad}{_IND}=> {show(st.value)}")
        return
    if st.step == "let":
        line = f"{st.text} = {show(st.value)}" if st.has_value else st.text
    elif st.step == "roll":
        how = "given" if st.detail.get("given") else "rolled at random"
        line = f"roll {st.detail['name']} ({st.detail['dice']}): {show(st.value)} ({how})"
        if st.detail.get("working"):
            line += f": {st.detail['working']}"
    elif st.step == "branch":
        read = st.detail.get("read") or {}
        why = f" with {', '.join(f'{k} = {v}' for k, v in read.items())}" if read else ""
        holds = "holds" if st.detail.get("holds") else "does not hold"
        arm = st.detail.get("arm", "")
        taken = f"the {arm} branch" if st.detail.get("chained") else f"{arm} {st.detail.get('taken', '')}"
        line = f"if {st.detail['condition']}: {holds}{why}; takes {taken}"
        if "holds" not in st.detail:            # the condition itself stopped the evaluation
            line = f"if {st.detail['condition']}{why}: cannot be decided"
    elif st.step == "lookup":
        keys = ", ".join(f"{k}={v}" for k, v in st.detail.get("keys", {}).items())
        line = f"table {st.detail['table']} ({st.title}) at {keys}: {show(st.value)}"
        if st.detail.get("absent"):
            line += f" (absent in the source: {', '.join(st.detail['absent'])})"
    elif st.step == "require":
        line = f"require {st.detail['condition']}: {'holds' if st.value else 'FAILS: ' + st.detail['message']}"
    elif st.step == "result":
        line = f"{st.text} = {show(st.value)}" if st.has_value else st.text
    elif st.step == "filter":
        kept, items = st.detail.get("kept", []), st.detail.get("items", [])
        read = st.detail.get("read") or {}
        why = f" with {', '.join(f'{k} = {v}' for k, v in read.items())}" if read else ""
        which = ", ".join(kept) if kept else "none"
        line = (f"{st.detail['source']} [{', '.join(items)}]: {len(kept)} of {len(items)} pass "
                f"{st.detail['condition']}{why}: {which}")
    else:
        line = st.text
    out.append(pad + line + where)
    _note_lines(st, pad, out, width, seen)
    _children_lines(st, depth + 1, out, width, locations, seen, style)
