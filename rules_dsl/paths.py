"""Where books and caches live.  Kept import-light (os only): `rules lookup` needs it at start-up.

* books: `RULES_DSL_BOOKS`, else the `rulebooks/` folder beside the package;
* cache: `RULES_DSL_CACHE`, else `$XDG_CACHE_HOME/rules-dsl` (default `~/.cache/rules-dsl`).

Caches hold pickles, and loading a pickle runs code, so a cache is used only where
no other user can write: `trusted_cache_dir`, `trusted_cache_file`, `read_pickle` (the one
place the package unpickles) and `write_pickle` refuse a folder or file another user
owns or can write, saying so once per process.
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


class UntrustedCache(OSError):
    """A cache folder or file another user could have written: never read, never written."""


#: the cache roots already reported as untrusted in this process (each is said once)
_REPORTED: set = set()


def _untrusted_reason(st, what: str, path: str) -> str:
    """Why the `os.stat` result `st` of `path` may not be trusted, or "" if it may: owned by
    someone other than the user or root (root could change anything anyway: a cache root
    filled for everyone to read is fine), or writable by its group or by others."""
    uid = os.geteuid()
    if st.st_uid not in (uid, 0):
        return (f"the {what} {path} belongs to another user (uid {st.st_uid}): "
                f"run `chown -R {uid} {path}`")
    if st.st_mode & 0o022:
        return (f"the {what} {path} can be written by other users (mode {st.st_mode & 0o7777:04o}): "
                f"run `chmod -R go-w {path}`")
    return ""


def _report(root: str, reason: str) -> None:
    """Say once per process and cache root why the root's cache is not used (stderr, one line)."""
    if root in _REPORTED:
        return
    _REPORTED.add(root)
    import sys
    print(f"rules: warning: {reason}, or set RULES_DSL_CACHE to a folder of your own; "
          f"its cache is not used (nothing is read from it or written to it) and everything is computed afresh.",
          file=sys.stderr)


def _chain(folder: str, root: str) -> list:
    """The folders from `root` down to `folder` (absolute paths); just `folder` when it is
    not inside `root`."""
    if folder != root and not folder.startswith(root.rstrip(os.sep) + os.sep):
        return [folder]
    chain = [folder]
    while chain[-1] != root:
        chain.append(os.path.dirname(chain[-1]))
    return chain[::-1]


def trusted_cache_dir(folder, root=None) -> bool:
    """Whether the cache folder `folder` may be read and written: it and every folder
    between it and its cache `root` (default: `folder` itself) belong to the current user
    (or root) and no one else can write them.  A pickle runs code when it is loaded, so a cache
    another user can write into would run theirs: such a folder is reported once
    (`_report`) and the caller does without it.  A folder that does not exist yet is
    trusted (nothing is in it; `make_cache_dirs` creates it private).  Where the system
    has no user ids (Windows) every folder is trusted."""
    if not hasattr(os, "geteuid"):
        return True
    folder = os.path.abspath(os.fspath(folder))
    top = os.path.abspath(os.fspath(root)) if root is not None else folder
    for d in _chain(folder, top):
        try:
            st = os.stat(d)
        except OSError:
            return True                     # not made yet: below it nothing exists either
        reason = _untrusted_reason(st, "cache folder", d)
        if reason:
            _report(top, reason)
            return False
    return True


def trusted_cache_file(path, root=None, fd=None) -> bool:
    """Whether the cache file `path` may be read: its folders pass `trusted_cache_dir` up
    to `root`, and the file itself (the open file `fd` when given, so that what is checked
    is what is read) belongs to the current user and is not writable by others.  False
    for an absent file too."""
    path = os.fspath(path)
    top = root if root is not None else os.path.dirname(os.path.abspath(path))
    if not trusted_cache_dir(os.path.dirname(os.path.abspath(path)), top):
        return False
    if not hasattr(os, "geteuid"):
        return os.path.exists(path) if fd is None else True
    try:
        st = os.fstat(fd) if fd is not None else os.stat(path)
    except OSError:
        return False
    reason = _untrusted_reason(st, "cache file", path)
    if reason:
        _report(os.path.abspath(os.fspath(top)), reason)
        return False
    return True


def read_pickle(path, root=None):
    """The object pickled at `path`, a cache file under the cache folder `root`.

    The one place the package unpickles (tests/test_cache_trust.py holds it): the file
    is opened, then checked (`trusted_cache_file`, on the open file) before a byte of it
    is unpickled.  Raises OSError when it is absent and `UntrustedCache` (an OSError)
    when another user could have written it; whatever unpickling a damaged file raises
    passes through (every caller treats all of these as "not cached": made again)."""
    import pickle
    folder = os.path.dirname(os.path.abspath(path))
    if not trusted_cache_dir(folder, root if root is not None else folder):   # said before anything is opened
        raise UntrustedCache(f"untrusted cache folder {folder}")
    with open(path, "rb") as f:
        if not trusted_cache_file(path, root, fd=f.fileno()):
            raise UntrustedCache(f"untrusted cache file {os.fspath(path)}")
        return pickle.load(f)


def make_cache_dirs(folder, root=None) -> None:
    """Create `folder` and its missing parents as folders only their owner can write (0755
    whatever the umask), then raise `UntrustedCache` unless `trusted_cache_dir` trusts it."""
    folder = os.path.abspath(os.fspath(folder))
    missing = []
    d = folder
    while not os.path.isdir(d) and os.path.dirname(d) != d:
        missing.append(d)
        d = os.path.dirname(d)
    for d in reversed(missing):
        try:
            os.mkdir(d, 0o755)
        except FileExistsError:
            pass
    if not trusted_cache_dir(folder, root if root is not None else folder):
        raise UntrustedCache(f"untrusted cache folder {folder}")


def write_pickle(path, obj, root=None) -> bool:
    """Write `obj` to `path` atomically (temp file, then rename); False if it could not.

    Every on-disk cache uses this: a reader never sees a half-written file, and a
    cache that cannot be written is only an optimisation lost.  Nothing is written into
    a folder `trusted_cache_dir` refuses (up to the cache folder `root`, default the
    file's folder); the file is made 0644 whatever the umask, so that `read_pickle`
    trusts it.
    """
    import pickle

    path = os.fspath(path)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        make_cache_dirs(os.path.dirname(os.path.abspath(path)), root)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o644)
        with open(fd, "wb") as f:
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
