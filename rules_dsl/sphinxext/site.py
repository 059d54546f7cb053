"""The build-wide state: the books' models, the generated pages, the fingerprints.

At `builder-inited` (once per build, in the main process, before any page is
read) the books are loaded once and turned into render models (reusing the
cached model of every unchanged book), and then:

* one stub page per book and per top-level section (or, for a section too big
  for one page, per part and sub-section: see pagesplit.py) is written under
  the generated folder (default `docs/books/`), only when its text changes;
* every unit a page shows (a rule, a section, a book's head, a page plan, a page
  across books, a book's title, the list of books) has a fingerprint: a digest of its
  part of the model, worked out in memory.  The units of a page are those its render
  read (`rendering.Ctx` records them as it reads).  Each page that shows units depends (`note_dependency`) on *one*
  file, ``rules_dsl-deps/doc/<page>.fp``, holding the digest of its units'
  fingerprints; the units are recorded on the page (the domain's ``units``), and
  a build writes again the file of each page whose digest changed, so Sphinx
  re-reads exactly the pages whose content changed.  (A file per unit, seven or
  so per page, cost Sphinx a path object and a `stat` each on every build: about
  0.7 s at a hundred books.)

Split in issue 32: which pages a build writes again beyond those Sphinx reads again is
outdated.py; every page's meta description and caption headings, page_head.py.
"""
from __future__ import annotations

import functools
import os
from pathlib import Path

from sphinx.util import logging

from ..paths import read_json_dict, read_pickle, update_json_dict, write_json_dict, write_pickle, write_text_if_changed
from . import backlinks, compat, crossbook, keys, models, pagesplit

logger = logging.getLogger(__name__)

STUB_MARK = "% Generated from the rulebook sources by rules_dsl.sphinxext: edits are overwritten."

_SITE = None


def finished_html_books(app, exc):
    """For build-finished hooks that write files beside the pages: the ids of the books the
    site shows, or None when there is nothing to write (a failed or non-html build)."""
    if exc is not None or app.builder.format != "html" or _SITE is None:
        return None
    return list(_SITE.summaries)


def current(env=None, config=None):
    """The build's Site (built lazily if a directive runs before builder-inited)."""
    global _SITE
    if _SITE is None and env is not None:
        _SITE = Site(Path(env.srcdir), Path(env.doctreedir), config or env.config)
    return _SITE


class CrossBookCache:
    """The data of the pages across books (glossary, cross index, back-links, their page
    splits) and every unit's fingerprint, kept between builds, one file per part under
    `folder`, each with the key it was made for.  Worked out over every book's summary
    they cost about a second at a hundred books, and a prose edit changes few of them;
    each part is read only when a build asks for it (a rebuild with nothing to do reads
    none of the big ones).  A missing or damaged file means the part is made again."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)

    def _read(self, part: str):
        try:
            kept = read_pickle(self.folder / f"{part}.pickle", root=self.folder.parent.parent)
            if isinstance(kept, tuple) and len(kept) == 3 and kept[0] == models.MODEL_VERSION:
                return kept
        except Exception:
            pass
        return None

    def get(self, part: str, key: str, make):
        kept = self._read(part)
        if kept is not None and kept[1] == key:
            return kept[2]
        value = make()
        self.put(part, key, value)
        return value

    def last(self, part: str):
        """The part as the last build left it, whatever its key (None if there is none)."""
        kept = self._read(part)
        return None if kept is None else kept[2]

    def put(self, part: str, key: str, value) -> None:
        write_pickle(self.folder / f"{part}.pickle", (models.MODEL_VERSION, key, value), root=self.folder.parent.parent)


class Site:
    def __init__(self, srcdir: Path, doctreedir: Path, config):
        self.srcdir = Path(srcdir)
        self.doctreedir = Path(doctreedir)
        self.books_rel = config.rules_books_dir.strip("/")
        self.gen_dir = self.srcdir / self.books_rel
        self.fp_dir = self.doctreedir / "rules_dsl-deps"
        cache = models.ModelCache(self.doctreedir / "rules_dsl-models")
        # models: read lazily (a page of the book is rendered); summaries: what the pages across books need
        self.models, self.summaries, self.problems = models.load_models(cache)
        cache.save()
        self.digests = {bid: cache.heads[bid]["digests"] for bid in self.summaries}
        self.books = crossbook.books_table(self.summaries)
        # each book's section pages: one per top-level section, split when too big for a phone
        # (worked out from the model once per book and budget, then kept in its head entry)
        budget = getattr(config, "rules_page_budget", pagesplit.PAGE_BUDGET)
        self.plans = {bid: cache.plan(bid, budget, lambda m: pagesplit.plan(m, budget), self.models)
                      for bid in self.summaries}
        cache.save()
        # the pages across books and the units' fingerprints: made, or read, when first asked for
        self._store = CrossBookCache(self.doctreedir / "rules_dsl-models" / "_crossbook")
        self._links = getattr(config, "rules_links_per_page", crossbook.LINKS_PER_PAGE)
        self._games = getattr(config, "rules_games_per_page", crossbook.GAMES_PER_PAGE)
        code = keys.code_key()
        self._keys = {part: self._part_key(part, code) for part in ("glossary", "xindex", "backlinks")}
        # each book's files (what its JavaScript is made of)
        self.content_keys = {bid: cache.heads[bid].get("content_key") for bid in self.summaries}
        # the units: made of the books' models (`model_key`: a digest of their digests), their
        # page plans and the pages across books
        self._model_keys = {bid: cache.heads[bid].get("model_key") for bid in self.summaries}
        self.units_key = keys.digest((list(self._model_keys.items()), budget, self._links, self._games, self._keys,
                                      code))

    def _part_key(self, part: str, code: str) -> str:
        """The key of a page-across-books' data: each book's digest of what it reads
        (`models.summary_digests`), in book order, and the code."""
        return keys.digest(([(bid, self.digests[bid][part]) for bid in self.summaries], code))

    @functools.cached_property
    def glossary(self) -> list:
        return self._store.get("glossary", self._keys["glossary"], lambda: crossbook.glossary(self.summaries))

    @functools.cached_property
    def xindex(self) -> list:
        return self._store.get("xindex", self._keys["xindex"], lambda: crossbook.cross_index(self.summaries))

    @functools.cached_property
    def backlinks(self) -> dict:
        return self._store.get("backlinks", self._keys["backlinks"], lambda: backlinks.referenced_by(self.summaries))

    @functools.cached_property
    def glossary_pages(self) -> dict:
        """slug -> entries: one page per letter (or prefix), none over the link budget."""
        return self._store.get("glossary_pages", keys.digest((self._keys["glossary"], self._links)),
                               lambda: dict(crossbook.glossary_pages(self.glossary, self._links)))

    @functools.cached_property
    def xindex_pages(self) -> dict:
        return self._store.get("xindex_pages", keys.digest((self._keys["xindex"], self._links)),
                               lambda: dict(crossbook.xindex_pages(self.xindex, self._links)))

    @functools.cached_property
    def glossary_front(self) -> list:
        """The glossary's front page: per letter, a few keywords with their meaning."""
        titles = {bid: m["title"] for bid, m in self.summaries.items()}
        return self._store.get("glossary_front", keys.digest((self._keys["glossary"], self._links, titles,
                                                              crossbook.FRONT_PER_LETTER)),
                               lambda: crossbook.glossary_front(self.glossary_pages, titles))

    @functools.cached_property
    def xindex_front(self) -> list:
        """The cross index's front page: per letter, a few terms with their meaning (from
        the glossary's definitions) and the books that have rules for them."""
        titles = {bid: m["title"] for bid, m in self.summaries.items()}
        key = keys.digest((self._keys["xindex"], self._keys["glossary"], self._links, titles, crossbook.FRONT_PER_LETTER))
        return self._store.get("xindex_front", key, lambda: crossbook.xindex_front(
            self.xindex_pages, titles, crossbook.defining_rules(self.summaries)))

    @functools.cached_property
    def page_slugs(self) -> tuple:
        """(glossary slugs, cross-index slugs): what the stubs and the jump bars need."""
        return self._store.get("slugs", keys.digest((self._keys["glossary"], self._keys["xindex"], self._links)),
                               lambda: (list(self.glossary_pages), list(self.xindex_pages)))

    @functools.cached_property
    def games_pages(self) -> dict:
        """slug -> books of the game picker's pages ({} while the home page holds every card)."""
        return dict(crossbook.games_pages(self.books, self._games))

    @functools.cached_property
    def unit_hashes(self) -> dict:
        """Every unit's fingerprint (10,000 digests at a hundred books; a book's kept while
        what its units are made of is unchanged: `_unit_hashes`).  Asked for only when a
        page is read or the units changed (`write_fingerprints`)."""
        return self._unit_hashes()

    # -------------------------------------------------------------- names
    def docname_book(self, bid: str) -> str:
        return f"{self.books_rel}/{bid}/index"

    def section_file(self, sid: str) -> str:
        return pagesplit.section_file(sid)

    def docname_section(self, bid: str, sid: str) -> str:
        """The section's (first) page."""
        return self.docname_page(bid, self.section_file(sid))

    def docname_page(self, bid: str, path: str) -> str:
        return f"{self.books_rel}/{bid}/{path}"

    def book_docs(self, bid: str) -> list:
        """The pages of a book's sections, in order (its page's table of contents); a
        layered book's "what changed" page last."""
        plan = self.plans[bid]
        docs = [self.docname_page(bid, p) for sid in self.summaries[bid]["top_sections"] for p in plan["top"][sid]]
        return docs + ([self.docname_changes(bid)] if self.summaries[bid].get("layered") else [])

    def docname_changes(self, bid: str) -> str:
        """A layered book's "what changed" page (changes.py)."""
        return f"{self.books_rel}/{bid}/_what-changed"    # "_": no section id starts so

    def family(self, bid: str, sid: str) -> list:
        """[(docname, page)] of the pages of a section that has pages of its own."""
        plan = self.plans[bid]
        return [(self.docname_page(bid, p), plan["pages"][p]) for p in plan["families"].get(sid, ())]

    def page_of(self, bid: str, sid: str, part: int):
        """The plan's entry of a section's part (None when there is no such page)."""
        plan = self.plans.get(bid)
        page = plan["pages"].get(pagesplit.part_path(sid, part)) if plan else None
        return page if page is not None and page["section"] == sid else None

    def docname_glossary(self, slug: str) -> str:
        return f"{self.books_rel}/_glossary/{slug}"

    def docname_xindex(self, slug: str) -> str:
        return f"{self.books_rel}/_cross-index/{slug}"

    def docname_games(self, slug: str) -> str:
        return f"{self.books_rel}/_games/{slug}"

    def doc_fp_path(self, docname: str) -> str:
        """The fingerprint file a page depends on (a string: thousands of pages)."""
        return os.path.join(os.fspath(self.fp_dir), "doc", f"{docname}.fp")

    # -------------------------------------------------------------- fingerprints
    def _unit_hashes(self) -> dict:
        """Every unit's fingerprint: its part of the model (digested once, when the model
        was made: `models.model_digests`), or of the data of the pages across books, and
        the code.  A book's title is a unit of its own, ``("title", book, "")``, and the
        list of books one more: a page depends on them because its render read them
        (`rendering.Ctx.book_title`, `Ctx.book_ids`), not because a digest here lists them."""
        out = {}
        code = keys.render_key()
        # a book's units are worked out again only when what they are made of changed: its
        # model, its plan and the rules pointing at it (after an edit, one book's hundred
        # digests, not the library's ten thousand)
        last = self._store.last("unit_books") or {}
        books, remade = {}, set(last) != set(self.summaries)
        for bid in self.summaries:
            d = self.digests[bid]
            plan = self.plans[bid]
            back = {rid: self.backlinks[(bid, rid)] for rid in d["rules"] if (bid, rid) in self.backlinks}
            key = keys.digest((self._model_keys.get(bid), plan, back, code))
            kept = last.get(bid)
            if isinstance(kept, tuple) and len(kept) == 2 and kept[0] == key:
                mine = kept[1]
            else:
                remade = True
                mine = {("book", bid, ""): keys.digest((d["head"], plan["top"], code))}
                for sid, paths in plan["families"].items():     # which page shows what of a section
                    mine[("pages", bid, sid)] = keys.digest(([plan["pages"][p] for p in paths], code))
                for sid, h in d["sections"].items():
                    mine[("section", bid, sid)] = keys.digest((h, code))
                if self.summaries[bid].get("layered"):     # its "what changed" page: the diff, and books' titles
                    mine[("changes", bid, "")] = keys.digest((d.get("changes"),
                                                              {b: m["title"] for b, m in self.summaries.items()}, code))
                for rid, h in d["rules"].items():      # shown on the rule: the rules referring to it
                    mine[("rule", bid, rid)] = keys.digest((h, back.get(rid, []), code))
            books[bid] = (key, mine)
            out.update(mine)
            out[("title", bid, "")] = keys.digest((self.summaries[bid]["title"], code))
        if remade:
            self._store.put("unit_books", self.units_key, books)
        out[("global", "book-ids", "")] = keys.digest((sorted(self.summaries), code))
        out[("global", "books", "")] = keys.digest(([{k: b[k] for k in ("id", "title", "edition", "counts")}
                                                      for b in self.books], code))
        # the game picker on the home page: every card, or (many books) its pages' first and last titles
        out[("global", "games", "")] = keys.digest((
            [(slug, len(bs), bs[0]["title"], bs[-1]["title"]) for slug, bs in self.games_pages.items()]
            if self.games_pages else self.books, code))
        out[("global", "games-pages", "")] = keys.digest((list(self.games_pages), code))       # the jump bar
        for slug, bs in self.games_pages.items():
            out[("global", "games", slug)] = keys.digest((bs, code))
        out[("global", "glossary", "")] = keys.digest((list(self.glossary_pages), code))       # the jump bars
        out[("global", "xindex", "")] = keys.digest((list(self.xindex_pages), code))
        out[("global", "glossary-front", "")] = keys.digest((self.glossary_front, code))      # the front pages
        out[("global", "xindex-front", "")] = keys.digest((self.xindex_front, code))
        for slug, entries in self.glossary_pages.items():
            out[("global", "glossary", slug)] = keys.digest((entries, code))
        for slug, entries in self.xindex_pages.items():
            out[("global", "xindex", slug)] = keys.digest((entries, code))
        return out

    def doc_hash(self, units) -> str:
        """The fingerprint of a page: its units' fingerprints (None for a unit that is gone,
        a book that does not compile now: when it compiles again, the page is read again)."""
        return keys.digest([(u, self.unit_hashes.get(u)) for u in sorted(units)])

    def depend(self, env, units) -> None:
        """A directive of the page being read shows `units`: record them on the page (with
        the others its directives show), write its fingerprint file, depend on it."""
        dom = env.domains["rules"]
        docname = env.docname
        units = tuple(sorted(set(dom.page_units(docname)) | set(units)))
        h = self.doc_hash(units)
        path = self.doc_fp_path(docname)
        write_text_if_changed(path, f"{docname}\n{h}\n")
        dom.note_units(docname, units, h)
        env.note_dependency(path)

    def write_fingerprints(self, env):
        """At the start of a build: write again the fingerprint file of every page whose
        units' fingerprints changed since it was read (Sphinx then reads it again).  The
        pages and their units are in the environment, so this is a loop in memory; files
        of pages that are gone are removed when the set of pages changed."""
        recorded = env.domaindata.get("rules", {}).get("units", {}) if env is not None else {}
        manifest = self.fp_dir / "manifest.json"
        state = read_json_dict(manifest)
        # every page read since the units last changed holds its digest under the same units:
        # when they did not change (`note_read`), no page can differ and nothing is compared
        if state.get("units_key") != self.units_key:
            for docname, (units, h) in recorded.items():
                new = self.doc_hash(units)
                if new != h:
                    write_text_if_changed(self.doc_fp_path(docname), f"{docname}\n{new}\n")
        pages = sorted(recorded)
        if state.get("pages") != pages:
            keep = {os.path.normpath(self.doc_fp_path(d)) for d in pages}
            if self.fp_dir.is_dir():
                for root, _dirs, files in os.walk(self.fp_dir):
                    for f in files:
                        p = os.path.join(root, f)
                        if f.endswith(".fp") and os.path.normpath(p) not in keep:
                            os.unlink(p)      # a page that is gone, or the old file per unit
            write_json_dict(manifest, {**state, "pages": pages})

    def note_read(self, env):
        """env-updated (every outdated page read again, before the environment is saved):
        each page's recorded digest is now the one under this build's units."""
        update_json_dict(self.fp_dir / "manifest.json", units_key=self.units_key)

    # -------------------------------------------------------------- stub pages
    def write_stubs(self):
        wanted = {}
        for bid, plan in self.plans.items():         # a plan per book that compiles, in book order
            wanted[self.srcdir / f"{self.docname_book(bid)}.md"] = (
                f"{STUB_MARK}\n\n```{{rules:book}} {bid}\n```\n")
            if self.summaries[bid].get("layered"):
                wanted[self.srcdir / f"{self.docname_changes(bid)}.md"] = (
                    f"{STUB_MARK}\n\n```{{rules:changes}} {bid}\n```\n")
            for path, page in plan["pages"].items():
                sid = page["section"]
                whole = page["items"] is None and sid in plan["top"]
                option = "" if whole else f":part: {page['part']}\n"
                wanted[self.srcdir / f"{self.docname_page(bid, path)}.md"] = (
                    f"{STUB_MARK}\n\n```{{rules:section}} {bid}:{sid}\n{option}```\n")
        glossary_slugs, xindex_slugs = self.page_slugs
        for slug in glossary_slugs:
            wanted[self.srcdir / f"{self.docname_glossary(slug)}.md"] = (
                f"{STUB_MARK}\n\n# Glossary: {crossbook.page_title(slug)}\n\n```{{rules:glossary}} {slug}\n```\n")
        for slug in xindex_slugs:
            wanted[self.srcdir / f"{self.docname_xindex(slug)}.md"] = (
                f"{STUB_MARK}\n\n# Across the books: {crossbook.page_title(slug)}\n\n```{{rules:crossindex}} {slug}\n```\n")
        for slug in self.games_pages:
            wanted[self.srcdir / f"{self.docname_games(slug)}.md"] = (
                f"{STUB_MARK}\n\n# Games: {crossbook.page_title(slug)}\n\n```{{rules:games}} {slug}\n```\n")
        ignore = self.gen_dir / ".gitignore"
        if not ignore.exists():
            write_text_if_changed(ignore, "# generated at build time from rulebooks/ (see rules_dsl.sphinxext)\n*\n!.gitignore\n")
        # nothing to do when the stubs are the ones the last build wrote and none of them was
        # touched since (a stat each, where comparing their texts read 1,700 files at 100 books)
        state_path = self.doctreedir / "rules_dsl-stubs.json"
        texts = {os.fspath(p): t for p, t in wanted.items()}
        key = keys.digest(sorted(texts.items()))
        state = read_json_dict(state_path)
        if state.get("key") == key and state.get("stamps") == _stamps(texts):
            return
        for path, text in texts.items():
            write_text_if_changed(path, text)
        if self.gen_dir.is_dir():
            for root, _dirs, files in os.walk(self.gen_dir, topdown=False):
                for f in files:
                    p = os.path.join(root, f)
                    if f.endswith(".md") and p not in texts:
                        try:
                            with open(p, encoding="utf-8") as fh:
                                first = fh.readline().rstrip("\n")
                        except OSError:
                            continue
                        if first == STUB_MARK:
                            os.unlink(p)
                if os.path.normpath(root) != os.path.normpath(self.gen_dir) and not os.listdir(root):
                    os.rmdir(root)
        write_json_dict(state_path, {"key": key, "stamps": _stamps(texts)})


def _stamps(paths) -> dict | None:
    """path -> [mtime_ns, size] of each file, or None when one is missing."""
    out = {}
    for p in paths:
        try:
            st = os.stat(p)
        except OSError:
            return None
        out[p] = [st.st_mtime_ns, st.st_size]
    return out


# ------------------------------------------------------------------ events
def builder_inited(app):
    global _SITE
    import time
    t0 = time.perf_counter()
    _SITE = Site(Path(app.srcdir), Path(app.doctreedir), app.config)
    _SITE.write_stubs()
    _SITE.write_fingerprints(getattr(app, "env", None))
    n_rules = sum(len(m["rules"]) for m in _SITE.summaries.values())
    logger.info("rules_dsl: %d book(s), %d rules, loaded in %.2fs", len(_SITE.summaries), n_rules,
                time.perf_counter() - t0)


def note_read(app, env):
    if _SITE is not None:
        _SITE.note_read(env)
    return []


def report_problems(app, env):
    """Every build: books that do not compile, examples that fail, odds that cannot be computed."""
    site = _SITE
    if site is None:
        return
    for kind, book, where, message in site.problems:
        location = f"{where[0]}:{where[1]}" if where and where[1] else (where[0] if where else None)
        if kind == "compile":
            logger.warning("rulebook %r does not compile and is left out of the site:\n%s", book, message,
                           location=location, type="rules", subtype="compile")
        elif kind == "example":
            logger.warning("%s", message, location=location, type="rules", subtype="example")
        elif kind == "odds":
            logger.warning("%s", message, type="rules", subtype="odds")
        else:
            logger.warning("rulebook %r: %s", book, message, type="rules", subtype="compile")


def build_finished(app, exc):
    if exc is not None or _SITE is None:
        return
    if app.config.rules_fail_on_error:
        bad = [p for p in _SITE.problems if p[0] in ("example", "compile", "error")]
        if bad:
            compat.fail_build(app)
            logger.info("rules_dsl: %d failing example(s) or book error(s); the build fails", len(bad))
    if app.builder.format == "html" and app.config.root_doc != "index":
        write_text_if_changed(Path(app.outdir) / "index.html", _redirect(app.builder.get_target_uri(app.config.root_doc)))


def one_page_index(app, pagename, templatename, context, doctree):
    """With `html_split_index`, Sphinx still writes the whole general index on one
    page (`genindex-all`), which grows with the library past what a phone should
    load: render it as the letter overview instead (the letters' pages hold the
    entries)."""
    if pagename == "genindex-all" and app.config.html_split_index:
        return "genindex-split.html"
    return None


def _redirect(target: str) -> str:
    from html import escape
    t = escape(target, quote=True)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Redirecting…</title>'
            f'<meta http-equiv="refresh" content="0; url={t}"><link rel="canonical" href="{t}"></head>'
            f'<body><p><a href="{t}">Continue to the rulebook reference</a></p></body></html>\n')
