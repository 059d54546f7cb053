"""What each finding is, and the order a reader meets them in.

A check's failing case was once always "a disagreement", which overstated: a price the
book gives no formula for, or a special it never defines, contradicts nothing; it is a
*gap*.  And the 40k bunker's door (20 against 15) only follows from the bunker's own
armour (25 against 30), a finding already: reported alone it read as a second
contradiction.  So every finding has a *category*, said here once for every face
(`rules check`, `rules show`, the JSON, the site):

* `disagreement`: two printed things contradict (a check's claim fails);
* `gap`: something the book names or prices and never defines or gives a formula for
  (a check that `reports gap`, and every `undefined-name`);
* `consequence`: the failure of a check that `follows` another check which fails too;
  its `cause` is that check, and it is listed under it;
* `coverage`: printed rows no check reads (`unchecked-rows`: about our checks);
* `error`: a check that cannot run (`check-error`: about our source).

The finding's `kind` (its shape: one printed value, a check's summary, a name...) is
kept as it was: JSON readers filter on it.  `ordered` gives the reading order: the
disagreements, each with its consequences under it, then the gaps, then the rest, and
last the names used but never defined, grouped by term (`NameGroup`), so that 81 names
of the 40k book do not bury its one real contradiction.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..analysis.symbols import name_key

CATEGORIES = ("disagreement", "consequence", "gap", "coverage", "error")

_BY_KIND = {"check-error": "error", "unchecked-rows": "coverage", "undefined-name": "gap"}
_FAILED = ("disagreement", "check-summary")       # the kinds a failing check gives
_ORDER = {"disagreement": 0, "gap": 1, "coverage": 2, "error": 3}


def _failing(records, kind_of, check_of) -> set:
    return {check_of(f) for f in records if kind_of(f) in _FAILED and check_of(f)}


def category_of(kind: str, check_node, cause: str = "") -> str:
    """The category of a finding of `kind` from the check `check_node` (None for a finding
    no check gives), whose cause (a failing check it `follows`) is `cause`."""
    if kind in _BY_KIND:
        return _BY_KIND[kind]
    if cause:
        return "consequence"
    return getattr(check_node, "reports", "disagreement") if check_node is not None else "disagreement"


def causes(check_nodes: dict, failing: set) -> dict:
    """check name -> its cause, for each failing check that `follows` a check that fails too
    (a check whose cause holds stands on its own: nothing it follows from went wrong)."""
    return {name: chk.follows for name, chk in check_nodes.items()
            if name in failing and getattr(chk, "follows", None) in failing}


def classify(findings: list, check_nodes: dict) -> list:
    """`Finding` records with their `category` and `cause` filled in (check name -> n.Check)."""
    why = causes(check_nodes, _failing(findings, lambda f: f.kind, lambda f: f.check))
    out = []
    for f in findings:
        cause = why.get(f.check, "") if f.kind in _FAILED else ""
        out.append(replace(f, category=category_of(f.kind, check_nodes.get(f.check), cause), cause=cause))
    return out


def classify_records(records: list, check_nodes: dict) -> list:
    """The same for the site's plain findings (dicts with `kind` and `check`): each gets its
    `category` and `cause` (copies: the cached records are not changed)."""
    why = causes(check_nodes, _failing(records, lambda f: f["kind"], lambda f: f.get("check", "")))
    out = []
    for f in records:
        cause = why.get(f.get("check", ""), "") if f["kind"] in _FAILED else ""
        out.append({**f, "category": category_of(f["kind"], check_nodes.get(f.get("check", "")), cause),
                    "cause": cause})
    return out


@dataclass(frozen=True)
class FindingGroup:
    """One check's findings (or one finding no check gives), with the findings of the checks
    whose failure follows from it."""
    category: str
    findings: tuple
    consequences: tuple = ()


@dataclass(frozen=True)
class NameGroup:
    """A term the book uses and never defines: its spelling (the first use's) and every use."""
    term: str
    uses: tuple = field(default=())


@dataclass(frozen=True)
class Ordered:
    groups: tuple          # FindingGroup, disagreements first, then gaps, coverage, errors
    names: tuple           # NameGroup, in the order of their first use

    def count(self, category: str) -> int:
        n = sum(len(g.findings) for g in self.groups if g.category == category)
        n += sum(len(g.consequences) for g in self.groups) if category == "consequence" else 0
        return n + (sum(len(g.uses) for g in self.names) if category == "gap" else 0)


def ordered(findings: list, get=getattr) -> Ordered:
    """The findings in reading order (`get(f, "kind")` reads a field: getattr for `Finding`,
    `dict.get` style for the site's records)."""
    by_check, singles, later, names = {}, [], {}, {}
    for f in findings:
        kind, check = get(f, "kind"), get(f, "check") or ""
        if kind == "undefined-name":
            term = get(f, "printed") or ""
            names.setdefault(name_key(term), []).append(f)
        elif get(f, "cause"):
            later.setdefault(get(f, "cause"), []).append(f)
        elif check and kind in _FAILED:
            by_check.setdefault(check, []).append(f)
        else:
            singles.append([f])
    groups = [FindingGroup(get(fs[0], "category"), tuple(fs)) for fs in list(by_check.values()) + singles]
    placed = set()

    def under(check: str) -> tuple:
        """The consequences of `check`, each followed by its own (a chain of causes)."""
        out = []
        for f in later.get(check, ()):
            out.append(f)
            c = get(f, "check")
            if c not in placed:
                placed.add(c)
                out.extend(under(c))
        return tuple(out)
    groups = [replace(g, consequences=under(get(g.findings[0], "check") or "")) for g in groups]
    groups.sort(key=lambda g: _ORDER.get(g.category, len(_ORDER)))
    return Ordered(tuple(groups), tuple(NameGroup(get(fs[0], "printed") or "", tuple(fs)) for fs in names.values()))
