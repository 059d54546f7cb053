"""Benchmark the sidebar tree of every page of a built site (run by hand, not a test).

    python bench/bench_nav.py PROJECT DOCTREES     # a project folder and the doctrees of a build of it

Set RULES_DSL_BOOKS (and RULES_DSL_CACHE) as for that build.  Loads the build's
environment (no page is read or written), then for every page of the site, and for
the pages that are no document (general index, search), asks for the theme's sidebar
toctree two ways and prints the time per page of each:

1. Sphinx's own ``toctree(collapse=False, titles_only=True, maxdepth=4,
   includehidden=True)`` (a deep copy of every page's table of contents, per page);
2. ``rules_dsl.sphinxext.navigation`` (the navigation worked out once, then rendered
   per page), with its one-time cost apart.

Every page's two answers must be the same string: the script says how many differ.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("project", type=Path)
    ap.add_argument("doctrees", type=Path)
    ap.add_argument("--maxdepth", type=int, default=4)
    ap.add_argument("--sphinx-pages", type=int, default=0,
                    help="time Sphinx's way on this many pages only (0: all)")
    a = ap.parse_args(argv)

    from sphinx.application import Sphinx

    from rules_dsl.sphinxext import navigation
    with tempfile.TemporaryDirectory() as out:
        app = Sphinx(str(a.project), str(a.project), out, str(a.doctrees), "html",
                     status=None, warning=sys.stderr, freshenv=False)
        env, builder = app.env, app.builder
        pages = sorted(env.found_docs & set(env.tocs)) + ["genindex", "genindex-A", "search"]
        kwargs = dict(collapse=False, titles_only=True, maxdepth=a.maxdepth, includehidden=True)
        env.master_doctree   # noqa: B018 - loaded once either way: not part of a page's cost

        t = time.perf_counter()
        nav = navigation.current(app)
        once = time.perf_counter() - t
        if nav is None:
            print("the navigation is left to Sphinx on this site (see the log)")
            return 1
        ours, theirs, differ = [], [], 0
        sphinx_pages = pages[:a.sphinx_pages] if a.sphinx_pages else pages
        for page in pages:
            t = time.perf_counter()
            mine = navigation.sidebar(app, page, a.maxdepth)
            ours.append(time.perf_counter() - t)
            if page in sphinx_pages:
                t = time.perf_counter()
                html = builder._get_local_toctree(page, **kwargs)
                theirs.append(time.perf_counter() - t)
                differ += html != mine

        def ms(xs):
            return f"median {statistics.median(xs) * 1000:.2f} ms, mean {statistics.mean(xs) * 1000:.2f} ms"
        entries = len(nav.entries)
        print(f"{len(pages)} pages, {entries} sidebar entries")
        print(f"Sphinx toctree(): {ms(theirs)} per page ({len(theirs)} pages)")
        print(f"navigation.py:    {ms(ours)} per page, once a build {once * 1000:.1f} ms")
        print(f"pages whose two answers differ: {differ}")
        return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
