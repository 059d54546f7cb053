"""Every use the site makes of Sphinx's and furo's internals still works (issue 32).

rules_dsl/sphinxext/compat.py holds them all, one entry each.  Here, for each entry: the
internal it relies on is still there with the shape it expects (a method's parameters,
an indexer's fields, furo's lookup of its tree function, furo's markup that furo_nav.py
patches), what it replaces is still called during a real small build, and when the
internal is gone the entry says so loudly and takes Sphinx's own path.  Then a scan of
the package's code: no other module of rules_dsl/sphinxext replaces a method, writes an
attribute of Sphinx's objects, reads a private one or keeps state in the app's __dict__.

Every failure names the compat entry and the Sphinx and furo versions, so that
``bash scripts/test-newest.sh tests/test_sphinx_compat.py`` says what a new release broke.
"""
from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import pytest

from rules_dsl.sphinxext import compat

HERE = Path(__file__).resolve().parent
SPHINXEXT = HERE.parent / "rules_dsl" / "sphinxext"
sys.path.insert(0, str(HERE))


def _say(entry: str, what: str) -> str:
    return f"compat.{entry}: {what} ({compat.versions()}); update rules_dsl/sphinxext/compat.py"


# ------------------------------------------------------------------ a tiny furo project, in process
@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A built three-page furo project (no rules_dsl): (app, output folder)."""
    from sphinx.application import Sphinx
    root = tmp_path_factory.mktemp("tiny")
    src = root / "src"
    src.mkdir()
    (src / "conf.py").write_text('project = "tiny"\nhtml_theme = "furo"\n', encoding="utf-8")
    (src / "index.rst").write_text("Tiny\n====\n\nThe word alpha.\n\n.. index:: alpha\n\n"
                                   ".. toctree::\n\n   one\n   two\n", encoding="utf-8")
    (src / "one.rst").write_text("One\n===\n\nThe word beta.\n\n.. toctree::\n\n   three\n", encoding="utf-8")
    (src / "two.rst").write_text("Two\n===\n\nThe word gamma.\n", encoding="utf-8")
    (src / "three.rst").write_text("Three\n=====\n\nThe word delta.\n\nPart\n----\n\nMore.\n", encoding="utf-8")
    app = Sphinx(str(src), str(src), str(root / "out"), str(root / "doctrees"), "html", status=None,
                 warning=None, freshenv=True)
    app.build()
    return app, root / "out"


def test_the_builder_methods_compat_replaces_have_the_expected_parameters(tiny):
    app, _out = tiny
    for method in compat.BUILDER_METHODS:
        wrong = compat.method_shape(app.builder, method)
        entry = {"write": "wrap_write", "write_documents": "wrap_write_documents"}.get(method, f"wrap_{method}")
        if method in ("load_indexer", "index_page", "dump_search_index"):
            entry = "wrap_search_indexing"
        assert wrong is None, _say(entry, wrong)


def test_the_builder_still_has_parallel_ok_and_the_app_its_parallel(tiny):
    app, _out = tiny
    assert isinstance(getattr(app.builder, "parallel_ok", None), bool), _say("wrap_write_documents",
                                                                             "builder.parallel_ok is gone")
    assert isinstance(getattr(app, "parallel", None), int), _say("read_serially", "app.parallel is gone")


def test_a_parallel_read_is_still_decided_by_app_parallel_after_env_before_read_docs():
    """read_serially lowers app.parallel at env-before-read-docs: Sphinx must read it after."""
    import inspect

    from sphinx.builders import Builder
    import re
    source = inspect.getsource(Builder.read)
    at = source.find("env-before-read-docs")
    # Sphinx 8 reads `self.app.parallel`, Sphinx 9 `self._app.parallel`: the same app
    assert at >= 0 and re.search(r"\bself\._?app\.parallel\b", source[at:]), _say(
        "read_serially", "Builder.read no longer decides a parallel read by app.parallel after env-before-read-docs")


def test_write_still_adds_the_toctree_parents_from_env_files_to_rebuild(tiny):
    import inspect

    from sphinx.builders import Builder
    app, _out = tiny
    assert isinstance(app.env.files_to_rebuild, dict), _say("toctree_parents_only", "env.files_to_rebuild is no dict")
    assert app.env.files_to_rebuild.get("three") == {"one"}, _say(
        "toctree_parents_only", f"env.files_to_rebuild holds {app.env.files_to_rebuild!r}")
    assert "files_to_rebuild" in inspect.getsource(Builder.write), _say(
        "wrap_write", "Builder.write no longer reads env.files_to_rebuild")


def test_the_search_indexer_has_the_fields_compat_reads(tiny):
    app, _out = tiny
    indexer = app.builder.indexer
    wrong = compat.indexer_shape(indexer)
    assert wrong is None, _say("SearchIndex", wrong)
    index = compat.SearchIndex(indexer)
    assert "three" in indexer._titles, _say("SearchIndex", "_titles is not keyed by page")
    store = index.collect_words(app.env.get_doctree("three"))
    assert hasattr(store, "words") and "delta" in store.words, _say("SearchIndex", "the word collector's store changed")
    index.forget("three")
    assert "three" not in indexer._titles and not any("three" in docs for docs in indexer._mapping.values()), \
        _say("SearchIndex.forget", "a page is still in the index")
    index.drop_empty_terms()
    assert "delta" not in indexer._mapping, _say("SearchIndex.drop_empty_terms", "a word of no page is kept")


def test_the_index_entries_of_pages_kept_are_read_back_on_load(tiny):
    """SearchIndex.entries_kept_on_load: Sphinx's load still leaves them out (issue #12599),
    and the index file still holds them where compat reads them."""
    app, out = tiny
    from sphinx.search import IndexBuilder
    indexer = IndexBuilder(app.env, app.config.html_search_language or app.config.language,
                           app.config.html_search_options, app.config.html_search_scorer)
    indexer._index_entries = {}           # as a rebuild finds it: the entries of the pages it writes only
    index = compat.SearchIndex(indexer)
    with open(out / app.builder.searchindex_filename, encoding="utf-8") as f, index.entries_kept_on_load():
        indexer.load(f, app.builder.indexer_format)
    entries = indexer._index_entries
    assert any(e[0] == "alpha" for e in entries.get("index", ())), _say(
        "SearchIndex.entries_kept_on_load", f"the index entries of kept pages are not read back: {entries!r}")


def test_virtual_doc_names_still_name_genindex_and_search():
    names = compat.virtual_doc_names()
    docs = {doc for doc, _title in names.values()}
    assert {"genindex", "search"} <= docs, _say("virtual_doc_names", f"StandardDomain._virtual_doc_names is {names!r}")


def test_the_general_index_adapter_still_groups_entries_by_letter(tiny):
    app, _out = tiny
    index = compat.general_index(app, app.builder)
    assert [key for key, _entries in index] == ["A"], _say("general_index", f"made {index!r}")


def test_build_info_still_has_the_configuration_digests(tiny):
    app, _out = tiny
    hashes = compat.build_info_hashes(app)
    assert all(isinstance(h, str) and h for h in hashes), _say("build_info_hashes", f"got {hashes!r}")


# ------------------------------------------------------------------ furo
@pytest.fixture
def furo_restored():
    import furo
    saved = furo.get_navigation_tree
    yield furo
    furo.get_navigation_tree = saved


def test_furo_still_makes_its_sidebar_through_the_function_compat_replaces(tmp_path, furo_restored):
    """compat.furo_navigation's replacement is what furo puts in every page's sidebar."""
    from sphinx.application import Sphinx
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        'project = "tiny"\nhtml_theme = "furo"\nextensions = ["marker_ext"]\n', encoding="utf-8")
    (src / "marker_ext.py").write_text(
        "from rules_dsl.sphinxext import compat\n"
        "def _install(app):\n"
        "    app.installed = compat.furo_navigation(app, lambda own: lambda html: own(html) + '<!--compat-tree-->')\n"
        "def setup(app):\n    app.connect('builder-inited', _install)\n", encoding="utf-8")
    (src / "index.rst").write_text("Tiny\n====\n\n.. toctree::\n\n   one\n", encoding="utf-8")
    (src / "one.rst").write_text("One\n===\n\nText.\n", encoding="utf-8")
    sys.path.insert(0, str(src))
    try:
        app = Sphinx(str(src), str(src), str(tmp_path / "out"), str(tmp_path / "d"), "html", status=None,
                     warning=None, freshenv=True)
        app.build()
    finally:
        sys.path.remove(str(src))
    assert app.installed, _say("furo_navigation", "furo no longer looks up get_navigation_tree")
    page = (tmp_path / "out" / "one.html").read_text(encoding="utf-8")
    assert "<!--compat-tree-->" in page, _say("furo_navigation", "furo's sidebar is not made by the replaced function")
    assert compat.calls(app).get("furo_navigation", 0) >= 2, _say("furo_navigation", "not called once a page")
    import furo
    assert not getattr(furo.get_navigation_tree, "_rules_dsl", False), "furo's own function is put back after the build"


def test_furo_markup_still_matches_what_furo_nav_patches(tiny):
    """furo_nav.navigation_tree makes a page's tree from the folder's neutral tree and puts
    the page's marks back by regex: furo's markup must still be what it expects (it would
    otherwise fall back to furo's own pass for every page: correct, silently slow)."""
    import furo

    from rules_dsl.sphinxext import furo_nav
    app, _out = tiny
    own = getattr(furo.get_navigation_tree, "furo_own", furo.get_navigation_tree)
    own = getattr(own, "__wrapped__", own)
    for page in ("three", "one", "two"):
        import inspect

        from sphinx.environment.adapters.toctree import global_toctree_for_doc
        tags = {"tags": app.tags} if "tags" in inspect.signature(global_toctree_for_doc).parameters else {}
        tree = global_toctree_for_doc(app.env, page, app.builder, collapse=False, titles_only=True, maxdepth=-1,
                                      includehidden=True, **tags)
        html = app.builder.render_partial(tree)["fragment"]
        assert 'class="current' in html
        asked = []

        def furo_tree(h, asked=asked):
            asked.append(h)
            return own(h)
        href = Path(app.builder.get_target_uri(page)).name
        ours = furo_nav.navigation_tree(html, href, furo_tree)
        assert ours == own(html), _say("furo_navigation", f"furo_nav's tree of {page} differs from furo's own")
        assert asked and all("current" not in h for h in asked), _say(
            "furo_navigation", f"furo's markup no longer matches furo_nav's regexes (page {page}: fell back to furo)")


# ------------------------------------------------------------------ a private API gone: loud, never stale
class _Builder:
    def write_documents(self, docnames, extra):          # a changed signature
        raise AssertionError("must not be wrapped")


class _App:
    def __init__(self):
        self.builder = _Builder()

    def connect(self, event, handler, priority=500):
        pass


def test_a_changed_method_is_left_to_sphinx_with_a_warning(monkeypatch):
    said = []
    monkeypatch.setattr(compat, "broken", lambda entry, what, fallback: said.append((entry, what)))
    app = _App()
    app.builder.parallel_ok = True
    original = app.builder.write_documents
    assert compat.wrap_write_documents(app, lambda orig: orig) is False
    assert app.builder.write_documents == original
    assert compat.wrap_write_genindex(app, lambda orig: orig) is False
    assert [e for e, _ in said] == ["wrap_write_documents", "wrap_write_genindex"]
    assert "takes ('docnames', 'extra')" in said[0][1] and "no method 'write_genindex'" in said[1][1]


def test_an_indexer_without_its_fields_is_fed_sphinx_s_way_with_a_warning(monkeypatch):
    said = []
    monkeypatch.setattr(compat, "broken", lambda entry, what, fallback: said.append((entry, what)))
    assert compat.SearchIndex(object()).usable() is False
    assert said and said[0][0] == "SearchIndex" and "_word_collector" in said[0][1]


def test_gone_virtual_doc_names_raise_a_clear_error(monkeypatch):
    from sphinx.domains.std import StandardDomain
    monkeypatch.delattr(StandardDomain, "_virtual_doc_names")
    with pytest.raises(compat.CompatError, match="virtual_doc_names: StandardDomain._virtual_doc_names"):
        compat.virtual_doc_names()


def test_a_furo_that_no_longer_looks_its_function_up_is_left_alone(monkeypatch, furo_restored):
    said = []
    monkeypatch.setattr(compat, "broken", lambda entry, what, fallback: said.append(entry))
    monkeypatch.setattr(furo_restored, "_compute_navigation_tree", lambda context: "")
    before = furo_restored.get_navigation_tree
    assert compat.furo_navigation(_App(), lambda own: own) is False
    assert furo_restored.get_navigation_tree is before and said == ["furo_navigation"]


def test_toctree_parents_only_narrows_and_puts_back():
    class Env:
        def __init__(self):
            self.files_to_rebuild = {"a": {"index"}, "b": {"index"}}
    env = Env()
    kept = env.files_to_rebuild
    with compat.toctree_parents_only(env, {"a"}):
        assert env.files_to_rebuild == {"a": {"index"}}
    assert env.files_to_rebuild is kept


# ------------------------------------------------------------------ only compat touches internals
#: names that stand for Sphinx's (or furo's) objects in the package's code
SPHINX_RECEIVERS = {"app", "builder", "env", "indexer", "furo", "config", "domain", "dom", "translator",
                    "self.builder", "self.app", "app.builder", "app.env", "app.config", "builder.env",
                    "self.builder.env", "self.builder.indexer", "app.builder.env"}
#: underscore attributes of objects that are not Sphinx's, each with why it is no internal of Sphinx
NOT_SPHINX = {
    ("directives.py", "parser._actions"): "argparse's parser (the CLI's help page), not Sphinx",
    ("directives.py", "argparse._SubParsersAction"): "argparse's, not Sphinx's",
}


def _dotted(node) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _offences(path: Path) -> list:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own = {"self", "cls"}
    out = []
    for node in ast.walk(tree):
        where = f"{path.name}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Attribute):
            name = node.attr
            receiver = _dotted(node.value)
            if name == "__dict__" and receiver is not None and receiver.split(".")[-1] in {"app", "builder", "env"}:
                out.append(f"{where}: {receiver}.__dict__ (state goes in buildstate.of(app))")
            elif (name.startswith("_") and not name.startswith("__") and receiver not in own
                  and (path.name, f"{receiver}.{name}") not in NOT_SPHINX):
                if receiver is None or not receiver.startswith(("self.", "cls.")) or receiver in SPHINX_RECEIVERS:
                    out.append(f"{where}: {receiver}.{name} (a private attribute)")
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Attribute) and _dotted(t.value) in SPHINX_RECEIVERS:
                    out.append(f"{where}: {_dotted(t)} = ... (an attribute of Sphinx's objects written)")
        if isinstance(node, ast.Delete):
            for t in node.targets:
                if isinstance(t, ast.Attribute) and _dotted(t.value) in SPHINX_RECEIVERS:
                    out.append(f"{where}: del {_dotted(t)}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr"):
            out.append(f"{where}: {node.func.id}(...) (a method or attribute replaced)")
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for m in mods:
                if m.startswith("furo") or any(p.startswith("_") for p in m.split(".")) and m.startswith("sphinx"):
                    out.append(f"{where}: import {m} (furo or a private module of Sphinx)")
                if m.startswith("sphinx.environment.adapters") or m.startswith("sphinx.search"):
                    out.append(f"{where}: import {m} (an undocumented module of Sphinx)")
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sphinx"):
            for a in node.names:
                if a.name.startswith("_"):
                    out.append(f"{where}: from {node.module} import {a.name}")
    return out


def test_only_compat_touches_sphinx_and_furo_internals():
    offences = []
    for path in sorted(SPHINXEXT.glob("*.py")):
        if path.name == "compat.py":
            continue
        offences += _offences(path)
    assert not offences, ("only rules_dsl/sphinxext/compat.py may use Sphinx's and furo's internals "
                          "(add an entry there, named, with its test here):\n" + "\n".join(offences))


def test_the_scan_finds_what_it_looks_for(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f(app, builder, indexer):\n"
                   "    builder.write = None\n"
                   "    app.__dict__['x'] = 1\n"
                   "    indexer._titles.pop('a')\n"
                   "    setattr(builder, 'index_page', None)\n"
                   "    import furo\n"
                   "    from sphinx.domains.std import StandardDomain\n"
                   "    return StandardDomain._virtual_doc_names\n", encoding="utf-8")
    found = "\n".join(_offences(bad))
    for what in ("builder.write = ...", "app.__dict__", "indexer._titles", "setattr", "import furo",
                 "StandardDomain._virtual_doc_names"):
        assert what in found, (what, found)
    assert _offences(SPHINXEXT / "compat.py"), "the scan finds compat's own uses (it is exempt, not blind)"


def test_every_compat_entry_has_a_docstring_naming_its_stand_in_and_what_breaks():
    entries = ["wrap_write", "toctree_parents_only", "wrap_write_documents", "read_serially", "wrap_write_genindex",
               "wrap_dump_inventory", "wrap_gen_additional_pages", "general_index", "build_info_hashes",
               "wrap_search_indexing", "SearchIndex", "virtual_doc_names", "furo_navigation", "fail_build"]
    for name in entries:
        doc = " ".join((getattr(compat, name).__doc__ or "").split())
        assert "stand-in" in doc and "Breaks when" in doc, f"compat.{name}: its docstring must say both"
        assert f"``{name}``" in compat.__doc__, f"compat.{name} is missing from the module's list"
    arch = (HERE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    for name in entries:
        assert f"`{name}`" in arch, f"docs/architecture.md does not list compat.{name}"


# ------------------------------------------------------------------ a real small build of the site
@pytest.mark.site
def test_every_replaced_method_is_called_during_a_real_build_and_rebuild(tmp_path):
    """A clean build, then a rebuild after one edit with -j 2: each hook compat puts in
    place is called (one Sphinx stopped calling would leave the site silently slower), and
    no entry warns (-W: a fallback fails the build)."""
    import rebuild_books as rb

    from rules_dsl.sphinxext.testing import build, make_project
    project = make_project(tmp_path / "project")
    books, out, cache = tmp_path / "books", tmp_path / "out", tmp_path / "cache"
    lib = rb.start()
    rb.write(lib, books)
    report = tmp_path / "calls.json"

    def built(*extra):
        proc = build(project, out, books, cache, "-D", f"rules_compat_report={report}", *extra)
        assert proc.returncode == 0 and "WARNING" not in proc.stderr, proc.stderr[-4000:]
        return json.loads(report.read_text(encoding="utf-8"))["calls"]
    first = built()
    for entry in ("wrap_write", "wrap_write_documents", "wrap_write_genindex", "wrap_dump_inventory",
                  "wrap_gen_additional_pages", "wrap_search_indexing.load_indexer",
                  "wrap_search_indexing.index_page", "wrap_search_indexing.dump_search_index", "furo_navigation"):
        assert first.get(entry), _say(entry, f"not called during a clean build: {first}")
    lib = rb.apply(lib, ("prose", 1, 2))
    rb.write(lib, books)
    again = built("-j", "2")
    for entry in ("read_serially", "wrap_write", "wrap_write_documents", "wrap_search_indexing.index_page"):
        assert again.get(entry), _say(entry, f"not called during a rebuild of one edit: {again}")
