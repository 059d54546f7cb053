"""The glossary and the cross index are split into pages that stay small however
big the library (no site build here: the split itself)."""
from __future__ import annotations

from rules_dsl.sphinxext import crossbook


def entry(key, links):
    return {"key": key, "label": key.capitalize(), "rules": [("b", f"r{i}", "T") for i in range(links)]}


def test_a_page_per_letter_and_a_prefix_when_a_letter_is_over_budget():
    entries = sorted([entry("armour", 3), entry("aim", 2), entry("blast", 1), entry("2nd wave", 1),
                      entry("-", 1)] + [entry(f"s{c}x", 4) for c in "aeiou"], key=lambda e: e["key"])
    pages = crossbook.split_pages(entries, key=lambda e: e["key"], weight=lambda e: len(e["rules"]), budget=8)
    slugs = [s for s, _ in pages]
    assert slugs == ["2", "a", "b", "sa", "se", "si", "so", "su", "other"]
    assert [e["key"] for s, es in pages for e in es] == [e["key"] for e in entries if e["key"] != "-"] + ["-"]
    assert all(sum(len(e["rules"]) for e in es) <= 8 for s, es in pages if s != "a")


def test_one_big_term_is_one_page_not_an_endless_split():
    pages = crossbook.split_pages([entry("suppression", 5000)], key=lambda e: e["key"],
                                  weight=lambda e: len(e["rules"]), budget=10)
    assert [s for s, _ in pages] == ["s"]


def test_glossary_and_cross_index_pages_cover_every_entry():
    models = {b: {"rules": {"r": {"id": "r", "title": "Suppressive Fire", "keywords": ["pinned", "fire"]}}}
              for b in ("one", "two")}
    gl = crossbook.glossary(models)
    assert sum(len(es) for _, es in crossbook.glossary_pages(gl)) == len(gl) == 2
    xi = crossbook.cross_index(models)
    assert sum(len(es) for _, es in crossbook.xindex_pages(xi)) == len(xi) > 0


def test_referenced_by_turns_checked_references_around_in_a_fixed_order():
    from rules_dsl.sphinxext import backlinks

    def rule(title, refs=()):
        return {"title": title, "refs": list(refs)}
    models = {
        "one": {"rules": {"target": rule("Target"), "zeta": rule("Zeta", [("one", "target")]),
                          "alpha": rule("Alpha", [("one", "target"), ("one", "a-section")])}},
        "two": {"rules": {"far": rule("Far", [("one", "target"), ("gone", "x")])}},
    }
    back = backlinks.referenced_by(models)
    # the target's own book first, by title; then the other books; sections and absent books ignored
    assert back == {("one", "target"): [("one", "alpha", "Alpha"), ("one", "zeta", "Zeta"), ("two", "far", "Far")]}
    models["one"]["rules"] = dict(reversed(list(models["one"]["rules"].items())))
    assert backlinks.referenced_by(models) == back


def test_meta_descriptions_and_caption_headings():
    from rules_dsl.sphinxext import site

    from types import SimpleNamespace
    Site = lambda: SimpleNamespace(books_rel="docs/books", models={"b": {"title": "Book", "prose": ["An intro for players. More."],
                        "sections": {"s": {"title": "Shooting", "items": [("rule", "r"), ("section", "t")]},
                                     "t": {"title": "Cover", "items": []}},
                        "rules": {"r": {"title": "Aimed Shot"}}}})
    assert site.page_description(Site(), "docs/index", "docs/index") == site.HOME_DESCRIPTION
    assert site.page_description(Site(), "docs/books/b/index", "docs/index").startswith("Book: the rules")
    assert site.page_description(Site(), "docs/books/b/s", "docs/index") == \
        "Shooting, from the rules of Book: Aimed Shot, Cover."
    assert len(site.page_description(Site(), "x", "docs/index", None, "T" * 500)) <= site.DESCRIPTION_CHARS
    html = '<p class="caption" role="heading"><span class="caption-text">Books</span></p>'
    assert 'role="heading" aria-level="2"' in site._caption_level(html)
