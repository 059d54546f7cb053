"""The slow derived data of a book: check findings, example results and exact odds.

Each result is cached by its closure key (keys.Closures: everything the result is
made of), between builds and between output folders, in the rules cache folder (one
file per book): editing prose never re-runs them, and editing one mechanic re-runs
only what can see it.  `compute_derived` runs for every book compiled (its keys cost
a few tens of milliseconds): whether a result can be reused is decided here, result
by result, never for the whole book by a coarser record.
"""
from __future__ import annotations

import hashlib
import re
from pathlib import Path

from ..paths import read_pickle, write_pickle
from .data import compute_odds_one, odds_available
from .keys import MODEL_VERSION, Closures


class DerivedStore:
    """Results of checks, examples and odds by closure key, kept between builds
    (and between output folders) in the rules cache folder, one file per book."""

    def __init__(self, book_id: str):
        from ..library import loader
        self.root = Path(loader.cache_dir())
        self.path = self.root / "sphinx" / f"{book_id}.pickle"
        self.old, self.new = {}, {}
        try:
            data = read_pickle(self.path, root=self.root)
            if data.get("version") == MODEL_VERSION:
                self.old = data["items"]
        except Exception:
            self.old = {}

    def get(self, key, compute):
        if key in self.new:
            return self.new[key]
        if key in self.old:
            value = self.old[key]
        else:
            value = compute()
        self.new[key] = value
        return value

    def save(self):
        if self.new == self.old:
            return
        write_pickle(self.path, {"version": MODEL_VERSION, "items": self.new}, root=self.root)  # an optimisation only


def _run_check(book, name, chk) -> list:
    """One check -> its findings, as plain data."""
    if hasattr(book, "run_check"):
        return [{"rule": f.rule, "kind": f.kind, "check": f.check, "message": f.message, "cases": list(f.cases),
                 "printed": getattr(f, "printed", ""), "line": _line_of(f.location),
                 "sentences": list(getattr(f, "sentences", ()))}
                for f in book.run_check(name)]
    from ..compiler import case_text   # older Book without run_check: the same report
    try:
        total, failures = chk.run()
    except Exception as e:  # a check that cannot run is itself a finding about our source
        return [{"rule": chk.rule_id, "kind": "check-error", "check": name,
                 "message": f"{chk.node.doc or name}: {e}", "cases": []}]
    if not failures:
        return []
    shown = "; ".join(case_text(c) for c in failures[:12])
    more = f"; and {len(failures) - 12} more" if len(failures) > 12 else ""
    return [{"rule": chk.rule_id, "kind": "disagreement", "check": name,
             "message": f"{chk.node.doc or name}: fails in {len(failures)} of {total} cases: {shown}{more}",
             "cases": [case_text(c) for c in failures]}]


def _line_of(location: str) -> int:
    """The line of a `file:line:column` location (0 when there is none)."""
    parts = location.rsplit(":", 2)
    return int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else 0


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def compute_derived(book, code: str = "") -> dict:
    """Findings, example failures and exact odds, each cached by its closure key."""
    closures = Closures(book.ast, code)
    store = DerivedStore(book.id)
    findings = []
    for name, chk in book.compiled.checks.items():
        key = "check:" + closures.key(chk.node, placed=True, owner=chk.rule_id)
        findings.extend(store.get(key, lambda: _run_check(book, name, chk)))
    if hasattr(book, "coverage_findings") and book.compiled.checks:
        # tables the checks sweep with printed entries no check reads: a property of all the
        # checks together, so cached under all their keys (each reaches the tables it reads);
        # a finding shows the lines of the rows and the rule owning the table: placed keys
        keys = "\n".join(sorted(closures.key(chk.node, placed=True, owner=chk.rule_id)
                                for chk in book.compiled.checks.values()))
        key = "coverage:" + hashlib.sha256(keys.encode()).hexdigest()
        findings.extend(store.get(key, lambda: [
            {"rule": f.rule, "kind": f.kind, "check": f.check, "message": f.message, "cases": list(f.cases),
             "printed": f.printed, "line": _line_of(f.location)} for f in book.coverage_findings()]))
    # undefined names: made of every rule's title, aliases, keywords (the hints) and `uses`,
    # written where they are
    from ..language.model import rules_of
    names_key = "names:" + hashlib.sha256(repr((code, [(p.node.id, p.node.title, p.node.aliases, p.node.keywords,
                                                         p.node.uses) for p in rules_of(book.ast)])).encode()).hexdigest()
    findings.extend(store.get(names_key, lambda: [
        {"rule": f.rule, "kind": f.kind, "check": "", "message": f.message, "cases": [], "printed": f.printed,
         "line": _line_of(f.location)} for f in (book.name_findings() if hasattr(book, "name_findings") else ())]))
    failures = []
    counters = {}
    for rule_id, ex in book.example_cases():
        index = counters.get(rule_id, 0)
        counters[rule_id] = index + 1
        key = "example:" + closures.key(ex, set(_IDENT.findall(ex.text)), placed=True, owner=rule_id)

        def run(rule_id=rule_id, ex=ex):
            res = book.run_example(rule_id, ex)   # the language's evaluator, never Python's doctest
            return None if res.passed else res.report
        report = store.get(key, run)
        if report is not None:
            failures.append({"rule": rule_id, "index": index, "title": ex.title, "report": report})
    odds, odds_errors, odds_skipped = None, {}, {}
    if odds_available() is not None:
        odds = {}
        for name, mech in book.mechanics.items():
            try:
                if not mech.has_dice:
                    continue
            except Exception:
                continue
            key = "odds:" + closures.key(mech.node)
            chosen = getattr(book.compiled, "odds_inputs", {}).get(name)
            if chosen:   # the designer's `odds` lines: part of the key, so an edit shows at once
                from ..language.values import show
                key += ":" + repr([([show(a) for a in args], sorted((k, show(v)) for k, v in kw.items()))
                                   for args, kw in chosen])
            rows, err, *rest = store.get(key, lambda mech=mech: compute_odds_one(mech))
            if err is not None:
                odds_errors[name] = err
            else:
                odds[name] = rows
            if rest and rest[0]:
                odds_skipped[name] = list(rest[0])
    store.save()
    # what each finding is (a consequence depends on whether its cause fails too: worked out
    # over all of them, after the cache, never kept in it)
    from ..library.findings import classify_records
    findings = classify_records(findings, {k: c.node for k, c in book.compiled.checks.items()})
    return {"findings": findings, "failures": failures, "odds": odds, "odds_errors": odds_errors,
            "odds_skipped": odds_skipped}
