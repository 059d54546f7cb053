"""Where books and caches live.  Kept import-light (os only): `rules lookup` needs it at start-up.

* books: `RULES_DSL_BOOKS`, else the `rulebooks/` folder beside the package;
* cache: `RULES_DSL_CACHE`, else `$XDG_CACHE_HOME/rules-dsl` (default `~/.cache/rules-dsl`).
"""
import os

_PKG = os.path.dirname(os.path.abspath(__file__))


def books_dir() -> str:
    return os.environ.get("RULES_DSL_BOOKS") or os.path.join(os.path.dirname(_PKG), "rulebooks")


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


def grammar_path() -> str:
    return os.path.join(_PKG, "grammar.lark")
