"""The open data on the website: `data/<book>.json`, `data/index.json` and
`data/book.schema.json` in the HTML output, the same files `rules export` writes
(rules_dsl/export.py), so other tools can use the books without scraping pages.

Written at `build-finished`, for HTML builders only, in the main process.  Cheap
when nothing changed: a key over every book's files, the code and the schema is
kept in the doctree folder, and when it matches and every file is in place no book
is loaded at all.  Otherwise each file is rewritten only when its bytes change
(its mtime stays, for rsync and HTTP caches), and files of books that are gone
are removed.
"""
from __future__ import annotations

from pathlib import Path

from sphinx.util import logging

from .. import export
from ..paths import write_text_if_changed

logger = logging.getLogger(__name__)

DATA_DIR = "data"
KEY_FILE = "rules_dsl-data.key"


def _key(ids) -> str:
    from .. import cachekeys
    from ..loader import book_files
    parts = [export.schema_path().read_bytes()]
    for bid in ids:
        for f in book_files(bid):
            parts += [bid, str(f), Path(f).read_bytes()]
    return cachekeys.key(*parts, code=cachekeys.code_fingerprint("index", "site", salt=str(export.SCHEMA_VERSION)))


def write_data(outdir: Path, doctreedir: Path, ids) -> list:
    """Write the data files of the books `ids` under `outdir/data`; the names written."""
    out = Path(outdir) / DATA_DIR
    ids = sorted(ids)
    key = _key(ids)
    key_file = Path(doctreedir) / KEY_FILE
    wanted = {f"{b}.json" for b in ids} | {export.INDEX_FILE, export.SCHEMA_FILE}
    try:
        fresh = key_file.read_text(encoding="utf-8") == key
    except OSError:
        fresh = False
    if fresh and all((out / name).is_file() for name in wanted):
        return []
    result = export.export(out, ids)
    for p in out.glob("*.json"):
        if p.name not in wanted:
            p.unlink(missing_ok=True)          # a book that is gone (or no longer compiles)
    if not result.errors:
        write_text_if_changed(key_file, key)
    return result.written


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
