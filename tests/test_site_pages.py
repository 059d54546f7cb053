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
    assert slugs == ["a", "b", "sa", "se", "si", "so", "su", "0-9", "other"]    # numbers after the letters
    keys = [e["key"] for e in entries]
    assert [e["key"] for s, es in pages for e in es] == [k for k in keys if k[0].isalpha()] + ["2nd wave", "-"]
    assert all(sum(len(e["rules"]) for e in es) <= 8 for s, es in pages if s != "a")


def test_one_big_term_is_one_page_not_an_endless_split_when_it_cannot_be_cut():
    pages = crossbook.split_pages([entry("suppression", 5000)], key=lambda e: e["key"],
                                  weight=lambda e: len(e["rules"]), budget=10)
    assert [s for s, _ in pages] == ["s"]


def xterm(stem, books, per_book):
    return {"stem": stem, "label": stem.capitalize(),
            "books": {f"b{i:03}": [(f"r{j}", f"T{j}", j == 0) for j in range(per_book)] for i in range(books)}}


def test_a_cross_index_term_bigger_than_a_page_is_cut_by_books_onto_numbered_pages():
    # "Basic Weapons" at 100 books: 14 links a book, one term, 520 KB on one page before
    big, small = xterm("weapon", 100, 14), xterm("wound", 2, 1)
    pages = crossbook.xindex_pages([big, small])
    slugs = [s for s, _ in pages]
    assert slugs == ["we", "we-2", "we-3", "wo"]
    assert [crossbook.page_title(s) for s in slugs] == ["We", "We, page 2", "We, page 3", "Wo"]
    parts = [e for _, es in pages for e in es if e["stem"] == "weapon"]
    assert [(e["part"], e["parts"]) for e in parts] == [(1, 3), (2, 3), (3, 3)]
    assert [b for e in parts for b in e["books"]] == list(big["books"])       # every book once, in order
    assert all(e["books"][b] == big["books"][b] for e in parts for b in e["books"])   # a book's rules stay together
    assert all(sum(len(r) for e in es for r in e["books"].values()) <= crossbook.LINKS_PER_PAGE for _, es in pages)
    assert crossbook.part_label(parts[1]) == "Weapon (part 2 of 3)" and crossbook.part_label(small) == "Wound"
    assert pages[-1][1] == [small]
    assert crossbook.jump_targets(slugs)[22] == ("W", "we")


def test_a_glossary_keyword_bigger_than_a_page_keeps_its_definitions_on_the_first_part():
    e = entry("cover", 1300)
    e["rules"] = [(f"b{i // 13:03}", f"r{i}", "T") for i in range(1300)]
    e["definitions"] = [("b000", "r0", "Cover", "Cover is ...")]
    pages = crossbook.glossary_pages([e])
    assert [s for s, _ in pages] == ["c", "c-2", "c-3"]
    parts = [x for _, es in pages for x in es]
    assert [x["definitions"] for x in parts] == [e["definitions"], [], []]
    assert [r for x in parts for r in x["rules"]] == e["rules"]
    assert all(len({r[0] for r in a["rules"]} & {r[0] for r in b["rules"]}) == 0
               for a, b in zip(parts, parts[1:]))                              # no book is cut in two
    assert max(len(x["rules"]) + 3 * len(x["definitions"]) for x in parts) <= crossbook.LINKS_PER_PAGE


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
    from rules_dsl.sphinxext import page_head

    from types import SimpleNamespace
    Site = lambda: SimpleNamespace(books_rel="docs/books", models={"b": {"title": "Book", "prose": ["An intro for players. More."],
                        "sections": {"s": {"title": "Shooting", "items": [("rule", "r"), ("section", "t")]},
                                     "t": {"title": "Cover", "items": []}},
                        "rules": {"r": {"title": "Aimed Shot"}, "q": {"title": "Snap Shot"}}}},
        plans={"b": {"pages": {"s": {"section": "s", "part": 1, "parts": 1, "items": None},
                               "s/part-2": {"section": "s", "part": 2, "parts": 2, "items": [("rule", "q")]}}}})
    assert page_head.page_description(Site(), "docs/index", "docs/index") == page_head.HOME_DESCRIPTION
    assert page_head.page_description(Site(), "docs/books/b/index", "docs/index").startswith("Book: quick reference and rules")
    assert page_head.page_description(Site(), "docs/books/b/s", "docs/index") == \
        "Shooting, from the rules of Book: Aimed Shot, Cover."
    assert page_head.page_description(Site(), "docs/books/b/s/part-2", "docs/index") == \
        "Shooting (part 2 of 2), from the rules of Book: Snap Shot."
    assert len(page_head.page_description(Site(), "x", "docs/index", None, "T" * 500)) <= page_head.DESCRIPTION_CHARS
    html = '<p class="caption" role="heading"><span class="caption-text">Books</span></p>'
    assert 'role="heading" aria-level="2"' in page_head.caption_level(html)


def rule(rid, title, keywords=(), aliases=(), definition=""):
    return {"id": rid, "title": title, "keywords": list(keywords), "aliases": list(aliases),
            "definition": definition}


def test_glossary_entries_say_what_a_keyword_means_from_the_rule_that_defines_it():
    models = {
        "dust": {"rules": {"suppression": rule("suppression", "Suppression", ["suppressed", "pinned"],
                                               aliases=["Suppressed"], definition="A unit under fire may freeze."),
                           "shooting": rule("shooting", "Shooting", ["suppression", "4+", "2d6"],
                                            definition="Units shoot.")}},
        "void": {"rules": {"pin": rule("pin", "Pinned", ["pinned"], definition="A pinned unit <b>stops</b>.")}},
    }
    gl = {e["key"]: e for e in crossbook.glossary(models)}
    # "suppressed" is an alias of Suppression (plural/case folded as names are): its first sentence
    assert gl["suppressed"]["definitions"] == [("dust", "suppression", "Suppression", "A unit under fire may freeze.")]
    assert gl["suppression"]["definitions"][0][1] == "suppression"
    # one definition per book that defines it; the text stays plain (the renderer escapes it)
    assert [d[0] for d in gl["pinned"]["definitions"]] == ["void"]
    assert gl["pinned"]["definitions"][0][3] == "A pinned unit <b>stops</b>."
    assert "4+" not in gl and "2d6" in gl            # bare numbers are search words only
    assert gl["pinned"]["rules"] == [("dust", "suppression", "Suppression"), ("void", "pin", "Pinned")]
    pages = crossbook.glossary_pages(list(gl.values()))
    assert [s for s, _ in pages][-1] == "0-9"
    jump = crossbook.jump_targets([s for s, _ in pages])
    assert jump[0] == ("A", None) and ("P", "p") in jump and ("S", "s") in jump and jump[-1] == ("0–9", "0-9")


def test_first_sentence_of_a_definition():
    from rules_dsl.sphinxext.data import first_sentence
    assert first_sentence("Roll 2d6, e.g. To hit. Then add 3.", min_words=1) == "Roll 2d6, e.g. To hit."
    assert first_sentence("Cover vs. Blast works. No.", min_words=1) == "Cover vs. Blast works."
    # a lead-in ("Receiving tokens.") is not a definition: the next sentence comes with it
    assert first_sentence("Receiving tokens. A unit hit by an attack gets a token. More.") == \
        "Receiving tokens. A unit hit by an attack gets a token."
    assert first_sentence("No full stop at all") == "No full stop at all"
    long = first_sentence("word " * 200)
    assert len(long) <= 322 and long.endswith(" …")


def test_same_titles_sort_the_same_whatever_the_order_of_the_books():
    """Ties of title are broken by rule id, so the pages do not depend on set or dict order."""
    a = {"b1": {"rules": {"x2": rule("x2", "Cover", ["cover"]), "x1": rule("x1", "Cover", ["cover"])}},
         "b2": {"rules": {"y": rule("y", "Cover", ["cover"])}}}
    b = {"b2": a["b2"], "b1": {"rules": dict(reversed(list(a["b1"]["rules"].items())))}}
    assert crossbook.glossary(a) == crossbook.glossary(b)
    assert crossbook.cross_index(a) == crossbook.cross_index(b)
    assert [r[1] for r in crossbook.glossary(a)[0]["rules"]] == ["x1", "x2", "y"]


TOKENS_RULE = '''section s "S" {
  rule tokens "Tokens" {
    """Roll to shake off tokens."""
    enum state { clear, shaken, broken }
    mechanic recover(st: state, extra: bool = false) -> state {
      roll dice: (if st == clear then 0 else if extra then 3 else 2) of dust
      let armies = count(f for f in dice if f == army)
      return if st == clear or armies >= 2 then clear else if armies == 1 then shaken else st
    }
    mechanic sure(n: 0..3) -> int {
      roll dice: n of d6
      return 7
    }
  }
}
'''


def test_page_odds_show_the_inputs_that_roll_and_no_table_that_says_nothing(demo_books):
    """A page's odds start from inputs that roll (not `clear`, where nothing is rolled),
    vary enums and booleans, and leave out certain rows; every row certain: no table."""
    import rules_dsl
    from conftest import write_book
    from rules_dsl.odds import page_odds
    write_book(demo_books, "tok", TOKENS_RULE)
    book = rules_dsl.load("tok")
    shown = [inp for inp, _ in page_odds(book.mechanics["recover"])]
    assert shown[0] == {"st": "shaken", "extra": False}
    assert {"st": "broken", "extra": False} in shown and {"st": "shaken", "extra": True} in shown
    assert all(inp["st"] != "clear" for inp in shown)
    assert page_odds(book.mechanics["sure"]) == []


def test_tall_odds_blocks_fold_their_unlikely_tail():
    from fractions import Fraction

    from rules_dsl.faces.records import ODDS_BLOCK_ROWS, fold_odds
    from rules_dsl.language.values import percent_text
    probs = [Fraction(1, 2 ** (i + 1)) for i in range(29)] + [Fraction(1, 2 ** 29)]
    at_least = [sum(probs[i:]) for i in range(len(probs))]
    outs = [(str(i), p.numerator, p.denominator, percent_text(p), percent_text(a))
            for i, (p, a) in enumerate(zip(probs, at_least))]
    block = fold_odds({"inputs": "n=2", "outcomes": outs, "mean": "1", "exact": True})
    assert len(block["outcomes"]) <= ODDS_BLOCK_ROWS and block["folded"] == 30 - 7
    last = block["outcomes"][-1]
    assert last[0] == "7 or more" and Fraction(last[1], last[2]) == at_least[7] and last[4] == outs[7][4]
    assert sum(Fraction(o[1], o[2]) for o in block["outcomes"]) == 1
    small = fold_odds({"inputs": "", "outcomes": outs[:5], "mean": None, "exact": True})
    assert small["folded"] == 0 and small["outcomes"] == outs[:5]


def test_an_enum_member_says_how_the_source_prints_it():
    from rules_dsl.language import nodes as n
    from rules_dsl.language.parser import parse_text
    src = 'book b {\n title "B"\n}\nsection s "S" {\n rule r "R" {\n  enum e { yes "A", no "\u2013", maybe }\n }\n}\n'
    sf = parse_text(src, "b.rules")
    enum = next(x for x in n.iter_nodes(sf) if isinstance(x, n.Enum))
    assert enum.members == ("yes", "no", "maybe")
    assert enum.printed == (("yes", "A"), ("no", "\u2013"))


# ------------------------------------------------------------------ a section too big for one page
def big_rule(rid, title, chars=1000):
    return {"id": rid, "title": title, "prose": ["x" * chars], "flavour": [], "notes": [], "examples": [],
            "workings": [], "decls": [], "keywords": [], "aliases": [], "uses": [], "findings": []}


def book_model(sections: dict, top: list) -> dict:
    """A render model with just what the page plan reads: sections of rules (and sub-sections)."""
    rules, secs = {}, {}
    for sid, (title, items) in sections.items():
        secs[sid] = {"id": sid, "title": title, "prose": [], "items": []}
        for kind, value in items:
            if kind == "rule":
                rules[value[0]] = big_rule(*value)
                secs[sid]["items"].append(("rule", value[0]))
            else:
                secs[sid]["items"].append((kind, value))
    return {"id": "b", "title": "B", "sections": secs, "rules": rules, "top_sections": top}


def test_a_section_under_budget_is_one_page():
    from rules_dsl.sphinxext import pagesplit
    model = book_model({"s": ("Shooting", [("rule", ("a", "Aim")), ("rule", ("b", "Blast"))]),
                        "index": ("Index", [("rule", ("c", "Cover"))])}, ["s", "index"])
    plan = pagesplit.plan(model, budget=10_000)
    assert plan["top"] == {"s": ["s"], "index": ["section-index"]}
    assert plan["pages"]["s"] == {"section": "s", "part": 1, "parts": 1, "items": None, "label": ""}


def test_a_section_over_budget_is_cut_into_parts_of_about_equal_weight_in_order():
    from rules_dsl.sphinxext import pagesplit
    rules = [("rule", (f"r{i}", f"Rule {i}")) for i in range(10)]
    model = book_model({"s": ("Shooting", [("prose", "An intro.")] + rules)}, ["s"])
    one = pagesplit.rule_weight(model["rules"]["r0"])
    plan = pagesplit.plan(model, budget=4 * one)         # 10 rules, 4 a page: 3 parts
    assert plan["top"]["s"] == ["s", "s/part-2", "s/part-3"]
    pages = [plan["pages"][p] for p in plan["top"]["s"]]
    assert [(p["part"], p["parts"]) for p in pages] == [(1, 3), (2, 3), (3, 3)]
    shown = [it for p in pages for it in p["items"]]
    assert shown == model["sections"]["s"]["items"]           # every item once, in order
    assert shown[0] == ("prose", "An intro.") and pages[0]["items"][1] == ("rule", "r0")   # prose stays with its rule
    assert all(3 <= sum(k == "rule" for k, _ in p["items"]) <= 4 for p in pages)
    assert pages[1]["label"] == "Rule " + pages[1]["items"][0][1][1:] + " – Rule " + pages[1]["items"][-1][1][1:]
    assert pagesplit.plan(model, budget=4 * one) == plan     # deterministic
    assert pagesplit.plan(model, budget=11 * one)["top"]["s"] == ["s"]


def test_a_big_section_gives_its_sub_sections_their_own_pages():
    from rules_dsl.sphinxext import pagesplit
    model = book_model({
        "s": ("Shooting", [("rule", ("a", "Aim", 100)), ("section", "t"), ("rule", ("z", "Zeroing", 100)),
                           ("section", "u")]),
        "t": ("Templates", [("rule", (f"t{i}", f"Template {i}")) for i in range(6)]),
        "u": ("Unseen", [("rule", ("u0", "Unseen Target"))]),
    }, ["s"])
    one = pagesplit.rule_weight(model["rules"]["t0"])
    plan = pagesplit.plan(model, budget=4 * one)
    assert plan["top"]["s"] == ["s"]                          # what is left fits one page
    assert plan["pages"]["s"]["items"] == [("rule", "a"), ("section", "t"), ("rule", "z"), ("section", "u")]
    assert plan["families"]["t"] == ["t", "t/part-2"]         # itself too big: split again
    assert plan["families"]["u"] == ["u"] and plan["pages"]["u"]["items"] is None
    rules_on_pages = [v for p in plan["pages"].values() for k, v in (p["items"] or []) if k == "rule"]
    assert sorted(rules_on_pages) == ["a", "t0", "t1", "t2", "t3", "t4", "t5", "z"]


def test_weight_follows_what_a_rule_shows():
    from rules_dsl.sphinxext import pagesplit
    plain = big_rule("r", "R", 100)
    odds = dict(plain, decls=[{"kind": "mechanic", "params": [("n", "int", "", None)], "rolls": [], "lines": ["x"],
                               "doc": "", "odds": [{"outcomes": [("1", 1, 2, "50%", "")] * 20}]}])
    worked = dict(plain, examples=[("", ">>> f()\n1")],
                  cases=[[{"sentence": "F: 1.", "code": ">>> f()\n1", "working": [(0, "let", "line of working")] * 30}]])
    assert pagesplit.rule_weight(odds) > pagesplit.rule_weight(plain) + 20 * pagesplit.PER_ODDS_ROW - 1
    assert pagesplit.rule_weight(worked) > pagesplit.rule_weight(plain) + 30 * len("line of working")


def test_stubs_follow_the_plan_and_stale_parts_are_removed(tmp_path):
    from rules_dsl.sphinxext import pagesplit, site

    def site_for(model, budget):
        s = site.Site.__new__(site.Site)
        s.srcdir, s.books_rel, s.doctreedir = tmp_path, "docs/books", tmp_path / "doctrees"
        s.gen_dir = tmp_path / "docs" / "books"
        s.models = {"b": model}
        s.summaries = {"b": {"layered": False}}          # a layered book also gets a what-changed stub
        s.plans = {"b": pagesplit.plan(model, budget)}
        s.page_slugs = ([], [])
        s.games_pages = {}
        return s
    model = book_model({"s": ("Shooting", [("rule", (f"r{i}", f"Rule {i}")) for i in range(6)])}, ["s"])
    one = pagesplit.rule_weight(model["rules"]["r0"])
    site_for(model, 2 * one).write_stubs()
    book = tmp_path / "docs" / "books" / "b"
    assert sorted(p.relative_to(book).as_posix() for p in book.rglob("*.md")) == [
        "index.md", "s.md", "s/part-2.md", "s/part-3.md"]
    assert ":part: 3\n" in (book / "s" / "part-3.md").read_text()
    site_for(model, 100 * one).write_stubs()                 # fits again: one page, the parts' stubs gone
    assert sorted(p.relative_to(book).as_posix() for p in book.rglob("*.md")) == ["index.md", "s.md"]
    assert ":part:" not in (book / "s.md").read_text() and not (book / "s").exists()
    (book / "s.md").write_text("edited by hand\n")           # a stub touched since: written again
    site_for(model, 100 * one).write_stubs()
    assert (book / "s.md").read_text().startswith(site.STUB_MARK)
    (book / "s.md").unlink()                                 # or removed
    site_for(model, 100 * one).write_stubs()
    assert (book / "s.md").is_file()
