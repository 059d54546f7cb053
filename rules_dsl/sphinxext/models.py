"""The render models of every book, kept between builds in the doctree folder.

`load_models` compiles a book only when its files changed (`content_key`), and
recomputes its derived data only when its declarations or examples changed
(`semantic_key`); problems (compile errors, failing examples, odds that cannot be
computed) are returned for the build to report.
"""
from __future__ import annotations

import pickle
from pathlib import Path

from ..paths import write_pickle
from .data import build_model, example_locations
from .derived import compute_derived
from .keys import MODEL_VERSION, code_key, content_key, engine_key, semantic_key


class ModelCache:
    """book id -> entry, pickled in the doctree folder between builds."""

    def __init__(self, path: Path):
        self.path = path
        self.entries = {}
        try:
            with open(path, "rb") as f:
                data = pickle.load(f)
            if data.get("version") == MODEL_VERSION:
                self.entries = data["books"]
        except Exception:
            self.entries = {}

    def save(self):
        write_pickle(self.path, {"version": MODEL_VERSION, "books": self.entries})  # an optimisation only


def load_models(cache: ModelCache):
    """Load every book (reusing cached models of unchanged books).

    Returns (models, problems): models maps book id -> model for the books that
    compile; problems is a list of (kind, book, location, message) to report.
    """
    from ..errors import RulebookError, RulesError
    from ..loader import book_files, book_ids, load

    code = code_key()
    engine = engine_key()
    models, problems = {}, []
    seen = set()
    for bid in book_ids():
        seen.add(bid)
        try:
            files = book_files(bid)
            ckey = content_key(files, code)
        except (OSError, RulesError) as e:  # a book vanishing while we look at it
            problems.append(("error", bid, None, str(e)))
            continue
        entry = cache.entries.get(bid)
        if entry is not None and entry.get("content_key") == ckey and entry.get("model") is not None:
            models[bid] = entry["model"]
            problems.extend(_entry_problems(bid, entry))
            continue
        try:
            book = load(bid)
        except RulebookError as e:
            d = e.diagnostics[0]
            problems.append(("compile", bid, (d.file, d.line), e.render()))
            cache.entries[bid] = {"content_key": None, "model": None}
            continue
        except (OSError, RulesError) as e:
            problems.append(("error", bid, None, str(e)))
            continue
        skey = semantic_key(book.ast, code)
        derived = entry.get("derived") if entry and entry.get("semantic_key") == skey else None
        if derived is None:
            derived = compute_derived(book, engine)
        model = build_model(book, derived)
        entry = {"content_key": ckey, "semantic_key": skey, "derived": derived, "model": model,
                 "locations": example_locations(book)}
        cache.entries[bid] = entry
        models[bid] = model
        problems.extend(_entry_problems(bid, entry))
    for bid in list(cache.entries):
        if bid not in seen:
            del cache.entries[bid]
    return models, problems


def _entry_problems(bid, entry):
    out = []
    derived = entry.get("derived") or {}
    locs = entry.get("locations") or {}
    for f in derived.get("failures", []):
        loc = locs.get((f["rule"], f["index"]))
        where = None
        if loc:
            file, _, line = loc.rpartition(":")
            where = (file, int(line) if line.isdigit() else None)
        title = f" ({f['title']})" if f["title"] else ""
        out.append(("example", bid, where, f"example of {bid}:{f['rule']}{title} failed:\n{f['report'].rstrip()}"))
    for name, err in (derived.get("odds_errors") or {}).items():
        out.append(("odds", bid, None, f"exact odds of {bid}:{name} could not be computed: {err}"))
    return out
