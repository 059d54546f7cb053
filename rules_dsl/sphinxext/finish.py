"""The html builder's end-of-build work, done only when its inputs changed.

Sphinx ends every html build, even one with nothing to write, by writing the whole
general index again (a page per letter, each with the full sidebar) and by loading
and dumping the whole full-text search index (`searchindex.js`).  Both grow with the
library: at a hundred books they are most of a rebuild in which nothing changed.

* **General index.**  Its pages are made of the index entries of every document, the
  navigation (pages, titles, toctrees) and the configuration.  A digest of those is
  kept in the doctree folder (`STATE_FILE`); when it matches and the pages are in
  place, `write_genindex` is skipped.  When it is written (split per letter), a letter
  past `GENINDEX_LINES` lines gets several pages (`split_letters`), so no page of it
  grows with the library.
* **Search index** (`fulltext.py`).  A rule's text is left to the rule search, and a
  page whose words are unchanged is not fed again: when no page is, and no page was
  added or removed, the index is neither loaded nor dumped.
* **Search page** (and `html_additional_pages`): written again only when the navigation
  or the configuration changed (its sidebar is the whole navigation).
* **Inventory** (`objects.inv`).  Made of every domain's objects and the project's
  name and version: written again only when a digest of those changes.

All are wrappers around the builder's own methods (through compat.py, which names the
internals and checks them), installed at `builder-inited` for the standalone html
builders only; anything they do not recognise falls back to Sphinx's own behaviour.
"""
from __future__ import annotations

from pathlib import Path

from ..paths import read_json_dict, update_json_dict
from . import buildstate, compat, fulltext
from .keys import digest, render_key

STATE_FILE = "rules_dsl-finish.json"


def _state_path(app) -> Path:
    return Path(app.doctreedir) / STATE_FILE


def _save(app, **changes):
    update_json_dict(_state_path(app), **changes)


def _skip_unless_changed(app, builder, wrap, name: str, key_of, outputs, run=None):
    """Wrap a builder method with `wrap` (a `compat.wrap_*`): when `key_of(app)` is the key
    recorded under `name` at the last build and every file of `outputs()` (relative to the
    output folder) is in place, do nothing; else `run(original)` (default: the builder's
    own method) and record the key."""
    def make(original):
        def wrapper():
            key = key_of(app)
            out = Path(builder.outdir)
            if read_json_dict(_state_path(app)).get(name) == key and all((out / f).is_file() for f in outputs()):
                return
            run(original) if run is not None else original()
            _save(app, **{name: key})
        return wrapper
    wrap(app, make)


def _page_context(app) -> tuple:
    """What every page written here shows besides its content: the navigation (its
    sidebar), the configuration and this extension's code."""
    from .outdated import navigation_state
    return (navigation_state(app.env), *compat.build_info_hashes(app), render_key())


def _entries_digest(app) -> str:
    entries = app.env.domains.index_domain.entries
    return digest(sorted((doc, tuple(es)) for doc, es in entries.items()))


def _objects_digest(app) -> str:
    return digest([(domain.name, sorted(tuple(o) for o in domain.get_objects())) for domain in app.env.domains.sorted()])


def docs_changed(app, env=None, added=(), changed=(), removed=()):
    """env-get-outdated: are pages added, changed or removed?  (env-before-read-docs, after
    every extension had its say: will pages be read?)"""
    buildstate.of(app)["docs_changed"] = bool(removed or added or changed)
    return []


def before_read(app, env, docnames):
    if docnames:
        buildstate.of(app)["docs_changed"] = True


def note_contents(app, env):
    """env-updated: digest what the general index and the inventory are made of (every
    page's index entries, every domain's objects) when pages were read or removed this
    build; else the digests of the last build stand (the environment was not changed), and
    a rebuild with nothing to read does not hash them again (0.2 s at a hundred books).
    Recorded before the environment is saved: a build that fails after this point has
    saved an environment these digests describe, one that fails before reads the pages
    again."""
    state = read_json_dict(_state_path(app))
    if (buildstate.of(app).get("docs_changed", True) or "index_entries" not in state
            or "domain_objects" not in state):
        _save(app, index_entries=_entries_digest(app), domain_objects=_objects_digest(app))
    return []


def _genindex_key(app) -> str:
    entries = read_json_dict(_state_path(app)).get("index_entries") or _entries_digest(app)
    return digest((entries, _page_context(app), app.config.html_split_index))


def install(app):
    """builder-inited: wrap the html builder's general index and search index writers."""
    builder = app.builder
    if builder.format != "html" or not all(hasattr(builder, m) for m in (
            "write_genindex", "load_indexer", "index_page", "dump_search_index", "searchindex_filename",
            "dump_inventory")):
        return
    # the general index: its entries and the page context (split per letter: `split_letters`)
    _skip_unless_changed(app, builder, compat.wrap_write_genindex, "genindex", _genindex_key,
                         lambda: ["genindex.html"], run=lambda original: _write_genindex(app, builder, original))
    fulltext.install(app, builder)
    _skip_unless_changed(app, builder, compat.wrap_dump_inventory, "inventory", _inventory_key,
                         lambda: ["objects.inv"])
    if hasattr(builder, "gen_additional_pages"):
        # the search page (and any html_additional_pages): their sidebar is the whole navigation
        _skip_unless_changed(app, builder, compat.wrap_gen_additional_pages, "additional", _additional_key,
                             lambda: (["search.html"] if builder.search else [])
                             + [f"{name}.html" for name in app.config.html_additional_pages])


def _write_genindex(app, builder, original) -> None:
    """Split per letter (`split_letters`) with ``html_split_index``; else Sphinx's own."""
    if not app.config.html_split_index:
        return original()
    try:
        index = compat.general_index(app, builder)
    except compat.CompatError as why:
        compat.broken("general_index", str(why), "Sphinx writes its own split index (letters not cut)")
        return original()
    _write_split_genindex(app, builder, index)


def _additional_key(app) -> str:
    return digest((_page_context(app), sorted(app.config.html_additional_pages.items()),
                   app.config.html_use_opensearch))


def _inventory_key(app) -> str:
    objects = read_json_dict(_state_path(app)).get("domain_objects") or _objects_digest(app)
    return digest((objects, app.config.project, app.config.version, render_key()))


#: links (of entries and sub-entries) on one page of the split general index: a letter with
#: more is split into pages `genindex-S`, `genindex-S-2`, ... (a few hundred bytes a link)
GENINDEX_LINES = 600


def _weight(entry) -> int:
    """An entry's share of a page: its links and its sub-entries' links (a term that every
    book of a library has, "Suppression (rule)", is one line with a link per book)."""
    _name, (links, subitems, _key) = entry
    return max(1, len(links)) + sum(max(1, len(sublinks)) for _sub, sublinks in subitems)


def split_letters(genindex: list, budget: int = GENINDEX_LINES) -> list:
    """[(key, entries)] with every letter whose entries pass `budget` links (`_weight`) cut
    into consecutive pages (whole entries: an entry keeps its sub-entries), keyed `S`, `S-2`..."""
    out = []
    for key, entries in genindex:
        pages, cur, n = [], [], 0
        for entry in entries:
            lines = _weight(entry)
            if cur and n + lines > budget:
                pages.append(cur)
                cur, n = [], 0
            cur.append(entry)
            n += lines
        pages.append(cur)
        out.extend((key if i == 0 else f"{key}-{i + 1}", part) for i, part in enumerate(pages))
    return out


def _write_split_genindex(app, builder, index: list):
    """Sphinx's split general index (`write_genindex` with html_split_index), but a letter
    never makes a page past `GENINDEX_LINES`: at a hundred books one letter holds every
    rule of every book whose title starts with it."""
    import re

    budget = getattr(app.config, "rules_index_lines", GENINDEX_LINES)
    genindex = split_letters(index, budget)
    counts = [sum(1 + len(sub) for _, (_, sub, _) in entries) for _key, entries in genindex]
    context = {"genindexentries": genindex, "genindexcounts": counts, "split_index": True}
    builder.handle_page("genindex", context, "genindex-split.html")
    builder.handle_page("genindex-all", context, "genindex.html")
    written = set()
    for (key, entries), count in zip(genindex, counts):
        builder.handle_page("genindex-" + key, {"key": key, "entries": entries, "count": count,
                                                "genindexentries": genindex}, "genindex-single.html")
        written.add(f"genindex-{key}.html")
    for p in Path(builder.outdir).glob("genindex-*.html"):     # pages of a letter that has shrunk
        if re.fullmatch(r"genindex-.+-[0-9]+\.html", p.name) and p.name not in written:
            p.unlink(missing_ok=True)

