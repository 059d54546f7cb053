"""Names in words: the display form of every name a player can see.

Identifiers (`under_fire`, `with_hero`, `suppression_after_attack`) are the
language's: examples, JSON, `book:id` addresses and the JavaScript API keep them.
What a player reads -- the site's forms, odds tables, working and previews, and
the CLI's text -- shows each name's *display form* instead: the words the book
gives it (`under_fire called "Under Fire"`, docs/language.md "Names in words"),
else a readable default made from the identifier (`under_fire` -> "under fire").

`Names` holds one book's display forms, read once from its checked AST:
mechanics, tables, constants, parameters and table keys, rolls, results, record
fields, enum members and die faces.  It also shows *values* in words
(`value`: enum members and faces by their display form, `true` as "yes"), says
what a parameter accepts (`describe`), and reads a player's input back
(`find_param`, `read_value`): either form, case-insensitively.

Sentences (a mechanic's question and answer, worked examples, findings) are in
`wording.py`; this module only names things.
"""
from __future__ import annotations

import re
from fractions import Fraction
from typing import Optional

from . import nodes as n
from .values import ABSENT, Record, Sym, show

YES, NO = "yes", "no"


def words(identifier: str) -> str:
    """The default display form of an identifier: its words, joined by spaces
    (`under_fire` -> "under fire", `AP` -> "AP", `d6` -> "d6")."""
    parts = [p for p in str(identifier).split("_") if p]
    return " ".join(parts) if parts else str(identifier)


def fold(text: str) -> str:
    """How a typed name is compared with a display form or an identifier: case-folded,
    underscores, hyphens and runs of spaces read as one space."""
    return " ".join(re.sub(r"[_\-\s]+", " ", str(text)).casefold().split())


def capitalised(text: str) -> str:
    """The first letter upper case (a sentence's start), the rest as written."""
    return text[:1].upper() + text[1:] if text else text


class Names:
    """The display forms of one book's names (explicit or default), by identifier."""

    def __init__(self, ast):
        from .model import decls_of
        self.book_id = ast.id
        self.mechanics, self.tables, self.consts, self.results, self.enums = {}, {}, {}, {}, {}
        self.questions, self.answers, self.findings = {}, {}, {}
        self.params = {}      # (mechanic or table, parameter or key) -> words
        self.rolls = {}       # (mechanic, roll) -> words
        self.roll_dice = {}   # (mechanic, roll) -> the die it rolls
        self.fields = {}      # (table, field) -> words
        self.members = {}     # (enum or die, member or face) -> words
        self.enum_members = {}   # enum -> [members]
        self.types = {}       # (mechanic or table, parameter) -> its declared type node
        self.order = {}       # mechanic or table -> its parameters (keys), in order
        self.explicit = set()    # the keys above (with their dict's name) a book wrote words for
        self._field_any = {}
        self.dice = {}        # die -> its distinct faces (custom dice: names; standard: 1..N)
        for die in ast.header.dice:
            shown = {f: p.text for f, p in die.displays}
            self.dice[die.name] = list(dict.fromkeys(die.faces))
            for face in dict.fromkeys(die.faces):
                if die.custom:
                    self._set(self.members, (die.name, str(face)), shown.get(str(face)), str(face))
        for p in decls_of(ast):
            d = p.node
            if isinstance(d, n.Enum):
                shown = {m: ph.text for m, ph in d.displays}
                self.enum_members[d.name] = list(d.members)
                self._set(self.enums, d.name, _text(d.display), d.name)
                for m in d.members:
                    self._set(self.members, (d.name, m), shown.get(m), m)
            elif isinstance(d, n.Const):
                self._set(self.consts, d.name, _text(d.display), d.name)
            elif isinstance(d, n.Mechanic):
                self._set(self.mechanics, d.name, _text(d.display), d.name)
                self._params(d)
                for s in d.body:
                    if isinstance(s, n.Roll):
                        self._set(self.rolls, (d.name, s.name), _text(s.display), s.name)
                        self.roll_dice[(d.name, s.name)] = s.dice.die
                if d.result_display is not None:
                    self.results[d.name] = d.result_display.text
                if d.question is not None:
                    self.questions[d.name] = d.question.text
                if d.answer is not None:
                    self.answers[d.name] = d.answer.text
            elif isinstance(d, n.Table):
                self._set(self.tables, d.name, _text(d.display), d.name)
                self._params(d)
                rt = d.returns
                if isinstance(rt, n.RecordType):
                    shown = {f: ph.text for f, ph in rt.displays}
                    for f, _ in rt.fields:
                        self._set(self.fields, (d.name, f), shown.get(f), f)
                        if f in shown:
                            self._field_any.setdefault(f, shown[f])
            elif isinstance(d, n.Check) and d.finding is not None:
                self.findings[d.name] = d.finding.text

    def _params(self, d):
        """A mechanic's parameters or a table's keys: their words, types and order."""
        self.order[d.name] = [prm.name for prm in d.params]
        for prm in d.params:
            self._set(self.params, (d.name, prm.name), _text(prm.display), prm.name)
            self.types[(d.name, prm.name)] = prm.type

    def _set(self, table: dict, key, given: Optional[str], identifier: str):
        table[key] = given if given else words(identifier)
        if given:
            self.explicit.add((id(table), key))

    def is_explicit(self, table: dict, key) -> bool:
        return (id(table), key) in self.explicit

    # ------------------------------------------------------------------ names
    def mechanic(self, name: str) -> str:
        return self.mechanics.get(name) or self.tables.get(name) or words(name)

    def table(self, name: str) -> str:
        return self.tables.get(name) or words(name)

    def const(self, name: str) -> str:
        return self.consts.get(name) or words(name)

    def enum(self, name: str) -> str:
        return self.enums.get(name) or words(name)

    def param(self, owner: str, name: str) -> str:
        return self.params.get((owner, name)) or self.rolls.get((owner, name)) or words(name)

    def roll(self, mechanic: str, name: str) -> str:
        return self.rolls.get((mechanic, name)) or words(name)

    def result(self, mechanic: str) -> str:
        """The result's own words (`-> 2..3 called "dice"`), else the mechanic's."""
        return self.results.get(mechanic) or self.mechanic(mechanic)

    def field(self, table: Optional[str], name: str) -> str:
        if table is not None and (table, name) in self.fields:
            return self.fields[(table, name)]
        return self._field_any.get(name) or words(name)

    def member(self, owner: str, name: str) -> str:
        return self.members.get((owner, str(name))) or words(name)

    def name(self, identifier: str) -> str:
        """Any global name of the book in words (a mechanic, a table, a constant, an enum
        member or die face named bare): what a formula shows a player in its place."""
        for table in (self.mechanics, self.tables, self.consts):
            if identifier in table:
                return table[identifier]
        owners = [o for (o, m) in self.members if m == identifier]
        if len(owners) == 1:
            return self.members[(owners[0], identifier)]
        return words(identifier)

    # ------------------------------------------------------------------ values
    def value(self, v, table: Optional[str] = None) -> str:
        """A value in words: members and faces by their display form, booleans yes/no,
        lists comma-separated, records `field value, ...` (fields of `table` when given)."""
        if v is ABSENT:
            return "absent"
        if isinstance(v, bool):
            return YES if v else NO
        if isinstance(v, Sym):
            return self.member(v.enum, v) if v.enum else words(v)
        if isinstance(v, Record):
            return ", ".join(f"{self.field(table, k)} {self.value(x)}" for k, x in v.as_dict().items())
        if isinstance(v, (list, tuple)):
            if not v:
                return "none"
            nested = any(isinstance(x, (list, tuple, Record)) for x in v)
            inner = [self.value(x) for x in v]
            return ("[" + "; ".join(inner) + "]") if nested else ", ".join(inner)
        if isinstance(v, (set, frozenset)):
            return ", ".join(sorted(self.value(x) for x in v)) or "none"
        if isinstance(v, range):
            return f"{v.start} to {v.stop - 1}"
        if isinstance(v, Fraction) or isinstance(v, int):
            return show(v)
        return show(v)

    def input_value(self, owner: str, name: str, v) -> str:
        """An input in words: a member or face given as plain text (`state=suppressed` on the
        command line, an `odds` line) by its words, as the parameter's type reads it."""
        if isinstance(v, (str, list)) and not isinstance(v, Sym) and (owner, name) in self.types:
            v = self._as_members(self.types[(owner, name)], v)
        return self.value(v)

    def _as_members(self, t, v):
        if isinstance(v, list):
            return [self._as_members(t.item if isinstance(t, n.ListType) else t, x) for x in v]
        got = self.read_value(t, v)
        if isinstance(got, str) and not isinstance(got, Sym):
            options = t.options if isinstance(t, n.UnionType) else (t,)
            for o in options:
                o = o.item if isinstance(o, n.ListType) else o
                if isinstance(o, n.NamedType) and (o.name, got) in self.members:
                    return Sym(got, o.name)
        return got

    def describe(self, t) -> str:
        """What a parameter of type `t` accepts, in words ("one of: clear, Under Fire,
        Suppressed", "yes or no", "0 to 400")."""
        if isinstance(t, n.RangeType):
            return f"{t.low} to {t.high}"
        if isinstance(t, n.NamedType):
            if t.name in self.enum_members:
                return "one of: " + ", ".join(self.member(t.name, m) for m in self.enum_members[t.name])
            if t.name in self.dice:
                faces = self.dice[t.name]
                if faces and all(isinstance(f, int) for f in faces):
                    return f"a face of a {t.name}: {faces[0]} to {faces[-1]}"
                return f"a face of the {die_words(t.name)}: " + ", ".join(self.member(t.name, f) for f in faces)
            return {"int": "a whole number", "bool": "yes or no", "text": "text", "number": "a number",
                    "absent": "absent"}.get(t.name, words(t.name))
        if isinstance(t, n.ListType):
            return f"a list of {self.describe(t.item)}"
        if isinstance(t, n.UnionType):
            return " or ".join(self.describe(o) for o in t.options)
        if isinstance(t, n.RecordType):
            return "a record"
        return "a value"

    # ------------------------------------------------------------------ input
    def find_param(self, owner: str, typed: str, names) -> Optional[str]:
        """The identifier among `names` (a mechanic's parameters and rolls, or a table's
        keys) that `typed` means: the identifier itself, or its display form,
        case-insensitively; None when none does."""
        if typed in names:
            return typed
        want = fold(typed)
        for name in names:
            if fold(name) == want or fold(self.param(owner, name)) == want:
                return name
        return None

    def read_value(self, t, v):
        """A value typed by a player, for a parameter of type `t`: a display form of one
        of its enum members or die faces becomes that member (case-insensitively),
        "yes"/"no" a boolean; lists item by item; anything else is returned as given
        (the type check then says what is allowed)."""
        if isinstance(v, list):
            item = t.item if isinstance(t, n.ListType) else t
            if isinstance(t, n.UnionType):
                lists = [o for o in t.options if isinstance(o, n.ListType)]
                item = lists[0].item if lists else t
            return [self.read_value(item, x) for x in v]
        if not isinstance(v, str) or isinstance(v, Sym):
            return v
        want = fold(v)
        options = t.options if isinstance(t, n.UnionType) else (t,)
        for o in options:
            if isinstance(o, n.ListType):
                o = o.item
            if not isinstance(o, n.NamedType):
                continue
            if o.name == "bool" and want in (YES, NO):
                return want == YES
            for (owner, m), shown in self.members.items():
                if owner == o.name and (fold(m) == want or fold(shown) == want):
                    return m
        return v

    def read_inputs(self, owner: str, given: dict) -> dict:
        """`NAME=VALUE` inputs typed for a mechanic or a table (`owner`): each name read
        as an identifier or a display form (case-insensitively), each value by its
        parameter's type (`read_value`) or, for a roll, its die's faces.  A name that is
        none of them is kept as typed, for the call to refuse with its suggestions."""
        params = self.order.get(owner, [])
        rolls = [r for (m, r) in self.rolls if m == owner]
        out = {}
        for typed, v in given.items():
            name = self.find_param(owner, typed, params + rolls) or typed
            if (owner, name) in self.types:
                v = self.read_value(self.types[(owner, name)], v)
            elif (owner, name) in self.roll_dice:
                v = self.read_value(n.NamedType(n.NOWHERE, self.roll_dice[(owner, name)]), v)
            out[name] = v
        return out

    # ------------------------------------------------------------------ export
    def explicit_json(self) -> dict:
        """Only the words the book wrote (the rest is `words(identifier)` anywhere), in short
        keys: what the JavaScript module carries for its forms (runtime.js `Words`)."""
        def mine(table):
            return {k: v for k, v in table.items() if self.is_explicit(table, k)}

        def by_owner(table):
            out = {}
            for (owner, name), text in mine(table).items():
                out.setdefault(owner, {})[name] = text
            return out
        data = {"m": mine(self.mechanics), "t": mine(self.tables), "p": by_owner(self.params),
                "r": by_owner(self.rolls), "f": by_owner(self.fields), "fa": dict(self._field_any),
                "e": by_owner(self.members), "res": dict(self.results), "q": dict(self.questions),
                "a": dict(self.answers)}
        return {k: v for k, v in data.items() if v}

    def as_json(self) -> dict:
        """The display forms, by identifier, for `rules export` and the JavaScript module."""
        def by_owner(table):
            out = {}
            for (owner, name), text in table.items():
                out.setdefault(owner, {})[name] = text
            return out
        return {"mechanics": dict(self.mechanics), "tables": dict(self.tables), "constants": dict(self.consts),
                "enums": dict(self.enums),
                "parameters": by_owner(self.params), "rolls": by_owner(self.rolls), "fields": by_owner(self.fields),
                "members": by_owner(self.members), "results": dict(self.results),
                "questions": dict(self.questions), "answers": dict(self.answers)}


def die_words(die: str) -> str:
    """A die for players: d10 -> "d10"; dust -> "Dust die" (as wording.die_name says it)."""
    if re.fullmatch(r"d\d+", die):
        return die
    name = words(die)
    return f"{capitalised(name)} die"


def _text(phrase) -> Optional[str]:
    return phrase.text if phrase is not None else None


def names_of(compiled) -> Names:
    """The display forms of a compiled book, read once and kept on it."""
    got = compiled.__dict__.get("_display_names")
    if got is None:
        got = compiled.__dict__["_display_names"] = Names(compiled.ast)
    return got
