"""A rebuild of the site equals a clean build of the same sources, byte for byte (issue 31).

"A cache may skip work, never change an answer." Every file under the html output is
compared (`testing.output_differences`: nothing is left out, so a page or a file that
other work adds later is held to the same property without this test knowing of it).

* Edits that the rebuild once missed, on the real books: an `odds` line of the
  tutorial (the page kept the old table, and its form the old odds), a rule deleted
  from VOID (Sphinx's search index kept its words), a rule moved to an earlier part of
  its section (a duplicate warning failed the rebuild).
* The property: random sequences of edits (tests/rebuild_books.py: prose, titles,
  aliases and keywords, `uses`, notes, `odds` lines and sweeps, mechanics, tables, constants,
  worked examples, `priced` views, sources and editions, names' words, search vocabulary,
  the front door (`about`, `start`, the quick reference); adding, moving
  and deleting rules, sections and books; a book turned into a folder of files; a book
  broken and mended; references left dangling; the tutorial edited as text) to small books made for it and the tutorial,
  the site rebuilt after each step (serially or with -j 2; default pages or pages cut
  small) and compared with a clean build of the same sources (its own folders, an empty
  cache). The suite runs a fixed sequence making every kind of edit, the sequences that
  found bugs, and a few random ones (derandomized);
  ``RULES_REBUILD_EXAMPLES=50 RULES_REBUILD_STEPS=8 python -m pytest tests/test_site_rebuild.py``
  runs more, random each time (``RULES_REBUILD_SHRINK=1``: let hypothesis shrink a failure,
  which costs many builds).
"""
from __future__ import annotations

import hashlib
import html
import json
import os
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings, strategies as st

import rebuild_books as rb
from rules_dsl.sphinxext.testing import REPO, build, make_project, output_differences

pytestmark = pytest.mark.site

EXAMPLES = int(os.environ.get("RULES_REBUILD_EXAMPLES", "2"))
STEPS = int(os.environ.get("RULES_REBUILD_STEPS", "4"))


def _ok(proc, what="build"):
    assert proc.returncode == 0, f"{what} failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    assert "WARNING" not in proc.stderr, proc.stderr


class Site:
    """A project, a books folder, an output folder and a cache folder that live across
    builds: the site as a designer rebuilds it after each edit."""

    def __init__(self, root: Path, *extra):
        self.root = Path(root).resolve()
        self.project = make_project(self.root / "project")
        self.books = self.root / "books"
        self.out = self.root / "out"
        self.cache = self.root / "cache"
        self.extra = extra

    def build(self, ok: bool = True):
        """Build; with `ok`, the build must succeed without a warning."""
        proc = build(self.project, self.out, self.books, self.cache, *self.extra)
        if ok:
            _ok(proc, "the rebuild")
        return proc


def clean_build(books: Path, root: Path, *options, ok: bool = True) -> tuple:
    """(output folder, exit status) of a clean build of the books in `books` (a copy of
    them, its own project, output and empty cache folders under `root`)."""
    root = Path(root).resolve()
    project = make_project(root / "project")
    shutil.copytree(books, root / "books")
    out = root / "out"
    proc = build(project, out, root / "books", root / "cache", *options)
    if ok:
        _ok(proc, "the clean build")
    return out, proc.returncode


def assert_same(rebuilt: Path, clean: Path, what: str = ""):
    differ = output_differences(rebuilt, clean)
    assert not differ, f"{what}: the rebuild differs from a clean build in {len(differ)} file(s):\n" + "\n".join(differ[:12])


def _real(site: Site, *names: str) -> None:
    site.books.mkdir(parents=True)
    for name in names:
        shutil.copy(REPO / "rulebooks" / name, site.books / name)


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


# ------------------------------------------------------------------ edits the rebuild once missed
def test_an_odds_line_edited_shows_on_the_page_and_in_its_form(tmp_path):
    site = Site(tmp_path / "site")
    _real(site, "skirmish-tutorial.rules")
    site.build()
    _edit(site.books / "skirmish-tutorial.rules", "odds hits(n=3, target=4)", "odds hits(n=5, target=4)")
    site.build()
    page = (site.out / "docs/books/skirmish-tutorial/attacks.html").read_text(encoding="utf-8")
    # the table: five dice at 4+, a mean of 5/2 (three dice at 4+ had a mean of 3/2)
    assert "mean 5/2" in page and "mean 3/2" not in page
    # the form's data: the odds of the inputs the page shows
    form = re.search(r'data-mechanic="hits"(?: data-dice)? data-odds="([^"]*)"', page).group(1)   # data-dice: issue 27
    odds = json.loads(html.unescape(form))
    assert [o["inputs"] for o in odds] == [{"n": "5", "target": "4"}, {"n": "3", "target": "3"}]
    assert len(odds[0]["rows"]) == 6
    assert_same(site.out, clean_build(site.books, tmp_path / "clean")[0], "odds n=3 -> n=5")


def _search_index(out: Path) -> dict:
    text = (out / "searchindex.js").read_text(encoding="utf-8")
    return json.loads(text[text.index("(") + 1:text.rindex(")")])


def _book_pages_with(out: Path, word: str, field: str = "terms") -> list:
    """The pages of the books (docs/books/...) that Sphinx's search index says hold `word`
    (the guide's pages may mention a rule by name: docs/search.md does)."""
    data = _search_index(out)
    if word not in data[field]:
        return []
    docs = data[field][word]
    docs = [docs] if isinstance(docs, int) else docs
    return [data["docnames"][i] for i in docs if data["docnames"][i].startswith("docs/books/")]


def test_a_deleted_rule_leaves_the_search_index(tmp_path):
    site = Site(tmp_path / "site")
    _real(site, "void.rules")
    site.build()
    for word in ("rampag", "beast", "anim"):
        assert _book_pages_with(site.out, word), word
    assert _book_pages_with(site.out, "rampag", "titleterms")
    src = site.books / "void.rules"
    text = src.read_text(encoding="utf-8")
    start = text.index('    rule rampage "Rampage" {')
    end = text.index('\n    rule ', start + 1)
    src.write_text(text[:start] + text[end + 1:], encoding="utf-8")
    site.build()
    for word in ("rampag", "beast", "anim"):
        assert not _book_pages_with(site.out, word), word
    assert not _book_pages_with(site.out, "rampag", "titleterms")
    index = _search_index(site.out)          # and no word is left that no page holds
    assert [w for field in ("terms", "titleterms") for w, docs in index[field].items() if docs == []] == []
    assert_same(site.out, clean_build(site.books, tmp_path / "clean")[0], "Rampage deleted")


# ------------------------------------------------------------------ the property
#: clean builds of this session by the digest of their sources (a sequence often comes back
#: to sources seen before, and hypothesis replays sequences): {digest: output folder}
_CLEAN = {}


def _clean_of(lib, root: Path, options) -> tuple:
    """(output folder, exit status) of a clean build of the library's sources."""
    sources = rb.sources(lib)
    key = hashlib.sha256(repr((options, sorted(sources.items()))).encode()).hexdigest()[:16]
    if key not in _CLEAN:
        books = root / f"books-{key}"
        rb.write(lib, books)
        _CLEAN[key] = clean_build(books, root / f"clean-{key}", *options, ok=False)
    return _CLEAN[key]


#: pages small enough that the site cuts them: sections into parts and sub-section pages
#: (pagesplit.py), glossary and cross-index terms across pages, the general index's letters,
#: the home page's game picker into pages by first letters
SMALL_PAGES = ("-D", "rules_page_budget=5000", "-D", "rules_links_per_page=4", "-D", "rules_index_lines=8",
               "-D", "rules_games_per_page=2")


_SETTINGS = settings(
    max_examples=EXAMPLES, deadline=None, derandomize="RULES_REBUILD_EXAMPLES" not in os.environ,
    # a sequence is at most a few steps already; shrinking one costs minutes of builds
    phases=[p for p in Phase if p is not Phase.shrink or os.environ.get("RULES_REBUILD_SHRINK")],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@_SETTINGS
@given(seq=rb.steps(STEPS), jobs=st.sampled_from([(), ("-j", "2")]), options=st.sampled_from([(), SMALL_PAGES]))
@example(seq=rb.EVERY_KIND, jobs=(), options=SMALL_PAGES)
# found by the model cache's property: a book whose reference another book's edit left dangling
@example(seq=rb.DANGLING, jobs=(), options=())
# found by this test: a book retitled; the glossary shows a book's title beside each definition
# (the page's fingerprint listed only the books of its rules, not those of its definitions)
@example(seq=[[("real", 5773, 133), ("title", 2578, 689)], [("table", 131072, 434)]], jobs=("-j", "2"), options=())
def test_a_rebuild_after_any_edits_equals_a_clean_build(seq, jobs, options, tmp_path_factory):
    """Built with `jobs` (the rebuilds; the clean builds read serially) and `options` (both)."""
    root = tmp_path_factory.mktemp("rebuild")
    site = Site(root / "site", *jobs, *options)
    lib = rb.start(real=True)
    rb.write(lib, site.books)
    site.build()
    done = []
    for step in seq:
        for edit in step:
            lib = rb.apply(lib, edit)
        done.append(step)
        rb.write(lib, site.books)
        # a book saved with a mistake fails the build (-W): the rebuild fails as the clean
        # build does, and what both write is still the same
        proc = site.build(ok=False)
        clean, status = _clean_of(lib, tmp_path_factory.getbasetemp() / "clean-builds", options)
        what = f"after the edits {done} ({' '.join(jobs + options) or 'no options'})"
        assert proc.returncode == status, f"{what}: the rebuild exits {proc.returncode}, a clean build {status}"
        assert_same(site.out, clean, what)


def test_a_rule_moved_to_an_earlier_part_of_its_section_is_no_duplicate(tmp_path):
    """Sphinx's serial read took each page out of the environment just before reading it:
    a rule moved from a later part of a section (read later) to an earlier one was still
    recorded on the later part when the earlier was read, a duplicate warning that failed
    the rebuild (-W) and not a clean build (smallbuild.purge_pages_to_read)."""
    def book(order):
        rules = {k: f'''    rule r{k} "Rule {k}" {{
        """{" ".join(["Words of rule", str(k)] * 60)}."""
    }}
''' for k in (1, 2, 3)}
        return 'book moved {\n    title "Moved"\n}\nsection s "S" {\n' + "".join(rules[k] for k in order) + "}\n"
    site = Site(tmp_path / "site", "-D", "rules_page_budget=2000")
    site.books.mkdir(parents=True)
    (site.books / "moved.rules").write_text(book((1, 2, 3)), encoding="utf-8")
    site.build()
    part3 = (site.out / "docs/books/moved/s/part-3.html").read_text(encoding="utf-8")
    assert 'id="moved:r3"' in part3
    (site.books / "moved.rules").write_text(book((3, 1, 2)), encoding="utf-8")
    site.build()
    assert 'id="moved:r3"' in (site.out / "docs/books/moved/s.html").read_text(encoding="utf-8")
    clean, _ = clean_build(site.books, tmp_path / "clean", "-D", "rules_page_budget=2000")
    assert_same(site.out, clean, "r3 moved to the front")
