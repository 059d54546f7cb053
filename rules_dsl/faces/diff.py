"""`rules diff A B`: what changed from book A to book B, in text, numbers and odds.

A and B are any two compiled books: a book and its layer (`xenotactics`,
`xenotactics+errata`), a layer and the layer on it, two editions.  `diff_books`
compares them part by part and returns plain JSON data (the schema is
`schema/diff.schema.json`, described in docs/cli.md); diff_text.py says it in
players' words, and the website's "what changed" page draws it.

* **Rules** are matched by id: added, removed, changed (title, prose as a word diff,
  notes, examples, aliases and keywords, and which declarations changed).
* **Mechanics** are matched by name.  One whose definition and everything it reaches
  by name (reach.py) are unchanged behaves as before and is not evaluated.  Each
  other one is run on both books, first on the book's own inputs (its `odds` lines,
  worked examples, profiles and website odds: diff_inputs.py), then on the others:
  every input when each has a finite type and they fit in the budget
  ("exhaustive"), else inputs drawn at random with a fixed seed ("sampled").  Each is
  reported changed (with the inputs that show it and where they came from), the same
  over N inputs (N > 0), or not compared and why (`compared.outcome`).  A dice
  mechanic is compared by its exact distribution; its odds before and after are
  those the comparison computed, for the book's own inputs first.  The time is shared
  (diff_mechanics.py): the mechanics without dice first, each on an equal slice of
  what is left, so one costly mechanic cannot starve the rest.
* **Tables**: rows matched by their keys (a grid's cells by both keys): changed,
  added, removed; columns added and removed (`columns`).  **Constants**,
  **enumerations** and **names in words** too.
* **Findings** (checks.py, book.py) matched by kind, rule, check and printed entry:
  those that appear, go, or list other cases.

When B is a layer on A, each part also names the changes of the layers between
them (`changed_by`: the change's number, place and reason; a row of a replaced table
names the `replace table`).  Every exact computation keeps to its budget: `budget`
evaluations a mechanic, and `time_limit` seconds for the whole diff, shared out in
slices (each a `Meter` of an `odds.budget.Budget` with the diff's memory budget); past
it, the diff says what it did not compare.

Modules (split in issue 32, then 38): diff_mechanics.py runs the mechanics of both books
within the shared time; diff_inputs.py chooses their inputs, the book's own first;
diff_odds.py writes results and odds as JSON; this one compares what is written and
assembles the data.
"""
from __future__ import annotations

import difflib
from pathlib import Path

from ..language import nodes as n
from .diff_mechanics import mechanic_changes, same_value
from .diff_tables import table_changes
from ..analysis.reach import Reach, shape
from ..language.values import to_json

SCHEMA_VERSION = 1
DEFAULT_BUDGET = 20_000      # per mechanic: evaluations (calls, or the odds engine's evaluations)
DEFAULT_SECONDS = 60.0       # the whole diff's time (every mechanic's calls and odds: one Meter)
MAX_WORDS = 20_000           # words of prose compared word by word


def diff_books(a, b, budget: int = DEFAULT_BUDGET, time_limit: float | None = DEFAULT_SECONDS) -> dict:
    """Everything that changed from book `a` to book `b`, as JSON data.  `budget`: the
    evaluations a mechanic's comparison may spend; `time_limit`: the seconds the whole
    diff's computations may (None: no deadline), on one shared `odds.budget.Meter`."""
    from ..odds.budget import Budget
    if budget < 1:
        raise ValueError("the budget is at least 1 evaluation")
    if time_limit is not None and not time_limit > 0:
        raise ValueError("the time limit is a number of seconds above 0")
    ctx = _Context(a, b, budget, Budget(seconds=time_limit).meter())
    out = {
        "schema": SCHEMA_VERSION,
        "a": _book_head(a),
        "b": _book_head(b),
        "layers": [_layer_json(layer, ctx) for layer in ctx.layers],
        "budget": budget,
        "time_limit": time_limit,
        "rules": _rules(ctx),
        "mechanics": mechanic_changes(ctx),
        "tables": table_changes(ctx),
        "constants": _constants(ctx),
        "enums": _enums(ctx),
        "names": _names(ctx),
        "findings": _findings(ctx),
    }
    out["summary"] = _summary(out)
    return out


def _book_head(book) -> dict:
    return {"id": book.id, "title": book.title, "edition": book.edition}


class _Context:
    """The two books, what each declares, and the layers between them."""

    def __init__(self, a, b, budget, meter):
        self.a, self.b, self.budget, self.meter = a, b, budget, meter
        self.decls_a = _decls(a.ast)
        self.decls_b = _decls(b.ast)
        self.reach_a, self.reach_b = Reach(a.ast), Reach(b.ast)
        mine = {layer.id for layer in a.layers}
        # B's layers above A (B a layer, or a layer on a layer, of A)
        self.layers = [layer for layer in b.layers if layer.id not in mine] \
            if b.id.startswith(a.id + "+") else []
        self.roots = sorted(set(_roots(a.ast) + _roots(b.ast)), key=len, reverse=True)
        self._shapes = {}

    def changes(self, rule: str = None, name: str = None, row: tuple = None) -> list:
        """The changes of the layers between A and B that touched a rule, a name, or (with
        `name`, a table's) one row (`row=()`: those of the whole table, `replace table`)."""
        out = []
        for layer in self.layers:
            for c in layer.changes:
                if row is not None and not (c.target == name and tuple(c.row) == tuple(row)):
                    continue
                if (rule is not None and rule in c.rules) or (name is not None and name in c.names):
                    out.append({"layer": layer.id, "number": c.number, "location": self.rel(c.location),
                                "change": c.text, "because": c.reason, "what": c.what})
        return out

    def rel(self, location: str) -> str:
        """A `file:line[:col]` with the file relative to its books folder (no machine's paths)."""
        for root in self.roots:
            if location.startswith(root):
                return location[len(root):].lstrip("/\\")
        return location

    def shape_of(self, side: str, name: str):
        key = (side, name)
        if key not in self._shapes:
            d = (self.decls_a if side == "a" else self.decls_b).get(name)
            self._shapes[key] = shape(d) if d is not None else None
        return self._shapes[key]

    def reach_shape(self, side: str, name: str):
        """What `name` means in one book: its own shape and that of all it reaches."""
        reach = self.reach_a if side == "a" else self.reach_b
        names = sorted(reach.closure_of(name))
        dice = {d.name: shape(d) for d in (self.a if side == "a" else self.b).ast.header.dice}
        return tuple((x, self.shape_of(side, x) if x not in dice else dice[x]) for x in names)


def _roots(ast) -> list:
    """The books folders of a book's files (a folder book's files sit one level down)."""
    ids = {ast.id.split("+")[0]} | {layer.base for layer in ast.layers}
    out = set()
    for f in ast.files:
        p = Path(f)
        out.add(str(p.parent.parent if p.parent.name in ids else p.parent).rstrip("/\\") + "/")
    return sorted(out, key=len, reverse=True)


def _decls(ast) -> dict:
    from ..language.model import decls_of
    out = {}
    for p in decls_of(ast):
        out.setdefault(p.node.name, p.node)
    return out


def _layer_json(layer, ctx) -> dict:
    return {"id": layer.id, "name": layer.name, "base": layer.base, "title": layer.title,
            "edition": layer.edition, "source": layer.source,
            "prose": [p.text for p in layer.prose],
            "changes": [{"number": c.number, "location": ctx.rel(c.location), "change": c.text,
                         "because": c.reason, "rules": list(c.rules), "names": list(c.names),
                         "before": c.before, "after": c.after} for c in layer.changes]}


# ------------------------------------------------------------------ rules
def word_diff(before: str, after: str) -> list:
    """[[op, words]] with op "=", "-" (words that go) or "+" (words that come)."""
    a, b = before.split(), after.split()
    if len(a) > MAX_WORDS or len(b) > MAX_WORDS:
        return [["-", before], ["+", after]]
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(["=", " ".join(a[i1:i2])])
            continue
        if i2 > i1:
            out.append(["-", " ".join(a[i1:i2])])
        if j2 > j1:
            out.append(["+", " ".join(b[j1:j2])])
    return out


def _rules(ctx) -> dict:
    ra = {r.id: r for r in ctx.a.rules}
    rb = {r.id: r for r in ctx.b.rules}
    added = [_rule_head(r, ctx) for r in ctx.b.rules if r.id not in ra]
    removed = [_rule_head(r, ctx) for r in ctx.a.rules if r.id not in rb]
    changed = []
    for r in ctx.b.rules:
        old = ra.get(r.id)
        if old is None:
            continue
        entry = _rule_changes(old, r, ctx)
        if entry is not None:
            changed.append(entry)
    for e in added + removed:
        e["changed_by"] = ctx.changes(rule=e["id"])
    return {"added": added, "removed": removed, "changed": changed}


def _rule_head(r, ctx) -> dict:
    return {"id": r.id, "title": r.title, "section": r.section}


def _rule_changes(old, new, ctx):
    a, b = old.node, new.node
    out = {"id": new.id, "title": new.title, "section": new.section, "parts": []}
    if a.title != b.title:
        out["parts"].append("title")
        out["title_before"] = a.title
    if old.text != new.text:
        out["parts"].append("text")
        out["text"] = {"before": old.text, "after": new.text,
                       "words": word_diff(_plain(old.text, ctx.a), _plain(new.text, ctx.b))}
    flav_a, flav_b = [p.text for p in a.flavour], [p.text for p in b.flavour]
    if flav_a != flav_b:
        out["parts"].append("flavour")
        out["flavour"] = {"before": flav_a, "after": flav_b}
    notes_a = [(x.kind, x.text.text) for x in a.notes]
    notes_b = [(x.kind, x.text.text) for x in b.notes]
    if notes_a != notes_b:
        out["parts"].append("notes")
        out["notes"] = {"added": [{"kind": k, "text": t} for k, t in notes_b if (k, t) not in notes_a],
                        "removed": [{"kind": k, "text": t} for k, t in notes_a if (k, t) not in notes_b]}
    def labelled(examples):     # an example by its title, else by its number in the rule
        return [(e.title or f"example {i}", e.text) for i, e in enumerate(examples, 1)]
    ex_a, ex_b = labelled(a.examples), labelled(b.examples)
    if ex_a != ex_b:
        titles_a = {t for t, _ in ex_a}
        titles_b = {t for t, _ in ex_b}
        out["parts"].append("examples")
        out["examples"] = {
            "added": [t for t, x in ex_b if (t, x) not in ex_a and t not in titles_a],
            "removed": [t for t, x in ex_a if (t, x) not in ex_b and t not in titles_b],
            "changed": [t for t, x in ex_b if (t, x) not in ex_a and t in titles_a]}
    for field in ("aliases", "keywords"):
        fa, fb = list(getattr(a, field)), list(getattr(b, field))
        if fa != fb:
            out["parts"].append(field)
            out[field] = {"added": [w for w in fb if w not in fa], "removed": [w for w in fa if w not in fb]}
    if a.source != b.source:
        out["parts"].append("source")
        out["source"] = {"before": a.source, "after": b.source}
    da = {d.name: d for d in a.decls}
    db = {d.name: d for d in b.decls}
    decls = {"added": [x for x in db if x not in da], "removed": [x for x in da if x not in db],
             "changed": [x for x in db if x in da and _decl_changed(da[x], db[x])]}
    if any(decls.values()):
        out["parts"].append("declarations")
        decls["said"] = {x: decl_words(ctx.a if x in decls["removed"] else ctx.b, x)
                         for what in ("added", "removed", "changed") for x in decls[what]}
        out["declarations"] = decls
    if not out["parts"]:
        return None
    out["changed_by"] = ctx.changes(rule=new.id)
    return out


def decl_words(book, name) -> str:
    """A declaration as players read it: "the table Superterrans prices"."""
    if name in book.mechanics:
        return f"the mechanic {book.display.mechanic(name)}"
    if name in book.tables:
        return f"the table {book.display.table(name)}"
    if name in book.constants:
        return f"the number {book.display.const(name)}"
    if name in book.enums:
        return f"the list {book.display.enum(name)}"
    from ..language.display import words
    return f"the check {words(name)}"


def _plain(text: str, book) -> str:
    """Prose as a player reads it: references as the titles they show, no markup."""
    from ..language.prose import parse_prose, plain_text

    def title_of(b, rid):
        if b in (None, book.id) and rid in book.rules_by_id:
            return book.rules_by_id[rid].title
        return None
    return plain_text(parse_prose(text), title_of)


def _decl_changed(x, y) -> bool:
    """Whether a declaration reads differently (its words for players included)."""
    from ..analysis.reach import shape as meaning
    return meaning(x) != meaning(y) or _words(x) != _words(y)


def _words(d) -> tuple:
    return tuple(repr(x.text) for x in n.iter_nodes(d) if isinstance(x, n.Phrase)) + (getattr(d, "doc", ""),)


# ------------------------------------------------------------------ constants, enums, words
def _constants(ctx) -> list:
    from ..language.render import Notation
    out = []
    ca, cb = ctx.a.constants, ctx.b.constants
    for name in list(cb) + [x for x in ca if x not in cb]:
        book = ctx.b if name in cb else ctx.a
        head = {"name": name, "display": book.display.const(name), "rule": book.rule_of(name) or "",
                "changed_by": ctx.changes(name=name)}
        if name not in ca:
            out.append(dict(head, status="added", after=_value_json(cb[name])))
        elif name not in cb:
            out.append(dict(head, status="removed", before=_value_json(ca[name])))
        elif not same_value(ca[name], cb[name]) or shape(ctx.decls_a[name].value) != shape(ctx.decls_b[name].value):
            out.append(dict(head, status="changed", before=_value_json(ca[name]), after=_value_json(cb[name]),
                            formula={"before": Notation().text(ctx.decls_a[name].value),
                                     "after": Notation().text(ctx.decls_b[name].value)}))
    return out


def _value_json(v):
    try:
        return to_json(v)
    except Exception:
        return str(v)


def _enums(ctx) -> list:
    out = []
    ea = {k: v for k, v in ctx.decls_a.items() if isinstance(v, n.Enum)}
    eb = {k: v for k, v in ctx.decls_b.items() if isinstance(v, n.Enum)}
    for name in list(eb) + [x for x in ea if x not in eb]:
        if name not in ea or name not in eb:
            e = eb.get(name) or ea[name]
            out.append({"name": name, "status": "added" if name not in ea else "removed",
                        "members": list(e.members), "changed_by": ctx.changes(name=name)})
            continue
        ma, mb = list(ea[name].members), list(eb[name].members)
        if ma != mb:
            out.append({"name": name, "status": "changed", "added": [m for m in mb if m not in ma],
                        "removed": [m for m in ma if m not in mb], "changed_by": ctx.changes(name=name)})
    return out


def _names(ctx) -> list:
    """Names whose words for players changed (`called "..."`), for names both books have."""
    wa, wb = _flat(ctx.a.display.as_json()), _flat(ctx.b.display.as_json())
    out = []
    for path, after in wb.items():
        before = wa.get(path)
        if before is not None and before != after:
            out.append({"kind": path[0], "name": ".".join(path[1:]), "before": before, "after": after})
    return out


def _flat(data, prefix=()) -> dict:
    out = {}
    for k, v in data.items():
        if isinstance(v, dict):
            out.update(_flat(v, prefix + (k,)))
        else:
            out[prefix + (k,)] = v
    return out


# ------------------------------------------------------------------ findings
def _findings(ctx) -> dict:
    def key(f):
        return (f.kind, f.rule, f.check, f.printed)
    fa = {key(f): f for f in ctx.a.findings}
    fb = {key(f): f for f in ctx.b.findings}

    def js(f, book):
        chk = book.compiled.checks.get(f.check)
        rule = book.rules_by_id.get(f.rule)
        return {"kind": f.kind, "rule": f.rule, "rule_title": rule.title if rule else f.rule, "check": f.check,
                "check_title": (chk.node.doc or f.check) if chk is not None else "", "printed": f.printed,
                "message": _unplaced(f.message), "sentences": list(f.sentences), "cases": len(f.cases),
                "location": ctx.rel(f.location)}
    return {"appeared": [js(f, ctx.b) for k, f in fb.items() if k not in fa],
            "gone": [js(f, ctx.a) for k, f in fa.items() if k not in fb],
            "changed": [dict(js(f, ctx.b), cases_before=len(fa[k].cases)) for k, f in fb.items()
                        if k in fa and fa[k].cases != f.cases]}


def _unplaced(message: str) -> str:
    """A finding's message without the line it names (the line differs between books)."""
    import re
    return re.sub(r" \(line \d+\)", "", message)


def _summary(d) -> dict:
    mech = d["mechanics"]
    return {"rules_added": len(d["rules"]["added"]), "rules_removed": len(d["rules"]["removed"]),
            "rules_changed": len(d["rules"]["changed"]),
            "mechanics_changed": sum(1 for m in mech if m["status"] == "changed"
                                     and m.get("compared", {}).get("differ")),
            "mechanics_not_compared": sum(1 for m in mech if m.get("compared", {}).get("outcome") == "not_compared"),
            "rows_changed": sum(len(t["rows"].get("changed", [])) for t in d["tables"]),
            "rows_added": sum(len(t["rows"].get("added", [])) for t in d["tables"]),
            "rows_removed": sum(len(t["rows"].get("removed", [])) for t in d["tables"]),
            "findings_appeared": len(d["findings"]["appeared"]), "findings_gone": len(d["findings"]["gone"])}
