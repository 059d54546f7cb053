"""Every book's mechanics as JavaScript on the website: `_static/js/runtime.mjs`,
`_static/js/<book>.mjs` (rules_dsl.jsgen) and `_static/js/books.mjs`, the list of the
books written, which the page's forms (static/rules_try.mjs) read before importing a
book, so a page never asks for a module that is not there.  For the exact odds of a
dice mechanic's form, `_static/js/odds.mjs` (the engine) and `_static/js/<book>.odds.mjs`
(the book's plans, jsgen.odds), loaded only when a form needs odds the page does not hold.

Written at `build-finished`, for HTML builders only, in the main process.  A file is
rewritten only when its bytes change (its mtime stays, for rsync and HTTP caches);
modules of books that are gone are removed.  A module is generated again only when
its book changed: the site keeps, per book, the book's content key (its files and the
code: `keys.content_key`) and its id (`STATE_FILE` in the doctree folder), so editing
one book never regenerates the library's modules.  (A module holds where each
declaration is written, so any edit of its book can change it: generating one is a
few milliseconds, and its file is written only when its bytes change.)  The odds module reads the
same (the plans of the same compiled book, from the same code), so it is made with the book's
module, under the same key; the engine and the runtime are package files, written when their
bytes change.  A book with a construct the JavaScript
back end refuses gets no module (its mechanics then simply show no form): that is
logged as info, not a warning, because the build runs with -W.
"""
from __future__ import annotations

import json
from pathlib import Path

from sphinx.util import logging

from ..paths import read_json_dict, write_json_dict, write_text_if_changed

logger = logging.getLogger(__name__)

JS_DIR = "_static/js"
INDEX_FILE = "books.mjs"
STATE_FILE = "rules_dsl-js.json"


def write_modules(outdir: Path, ids, keys=None, state_file=None) -> tuple:
    """(names written, {book id: why it was skipped}) for the books `ids`.

    With `keys` ({book id: key of what its module is made of}) and `state_file`, a
    book whose key is the one recorded at the last build, and whose module is in
    place, is neither loaded nor generated again (its earlier outcome stands)."""
    from .. import jsgen
    from ..errors import RulesError
    from ..library.loader import load
    out = Path(outdir) / JS_DIR
    out.mkdir(parents=True, exist_ok=True)
    written, skipped, shipped = [], {}, []
    keys = keys or {}
    before = read_json_dict(state_file) if state_file else {}
    state = {}
    if write_text_if_changed(out / jsgen.RUNTIME_FILE, jsgen.runtime_source()):
        written.append(jsgen.RUNTIME_FILE)
    if write_text_if_changed(out / jsgen.ODDS_ENGINE_FILE, jsgen.odds_engine_source()):
        written.append(jsgen.ODDS_ENGINE_FILE)
    for bid in sorted(ids):
        key = keys.get(bid)
        old = before.get(bid)
        if key is not None and isinstance(old, dict) and old.get("key") == key:
            if old.get("skipped") is not None:
                skipped[bid] = old["skipped"]
                state[bid] = old
                continue
            if (out / f"{bid}.mjs").is_file() and (out / f"{bid}.odds.mjs").is_file():
                shipped.append(bid)
                state[bid] = old
                continue
        if key is not None:
            state[bid] = {"key": key, "skipped": None}
        try:
            text, odds = jsgen.generate_with_odds(load(bid))
        except RulesError as e:          # JSGenError (unsupported construct) or a book that does not compile
            skipped[bid] = (str(e).splitlines() or [type(e).__name__])[0]
            if key is not None:
                state[bid]["skipped"] = skipped[bid]
            continue
        except Exception as e:           # a back-end bug must not cost the reader the whole site
            skipped[bid] = f"{type(e).__name__}: {e}"
            state.pop(bid, None)         # not remembered: tried again next build
            continue
        shipped.append(bid)
        if write_text_if_changed(out / f"{bid}.mjs", text):
            written.append(f"{bid}.mjs")
        if write_text_if_changed(out / f"{bid}.odds.mjs", odds):
            written.append(f"{bid}.odds.mjs")
    index = ("// The books whose mechanics run in the browser (written by rules_dsl.sphinxext.jsmodules).\n"
             f"export default {json.dumps(shipped)};\n")
    if write_text_if_changed(out / INDEX_FILE, index):
        written.append(INDEX_FILE)
    keep = {jsgen.RUNTIME_FILE, jsgen.ODDS_ENGINE_FILE, INDEX_FILE} | {f"{b}.mjs" for b in shipped} \
        | {f"{b}.odds.mjs" for b in shipped}
    for p in out.glob("*.mjs"):
        if p.name not in keep:
            p.unlink(missing_ok=True)      # a book that is gone, or that the back end now refuses
    if state_file:
        write_json_dict(state_file, state)
    return written, skipped


def build_finished(app, exc):
    from .site import finished_html_books
    books = finished_html_books(app, exc)
    if books is None:
        return
    import time
    t0 = time.perf_counter()
    from . import site
    keys = {bid: f"{k}|{bid}" for bid, k in site.current().content_keys.items() if k is not None}
    written, skipped = write_modules(Path(app.outdir), books, keys, Path(app.doctreedir) / STATE_FILE)
    for bid, why in sorted(skipped.items()):
        logger.info("rules_dsl: no JavaScript for %s (its mechanics get no form): %s", bid, why)
    if written:
        logger.info("rules_dsl: JavaScript in %s/: %s (%.2fs)", JS_DIR, ", ".join(written), time.perf_counter() - t0)
