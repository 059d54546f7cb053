"""State that lives for one build (or one process's part of it), kept beside the app.

Sphinx offers extensions the environment (`env`, pickled between builds: for what must
last) and the app; values that must not be pickled and must not outlive the build are
kept here, in a registry keyed by the app (weakly: a finished build's app is freed as
usual), rather than in the app's own ``__dict__``, which is Sphinx's.
"""
from __future__ import annotations

import weakref

_STATE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def of(app) -> dict:
    """The build's state: a dict of this extension's own, one per app."""
    state = _STATE.get(app)
    if state is None:
        state = _STATE[app] = {}
    return state
