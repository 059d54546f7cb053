"""rules_dsl: wargame rulebooks as code.

One `.rules` source per book holds the prose and the mechanics together; this
package compiles it to executable resolvers, a Sphinx website and a lookup index.

    >>> import rules_dsl
    >>> book = rules_dsl.load("null-strike")          # doctest: +SKIP
    >>> book.mechanics["opposed_target"](5, 3)          # doctest: +SKIP

Imports here stay lazy so that the `rules` command starts fast.
"""
from .version import __version__

__all__ = ["Library", "load", "load_all", "book_ids", "RulesError", "RulebookError", "InputError", "EvaluationError",
           "NotFound", "__version__"]


def __getattr__(name):
    if name in ("Library", "load", "load_all", "book_ids"):
        from .library import loader
        return getattr(loader, name)
    if name in ("RulesError", "RulebookError", "InputError", "EvaluationError", "NotFound"):
        from . import errors
        return getattr(errors, name)
    raise AttributeError(name)
