"""Layers (errata, editions, house rules: rules_dsl/library/layers.py) and `rules diff` (diff.py).

* every kind of change applies to a real book, and a layered book is a book;
* a change that names something missing is a located error with a did-you-mean;
  a change that breaks the base book (an example, a reference, a call) fails
  `rules check` with a located message that names the change;
* ids, bases, cycles and limits: a layer is data from a stranger too;
* the real layers: Xenotactics' errata corrects exactly the prices its checks flag,
  the Null Strike house rules move the morale odds, and `rules diff` agrees with
  `rules odds` on each book;
* the diff's JSON follows its schema.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import rules_dsl
from conftest import REPO
from rules_dsl.errors import RulebookError
from rules_dsl.library.loader import Library

TUTORIAL = REPO / "rulebooks" / "skirmish-tutorial.rules"


def run(args, books=None, cache=None, check=False):
    env = dict(os.environ, NO_COLOR="1", COLUMNS="100")
    if books is not None:
        env["RULES_DSL_BOOKS"] = str(books)
    if cache is not None:
        env["RULES_DSL_CACHE"] = str(cache)
    p = subprocess.run([sys.executable, "-m", "rules_dsl", *args], capture_output=True, text=True, env=env,
                       timeout=600)
    if check:
        assert p.returncode == 0, p.stderr
    return p


@pytest.fixture
def books(tmp_path):
    """A books folder holding the tutorial book (and the layers a test writes)."""
    folder = tmp_path / "books"
    folder.mkdir()
    shutil.copy(TUTORIAL, folder)
    return folder


def layer(books, name, body, header=""):
    path = books / f"skirmish-tutorial+{name}.rules"
    path.write_text(f"layer {name} on skirmish-tutorial {{{header}}}\n{body}", encoding="utf-8")
    return path


def load(books, book_id, tmp_path=None):
    return Library(books, cache=(tmp_path or books.parent) / "cache").load(book_id)


def errors(books, book_id):
    with pytest.raises(RulebookError) as e:
        load(books, book_id)
    return e.value.diagnostics


# ------------------------------------------------------------------ a layered book is a book
def test_a_layered_book_is_found_by_its_id_and_its_files_are_its_bases_and_its_own(books):
    path = layer(books, "house", 'change leader_range to 8 because "a bigger table"\n')
    lib = Library(books, cache=books.parent / "cache")
    assert lib.book_ids() == ["skirmish-tutorial", "skirmish-tutorial+house"]
    assert lib.book_files("skirmish-tutorial+house") == [books / "skirmish-tutorial.rules", path]
    assert lib.book_id_of(path) == "skirmish-tutorial+house"
    book = lib.load("skirmish-tutorial+house")
    assert book.id == "skirmish-tutorial+house" and book.base_id == "skirmish-tutorial"
    assert book.constants["leader_range"] == 8 and lib.load("skirmish-tutorial").constants["leader_range"] == 6
    assert book.title == "Hollow Fields (house)"
    (c,) = book.layers[0].changes
    assert (c.verb, c.what, c.target, c.reason, c.before, c.after) == ("change", "const", "leader_range",
                                                                          "a bigger table", "6", "8")
    assert book.changes_of("leaders") == [c]
    assert book.layers[0].base_rule("leaders").decls[0].value.value == 6     # the base's rule, kept


def test_every_kind_of_change_applies(books):
    layer(books, "all", '''
change profile(scout).armour to 5
change roster(scout) to | scout | 22 |
remove row roster(brute)
add row | brute | 24 | to table roster
change next_token(steady, rallied) to steady
change leader_range to 5 + 1
replace mechanic needed_score(base: 2..6, modifier: -3..3 = 0) -> 2..6
    "The score a roll needs after its modifier, kept between 2+ and 6+."
    = clamp(base - modifier, 2, 6)
add const house_bonus = 1 "A bonus of ours" to rule dice
add rule cover "Cover" { """A fighter in cover is harder to hit.""" } after rule dice
add section house-notes "House Notes" { """Our notes.""" }
add rule late "Late Rule" { """Last.""" } to section house-notes
change title of rule dice to "Dice and Scores"
change text of rule the-roster to """The roster, as our group prints it ([[points-values]])."""
add note clarification "Our reading." to rule dice
change note 1 of rule dice to "Our reading, again."
add example "One more" """
>>> needed_score(3)
3
""" to rule dice
change example "One more" of rule dice to """
>>> needed_score(4)
4
"""
remove example "One more" from rule dice
add aliases "Rolls" to rule dice
add keywords "house" to rule dice
add member sneaky called "Sneaky" to enum fighter_kind
remove member sneaky from enum fighter_kind
change fighter_kind.scout called "Outrider"
change nerve_test.reroll called "a re-roll is allowed"
change attack.result called "fighters out"
change question of mechanic hits to "How many dice hit?"
change answer of mechanic hits to "{result} hits"
remove note 1 from rule dice
''')
    book = load(books, "skirmish-tutorial+all")
    assert book.tables["profile"]("scout").armour == 5
    assert book.tables["roster"]("scout") == 22 and book.tables["roster"]("brute") == 24
    assert str(book.tables["next_token"]("steady", "rallied")) == "steady"
    assert book.constants["leader_range"] == 6 and book.constants["house_bonus"] == 1
    assert book.rule("dice").title == "Dice and Scores" and book.rule("dice").notes == ()
    assert [r.id for r in book.rules][:2] == ["dice", "cover"] and book.rules[-1].id == "late"
    assert "Rolls" in book.rule("dice").aliases and "house" in book.rule("dice").keywords
    assert book.rule("the-roster").text.startswith("The roster, as our group prints it")
    assert book.display.member("fighter_kind", "scout") == "Outrider"
    assert book.display.param("nerve_test", "reroll") == "a re-roll is allowed"
    assert book.display.result("attack") == "fighters out"
    assert "sneaky" not in book.enums["fighter_kind"]
    assert len(book.layers[0].changes) == 28
    failed = [r.report for r in book.run_examples() if not r.passed]
    assert failed == []


def test_nothing_is_textual_the_amended_tree_holds_the_layers_own_nodes(books):
    path = layer(books, "x", 'change roster(warden) to 31\n')
    book = load(books, "skirmish-tutorial+x")
    table = next(d for r in book.rules for d in r.node.decls if getattr(d, "name", "") == "roster")
    warden = next(row for row in table.rows if getattr(row[0].value, "name", "") == "warden")
    assert warden[0].span.file == str(books / "skirmish-tutorial.rules")   # the base's key cell
    assert warden[1].span.file == str(path) and warden[1].span.line == 2   # the layer's value cell


# ------------------------------------------------------------------ changes that cannot apply
@pytest.mark.parametrize("change, at, message, hint", [
    ('change title of rule dicee to "x"', (2, 22), "book 'skirmish-tutorial' has no rule 'dicee' to amend",
     "did you mean 'dice'?"),
    ("change roster(wardn) to 31", (2, 8), "table roster has no row for kind=wardn", "did you mean 'warden'?"),
    ("change profile(warden).armor to 3", (2, 8), "table profile has no column 'armor'", "did you mean 'armour'?"),
    ("change leader_rnge to 3", (2, 8), "has no const 'leader_rnge'", "did you mean 'leader_range'?"),
    ("remove mechanic profile", (2, 17), "'profile' is a table of book 'skirmish-tutorial', not a mechanic",
     "write `table`"),
    ("remove note 3 from rule dice", (2, 1), "rule 'dice' has 0 notes, so no note 3", ""),
    ('remove example "Three attacks" from rule rolling-to-hit', (2, 1), "has no example titled 'Three attacks'",
     "did you mean"),
    ("remove member sneaky from enum fighter_kind", (2, 1), "enum fighter_kind has no member 'sneaky'", ""),
    ('change kind_points.knd called "x"', (2, 8), "mechanic kind_points has no input, member, key, field or roll 'knd'",
     "did you mean 'kind'?"),
    ("add row | warden | 3 | to table roster", (2, 1), "table roster already has a row for warden",
     "change roster(warden)"),
    ('add rule dice "Dice" { """x""" } to section the-basics', (2, 10), "already has a rule 'dice'", "replace rule"),
    ('add rule x "X" { """x""" } to section the-basix', (2, 39), "has no section 'the-basix'",
     "did you mean 'the-basics'?"),
    ("change roster(warden) to 1 + 2", (2, 26), "a table cell is a value", ""),
])
def test_a_change_of_something_missing_is_located_with_a_did_you_mean(books, change, at, message, hint):
    path = layer(books, "bad", change + "\n")
    (d,) = errors(books, "skirmish-tutorial+bad")
    assert (d.file, d.line, d.column) == (str(path), *at), d
    assert message in d.message, d.message
    assert hint in d.hint, d.hint
    assert "^" in d.render() and d.source_line.strip() == change.strip()


def test_every_change_that_cannot_apply_is_reported_in_one_run(books):
    layer(books, "two", "change roster(wardn) to 31\nchange leader_rnge to 3\nchange leader_range to 7\n")
    diags = errors(books, "skirmish-tutorial+two")
    assert [d.line for d in diags] == [2, 3]


def test_a_change_that_breaks_a_reference_says_which_change_caused_it(books):
    path = layer(books, "c", "\nremove rule dice\n")
    diags = errors(books, "skirmish-tutorial+c")
    base = str(books / "skirmish-tutorial.rules")
    assert diags and all(d.file == base for d in diags)
    ref = next(d for d in diags if "unknown rule 'dice'" in d.message)
    assert f"after skirmish-tutorial+c's change at {path}:3:1: remove rule dice" in ref.message
    assert any(r.file == str(path) and r.line == 3 and "caused by change 1" in r.message for r in ref.related)


def test_a_change_that_breaks_a_call_says_which_change_caused_it(books):
    path = layer(books, "b", "remove mechanic kind_points\n")
    (d,) = errors(books, "skirmish-tutorial+b")
    assert "unknown name 'kind_points'" in d.message and f"{path}:2:1: remove mechanic kind_points" in d.message


def test_a_layer_that_breaks_an_example_of_the_base_fails_rules_check_naming_the_change(books, tmp_path):
    path = layer(books, "e", "replace mechanic needed_score(base: 2..6, modifier: -3..3 = 0) -> 2..6 "
                             "= clamp(base - modifier, 2, 5)\nbecause \"sixes are too hard\"\n")
    p = run(["check", "skirmish-tutorial+e"], books, tmp_path / "cache")
    assert p.returncode == 1
    base = books / "skirmish-tutorial.rules"
    assert f"{base}:39:13: this example fails" in p.stdout
    assert "expected: 6" in p.stdout and "got:      5" in p.stdout
    assert f"a consequence of skirmish-tutorial+e's change at {path}:2:1: replace mechanic needed_score" in p.stdout
    assert "change example \"A 4+ roll with +1 needs 3+; no modifier takes it past 2+ or 6+\" of rule dice" in p.stdout
    # and the base book itself still passes
    assert run(["check", "skirmish-tutorial"], books, tmp_path / "cache").returncode == 0


def test_a_layer_that_amends_a_missing_rule_fails_rules_check_with_a_located_line(books, tmp_path):
    path = layer(books, "m", 'change text of rule nerve-test to """Steady."""\n')
    p = run(["check", "skirmish-tutorial+m"], books, tmp_path / "cache")
    assert p.returncode == 1
    assert f"{path}:2:21: error: book 'skirmish-tutorial' has no rule 'nerve-test' to amend" in p.stderr
    assert "did you mean 'nerve-tests'" in p.stderr
    p = run(["check", "skirmish-tutorial+m", "--json"], books, tmp_path / "cache")
    (err,) = json.loads(p.stdout)["errors"]
    assert err["diagnostics"][0]["line"] == 2 and "did you mean" in err["diagnostics"][0]["hint"]


def test_an_example_the_layer_replaces_is_the_layers(books):
    layer(books, "r", 'change leader_range to 3\nchange example 1 of rule leaders to """\n>>> leader_reroll(3, steady)\n'
                      'true\n>>> leader_reroll(4, steady)\nfalse\n"""\n')
    book = load(books, "skirmish-tutorial+r")
    results = book.run_examples()
    assert all(r.passed for r in results)
    mine = [r for r in results if r.rule == "leaders"]
    assert mine and all("skirmish-tutorial+r.rules" in r.location for r in mine)


# ------------------------------------------------------------------ ids, bases, cycles, limits
def test_a_missing_base_is_one_clear_error_at_the_header(books):
    path = books / "skirmish-tutorl+d.rules"
    path.write_text("layer d on skirmish-tutorl {}\n")
    (d,) = errors(books, "skirmish-tutorl+d")
    assert (d.file, d.line, d.column) == (str(path), 1, 12)
    assert "amends 'skirmish-tutorl', which is not a book of this folder" in d.message
    assert "did you mean 'skirmish-tutorial'?" in d.hint


def test_a_header_that_names_another_base_than_the_file_is_an_error_so_no_layer_loops(books):
    path = books / "skirmish-tutorial+a.rules"
    path.write_text("layer a on skirmish-tutorial+a {}\n")       # a cycle cannot be written: the name says the base
    (d,) = errors(books, "skirmish-tutorial+a")
    assert "its header says layer 'a' on 'skirmish-tutorial+a'" in d.message and d.file == str(path)


def test_layers_on_layers_apply_lowest_first(books):
    layer(books, "one", "change leader_range to 7\n")
    (books / "skirmish-tutorial+one+two.rules").write_text("layer two on skirmish-tutorial+one {}\n"
                                                          "change leader_range to 8\n")
    lib = Library(books, cache=books.parent / "cache")
    assert lib.book_files("skirmish-tutorial+one+two")[-2:] == [books / "skirmish-tutorial+one.rules",
                                                                books / "skirmish-tutorial+one+two.rules"]
    book = lib.load("skirmish-tutorial+one+two")
    assert book.constants["leader_range"] == 8
    assert [x.id for x in book.layers] == ["skirmish-tutorial+one", "skirmish-tutorial+one+two"]


def test_a_chain_of_layers_deeper_than_the_limit_is_refused(books):
    from rules_dsl.library.layers import MAX_DEPTH
    base = "skirmish-tutorial"
    for i in range(MAX_DEPTH + 1):
        (books / f"{base}+l{i}.rules").write_text(f"layer l{i} on {base} {{}}\n")
        base = f"{base}+l{i}"
    diags = errors(books, base)
    assert any(f"at most {MAX_DEPTH} layers" in d.message for d in diags)


def test_a_layer_that_is_not_a_layer_says_how_one_starts(books):
    (books / "skirmish-tutorial+g.rules").write_text("book x {}\n")
    (d,) = errors(books, "skirmish-tutorial+g")
    assert "a layer file starts with `layer NAME on BOOK" in d.hint


def test_a_layer_keeps_its_books_dice_and_units(books):
    layer(books, "h", "", header=" dice d8 ")
    (d,) = errors(books, "skirmish-tutorial+h")
    assert "a layer keeps its book's `dice`" in d.message


def test_a_layer_that_is_too_big_is_refused_before_it_is_parsed(books):
    from rules_dsl.language.parser import MAX_FILE_BYTES
    layer(books, "big", "# " + "x" * MAX_FILE_BYTES + "\n")
    (d,) = errors(books, "skirmish-tutorial+big")
    assert "a file may hold at most" in d.message


def test_a_layer_is_data_no_python_runs(books):
    layer(books, "evil", 'change roster(warden) to "__import__(\'os\').system(\'touch PWNED\')"\n')
    (d,) = errors(books, "skirmish-tutorial+evil")          # text in a column of numbers: a type error
    assert "does not fit this column" in d.message and d.line == 2
    layer(books, "odd", 'change title of rule dice to "<script>alert(1)</script>"\n')
    assert load(books, "skirmish-tutorial+odd").rule("dice").title == "<script>alert(1)</script>"
    assert not (books / "PWNED").exists() and not Path("PWNED").exists()


def test_the_cache_of_a_layered_book_follows_its_bases_files(books):
    layer(books, "k", "change leader_range to 8\n")
    lib = Library(books, cache=books.parent / "cache")
    first = lib.load("skirmish-tutorial+k")
    assert first.rule("dice").title == "Dice"
    base = books / "skirmish-tutorial.rules"
    base.write_text(base.read_text().replace('rule dice "Dice"', 'rule dice "Dice Rolls"'))
    again = lib.load("skirmish-tutorial+k")
    assert again is not first and again.rule("dice").title == "Dice Rolls"
    fresh = Library(books, cache=books.parent / "cache2").load("skirmish-tutorial+k")
    assert [(r.id, r.title, r.text) for r in fresh.rules] == [(r.id, r.title, r.text) for r in again.rules]


def test_a_layered_book_answers_every_command_with_its_own_mechanics(books, tmp_path):
    """lookup, show, call, explain, odds, export and js on `book+layer`, each giving the
    layer's version (every 6 to hit rolls another die), never the base's."""
    shutil.copy(REPO / "rulebooks" / "skirmish-tutorial+house.rules", books)
    cache = tmp_path / "cache"
    bid = "skirmish-tutorial+house"

    def cli(*args):
        return run(list(args), books, cache, check=True).stdout
    found = json.loads(cli("lookup", "hit roll", "--book", bid, "--json"))
    assert found[0]["rule"] == "rolling-to-hit" and {r["book"] for r in found} == {bid}
    shown = cli("show", f"{bid}:rolling-to-hit")
    assert f"{bid}:rolling-to-hit" in shown and "6 adds a fourth die" in shown
    assert "6 adds a fourth die" not in cli("show", "skirmish-tutorial:rolling-to-hit")
    # the layer's hits: the 6 rolls another die (4 dice given for 3 attacks)
    assert json.loads(cli("call", f"{bid}:hits", "n=3", "target=4", "dice=[2,4,6,5]", "--json"))["result"] == 3
    working = cli("explain", f"{bid}:hits", "n=3", "target=4", "dice=[2,4,6,5]")
    assert "each die showing 6 adds another die" in working and "skirmish-tutorial+house.rules:" in working
    mean = lambda book: Fraction(json.loads(cli("odds", f"{book}:hits", "n=1", "target=4", "--json"))["mean"])
    # one die: a hit half the time, and each 6 another die: 1/2 + 1/6 x (the same), 3/5 (20 extra dice at most)
    assert mean("skirmish-tutorial") == Fraction(1, 2) and Fraction(3, 5) - Fraction(1, 10**15) < mean(bid) < Fraction(3, 5)
    out = tmp_path / "export"
    cli("export", bid, "--out", str(out))
    data = json.loads((out / f"{bid}.json").read_text())
    assert data["id"] == bid and data["layers"][0]["changes"]
    js = tmp_path / "js"
    cli("js", bid, "--out", str(js))
    module = (js / f"{bid}.mjs").read_text()
    assert "hits" in module and str(tmp_path) not in module     # no machine path in a shipped file


# ------------------------------------------------------------------ the editor and pytest
def test_the_editor_shows_a_broken_example_at_the_change_that_breaks_it(books):
    from rules_dsl.faces.workspace import Workspace
    path = layer(books, "w", "replace mechanic needed_score(base: 2..6, modifier: -3..3 = 0) -> 2..6 "
                             "= clamp(base - modifier, 2, 5)\n")
    ws = Workspace(books, books.parent / "cache")
    ws.open(str(path.resolve()), path.read_text())
    st = ws.analyse(str(path.resolve()))
    mine = st.diagnostics[str(path.resolve())]
    assert mine and all(d.line == 2 for d in mine)
    assert any("breaks a worked example of the base book" in d.message and "needed_score(5, modifier=-3)" in d.message
               for d in mine)
    assert [s.name for s in ws.symbols(str(path.resolve()))] == ["needed_score"]


def test_pytest_collects_every_example_of_a_layered_book_from_its_layer_file(books, tmp_path):
    path = layer(books, "p", "change leader_range to 7\n")
    env = dict(os.environ, RULES_DSL_BOOKS=str(books), RULES_DSL_CACHE=str(tmp_path / "cache"))
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(path)], capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
    assert " passed" in p.stdout, p.stdout + p.stderr
    count = int(p.stdout.strip().splitlines()[-1].split()[0])
    assert count == len(load(books, "skirmish-tutorial").example_cases()) + 1   # and its findings


# ------------------------------------------------------------------ rules diff
def diff(a, b, budget=None):
    from rules_dsl.faces.diff import DEFAULT_BUDGET, diff_books
    return diff_books(a, b, budget or DEFAULT_BUDGET)


def test_a_book_against_itself_has_no_difference():
    book = rules_dsl.load("skirmish-tutorial")
    d = diff(book, book)
    assert not any(d["summary"].values()) and not d["mechanics"] and not d["names"] and not d["layers"]
    p = run(["diff", "skirmish-tutorial", "skirmish-tutorial"], check=True)
    assert "Nothing changed" in p.stdout


@settings(max_examples=12, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(prices=st.dictionaries(st.sampled_from(["scout", "trooper", "warden", "brute"]),
                              st.integers(min_value=1, max_value=99), min_size=1))
def test_the_diff_lists_exactly_the_rows_a_layer_changes(tmp_path_factory, prices):
    books = tmp_path_factory.mktemp("books")
    shutil.copy(TUTORIAL, books)
    base = load(books, "skirmish-tutorial", books)
    changes = "".join(f"change roster({k}) to {v}\n" for k, v in prices.items())
    layer(books, "prop", changes)
    book = load(books, "skirmish-tutorial+prop", books)
    d = diff(base, book)
    moved = {k: v for k, v in prices.items() if base.tables["roster"](k) != v}
    rows = [(r["keys"]["kind"], r["after"]["value"]) for t in d["tables"] for r in t["rows"]["changed"]]
    assert sorted(rows) == sorted((k, str(v)) for k, v in moved.items())
    assert not d["rules"]["added"] and not d["rules"]["removed"]
    assert [t["name"] for t in d["tables"]] == (["roster"] if moved else [])


def test_the_diffs_odds_run_on_slices_of_one_deadline_and_say_when_its_time_ran_out(books, monkeypatch):
    """Every distribution of a diff runs on a meter whose deadline is within the diff's
    (a time slice of its one Budget, odds/budget.py); when its time runs out, what was
    not compared says so (never a hang), and the JSON still follows its schema."""
    import time

    import jsonschema

    from rules_dsl.faces import diff as diff_mod
    from rules_dsl.odds import engine
    shutil.copy(REPO / "rulebooks" / "skirmish-tutorial+house.rules", books)
    a, b = load(books, "skirmish-tutorial"), load(books, "skirmish-tutorial+house")
    meters = []
    real = engine.distribution

    def spy(*args, **kwargs):
        meters.append(kwargs.get("_meter"))
        return real(*args, **kwargs)
    monkeypatch.setattr(engine, "distribution", spy)
    monkeypatch.setattr("rules_dsl.odds.distribution", spy)
    start = time.monotonic()
    d = diff_mod.diff_books(a, b)
    assert d["time_limit"] == diff_mod.DEFAULT_SECONDS
    assert meters and all(m is not None and m.deadline <= start + diff_mod.DEFAULT_SECONDS + 1 for m in meters)
    hits = next(m for m in d["mechanics"] if m["name"] == "hits")
    assert hits["compared"]["method"] == "exhaustive" and hits["odds"]

    short = diff_mod.diff_books(a, b, time_limit=1e-9)
    hits = next(m for m in short["mechanics"] if m["name"] == "hits")
    assert hits["compared"]["method"] == "none" and hits["compared"]["inputs"] == 0
    assert hits["compared"]["outcome"] == "not_compared"
    assert "time limit (1e-09 s, --time-limit) ran out before it was reached" in hits["compared"]["note"]
    assert not hits["odds"]
    schema = json.loads((REPO / "rules_dsl" / "faces" / "schema" / "diff.schema.json").read_text())
    jsonschema.validate(json.loads(json.dumps(short)), schema)
    with pytest.raises(ValueError):
        diff_mod.diff_books(a, b, time_limit=0)


def test_the_diff_compares_every_input_when_it_can_and_says_when_it_samples(books):
    layer(books, "s", "replace mechanic wound_score(strength: 1..6, toughness: 1..6) -> 2..6 "
                      "= needed_score(5, modifier=clamp(strength - toughness, -3, 3))\n"
                      "change leader_range to 7\n")
    a, b = load(books, "skirmish-tutorial"), load(books, "skirmish-tutorial+s")
    d = diff(a, b)
    wound = next(m for m in d["mechanics"] if m["name"] == "wound_score")
    assert wound["compared"]["method"] == "exhaustive" and wound["compared"]["inputs"] == 36
    brute = [(s, t) for s in range(1, 7) for t in range(1, 7)
             if a.mechanics["wound_score"](s, t) != b.mechanics["wound_score"](s, t)]
    assert wound["compared"]["differ"] == len(brute) > 0
    leader = next(m for m in d["mechanics"] if m["name"] == "leader_reroll")    # distance: a number, no range
    assert leader["compared"]["method"] == "sampled" and leader["compared"]["domain"] is None
    small = diff(a, b, budget=10)
    assert next(m for m in small["mechanics"] if m["name"] == "wound_score")["compared"]["method"] == "sampled"


def test_the_diff_follows_its_schema(books):
    import jsonschema
    schema = json.loads((REPO / "rules_dsl" / "faces" / "schema" / "diff.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    for a, b in (("xenotactics", "xenotactics+errata"), ("null-strike", "null-strike+house"),
                 ("skirmish-tutorial", "skirmish-tutorial+house"), ("null-strike+house", "null-strike")):
        d = diff(rules_dsl.load(a), rules_dsl.load(b))
        assert list(jsonschema.Draft202012Validator(schema).iter_errors(json.loads(json.dumps(d)))) == [], (a, b)


def test_the_diff_json_is_deterministic_and_names_no_machines_path():
    a, b = rules_dsl.load("skirmish-tutorial"), rules_dsl.load("skirmish-tutorial+house")
    one, two = json.dumps(diff(a, b)), json.dumps(diff(a, b))
    assert one == two and str(REPO) not in one


def test_unknown_books_in_rules_diff_are_one_line():
    p = run(["diff", "xenotactics", "xenotactics+erata"])
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "did you mean 'xenotactics+errata'" in p.stderr


# ------------------------------------------------------------------ the real layers
PRICE_CHECKS = "_prices_follow_formulas"


def test_the_xenotactics_errata_corrects_every_flagged_price_and_nothing_else():
    base, errata = rules_dsl.load("xenotactics"), rules_dsl.load("xenotactics+errata")
    flagged = {f.printed for f in base.findings if f.kind == "disagreement" and f.check.endswith(PRICE_CHECKS)}
    assert len(flagged) == 29
    assert [f for f in errata.findings if f.check.endswith(PRICE_CHECKS)] == []
    d = diff(base, errata)
    rows = {f"{t['name']}(item={json.loads(r['keys']['item'])})": r for t in d["tables"] for r in t["rows"]["changed"]}
    assert set(rows) == flagged
    for printed, r in rows.items():
        table, item = printed.split("(item=")
        row = errata.tables[table](item[:-1])
        faction = table[:-len("_prices")]
        formula = errata.mechanics["price_of"](faction, row.kind, row.ref, row.dice, row.bonus, row.hp)
        assert r["columns"] == ["listed"] and r["after"]["listed"] == str(formula)   # the book's own formula
        (by,) = r["changed_by"]
        assert f"{formula} gc" in by["because"] and "formula" in by["because"]
    assert d["summary"] == {"rules_added": 0, "rules_removed": 0, "rules_changed": 7, "mechanics_changed": 0,
                            "mechanics_not_compared": 0, "rows_changed": 29, "rows_added": 0, "rows_removed": 0, "findings_appeared": 0,
                            "findings_gone": d["summary"]["findings_gone"]}
    assert all(c["parts"] == ["declarations"] for c in d["rules"]["changed"])
    assert not d["mechanics"] and not d["constants"] and not d["enums"] and not d["names"]
    gone = {f["printed"] for f in d["findings"]["gone"] if f["kind"] == "disagreement"}
    assert gone == flagged
    assert all(f["check"].endswith(PRICE_CHECKS) for f in d["findings"]["gone"])


def test_rules_check_on_the_errata_reports_no_price_finding():
    p = run(["check", "xenotactics+errata", "--json"], check=True)
    report = json.loads(p.stdout)
    assert report["examples"]["failed"] == 0
    assert [f for f in report["findings"] if f["check"].endswith(PRICE_CHECKS)] == []


def test_the_house_rules_move_the_morale_odds_as_rules_odds_says_on_each_book():
    d = diff(rules_dsl.load("null-strike"), rules_dsl.load("null-strike+house"))
    (morale,) = [m for m in d["mechanics"] if m["name"] == "morale_check"]
    assert morale["compared"]["method"] == "exhaustive" and morale["compared"]["differ"] > 0
    assert morale["odds"]
    for o in morale["odds"]:
        args = [f"{k}={json.dumps(v) if not isinstance(v, str) else v}".replace("true", "true") for k, v in o["inputs"].items()]
        before = json.loads(run(["odds", "null-strike:morale_check", *args, "--json"], check=True).stdout)
        after = json.loads(run(["odds", "null-strike+house:morale_check", *args, "--json"], check=True).stdout)
        assert [(x["value"], x["probability"]) for x in before["outcomes"]] == \
            [(x["value"], x["probability"]) for x in o["before"]["outcomes"]]
        assert [(x["value"], x["probability"]) for x in after["outcomes"]] == \
            [(x["value"], x["probability"]) for x in o["after"]["outcomes"]]
        rows = {json.dumps(r["value"]): r for r in o["outcomes"]}
        for x in before["outcomes"]:
            assert rows[json.dumps(x["value"])]["before"] == x["probability"].removesuffix("/1")
        for x in after["outcomes"]:
            assert rows[json.dumps(x["value"])]["after"] == x["probability"].removesuffix("/1")
        steady = rows['"steady"']
        assert Fraction(steady["after"]) > Fraction(steady["before"])        # two dice hold more often
        p = Fraction(steady["before"])
        assert Fraction(steady["after"]) == 1 - (1 - p) ** 2                  # the better of two dice


def test_the_tutorial_house_rules_change_the_mean_of_the_hit_roll():
    d = diff(rules_dsl.load("skirmish-tutorial"), rules_dsl.load("skirmish-tutorial+house"))
    (hits,) = [m for m in d["mechanics"] if m["name"] == "hits"]
    first = hits["odds"][0]
    assert first["inputs"] == {"n": 3, "target": 4}                       # the book's own `odds` lines
    assert Fraction(first["mean"]["before"]) == Fraction(3, 2)
    assert Fraction(first["mean"]["after"]) > Fraction(3, 2)
    assert sum(Fraction(r["after"]) for r in first["outcomes"]) == 1


def test_rules_diff_text_is_in_players_words():
    p = run(["diff", "xenotactics", "xenotactics+errata"], check=True)
    assert "Sniper: listed 33 → 39" in p.stdout
    assert "Findings that go" in p.stdout and "Findings that appear" not in p.stdout
    assert "Mechanics" not in p.stdout
    p = run(["diff", "null-strike", "null-strike+house"], check=True)
    # the odds shown first are those of the book's worked example ("Morale 5+: one die of two is enough")
    assert "Odds with morale 5, penalty 0, fearless no" in p.stdout and "steady" in p.stdout
    assert "change (points)" in p.stdout and "(a worked example)" in p.stdout
    assert "(exhaustive: every input)" in p.stdout


# ------------------------------------------------------------------ the website
@pytest.mark.site
def test_the_site_marks_a_changed_rule_and_builds_the_what_changed_page(tmp_path):
    """A layered book gets its pages: its changed rule says "Changed by" the layer with
    the base's text a tap away and a link to the book's "what changed" page, which lists
    the changed rules, the odds before and after, the changed number and each reason;
    the base book's pages carry no mark."""
    import html as html_mod
    import re

    from rules_dsl.sphinxext.testing import build, make_project
    books = tmp_path / "books"
    books.mkdir()
    for name in ("skirmish-tutorial.rules", "skirmish-tutorial+house.rules"):
        shutil.copy(REPO / "rulebooks" / name, books)
    out = tmp_path / "out"
    p = build(make_project(tmp_path / "project"), out, books, tmp_path / "cache")
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-3000:]

    def text(path):
        page = path.read_text(encoding="utf-8")
        page = page[page.index("<article"):page.index("</article>")]
        return page, re.sub(r"\s+", " ", html_mod.unescape(re.sub(r"<[^>]+>", " ", page)))
    folder = out / "docs" / "books" / "skirmish-tutorial+house"
    page, words = text(folder / "attacks.html")
    assert "Changed by Hollow Fields, house rules (changes 1, 2, 3, 4): a lucky streak should pay" in words
    assert "As Hollow Fields has it" in words and 'class="rules-changed-see"' in page
    assert "_what-changed.html" in page
    base_page, base_words = text(out / "docs" / "books" / "skirmish-tutorial" / "attacks.html")
    assert "rules-changed" not in base_page and "Changed by" not in base_words
    page, words = text(folder / "_what-changed.html")
    assert "What changed: Hollow Fields, house rules" in words
    assert "Results differ for 30 of 30 inputs compared (every input was tried)" in words
    assert "Odds with n 3, target 4" in words and "Average: 1.5 before, 1.8 after (+0.3)" in words
    assert "Leader range: 6 → 8" in words and "our terrain is dense" in words
    # the odds change drawn (an accessible inline SVG) beside its table, the long tail summed
    assert page.count('<svg class="rules-chart"') == 2 and page.count('role="img"') >= 2 and "Hits 3, before" not in words
    assert "3, before" in words and "other results (each under 0.1%)" in words
    assert "1.5e-11%" not in words
    assert "<script" not in page.split("rules-changes", 1)[1].split("</section>", 1)[0]   # escaped prose


def test_a_problem_inside_a_changed_cell_s_address_is_said_once(books):
    """`change t(keys).field to v` builds its address once: a number too long in it is one
    error, not two."""
    layer(books, "x", "change roster(1234567890123456789).cost to 3\n")
    found = [d for d in errors(books, "skirmish-tutorial+x") if "digits" in d.message or "too" in d.message]
    assert len(found) == 1, [d.message for d in found]


@pytest.mark.parametrize("line, word", [('about "A house book."', "about"), ("start dice", "start"),
                                        ("units inches", "units")])
def test_a_layer_header_line_its_book_keeps_is_named_in_the_book_s_words(books, line, word):
    layer(books, "x", "change leader_range to 8\n", header=f"\n  {line}\n")
    messages = [d.message for d in errors(books, "skirmish-tutorial+x")]
    assert any(f"a layer keeps its book's `{word}`" in m for m in messages), messages
    assert not any("`h_" in m for m in messages), messages
