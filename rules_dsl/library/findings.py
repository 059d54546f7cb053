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
                    "cause": cause, "cause_doc": (check_nodes[cause].doc or cause) if cause else ""})
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


_SHAPE = {"disagreement": "printed value", "check-summary": "check", "unchecked-rows": "unchecked rows",
          "check-error": "check error"}


def finding_line(f) -> str:
    """One finding in one line, for designers: what it is, where, and what it says (the
    check's `finding` sentences where it writes them)."""
    what = f"consequence of {f.cause}" if f.cause else (f.category or category_of(f.kind, None))
    shape = _SHAPE.get(f.kind, f.kind)
    return f"{what}, {shape}, {f.location} ({f.rule}): {f.text}"


def finding_lines(findings: list, indent: str = "  ") -> list:
    """The findings of one book in reading order (`ordered`): each group, its consequences
    indented under it, then the names used but never defined, one line a term with its
    count and where each use is."""
    o = ordered(findings)
    out = []
    for g in o.groups:
        out.extend(indent + finding_line(f) for f in g.findings)
        out.extend(indent + "  " + finding_line(f) for f in g.consequences)
    if o.names:
        uses = sum(len(g.uses) for g in o.names)
        out.append(f"{indent}used but never defined: {len(o.names)} term(s), {uses} use(s); "
                   f"no rule has them as its title or an alias")
        for g in o.names:
            where = ", ".join(f"{f.rule} ({f.location})" for f in g.uses)
            out.append(f"{indent}  '{g.term}' ({len(g.uses)}): {where}")
    return out


def tally(findings: list, get=getattr) -> str:
    """How many findings of each category: "2 disagreements, 1 consequence, 81 names used
    but never defined (59 terms)"; "" when there are none (`get` as for `ordered`)."""
    o = ordered(findings, get)
    parts = []
    checked_gaps = sum(len(g.findings) for g in o.groups if g.category == "gap")
    for category, one, many in (("disagreement", "disagreement", "disagreements"),
                                ("consequence", "consequence", "consequences")):
        k = o.count(category)
        if k:
            parts.append(f"{k} {one if k == 1 else many}")
    if checked_gaps:
        parts.append(f"{checked_gaps} {'gap' if checked_gaps == 1 else 'gaps'}")
    for category, one, many in (("coverage", "unchecked table", "unchecked tables"),
                                ("error", "check error", "check errors")):
        k = o.count(category)
        if k:
            parts.append(f"{k} {one if k == 1 else many}")
    if o.names:
        uses = sum(len(g.uses) for g in o.names)
        parts.append(f"{uses} {'name' if uses == 1 else 'names'} used but never defined "
                     f"({len(o.names)} {'term' if len(o.names) == 1 else 'terms'})")
    return ", ".join(parts)


def heading(kind: str, category: str) -> str:
    """A finding's title for players (`rules show`, the site)."""
    if category == "consequence":
        return "Finding: a consequence of another finding"
    if kind == "undefined-name":
        return "Finding: a name used but never defined"
    if category == "gap":
        return "Finding: a gap in the book (named or priced, never defined)"
    return {"disagreement": "Finding: a printed value disagrees",
            "check-summary": "Finding: the book disagrees with itself",
            "check-error": "Finding: a check could not run",
            "unchecked-rows": "Finding: printed entries no check reads"}.get(kind, "Finding")


def standing(category: str, transcribes: bool) -> str:
    """Whose fact a finding is: the published source's, for a book that restates one (its
    header's `source` line); for a game of one's own, a mistake in it to fix."""
    if category in ("coverage", "error"):
        return "This finding is about our checks of the book, not about the rules themselves."
    if transcribes:
        return "Findings are facts about the source rulebook, not errors of this site."
    return "This book is a game of its own, not a restated one: a finding is something to fix in it."
