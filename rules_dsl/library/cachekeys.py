"""The one cache policy: every on-disk cache (parsed files, the lookup index, the
site's derived data) is keyed by `key(...)`: the content it was built from plus a
*code fingerprint* of the package code that built it.  Import-light (os only;
hashlib when a key is made): `rules lookup` checks its index on every call with
`code_stamps`, which hashes nothing.

* **Content.**  A parsed file is keyed by its bytes.  The lookup index, whose
  fast path must not read every source, is keyed by `stamp` of every source:
  path, size, mtime, ctime and inode.  The ctime changes on every write and no
  user can set it, so an edit that restores both the size and the mtime still
  changes the key.
* **Code.**  `code_fingerprint(scope)` stamps the package files a cache depends
  on (the same five fields), so editing, upgrading or switching the checkout of
  the code never serves an entry built by other code.  Scopes: ``parse`` (the
  grammar, the AST code and what it imports, and the search's stop words a
  book's `vocabulary` is checked against: code and data files, ``.txt`` too),
  ``engine`` (everything a compiled book is made
  of), ``index`` (engine, the index builder and textsearch.py), ``site`` (the Sphinx
  extension), ``all``.
* **Eviction.**  Each store keeps one entry per *slot* (a source file, a books
  folder, a book): writing an entry replaces the slot's older entries
  (`replace_entry`).  Slots nobody uses any more (deleted files, temporary
  books folders) are dropped by `sweep`, at most once a day, when a cache is
  written: every entry not written for `MAX_AGE_DAYS` days goes (a live one is
  simply rebuilt once).
"""
from __future__ import annotations

import functools
import os

from .. import paths

FORMAT = 1            # bump to retire every cache entry at once
MAX_AGE_DAYS = 30
_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # the package's root

PARSE_FILES = frozenset({"errors.py", "paths.py", "version.py", "library/cachekeys.py", "language/example_parser.py",
                         "language/grammar.lark", "language/nodes.py", "language/parser.py", "language/prose.py",
                         "language/recovery.py", "language/syntax.py", "language/tree_book.py",
                         "language/tree_builder.py", "language/tree_declarations.py", "language/tree_expressions.py",
                         "language/tree_header.py", "language/tree_layers.py", "language/tree_tokens.py",
                         "language/values.py",
                         # a book's `vocabulary` is checked against the search's words and stop words
                         "language/search_words.py", "language/searchdata/stopwords.txt"})
#: the modules that build no cached data (the command line, the pytest plugin, the index)
FRONT_ENDS = frozenset({"cli.py", "faces/cli_common.py", "faces/cli_lookup.py", "faces/cli_inputs.py", "faces/cli_call.py", "faces/cli_odds.py",
                        "faces/cli_book_tools.py", "__main__.py", "pytest_plugin.py",
                        "faces/index.py", "faces/index_build.py", "faces/index_names.py"})
#: the modules the lookup index's contents depend on (its building and the search's analysis)
INDEX_FILES = ("faces/index.py", "faces/index_build.py", "faces/index_names.py", "faces/textsearch.py")


def stamp(path) -> str:
    """`path:size:mtime:ctime:inode`: changes whenever the file is written or replaced."""
    st = os.stat(path)
    return f"{os.fspath(path)}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}"


def _in_scope(rel: str, scope: str) -> bool:
    site = rel.startswith("sphinxext/")
    if scope == "parse":
        return rel in PARSE_FILES
    if scope == "engine":
        return not site and rel not in FRONT_ENDS
    if scope == "index":
        return not site and (rel not in FRONT_ENDS or rel in INDEX_FILES)
    if scope == "site":
        return site
    if scope == "all":
        return True
    raise ValueError(f"unknown code scope {scope!r}")

def _may_hold(folder: str, scope: str) -> bool:
    """Whether the package's sub-folder `folder` (`language`) may hold a file of `scope`:
    the folder walk of `code_stamps` skips the others."""
    if scope == "parse":
        return any(f.startswith(folder + "/") for f in PARSE_FILES)
    return _in_scope(folder + "/x.py", scope)


@functools.lru_cache(maxsize=None)
def code_fingerprint(*scopes: str, salt: str = "") -> str:
    """A short hash of the stamps of the package's code files in any of `scopes`
    (default ``all``), computed once per process: code that changes under a running
    process is not the code it runs."""
    import hashlib
    return hashlib.sha256(code_stamps(*scopes, salt=salt).encode()).hexdigest()[:20]


@functools.lru_cache(maxsize=None)
def code_stamps(*scopes: str, salt: str = "") -> str:
    """What `code_fingerprint` hashes: the stamps themselves, one a line (a few KB), for
    a check that compares them whole instead of hashing them (the lookup index's)."""
    scopes = scopes or ("all",)
    from ..version import __version__
    parts = [f"format={FORMAT}", f"version={__version__}", f"salt={salt}", f"scopes={scopes}"]
    stack = [""]
    while stack:                         # the package's folders, depth first, sorted
        sub = stack.pop()
        folder = os.path.join(_PKG, sub) if sub else _PKG
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
        for e in entries:
            rel = sub + e.name
            if e.name.endswith((".py", ".lark", ".txt")) and any(_in_scope(rel, s) for s in scopes):
                parts.append(stamp(e.path))
            elif e.name != "__pycache__" and e.is_dir() and any(_may_hold(rel, s) for s in scopes):
                stack.append(rel + "/")
    return "\n".join(parts)


def key(*parts, code: str) -> str:
    """The cache key: a hash of `parts` (bytes or str) and a code fingerprint."""
    import hashlib
    h = hashlib.sha256(code.encode())
    for p in parts:
        b = p if isinstance(p, bytes) else str(p).encode()
        h.update(len(b).to_bytes(8, "little") + b)     # length-prefixed: parts never run together
    return h.hexdigest()


def slot(*parts) -> str:
    """A short name for what an entry is *for* (a file path, a books folder)."""
    import hashlib
    return hashlib.sha256("\0".join(map(str, parts)).encode()).hexdigest()[:16]


def replace_entry(path: str, root: str | None = None) -> None:
    """After writing `path` (`<slot>-<key>...` in a store folder), remove the other
    entries of its slot, then maybe `sweep` the cache folder `root`."""
    folder, name = os.path.split(path)
    prefix = name.split("-", 1)[0] + "-"
    try:
        for other in os.listdir(folder):
            if other.startswith(prefix) and other != name and not other.endswith(".tmp"):
                try:
                    os.unlink(os.path.join(folder, other))
                except OSError:
                    pass
    except OSError:
        pass
    sweep(root)


def sweep(root: str | None = None, now: float | None = None, force: bool = False) -> int:
    """Remove cache entries not written for MAX_AGE_DAYS days (and temp files older
    than a day); runs at most once a day unless forced.  Returns how many went."""
    import time
    root = os.fspath(root) if root is not None else paths.cache_dir()
    if not paths.trusted_cache_dir(root):
        return 0                         # another user's folder: nothing is removed from it
    marker = os.path.join(root, ".swept")
    now = time.time() if now is None else now
    try:
        if not force and now - os.stat(marker).st_mtime < 86400:
            return 0
    except OSError:
        pass
    try:
        paths.make_cache_dirs(root)
        with open(marker, "w"):
            pass
    except OSError:
        return 0
    removed = 0
    for dirpath, _, files in os.walk(root):
        for f in files:
            p = os.path.join(dirpath, f)
            limit = 86400 if f.endswith(".tmp") else MAX_AGE_DAYS * 86400
            try:
                if f != ".swept" and now - os.stat(p).st_mtime > limit:
                    os.unlink(p)
                    removed += 1
            except OSError:
                pass
    return removed


def load_fresh(path, dep_keys: dict, root=None):
    """The pickled dict at `path` (in the cache folder `root`) if every key its ``deps``
    recorded is still the one in `dep_keys` (the books it was made from, and those it
    consulted), else None (absent, damaged, stale or untrusted: to be made again)."""
    try:
        kept = paths.read_pickle(path, root=root)
        if all(dep_keys.get(d) == k for d, k in kept["deps"].items()):
            return kept
    except Exception:
        pass
    return None
