"""The render models of every book, kept between builds in the doctree folder.

`load_models` compiles a book only when its files changed (`content_key`); its
derived data (findings, examples, odds) is then worked out again result by result,
each reused while what it is made of is unchanged (`derived.compute_derived`); problems (compile errors, failing examples, odds that cannot be
computed) are returned for the build to report.  An unchanged book costs a build
only its small *head* entry (keys, digests, summary, problems); its model is read
when one of its pages is rendered (`LazyModels`).
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..paths import read_pickle, trusted_cache_dir, write_pickle
from .data import build_model, example_locations
from .derived import compute_derived
from .keys import MODEL_VERSION, code_key, content_key, digest, engine_key


class ModelCache:
    """book id -> entry, kept in a folder of the doctree folder, two files per book.

    ``<book>.head.pickle`` holds what every build needs of every book: the keys, the
    digests of its parts (`model_digests`), the problems to report and the *summary*
    (`summary_of`: titles, keywords, references: what the pages across books are made
    of).  ``<book>.pickle`` holds the render model and the derived data, read only when
    a page of that book is rendered (or the book changed).  A rebuild therefore reads a
    few KB per unchanged book, not its whole model, and writes only the entries of the
    books that changed."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.heads = {}
        self.full = {}
        self.dirty = set()
        self.dirty_heads = set()      # heads given something new (a page plan); their model is unchanged
        try:
            names = sorted(p.name for p in self.folder.iterdir() if p.name.endswith(".head.pickle"))
        except OSError:
            names = []
        for name in names:
            bid = name[:-len(".head.pickle")]
            data = self._read(self.folder / name, bid)
            if data is not None:
                self.heads[bid] = data

    def _read(self, path: Path, bid: str):
        try:
            data = read_pickle(path, root=self.folder.parent)
            if data.get("version") == MODEL_VERSION and data.get("book") == bid:
                return data["entry"]
        except Exception:
            pass       # absent or damaged: that book is simply built again
        return None

    def entry(self, bid: str):
        """The full entry (model, derived data) of a book, or None."""
        if bid not in self.full:
            head = self.heads.get(bid)
            full = self._read(self.folder / f"{bid}.pickle", bid) if head is not None else None
            if full is not None and full.get("content_key") != head.get("content_key"):
                full = None    # written by another build than the head: not to be trusted
            self.full[bid] = full
        return self.full[bid]

    def plan(self, bid: str, budget, make, models):
        """The book's page plan for a page budget (`pagesplit.plan`): kept in its head entry,
        worked out from its model (`make(model)`) only when the book or the budget changed."""
        head = self.heads[bid]
        plans = head.setdefault("plans", {})
        if budget not in plans:
            plans[budget] = make(models[bid])
            self.dirty_heads.add(bid)
        return plans[budget]

    def put(self, bid: str, entry: dict):
        self.full[bid] = entry
        self.heads[bid] = {k: v for k, v in entry.items() if k not in ("model", "derived", "locations")}
        self.dirty.add(bid)
        self.dirty_heads.discard(bid)

    def drop(self, bid: str):
        self.heads.pop(bid, None)
        self.full.pop(bid, None)
        self.dirty.add(bid)

    def save(self):
        """Write the entries that changed; remove those of books that are gone (an optimisation only;
        nothing at all in a folder another user could write: `paths.trusted_cache_dir`)."""
        if not trusted_cache_dir(self.folder, self.folder.parent):
            return
        for bid in sorted(self.dirty):
            head, full = self.folder / f"{bid}.head.pickle", self.folder / f"{bid}.pickle"
            if bid in self.heads:
                write_pickle(full, {"version": MODEL_VERSION, "book": bid, "entry": self.full[bid]}, root=self.folder.parent)
                write_pickle(head, {"version": MODEL_VERSION, "book": bid, "entry": self.heads[bid]}, root=self.folder.parent)
            else:
                head.unlink(missing_ok=True)
                full.unlink(missing_ok=True)
        for bid in sorted(self.dirty_heads - self.dirty):
            if bid in self.heads:
                write_pickle(self.folder / f"{bid}.head.pickle",
                             {"version": MODEL_VERSION, "book": bid, "entry": self.heads[bid]}, root=self.folder.parent)
        self.dirty.clear()
        self.dirty_heads.clear()


class LazyModels(Mapping):
    """book id -> render model, read from the cache when first asked for: a build that
    renders no page of a book never reads its model.  (In `-j` builds each forked
    reader reads the models of the pages it renders.)"""

    def __init__(self, ids, cache: ModelCache, made: dict):
        self._ids = list(ids)
        self._cache = cache
        self._made = dict(made)

    def __getitem__(self, bid):
        if bid not in self._made:
            if bid not in self._ids:
                raise KeyError(bid)
            entry = self._cache.entry(bid)
            if entry is None or entry.get("model") is None:
                entry = _build_entry(bid, self._cache)     # its model file went missing: made again
            self._made[bid] = entry["model"]
        return self._made[bid]

    def __iter__(self):
        return iter(self._ids)

    def __len__(self):
        return len(self._ids)


def load_models(cache: ModelCache):
    """Load every book (reusing cached entries of unchanged books).

    Returns (models, summaries, problems): models maps book id -> model (a
    `LazyModels`) for the books that compile, summaries book id -> `summary_of` its
    model; problems is a list of (kind, book, location, message) to report.

    A book's entry is reused while its own files (`content_key`) are unchanged and so is
    what its references read of other books (its ``deps``: `Consulted`): a book whose
    reference to another book's rule is left dangling by an edit of that other book no
    longer compiles, whatever its own files say.
    """
    code = code_key()
    ids, made, summaries, problems = [], {}, {}, []
    keys = _book_keys(code, problems)
    consulted = Consulted(cache, keys)
    for bid, ckey in keys.items():
        if bid == "*" or ckey is None:
            continue
        head = cache.heads.get(bid)
        if (head is not None and head.get("content_key") == ckey and head.get("summary") is not None
                and all(consulted.key(d) == k for d, k in (head.get("deps") or {}).items())):
            ids.append(bid)
            summaries[bid] = head["summary"]
            problems.extend(head.get("problems", []))
            continue
        entry = _build_entry(bid, cache, keys, problems, consulted)
        if entry is None:
            continue
        ids.append(bid)
        made[bid] = entry["model"]
        summaries[bid] = entry["summary"]
        problems.extend(entry["problems"])
    for bid in list(cache.heads):
        if bid not in keys:
            cache.drop(bid)
    return LazyModels(ids, cache, made), summaries, problems


def _book_keys(code: str, problems: list | None = None) -> dict:
    """{book id: `content_key` of its files (None when it cannot be read)} for every book,
    in order, and ``"*"``: a key of the list of books (what a reference to an unknown
    book was checked against)."""
    from ..errors import RulesError
    from ..library.loader import book_files, book_ids
    out = {}
    for bid in book_ids():
        try:
            out[bid] = content_key(book_files(bid), code)
        except (OSError, RulesError) as e:  # a book vanishing while we look at it
            out[bid] = None
            if problems is not None:
                problems.append(("error", bid, None, str(e)))
    out["*"] = digest(sorted(b for b in out))
    return out


def ids_key(ast) -> str:
    """What another book's references read of this one: the ids of its rules and sections
    (as `Library` checks a `[[book:rule]]` against them)."""
    from ..language import nodes as n
    from ..language.model import walk
    return digest(sorted(p.node.id for p in walk(ast.items) if isinstance(p.node, (n.Rule, n.Section))))


class Consulted:
    """The keys of what a book's references read of the other books (`Library.load_consulted`
    names those books): of a book, the ids of its rules and sections (`ids_key`), taken
    from its head while its files are those the head was made of, else from its parse
    ("any" when it does not parse: every id is then accepted; None when it is gone); of
    ``"*"``, the list of books.  So a prose edit of a book leaves the books referring to
    it alone, and deleting a rule they name does not."""

    def __init__(self, cache: ModelCache, keys: dict):
        self.cache, self.keys, self.known = cache, keys, {}

    def key(self, other: str):
        if other == "*":
            return self.keys["*"]
        if other not in self.known:
            head = self.cache.heads.get(other)
            if self.keys.get(other) is None:
                self.known[other] = None
            elif head is not None and head.get("content_key") == self.keys[other] and head.get("ids_key"):
                self.known[other] = head["ids_key"]
            else:
                from ..errors import RulebookError, RulesError
                from ..library.loader import parse_book
                try:
                    self.known[other] = ids_key(parse_book(other)[0])
                except RulebookError:
                    self.known[other] = "any"
                except (OSError, RulesError):
                    self.known[other] = None
        return self.known[other]


def _build_entry(bid: str, cache: ModelCache, keys: dict | None = None, problems: list | None = None,
                 consulted: Consulted | None = None):
    """Compile a book and make its entry (its derived data made of the results kept by
    `compute_derived` wherever they still hold); None (and a problem) when it does not
    compile."""
    from ..errors import RulebookError, RulesError
    from ..library.loader import load_consulted
    code = code_key()
    problems = problems if problems is not None else []
    keys = keys if keys is not None else _book_keys(code)
    consulted = consulted if consulted is not None else Consulted(cache, keys)
    try:
        book, others = load_consulted(bid)
    except RulebookError as e:
        d = e.diagnostics[0]
        problems.append(("compile", bid, (d.file, d.line), e.render()))
        cache.drop(bid)
        return None
    except (OSError, RulesError) as e:
        problems.append(("error", bid, None, str(e)))
        return None
    derived = compute_derived(book, engine_key())
    model = build_model(book, derived)
    summary = summary_of(model)
    entry = {"content_key": keys.get(bid), "ids_key": ids_key(book.ast),
             "deps": {d: consulted.key(d) for d in sorted(others)},
             "derived": derived, "model": model,
             "locations": example_locations(book), "digests": {**model_digests(model), **summary_digests(summary)},
             "summary": summary}
    entry["model_key"] = digest(entry["digests"])     # what the site's units of the book are made of
    entry["problems"] = _entry_problems(bid, entry)
    cache.put(bid, entry)
    return entry


def summary_of(model) -> dict:
    """What the pages across books (glossary, cross index, table of books, referenced-by
    links) need of a book: a small part of its model, with each rule's index terms
    (`crossbook.rule_terms`, stemmed) worked out once."""
    from .crossbook import rule_terms
    rules = {}
    for rid, r in model["rules"].items():
        rules[rid] = {"id": r["id"], "title": r["title"], "keywords": list(r["keywords"]),
                      "aliases": list(r.get("aliases", ())), "definition": r.get("definition"),
                      "refs": list(r.get("refs", ())),
                      "terms": {st: (sorted(surface), in_title) for st, (surface, in_title) in rule_terms(r).items()}}
    from .front import card_of
    return {"id": model["id"], "title": model["title"], "edition": model["edition"], "counts": model["counts"],
            "top_sections": list(model["top_sections"]), "rules": rules, "card": card_of(model),
            "layered": bool(model.get("layers"))}


def summary_digests(summary) -> dict:
    """Digests of what each page across books reads of a book's summary, so that those
    pages' data is worked out again only when that part changed (`site.Site.crossbook`):
    the cross index reads ids, titles and terms; the glossary also keywords, aliases and
    definitions; the back-links ids, titles and references."""
    from .keys import digest
    rules = summary["rules"].values()
    return {"xindex": digest([(r["id"], r["title"], r["terms"]) for r in rules]),
            "glossary": digest([(r["id"], r["title"], r["keywords"], r["aliases"], r["definition"]) for r in rules]),
            "backlinks": digest([(r["id"], r["title"], r["refs"]) for r in rules])}


def model_digests(model) -> dict:
    """Digests of a model's parts, made once when the model is made (hashing every
    rule's model again on every build costs seconds at a hundred books): the book's
    head and top-level items, each section (without its children) and each rule."""
    from .keys import digest
    top = []
    for kind, value in model["items"]:
        if kind == "section":
            top.append(("section", value, model["sections"][value]["title"]))
        else:
            top.append((kind, value))
    head = {k: model[k] for k in ("title", "edition", "source", "units", "dice", "prose", "files",
                                  "counts", "loose_findings", "top_sections", "front")}
    return {"head": digest((head, top, model.get("layers"))), "changes": digest(model.get("changes")),
            "sections": {sid: digest(dict(sec)) for sid, sec in model["sections"].items()},
            "rules": {rid: digest(r) for rid, r in model["rules"].items()}}


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
    for name, refusals in (derived.get("odds_skipped") or {}).items():
        out.extend(("odds", bid, None, f"{r} (an `odds` line of {bid}:{name}: the page leaves that table out)")
                   for r in refusals)
    return out
