"""Books as plain records: the one place a rule and a declaration become data.

`rule_record` is a rule as `rules lookup` answers it (the index stores it);
`decl_model` a declaration as its page shows it, in identifiers and in words; `cell_text`
a table cell; `fold_odds` an odds table folded for a page.  The lookup index
(index.py), `rules export` (export.py) and the website (sphinxext/data.py) all build on
these, so they agree, and none of them reaches into another.  Nothing here imports
Sphinx.
"""
from __future__ import annotations

from fractions import Fraction

from ..language import nodes as n
from ..language.display import capitalised, words
from ..language.render import dice_text, expr_text, literal_text, mechanic_lines, type_text
from ..language.values import ABSENT, percent_text, show


def rule_record(book, r) -> dict:
    """A rule as one flat record: its fields as `rules lookup` answers them (the index stores
    it), `rules export` publishes them and the site's search index reads them."""
    mechs = []
    for d in r.node.decls:
        if isinstance(d, n.Mechanic):
            mechs.append(book.mechanics[d.name].signature_text())
    tables = [f"table {d.name}({', '.join(p.name for p in d.params)})" for d in r.node.decls if isinstance(d, n.Table)]
    findings = [f.message for f in book.findings if f.rule == r.id]
    return {
        "book": book.id, "rule": r.id, "title": r.title, "section": r.section,
        "text": r.text, "aliases": list(r.aliases), "keywords": list(r.keywords), "source": r.source,
        "mechanics": mechs, "tables": tables,
        "notes": [{"kind": note.kind, "text": note.text.text} for note in r.notes],
        "examples": [{"title": ex.title, "text": ex.text} for ex in r.examples],
        "findings": findings,
        "location": str(r.span),
    }


# ------------------------------------------------------------------ values
def cell_text(v, printed=None, names=None):
    """A table cell from the source: (text, is_absent), or (text, False, member) for an
    enum member the source prints its own way (`enum chart_entry { impossible "–" }`:
    the cell shows "–", and says "impossible" in its title and the table's legend).
    With `names` (display.Names) a member or face is its display form, `true` "yes"."""
    if v is ABSENT:
        return ("absent in source", True)
    if isinstance(v, str):
        return (v, False)
    if isinstance(v, n.Name):
        member = v.name.rsplit(".", 1)[-1]
        owner = v.name.rsplit(".", 1)[0] if "." in v.name else None
        shown = (names.member(owner, member) if owner else names.name(member)) if names is not None else v.name
        if printed and member in printed:
            return (printed[member], False, shown)
        return (shown, False)
    if names is not None and isinstance(v, bool):
        return (names.value(v), False)
    return (literal_text(v), False)


def printed_members(book) -> dict:
    """member -> how the source prints it, for the members of the book's enums that say
    (a member two enums print differently is left as its name)."""
    from ..language.model import decls_of
    out, clash = {}, set()
    for p in decls_of(book.ast):
        for member, text in getattr(p.node, "printed", ()) if isinstance(p.node, n.Enum) else ():
            if out.get(member, text) != text:
                clash.add(member)
            out[member] = text
    return {m: t for m, t in out.items() if m not in clash}


# ------------------------------------------------------------------ odds tables
ODDS_BLOCK_ROWS = 10
ODDS_FOLD_BELOW = Fraction(1, 100)


def fold_odds(block: dict) -> dict:
    """A tall odds block (a chain of dice has dozens of outcomes under 0.01%) cut to the
    fewest likeliest outcomes that hold all but ODDS_FOLD_BELOW of the probability (at
    most ODDS_BLOCK_ROWS), in their order, then one row for the rest: "6 or more" when the
    rest is the tail of the values (its "at least" is then exact), else "N other outcomes".
    `folded` counts the outcomes the last row stands for (0: nothing folded)."""
    outs = block["outcomes"]
    if len(outs) <= ODDS_BLOCK_ROWS:
        return {**block, "folded": 0}
    probs = [Fraction(num, den) for _, num, den, _, _ in outs]
    keep, covered = set(), Fraction(0)
    for i in sorted(range(len(outs)), key=lambda i: (-probs[i], i)):
        if covered >= 1 - ODDS_FOLD_BELOW or len(keep) >= ODDS_BLOCK_ROWS - 1:
            break
        keep.add(i)
        covered += probs[i]
    rest = [i for i in range(len(outs)) if i not in keep]
    if len(rest) < 2:
        return {**block, "folded": 0}
    p = sum((probs[i] for i in rest), Fraction(0))
    tail = rest == list(range(rest[0], len(outs))) and outs[rest[0]][4] != ""
    first = outs[rest[0]][0]
    label = f"{first} or more" if tail and not first.endswith(" or more") else f"{len(rest)} other outcomes"
    row = (label, p.numerator, p.denominator, percent_text(p), outs[rest[0]][4] if tail else "")
    return {**block, "outcomes": [outs[i] for i in sorted(keep)] + [row], "folded": len(rest)}


# ------------------------------------------------------------------ the model
def decl_model(book, d, odds):
    """A declaration (mechanic, table, constant, enum, design view) as plain data: what its
    page shows and `rules export` publishes, in identifiers and in words.  `odds`, when
    given, is `(blocks by mechanic, errors by mechanic)` of its exact odds (the site);
    None leaves them out (export)."""
    from ..language.display import names_of
    from ..language.wording import doc_words, title as mechanic_title
    names = names_of(book.compiled)
    if isinstance(d, n.Mechanic):
        m = book.mechanics[d.name]
        params, params_words = [], []
        for p in d.params:
            default = default_words = None
            if p.default is not None:
                default = expr_text(p.default)
                try:
                    default_words = names.value(m.default(p.name))
                except Exception:  # a default that does not evaluate: its formula
                    default_words = default
            params.append((p.name, type_text(p.type), m.checks[p.name].describe, default))
            params_words.append((names.param(d.name, p.name), names.describe(p.type), default_words))
        rolls = [(r.name, dice_text(r.dice)) for r in m.rolls]
        from ..language.wording import dice_phrase, expr_words
        rolls_words = [(names.roll(d.name, r.name),
                        dice_phrase(r.dice, text=lambda e: expr_words(e, names, {p.name: names.param(d.name, p.name)
                                                                                 for p in d.params}),
                                    face=names.name)) for r in m.rolls]
        model = {"kind": "mechanic", "name": d.name, "doc": d.doc, "signature": m.signature_text(),
                 "params": params, "rolls": rolls, "returns": (type_text(d.returns), m.returns.describe),
                 "lines": mechanic_lines(d), "has_dice": bool(m.has_dice), "odds": None,
                 "words": {"title": mechanic_title(names, d.name), "name": capitalised(names.mechanic(d.name)),
                           "doc": doc_words(d.doc, names, d.name), "params": params_words, "rolls": rolls_words,
                           "returns": names.describe(d.returns),
                           "result": capitalised(names.results[d.name]) if d.name in names.results else "Result"}}
        if odds is not None and d.name in odds[0]:
            model["odds"] = [fold_odds(b) for b in odds[0][d.name]]
        if odds is not None and d.name in odds[1]:
            model["odds_error"] = odds[1][d.name]
        if odds is not None:         # the `odds` lines that sweep an input (design views)
            from .design_models import sweep_models
            model["sweeps"] = sweep_models(book, m)
        return model
    if isinstance(d, n.Table):
        rt = d.returns
        values = ([(k, type_text(t)) for k, t in rt.fields] if isinstance(rt, n.RecordType)
                  else [("value", type_text(rt))])
        printed = printed_members(book)
        rows = [[cell_text(c.value, printed, names) for c in row] for row in d.rows]
        used = {c[2] for row in rows for c in row if len(c) > 2}
        columns = [p.name for p in d.params] + [k for k, _ in values]

        def head(i, c):   # a header cell naming its key or column: that name's words
            if isinstance(c.value, n.Name):
                ident = c.value.name
                if ident in [p.name for p in d.params]:
                    return (names.param(d.name, ident), False)
                if ident in columns:
                    return (names.field(d.name, ident), False)
            return cell_text(c.value, None, names)
        keys_words = [names.param(d.name, p.name) for p in d.params]
        values_words = ([names.field(d.name, k) for k, _ in values] if isinstance(rt, n.RecordType) else [])
        return {"kind": "table", "name": d.name, "doc": d.doc, "grid": d.grid,
                "keys": [(p.name, type_text(p.type)) for p in d.params], "values": values,
                "header": [head(i, c) for i, c in enumerate(d.header)],
                "rows": rows, "legend": [(printed[m], names.name(m)) for m in printed
                                         if names.name(m) in used or m in used],
                "entries": len(book.tables[d.name].entries) if d.name in book.tables else 0,
                "words": {"title": d.doc or capitalised(names.table(d.name)), "name": capitalised(names.table(d.name)),
                          "keys": keys_words, "values": values_words,
                          "columns": keys_words + (values_words or [capitalised(names.table(d.name))])}}
    if isinstance(d, n.Const):
        try:
            value = show(book.constants[d.name])
        except Exception:  # pragma: no cover - constants are evaluated at compile time
            value = "?"
        formula = expr_text(d.value)
        try:
            value_words = names.value(book.constants[d.name])
        except Exception:  # pragma: no cover - constants are evaluated at compile time
            value_words = "?"
        return {"kind": "const", "name": d.name, "doc": d.doc, "value": value,
                "formula": formula if formula != value else None,
                "words": {"name": capitalised(names.const(d.name)), "value": value_words}}
    if isinstance(d, n.Enum):
        return {"kind": "enum", "name": d.name, "members": list(d.members),
                "words": {"name": capitalised(names.enum(d.name)),
                          "members": [names.member(d.name, m) for m in d.members]}}
    if isinstance(d, n.Priced):
        from .design_models import priced_model
        return priced_model(book, d) if odds is not None else {"kind": "priced", "name": d.name, "doc": d.doc,
                                                               "error": "odds are not computed in this build"}
    if isinstance(d, n.Check):
        binds = ", ".join(f"{b.name} in {expr_text(b.source)}" for b in d.bindings)
        where = f" where {expr_text(d.where)}" if d.where is not None else ""
        return {"kind": "check", "name": d.name, "doc": d.doc, "formula": f"for {binds}{where}: {expr_text(d.claim)}",
                "words": {"name": d.doc or capitalised(words(d.name))}}
    return None
