"""The open data on the website: `data/<book>.json`, `data/index.json` and
`data/book.schema.json` in the HTML output, the same files `rules export` writes
(rules_dsl/faces/export.py), so other tools can use the books without scraping pages.

Written at `build-finished`, for HTML builders only, in the main process.  Cheap
when little changed, book by book: `STATE_FILE` in the doctree folder records, per
book, a key over its files, the code and the schema, the keys of the other books
whose titles its document shows (its cross-book references), and its line of
`index.json`.  A book whose keys all match, and whose file is in place, is not
loaded at all; editing one book exports that book (and the books that refer to it)
only.  Each file is rewritten only when its bytes change (its mtime stays, for rsync
and HTTP caches), and files of books that are gone are removed.
"""
from __future__ import annotations

from pathlib import Path

from sphinx.util import logging

from ..faces import export
from ..paths import read_json_dict, write_json_dict, write_text_if_changed

logger = logging.getLogger(__name__)

DATA_DIR = "data"
STATE_FILE = "rules_dsl-data.json"


def _code() -> str:
    from ..library import cachekeys
    return cachekeys.code_fingerprint("index", "site", salt=f"{export.SCHEMA_VERSION}|"
                                      + export.schema_path().read_text(encoding="utf-8"))


def _book_key(library, bid: str, code: str) -> str | None:
    from ..library import cachekeys
    from ..errors import RulesError
    try:
        parts = []
        for f in library.book_files(bid):
            parts += [str(f), Path(f).read_bytes()]
    except (OSError, RulesError):
        return None
    return cachekeys.key(*parts, code=code)


def write_data(outdir: Path, doctreedir: Path, ids, library=None) -> list:
    """Write the data files of the books `ids` under `outdir/data`; the names written."""
    from ..errors import RulebookError
    from ..library.loader import DEFAULT
    library = library or DEFAULT
    out = Path(outdir) / DATA_DIR
    ids = sorted(ids)
    code = _code()
    keys = {bid: _book_key(library, bid, code) for bid in library.book_ids()}
    state_file = Path(doctreedir) / STATE_FILE
    before = read_json_dict(state_file).get("books")
    before = before if isinstance(before, dict) else {}
    state, written, texts = {}, [], {}
    for bid in ids:
        old = before.get(bid)
        if (isinstance(old, dict) and keys.get(bid) is not None and old.get("key") == keys[bid]
                and all(keys.get(d) == k for d, k in (old.get("deps") or {}).items())
                and (out / f"{bid}.json").is_file()):
            state[bid] = old
            continue
        try:
            book = library.load(bid)
        except RulebookError:
            continue                     # the site leaves it out too (and says why)
        consulted = set()
        data = export.book_data(book, library, consulted)
        text = export.dumps(data)
        texts[f"{bid}.json"] = text
        entry = export.index_entry(data, text)
        if keys.get(bid) is not None:
            state[bid] = {"key": keys[bid], "deps": {d: keys.get(d) for d in sorted(consulted)}, "entry": entry}
        else:
            state[bid] = {"key": None, "deps": {}, "entry": entry}
    texts[export.INDEX_FILE] = export.index_json([state[b]["entry"] for b in ids if b in state])
    texts[export.SCHEMA_FILE] = export.schema_path().read_text(encoding="utf-8")
    for name, text in texts.items():
        if write_text_if_changed(out / name, text):
            written.append(name)
    wanted = {f"{b}.json" for b in state} | {export.INDEX_FILE, export.SCHEMA_FILE}
    for p in out.glob("*.json"):
        if p.name not in wanted:
            p.unlink(missing_ok=True)          # a book that is gone (or no longer compiles)
    write_json_dict(state_file, {"books": state})
    return written


def build_finished(app, exc):
    from .site import finished_html_books
    books = finished_html_books(app, exc)
    if books is None:
        return
    import time
    t0 = time.perf_counter()
    written = write_data(Path(app.outdir), Path(app.doctreedir), books)
    if written:
        logger.info("rules_dsl: open data in %s/: %s (%.2fs)", DATA_DIR, ", ".join(written), time.perf_counter() - t0)
