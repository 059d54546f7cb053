"""Sphinx extension: the rulebooks' reference website, built from the `.rules` sources.

Add ``"rules_dsl.sphinxext"`` to ``extensions`` in conf.py.  It provides:

* the ``rules`` domain (see :mod:`rules_dsl.sphinxext.domain`): every book,
  section, rule, mechanic and table is an object with a stable anchor
  ``book:id``, index entries, cross-reference roles and objects.inv entries;
* directives rendering books, sections and rules from the sources, plus the
  books table, the keyword glossary, the cross-book index and the CLI help
  (see :mod:`rules_dsl.sphinxext.directives`);
* generated pages: one per book and one per top-level section (a section too
  big for a phone split into parts and sub-section pages: see
  :mod:`rules_dsl.sphinxext.pagesplit`), written at ``builder-inited`` under
  ``rules_books_dir`` (default ``docs/books``);
* fine-grained rebuilds: each page depends (``env.note_dependency``) on one
  fingerprint file, a digest of the rules and sections it shows, rewritten only
  when one of them renders differently (see :mod:`rules_dsl.sphinxext.site`);
* worked examples executed against the compiled books on every build: a
  failing example is a warning at its ``.rules`` line and fails the build;
* open data: every book as JSON (`data/<book>.json`, `data/index.json` and the JSON
  Schema `data/book.schema.json`) in the HTML output, as `rules export` writes them
  (see :mod:`rules_dsl.sphinxext.opendata`);
* hover previews of cross-references (the title and book in the link's title
  attribute, the text in a small file per book, ``_static/rules-previews/<book>.js``,
  loaded when a link into that book is first used: see
  :mod:`rules_dsl.sphinxext.previews`; on a touch screen the first tap previews), exact odds tables for
  dice mechanics when ``rules_dsl.odds`` provides ``page_odds``;
* rule pages for a phone at the table: a rule's own prose first, its notes,
  tables, mechanics, odds and worked examples one tap away (folds, opened on
  a wide screen), a copy-link button for its ``book:rule-id`` anchor and
  "referenced by" links (``backlinks``); a meta description on every page;
* the rule search box on every page (``static/rules_search_ui.js``), ranked as
  ``rules lookup`` ranks (``static/rules_search.js``), over a small names file
  (``_static/rules-search-index.js``) and per-book full-text shards
  (``_static/rules-search/<book>.js``, fetched only as a query needs them) written
  at ``build-finished`` from the CLI index's records (see
  :mod:`rules_dsl.sphinxext.search_index`).
* every mechanic runnable on its page: each book compiled to JavaScript
  (``_static/js/<book>.mjs``, see :mod:`rules_dsl.sphinxext.jsmodules`) and a small
  form under each mechanic (``static/rules_try.mjs``, loaded only when used).
* a player's front door: the home page's game picker (``rules:games``: a card per book,
  what it is, its dice, where to start), a quick reference opening each book's page,
  fronts of the glossary and the cross index that say what their terms mean (see
  :mod:`rules_dsl.sphinxext.front` and :mod:`rules_dsl.sphinxext.render_front`), and a
  print stylesheet that prints a book's page as its quick reference.

Config values: ``rules_books_dir`` (generated pages folder, relative to the
source folder), ``rules_fail_on_error`` (default True: a failing example or a
book that does not compile makes the build exit non-zero even without -W),
``rules_nav_maxdepth`` (default 4: depth of the theme's sidebar tree; 0 leaves
the theme's own, much slower, unlimited depth), ``rules_page_budget`` (default 240,000:
the estimated bytes of a section's page past which it is split into parts), ``rules_nav_fast``
(default True: the theme's sidebar tree is rendered from the navigation worked out once a
build, byte for byte what Sphinx would give; False leaves it to Sphinx, page by page),
``rules_nav_check`` (default False: also make every sidebar the theme's own way and warn
where they differ; for tests), ``rules_nav_links`` (default 400: past that many pages in the
navigation, each page's sidebar lists every book but only its own book's sections; 0: never),
``rules_index_lines`` (default 600: lines on one page of the general index; a letter with more
gets several pages), ``rules_links_per_page`` (default 600: rule links on one page of the
glossary or the cross index; a keyword or term with more is cut by books onto numbered pages),
``rules_serial_below`` (default 24: a rebuild that reads, or writes, fewer pages than this does
it in one process even with ``-j``; see :mod:`rules_dsl.sphinxext.smallbuild`),
``rules_games_per_page`` (default 30: the home page shows every book's card up to this many
books; beyond, the game picker is split into pages by the titles' first letters, none with
more), ``rules_compat_report`` (default empty: a path where the build writes, as JSON, how
often each of :mod:`rules_dsl.sphinxext.compat`'s replaced methods was called; for tests).
Warnings have the type
``rules`` and subtypes ``compile``, ``example``, ``odds``, ``directive`` and
``duplicate`` (for ``suppress_warnings``).

Modules, in the order data flows: ``keys`` (cache keys), ``derived`` (findings,
example results and odds by closure key), ``data`` (a book -> its plain render
model), ``models`` (every book's model, cached between builds), ``crossbook``
(glossary, cross index, books table), ``backlinks`` (referenced by), ``pagesplit`` (which pages a
book's sections get), ``site`` (the build's state, pages, fingerprints); then ``rendering`` (what the renderers share), ``prose`` (prose ->
nodes), ``render_rules``, ``render_decls``, ``render_pages`` (model -> nodes),
``directives`` and ``domain``; ``opendata`` writes the books' JSON into the output,
``jsmodules`` the books' JavaScript; ``navigation`` renders the theme's sidebar tree and
``furo_nav`` does the theme's pass over it once per folder; ``compat`` holds every use of
Sphinx's and furo's internals (each named, with the public API it stands in for);
``finish`` skips Sphinx's end-of-build general index and search index work when their
inputs did not change; ``front`` (a book's front door as plain data), ``render_front``,
``frontdoor`` (which pages load the front door's stylesheet) and ``firstpaint`` (what a page
shows before its scripts run).
"""
from __future__ import annotations

from pathlib import Path

# Sphinx itself is imported by `setup` (through directives, domain, site), not here:
# the plain-data module `data` serves `rules export` and the odds
# engine without Sphinx installed.

STATIC = Path(__file__).resolve().parent / "static"
#: the site's icon (conf.py: ``html_favicon = str(FAVICON)``)
FAVICON = STATIC / "favicon.svg"


def _add_static(app):
    if app.builder.format == "html":
        app.config.html_static_path.append(str(STATIC))


def _cap_navigation(app, pagename, templatename, context, doctree):
    """Themes (furo) build the sidebar with toctree(maxdepth=-1, titles_only=True): Sphinx
    then deep-copies every section of every page (thousands of rules) for each page
    written, only to drop all but the page titles.  A finite depth that still reaches
    every page (root > book > section page) gives the same sidebar; with
    ``rules_nav_fast`` that call is answered from the navigation worked out once a build
    (see :mod:`rules_dsl.sphinxext.navigation`), every other call by Sphinx."""
    from . import buildstate, navigation
    depth = app.config.rules_nav_maxdepth
    fast = app.config.rules_nav_fast
    orig = context.get("toctree")
    if (not depth and not fast) or orig is None:
        return

    # Pages that are no document (the per-letter general index, search) are in no toctree:
    # their sidebar is the same for all of them at one folder depth, so it is made once a build
    # (but for genindex, search, py-modindex: a toctree may list them, as the current page).
    virtual = navigation.virtual_docs()
    shared = virtual is not None and pagename not in app.env.all_docs and pagename not in virtual
    cache = buildstate.of(app).setdefault("nav_cache", {}) if shared else None   # one build, never pickled

    def answer(kwargs):
        if fast and navigation.handles(kwargs):
            html = navigation.sidebar(app, pagename, kwargs["maxdepth"])
            if html is not None:
                return html
        return orig(**kwargs)

    def toctree(**kwargs):
        if depth and kwargs.get("titles_only") and kwargs.get("maxdepth", -1) <= 0:
            kwargs["maxdepth"] = depth
        if cache is None:
            return answer(kwargs)
        key = (pagename.count("/"), tuple(sorted(kwargs.items())))
        if key not in cache:
            cache[key] = answer(kwargs)
        return cache[key]
    context["toctree"] = toctree


def setup(app):
    from . import (compat, directives, domain, finish, firstpaint, frontdoor, furo_nav, gcpause, jsmodules, keys, navigation,
                   opendata, outdated, page_head, previews, search_index, site, smallbuild, tocparents)
    app.add_config_value("rules_books_dir", "docs/books", "env", types=[str])
    app.add_config_value("rules_fail_on_error", True, "", types=[bool])
    app.add_config_value("rules_nav_maxdepth", 4, "html", types=[int])
    app.add_config_value("rules_nav_fast", True, "html", types=[bool])
    app.add_config_value("rules_nav_check", False, "", types=[bool])
    app.add_config_value("rules_nav_links", 400, "html", types=[int])
    app.add_config_value("rules_index_lines", finish.GENINDEX_LINES, "html", types=[int])
    from .pagesplit import PAGE_BUDGET
    app.add_config_value("rules_page_budget", PAGE_BUDGET, "env", types=[int])
    from .crossbook import LINKS_PER_PAGE
    app.add_config_value("rules_links_per_page", LINKS_PER_PAGE, "env", types=[int])
    from .crossbook import GAMES_PER_PAGE
    app.add_config_value("rules_games_per_page", GAMES_PER_PAGE, "env", types=[int])
    app.add_config_value("rules_serial_below", smallbuild.SERIAL_BELOW, "", types=[int])
    app.add_config_value("rules_compat_report", "", "", types=[str])     # tests: compat.write_report
    from .render_rules import (depart_working_html, depart_working_other, visit_working_html, visit_working_other,
                               working)
    from .rendering import depart_fold_html, fold, try_form, visit_fold_html, visit_try_form_html, visit_try_form_other
    other = (visit_working_other, depart_working_other)
    app.add_node(working, html=(visit_working_html, depart_working_html), latex=other, text=other, man=other,
                 texinfo=other)
    app.add_node(fold, html=(visit_fold_html, depart_fold_html), latex=other, text=other, man=other,
                 texinfo=other)
    from .firstpaint import copy_link, print_button, visit_copy_link_html, visit_copy_link_other, visit_print_button_html
    quiet = (visit_copy_link_other, None)
    app.add_node(copy_link, html=(visit_copy_link_html, None), latex=quiet, text=quiet, man=quiet, texinfo=quiet)
    app.add_node(print_button, html=(visit_print_button_html, None), latex=quiet, text=quiet, man=quiet, texinfo=quiet)
    skip = (visit_try_form_other, None)
    app.add_node(try_form, html=(visit_try_form_html, None), latex=skip, text=skip, man=skip, texinfo=skip)
    app.add_domain(domain.RulesDomain)
    app.add_directive_to_domain("rules", "book", directives.BookDirective)
    app.add_directive_to_domain("rules", "section", directives.SectionDirective)
    app.add_directive_to_domain("rules", "rule", directives.RuleDirective)
    app.add_directive_to_domain("rules", "books", directives.BooksDirective)
    app.add_directive_to_domain("rules", "games", directives.GamesDirective)
    app.add_directive_to_domain("rules", "glossary", directives.GlossaryDirective)
    app.add_directive_to_domain("rules", "crossindex", directives.CrossIndexDirective)
    app.add_directive_to_domain("rules", "cli", directives.CliDirective)
    app.add_directive_to_domain("rules", "changes", directives.ChangesDirective)
    app.connect("config-inited", gcpause.pause, priority=1)
    app.connect("builder-inited", gcpause.resume, priority=999)
    app.connect("build-finished", gcpause.release, priority=999)
    app.connect("build-finished", furo_nav.save)
    app.connect("build-finished", compat.write_report, priority=998)
    app.connect("builder-inited", _add_static)
    app.connect("builder-inited", site.builder_inited)
    app.connect("builder-inited", finish.install)
    app.connect("builder-inited", furo_nav.install)
    app.connect("builder-inited", smallbuild.install)
    app.connect("builder-inited", tocparents.install)
    app.connect("env-before-read-docs", tocparents.before_read)
    app.connect("env-updated", tocparents.after_read)
    app.connect("env-before-read-docs", smallbuild.before_read)
    app.connect("env-before-read-docs", smallbuild.purge_pages_to_read, priority=900)    # after the others
    app.connect("env-get-outdated", finish.docs_changed)
    app.connect("env-before-read-docs", finish.before_read)
    app.connect("env-updated", finish.note_contents, priority=900)
    app.connect("env-updated", smallbuild.after_read, priority=100)
    app.connect("env-get-outdated", outdated.env_get_outdated)
    app.connect("env-get-updated", outdated.env_get_updated)
    app.connect("env-get-updated", previews.write, priority=600)     # after outdated's: it takes its changes
    app.connect("env-updated", site.report_problems)
    app.connect("env-updated", site.note_read)
    app.connect("doctree-read", domain.collect_refs)
    app.connect("build-finished", site.build_finished)
    app.connect("build-finished", opendata.build_finished)
    app.connect("build-finished", search_index.write_index)
    app.connect("build-finished", jsmodules.build_finished)
    app.connect("env-updated", navigation.reset)
    app.connect("html-page-context", _cap_navigation, priority=400)
    app.connect("html-page-context", furo_nav.page_context, priority=400)
    app.connect("html-page-context", site.one_page_index)
    app.connect("html-page-context", page_head.page_head, priority=900)      # after the theme's own
    app.connect("html-page-context", firstpaint.page_context)
    app.connect("html-page-context", frontdoor.page_context)
    app.add_css_file("rules_dsl.css")
    app.add_js_file("rules_dsl.js", loading_method="defer")
    app.add_css_file("rules_search.css")
    app.add_js_file("rules_search_ui.js", loading_method="defer")
    app.add_css_file("rules_print.css", media="print")          # a clean printout (frontdoor.py)
    return {
        "version": keys.MODEL_VERSION,
        "env_version": keys.MODEL_VERSION,
        "parallel_read_safe": True,
        "parallel_write_safe": True,
    }
