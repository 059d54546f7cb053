"""The browser search's data: every rule of every book, as one small static file.

The site's search box (`static/rules_search.js`, ranking; `static/rules_search_ui.js`,
the box) answers as `rules lookup` does, from static files alone.  Its data is made
here from the *same* per-book records as the CLI's index (`index.book_entries`,
`index._rule_record`: built from the compiled books, never from source text), so the
two rank the same names and the same text.

The file is ``_static/rules-search-index.js``: one line ``RulesSearchData(<json>);``
(a script, not a JSON fetch: a page opened from disk may not fetch files, but may
load a script).  The JSON is ``{"v", "fields", "books": [[id, title]], "rules":
[[...]]}``, one array per rule with the `fields` in order; rules in the CLI index's
order (books by id, rules in book order), which is also the order ties are broken in.
Prose is plain text (references read as their labels); notes are kept only as text to
search, cut to `NOTE_CHARS`, the keyword list and the mechanics' names likewise.
"""
from __future__ import annotations

import json

#: the record format the browser reads (bump when `FIELDS` change)
VERSION = 1
FIELDS = ["book", "rule", "title", "section", "url", "aliases", "keywords", "text", "notes", "mechanics"]
#: notes are searched (as the CLI searches them) but never shown: a bounded share of each rule
NOTE_CHARS = 600
PREFIX, SUFFIX = "RulesSearchData(", ");\n"
FILENAME = "rules-search-index.js"


def _plain(text: str) -> str:
    """Prose without markup, on one line (references as their labels or ids' words)."""
    from ..prose import parse_prose, plain_text
    try:
        return plain_text(parse_prose(text))
    except Exception:      # prose the parser rejects stays as written (it is escaped when shown)
        return " ".join(text.split())


def _mechanic_names(signatures) -> str:
    return " ".join(s.split("(", 1)[0] for s in signatures)


def build_data(entries: dict, url_of) -> dict:
    """The browser index from `index.book_entries`' entries; `url_of(book, rule)` is the
    rule's page (relative to the site root, without the anchor) or None to leave it out."""
    books, rules = [], []
    for bid, entry in entries.items():
        if entry.get("error") is not None or entry.get("info") is None:
            continue
        books.append([bid, entry["info"]["title"]])
        for rec in entry["records"]:
            url = url_of(bid, rec["rule"])
            if url is None:
                continue
            notes = " ".join(" ".join(n["text"].split()) for n in rec["notes"])[:NOTE_CHARS]
            rules.append([bid, rec["rule"], rec["title"], rec["section"], url, list(rec["aliases"]),
                          list(rec["keywords"]), _plain(rec["text"]), notes, _mechanic_names(rec["mechanics"])])
    return {"v": VERSION, "fields": FIELDS, "books": books, "rules": rules}


def dumps(data: dict) -> str:
    """The script text of the index (deterministic: two builds give the same bytes)."""
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    # inside a <script>-loaded file "</script" means nothing, but U+2028/9 must not break the line
    body = body.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return PREFIX + body + SUFFIX


def loads(text: str) -> dict:
    """The data back from the script text (tests, tools)."""
    if not (text.startswith(PREFIX) and text.endswith(SUFFIX)):
        raise ValueError("not a rules search index")
    return json.loads(text[len(PREFIX):-len(SUFFIX)])


def write_index(app, exc):
    """build-finished: write ``_static/rules-search-index.js`` for the html builders."""
    if exc is not None or app.builder.format != "html":
        return
    from pathlib import Path

    from .. import index
    from ..loader import DEFAULT
    from ..paths import write_text_if_changed

    objects = app.env.domains["rules"].objects

    def url_of(bid, rid):
        entry = objects.get(("rule", f"{bid}:{rid}"))
        return app.builder.get_target_uri(entry[0]) if entry else None

    data = build_data(index.book_entries(DEFAULT), url_of)
    write_text_if_changed(Path(app.outdir) / "_static" / FILENAME, dumps(data))
