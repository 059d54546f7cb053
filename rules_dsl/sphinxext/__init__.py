"""Sphinx extension: the rulebooks' reference website, built from the `.rules` sources.

Add ``"rules_dsl.sphinxext"`` to ``extensions`` in conf.py.  It provides:

* the ``rules`` domain (see :mod:`rules_dsl.sphinxext.domain`): every book,
  section, rule, mechanic and table is an object with a stable anchor
  ``book:id``, index entries, cross-reference roles and objects.inv entries;
* directives rendering books, sections and rules from the sources, plus the
  books table, the keyword glossary, the cross-book index and the CLI help
  (see :mod:`rules_dsl.sphinxext.directives`);
* generated pages: one per book and one per top-level section, written at
  ``builder-inited`` under ``rules_books_dir`` (default ``docs/books``);
* fine-grained rebuilds: each page depends (``env.note_dependency``) on one
  fingerprint file per rule/section it shows, rewritten only when that
  rule's rendered content changes (see :mod:`rules_dsl.sphinxext.site`);
* worked examples executed against the compiled books on every build: a
  failing example is a warning at its ``.rules`` line and fails the build;
* hover previews of cross-references (offline: title attribute + a small
  script), exact odds tables for dice mechanics when ``rules_dsl.odds``
  provides ``page_odds``;
* the rule search box on every page (``static/rules_search_ui.js``), ranked as
  ``rules lookup`` ranks (``static/rules_search.js``), over
  ``_static/rules-search-index.js`` written at ``build-finished`` from the CLI
  index's records (see :mod:`rules_dsl.sphinxext.search_index`).

Config values: ``rules_books_dir`` (generated pages folder, relative to the
source folder), ``rules_fail_on_error`` (default True: a failing example or a
book that does not compile makes the build exit non-zero even without -W),
``rules_nav_maxdepth`` (default 4: depth of the theme's sidebar tree; 0 leaves
the theme's own, much slower, unlimited depth).  Warnings have the type
``rules`` and subtypes ``compile``, ``example``, ``odds``, ``directive`` and
``duplicate`` (for ``suppress_warnings``).

Modules, in the order data flows: ``keys`` (cache keys), ``derived`` (findings,
example results and odds by closure key), ``data`` (a book -> its plain render
model), ``models`` (every book's model, cached between builds), ``crossbook``
(glossary, cross index, books table), ``site`` (the build's state, pages,
fingerprints); then ``rendering`` (what the renderers share), ``prose`` (prose ->
nodes), ``render_rules``, ``render_decls``, ``render_pages`` (model -> nodes),
``directives`` and ``domain``.
"""
from __future__ import annotations

from pathlib import Path

from . import directives, domain, keys, search_index, site

STATIC = Path(__file__).resolve().parent / "static"


def _add_static(app):
    if app.builder.format == "html":
        app.config.html_static_path.append(str(STATIC))


def _cap_navigation(app, pagename, templatename, context, doctree):
    """Themes (furo) build the sidebar with toctree(maxdepth=-1, titles_only=True): Sphinx
    then deep-copies every section of every page (thousands of rules) for each page
    written, only to drop all but the page titles.  A finite depth that still reaches
    every page (root > book > section page) gives the same sidebar, much faster."""
    depth = app.config.rules_nav_maxdepth
    orig = context.get("toctree")
    if not depth or orig is None:
        return

    def toctree(**kwargs):
        if kwargs.get("titles_only") and kwargs.get("maxdepth", -1) <= 0:
            kwargs["maxdepth"] = depth
        return orig(**kwargs)
    context["toctree"] = toctree


def setup(app):
    app.add_config_value("rules_books_dir", "docs/books", "env", types=[str])
    app.add_config_value("rules_fail_on_error", True, "", types=[bool])
    app.add_config_value("rules_nav_maxdepth", 4, "html", types=[int])
    from .render_rules import (depart_working_html, depart_working_other, visit_working_html,
                               visit_working_other, working)
    other = (visit_working_other, depart_working_other)
    app.add_node(working, html=(visit_working_html, depart_working_html), latex=other, text=other, man=other,
                 texinfo=other)
    app.add_domain(domain.RulesDomain)
    app.add_directive_to_domain("rules", "book", directives.BookDirective)
    app.add_directive_to_domain("rules", "section", directives.SectionDirective)
    app.add_directive_to_domain("rules", "rule", directives.RuleDirective)
    app.add_directive_to_domain("rules", "books", directives.BooksDirective)
    app.add_directive_to_domain("rules", "glossary", directives.GlossaryDirective)
    app.add_directive_to_domain("rules", "crossindex", directives.CrossIndexDirective)
    app.add_directive_to_domain("rules", "cli", directives.CliDirective)
    app.connect("builder-inited", _add_static)
    app.connect("builder-inited", site.builder_inited)
    app.connect("env-get-outdated", site.env_get_outdated)
    app.connect("env-get-updated", site.env_get_updated)
    app.connect("env-updated", site.report_problems)
    app.connect("doctree-read", domain.collect_refs)
    app.connect("build-finished", site.build_finished)
    app.connect("build-finished", search_index.write_index)
    app.connect("html-page-context", _cap_navigation, priority=400)
    app.connect("html-page-context", site.one_page_index)
    app.add_css_file("rules_dsl.css")
    app.add_js_file("rules_dsl.js", loading_method="defer")
    app.add_css_file("rules_search.css")
    app.add_js_file("rules_search_ui.js", loading_method="defer")
    return {
        "version": keys.MODEL_VERSION,
        "env_version": keys.MODEL_VERSION,
        "parallel_read_safe": True,
        "parallel_write_safe": True,
    }
