"""An explanation (explain.py) as a worked solution in words, for players.

`worked(explanation, names)` turns the tree of steps into lines `(depth, kind, text)`:
each mechanic called with its inputs in words, the notes that bear on it, what was
rolled, each table read, each condition asked ("is hits ≥ heavy fire hits? no (hits
2)"), each value worked out, and the answer as the mechanic says it.  Names are their
display forms (display.py), formulas are in words (wording.expr_words); a chain of
`else if`s is one list of questions, not a staircase.

The same lines are drawn by the site (each a paragraph, indented by its depth, that
wraps: a phone never scrolls sideways) and by `rules explain` (`text_lines`: wrapped to
the terminal's width with hanging indents, never cutting a word).  Identifiers and
`file:line` locations stay in the JSON (`Explanation.as_json`), and in the terminal
on request.
"""
from __future__ import annotations

import re
import textwrap
from typing import Optional

from ..language import nodes as n
from ..language.display import Names, capitalised, words
from ..language.wording import answer as answer_text, dice_phrase, die_name, example_sentence, expr_words, inputs_phrase

NOTE_WORDS = {"interpretation": "Our reading", "erratum": "Erratum", "clarification": "Clarification"}
MAX_DEPTH = 12


def worked(explanation, names: Names, locations: bool = False) -> list:
    """The working as [(depth, kind, text, location)]: kind is one of call, input, note,
    roll, let, ask, lookup, check, result, answer, stop."""
    out: list = []
    seen: set = set()
    root = explanation.root
    if root.step == "example":
        kids = root.children
        for c in kids:
            _step(c, 0, out, names, seen)
        if root.has_value and not (len(kids) == 1 and kids[0].step == "call"):
            out.append((0, "answer", f"So the answer is {names.value(root.value)}.", ""))
    else:
        _step(root, 0, out, names, seen)
    if explanation.error is not None:
        out.append((0, "stop", error_words(explanation.error, names), ""))
    return [(min(d, MAX_DEPTH), k, t, loc if locations else "") for d, k, t, loc in out]


def _scope(names: Names, owner: str, st) -> dict:
    """Local names in words: the parameters, lets and rolls of `owner`."""
    node = st.node if isinstance(st.node, n.Mechanic) else None
    out = {}
    if node is not None:
        for p in node.params:
            out[p.name] = names.param(owner, p.name)
        for s in node.body:
            if isinstance(s, n.Roll):
                out[s.name] = names.roll(owner, s.name)
            elif isinstance(s, n.Let):
                out[s.name] = words(s.name)
    return out


def _step(st, depth: int, out: list, names: Names, seen: set, scope: Optional[dict] = None):
    kind = st.step
    scope = scope or {}
    where = st.location
    if kind == "call":
        owner = st.owner or st.detail.get("name", "")
        inner = _scope(names, owner, st)
        head = capitalised(names.mechanic(owner))
        if st.title:
            head += f" ({st.title})"
        out.append((depth, "call", head, where))
        args = st.args if st.args is not None else {}
        if args:
            out.append((depth + 1, "input", "With " + inputs_phrase(names, owner, args) + ".", ""))
        _notes(st, depth + 1, out, seen, names)
        _children(st, depth + 1, out, names, seen, inner)
        if st.has_value:
            out.append((depth + 1, "answer", answer_text(names, owner, st.value, args) + _stop(st.value, names, owner),
                        ""))
        return
    if kind == "example":          # an example inside an example (never made today): its children
        for c in st.children:
            _step(c, depth, out, names, seen, scope)
        return
    if kind in ("let", "roll", "require", "result"):
        # what the line needed (a dice count's conditions, a call in a formula) comes first
        _children(st, depth, out, names, seen, scope)
    if kind == "let":
        node = st.node
        label = scope.get(st.detail.get("name", ""), words(st.detail.get("name", "")))
        formula = expr_words(node.value, names, scope) if isinstance(node, n.Let) else st.detail.get("expression", "")
        value = f" = {names.value(st.value)}" if st.has_value else ""
        out.append((depth, "let", f"{capitalised(label)} = {formula}{value}", where))
    elif kind == "roll":
        name = st.detail.get("name", "")
        label = scope.get(name, words(name))
        how = "given" if st.detail.get("given") else "rolled"
        dice = (_dice_words(st.node, names, scope, st.value if st.has_value else None)
                if isinstance(st.node, n.Roll) else st.detail.get("dice", ""))
        text = f"{capitalised(label)} ({dice}): {names.value(st.value) if st.has_value else '?'}, {how}"
        if st.detail.get("working"):
            text += f"; {st.detail['working']}"
        out.append((depth, "roll", text + ".", where))
    elif kind == "branch":
        _branch(st, depth, out, names, seen, scope)
        return
    elif kind == "filter":
        items, kept = st.detail.get("items", []), st.detail.get("kept", [])
        source = _plain(st.detail.get("source", ""), names)
        cond = _plain(st.detail.get("condition", ""), names)
        for op, said in ((">=", "≥"), ("<=", "≤"), ("!=", "≠"), ("==", "=")):
            cond = cond.replace(f" {op} ", f" {said} ")
        read = st.detail.get("read") or {}
        why = (" (" + ", ".join(f"{scope.get(k, _any_name(names, k))} {_plain(v, names)}" for k, v in read.items()) + ")"
               if read else "")
        which = ", ".join(_plain(x, names) for x in kept) if kept else "none"
        out.append((depth, "let", f"{capitalised(source)} {', '.join(_plain(x, names) for x in items)}: "
                                  f"{len(kept)} of {len(items)} pass {cond}{why}: {which}.", where))
    elif kind == "lookup":
        table = st.detail.get("table", st.owner)
        keys = st.reads or {}
        at = ", ".join(f"{names.param(table, k)} {names.value(v)}" for k, v in keys.items())
        value = names.value(st.value, table) if st.has_value else "?"
        text = f"Look up {names.table(table)}" + (f" ({st.title})" if st.title else "") + f" at {at}: {value}"
        if st.detail.get("absent"):
            text += " (not given by the book: " + ", ".join(names.field(table, a) for a in st.detail["absent"]) + ")"
        out.append((depth, "lookup", text + ".", where))
    elif kind == "require":
        node = st.node
        cond = expr_words(node.cond, names, scope) if isinstance(node, n.Require) else st.detail.get("condition", "")
        if st.value:
            out.append((depth, "check", f"Allowed: {cond}, yes.", where))
        else:
            out.append((depth, "check", f"Not allowed: {st.detail.get('message', cond)}.", where))
    elif kind == "result":
        node = st.node
        # a chain of conditions or a call said how the result was found; else the formula
        if node is not None and st.has_value and not isinstance(node, (n.IfElse, n.Call)):
            formula = expr_words(node, names, scope)
            shown = names.value(st.value)
            if formula != shown:
                out.append((depth, "result", f"{capitalised(formula)} = {shown}.", where))
    else:
        out.append((depth, kind, st.text, where))
        _notes(st, depth + 1, out, seen, names)
        _children(st, depth + 1, out, names, seen, scope)
        return
    _notes(st, depth + 1, out, seen, names)
    if kind == "lookup":
        for c in st.children:
            _step(c, depth + 1, out, names, seen, scope)


def _children(st, depth: int, out: list, names: Names, seen: set, scope: dict):
    """A step's children, with each run of calls of one mechanic (once per item, once per
    die: explain_steps.repeated_calls) said once: what the calls share, a line per call with
    what differs and its answer, then the working of the first call only."""
    from .explain_steps import repeated_calls
    for c in repeated_calls(st.children):
        if isinstance(c, list):
            _calls(c, depth, out, names, seen)
        else:
            _step(c, depth, out, names, seen, scope)


def _calls(calls: list, depth: int, out: list, names: Names, seen: set):
    first = calls[0]
    owner = first.owner or first.detail.get("name", "")
    args = [c.args if c.args is not None else {} for c in calls]
    keys = list(args[0])
    same = {k: args[0][k] for k in keys if all(k in a and a[k] == args[0][k] for a in args)}
    differ = [k for k in keys if k not in same]
    head = f"{capitalised(names.mechanic(owner))}, {len(calls)} times"
    out.append((depth, "call", head + (f", each with {inputs_phrase(names, owner, same)}" if same else "") + ".",
                first.location))
    _notes(first, depth + 1, out, seen, names)
    for i, (c, a) in enumerate(zip(calls, args)):
        which = inputs_phrase(names, owner, {k: a[k] for k in differ if k in a})
        said = answer_text(names, owner, c.value, a) if c.has_value else "stopped"
        out.append((depth + 1, "result", f"Call {i + 1}" + (f", with {which}" if which else "")
                    + f": {said}{_stop(c.value, names, owner) if c.has_value else '.'}", ""))
    out.append((depth + 1, "input", "How the first one was worked out:", ""))
    inner = _scope(names, owner, first)
    _children(first, depth + 2, out, names, seen, inner)


def _branch(st, depth, out, names, seen, scope):
    """`if c then a else b`: "Is c? yes (x 2)" and what it takes; a chained `else if`
    continues at the same depth."""
    node = st.node
    cond = expr_words(node.cond, names, scope) if isinstance(node, n.IfElse) else st.detail.get("condition", "")
    reads = st.reads or {}
    why = ", ".join(f"{scope.get(k, words(k))} {names.value(v)}" for k, v in reads.items())
    if "holds" not in st.detail:
        out.append((depth, "ask", f"Is {cond}? It cannot be decided" + (f" ({why})." if why else "."), st.location))
    else:
        holds = st.detail["holds"]
        text = f"Is {cond}? {'Yes' if holds else 'No'}" + (f" ({why})" if why else "")
        arm = node.then if holds else node.orelse if isinstance(node, n.IfElse) else None
        chained = st.detail.get("chained")
        if arm is not None and not chained and not isinstance(arm, n.IfElse):
            taken = expr_words(arm, names, scope)
            value = names.value(st.value) if st.has_value else ""
            text += f", so {taken}" + (f" = {value}" if value and value != taken else "")
        out.append((depth, "ask", text + ".", st.location))
    _notes(st, depth + 1, out, seen, names)
    for c in st.children:
        same = c.step == "branch" and st.detail.get("chained")
        _step(c, depth if same else depth + 1, out, names, seen, scope)


def _notes(st, depth, out, seen, names=None):
    for kind, text, rule in st.notes:
        if (kind, text) in seen:
            continue
        seen.add((kind, text))
        of = f" ({rule})" if rule != st.rule else ""
        out.append((depth, "note", f"{NOTE_WORDS.get(kind, capitalised(kind))}{of}: {_plain(text, names)}", ""))


_IDENT = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)(=[^`]*)?`|\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b")


def _plain(text: str, names: Optional[Names] = None) -> str:
    """A note as plain words: its markup gone, and the book's names it quotes
    (`suppression_after_roll`, `extra_die=true`) in their words."""
    from ..language.prose import parse_prose, plain_text
    said = " ".join(plain_text(parse_prose(text)).split())
    if names is None:
        return said

    def sub(m):
        ident = m.group(1) or m.group(3)
        if m.group(1) is None and not _known(names, ident):
            return words(ident)             # snake_case in prose is a name of the language: its words
        shown = _any_name(names, ident)
        if m.group(2):                     # `stunned=true`: the input and its value
            value = m.group(2)[1:]
            return f"{shown} {dict(true='yes', false='no').get(value, words(value))}"
        return shown
    return _IDENT.sub(sub, said)


_INPUT_ERROR = re.compile(r"^(\w+): parameter '(\w+)' got (.*); allowed: (.*)$")
_REQUIRE = re.compile(r"^(\w+): (.*)$")


def error_words(error: str, names: Names) -> str:
    """Why an evaluation stopped, in words: a refused input by its words and what it
    accepts, a `require` by its message, anything else with the book's names in words."""
    m = _INPUT_ERROR.match(error)
    if m and m.group(1) in names.order:
        owner, param = m.group(1), m.group(2)
        t = names.types.get((owner, param))
        allowed = names.describe(t) if t is not None else m.group(4)
        return f"Refused: {names.param(owner, param)} must be {allowed} (it was {m.group(3)})."
    m = _REQUIRE.match(error)
    if m and m.group(1) in names.mechanics:
        return f"Not allowed ({names.mechanic(m.group(1))}): {m.group(2)}."
    return "Stopped: " + _plain(error, names)


def _known(names: Names, ident: str) -> bool:
    return (ident in names.mechanics or ident in names.tables or ident in names.consts or ident in names.enums
            or any(p == ident for (_, p) in names.params) or any(m == ident for (_, m) in names.members))


def _any_name(names: Names, ident: str) -> str:
    """A name a note quotes, in words: a global, else a parameter's words (the first found)."""
    if ident in names.mechanics or ident in names.tables or ident in names.consts or ident in names.enums:
        return names.name(ident) if ident not in names.enums else names.enum(ident)
    for (_owner, p), w in names.params.items():
        if p == ident:
            return w
    return names.name(ident)


def _stop(value, names, owner) -> str:
    said = answer_text(names, owner, value)
    return "" if said.rstrip().endswith((".", "!", "?")) else "."


def _dice_words(roll: n.Roll, names: Names, scope: dict, value=None) -> str:
    """The dice of a roll in words; a pool whose count was worked out says how many it rolled."""
    spec = roll.dice
    if spec.kind == "pool" and isinstance(value, list):
        one, many = die_name(spec.die)
        return f"{len(value)} {one if len(value) == 1 else many}"
    said = dice_phrase(spec, text=lambda e: expr_words(e, names, scope), face=lambda f: names.name(f))
    return said[len("roll "):] if said.startswith("roll ") else said


# ------------------------------------------------------------------ text
_ASCII = str.maketrans({"≠": "!=", "≥": ">=", "≤": "<=", "×": "*"})


def text_lines(lines: list, width: int = 80, style=None, indent: str = "  ", ascii_only: bool = False) -> list:
    """The worked lines wrapped to `width` columns: each indented by its depth, a long
    line continued under its own text (a hanging indent), never a word cut; a location
    (when the lines have them) dim at the end.  `style(text, *styles)` marks calls bold,
    notes and locations dim."""
    style = style or (lambda text, *s: text)
    out = []
    for depth, kind, text, where in lines:
        if ascii_only:          # a terminal that cannot show ≠ ≥ ≤ ×
            text = text.translate(_ASCII)
        pad = indent * depth
        lead = "* " if kind == "note" else ""
        first = pad + lead
        rest = pad + " " * len(lead) + ("  " if kind != "note" else "")
        avail = max(width - len(first), 20)
        body = text + (f"  [{where}]" if where else "")
        wrapped = textwrap.wrap(body, width=avail + len(first), initial_indent=first, subsequent_indent=rest,
                                break_long_words=False, break_on_hyphens=False) or [first]
        for i, line in enumerate(wrapped):
            loc = ""
            if where and line.endswith(f"[{where}]"):
                line, loc = line[: -len(where) - 2], style(f"[{where}]", "dim")
            if kind == "call" and i == 0 and line.strip():
                body = line[len(pad):].rstrip()
                line = pad + style(body, "bold") + line[len(pad) + len(body):]
            elif kind == "note":
                line = style(line, "dim")
            out.append(line + loc)
    return out


def example_cases(book, rule_id, ex, working: bool = True) -> list:
    """Each `>>>` of a worked example as the page shows it: {"sentence": the case in words
    (the prose the book wrote before its `>>>`, else made from the call: wording.py),
    "code": its `>>>` line and expected value (for designers), "working": its worked
    solution as (depth, kind, text) lines (`worked`)}; then, as a last case without
    code, any prose the book wrote after its last `>>>`."""
    from ..language.display import names_of
    names = names_of(book.compiled)
    text_lines = ex.text.rstrip("\n").split("\n")
    starts = [c.span.line - ex.first_line for c in ex.cases]
    explanations = book.explain_example(rule_id, ex) if hasattr(book, "explain_example") else [None] * len(starts)
    out, prose_from = [], 0
    for i, (case, explanation) in enumerate(zip(ex.cases, explanations)):
        start = starts[i]
        nxt = starts[i + 1] if i + 1 < len(starts) else len(text_lines)
        end = start + 1
        while end < nxt and text_lines[end].lstrip().startswith("..."):
            end += 1                       # continuation lines
        while end < nxt and text_lines[end].strip():
            end += 1                       # the expected value runs to a blank line
        said = " ".join(x.strip() for x in text_lines[prose_from:start] if x.strip())
        out.append({"sentence": said or example_sentence(names, case, explanation),
                    "code": "\n".join(text_lines[start:end]).strip("\n"),
                    "working": ([x[:3] for x in worked(explanation, names)] if explanation is not None and working
                                else [])})
        prose_from = end
    tail = " ".join(x.strip() for x in text_lines[prose_from:] if x.strip())
    if tail:
        out.append({"sentence": tail, "code": "", "working": []})
    return out
