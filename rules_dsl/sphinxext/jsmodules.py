"""Every book's mechanics as JavaScript on the website: `_static/js/runtime.mjs`,
`_static/js/<book>.mjs` (rules_dsl.jsgen) and `_static/js/books.mjs`, the list of the
books written, which the page's forms (static/rules_try.mjs) read before importing a
book, so a page never asks for a module that is not there.

Written at `build-finished`, for HTML builders only, in the main process.  A file is
rewritten only when its bytes change (its mtime stays, for rsync and HTTP caches);
modules of books that are gone are removed.  A book with a construct the JavaScript
back end refuses gets no module (its mechanics then simply show no form): that is
logged as info, not a warning, because the build runs with -W.
"""
from __future__ import annotations

import json
from pathlib import Path

from sphinx.util import logging

from ..paths import write_text_if_changed

logger = logging.getLogger(__name__)

JS_DIR = "_static/js"
INDEX_FILE = "books.mjs"


def write_modules(outdir: Path, ids) -> tuple:
    """(names written, {book id: why it was skipped}) for the books `ids`."""
    from .. import jsgen
    from ..errors import RulesError
    from ..loader import load
    out = Path(outdir) / JS_DIR
    out.mkdir(parents=True, exist_ok=True)
    written, skipped, shipped = [], {}, []
    if write_text_if_changed(out / jsgen.RUNTIME_FILE, jsgen.runtime_source()):
        written.append(jsgen.RUNTIME_FILE)
    for bid in sorted(ids):
        try:
            text = jsgen.generate(load(bid))
        except RulesError as e:          # JSGenError (unsupported construct) or a book that does not compile
            skipped[bid] = (str(e).splitlines() or [type(e).__name__])[0]
            continue
        except Exception as e:           # a back-end bug must not cost the reader the whole site
            skipped[bid] = f"{type(e).__name__}: {e}"
            continue
        shipped.append(bid)
        if write_text_if_changed(out / f"{bid}.mjs", text):
            written.append(f"{bid}.mjs")
    index = ("// The books whose mechanics run in the browser (written by rules_dsl.sphinxext.jsmodules).\n"
             f"export default {json.dumps(shipped)};\n")
    if write_text_if_changed(out / INDEX_FILE, index):
        written.append(INDEX_FILE)
    keep = {jsgen.RUNTIME_FILE, INDEX_FILE} | {f"{b}.mjs" for b in shipped}
    for p in out.glob("*.mjs"):
        if p.name not in keep:
            p.unlink(missing_ok=True)      # a book that is gone, or that the back end now refuses
    return written, skipped


def build_finished(app, exc):
    from .site import finished_html_books
    books = finished_html_books(app, exc)
    if books is None:
        return
    import time
    t0 = time.perf_counter()
    written, skipped = write_modules(Path(app.outdir), books)
    for bid, why in sorted(skipped.items()):
        logger.info("rules_dsl: no JavaScript for %s (its mechanics get no form): %s", bid, why)
    if written:
        logger.info("rules_dsl: JavaScript in %s/: %s (%.2fs)", JS_DIR, ", ".join(written), time.perf_counter() - t0)
