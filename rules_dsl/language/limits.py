"""Limits of the language that its checks and its evaluator share.

The evaluator (compiler/context.py) stops past them with an error; the checks
(analysis/: the ranges and calls passes) find a book that goes past them before
anything runs, where they can prove it.  Both read them here, so they cannot
disagree (docs/language.md, "A book is data", lists every limit and which are
checked before running).  The dice limits live with the dice (dice.py).
"""
from __future__ import annotations

MAX_CALL_DEPTH = 50          # mechanics calling mechanics, levels deep
MAX_RANGE = 1_000_000        # values in one range `a..b`

__all__ = ["MAX_CALL_DEPTH", "MAX_RANGE"]
