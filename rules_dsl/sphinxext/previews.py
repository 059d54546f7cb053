"""The text of hover previews: one small file per book, loaded when a link is first used.

A reference to a rule (or a mechanic, a table, a section, a book) previews its target:
the title, the book, and the first paragraph of its text (`data.summary_of`).  The
title and the book are in the link's ``title`` attribute, so a browser without script
still shows them.  The text is in ``_static/rules-previews/<book id>.js``, one line::

    RulesPreviews({"v": 1, "book": id, "previews": {anchor: text, ...}});

a script, not a JSON fetch (a page opened from disk may load a script, not fetch a
file).  ``static/rules_dsl.js`` loads a book's file the first time a link into that
book is hovered, focused or tapped, and finds the text by the link's anchor (the
anchor of every object is its full name, ``book:id``, and a book's is its id, so the
book is what comes before the first colon).

**Why not in the page.**  With the text in the link, every page linking to a rule had
to be written again when the rule's first paragraph changed.  A glossary or cross-index
page links to hundreds of rules of many books: at a hundred books, editing one rule's
first paragraph wrote two to six of them again (about 250 KB and 0.15 to 0.3 s each),
for a tooltip.  Now it writes the rule's page and its book's previews file; the pages
that link to it are written again only when its title or its page changes
(`outdated.env_get_updated`).  The pages are smaller too: previews were about a fifth of
a glossary page's bytes (30 of 132 KB).

**When the files are written.**  At ``env-get-updated``, before Sphinx saves the
environment: the files of the books whose objects' previews changed since the
environment the build started from (`outdated.object_changes`, worked out once a build by
`outdated.env_get_updated`), and of any book
whose file is missing.  A build that stops before the environment is saved leaves the
old environment, so the next build finds the same changes and writes them then.  Files
of books that are gone are deleted.  Each file is written only if its bytes change.
The text is plain text from the compiled book: the script sets it as ``textContent``.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from . import buildstate

#: the folder under ``_static``
FOLDER = "rules-previews"
PREFIX, SUFFIX = "RulesPreviews(", ");\n"
#: the data format the browser reads (bump when the layout above changes)
VERSION = 1


def book_of(fullname: str) -> str:
    """The book an object belongs to (a book's full name is its id)."""
    return fullname.split(":", 1)[0]


def dumps(book: str, previews: dict) -> str:
    """One book's file (deterministic: sorted keys, no spaces)."""
    body = json.dumps({"v": VERSION, "book": book, "previews": previews},
                      ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    # JavaScript before 2019 ends a line at U+2028/9, even inside a string
    return PREFIX + body.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029") + SUFFIX


def loads(text: str) -> dict:
    """A file's data back (tests, tools)."""
    if not (text.startswith(PREFIX) and text.endswith(SUFFIX)):
        raise ValueError("not a rules previews file")
    return json.loads(text[len(PREFIX):-len(SUFFIX)])


def changed_books(changes: dict | None) -> set | None:
    """Books with an object added, removed, or whose anchor or preview changed, from
    `outdated.object_changes` ({(objtype, fullname): (before, after)}, entries (docname,
    anchor, title, preview)); None when nothing was compared (all books)."""
    if changes is None:
        return None
    return {book_of(key[1]) for key, (b, a) in changes.items()
            if b is None or a is None or b[1] != a[1] or b[3] != a[3]}


def previews_of(objects: dict, books=None) -> dict:
    """book -> {anchor: preview text} for `books` (all when None); every book of the
    objects has an entry, even one whose objects have no text."""
    out = {}
    for (_objtype, fullname), entry in objects.items():
        book = book_of(fullname)
        if books is not None and book not in books:
            continue
        texts = out.setdefault(book, {})
        if entry[3]:
            texts[entry[1]] = entry[3]
    return out


def write_files(folder: Path, objects: dict, changes: dict | None) -> list:
    """Write the previews files that `changes` (`outdated.object_changes`; None: all) may
    have changed, and those missing; delete those of books that are gone; the names of
    the files written or deleted."""
    from ..paths import write_text_if_changed
    books = {book_of(fullname) for (_objtype, fullname) in objects}
    try:
        present = {name[:-3] for name in os.listdir(folder) if name.endswith(".js")}
    except OSError:
        present = set()
    todo = changed_books(changes)
    todo = set(books) if todo is None else (todo & books) | (books - present)
    done = []
    for book, texts in sorted(previews_of(objects, todo).items()):
        if write_text_if_changed(folder / f"{book}.js", dumps(book, texts)):
            done.append(f"{book}.js")
    for gone in sorted(present - books):
        (folder / f"{gone}.js").unlink(missing_ok=True)
        done.append(f"{gone}.js")
    return done


def write(app, env):
    """env-get-updated: the html builders' previews files (no page to add)."""
    if app.builder.format != "html":
        return []
    objects = env.domains["rules"].data.get("objects", {})
    # the changes outdated.env_get_updated worked out (it runs first); None: write every book's
    write_files(Path(app.outdir) / "_static" / FOLDER, objects, buildstate.of(app).get("object_changes"))
    return []
