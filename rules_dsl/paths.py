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


def grammar_path() -> str:
    return os.path.join(_PKG, "grammar.lark")
