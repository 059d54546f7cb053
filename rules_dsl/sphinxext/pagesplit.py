"""Which pages a book's sections get, so that no page grows past what a phone should load.

Every top-level section gets a page, as before, unless its page would pass
`PAGE_BUDGET` (an estimate of the page's HTML bytes, made from the book's render
model alone: deterministic, and independent of the other books).  A section over
budget is split:

* each of its direct sub-sections gets its own page (and is split the same way
  when it is itself too big), linked from where it stands in the section;
* what is left (its rules, prose and declarations, in order) goes on consecutive
  pages of about equal weight, "part 1 of 3" ..., each with the section's title.

The section's first page keeps the section's address (`<book>/<section>.html`)
and its anchor; the other parts are `<book>/<section>/part-<n>.html`.  A rule's
anchor (`book:rule`) is on whichever page shows it: cross-references, the
search index and the backlinks follow the domain's objects, so they follow it.

Plain data in, plain data out (no Sphinx): the plan is a pure function of the
model, so two builds make the same pages, and a page depends only on its own
entry of the plan (`Site` fingerprints each split section's entries).
"""
from __future__ import annotations

#: the most estimated bytes of content one page holds (the theme's frame, about
#: 35 KB, comes on top): a page of the real books then stays well under 500 KB.
#: conf.py may set another (`rules_page_budget`)
PAGE_BUDGET = 240_000

# What a page's HTML costs, in bytes, fitted on the real books' pages (within about
# 8% for a typical rule; it leaves out the "referenced by" links, which come from
# other books).
RULE = 1100             # title, anchor, index entries, reference line, folds
PER_CHAR = 1            # prose, flavour and notes, per character
PER_NOTE = 450
PER_EXAMPLE = 300
WORKING_CHAR = (6, 5)   # a "show working" fold's text: 6/5 bytes per character (integers: the same on every machine)
PER_WORKING = 450
PER_WORK_LINE = 70     # each step of a worked solution: its own paragraph (<p class="rules-work ...">)
PER_MECHANIC = 250
MECHANIC_CHAR = 6       # a mechanic's formula and doc (its signature's spans are heavy), per character
PER_PARAM = 360
PER_ODDS_ROW = 400      # a row of its exact odds (the table and the form's data)
PER_CELL = 36           # a cell of a data table
PER_DECL = 370          # a constant, enumeration or check
PER_LINK = 220          # a keyword, alias or term used
PER_FINDING_LINE = 420
SECTION = 1000          # a section's title, anchor and reference line
LINK_ITEM = 250         # a sub-section on its own page, as a link


def rule_weight(r: dict) -> int:
    """The estimated HTML bytes of one rule (its model is everything it shows)."""
    w = RULE + PER_CHAR * (sum(len(t) for t in r["prose"]) + sum(len(t) for t in r["flavour"])
                           + sum(len(t) for _, t in r["notes"]))
    w += PER_NOTE * len(r["notes"]) + PER_EXAMPLE * len(r["examples"])
    for per_example in r.get("cases") or ():
        for case in per_example:
            lines = case["working"]
            text = sum(len(t) for _, _, t in lines) + len(case["sentence"]) + len(case["code"])
            w += PER_WORKING + WORKING_CHAR[0] * (text + len(lines)) // WORKING_CHAR[1] + PER_WORK_LINE * len(lines)
    w += sum(decl_weight(d) for d in r["decls"])
    w += PER_LINK * (len(r["keywords"]) + len(r["aliases"]) + len(r.get("uses", ())))
    w += PER_FINDING_LINE * sum(1 + len(f.get("cases", ())) for f in r["findings"])
    return w


def decl_weight(d: dict) -> int:
    """The estimated HTML bytes of one declaration (a mechanic with its odds, a table ...)."""
    if d["kind"] == "mechanic":
        return (PER_MECHANIC + PER_PARAM * (len(d["params"]) + len(d["rolls"]))
                + MECHANIC_CHAR * (sum(map(len, d["lines"])) + len(d["doc"] or ""))
                + PER_ODDS_ROW * sum(len(b["outcomes"]) for b in d.get("odds") or ()))
    if d["kind"] == "table":
        return PER_CELL * (sum(len(row) for row in d["rows"]) + len(d["header"]))
    return PER_DECL


def item_weight(model: dict, item, memo=None) -> int:
    """The estimated bytes of one item of a section, shown in place (`memo`: the
    weights of rules and sections already estimated, by (kind, id))."""
    kind, value = item
    if kind in ("rule", "section"):
        if memo is not None and item in memo:
            return memo[item]
        w = rule_weight(model["rules"][value]) if kind == "rule" else section_weight(model, value, memo)
        if memo is not None:
            memo[item] = w
        return w
    if kind == "prose":
        return PER_CHAR * len(value) + 100
    return decl_weight(value)


def section_weight(model: dict, sid: str, memo=None) -> int:
    """The estimated bytes of a whole section (its sub-sections included) on one page."""
    sec = model["sections"][sid]
    return (SECTION + PER_CHAR * sum(len(t) for t in sec["prose"])
            + sum(item_weight(model, it, memo) for it in sec["items"]))


def section_file(sid: str) -> str:
    """A section's page, relative to its book's folder ("index" is the book's own page)."""
    return "section-index" if sid == "index" else sid


def part_path(sid: str, part: int) -> str:
    return section_file(sid) if part == 1 else f"{section_file(sid)}/part-{part}"


def _title_of(model, item) -> str:
    kind, value = item
    if kind == "rule":
        return model["rules"][value]["title"]
    if kind == "section":
        return model["sections"][value]["title"]
    return ""


def _chunks(groups: list, budget: int) -> list:
    """Consecutive groups [(items, weight)] cut into the fewest parts of about equal
    weight that stay near `budget`: each group goes to the part its middle falls in
    (integer arithmetic: the same cut on every machine)."""
    total = sum(w for _, w in groups)
    n = max(1, min(len(groups), -(-total // budget)))
    parts = [[] for _ in range(n)]
    cum = 0
    for items, w in groups:
        k = min(n - 1, ((2 * cum + w) * n) // (2 * total)) if total else 0
        parts[k].extend(items)
        cum += w
    return [p for p in parts if p]


def plan(model: dict, budget: int = PAGE_BUDGET) -> dict:
    """The pages of a book's sections.

    Returns {"top": {section id: [paths of its pages]} for the top-level sections,
    "families": {section id: [paths]} for every section with pages of its own,
    "pages": {path: page}}.  A path is relative to the book's folder; a page is
    {"section": id, "part": n, "parts": count, "items": the section's items it shows
    (a sub-section among them is a link to its own pages) or None (the whole section),
    "label": the titles of its first and last rule or sub-section}."""
    pages, families, memo = {}, {}, {}

    def family(sid: str) -> list:
        sec = model["sections"][sid]
        if section_weight(model, sid, memo) <= budget:
            path = part_path(sid, 1)
            pages[path] = {"section": sid, "part": 1, "parts": 1, "items": None, "label": ""}
            families[sid] = [path]
            return families[sid]
        groups, lead = [], []
        for it in sec["items"]:
            if it[0] == "section":
                family(it[1])
                groups.append((lead + [it], LINK_ITEM))
                lead = []
            elif it[0] == "rule":
                groups.append((lead + [it], item_weight(model, it, memo) + sum(item_weight(model, x, memo) for x in lead)))
                lead = []
            else:
                lead.append(it)            # prose and declarations stay with what follows them
        if lead:
            if groups:
                items, w = groups[-1]
                groups[-1] = (items + lead, w + sum(item_weight(model, x, memo) for x in lead))
            else:
                groups.append((lead, sum(item_weight(model, x, memo) for x in lead)))
        parts = _chunks(groups, budget) or [[]]
        paths = []
        for i, items in enumerate(parts, 1):
            titled = [_title_of(model, it) for it in items if it[0] in ("rule", "section")]
            label = (titled[0] if len(titled) < 2 else f"{titled[0]} – {titled[-1]}") if titled else ""
            path = part_path(sid, i)
            pages[path] = {"section": sid, "part": i, "parts": len(parts), "items": items, "label": label}
            paths.append(path)
        families[sid] = paths
        return paths

    top = {sid: family(sid) for sid in model["top_sections"]}
    return {"top": top, "families": families, "pages": pages}
