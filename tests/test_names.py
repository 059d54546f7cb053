"""Names used in a book and never defined there: the `uses` rule item, the `defined`
built-in, and their findings (kind `undefined-name`, and per-row `disagreement`)."""
from __future__ import annotations

import pytest

import rules_dsl
from rules_dsl.analysis.checks import name_key
from rules_dsl.errors import RulebookError
from rules_dsl.language.parser import parse_text

from conftest import mutated_book, write_book

BODY = '''rule weapons "Weapons Skill" {
  aliases "WS"
  keywords "to-hit"
  uses "Weapon Skills", "AP", "to hit",
       "Torrent"
  """Roll the Weapons Skill; AP modifies the armour roll."""
  table kit(name: text) -> int "Prices" {
    | name | gc |
    |---|---|
    | "WS" | 1 |
    | "Regenerate" | 2 |
    | "Blast" | 3 |
  }
  check kit_names_defined "Every priced item has a rule" {
    for k in rows(kit): defined(k.name)
  }
}
rule blast "Blast" {
  aliases "Blast weapon"
  """Blasts."""
}
'''


def test_name_key_folds_case_hyphens_spaces_and_plurals():
    assert name_key("Weapons-Skill") == name_key("weapon  skill") == name_key("WEAPON_SKILLS") == "weapon skill"
    assert name_key("Boss") == "boss" and name_key("AP") == "ap" and name_key("HPs") == "hp"


def test_uses_parses_with_a_span_per_name():
    src = 'book b { title "x" }\nrule r "R" {\n  uses "A",\n    "B c"\n  keywords "k"\n}\n'
    sf = parse_text(src, "b.rules")
    (rule,) = sf.items
    assert [(u.name, u.span.line, u.span.column) for u in rule.uses] == [("A", 3, 8), ("B c", 4, 5)]


@pytest.mark.parametrize("src,needle", [
    ('rule r "R" {\n  uses\n}\n', 'r.rules:4:1: error: unexpected \'}\''),    # a name is required
    ('rule r "R" {\n  uses A\n}\n', 'r.rules:3:8: error: unexpected \'A\''),   # names are strings
    ('rule r "R" {\n  uses "A",\n}\n', 'r.rules:4:1: error: unexpected \'}\''), # no trailing comma
    ('rule r "R" {\n  uses ""\n}\n', "`uses` names a term"),          # not empty
])
def test_uses_rejects_bad_input_with_a_location(src, needle):
    with pytest.raises(RulebookError) as e:
        parse_text('book r { title "x" }\n' + src, "r.rules")
    text = e.value.render()
    assert needle in text and "Traceback" not in text


def test_undefined_uses_are_findings_with_their_own_location(demo_books):
    path = write_book(demo_books, "t", BODY)
    book = rules_dsl.load("t")
    found = [f for f in book.findings if f.kind == "undefined-name"]
    # "Weapon Skills" is defined (the title); "AP", "to hit" (only a keyword: keywords are search
    # words, not definitions) and "Torrent" are not
    assert [(f.printed, f.rule) for f in found] == [("AP", "weapons"), ("to hit", "weapons"), ("Torrent", "weapons")]
    lines = path.read_text().splitlines()
    for f in found:
        file, line, col = f.location.rsplit(":", 2)
        assert file == str(path) and lines[int(line) - 1][int(col) - 1:].startswith(f'"{f.printed}"')
    assert [f.location.rsplit(":", 2)[1:] for f in found] == [["9", "25"], ["9", "31"], ["10", "8"]]
    assert book.defined("weapon skills") and book.definer("blast weapons") == "blast" and not book.defined("AP")


def test_defined_in_a_check_gives_one_finding_per_row(demo_books):
    path = write_book(demo_books, "t", BODY)
    book = rules_dsl.load("t")
    (value,) = [f for f in book.findings if f.kind == "disagreement"]
    assert value.printed == "kit(name=Regenerate)" and value.rule == "weapons"
    line = path.read_text().splitlines().index('    | "Regenerate" | 2 |') + 1
    assert value.location.rsplit(":", 2)[1] == str(line)
    (summary,) = [f for f in book.findings if f.kind == "check-summary"]
    assert "fails in 1 of 3 cases" in summary.message
    assert book.compiled.defined("Blast") is True


def test_defined_checks_its_argument_and_arity(demo_books):
    write_book(demo_books, "t", 'rule r "R" {\n check c "x" { for k in [1]: defined(k, 2) }\n}\n')
    with pytest.raises(RulebookError) as e:
        rules_dsl.load("t")
    assert "defined() takes 1 argument(s), got 2" in e.value.render() and "t.rules:7:" in e.value.render()
    write_book(demo_books, "t", 'rule r "R" {\n check c "x" { for k in [1]: defined(k) }\n}\n')
    (f, _) = [f for f in rules_dsl.load("t").findings if f.kind in ("check-error", "check-summary")] + [None]
    assert f.kind == "check-error" and "defined() takes a name (text), got 1" in f.message


def test_removing_an_alias_makes_a_new_undefined_name_finding(demo_books):
    write_book(demo_books, "t", BODY.replace('  uses "Weapon Skills"', '  uses "Blast weapon", "Weapon Skills"'))
    assert not [f for f in rules_dsl.load("t").findings if f.printed == "Blast weapon"]
    write_book(demo_books, "t", BODY.replace('  uses "Weapon Skills"', '  uses "Blast weapon", "Weapon Skills"')
               .replace('  aliases "Blast weapon"\n', ""))
    (f,) = [f for f in rules_dsl.load("t").findings if f.printed == "Blast weapon"]
    assert f.kind == "undefined-name" and f.location.rsplit(":", 2)[1:] == ["9", "8"]
    assert "nearest defined: 'Blast'" in f.message


# ------------------------------------------------------------- the real books
UNDEFINED = {   # what each book's `uses` clauses find: names the seed uses and never defines
    "null-strike": {("common-sense", "FAQ"), ("rules-exceptions", "Army Rules"), ("rules-exceptions", "Unit Rules"),
                    ("turn-order", "Technical"), ("sample-weapons", "Blast"), ("sample-weapons", "Ignores Cover"),
                    ("sample-weapons", "Torrent"), ("attack-action", "Weapons Skill"), ("attack-action", "AP"),
                    ("aim", "Weapons Skill"), ("hard-cover", "Durability"), ("full-cover", "Durability"),
                    ("run", "clear terrain")},
    # issue 31: three aliases that hid terms the book never defines are keywords now
    "xenotactics": {("silent", "ranged stealth attack"), ("special-action", "special move"),
                    ("special-action", "special attack")},
    "dust-tactics": {("army-points", "unit card"), ("line-of-sight", "large wood"), ("reactive-attacks", "large vehicle"),
                     ("ambush", "deployment area"), ("carry-sealifter", "large vehicle"),
                     ("fort-deploying-fortifications", "deployment area"), ("fort-barbed-wire", "ENGINEERING"),
                     ("fort-minefields", "ENGINEERING"), ("fort-chainsaws-and-claws", "ENGINEERING"),
                     ("fort-dozer-blades", "ENGINEERING"),
                     ("blast-weapons", "blast template"), ("unit-coherency", "blast template"),
                     ("flame-weapons", "flame template"), ("fort-chainsaws-and-claws", "paired chainsaws"),
                     ("game-end", "turn limit"), ("meeting-engagement", "arrival zone"), ("reserves", "arrival zone")},
    "void": {("berserk-charge", "command check"), ("berserk-charge", "counter charge"), ("camouflage", "cover save"),
             ("combine-fire", "flame thrower"), ("dodge", "command check"), ("find-weakness", "armour piercing"),
             ("heavy-armour", "armour piercing"), ("high-morale", "morale check"), ("immune-to-panic", "morale check"),
             ("immune-to-panic", "Last Man Standing"), ("impetuous", "CD check"), ("infiltrate", "Initiative"),
             ("inspiring", "morale check"), ("inspiring", "rally check"), ("jump-trooper", "CD check"),
             ("lethal-strike", "Combat Blade"), ("neural-spike-activation", "Junker"),
             ("neural-spike-activation", "Lictor"), ("neural-spike-activation", "Censor"), ("marksman", "Sniper Rifle"), ("rampage", "panic test"),
             ("rampage", "direction dice"), ("rampage", "top speed"), ("sniper", "CD check"),
             ("stealth", "cover save"), ("strategy", "command check"), ("strike-first", "close combat"),
             ("suppressive-fire", "range band"), ("target-acquisition", "Army List"),
             ("target-acquisition", "Armoury"), ("terrifying", "morale check"), ("troop-carrier", "record sheet")},
    "warhammer-40k": {("characteristics", "Space Marines"), ("characteristics", "Eldar"),
                      ("characteristics", "Tyranids"), ("weapon-skill", "Hand-to-Hand Combat"),
                      ("ballistic-skill", "Shooting"), ("strength", "Hand-to-Hand Combat"),
                      ("strength", "Armour Penetration"), ("attacks", "Hand-to-Hand Combat"),
                      ("leadership", "Break tests"), ("leadership", "Psychology tests"),
                      ("zero-level-characteristics", "Genestealers"),
                      ("zero-level-characteristics", "ranged weapons"), ("heroic-characters", "Choosing A Target"),
                      ("heroic-characters", "Heavy Weapon"), ("leading-squads", "Break tests"),
                      ("leading-squads", "Psychology"), ("leading-squads", "Charge"),
                      ("leading-squads", "Hand-to-Hand Combat"), ("leading-squads", "flee"),
                      ("leading-squads", "Broken"), ("leading-squads", "Champions level characters"),
                      ("leading-squads", "Psyker Champions"), ("commanders", "Leadership-based tests"),
                      ("commanders", "Break Test"), ("cavalry", "armour saving throw"),
                      ("breaking-coherency", "Hand-to-Hand Combat"), ("breaking-coherency", "movement phase"),
                      ("breaking-coherency", "Broken"), ("infiltration", "standard deployment sequence"),
                      ("infiltration", "Line of Sight"), ("infiltration", "concealing terrain"),
                      ("hidden-models", "Shooting Phase"), ("hidden-models", "Overwatch"),
                      ("hidden-models", "concealing terrain"), ("going-into-hiding", "Movement Phase"),
                      ("going-into-hiding", "Charged"), ("going-into-hiding", "Ran"),
                      ("detecting-hidden-models", "Blast or Template weapon"),
                      ("moving-in-buildings", "crossing a wall"), ("moving-in-buildings", "Run"),
                      ("moving-in-buildings", "Charges"), ("attacking-buildings", "Armour Penetration"),
                      ("attacking-buildings", "penetrating hit"), ("attacking-buildings", "blast marker"),
                      ("attacking-buildings", "Hand-to-Hand Combat"), ("bunkers", "Support total"),
                      ("bunkers", "crew"), ("bunkers", "Mole Mortars"), ("bunkers", "army list"),
                      ("bunkers", "Hard Cover"), ("bunkers", "To Hit"), ("bunkers", "Long Range"),
                      ("bunkers", "Short Range"), ("bunkers", "direct hit"), ("bunkers", "blast marker"),
                      ("bunkers", "Scatters"), ("victory-points", "Wargear"), ("vp-squads", "Broken"),
                      ("vp-squads", "Wiped Out"), ("vp-squads", "Space Marine Combat Squads"),
                      ("vp-vehicles", "Damaged"), ("vp-vehicles", "Disabled"), ("vp-vehicles", "Destroyed"),
                      ("vp-characters", "Wounded"), ("vp-characters", "Killed"), ("vp-vehicle-squadrons", "Squadron"),
                      ("vp-vehicle-squadrons", "Squadron Coherency"), ("vp-vehicle-squadrons", "Disabled"),
                      ("vp-vehicle-squadrons", "Destroyed"), ("vp-support-weapon-batteries", "Battery"),
                      ("vp-support-weapon-batteries", "crew"), ("vp-support-weapon-batteries", "Battery Coherency"),
                      ("strategy-cards", "Tyranids"),
                      ("attacks", "Attack Dice"), ("going-into-hiding", "Tactical Dreadnought Armor"),
                      ("bunkers", "support weapon"), ("vp-support-weapon-batteries", "Support Weapons"),
                      ("cavalry", "vehicles"), ("going-into-hiding", "vehicles"), ("attacking-buildings", "vehicle"),
                      ("vp-vehicle-squadrons", "Vehicles")},
}


@pytest.mark.parametrize("book_id", sorted(UNDEFINED))
def test_books_undefined_names(book_id):
    from pathlib import Path
    book = rules_dsl.load(book_id)
    found = [f for f in book.findings if f.kind == "undefined-name"]
    assert {(f.rule, f.printed) for f in found} == UNDEFINED[book_id]
    assert len(found) == len(UNDEFINED[book_id])
    for r in book.rules:
        for use in r.node.uses:     # every used name is where the location says
            line = Path(use.span.file).read_text().splitlines()[use.span.line - 1]
            assert line[use.span.column - 1:].startswith(f'"{use.name}"'), use


@pytest.mark.parametrize("book_id", sorted(UNDEFINED))
def test_used_names_are_spelled_as_the_seeds_do(book_id, seeds):
    texts = [p.read_text() for p in seeds.glob("*.txt")]
    for r in rules_dsl.load(book_id).rules:
        for use in r.node.uses:
            assert any(use.name in t for t in texts), use.name


def test_books_defined_checks():
    # over the lists that name things: null-strike's sample-weapon specials miss three rules, the rest hold
    ns = rules_dsl.load("null-strike")
    values = [f for f in ns.run_check("sample_specials_have_rules") if f.kind == "disagreement"]
    assert sorted(f.printed.split("special=")[1][:-1] for f in values) == ["Blast", "Ignores Cover", "Torrent"]
    assert all(f.rule == "sample-weapons" for f in values)
    assert ns.run_check("sample_specials_are_printed") == []
    xt = rules_dsl.load("xenotactics")
    assert xt.run_check("priced_abilities_and_ranged_weapons_have_rules") == []
    assert xt.run_check("price_formulas_have_rules") == []
    dt = rules_dsl.load("dust-tactics")
    assert dt.run_check("command_actions_have_rules") == [] and dt.run_check("weapon_kinds_have_rules") == []


def test_removing_an_alias_in_a_real_book_makes_a_new_finding_at_the_use(tmp_path):
    before = {(f.rule, f.printed) for f in rules_dsl.load("xenotactics").name_findings()}
    mutated, path, _ = mutated_book(tmp_path, "xenotactics", 'aliases "Fly", "Flight", "Jump pack"',
                                    'aliases "Flight", "Jump pack"', "25-abilities.rules")
    (f,) = [f for f in mutated.name_findings() if (f.rule, f.printed) not in before]
    armory = path.parent / "20-armory.rules"
    line = next(i for i, l in enumerate(armory.read_text().splitlines(), 1) if 'uses "Fly"' in l)
    assert (f.kind, f.rule, f.printed) == ("undefined-name", "armour", "Fly")
    assert f.location == f"{armory}:{line}:14"
