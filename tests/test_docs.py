"""The reference website: full Sphinx builds in a subprocess (-W -n), then the HTML.

* a tiny site (the demo book and a book full of `<script>`) built with the
  documented command: anchors, cross-references with previews, tables with
  absent cells, notes, findings, examples, odds, glossary, cross-book index,
  objects.inv, and escaping;
* a failing worked example fails the build (with and without -W);
* editing one rule re-reads only the page that holds it;
* parallel reading (-j 2) builds the same site;
* the real site: every book of rulebooks/.
"""
from __future__ import annotations

import html
import re
import shutil
import textwrap
import zlib
from pathlib import Path

import pytest

from rules_dsl.sphinxext.testing import REPO, build, make_project

pytestmark = pytest.mark.site   # the Sphinx builds: skipped by the inner loop (-m "not site")

DEMO = Path(__file__).with_name("demo_book.rules")

XSS_BOOK = textwrap.dedent('''\
    book xss {
        title "Escaping <b>test</b>"
        dice d6
    }
    section esc "Escaping <script>alert(1)</script>" {
        """Section prose <script>alert(1)</script>."""
        rule evil "Evil <script>alert(1)</script>" {
            aliases "<img src=x onerror=alert(2)>"
            keywords "<script>", "dice"
            uses "Dice Tricks", "<script>alert(6)</script>"
            source "Chapter <i>1</i>"
            """
            A rule whose text has <script>alert(1)</script> and **bold <em>x</em>** and
            *italic* and a link to [[demo:dice-rolls|<b>the dice</b>]] and [[dice-tricks]].

            - a bullet with <script>alert(5)</script>
            - another

            ```{raw} html
            <b id="myst-raw">raw MyST</b>
            ```

            .. raw:: html

               <b id="rst-raw">raw reST</b>

            ```{eval-rst}
            .. raw:: html

               <b id="eval-rst">eval-rst</b>
            ```

            A role {raw}`<b id="myst-role">x</b>` and :raw-html:`<b id="rst-role">y</b>` and
            a quote " and ' and a backslash \\ and `code`.
            """
            note clarification """A note with <script>alert(3)</script> and {eval-rst}`x` and .. raw:: html."""
            note absent """The source gives no value for <script>."""
            table labels(key: 1..2) -> text | absent "Labels <script>" {
                | key | label |
                |---|---|
                | 1 | "<script>alert(4)</script> {raw}`<b id='cell-role'>c</b>`" |
                | 2 | absent |
            }
            example "<script> in an example" """
            >>> labels(1)
            "<script>alert(4)</script> {raw}`<b id='cell-role'>c</b>`"
            """
        }
        rule marks "Marks" {
            """A chart printed with signs."""
            enum mark { yes "<b>A</b>", no "–", maybe }
            table marks_chart(key: 1..3) -> mark "Printed marks" {
                | key | mark |
                |---|---|
                | 1 | yes |
                | 2 | no |
                | 3 | maybe |
            }
        }
        rule dice-tricks "Dice Tricks" {
            keywords "chart"
            """Rolls [[evil]] with **two** dice."""
            mechanic two_dice() -> 2..12 {
                roll a: d6
                roll b: d6
                return a + b
            }
            example """
            >>> two_dice(a=3, b=4)
            7
            """
        }
    }
''')


def _books(tmp: Path, extra: dict) -> Path:
    books = tmp / "books"
    books.mkdir(parents=True)
    shutil.copy(DEMO, books / "demo.rules")
    for name, text in extra.items():
        (books / f"{name}.rules").write_text(text, encoding="utf-8")
    return books


def _ok(proc):
    assert proc.returncode == 0, f"build failed ({proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-6000:]}"
    assert "WARNING" not in proc.stderr, proc.stderr


def _odds_available():
    try:
        from rules_dsl import odds
    except ImportError:
        return False
    return hasattr(odds, "page_odds")


ROLES_PAGE = textwrap.dedent('''\
    ---
    orphan: true
    ---
    # Roles from Markdown

    See {rules:rule}`demo:opposed-stat-rolls`, {rules:rule}`the chart rule <demo:opposed-stat-rolls>`,
    {rules:section}`demo:basics`, {rules:mechanic}`demo:needed`, {rules:table}`demo:chart`,
    {rules:book}`demo` and {any}`demo:dice-rolls`.

    ```{rules:rule} demo:dice-rolls
    :no-index:
    ```
    ''')


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("tiny-site")
    project = make_project(tmp / "project")
    (project / "docs" / "roles.md").write_text(ROLES_PAGE, encoding="utf-8")
    books = _books(tmp, {"xss": XSS_BOOK})
    out = tmp / "out"
    proc = build(project, out, books, tmp / "cache")
    _ok(proc)
    return out


def page(out: Path, docname: str) -> str:
    return (out / f"{docname}.html").read_text(encoding="utf-8")


def test_rule_anchor_title_and_section(tiny):
    demo = page(tiny, "docs/books/demo/basics")
    assert 'id="demo:opposed-stat-rolls"' in demo
    assert 'id="demo:dice-rolls"' in demo
    assert 'id="demo:basics"' in demo
    assert "<h1>The Basics" in demo
    assert "Opposed Stat Rolls" in demo
    assert "Source: <em>The Basics</em>" in demo
    assert "Also: Opposed Stat Roles" in demo


def test_prose_cross_reference_is_a_link_with_a_preview(tiny):
    demo = page(tiny, "docs/books/demo/basics")
    # [[dice-rolls]] in the prose of opposed-stat-rolls: a same-page link titled by the target
    m = re.search(r'<a class="rules-ref rules-ref-rule reference internal" href="#demo:dice-rolls" title="([^"]*)">', demo)
    assert m, "no link to #demo:dice-rolls"
    assert m.group(1) == "Dice — Demo"       # the target's title and book
    # the target's first paragraph is in the book's previews file, by the link's anchor
    from rules_dsl.sphinxext import previews
    data = previews.loads((tiny / "_static" / "rules-previews" / "demo.js").read_text(encoding="utf-8"))
    assert data["v"] == 1 and data["book"] == "demo"
    assert data["previews"]["demo:dice-rolls"] == "Rolls."
    assert sorted(p.name for p in (tiny / "_static" / "rules-previews").iterdir()) == ["demo.js", "xss.js"]
    # a cross-book reference with a label, from another page
    xss = page(tiny, "docs/books/xss/esc")
    assert re.search(r'href="\.\./demo/basics\.html#demo:dice-rolls"[^>]*>[^<]*<span[^>]*>&lt;b&gt;the dice&lt;/b&gt;', xss)
    # an unlabelled reference shows the target's title
    assert re.search(r'href="#xss:dice-tricks"[^>]*><span[^>]*>Dice Tricks</span>', xss)
    assert "rules_dsl.js" in xss   # the hover preview script


def test_script_in_rulebook_text_is_escaped(tiny):
    xss = page(tiny, "docs/books/xss/esc")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in xss
    assert "&lt;script&gt;alert(3)&lt;/script&gt;" in xss
    assert "&lt;script&gt;alert(5)&lt;/script&gt;" in xss
    assert "&lt;img src=x onerror=alert(2)&gt;" in xss
    for path in tiny.rglob("*.html"):
        text = path.read_text(encoding="utf-8")
        assert "<script>alert" not in text, path
        assert "<img src=x" not in text, path
        assert "<b>test</b>" not in text, path


def test_myst_and_rest_directives_in_rulebook_text_render_as_text(tiny):
    """A book cannot smuggle MyST or reST markup (raw HTML, eval-rst) into the site."""
    xss = page(tiny, "docs/books/xss/esc")
    for marker in ("myst-raw", "rst-raw", "eval-rst", "myst-role", "rst-role", "cell-role"):
        assert f'<b id="{marker}"' not in xss and f"<b id='{marker}'" not in xss, marker
    assert "{raw}" in xss and ".. raw:: html" in xss and "{eval-rst}" in xss
    assert "&lt;b id=&quot;myst-raw&quot;&gt;" in xss or '&lt;b id="myst-raw"&gt;' in xss


def test_prose_markup(tiny):
    xss = page(tiny, "docs/books/xss/esc")
    assert "<strong>bold &lt;em&gt;x&lt;/em&gt;</strong>" in xss
    assert "<em>italic</em>" in xss
    assert re.search(r"<ul[^>]*>\s*<li><p>a bullet with &lt;script&gt;", xss)


def test_data_table_marks_absent_cells(tiny):
    xss = page(tiny, "docs/books/xss/esc")
    assert 'id="xss:labels"' in xss
    assert "absent in source" in xss
    assert 'class="rules-absent"' in xss
    demo = page(tiny, "docs/books/demo/basics")
    assert 'id="demo:chart"' in demo and "yours / opposed" in demo


def test_enum_members_print_as_the_source_prints_them(tiny):
    """`enum mark { yes "<b>A</b>", no "–" }`: the chart's cells show the printed form,
    escaped, with the member's name as their title and in a legend under the table."""
    xss = page(tiny, "docs/books/xss/esc")
    chart = xss[xss.index('id="xss:marks_chart"'):]
    chart = chart[:chart.index("</p>", chart.index("rules-table-legend"))]   # the table, then its legend
    assert '<abbr class="rules-printed" title="no">–</abbr>' in chart
    assert '<abbr class="rules-printed" title="yes">&lt;b&gt;A&lt;/b&gt;</abbr>' in chart
    assert "<p>maybe</p>" in chart                 # a member without a printed form: its name
    assert 'class="rules-table-legend"' in chart and "<strong>–</strong> no" in chart


def test_notes_findings_examples_mechanics(tiny):
    demo = page(tiny, "docs/books/demo/basics")
    assert "rules-note-erratum" in demo and "Erratum" in demo
    xss = page(tiny, "docs/books/xss/esc")
    assert "rules-note-clarification" in xss
    assert "rules-note-absent" in xss and "Absent in the source" in xss
    # the demo's chart disagrees with its formula in one case: a finding on the rule's page, for the
    # wrong printed cell and for the check as a whole
    assert "rules-finding-disagreement" in demo and "rules-finding-check-summary" in demo
    assert "chart_is_formula" in demo and "chart(yours=2," in demo and "(source line 19) disagrees" in demo
    # names a rule uses: a defined one links to its rule, an undefined one is marked and is a finding
    evil = xss[xss.index('id="xss:evil"'):xss.index('id="xss:dice-tricks"')]
    assert "rules-meta-uses" in evil and 'href="#xss:dice-tricks"' in evil.replace("esc.html", "")
    assert "rules-use-undefined" in evil and "rules-finding-undefined-name" in evil
    assert "<script>alert(6)" not in xss
    # examples are doctest blocks
    assert "needed" in demo and "rules-example" in demo and "checked at build time" in demo
    # mechanics: signature, parameters with ranges, the formula
    assert 'id="demo:needed"' in demo
    assert "0..5" in demo and "let d = opposed - yours + 4 + penalty" in html.unescape(demo)
    assert "roll dice: hits of d10" in html.unescape(demo)


@pytest.mark.skipif(not _odds_available(), reason="rules_dsl.odds.page_odds is not available")
def test_odds_table_for_dice_mechanics(tiny):
    demo = page(tiny, "docs/books/demo/basics")
    assert "Exact odds" in demo and "rules-odds" in demo
    xss = page(tiny, "docs/books/xss/esc")
    # two_dice: 7 is the likeliest sum, 6/36; 7 or more: 21/36
    assert re.search(r"<p>7</p>.*?16\.67%.*?58\.33%.*?1/6", xss, re.S)     # results in words, not code
    assert "At least" in xss


def test_books_glossary_cross_index_and_inventory(tiny):
    home = page(tiny, "docs/index")
    assert "Escaping &lt;b&gt;test&lt;/b&gt;" in home
    assert 'href="books/demo/index.html#demo"' in home
    glossary = page(tiny, "docs/books/_glossary/c") + page(tiny, "docs/books/_glossary/s")   # a page per letter
    assert 'id="term-chart"' in glossary and 'id="term-script"' in glossary
    assert "_glossary/c.html" in page(tiny, "docs/glossary")
    xindex = page(tiny, "docs/books/_cross-index/d")
    assert 'id="xindex-dice"' in xindex           # "Dice" (demo) and "Dice Tricks" (xss)
    assert "#xss:dice-tricks" in xindex and "#demo:dice-rolls" in xindex
    assert (tiny / "index.html").is_file()        # redirect to docs/index.html
    # the general index: a page per letter; no page holds all of it
    letters = [p for p in tiny.glob("genindex-*.html") if p.name != "genindex-all.html"]
    assert letters and all('class="indextable"' in p.read_text(encoding="utf-8") for p in letters)
    assert 'class="indextable"' not in (tiny / "genindex-all.html").read_text(encoding="utf-8")
    assert not (tiny / ".doctrees").exists()     # doctrees outside the published folder
    from sphinx.util.inventory import InventoryFile
    with open(tiny / "objects.inv", "rb") as f:
        inv = InventoryFile.load(f, "", lambda base, uri: uri)
    assert "demo:opposed-stat-rolls" in inv["rules:rule"]
    item = inv["rules:rule"]["demo:opposed-stat-rolls"]
    uri = item.uri if hasattr(item, "uri") else item[2]
    assert uri.endswith("basics.html#demo:opposed-stat-rolls")
    assert "demo:needed" in inv["rules:mechanic"]
    assert "demo:chart" in inv["rules:table"]
    assert "demo" in inv["rules:book"]
    search = (tiny / "searchindex.js").read_text(encoding="utf-8")
    assert "Opposed Stat Rolls" in search


def test_pages_outside_the_toctree_share_one_correct_sidebar(tiny):
    """The general index's letter pages and the search page reuse one sidebar a build (it is the
    same for every page that is in no toctree): it must be the full one, and the same everywhere."""
    import re

    def sidebar(html):
        m = re.search(r'<div class="sidebar-tree">(.*?)</div>', html, re.S)
        assert m, "no sidebar"
        return m.group(1)
    shared = [tiny / "genindex.html", tiny / "search.html"] + sorted(tiny.glob("genindex-*.html"))
    trees = {p.name: sidebar(p.read_text(encoding="utf-8")) for p in shared}
    assert len(set(trees.values())) == 1, sorted(trees)
    tree = next(iter(trees.values()))
    assert 'href="docs/books/demo/index.html"' in tree and 'href="docs/glossary.html"' in tree
    assert "current" not in tree                 # no page of the toctree is marked as this one
    home = sidebar(page(tiny, "docs/index"))      # a document still gets its own, with its links relative to it
    assert 'href="books/demo/index.html"' in home


def test_roles_and_directive_from_markdown(tiny):
    roles = page(tiny, "docs/roles")
    links = dict((html.unescape(text), href) for href, text in
                 re.findall(r'<a class="rules-ref rules-ref-\w+ reference internal" href="([^"]+)"[^>]*>(?:<[^>]+>)*([^<]+)<', roles))
    assert links["Opposed Stat Rolls"] == "books/demo/basics.html#demo:opposed-stat-rolls"
    assert links["the chart rule"] == "books/demo/basics.html#demo:opposed-stat-rolls"
    assert links["The Basics"] == "books/demo/basics.html#demo:basics"
    assert links["Needed"] == "books/demo/basics.html#demo:needed"      # a mechanic, a table: by their words
    assert links["Chart"] == "books/demo/basics.html#demo:chart"
    assert links["Demo"] == "books/demo/index.html#demo"
    assert links["Dice"] == "books/demo/basics.html#demo:dice-rolls"     # {any}
    # the rule shown again without registering it: no second anchor, same content
    assert 'id="demo:dice-rolls"' not in roles and "roll dice: hits of d10" in html.unescape(roles)


def test_cli_and_api_pages(tiny):
    cli = page(tiny, "docs/cli")
    for sub in ("books", "lookup", "show", "call", "check", "odds", "explain", "js"):
        assert f"usage: rules {sub}" in cli
    api = page(tiny, "docs/api")
    assert 'id="rules_dsl.load"' in api and 'id="rules_dsl.library.book.Book"' in api
    assert 'id="rules_dsl.InputError"' in api
    assert 'id="rules_dsl.library.book.Book.explain"' in api and 'id="rules_dsl.evaluation.explain.Explanation"' in api
    assert '"children"' in html.unescape(cli) and "show working" in cli


BAD_BOOK = textwrap.dedent('''\
    book bad {
        title "Bad"
    }
    section s "S" {
        rule r "R" {
            """Text."""
            mechanic double(x: 1..5) -> int = x * 2
            example "wrong on purpose" """
            >>> double(2)
            5
            """
        }
    }
''')


@pytest.mark.parametrize("strict", [True, False], ids=["-W", "no -W"])
def test_failing_example_fails_the_build(tmp_path, strict):
    project = make_project(tmp_path / "project")
    books = _books(tmp_path, {"bad": BAD_BOOK})
    if strict:
        proc = build(project, tmp_path / "out", books, tmp_path / "cache")
    else:
        from rules_dsl.sphinxext.testing import build_command
        import os
        import subprocess
        cmd = [c for c in build_command(project, tmp_path / "out") if c not in ("-W", "--keep-going")]
        env = dict(os.environ, RULES_DSL_BOOKS=str(books), RULES_DSL_CACHE=str(tmp_path / "cache"))
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    assert "example of bad:r (wrong on purpose) failed" in proc.stderr
    assert "bad.rules:9" in proc.stderr          # the example's first line in the source


def test_book_that_does_not_compile_is_reported(tmp_path):
    project = make_project(tmp_path / "project")
    books = _books(tmp_path, {"broken": 'book broken {\n  title "Broken"\n}\nsection s "S" {\n  rule r "R" {\n'
                                         '    """See [[nowhere]]."""\n  }\n}\n'})
    out = tmp_path / "out"
    proc = build(project, out, books, tmp_path / "cache")
    assert proc.returncode != 0
    assert "rulebook 'broken' does not compile" in proc.stderr
    assert "broken.rules:6" in proc.stderr and "unknown rule 'nowhere'" in proc.stderr
    # the other books are still there
    assert (out / "docs" / "books" / "demo" / "basics.html").is_file()
    assert not (out / "docs" / "books" / "broken").exists()


def test_open_data_files_are_published_and_valid(tiny):
    """data/<book>.json, data/index.json and data/book.schema.json in the output (as
    `rules export` writes them), valid against the schema, linked from docs/open-data."""
    import json

    import jsonschema

    from rules_dsl.faces import export
    data = tiny / "data"
    schema = json.loads((data / "book.schema.json").read_text(encoding="utf-8"))
    assert schema == json.loads(export.schema_path().read_text(encoding="utf-8"))
    index = json.loads((data / "index.json").read_text(encoding="utf-8"))
    jsonschema.validate(index, {**schema["$defs"]["index"], "$defs": schema["$defs"]},
                        cls=jsonschema.Draft202012Validator)
    assert [b["id"] for b in index["books"]] == ["demo", "xss"]
    assert sorted(f.name for f in data.iterdir()) == ["book.schema.json", "demo.json", "index.json", "xss.json"]
    for entry in index["books"]:
        book = json.loads((data / entry["file"]).read_text(encoding="utf-8"))
        jsonschema.validate(book, schema, cls=jsonschema.Draft202012Validator)
        assert book["counts"] == entry["counts"] and book["id"] == entry["id"]
    xss = json.loads((data / "xss.json").read_text(encoding="utf-8"))
    assert xss["rules"][0]["title"] == "Evil <script>alert(1)</script>"      # data, not markup: kept as written
    assert xss["tables"][0]["rows"][1][1]["absent"] is True
    open_data = page(tiny, "docs/open-data")
    for name in ("index.json", "book.schema.json"):
        assert f'href="../data/{name}"' in open_data


def test_editing_one_rule_rereads_only_its_page(tmp_path):
    project = make_project(tmp_path / "project")
    books = _books(tmp_path, {"xss": XSS_BOOK})
    out, cache = tmp_path / "out", tmp_path / "cache"
    _ok(build(project, out, books, cache))
    data = out / "data"
    stamps = {f.name: f.stat().st_mtime_ns for f in data.iterdir()}
    doctrees = out.with_name(out.name + ".doctrees")
    models = doctrees / "rules_dsl-models"
    kept = ["genindex.html", "genindex-D.html", "searchindex.js", "objects.inv", "_static/js/demo.mjs", "search.html",
            "docs/books/xss/esc.html", "_static/rules-previews/xss.js", "_static/rules-previews/demo.js"]
    kept_stamps = {name: (out / name).stat().st_mtime_ns for name in kept}
    model_stamps = {f.name: f.stat().st_mtime_ns for f in models.iterdir()}
    assert {"demo.head.pickle", "demo.pickle", "xss.head.pickle", "xss.pickle"} <= set(model_stamps)
    import pickle
    crossbook_keys = lambda: {p.stem: pickle.loads(p.read_bytes())[1] for p in (models / "_crossbook").iterdir()}
    kept_keys = crossbook_keys()
    assert set(kept_keys) == {"glossary", "xindex", "backlinks", "unit_books", "glossary_pages", "xindex_pages",
                              "slugs", "glossary_front", "xindex_front"}
    unit_books = lambda: pickle.loads((models / "_crossbook" / "unit_books.pickle").read_bytes())[2]
    books_before = unit_books()
    # each page that shows rules depends on one fingerprint file (not one per rule it shows)
    deps = doctrees / "rules_dsl-deps"
    assert sorted(p.name for p in deps.iterdir()) == ["doc", "manifest.json"]
    assert (deps / "doc" / "docs/books/demo/basics.fp").is_file()
    env = pickle.loads((doctrees / "environment.pickle").read_bytes())
    fps = [d for d in env.dependencies["docs/books/demo/basics"] if str(d).endswith(".fp")]
    assert [str(d) for d in fps] == [str(deps / "doc" / "docs/books/demo/basics.fp")], fps
    again = build(project, out, books, cache)
    _ok(again)
    assert "0 added, 0 changed, 0 removed" in again.stdout
    # the open data: nothing to do when nothing changed
    assert "open data" not in again.stdout and {f.name: f.stat().st_mtime_ns for f in data.iterdir()} == stamps
    # nor for the general index, the search index, the inventory, the JavaScript and the models
    assert "genindex" not in again.stdout and "dumping search index" not in again.stdout, again.stdout
    assert "JavaScript in" not in again.stdout
    assert {name: (out / name).stat().st_mtime_ns for name in kept} == kept_stamps
    assert {f.name: f.stat().st_mtime_ns for f in models.iterdir()} == model_stamps
    src = books / "demo.rules"
    src.write_text(src.read_text().replace('"""Rolls."""', '"""Rolls, edited."""'))
    proc = build(project, out, books, cache)
    _ok(proc)
    # its page, and the glossary page whose keyword "dice" that rule (titled Dice) defines:
    # the glossary shows the rule's first sentence; so do the glossary's and the cross index's
    # fronts, as the meaning of "dice" (one of the few terms of D they show), and nothing else
    assert "0 added, 4 changed, 0 removed" in proc.stdout, proc.stdout
    reread = set(re.findall(r"reading sources\.\.\. \[[ 0-9]+%\] (\S+)", proc.stdout))
    assert reread == {"docs/books/demo/basics", "docs/books/_glossary/d", "docs/glossary", "docs/cross-index"}, \
        proc.stdout
    for name in ("docs/books/demo/basics", "docs/books/_glossary/d", "docs/glossary", "docs/cross-index"):
        assert "Rolls, edited." in page(out, name), name
    # the xss page links to demo:dice-rolls: not written again (its link shows the title and
    # book only); demo's previews file takes the new text, xss's is left alone
    assert "Rolls, edited." not in html.unescape(page(out, "docs/books/xss/esc"))
    assert (out / "docs/books/xss/esc.html").stat().st_mtime_ns == kept_stamps["docs/books/xss/esc.html"]
    assert "Rolls, edited." in (out / "_static" / "rules-previews" / "demo.js").read_text(encoding="utf-8")
    assert (out / "_static/rules-previews/xss.js").stat().st_mtime_ns == kept_stamps["_static/rules-previews/xss.js"]
    # only the files whose bytes change are written again (xss.json names demo's rule by its label)
    assert "Rolls, edited." in (data / "demo.json").read_text(encoding="utf-8")
    changed = {f.name for f in data.iterdir() if f.stat().st_mtime_ns != stamps[f.name]}
    assert changed == {"demo.json", "index.json"}, changed
    # only the edited book's model is written again; a prose edit leaves its JavaScript, the
    # general index and the inventory alone; the search index takes the pages read again
    rewritten = {f.name for f in models.iterdir() if f.is_file() and f.stat().st_mtime_ns != model_stamps.get(f.name)}
    assert rewritten == {"demo.head.pickle", "demo.pickle"}, rewritten
    # of the pages across books, only the glossary (which shows the first sentence) is made again
    now_keys = crossbook_keys()
    assert sorted(k for k in kept_keys if now_keys[k] != kept_keys[k]) == [
        "glossary", "glossary_front", "glossary_pages", "slugs", "unit_books", "xindex_front"]
    # the units of the unchanged book were taken as they were, the edited book's made again
    books_now = unit_books()
    assert books_now["xss"] == books_before["xss"] and books_now["demo"][0] != books_before["demo"][0]
    assert "JavaScript in" not in proc.stdout and "genindex" not in proc.stdout, proc.stdout
    for name in ("genindex.html", "genindex-D.html", "objects.inv", "_static/js/demo.mjs", "search.html"):
        assert (out / name).stat().st_mtime_ns == kept_stamps[name], name
    assert "dumping search index" in proc.stdout
    # the rule search's shard of the book takes the edit (its files are skipped only when nothing changed)
    assert "Rolls, edited." in (out / "_static" / "rules-search" / "demo.js").read_text(encoding="utf-8")


def test_a_page_linking_to_a_rule_is_written_again_when_the_rule_is_retitled(tmp_path):
    """A link shows its target's title and book (its preview's text is loaded from the
    book's previews file): retitling the target writes the pages linking to it again."""
    project = make_project(tmp_path / "project")
    books = _books(tmp_path, {"xss": XSS_BOOK})
    out, cache = tmp_path / "out", tmp_path / "cache"
    _ok(build(project, out, books, cache))
    link = r'href="\.\./demo/basics\.html#demo:dice-rolls" title="([^"]*)"'
    assert re.search(link, page(out, "docs/books/xss/esc")).group(1) == "Dice — Demo"
    src = books / "demo.rules"
    # (an EM SPACE in a title becomes a space: the script reads one as an older page's
    # "title EM SPACE text")
    src.write_text(src.read_text().replace('rule dice-rolls "Dice" {', 'rule dice-rolls "Dice\u2003Rolls" {'))
    proc = build(project, out, books, cache)
    _ok(proc)
    assert "docs/books/xss/esc" in _written(proc), proc.stdout
    assert re.search(link, page(out, "docs/books/xss/esc")).group(1) == "Dice Rolls — Demo"


def _search_index(out: Path) -> dict:
    import json
    text = (out / "searchindex.js").read_text(encoding="utf-8")
    return json.loads(text[text.index("(") + 1:text.rindex(")")])


def test_sphinx_search_index_leaves_rule_text_to_the_rule_search(tmp_path):
    """Sphinx's index holds a rule's title and index entries, not its text (the rule
    search has it); so editing a rule's prose neither loads nor dumps it, and editing a
    section's introduction feeds that page alone, the other pages kept as they were."""
    project = make_project(tmp_path / "project")
    books = _books(tmp_path, {"xss": XSS_BOOK})
    src = books / "demo.rules"
    src.write_text(src.read_text().replace('"""Prose [[dice-rolls]] here."""',
                                           '"""Prose [[dice-rolls]] here, zanzibarite."""'))
    out, cache = tmp_path / "out", tmp_path / "cache"
    _ok(build(project, out, books, cache))

    def has(index, field, word):      # terms are stemmed
        return any(t.startswith(word) for t in index[field])
    index = _search_index(out)
    assert "docs/books/demo/basics" in index["docnames"]
    assert has(index, "titleterms", "oppos") and has(index, "terms", "intro")   # a title, a section's intro
    assert not has(index, "terms", "zanzibar")                                  # a rule's own text
    assert "zanzibarite" in (out / "_static" / "rules-search" / "demo.js").read_text(encoding="utf-8")
    # a rule's index entries are the rule search's (names file) and the general index's
    assert not any(entry.startswith("opposed stat rolls") for entry in index["indexentries"])   # lowercased
    assert "Opposed Stat Rolls (Demo)" in page(out, "genindex-O")
    assert any(o[-1] == "demo:opposed-stat-rolls" for objs in index["objects"].values() for o in objs)
    before = (out / "searchindex.js").stat().st_mtime_ns
    src.write_text(src.read_text().replace("here, zanzibarite.", "here, zanzibarite and quokkas."))
    proc = build(project, out, books, cache)
    _ok(proc)
    assert "quokkas" in page(out, "docs/books/demo/basics")
    assert "quokkas" in (out / "_static" / "rules-search" / "demo.js").read_text(encoding="utf-8")
    assert "dumping search index" not in proc.stdout, proc.stdout
    assert (out / "searchindex.js").stat().st_mtime_ns == before
    # a section's introduction is the page's own text: fed again, and nothing else lost
    src.write_text(src.read_text().replace('"""Intro prose."""', '"""Intro prose, quixotical."""'))
    proc = build(project, out, books, cache)
    _ok(proc)
    assert "dumping search index" in proc.stdout, proc.stdout
    again = _search_index(out)
    assert has(again, "terms", "quixot") and not has(again, "terms", "quokka")
    assert again["docnames"] == index["docnames"] and again["titles"] == index["titles"]
    assert again["alltitles"] == index["alltitles"] and again["objects"] == index["objects"]
    assert set(index["terms"]) <= set(again["terms"])       # every other page's words are still there
    # the same index as a build from nothing gives
    fresh = tmp_path / "fresh"
    _ok(build(project, fresh, books, tmp_path / "cache2"))
    assert _search_index(fresh) == again


TOC_BOOK = textwrap.dedent('''\
    book toc {
        title "Toc"
        dice d6
    }
    section one "One" {
        rule alpha "Alpha" {
            """Alpha text."""
        }
    }
    section two "Two" {
        rule beta "Beta" {
            """Beta text."""
        }
    }
    ''')


def _written(proc) -> set:
    return set(re.findall(r"writing output\.\.\. \[[ 0-9]+%\] (\S+)", proc.stdout))


def test_a_toctree_page_is_written_again_only_when_a_page_it_lists_changed_its_contents(tmp_path):
    """Sphinx writes every toctree parent of a page it writes; the book's front page lists
    its sections' pages with their rules' titles, so it is written again when a rule is
    retitled, not when a rule's prose changes."""
    project = make_project(tmp_path / "project")
    books = _books(tmp_path, {"toc": TOC_BOOK})
    out, cache = tmp_path / "out", tmp_path / "cache"
    _ok(build(project, out, books, cache))
    assert "Alpha" in page(out, "docs/books/toc/index")
    src = books / "toc.rules"
    src.write_text(src.read_text().replace("Alpha text.", "Alpha text, edited."))
    proc = build(project, out, books, cache)
    _ok(proc)
    assert "docs/books/toc/one" in _written(proc) and "docs/books/toc/index" not in _written(proc), proc.stdout
    assert "Alpha text, edited." in page(out, "docs/books/toc/one")
    src.write_text(src.read_text().replace('"Alpha"', '"Alpha Prime"'))
    proc = build(project, out, books, cache)
    _ok(proc)
    assert {"docs/books/toc/one", "docs/books/toc/index"} <= _written(proc), proc.stdout
    assert "Alpha Prime" in page(out, "docs/books/toc/index")


def test_searchable_doctree_is_put_back_whole():
    from docutils import nodes
    from sphinx import addnodes
    from rules_dsl.sphinxext.fulltext import searchable
    doc = nodes.document(None, None)
    rule = nodes.section(classes=["rules-rule"])
    rule += nodes.title("T", "T")
    rule += addnodes.index(entries=[("single", "T", "a:t", "", None)])
    rule += nodes.paragraph("ref", "ref", classes=["rules-meta"])
    doc += addnodes.index(entries=[("single", "Intro", "intro", "", None)])
    rule += nodes.container("", nodes.paragraph("secret words", "secret words"), classes=["rules-rule-text"])
    rule += nodes.paragraph("links", "links", classes=["rules-meta", "rules-links"])
    doc += nodes.paragraph("intro", "intro")
    doc += rule
    whole = doc.pformat()
    with searchable(doc) as d:
        text = d.astext()
        assert "secret" not in text and "links" not in text and "ref" in text and "intro" in text
        assert [n["entries"][0][1] for n in d.findall(addnodes.index)] == ["Intro"]   # not the rule's
    assert doc.pformat() == whole
    try:
        with searchable(doc):
            raise KeyError("boom")
    except KeyError:
        pass
    assert doc.pformat() == whole


def test_parallel_read_builds_the_same_site(tmp_path, tiny):
    project = make_project(tmp_path / "project")
    books = _books(tmp_path, {"xss": XSS_BOOK})
    out = tmp_path / "out"
    # rules_serial_below=0: read and write in parallel however few the pages
    _ok(build(project, out, books, tmp_path / "cache", "-j", "2", "-D", "rules_serial_below=0"))
    strip = lambda s: re.sub(r'(\?v=[0-9a-f]+|<script[^>]*documentation_options[^>]*>)', "", s)
    for doc in ("docs/books/demo/basics", "docs/books/xss/esc", "docs/glossary", "docs/cross-index",
                "docs/books/_glossary/c", "docs/books/_cross-index/d"):
        a, b = page(tiny, doc), page(out, doc)
        assert strip(a) == strip(b), doc
    # a small rebuild with -j reads and writes its few pages in one process (smallbuild):
    # the edit lands, and the pages it does not touch are those of the parallel build
    src = books / "xss.rules"
    src.write_text(src.read_text(encoding="utf-8").replace("Section prose", "Section prose, edited,"), encoding="utf-8")
    proc = build(project, out, books, tmp_path / "cache", "-j", "2")
    _ok(proc)
    assert "Section prose, edited," in page(out, "docs/books/xss/esc")
    assert strip(page(tiny, "docs/books/demo/basics")) == strip(page(out, "docs/books/demo/basics"))
    assert not re.search(r"(reading sources|writing output)\.\.\. \[[ 0-9]+%\] \S+ \.\. ", proc.stdout), proc.stdout


def test_a_small_rebuild_runs_serially_and_puts_the_parallel_setting_back():
    from types import SimpleNamespace
    from rules_dsl.sphinxext import smallbuild
    app = SimpleNamespace(parallel=2, config=SimpleNamespace(rules_serial_below=3))
    smallbuild.before_read(app, None, ["a", "b"])
    assert app.parallel == 1
    smallbuild.after_read(app, None)
    assert app.parallel == 2
    smallbuild.before_read(app, None, ["a", "b", "c"])      # enough pages: parallel as asked
    assert app.parallel == 2
    smallbuild.after_read(app, None)
    assert app.parallel == 2
    seen = []
    builder = SimpleNamespace(parallel_ok=True)
    builder.write_documents = lambda docs: seen.append((sorted(docs), builder.parallel_ok))
    app.builder = builder
    smallbuild.install(app)
    builder.write_documents({"a"})
    builder.write_documents({"a", "b", "c"})
    assert seen == [(["a"], False), (["a", "b", "c"], True)] and builder.parallel_ok


@pytest.fixture(scope="module")
def real_site(tmp_path_factory):
    """The whole site from rulebooks/, with the documented command (-W -n): (output folder, book ids)."""
    from rules_dsl.library.loader import book_ids
    import os
    real_books = Path(os.environ.get("RULES_DSL_BOOKS") or REPO / "rulebooks")
    ids = book_ids()
    if not ids:
        pytest.skip("no books in rulebooks/")
    tmp_path = tmp_path_factory.mktemp("real")
    project = make_project(tmp_path / "project")
    from rules_dsl.library.loader import cache_dir
    out = tmp_path / "out"
    # rules_nav_check: furo's own pass is run on every page too, and must give the same sidebar
    proc = build(project, out, real_books, Path(cache_dir()), "-D", "rules_nav_check=1", timeout=900)
    _ok(proc)
    return out, ids


def test_real_site_builds(real_site):
    out, ids = real_site
    home = page(out, "docs/index")
    refs = 0
    from urllib.parse import quote
    for bid in ids:      # Sphinx quotes a page's path in a link: a layered book's `+` is %2B there
        assert f'href="books/{quote(bid)}/index.html#{bid}"' in home
        index = page(out, f"docs/books/{bid}/index")
        assert f'id="{bid}"' in index
        for path in (out / "docs" / "books" / bid).glob("*.html"):
            text = path.read_text(encoding="utf-8")
            refs += text.count("rules-ref")
            assert "<script>alert" not in text
    assert refs > 0, "no cross-reference links at all"
    # the open data: every book's JSON beside the pages (validated in test_export.py)
    import json
    index = json.loads((out / "data" / "index.json").read_text(encoding="utf-8"))
    assert [b["id"] for b in index["books"]] == ids
    assert all((out / "data" / b["file"]).stat().st_size == b["bytes"] for b in index["books"])
    if _odds_available():
        assert any("rules-odds" in p.read_text(encoding="utf-8") for p in (out / "docs" / "books").rglob("*.html"))


#: the most one page of the site may weigh: what a phone should load (issue 12)
PAGE_BYTES = 500_000


def test_no_page_over_budget_and_every_rule_on_exactly_one_page(real_site):
    """A section too big for a phone is split (pagesplit.py): no HTML page of the real
    books passes 500 KB, and every rule's anchor `book:rule` is on exactly one page."""
    from collections import Counter

    from rules_dsl import load
    out, ids = real_site
    sizes = {p.relative_to(out).as_posix(): p.stat().st_size for p in out.rglob("*.html")}
    over = {p: n for p, n in sizes.items() if n > PAGE_BYTES}
    assert not over, over
    anchors = Counter()
    for path in (out / "docs" / "books").rglob("*.html"):
        anchors.update(re.findall(r'<section class="rules-rule" id="([^"]+)"', path.read_text(encoding="utf-8")))
    wanted = Counter(f"{bid}:{r.id}" for bid in ids for r in load(bid).rules)
    assert anchors == wanted, {k: anchors[k] for k in set(anchors) | set(wanted) if anchors[k] != wanted[k]}
    # the biggest section of the real books is split, and its pages link to each other
    parts = sorted((out / "docs" / "books" / "void" / "special-rules").glob("part-*.html"))
    assert parts, "void's special rules fit one page: the budget test proves nothing"
    first = (out / "docs" / "books" / "void" / "special-rules.html").read_text(encoding="utf-8")
    assert 'id="void:special-rules"' in first and 'href="special-rules/part-2.html"' in first
    assert 'id="void:special-rules"' not in parts[0].read_text(encoding="utf-8")


def test_show_working_under_each_example_line(tiny):
    """Each `>>>` line of a worked example is a sentence in words with a "show working"
    fold under it: a worked solution in words (rule titles, notes), a paragraph a step,
    then the `>>>` line itself, escaped like all book text."""
    xss = page(tiny, "docs/books/xss/esc")
    tricks = xss[xss.index('id="xss:dice-tricks"'):]
    fold = tricks[tricks.index('<details class="rules-working">'):]
    fold = html.unescape(fold[:fold.index("</details>")])
    assert "<summary>show working</summary>" in fold
    steps = re.findall(r'<p class="rules-work rules-work-(\w+) rules-depth-(\d)">([^<]*)</p>', fold)
    assert ("call", "0", "Two dice (Dice Tricks)") in steps
    assert ("roll", "1", "A (a d6): 3, given.") in steps and ("answer", "1", "Two dice: 7.") in steps
    assert "two_dice(a=3, b=4)" in re.sub(r"<[^>]+>", "", fold)        # the `>>>` line, for designers
    # the sentence comes first, then the fold
    sentence = tricks.index('class="rules-example-sentence"')
    assert sentence < tricks.index('<details class="rules-working">')
    assert "Two dice, with a 3, b 4: 7." in tricks
    evil = xss[xss.index('id="xss:evil"'):xss.index('id="xss:dice-tricks"')]
    assert '<details class="rules-working">' in evil
    assert "Look up labels" in evil and "&lt;script&gt;alert(4)" in evil
    demo = page(tiny, "docs/books/demo/basics")
    assert demo.count('<details class="rules-working">') >= 2


def test_adding_a_section_updates_every_pages_navigation(tmp_path):
    """A new section is a new page: every other page's navigation (the sidebar's
    table of contents) must list it after an incremental build, not only its own."""
    project = make_project(tmp_path / "project")
    books = _books(tmp_path, {"xss": XSS_BOOK})
    out, cache = tmp_path / "out", tmp_path / "cache"
    _ok(build(project, out, books, cache))
    assert "Freshly Added Section" not in page(out, "docs/books/xss/esc")
    src = books / "demo.rules"
    src.write_text(src.read_text() + '\nsection fresh "Freshly Added Section" {\n'
                   '    rule fresh-rule "Fresh Rule" {\n        """New."""\n    }\n}\n')
    _ok(build(project, out, books, cache))
    assert "Freshly Added Section" in page(out, "docs/books/demo/fresh")
    assert "Freshly Added Section" in page(out, "docs/books/xss/esc")      # an unchanged page of another book
    assert "Freshly Added Section" in page(out, "docs/index")
    # the general index, the inventory and the search index take the new section and rule
    assert "Fresh Rule" in page(out, "genindex-F") and "Freshly Added Section" in page(out, "genindex")
    assert b"demo:fresh-rule" in zlib.decompress((out / "objects.inv").read_bytes().split(b"\n", 4)[4])
    assert "Freshly Added Section" in (out / "searchindex.js").read_text(encoding="utf-8")
    assert "Freshly Added Section" in page(out, "search")       # its sidebar: written again


def test_mechanics_ship_as_javascript_with_a_place_for_their_form(tiny):
    """_static/js/: the runtime, one module per book the JS back end accepts and books.mjs
    listing them, the exact-odds engine (odds.mjs) and each book's odds plans (<book>.odds.mjs);
    every mechanic on a page has its form's place, naming its book and itself."""
    import json
    js = tiny / "_static" / "js"
    assert (js / "runtime.mjs").is_file() and (tiny / "_static" / "rules_try.mjs").is_file()
    shipped = json.loads((js / "books.mjs").read_text(encoding="utf-8").split("export default ", 1)[1].rstrip(";\n"))
    assert "demo" in shipped
    assert sorted(p.name for p in js.glob("*.mjs")) == sorted(["runtime.mjs", "books.mjs", "odds.mjs",
                                                               *(f"{b}.mjs" for b in shipped), *(f"{b}.odds.mjs" for b in shipped)])
    assert (js / "odds.mjs").read_text(encoding="utf-8").startswith("// rules-dsl exact odds in JavaScript")
    assert (js / "demo.mjs").read_text(encoding="utf-8").startswith("// Generated by rules_dsl.jsgen")
    demo = page(tiny, "docs/books/demo/basics")
    assert '<div class="rules-try" data-book="demo" data-mechanic="needed"></div>' in demo
    for p in (tiny / "docs" / "books").rglob("*.html"):
        text = p.read_text(encoding="utf-8")
        assert text.count('<dl class="rules mechanic') == text.count('<div class="rules-try" '), p
    # the form's script is not on the page: rules_dsl.js loads it only when a form is needed
    assert "rules_try.mjs" not in demo


def test_a_long_letter_of_the_general_index_gets_several_pages(tmp_path):
    from rules_dsl.sphinxext.finish import split_letters
    link = [(False, "x.html#a")]
    entries = [(f"D{i}", (link, [(f"sub{j}", link) for j in range(i % 3)], None)) for i in range(10)]
    pages = split_letters([("A", entries[:1]), ("D", entries)], budget=4)
    assert [k for k, _ in pages] == ["A", "D", "D-2", "D-3", "D-4", "D-5", "D-6"]   # links 3, 4, 2, 4, 2, 4
    assert [e for k, part in pages if k.startswith("D") for e in part] == entries     # all, in order, once
    assert all(sum(1 + len(e[1][1]) for e in part) <= 4 for _, part in pages)
    # a term every book has is one line with a link per book: it weighs its links
    shared = [("Suppression", (link * 3, [], None)), ("Sprint", (link, [], None))]
    assert [k for k, _ in split_letters([("S", shared)], budget=3)] == ["S", "S-2"]

    project = make_project(tmp_path / "project")
    books = _books(tmp_path, {"xss": XSS_BOOK})
    out, cache = tmp_path / "out", tmp_path / "cache"
    # (and the game picker past one book a page: a page per first letter of the titles)
    _ok(build(project, out, books, cache, "-D", "rules_index_lines=3", "-D", "rules_games_per_page=1"))
    extra = sorted(p.name for p in out.glob("genindex-*-*.html"))
    assert extra, sorted(p.name for p in out.glob("genindex-*.html"))
    overview = page(out, "genindex")
    for name in extra:
        assert f'href="{name}"' in overview, name          # each page is reached from the letters
    games = sorted(p.stem for p in (out / "docs/books/_games").glob("*.html"))
    assert games == ["d", "e"], games                       # Demo; Escaping <b>test</b>
    home = page(out, "docs/index")
    assert '<li class="rules-game">' not in home and 'href="books/_games/d.html"' in home
    assert "(1: Demo)" in home
    assert page(out, "docs/books/_games/d").count('<li class="rules-game">') == 1
    _ok(build(project, out, books, cache))                 # the default budget: one page a letter again
    assert not list(out.glob("genindex-*-*.html"))
    assert not list((out / "docs/books/_games").glob("*.html"))    # and every game on the home page
    assert page(out, "docs/index").count('<li class="rules-game">') == 2


def test_a_keyword_or_term_bigger_than_a_page_is_cut_by_books(tmp_path):
    # with one link a page, a glossary keyword that two books carry and the cross-index term
    # "Dice" (a demo title, an xss keyword) are each cut into a part per book
    project = make_project(tmp_path / "project")
    books = _books(tmp_path, {"xss": XSS_BOOK})
    out, cache = tmp_path / "out", tmp_path / "cache"
    _ok(build(project, out, books, cache, "-D", "rules_links_per_page=1"))
    gloss = {p.stem: p.read_text(encoding="utf-8") for p in (out / "docs/books/_glossary").glob("*.html")}
    cut = {m.group(1) for v in gloss.values() for m in re.finditer(r'<dt[^>]*>([^<]+)<span class="rules-part"> '
                                                                    r'\(part 2 of', v)}
    assert cut, sorted(gloss)
    for kw in cut:
        terms = re.findall(rf'<dt( id="[^"]*")?>{re.escape(kw)}<span class="rules-part"> \(part (\d) of', "".join(gloss.values()))
        assert sorted(p for _, p in terms) == [str(i + 1) for i in range(len(terms))]
        assert [a for a, p in terms if a] == [f' id="term-{kw}"']          # the keyword's one anchor, unchanged
    xi = {p.stem: p.read_text(encoding="utf-8") for p in (out / "docs/books/_cross-index").glob("*.html")}
    parts = {k: v for k, v in xi.items() if re.search(r"<strong>Dice \(part \d of 2\)", v)}
    assert sorted(parts) == ["d", "d-2"], sorted(xi)
    assert 'id="xindex-dice"' in parts["d"] and 'id="xindex-dice-2"' in parts["d-2"]
    assert "Across the books: D, page 2" in parts["d-2"]       # the continuing page says so
    _ok(build(project, out, books, cache))                     # the default budget: nothing is cut
    assert not (out / "docs/books/_cross-index/d-2.html").exists()     # a page that is gone is not served
    assert (out / "docs/books/xss/index.html").exists()
    (books / "xss.rules").unlink()                             # a book taken out of the library: its pages go
    _ok(build(project, out, books, cache))
    assert not (out / "docs/books/xss").exists() or not list((out / "docs/books/xss").rglob("*.html"))


def test_changing_words_rebuilds_what_shows_them_as_a_clean_build_does(tmp_path):
    """Display forms are part of what a page, a book's JavaScript module, its exact odds and its
    open data show: renaming a member (`called "..."`) or phrasing a mechanic makes the rebuild
    write them again, byte for byte what a clean build of the edited books writes."""
    project = make_project(tmp_path / "project")
    books = _books(tmp_path, {"xss": XSS_BOOK})
    out, cache = tmp_path / "out", tmp_path / "cache"
    _ok(build(project, out, books, cache))
    before = page(out, "docs/books/demo/basics")
    assert "out of action" in html.unescape(before)
    src = books / "demo.rules"
    text = src.read_text()
    edited = text.replace("enum outcome { ignored, pinned, out_of_action }",
                          'enum outcome { ignored, pinned called "Pinned down", out_of_action called "Out of the fight" }')
    edited = edited.replace("    mechanic sustained(n: 1..30) -> int {",
                            '    mechanic sustained(n called "attack dice": 1..30) -> int\n'
                            '      question "How many hits does a sustained attack score?"\n      answer "{result} hits"\n    {')
    assert edited.count("called") == 3
    src.write_text(edited)
    proc = build(project, out, books, cache)
    _ok(proc)
    after = html.unescape(page(out, "docs/books/demo/basics"))
    assert "Out of the fight" in after and "How many hits does a sustained attack score?" in after
    assert "Attack dice" in after                         # the odds table's inputs, in the new words
    module = (out / "_static" / "js" / "demo.mjs").read_text(encoding="utf-8")
    assert "Out of the fight" in module and "{result} hits" in module
    # a clean build of the edited books: the same bytes
    clean = tmp_path / "clean"
    _ok(build(project, clean, books, tmp_path / "cache-clean"))
    for rel in ("docs/books/demo/basics.html", "_static/js/demo.mjs", "data/demo.json", "_static/rules-previews/demo.js"):
        assert (out / rel).read_bytes() == (clean / rel).read_bytes(), rel


def test_the_front_door(tiny):
    """The home page picks a game (a card per book: what it is, its dice, where to start);
    a book's page opens with its quick reference; the glossary's and cross index's fronts
    say what their terms mean; the cross index is a list, not a table; every page has the
    print stylesheet, and only the front door's pages load the front door's."""
    home = page(tiny, "docs/index")
    cards = re.findall(r'<li class="rules-game">(.*?)</li>', home, re.S)
    assert len(cards) == 2, cards
    demo = next(c for c in cards if 'href="books/demo/index.html#demo"' in c)
    assert "Six-sided dice (d6); ten-sided dice (d10); Dust dice: six faces, two each of army, target and shield" in demo
    assert 'href="books/demo/basics.html#demo:basics"' in demo          # start with its first section
    xss = next(c for c in cards if "xss" in c)
    assert "Escaping &lt;b&gt;test&lt;/b&gt;" in xss and "<b>test" not in xss
    assert "rules resolvers" not in home.lower() and "rules lookup" not in home     # developer talk moved out
    assert 'href="developers.html"' in home
    book = page(tiny, "docs/books/demo/index")
    assert '<section class="rules-quickref" id="quick-reference">' in book
    assert 'class="rules-print"' in book
    glossary = page(tiny, "docs/glossary")
    assert 'class="rules-front-letter' in glossary and "rules-front-usage" in glossary
    assert "toctree-l1" not in glossary.split('id="furo-main-content"')[1]      # no bare list of letter pages
    xindex = page(tiny, "docs/books/_cross-index/d")
    body = xindex.split('id="furo-main-content"')[1]
    assert re.search(r'<dl class="[^"]*rules-xindex', body) and "<table" not in body
    for name in ("docs/index", "docs/books/demo/index", "docs/glossary", "docs/cross-index", "docs/books/demo/basics"):
        text = page(tiny, name)
        assert re.search(r'<link media="print" rel="stylesheet"[^>]*rules_print\.css', text), name
        assert ("rules_front.css" in text) == (name != "docs/books/demo/basics"), name
    # the search box and the copy-link buttons are in the page (nothing moves when the scripts run)
    basics = page(tiny, "docs/books/demo/basics")
    assert '<div id="rules-search" class="rules-search"' in basics and 'action="../../../search.html"' in basics
    assert '<button type="button" class="rules-copylink" data-anchor="demo:dice-rolls"' in basics
    evil = page(tiny, "docs/books/xss/esc")
    assert 'aria-label="Copy link to the rule Evil &lt;script&gt;alert(1)&lt;/script&gt; (xss:evil)"' in evil


def test_a_rebuild_after_editing_a_front_door_equals_a_clean_build(tmp_path):
    """The book's page, its card on the home page and its link's preview follow an edit of its
    header's front door; the site rebuilt after the edit is the site built clean from it."""
    project = make_project(tmp_path / "project")
    books = _books(tmp_path, {"xss": XSS_BOOK})
    out, cache = tmp_path / "out", tmp_path / "cache"
    _ok(build(project, out, books, cache))
    src = books / "demo.rules"
    # one line for the whole front door: the rest of the file keeps its line numbers (a worked
    # example's working shows them, so its page would be written again for that alone)
    src.write_text(src.read_text().replace('  die dust { army: 2, target: 2, shield: 2 }\n', (
        '  die dust { army: 2, target: 2, shield: 2 } '
        'about "A demonstration game: roll [[dice-rolls|the dice]] and read the chart." start dice-rolls '
        'quick reference { dice "Ten-sided dice for defence, Dust dice for everything else." '
        'turn """- Take turns: see [[opposed-stat-rolls]].""" tables chart rules opposed-stat-rolls, dice-rolls }\n'), 1))
    proc = build(project, out, books, cache)
    _ok(proc)
    written = _written(proc)
    assert written == {"docs/index", "docs/books/demo/index"}, proc.stdout
    home, book = page(out, "docs/index"), page(out, "docs/books/demo/index")
    assert "A demonstration game: roll" in home and "Ten-sided dice for defence" in home
    assert 'href="books/demo/basics.html#demo:dice-rolls"' in home          # where to start
    assert "Take turns: see" in book and re.search(r'<ol class="[^"]*rules-quickref-steps', book)
    assert "A demonstration game" in (out / "_static/rules-previews/demo.js").read_text(encoding="utf-8")
    clean = tmp_path / "clean"
    _ok(build(make_project(tmp_path / "clean-project"), clean, books, tmp_path / "clean-cache"))
    mine = {p.relative_to(out).as_posix(): p for p in out.rglob("*") if p.is_file()}
    theirs = {p.relative_to(clean).as_posix(): p for p in clean.rglob("*") if p.is_file()}
    assert sorted(mine) == sorted(theirs)
    differ = [name for name in mine if mine[name].read_bytes() != theirs[name].read_bytes()]
    assert not differ, differ
