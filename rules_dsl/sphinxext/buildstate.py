"""State that lives for one build (or one process's part of it), kept beside the app.

Sphinx offers extensions the environment (`env`, pickled between builds: for what must
last) and the app; values that must not be pickled and must not outlive the build are
kept here, in a registry keyed by the app (weakly: a finished build's app is freed as
usual), rather than in the app's own ``__dict__``, which is Sphinx's.
"""
from __future__ import annotations

import weakref

_STATE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
#: id -> (object, state) for stand-ins that take no weak reference (tests' SimpleNamespace):
#: kept alive with their state, so an id is never reused while it is a key
_PINNED: dict = {}


def of(app) -> dict:
    """The build's state: a dict of this extension's own, one per app."""
    try:
        state = _STATE.get(app)
        if state is None:
            state = _STATE[app] = {}
        return state
    except TypeError:
        pinned = _PINNED.get(id(app))
        if pinned is None:
            pinned = _PINNED[id(app)] = (app, {})
        return pinned[1]
