"""The theme's sidebar tree, rendered from the navigation worked out once a build
(rules_dsl.sphinxext.navigation), is byte for byte what Sphinx's own toctree() gives,
on every page of a small site: documents at every depth, pages that are no document
(the general index's letters, search), a caption, an explicit title, markup in a title,
a link out and a generated page in a toctree."""
from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest

from rules_dsl.sphinxext.testing import build, make_project

pytestmark = pytest.mark.site

HERE = Path(__file__).resolve().parent

# A tiny extension: before ours (priority 400) it keeps the page's own toctree(); after it,
# it asks both for the sidebar and writes them down, one line a page (forked writers append).
CHECKER = '''
import json, os
from rules_dsl.sphinxext import navigation

def keep(app, pagename, templatename, context, doctree):
    context["_sphinx_toctree"] = context.get("toctree")

def compare(app, pagename, templatename, context, doctree):
    theirs = context.pop("_sphinx_toctree", None)
    if theirs is None:
        return
    rec = {"page": pagename, "fast": navigation.current(app) is not None, "switch": app.config.rules_nav_fast}
    for depth in (4, 2, -1):
        kwargs = dict(collapse=False, titles_only=True, maxdepth=depth, includehidden=True)
        rec[str(depth)] = [navigation.sidebar(app, pagename, depth), theirs(**kwargs)]
    rec["routed"] = [context["toctree"](collapse=False, titles_only=True, maxdepth=-1, includehidden=True),
                     theirs(collapse=False, titles_only=True, maxdepth=4, includehidden=True)]
    rec["other"] = [context["toctree"](collapse=True, maxdepth=2), theirs(collapse=True, maxdepth=2)]
    with open(os.path.join(app.outdir, "navcheck.jsonl"), "a", encoding="utf-8") as f:
        f.write(json.dumps(rec) + "\\n")

def setup(app):
    app.connect("html-page-context", keep, priority=300)
    app.connect("html-page-context", compare, priority=450)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
'''

MORE = textwrap.dedent('''\

    ```{toctree}
    :caption: More & <others>
    :hidden:

    Renamed & "quoted" <more>
    https://example.org/?a=1&b=2
    /genindex
    ```
    ''')

MORE_PAGE = textwrap.dedent('''\
    # The `more` page

    Some text.

    ## A section

    ```{toctree}
    more-child
    ```

    ## Another section
    ''')

CHILD_PAGE = textwrap.dedent('''\
    # Child *of* more

    ```{toctree}
    more-grandchild
    ```
    ''')

GRANDCHILD_PAGE = "# Grandchild\n\nDeepest.\n"


def nav_site(tmp: Path) -> tuple:
    """A project with the pages above (the checker extension in it) and the demo book:
    (project, books folder)."""
    project = make_project(tmp / "project")
    docs = project / "docs"
    (docs / "index.md").write_text((docs / "index.md").read_text(encoding="utf-8") + MORE, encoding="utf-8")
    (docs / "more.md").write_text(MORE_PAGE, encoding="utf-8")
    (docs / "more-child.md").write_text(CHILD_PAGE, encoding="utf-8")
    (docs / "more-grandchild.md").write_text(GRANDCHILD_PAGE, encoding="utf-8")
    (project / "navcheck.py").write_text(CHECKER, encoding="utf-8")
    with (project / "conf.py").open("a", encoding="utf-8") as f:
        f.write('\nimport sys as _sys\n_sys.path.insert(0, __import__("os").path.dirname(__file__))\n'
                'extensions.append("navcheck")\n')
    books = tmp / "books"
    books.mkdir()
    shutil.copy(HERE / "demo_book.rules", books / "demo.rules")
    return project, books


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("nav-site")
    project, books = nav_site(tmp)
    out = tmp / "out"
    # rules_nav_check: every page's tree is also made by furo itself, a difference is a warning
    proc = build(project, out, books, tmp / "cache", "-j", "2", "-D", "rules_nav_check=1")
    assert proc.returncode == 0, f"build failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    assert "WARNING" not in proc.stderr, proc.stderr
    records = [json.loads(line) for line in (out / "navcheck.jsonl").read_text(encoding="utf-8").splitlines()]
    return out, {r["page"]: r for r in records}, (project, books, tmp)


def test_every_page_gets_sphinxs_sidebar_byte_for_byte(checked):
    _out, pages, _ = checked
    for name in ("docs/index", "docs/books/demo/index", "docs/books/demo/basics", "docs/glossary",
                 "docs/more", "docs/more-child", "docs/more-grandchild", "genindex", "search"):
        assert name in pages, sorted(pages)
    assert any(p.startswith("docs/books/_glossary/") for p in pages), sorted(pages)
    assert any(p.startswith("genindex-") for p in pages), sorted(pages)
    for name, rec in sorted(pages.items()):
        assert rec["fast"] and rec["switch"] is True, f"{name}: the sidebar was left to Sphinx"
        for key in ("4", "2", "-1", "routed", "other"):
            ours, theirs = rec[key]
            assert ours == theirs, f"{name} ({key}):\n--- ours\n{ours}\n--- Sphinx\n{theirs}"


def test_the_current_page_and_its_ancestors_are_marked(checked):
    _out, pages, _ = checked
    deep = pages["docs/more-grandchild"]["-1"][0]
    assert '<a class="current reference internal" href="#">Grandchild</a>' in deep
    assert deep.count('<li class="toctree-l') == deep.count("</li>")
    assert '<li class="toctree-l1 current"><a class="reference internal" href="more.html">Renamed &amp; &quot;quoted&quot;</a>' in deep
    assert '<li class="toctree-l3 current">' in deep and '<ul class="current">' in deep
    # at depth 2 the grandchild is cut off, but its ancestors stay marked, as Sphinx marks them
    cut = pages["docs/more-grandchild"]["2"][0]
    assert "Grandchild" not in cut and '<li class="toctree-l2 current">' in cut
    # a page that is in no toctree: nothing current, links from the top folder
    index = pages[min(p for p in pages if p.startswith("genindex-"))]["4"][0]
    assert "current" not in index
    assert 'href="https://example.org/?a=1&amp;b=2"' in index and 'href="docs/books/demo/index.html"' in index
    assert '<span class="caption-text">More &amp; &lt;others&gt;</span>' in index
    assert "<code" in pages["docs/index"]["4"][0]        # markup in a title, as Sphinx renders it
    # the general index is listed in a toctree: on its own page it is the current entry
    assert '<a class="current reference internal" href="#">Index</a>' in pages["genindex"]["4"][0]


def test_the_switch_gives_the_same_site_the_slow_way(checked):
    """With rules_nav_fast = False Sphinx makes every sidebar: every page comes out the same."""
    out, _pages, (project, books, tmp) = checked
    slow = tmp / "slow"
    proc = build(project, slow, books, tmp / "cache", "-D", "rules_nav_fast=0")
    assert proc.returncode == 0, f"build failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    fast_pages = sorted(p.relative_to(out) for p in out.rglob("*.html"))
    assert fast_pages == sorted(p.relative_to(slow) for p in slow.rglob("*.html"))
    assert len(fast_pages) > 30
    differ = [str(p) for p in fast_pages if (out / p).read_bytes() != (slow / p).read_bytes()]
    assert not differ, differ
    # the slow build's own check saw Sphinx's answer where ours is routed
    for line in (slow / "navcheck.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        assert rec["switch"] is False and rec["routed"][0] == rec["routed"][1], rec["page"]


def test_the_sidebar_option_routes_only_the_themes_call():
    from rules_dsl.sphinxext import navigation
    assert navigation.handles({"collapse": False, "titles_only": True, "maxdepth": 4, "includehidden": True})
    assert not navigation.handles({"collapse": True, "titles_only": True, "maxdepth": 4, "includehidden": True})
    assert not navigation.handles({"collapse": False, "titles_only": True, "maxdepth": "", "includehidden": True})
    assert not navigation.handles({"collapse": False, "titles_only": True, "maxdepth": 4})


def _sidebar(out: Path, doc: str) -> str:
    html = (out / f"{doc}.html").read_text(encoding="utf-8")
    start = html.index('class="sidebar-tree"')
    return html[start:html.index("</div>", start)]


def test_a_long_navigation_collapses_to_the_pages_own_branch(checked):
    """Past `rules_nav_links` pages every page's sidebar lists the top entries and only its
    own branch's children, so the sidebar does not grow with every page of the library."""
    _out, _pages, (project, books, tmp) = checked
    full = tmp / "html-full-nav"
    out = tmp / "html-collapsed"
    for where, extra in ((full, ()), (out, ("-D", "rules_nav_links=3"))):
        proc = build(project, where, books, tmp / "cache", "-D", "rules_nav_check=1", *extra)
        assert proc.returncode == 0 and "WARNING" not in proc.stderr, proc.stderr[-3000:]
    # the whole tree without the limit; with it, the root page no longer lists the book's
    # sections nor the more page's children, which the pages of their own branch still show
    assert "more-child.html" in _sidebar(full, "docs/index") and "basics.html" in _sidebar(full, "docs/index")
    assert "more-child.html" not in _sidebar(out, "docs/index")
    assert "books/demo/basics.html" not in _sidebar(out, "docs/index")
    assert "more.html" in _sidebar(out, "docs/index") and "demo/index.html" in _sidebar(out, "docs/index")
    assert "more-grandchild.html" in _sidebar(out, "docs/more-child")
    assert "basics.html" in _sidebar(out, "docs/books/demo/index")
    assert len(_sidebar(out, "docs/index")) < len(_sidebar(full, "docs/index"))


def test_the_navigation_is_kept_between_builds_until_a_page_changes_its_part(tmp_path):
    """A rebuild takes the last build's navigation when no page read again changed what it
    gives the sidebar (a prose edit); a page retitled makes it again, and every page's
    sidebar shows the new title, as Sphinx's own would."""
    project, books = nav_site(tmp_path)
    docs = project / "docs"
    out, cache = tmp_path / "out", tmp_path / "cache"

    def same_as_sphinx():
        records = [json.loads(line) for line in (out / "navcheck.jsonl").read_text(encoding="utf-8").splitlines()]
        (out / "navcheck.jsonl").unlink()
        for r in records:
            for depth in ("4", "2", "-1"):
                assert r[depth][0] == r[depth][1], (r["page"], depth)
        return {r["page"] for r in records}

    def run(*extra):
        proc = build(project, out, books, cache, "-v", "-D", "rules_nav_check=1", *extra)
        assert proc.returncode == 0 and "WARNING" not in proc.stderr, proc.stdout[-3000:] + proc.stderr[-3000:]
        return proc.stdout

    assert "navigation worked out" in run()
    (docs / "more-grandchild.md").write_text(GRANDCHILD_PAGE + "\nMore deep text.\n", encoding="utf-8")
    same_as_sphinx()
    log = run()
    assert "navigation kept from the last build" in log and "navigation worked out" not in log
    assert "docs/more-grandchild" in same_as_sphinx()
    (docs / "more-grandchild.md").write_text(GRANDCHILD_PAGE.replace("# Grandchild", "# Renamed Grandchild"),
                                             encoding="utf-8")
    log = run()
    assert "navigation worked out" in log
    assert "docs/books/demo/basics" in same_as_sphinx()
    # every page written again shows the new title (rules_nav_check: and furo's own tree agrees)
    for page in ("docs/index", "docs/more", "docs/books/demo/basics"):
        assert "Renamed Grandchild" in (out / f"{page}.html").read_text(encoding="utf-8"), page


def test_furos_trees_are_kept_between_builds_by_their_html(tmp_path):
    from rules_dsl.sphinxext import furo_nav
    made = []
    furo = lambda html: made.append(html) or f"<tree>{html}</tree>"
    kept = furo_nav.KeptTrees(tmp_path / "trees.pickle", furo)
    assert kept.tree("<ul>a</ul>") == "<tree><ul>a</ul></tree>"
    kept.save()
    again = furo_nav.KeptTrees(tmp_path / "trees.pickle", furo)
    assert again.tree("<ul>a</ul>") == "<tree><ul>a</ul></tree>" and made == ["<ul>a</ul>"]   # not made again
    assert again.tree("<ul>b</ul>") == "<tree><ul>b</ul></tree>" and made[-1] == "<ul>b</ul>"
    for i in range(furo_nav.KEPT_TREES + 5):
        again.tree(f"<ul>{i}</ul>")
    again.save()
    assert len(again.trees) == furo_nav.KEPT_TREES              # held: the most recently used only
    third = furo_nav.KeptTrees(tmp_path / "trees.pickle", furo)
    last = f"<ul>{furo_nav.KEPT_TREES + 4}</ul>"
    n = len(made)
    assert third.tree(last) == f"<tree>{last}</tree>" and len(made) == n   # kept: not made again
    assert third.tree("<ul>a</ul>") and made[-1] == "<ul>a</ul>"            # the oldest was dropped
    assert len(third.trees) == furo_nav.KEPT_TREES
    (tmp_path / "trees.pickle").write_bytes(b"damaged")
    assert furo_nav.KeptTrees(tmp_path / "trees.pickle", furo).tree("<ul>a</ul>") == "<tree><ul>a</ul></tree>"
