"""Former name of `rules_dsl.odds.aggregates` (the aggregate fast path); kept importable."""
import sys

from .odds import aggregates as _aggregates

sys.modules[__name__] = _aggregates
