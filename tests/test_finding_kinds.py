"""Findings say what they are (issue 38): a *gap* (something named or priced with no
definition or formula), a *disagreement* (two printed things contradict), or a
*consequence* of another failing check, listed under its cause; the names used but never
defined grouped by term after the disagreements; the book's own `finding` sentences in
`rules check`; the "source rulebook" wording only for a book whose header names a source.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from types import SimpleNamespace

import jsonschema
import pytest
from hypothesis import given, settings, strategies as st

import rules_dsl
from rules_dsl.errors import RulebookError
from rules_dsl.faces import export
from rules_dsl.library.book import Finding
from rules_dsl.library.findings import classify, ordered, standing


def _book(folder, body, header=""):
    folder.mkdir(exist_ok=True)
    (folder / "t.rules").write_text((header or 'book t { title "T" source "our own notes.txt" }\n') + body)
    return rules_dsl.Library(folder, cache=folder.parent / "cache").load("t")


BUNKER = '''
rule bunker "Bunker" {
  """A bunker prints its armour and its door's."""
  const bunker_armour = 25
  const door_armour = 20
  const fortification_armour = 30
  check bunker_is_fortified "The bunker has the fortification's armour"
      finding "the bunker prints armour {left}; a fortification has {right}"
  { for x in [1]: bunker_armour == fortification_armour }
  check door_matches_bunker "The door is of the bunker's material"
      follows bunker_is_fortified
      finding "the door prints armour {left}; a door of the bunker's material has {right}"
  { for x in [1]: door_armour == bunker_armour - 10 }
  check specials_are_rules "Every special names a rule"
      reports gap
  { for s in ["Torrent"]: defined(s) }
}
'''


# ------------------------------------------------------------------ the real books
@pytest.mark.parametrize("book_id, check", [("xenotactics", "printed_prices_have_formulas"),
                                            ("null-strike", "sample_specials_have_rules")])
def test_a_price_with_no_formula_and_a_special_never_defined_are_gaps(book_id, check):
    found = [f for f in rules_dsl.load(book_id).findings if f.check == check]
    assert found and {f.category for f in found} == {"gap"}
    assert {f.as_json()["category"] for f in found} == {"gap"}
    if book_id == "xenotactics":
        assert any("Revive" in f.printed for f in found)


def test_the_real_disagreements_stay_disagreements():
    xeno = rules_dsl.load("xenotactics").findings
    heavy = [f for f in xeno if f.printed == "superterrans_prices(item=Heavy power armor)"]
    assert [f.category for f in heavy] == ["disagreement"]


def test_the_bunker_door_is_a_consequence_of_the_bunker_s_material():
    book = rules_dsl.load("warhammer-40k")
    door = [f for f in book.findings if f.check == "bunker_door_matches_bunker"]
    assert door and all(f.category == "consequence" and f.cause == "bunker_armour_is_fortification_grade"
                        for f in door)
    cause = [f for f in book.findings if f.check == "bunker_armour_is_fortification_grade"]
    assert cause and {f.category for f in cause} == {"disagreement"} and not any(f.cause for f in cause)
    o = ordered(book.findings)
    assert [g.findings[0].check for g in o.groups if g.category == "disagreement"] == \
        ["bunker_armour_is_fortification_grade"]                     # one contradiction, not two
    assert {f.check for f in o.groups[0].consequences} == {"bunker_door_matches_bunker"}


def test_rules_check_on_40k_lists_the_disagreement_then_its_consequence_then_names_by_term():
    p = subprocess.run([sys.executable, "-m", "rules_dsl", "check", "warhammer-40k"], capture_output=True,
                       text=True, timeout=300)
    out = p.stdout.splitlines()
    assert p.returncode == 0, p.stdout + p.stderr
    assert "85 finding(s): 2 disagreements, 2 consequences, 81 names used but never defined" in out[0], out[0]
    # the book's own sentence, not the raw comparison
    assert any("The Bunker Hit Table prints Armour 25 for the bunker; armaplas, ceramite or adamantium has 30"
               in line for line in out)
    assert not any("r.armour = 25" in line for line in out)
    # the consequence, indented, right after its cause's lines
    first_door = next(i for i, line in enumerate(out) if "bunker_hit_table(roll=2)" in line)
    assert out[first_door].startswith("    consequence of bunker_armour_is_fortification_grade")
    assert all(line.startswith("  disagreement") for line in out[1:first_door])
    # then the names, one line per term with its count, after every disagreement
    head = next(i for i, line in enumerate(out) if "used but never defined:" in line)
    assert head > first_door
    terms = [line for line in out[head + 1:] if line.startswith("    '")]
    assert len(terms) == 59 and sum(int(re.search(r"' \((\d+)\):", t).group(1)) for t in terms) == 81
    assert any(t.startswith("    'Hand-to-Hand Combat' (6): ") for t in terms)
    assert len([line for line in out if "Hand-to-Hand Combat" in line]) == 1


def test_rules_check_json_says_each_finding_s_category_and_cause():
    p = subprocess.run([sys.executable, "-m", "rules_dsl", "check", "warhammer-40k", "--json"], capture_output=True,
                       text=True, timeout=300)
    found = json.loads(p.stdout)["findings"]
    cats = {}
    for f in found:
        cats[f["category"]] = cats.get(f["category"], 0) + 1
    assert cats == {"disagreement": 2, "consequence": 2, "gap": 81}
    assert {f["cause"] for f in found if f["category"] == "consequence"} == {"bunker_armour_is_fortification_grade"}
    assert {f["kind"] for f in found} == {"disagreement", "check-summary", "undefined-name"}   # kinds as they were


# ------------------------------------------------------------------ the language
def test_follows_and_reports_gap_in_a_small_book(tmp_path):
    book = _book(tmp_path / "books", BUNKER)
    by = {(f.check, f.kind): f for f in book.findings}
    assert by[("bunker_is_fortified", "check-summary")].category == "disagreement"
    door = by[("door_matches_bunker", "check-summary")]
    assert door.category == "consequence" and door.cause == "bunker_is_fortified"
    assert by[("specials_are_rules", "check-summary")].category == "gap"
    assert door.text.endswith("not so in 1 of 1 cases: The door prints armour 20; a door of the bunker's material has 15")


def test_a_consequence_whose_cause_holds_stands_on_its_own(tmp_path):
    book = _book(tmp_path / "books", BUNKER.replace("const fortification_armour = 30", "const fortification_armour = 25"))
    door = [f for f in book.findings if f.check == "door_matches_bunker"]
    assert door and {f.category for f in door} == {"disagreement"} and not any(f.cause for f in door)


@pytest.mark.parametrize("old, new, message", [
    ("follows bunker_is_fortified", "follows bunker_is_fortifed", "which is no check of this book"),
    ("follows bunker_is_fortified", "follows door_matches_bunker", "follows itself"),
    ("reports gap", "reports hole", "a check reports a gap or a disagreement"),
])
def test_a_wrong_follows_or_reports_is_an_error_at_its_word(tmp_path, old, new, message):
    with pytest.raises(RulebookError) as e:
        _book(tmp_path / "books", BUNKER.replace(old, new))
    d = e.value.diagnostics[0]
    assert message in d.message and d.line > 1 and d.hint
    if "fortifed" in new:
        assert "bunker_is_fortified" in d.hint          # did you mean


def test_checks_that_follow_each_other_in_a_circle_are_an_error(tmp_path):
    body = BUNKER.replace('check bunker_is_fortified "The bunker has the fortification\'s armour"',
                          'check bunker_is_fortified "The bunker has the fortification\'s armour"\n'
                          '      follows door_matches_bunker')
    with pytest.raises(RulebookError) as e:
        _book(tmp_path / "books", body)
    assert "in a circle" in e.value.diagnostics[0].message


# ------------------------------------------------------------------ whose fact a finding is
def _rule_findings(book, rule_id):
    """The findings nodes of a rule's page, as the site renders them."""
    from rules_dsl.sphinxext.data import build_model
    from rules_dsl.sphinxext.derived import compute_derived
    from rules_dsl.sphinxext.render_rules import finding_node
    r = build_model(book, compute_derived(book))["rules"][rule_id]
    said = r.get("transcribes")
    return r, [(finding_node(f, said) if said is not None else finding_node(f)).astext() for f in r["findings"]]


PLAIN = BUNKER.replace("      follows bunker_is_fortified\n", "").replace("      reports gap\n", "")


def test_only_a_book_that_names_its_source_speaks_of_the_source_rulebook(tmp_path):
    own = _book(tmp_path / "own", PLAIN, header='book t { title "T" findings fail }\n')
    restated = _book(tmp_path / "restated", PLAIN)
    for book, says in ((own, "game of its own"), (restated, "facts about the source rulebook")):
        _, texts = _rule_findings(book, "bunker")
        assert texts and all(says in t for t in texts), texts
        if book is own:
            assert not any("source rulebook" in t for t in texts)
    assert not own.transcribes and restated.transcribes
    assert all(b.transcribes for b in map(rules_dsl.load, ("null-strike", "xenotactics", "dust-tactics", "void",
                                                           "warhammer-40k")))
    assert not rules_dsl.load("skirmish-tutorial").transcribes


def test_the_site_titles_a_gap_and_a_consequence_and_puts_it_under_its_cause(tmp_path):
    r, texts = _rule_findings(_book(tmp_path / "books", BUNKER), "bunker")
    titles = [t.splitlines()[0] for t in texts]
    assert "Finding: a consequence of another finding" in titles
    assert "Finding: a gap in the book (named or priced, never defined)" in titles
    assert any("It follows from another finding, of the check \u201cThe bunker has the fortification's armour\u201d"
               in t for t in texts)
    cats = [f["category"] for f in r["findings"]]
    assert cats.index("consequence") > max(i for i, c in enumerate(cats) if c == "disagreement")


def test_standing_for_our_own_checks_blames_neither_book():
    assert "source rulebook" not in standing("error", True) and "our checks" in standing("coverage", False)


def test_a_finding_s_text_is_escaped_on_the_site():
    """Every string of a finding reaches the page as a docutils Text node (which every
    writer escapes), never as raw markup."""
    from docutils import nodes
    from rules_dsl.sphinxext.render_rules import finding_node
    f = {"rule": "r", "kind": "check-summary", "check": "c", "message": "<b>x</b>: fails in 1 of 1 cases: y",
         "cases": ["<script>1</script>"], "printed": "", "line": 3, "sentences": ["<script>alert(1)</script>"],
         "category": "consequence", "cause": "k", "cause_doc": "<i>cause</i>"}
    adm = finding_node(f, False)
    assert not list(adm.findall(nodes.raw))
    texts = [t.astext() for t in adm.findall(nodes.Text)]
    assert "<script>alert(1)</script>" in texts and any("<i>cause</i>" in t for t in texts)


# ------------------------------------------------------------------ the JSON
def test_the_export_validates_with_category_and_cause():
    schema = json.loads(export.schema_path().read_text(encoding="utf-8"))
    data = export.book_data(rules_dsl.load("warhammer-40k"))
    jsonschema.Draft202012Validator(schema).validate(data)
    door = [f for f in data["findings"] if f["check"] == "bunker_door_matches_bunker"]
    assert door and all(f["category"] == "consequence" for f in door)
    assert all(f["cause"] is None for f in data["findings"] if f["category"] != "consequence")
    bad = dict(data["findings"][0], category="contradiction")
    v = jsonschema.Draft202012Validator({**schema["$defs"]["finding"], "$defs": schema["$defs"]})
    assert not v.is_valid(bad)


# ------------------------------------------------------------------ the property
@st.composite
def _graphs(draw):
    """Checks c0..cN-1, each following an earlier one or none (no circles), each failing or not."""
    n = draw(st.integers(1, 7))
    follows = [None] + [draw(st.one_of(st.none(), st.integers(0, i - 1))) for i in range(1, n)]
    failing = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    gap = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return follows, failing, gap


@settings(max_examples=200, deadline=None)
@given(_graphs())
def test_every_finding_is_placed_once_and_a_consequence_exactly_when_its_cause_fails(graph):
    follows, failing, gap = graph
    nodes_ = {f"c{i}": SimpleNamespace(follows=f"c{f}" if f is not None else None,
                                       reports="gap" if gap[i] else "disagreement", doc=f"doc {i}")
              for i, f in enumerate(follows)}
    found = [Finding("b", "r", kind, f"c{i}", "m", f"x:{i}:1")
             for i, fails in enumerate(failing) if fails for kind in ("disagreement", "check-summary")]
    found.append(Finding("b", "r", "undefined-name", "", "m", "x:9:1", (), "Some Term"))
    found.append(Finding("b", "r", "undefined-name", "", "m", "x:9:9", (), "some term"))
    out = classify(found, nodes_)
    for f in out:
        if f.kind == "undefined-name":
            assert f.category == "gap"
            continue
        i = int(f.check[1:])
        cause_fails = follows[i] is not None and failing[follows[i]]
        assert (f.category == "consequence") == cause_fails
        assert f.cause == (f"c{follows[i]}" if cause_fails else "")
        if not cause_fails:
            assert f.category == ("gap" if gap[i] else "disagreement")
    o = ordered(out)
    placed = [f for g in o.groups for f in g.findings + g.consequences] + [f for g in o.names for f in g.uses]
    assert sorted(map(id, placed)) == sorted(map(id, out))          # each once, none lost
    assert len(o.names) == 1 and len(o.names[0].uses) == 2           # one term, however it is cased
    order = [g.category for g in o.groups]
    assert order == sorted(order, key=["disagreement", "gap", "coverage", "error"].index)


def test_the_book_page_says_what_its_findings_are():
    from rules_dsl.sphinxext.data import build_model
    from rules_dsl.sphinxext.derived import compute_derived
    from rules_dsl.sphinxext.render_pages import book_facts
    book = rules_dsl.load("warhammer-40k")
    text = book_facts(build_model(book, compute_derived(book))).astext()
    assert "2 disagreements, 2 consequences, 81 names used but never defined (59 terms)." in text
