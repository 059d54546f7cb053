"""A compiled book -> its render model: a tree of plain strings, numbers, tuples and
dicts that the renderers (render_rules.py, render_decls.py, render_pages.py) draw.

The directives never touch the compiler: they render from the model.  That buys
three things:

* the model is picklable, so it can be cached on disk (cache.py, in the doctree
  folder) and reused when a book's files are unchanged, and it is inherited by the
  worker processes of a parallel (`-j`) build;
* a rule's model is *everything* its rendering shows, so a hash of it is an
  exact fingerprint: each page `note_dependency`s one small file holding a
  digest of the fingerprints of what it shows, rewritten only when that digest
  changes (`Site.write_fingerprints`).  Editing one rule
  re-reads only the page holding it (line shifts elsewhere in the file change
  nothing, since the model holds no line numbers);
* the slow derived data (check findings, exact odds, example results; derived.py)
  depends only on the book's declarations and examples, so it is cached by a
  *semantic key* (keys.py) that ignores prose and source positions: editing prose
  never re-runs checks, odds or examples.

The exact odds shown on a mechanic's page are computed here (`compute_odds_one`,
through the odds engine's `page_odds`).
"""
from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

from .. import nodes as n
from ..render import dice_text, expr_text, literal_text, mechanic_lines, type_text
from ..prose import parse_prose, plain_text
from ..display import capitalised, words
from ..values import ABSENT, percent_text, show

CASES_SHOWN = 12
SUMMARY_CHARS = 200
DEFINITION_CHARS = 320


# ------------------------------------------------------------------ prose
def summary_of(paragraphs, title_of=None) -> str:
    """The first paragraph of a rule's prose (with a list right under it) as plain
    text, shortened for a hover preview."""
    for p in paragraphs:
        s = plain_text(parse_prose(p), title_of, first_only=True)
        if s:
            if len(s) > SUMMARY_CHARS:
                s = s[:SUMMARY_CHARS].rsplit(" ", 1)[0] + " …"
            return s
    return ""


#: a sentence ends at . ! or ? followed by a space and a capital, a digit or a quote ...
_SENTENCE_END = re.compile(r"([.!?])\s+(?=[A-Z0-9\"“(])")
#: ... unless the full stop ends an abbreviation ("e.g. A", "vs. Cover", "Fig. 3") or an initial
_ABBREVIATIONS = {"e.g", "i.e", "etc", "vs", "cf", "fig", "no", "approx", "p", "pp"}


def first_sentence(text: str, limit: int = DEFINITION_CHARS, min_words: int = 8) -> str:
    """The first sentence of a plain text (a glossary definition), shortened at a word.
    A sentence of fewer than `min_words` words is a lead-in ("Receiving tokens.", a price
    "D x 6 gc."): the next sentences are added until the text says something."""
    s = text
    for m in _SENTENCE_END.finditer(text):
        word = text[:m.start(1)].rsplit(" ", 1)[-1]
        if m.group(1) == "." and (word.lower() in _ABBREVIATIONS or (len(word) == 1 and word.isupper())):
            continue
        if len(text[:m.end(1)].split()) < min_words:
            continue
        s = text[:m.end(1)]
        break
    if len(s) > limit:
        s = s[:limit].rsplit(" ", 1)[0].rstrip(",;:") + " …"
    return s


def definition_of(paragraphs, title_of=None) -> str:
    """What a rule says its subject is: the first sentence of its first paragraph (plain
    text: the renderers escape it), or "" for a rule without prose."""
    for p in paragraphs:
        s = plain_text(parse_prose(p), title_of, first_only=True)
        if s:
            return first_sentence(s)
    return ""


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
    from ..model import decls_of
    out, clash = {}, set()
    for p in decls_of(book.ast):
        for member, text in getattr(p.node, "printed", ()) if isinstance(p.node, n.Enum) else ():
            if out.get(member, text) != text:
                clash.add(member)
            out[member] = text
    return {m: t for m, t in out.items() if m not in clash}


# ------------------------------------------------------------------ exact odds of a mechanic's page


def odds_available():
    try:
        from . import page_odds as odds_mod
    except ImportError:
        return None
    return getattr(odds_mod, "page_odds", None)


def compute_odds_one(mech):
    """(rows, None, skipped) for a dice mechanic's page, or (None, error text, []):
    `skipped`, the refusals of the designer's `odds` lines too large to compute (their
    tables are left out; the build logs them).  Results and inputs are in words
    (display.py: the words are part of the mechanic's closure key, so a renamed member
    computes its odds' rows again); `inputs_shown` keeps the values as the page's form
    matches them (values.show)."""
    from ..display import names_of
    from ..wording import inputs_phrase
    names = names_of(mech.book)
    page_odds = odds_available()
    skipped = []
    try:
        rows = []
        for inputs, dist in page_odds(mech, skipped=skipped):
            outcomes = []
            cum = dist.cumulative() if hasattr(dist, "cumulative") else None
            for i, (value, p) in enumerate(dist.outcomes):
                p = Fraction(p)
                at_least = percent_text(Fraction(cum[i][2])) if cum is not None else ""
                outcomes.append((_value_words(names, value), p.numerator, p.denominator, percent_text(p), at_least))
            mean = getattr(dist, "mean", None)
            mean_text = None
            if mean is not None:
                mean = Fraction(mean)
                mean_text = show(mean) + ("" if mean.denominator == 1 else f" ≈ {float(mean):.3f}")
            inputs_text = capitalised(inputs_phrase(names, mech.name, dict(inputs))) or "(no inputs)"
            from ..odds.result import explode_lines
            given, shown_inputs = dict(inputs), {}
            for prm in mech.params:        # every parameter as shown, defaults included: the
                if prm.name in given:      # page's forms match their inputs against these
                    shown_inputs[prm.name] = show(given[prm.name])
                elif prm.default is not None:
                    shown_inputs[prm.name] = show(mech.default(prm.name))
            rows.append({"inputs": inputs_text, "inputs_shown": shown_inputs, "outcomes": outcomes, "mean": mean_text,
                         "exact": bool(getattr(dist, "exact", True)),
                         "limits": explode_lines(getattr(dist, "explode_caps", {}))})
        return rows, None, skipped
    except Exception as e:  # the odds engine is another module: show why, do not break the site
        return None, f"{type(e).__name__}: {e}", []


def _value_words(names, value) -> str:
    """An outcome in words; a chain's "n or more" bucket as it says itself."""
    from ..odds.result import OrMore
    if isinstance(value, OrMore):
        return f"{names.value(value.n)} or {'more' if value.up else 'less'}"
    return names.value(value)


#: an odds block (one set of inputs) longer than this is folded: its likeliest outcomes,
#: then one row for the rest (together under ODDS_FOLD_BELOW)
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
def _decl_model(book, d, odds):
    from ..display import names_of
    from ..wording import doc_words, title as mechanic_title
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
        from ..terminal import dice_phrase
        from ..wording import expr_words
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


def _example_cases(book, rule_id, ex) -> list:
    """Each `>>>` of a worked example as the page shows it (wording.example_cases)."""
    from ..wording import example_cases
    return example_cases(book, rule_id, ex)


def refs_of(book_id: str, r: n.Rule) -> list:
    """The rules and sections a rule's text points to (its prose, flavour and notes'
    `[[refs]]`, the ones `checks.check_references` verified), as sorted unique
    (book, id) pairs: the other side of each is a "referenced by" link."""
    texts = list(r.prose) + list(r.flavour) + [note.text for note in r.notes]
    return sorted({(ref.book or book_id, ref.rule) for t in texts for ref in t.refs
                   if (ref.book or book_id, ref.rule) != (book_id, r.id)})


def build_model(book, derived: dict) -> dict:
    """The whole render model of one compiled book (plain data only)."""
    odds = (derived["odds"], derived["odds_errors"]) if derived.get("odds") is not None else None
    titles = {r.id: r.title for r in book.rules}
    for p in book.sections:
        titles.setdefault(p.node.id, p.node.title)

    def title_of(b, rid):
        return titles.get(rid) if b in (None, book.id) else None

    findings_by_rule = {}
    for f in derived["findings"]:
        findings_by_rule.setdefault(f["rule"], []).append(f)

    rules, sections = {}, {}

    def rule_model(r: n.Rule, sec_ids, sec_titles):
        decls = [x for x in (_decl_model(book, d, odds) for d in r.decls) if x is not None]
        return {
            "book": book.id, "id": r.id, "title": r.title, "aliases": list(r.aliases),
            "keywords": list(r.keywords), "source": r.source,
            "uses": [(u.name, book.definer(u.name) if hasattr(book, "definer") else None)
                     for u in getattr(r, "uses", ())],
            "section_ids": list(sec_ids), "section_titles": list(sec_titles),
            "prose": [p.text for p in r.prose], "flavour": [p.text for p in r.flavour],
            "notes": [(note.kind, note.text.text) for note in r.notes],
            "decls": decls, "findings": findings_by_rule.get(r.id, []),
            "examples": [(ex.title, ex.text) for ex in r.examples],
            "cases": [_example_cases(book, r.id, ex) for ex in r.examples],
            "summary": summary_of([p.text for p in r.prose], title_of),
            "definition": definition_of([p.text for p in r.prose], title_of),
            "refs": refs_of(book.id, r),
        }

    def items_model(items, sec_ids, sec_titles):
        out = []
        for it in items:
            if isinstance(it, n.Section):
                ids, tts = sec_ids + (it.id,), sec_titles + (it.title,)
                sections[it.id] = {
                    "book": book.id, "id": it.id, "title": it.title, "prose": [p.text for p in it.prose],
                    "path_ids": list(ids), "path_titles": list(tts), "top": not sec_ids,
                    "items": items_model(it.items, ids, tts),
                    "summary": summary_of([p.text for p in it.prose], title_of),
                }
                out.append(("section", it.id))
            elif isinstance(it, n.Rule):
                rules[it.id] = rule_model(it, sec_ids, sec_titles)
                out.append(("rule", it.id))
            elif isinstance(it, n.Prose):
                out.append(("prose", it.text))
            else:
                dm = _decl_model(book, it, odds)
                if dm is not None:
                    out.append(("decl", dm))
        return out

    items = items_model(book.ast.items, (), ())
    h = book.ast.header
    dice = []
    for name, die in book.dice.items():
        if die.custom:
            counts = {}
            for f in die.faces:
                counts[str(f)] = counts.get(str(f), 0) + 1
            dice.append((name, "custom die: " + ", ".join(f"{k} ×{v}" for k, v in counts.items())))
        else:
            dice.append((name, f"faces 1..{len(die.faces)}"))
    loose = [f for f in derived["findings"] if f["rule"] not in rules]
    notes = {}
    for r in rules.values():
        for kind, _ in r["notes"]:
            notes[kind] = notes.get(kind, 0) + 1
    counts = {"rules": len(rules), "sections": len(sections), "mechanics": len(book.mechanics),
              "tables": len(book.tables), "examples": sum(len(r["examples"]) for r in rules.values()),
              "findings": len(derived["findings"]), "notes": notes}
    books_dir = _books_dir()
    files = []
    for f in book.ast.files:
        try:
            files.append(str(Path(f).resolve().relative_to(books_dir)))
        except ValueError:
            files.append(Path(f).name)
    top_sections = [sid for kind, sid in items if kind == "section"]
    from .front import front_model
    model = {"id": book.id, "title": h.title or book.id, "edition": h.edition, "source": h.source,
             "units": h.units, "dice": dice, "prose": [p.text for p in h.prose], "files": files,
             "items": items, "sections": sections, "rules": rules,
             "top_sections": top_sections,
             "counts": counts, "loose_findings": loose,
             "odds_available": odds is not None,
             "front": front_model(book, rules, sections, top_sections, lambda ps: definition_of(ps, title_of))}
    if book.layers:        # a layered book: what each rule's layers changed, and the diff with its base
        from .changes import add_layers
        add_layers(model, book)
    return model


def _books_dir() -> Path:
    from ..loader import books_dir
    return Path(books_dir()).resolve()


def example_locations(book) -> dict:
    """(rule id, index) -> 'file:line' of each example (kept out of the model)."""
    out = {}
    for r in book.rules:
        for i, ex in enumerate(r.examples):
            out[(r.id, i)] = f"{ex.span.file}:{ex.first_line}"
    return out
