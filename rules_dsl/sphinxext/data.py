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

from fractions import Fraction
from pathlib import Path

from ..language import nodes as n
from ..language.prose import first_sentence, parse_prose, plain_text
from ..language.display import capitalised
from ..language.values import percent_text, show
from ..faces.records import decl_model

CASES_SHOWN = 12
SUMMARY_CHARS = 200


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


def definition_of(paragraphs, title_of=None) -> str:
    """What a rule says its subject is: the first sentence of its first paragraph (plain
    text: the renderers escape it), or "" for a rule without prose."""
    for p in paragraphs:
        s = plain_text(parse_prose(p), title_of, first_only=True)
        if s:
            return first_sentence(s)
    return ""


# ------------------------------------------------------------------ exact odds of a mechanic's page


def odds_available():
    try:
        from ..odds import page_inputs as odds_mod
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
    from ..language.display import names_of
    from ..language.wording import inputs_phrase
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
def _example_cases(book, rule_id, ex) -> list:
    """Each `>>>` of a worked example as the page shows it (working.example_cases)."""
    from ..evaluation.working import example_cases
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
    from ..library.findings import ordered, tally
    for rid, fs in findings_by_rule.items():     # reading order: a consequence under its cause
        o = ordered(fs, get=lambda f, k: f.get(k, ""))
        findings_by_rule[rid] = ([f for g in o.groups for f in g.findings + g.consequences]
                                 + [f for g in o.names for f in g.uses])
    transcribes = bool(book.ast.header.source)

    rules, sections = {}, {}

    def rule_model(r: n.Rule, sec_ids, sec_titles):
        decls = [x for x in (decl_model(book, d, odds) for d in r.decls) if x is not None]
        return {
            "book": book.id, "id": r.id, "title": r.title, "aliases": list(r.aliases),
            "keywords": list(r.keywords), "source": r.source,
            "uses": [(u.name, book.definer(u.name) if hasattr(book, "definer") else None)
                     for u in getattr(r, "uses", ())],
            "section_ids": list(sec_ids), "section_titles": list(sec_titles),
            "prose": [p.text for p in r.prose], "flavour": [p.text for p in r.flavour],
            "notes": [(note.kind, note.text.text) for note in r.notes],
            "decls": decls, "findings": findings_by_rule.get(r.id, []), "transcribes": transcribes,
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
                dm = decl_model(book, it, odds)
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
              "findings": len(derived["findings"]), "notes": notes,
              "findings_said": tally(derived["findings"], get=lambda f, k: f.get(k, ""))}
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
    from ..library.loader import books_dir
    return Path(books_dir()).resolve()


def example_locations(book) -> dict:
    """(rule id, index) -> 'file:line' of each example (kept out of the model)."""
    out = {}
    for r in book.rules:
        for i, ex in enumerate(r.examples):
            out[(r.id, i)] = f"{ex.span.file}:{ex.first_line}"
    return out
