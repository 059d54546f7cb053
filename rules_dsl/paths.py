"""Where books and caches live.  Kept import-light (os only): `rules lookup` needs it at start-up.

* books: `RULES_DSL_BOOKS`, else the `rulebooks/` folder beside the package;
* cache: `RULES_DSL_CACHE`, else `$XDG_CACHE_HOME/rules-dsl` (default `~/.cache/rules-dsl`).
"""
import os
import re

_PKG = os.path.dirname(os.path.abspath(__file__))


def books_dir() -> str:
    return os.environ.get("RULES_DSL_BOOKS") or os.path.join(os.path.dirname(_PKG), "rulebooks")


#: a book id: what a `book` header names (grammar.lark's ID), and so a book's file or folder name;
#: a layered book's (layers.py) adds `+NAME` for each layer on it (grammar.lark's LAYERED,
#: `xenotactics+errata`): its layer's file name, still a name, never a path.  A chain deeper
#: than layers.MAX_DEPTH is a name too: it is refused at its layer's header, located.  The
#: pattern's text, compiled by `re`'s cache on first use (a `rules lookup` without --book never needs it).
BOOK_ID = r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*(?:\+[a-z][a-z0-9]*(?:-[a-z0-9]+)*){0,32}"


def check_book_id(book_id, known=None) -> str:
    """`book_id` if it is a book id, else `errors.BadBookId` saying why, in one line.

    Book ids are names, never paths: every command and API entry that takes one
    (`Library.book_files` and everything that loads through it, the CLI's
    `BOOK:NAME` and `--book`, the site and the pytest plugin) asks this one function
    before it joins an id to the books folder.  An empty id, `.`, `..`, anything with
    a separator, and anything a `book` header could not say, is refused; `known` (the
    books there are, a list or a function giving it) feeds the did-you-mean."""
    if isinstance(book_id, str) and re.fullmatch(BOOK_ID, book_id):
        return book_id
    from .errors import BadBookId
    if not isinstance(book_id, str):
        raise BadBookId(repr(book_id), "a book id is text, such as null-strike")
    if not book_id.strip():
        reason = "a book id cannot be empty: name a book, such as null-strike (`rules books` lists them)"
    elif book_id in (".", "..") or "/" in book_id or "\\" in book_id or (os.altsep and os.altsep in book_id):
        reason = "a book id is a name, such as null-strike, never a path"
    else:
        reason = ("a book id is lower-case letters and digits, words joined by single hyphens, "
                  "starting with a letter (such as null-strike), as its `book` header writes it; "
                  "a layered book adds +LAYER (such as xenotactics+errata)")
    raise BadBookId(book_id, reason, known() if callable(known) else (known or ()))


def cache_dir() -> str:
    env = os.environ.get("RULES_DSL_CACHE")
    if env:
        return env
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "rules-dsl")


def write_pickle(path, obj) -> bool:
    """Write `obj` to `path` atomically (temp file, then rename); False if it could not.

    Every on-disk cache uses this: a reader never sees a half-written file, and a
    cache that cannot be written is only an optimisation lost.
    """
    import pickle

    path = os.fspath(path)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "wb") as f:
            pickle.dump(obj, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
        return True
    except OSError:
        return False


def read_json_dict(path) -> dict:
    """A JSON object kept by an earlier build (state, manifest): {} when the file is
    absent, damaged or holds something else (the build then does everything again)."""
    import json
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_json_dict(path, data: dict) -> bool:
    """Write a state file that `read_json_dict` reads back (sorted keys, a key a line),
    only when its bytes change; True if it was written."""
    import json
    return write_text_if_changed(path, json.dumps(data, sort_keys=True, indent=0) + "\n")


def update_json_dict(path, **changes) -> bool:
    """Set `changes` in the state file at `path`, keeping its other keys."""
    return write_json_dict(path, {**read_json_dict(path), **changes})


def write_text_if_changed(path, text: str) -> bool:
    """Write `text` (UTF-8) to `path` atomically (temp file, then rename), unless the file
    already holds exactly those bytes; True if it was written.

    Every generated file uses this (site pages, open data, JavaScript modules, the search
    index): an unchanged file keeps its mtime, so incremental builds, rsync and CDNs see
    no change, and a reader never sees a half-written file.
    """
    path = os.fspath(path)
    data = text.encode("utf-8")
    try:
        with open(path, "rb") as f:
            if f.read() == data:
                return False
    except OSError:
        pass
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return True


def grammar_path() -> str:
    return os.path.join(_PKG, "language", "grammar.lark")
