"""Books -> plain render models, computed once per build and cached between builds.

The directives never touch the compiler: they render from a *model*, a tree of
plain strings, numbers, tuples and dicts built here from a compiled `Book`.
That buys three things:

* the model is picklable, so it can be cached on disk (in the doctree folder)
  and reused when a book's files are unchanged, and it is inherited by the
  worker processes of a parallel (`-j`) build;
* a rule's model is *everything* its rendering shows, so a hash of it is an
  exact fingerprint: `Site.write_fingerprints` writes one small file per rule,
  section and book, rewritten only when that hash changes, and each page
  `note_dependency`s the fingerprint files of what it shows.  Editing one rule
  re-reads only the page holding it (line shifts elsewhere in the file change
  nothing, since the model holds no line numbers);
* the slow derived data (check findings, exact odds, example results) depends
  only on the book's declarations and examples, so it is cached by a
  *semantic key* that ignores prose and source positions: editing prose never
  re-runs checks, odds or examples.
"""
from __future__ import annotations

import dataclasses
import hashlib
import pickle
import re
from fractions import Fraction
from pathlib import Path

from .. import cachekeys, nodes as n
from ..cachekeys import code_fingerprint
from ..render import dice_text, expr_text, literal_text, mechanic_lines, type_text
from ..paths import write_pickle
from ..values import ABSENT, show

MODEL_VERSION = 4
CASES_SHOWN = 12
SUMMARY_CHARS = 200

_REF = re.compile(r"\[\[(.*?)\]\]", re.S)
_REF_BODY = re.compile(r"^(?:([a-z0-9]+(?:-[a-z0-9]+)*):)?([a-z0-9]+(?:-[a-z0-9]+)*)(?:\|(.+))?$", re.S)


# ------------------------------------------------------------------ keys
def engine_key() -> str:
    """Changes whenever the language implementation (compiler, odds engine...) changes."""
    return code_fingerprint("engine", salt=str(MODEL_VERSION))


def render_key() -> str:
    """Changes whenever this extension changes (pages must then be rendered again)."""
    return code_fingerprint("site", salt=str(MODEL_VERSION))


def code_key() -> str:
    """Changes whenever the package or this extension changes."""
    return code_fingerprint("engine", "site", salt=str(MODEL_VERSION))


def content_key(files, code: str) -> str:
    return cachekeys.key(*(x for f in files for x in (str(f), Path(f).read_bytes())), code=code)


def _strip(x):
    """An AST value without source positions, for hashing what a node *means*."""
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return (type(x).__name__,) + tuple(_strip(getattr(x, f.name)) for f in dataclasses.fields(x)
                                           if f.name not in ("span", "first_line"))
    if isinstance(x, (tuple, list)):
        return tuple(_strip(i) for i in x)
    return x


def semantic_key(ast, code: str) -> str:
    """Hash of everything checks, odds and examples depend on: declarations,
    examples and dice (not prose, titles, notes or positions)."""
    parts = [code, repr(_strip(ast.header.dice))]

    def visit(items, where):
        for it in items:
            if isinstance(it, n.Section):
                parts.append(f"section {where}/{it.id}")
                visit(it.items, f"{where}/{it.id}")
            elif isinstance(it, n.Rule):
                parts.append(f"rule {it.id}")
                parts.append(repr(_strip(it.decls)))
                parts.append(repr(_strip(it.examples)))
            elif not isinstance(it, n.Prose):
                parts.append(repr(_strip(it)))
    visit(ast.items, "")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def digest(obj) -> str:
    return hashlib.sha256(repr(obj).encode()).hexdigest()[:24]


# ------------------------------------------------------------------ prose
def parse_ref(body: str):
    """`book:rule|label` -> (book or None, rule, label or None); None when malformed."""
    m = _REF_BODY.match(body.strip())
    if not m:
        return None
    return m.group(1), m.group(2), m.group(3)


def plain_text(text: str, title_of=None) -> str:
    """Prose without markup, refs shown by label or title (for hover previews)."""
    def ref(m):
        parsed = parse_ref(m.group(1))
        if not parsed:
            return m.group(0)
        book, rule, label = parsed
        if label:
            return label
        if title_of:
            t = title_of(book, rule)
            if t:
                return t
        return rule.replace("-", " ")
    s = _REF.sub(ref, text)
    s = re.sub(r"\*\*(.+?)\*\*", r"\1", s, flags=re.S)
    s = re.sub(r"(?<![*\w])\*(?!\s)(.+?)(?<!\s)\*(?![*\w])", r"\1", s, flags=re.S)
    s = re.sub(r"^\s*- ", "", s, flags=re.M)
    return " ".join(s.split())


def summary_of(paragraphs, title_of=None) -> str:
    """The first paragraph of a rule's prose, shortened for a hover preview."""
    for p in paragraphs:
        first = re.split(r"\n\s*\n", p.strip(), maxsplit=1)[0]
        s = plain_text(first, title_of)
        if s:
            if len(s) > SUMMARY_CHARS:
                s = s[:SUMMARY_CHARS].rsplit(" ", 1)[0] + " …"
            return s
    return ""


# ------------------------------------------------------------------ values
def value_text(v) -> str:
    """A computed value as the docs show it (fractions as p/q)."""
    if isinstance(v, Fraction) and not isinstance(v, bool):
        return f"{v.numerator}/{v.denominator}" if v.denominator != 1 else str(v.numerator)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(value_text(x) for x in v) + "]"
    if isinstance(v, (frozenset, set)):
        return "{" + ", ".join(sorted(value_text(x) for x in v)) + "}"
    return show(v)


def cell_text(v):
    """A table cell from the source: (text, is_absent)."""
    if v is ABSENT:
        return ("absent in source", True)
    if isinstance(v, str):
        return (v, False)
    if isinstance(v, n.Name):
        return (v.name, False)
    return (literal_text(v), False)


def percent_text(p: Fraction) -> str:
    if p == 0:
        return "0%"
    pct = float(p) * 100
    if pct < 0.01:
        return "<0.01%"
    if pct > 99.99 and p != 1:
        return ">99.99%"
    return f"{pct:.2f}%"


def fraction_text(p: Fraction) -> str:
    p = Fraction(p)
    return f"{p.numerator}/{p.denominator}" if p.denominator != 1 else str(p.numerator)


# ------------------------------------------------------------------ derived data
class Closures:
    """Keys for cached results: the hash of a declaration (a check, a mechanic, an
    example) together with every declaration it reaches by name, transitively,
    plus the book's enums and dice.  Editing one mechanic re-runs only the
    checks, odds and examples that can see it."""

    def __init__(self, ast, code: str):
        from ..model import decls_of
        self.decls = {}
        enums = []
        for p in decls_of(ast):
            d = p.node
            if isinstance(d, n.Check):
                continue
            self.decls.setdefault(d.name, d)
            if isinstance(d, n.Enum):
                enums.append(d)
        self.base = code + repr(_strip(ast.header.dice)) + repr(sorted(repr(_strip(e)) for e in enums))
        self._names, self._reprs = {}, {}

    def names(self, node) -> set:
        key = id(node)
        if key not in self._names:
            out = set()

            def visit(x):
                if isinstance(x, n.Name):
                    out.add(x.name)
                elif isinstance(x, n.NamedType):
                    out.add(x.name)
                elif isinstance(x, n.DiceSpec):
                    out.add(x.die)
                if dataclasses.is_dataclass(x) and not isinstance(x, type):
                    for f in dataclasses.fields(x):
                        if f.name != "span":
                            visit(getattr(x, f.name))
                elif isinstance(x, (tuple, list)):
                    for i in x:
                        visit(i)
            visit(node)
            self._names[key] = out
        return self._names[key]

    def _repr(self, name):
        if name not in self._reprs:
            self._reprs[name] = repr(_strip(self.decls[name]))
        return self._reprs[name]

    def key(self, root, extra_names=()) -> str:
        seen, stack = set(), list(self.names(root) | set(extra_names)) if root is not None else list(extra_names)
        while stack:
            name = stack.pop()
            if name in self.decls and name not in seen:
                seen.add(name)
                stack.extend(self.names(self.decls[name]))
        parts = [self.base, repr(_strip(root))] + [self._repr(x) for x in sorted(seen)]
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()


class DerivedStore:
    """Results of checks, examples and odds by closure key, kept between builds
    (and between output folders) in the rules cache folder, one file per book."""

    def __init__(self, book_id: str):
        from .. import loader
        self.path = Path(loader.cache_dir()) / "sphinx" / f"{book_id}.pickle"
        self.old, self.new = {}, {}
        try:
            with open(self.path, "rb") as f:
                data = pickle.load(f)
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
        write_pickle(self.path, {"version": MODEL_VERSION, "items": self.new})  # an optimisation only


def _run_check(book, name, chk) -> list:
    """One check -> its findings, as plain data."""
    if hasattr(book, "run_check"):
        return [{"rule": f.rule, "kind": f.kind, "check": f.check, "message": f.message, "cases": list(f.cases),
                 "printed": getattr(f, "printed", ""), "line": _line_of(f.location)}
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
        key = "check:" + closures.key(chk.node)
        findings.extend(store.get(key, lambda: _run_check(book, name, chk)))
    for f in (book.name_findings() if hasattr(book, "name_findings") else ()):   # cheap: not cached
        findings.append({"rule": f.rule, "kind": f.kind, "check": "", "message": f.message, "cases": [],
                         "printed": f.printed, "line": _line_of(f.location)})
    failures = []
    counters = {}
    for rule_id, ex in book.example_cases():
        index = counters.get(rule_id, 0)
        counters[rule_id] = index + 1
        key = "example:" + closures.key(ex, set(_IDENT.findall(ex.text)))

        def run(rule_id=rule_id, ex=ex):
            res = book.run_example(rule_id, ex)   # the language's evaluator, never Python's doctest
            return None if res.passed else res.report
        report = store.get(key, run)
        if report is not None:
            failures.append({"rule": rule_id, "index": index, "title": ex.title, "report": report})
    odds, odds_errors = None, {}
    if odds_available() is not None:
        odds = {}
        for name, mech in book.mechanics.items():
            try:
                if not mech.has_dice:
                    continue
            except Exception:
                continue
            key = "odds:" + closures.key(mech.node)
            rows, err = store.get(key, lambda mech=mech: compute_odds_one(mech))
            if err is not None:
                odds_errors[name] = err
            else:
                odds[name] = rows
    store.save()
    return {"findings": findings, "failures": failures, "odds": odds, "odds_errors": odds_errors}


def odds_available():
    try:
        from .. import odds as odds_mod
    except ImportError:
        return None
    return getattr(odds_mod, "page_odds", None)


def compute_odds_one(mech):
    """(rows, None) for a dice mechanic's page, or (None, error text)."""
    page_odds = odds_available()
    try:
        rows = []
        for inputs, dist in page_odds(mech):
            outcomes = []
            for value, p in dist.outcomes:
                p = Fraction(p)
                outcomes.append((value_text(value), p.numerator, p.denominator, percent_text(p)))
            mean = getattr(dist, "mean", None)
            mean_text = None
            if mean is not None:
                mean = Fraction(mean)
                mean_text = fraction_text(mean) + ("" if mean.denominator == 1 else f" ≈ {float(mean):.3f}")
            inputs_text = ", ".join(f"{k}={value_text(v)}" for k, v in dict(inputs).items()) or "(no inputs)"
            rows.append({"inputs": inputs_text, "outcomes": outcomes, "mean": mean_text,
                         "exact": bool(getattr(dist, "exact", True))})
        return rows, None
    except Exception as e:  # the odds engine is another module: show why, do not break the site
        return None, f"{type(e).__name__}: {e}"


# ------------------------------------------------------------------ the model
def _decl_model(book, d, odds):
    if isinstance(d, n.Mechanic):
        m = book.mechanics[d.name]
        params = []
        for p in d.params:
            default = None
            if p.default is not None:
                default = expr_text(p.default)
            params.append((p.name, type_text(p.type), m.checks[p.name].describe, default))
        rolls = [(r.name, dice_text(r.dice)) for r in m.rolls]
        model = {"kind": "mechanic", "name": d.name, "doc": d.doc, "signature": m.signature_text(),
                 "params": params, "rolls": rolls, "returns": (type_text(d.returns), m.returns.describe),
                 "lines": mechanic_lines(d), "has_dice": bool(m.has_dice), "odds": None}
        if odds is not None and d.name in odds[0]:
            model["odds"] = odds[0][d.name]
        if odds is not None and d.name in odds[1]:
            model["odds_error"] = odds[1][d.name]
        return model
    if isinstance(d, n.Table):
        rt = d.returns
        values = ([(k, type_text(t)) for k, t in rt.fields] if isinstance(rt, n.RecordType)
                  else [("value", type_text(rt))])
        return {"kind": "table", "name": d.name, "doc": d.doc, "grid": d.grid,
                "keys": [(p.name, type_text(p.type)) for p in d.params], "values": values,
                "header": [cell_text(c.value) for c in d.header],
                "rows": [[cell_text(c.value) for c in row] for row in d.rows],
                "entries": len(book.tables[d.name].entries) if d.name in book.tables else 0}
    if isinstance(d, n.Const):
        try:
            value = value_text(book.constants[d.name])
        except Exception:  # pragma: no cover - constants are evaluated at compile time
            value = "?"
        formula = expr_text(d.value)
        return {"kind": "const", "name": d.name, "doc": d.doc, "value": value,
                "formula": formula if formula != value else None}
    if isinstance(d, n.Enum):
        return {"kind": "enum", "name": d.name, "members": list(d.members)}
    if isinstance(d, n.Check):
        binds = ", ".join(f"{b.name} in {expr_text(b.source)}" for b in d.bindings)
        where = f" where {expr_text(d.where)}" if d.where is not None else ""
        return {"kind": "check", "name": d.name, "doc": d.doc, "formula": f"for {binds}{where}: {expr_text(d.claim)}"}
    return None


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
            "summary": summary_of([p.text for p in r.prose], title_of),
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
    return {"id": book.id, "title": h.title or book.id, "edition": h.edition, "source": h.source,
            "units": h.units, "dice": dice, "prose": [p.text for p in h.prose], "files": files,
            "items": items, "sections": sections, "rules": rules,
            "top_sections": [sid for kind, sid in items if kind == "section"],
            "counts": counts, "loose_findings": loose,
            "odds_available": odds is not None}


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


# ------------------------------------------------------------------ cross-book data
_STOP = {"a", "an", "the", "of", "and", "or", "to", "in", "on", "for", "with", "by", "at", "from", "as",
         "is", "it", "its", "vs", "versus", "rule", "rules", "into", "onto", "your", "their", "than", "not",
         "no", "be", "are", "how", "what", "when", "who", "all", "any", "each", "per", "one", "two",
         "three", "once", "twice", "use", "using", "make", "making", "take", "taking", "new", "other",
         "more", "less", "only", "first", "second", "third", "last", "out", "off", "over", "under", "up",
         "down", "within", "without", "after", "before", "during", "can", "may", "must", "this", "that",
         "these", "those", "has", "have", "get", "getting", "general", "basic", "basics", "special",
         "optional", "advanced", "overview", "introduction", "notes", "example", "examples", "summary",
         "while", "name", "end", "type", "full"}
_stemmer = None


def stem(word: str) -> str:
    global _stemmer
    if _stemmer is None:
        import snowballstemmer
        _stemmer = snowballstemmer.stemmer("english")
    return _stemmer.stemWord(word.lower())


def words(text: str):
    return [w for w in re.findall(r"[a-z][a-z']+", text.lower().replace("’", "'")) if w not in _STOP and len(w) > 2]


def rule_terms(rule: dict) -> dict:
    """stem -> (surface words that produced it, from the title?) for a rule's title and keywords."""
    out = {}
    for i, source in enumerate([rule["title"]] + list(rule["keywords"])):
        for w in words(source):
            w = w.strip("'")
            if len(w) < 3:
                continue
            surface, in_title = out.get(stem(w), (set(), False))
            surface.add(w)
            out[stem(w)] = (surface, in_title or i == 0)
    return out


def cross_index(models: dict) -> list:
    """Terms shared by rules of at least two books, with each book's rules side by side.

    Rules are grouped by the stems of their title words and keywords, so
    "Suppression" (Dust) meets "Suppressive Fire" (VOID).  A term needs at
    least one rule whose *title* has it; rules that only share a keyword are
    listed after the title matches (marked as such)."""
    groups = {}
    for bid, m in models.items():
        for r in m["rules"].values():
            title_words = words(r["title"])
            for st, (surface, in_title) in rule_terms(r).items():
                g = groups.setdefault(st, {"surface": {}, "rules": {}, "titles": set(), "title_hits": 0})
                for w in surface:
                    g["surface"][w] = g["surface"].get(w, 0) + (2 if in_title else 1)
                g["rules"].setdefault(bid, []).append((r["id"], r["title"], in_title))
                g["title_hits"] += in_title
                if len(title_words) == 1 and stem(title_words[0]) == st:
                    g["titles"].add(r["title"])
    out = []
    for st, g in groups.items():
        if len(g["rules"]) < 2 or not g["title_hits"]:
            continue
        if g["titles"]:
            label = sorted(g["titles"], key=lambda t: (len(t), t))[0]
        else:
            label = sorted(g["surface"].items(), key=lambda kv: (-kv[1], len(kv[0]), kv[0]))[0][0].capitalize()
        by_book = {bid: sorted(set(rs), key=lambda x: (not x[2], x[1].lower())) for bid, rs in g["rules"].items()}
        out.append({"stem": st, "label": label, "books": by_book})
    out.sort(key=lambda e: (e["label"].lower(), e["stem"]))
    return out


def glossary(models: dict) -> list:
    """Every keyword across the books, with the rules that carry it."""
    terms = {}
    for bid, m in models.items():
        for r in m["rules"].values():
            for kw in r["keywords"]:
                key = " ".join(kw.lower().split())
                if not key:
                    continue
                t = terms.setdefault(key, {"forms": {}, "rules": []})
                form = " ".join(kw.split())
                t["forms"][form] = t["forms"].get(form, 0) + 1
                t["rules"].append((bid, r["id"], r["title"]))
    out = []
    for key, t in terms.items():
        label = sorted(t["forms"].items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
        out.append({"key": key, "label": label, "rules": sorted(set(t["rules"]), key=lambda x: (x[0], x[2].lower()))})
    out.sort(key=lambda e: e["key"])
    return out


def books_table(models: dict) -> list:
    return [{"id": bid, "title": m["title"], "edition": m["edition"], "counts": m["counts"]}
            for bid, m in sorted(models.items())]


# ------------------------------------------------------------------ the cache
class ModelCache:
    """book id -> entry, pickled in the doctree folder between builds."""

    def __init__(self, path: Path):
        self.path = path
        self.entries = {}
        try:
            with open(path, "rb") as f:
                data = pickle.load(f)
            if data.get("version") == MODEL_VERSION:
                self.entries = data["books"]
        except Exception:
            self.entries = {}

    def save(self):
        write_pickle(self.path, {"version": MODEL_VERSION, "books": self.entries})  # an optimisation only


def load_models(cache: ModelCache):
    """Load every book (reusing cached models of unchanged books).

    Returns (models, problems): models maps book id -> model for the books that
    compile; problems is a list of (kind, book, location, message) to report.
    """
    from ..errors import RulebookError, RulesError
    from ..loader import book_files, book_ids, load

    code = code_key()
    engine = engine_key()
    models, problems = {}, []
    seen = set()
    for bid in book_ids():
        seen.add(bid)
        try:
            files = book_files(bid)
            ckey = content_key(files, code)
        except (OSError, RulesError) as e:  # a book vanishing while we look at it
            problems.append(("error", bid, None, str(e)))
            continue
        entry = cache.entries.get(bid)
        if entry is not None and entry.get("content_key") == ckey and entry.get("model") is not None:
            models[bid] = entry["model"]
            problems.extend(_entry_problems(bid, entry))
            continue
        try:
            book = load(bid)
        except RulebookError as e:
            d = e.diagnostics[0]
            problems.append(("compile", bid, (d.file, d.line), e.render()))
            cache.entries[bid] = {"content_key": None, "model": None}
            continue
        except (OSError, RulesError) as e:
            problems.append(("error", bid, None, str(e)))
            continue
        skey = semantic_key(book.ast, code)
        derived = entry.get("derived") if entry and entry.get("semantic_key") == skey else None
        if derived is None:
            derived = compute_derived(book, engine)
        model = build_model(book, derived)
        entry = {"content_key": ckey, "semantic_key": skey, "derived": derived, "model": model,
                 "locations": example_locations(book)}
        cache.entries[bid] = entry
        models[bid] = model
        problems.extend(_entry_problems(bid, entry))
    for bid in list(cache.entries):
        if bid not in seen:
            del cache.entries[bid]
    return models, problems


def _entry_problems(bid, entry):
    out = []
    derived = entry.get("derived") or {}
    locs = entry.get("locations") or {}
    for f in derived.get("failures", []):
        loc = locs.get((f["rule"], f["index"]))
        where = None
        if loc:
            file, _, line = loc.rpartition(":")
            where = (file, int(line) if line.isdigit() else None)
        title = f" ({f['title']})" if f["title"] else ""
        out.append(("example", bid, where, f"example of {bid}:{f['rule']}{title} failed:\n{f['report'].rstrip()}"))
    for name, err in (derived.get("odds_errors") or {}).items():
        out.append(("odds", bid, None, f"exact odds of {bid}:{name} could not be computed: {err}"))
    return out
