"""Tests for the Warhammer 40,000 General Rules book (rulebooks/warhammer-40k.rules)."""
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

import rules_dsl
from rules_dsl.language.values import ABSENT
from rules_dsl.errors import InputError
from conftest import mutated_book

book = rules_dsl.load("warhammer-40k")
M = book.mechanics

SQUAD = ("half_casualties", "broken_or_wiped_out")
VEHICLE = ("damaged", "disabled_or_destroyed")
CHARACTER = ("wounded", "killed")
SQUADRON = ("half_disabled_or_destroyed", "all_disabled_or_destroyed")
BATTERY = ("half_destroyed", "all_destroyed")
VP_TABLES = {
    "squad_victory_points": SQUAD,
    "vehicle_victory_points": VEHICLE,
    "character_victory_points": CHARACTER,
    "squadron_victory_points": SQUADRON,
    "battery_victory_points": BATTERY,
}
ALL_LOSSES = SQUAD + VEHICLE + CHARACTER + SQUADRON + BATTERY
MAX_POINTS = 100_000


def test_every_heading_is_a_rule():
    rule_ids = set(book.rules_by_id)
    for rid in ("general-rules", "characteristics", "movement", "weapon-skill", "ballistic-skill",
                "strength", "toughness", "wounds", "initiative", "attacks", "leadership",
                "zero-level-characteristics", "characteristic-profiles",
                "heroic-characters", "leading-squads", "targeting-characters", "commanders",
                "cavalry", "squad-coherency", "breaking-coherency", "dispersed-formation",
                "infiltration", "hiding", "hidden-models", "going-into-hiding",
                "spotting-hidden-models", "detecting-hidden-models", "buildings",
                "moving-in-buildings", "attacking-buildings", "building-damage-chart", "doors",
                "bunkers", "bunker-hit-table", "bunker-damage-chart", "bunker-door-damage-chart",
                "victory-points", "vp-squads", "vp-vehicles", "vp-characters",
                "vp-vehicle-squadrons", "vp-support-weapon-batteries", "mission-cards",
                "strategy-cards"):
        assert rid in rule_ids, rid


def test_missing_charts_and_card_lists_are_marked_absent():
    absent = {rid for rid, note in book.notes if note.kind == "absent"}
    for rid in ("building-damage-chart", "bunker-damage-chart", "bunker-door-damage-chart",
                "mission-cards", "strategy-cards"):
        assert rid in absent, rid
        # no invented rows: the damage charts and card lists declare nothing
        if rid.endswith("damage-chart") or rid == "mission-cards":
            assert not book.rules_by_id[rid].node.decls


def test_contradictions_have_interpretations():
    interp = {rid for rid, note in book.notes if note.kind == "interpretation"}
    assert {"hidden-models", "detecting-hidden-models", "targeting-characters"} <= interp


def test_findings_are_the_bunker_armour_disagreements():
    # undefined-name findings (the names the seed uses and never defines) are tested in test_names.py
    found = {(f.rule, f.check, f.kind) for f in book.findings if f.kind not in ("check-summary", "undefined-name")}
    assert found == {
        ("bunker-hit-table", "bunker_armour_is_fortification_grade", "disagreement"),
        ("bunker-hit-table", "bunker_door_matches_bunker", "disagreement"),
    }


# ------------------------------------------------------------- profiles
def test_standard_human_profile_is_a_record():
    p = book.troop_profiles("Standard Human")
    assert (p.m, p.ws, p.bs, p.s, p.t, p.w, p.i, p.a, p.ld) == (3, 3, 3, 3, 3, 1, 3, 1, 7)


def test_unknown_troop_type_has_no_row():
    with pytest.raises(rules_dsl.EvaluationError):
        book.troop_profiles("Ork Boy")


def test_characteristic_of_matches_record_fields():
    p = book.troop_profiles("Standard Human")
    for ch, field in [("movement", "m"), ("weapon_skill", "ws"), ("ballistic_skill", "bs"),
                      ("strength", "s"), ("toughness", "t"), ("wounds", "w"),
                      ("initiative", "i"), ("attacks", "a"), ("leadership", "ld")]:
        assert M["characteristic_of"]("Standard Human", ch) == getattr(p, field)


@given(st.integers(0, 10))
def test_zero_level_means_no_ability(v):
    assert M["has_ability"](v) == (v != 0)


# ------------------------------------------------------------- characters
def test_randomise_hit_book_example_five_models():
    faces = [M["randomise_hit"](5, die=d) for d in range(1, 7)]
    assert faces == ["squad_member"] * 5 + ["character"]
    assert M["character_hit_chance"](5) == Fraction(1, 6)


@pytest.mark.parametrize("models", range(1, 6))
def test_randomise_hit_brute_force_gives_one_in_models_plus_one(models):
    results = [M["randomise_hit"](models, die=d) for d in range(1, 7)]
    decided = [r for r in results if r != "roll_again"]
    chance = Fraction(decided.count("character"), len(decided))
    assert chance == Fraction(1, models + 1) == M["character_hit_chance"](models)
    # the book's own case needs no re-roll
    if models == 5:
        assert "roll_again" not in results


def test_randomise_hit_rejects_units_too_large_for_a_d6():
    with pytest.raises(InputError):
        M["randomise_hit"](6, die=1)


@given(st.integers(1, 100))
def test_character_hit_chance_is_one_in_n_plus_one(n):
    assert M["character_hit_chance"](n) == Fraction(1, n + 1)


@given(st.integers(0, 24))
def test_character_targeting_distance(d):
    status = M["character_target_status_for"](d, screened_by_models_as_large=True)
    assert status == ("only_if_closest" if d > 2 else "not_targetable")


@given(st.lists(st.integers(0, 10), min_size=1, max_size=8))
def test_commander_candidates_have_the_highest_leadership(lds):
    cands = M["commander_candidates"](lds)
    assert cands and all(lds[i] == max(lds) for i in cands)
    assert len(cands) == lds.count(max(lds))


@given(st.integers(0, 10), st.integers(0, 10), st.integers(0, 48))
def test_commander_leadership_only_within_12_inches(own, cmd, dist):
    ld = M["leadership_for_test"](own, cmd, dist)
    assert ld >= own
    if dist > 12:
        assert ld == own
    else:
        assert ld == max(own, cmd)
    assert M["break_test_when_commander_slain"](dist) == (dist <= 12)


def test_champions_cannot_leave_but_psyker_champions_can():
    assert M["may_leave_squad"](champion=True) is False
    assert M["may_leave_squad"](champion=True, psyker_champion=True) is True
    with pytest.raises(rules_dsl.EvaluationError):
        M["may_leave_squad"](psyker_champion=True)


# ------------------------------------------------------------- cavalry
@given(st.integers(0, 10), st.integers(0, 10))
def test_cavalry_combines_rider_and_mount(rider, mount):
    cc = M["cavalry_characteristic"]
    for ch in ("leadership", "toughness", "wounds", "initiative"):
        assert cc(ch, rider, mount) == rider
    assert cc("movement", rider, mount) == mount
    assert cc("attacks", rider, mount) == rider + mount
    for ch in ("weapon_skill", "ballistic_skill", "strength"):
        assert cc(ch, rider, mount) is ABSENT


def test_cavalry_save_adds_one_on_every_face():
    assert [M["cavalry_save_roll"](die=d) for d in range(1, 7)] == [2, 3, 4, 5, 6, 7]


# ------------------------------------------------------------- coherency
@given(st.integers(0, 10), st.booleans())
def test_coherency_range(gap, dispersed):
    limit = 4 if dispersed else 2
    assert M["in_coherency"](gap, dispersed=dispersed) == (gap <= limit)


@given(st.integers(1, 100), st.integers(1, 100))
def test_smaller_part_of_split_unit_is_broken(a, b):
    r = M["split_unit_result"](a, b, coherency_restored=False)
    if a < b:
        assert r == "first_part_broken"
    elif b < a:
        assert r == "second_part_broken"
    else:
        assert r is ABSENT


# ------------------------------------------------------------- infiltration & hiding
def test_infiltration_lowest_roll_deploys_first_over_all_faces():
    for a in range(1, 7):
        for b in range(1, 7):
            r = M["infiltration_deploys_first"](first_roll=a, second_roll=b)
            assert r == ("first_player_first" if a < b else "second_player_first" if b < a else "tie")


@given(st.integers(0, 10), st.integers(0, 20))
def test_spotting_radius_equals_initiative(i, dist):
    assert M["spotting_radius"](i) == i
    assert M["spots"](i, dist) == (dist <= i)


def test_hiding_permissions():
    assert M["may_hide"]("stayed_still") and M["may_hide"]("normal_move")
    assert not M["may_hide"]("ran") and not M["may_hide"]("charged")
    for troop in ("cavalry_model", "vehicle_model", "tactical_dreadnought_armour"):
        assert not M["may_hide"]("stayed_still", troop=troop)


@given(st.booleans(), st.booleans(), st.booleans(), st.booleans())
def test_shooting_always_reveals(moved, shot, began_hidden, concealing):
    r = M["remains_hidden"](moved=moved, shot=shot, began_turn_hidden=began_hidden,
                            moved_only_through_concealing_terrain=concealing)
    if shot:
        assert r is False
    if not moved and not shot:
        assert r is True


def test_area_weapons_hit_hidden_models_on_4_plus():
    for status in ("hidden", "detected"):
        hits = [M["caught_in_area"](status, die=d) for d in range(1, 7)]
        assert hits == ["not_hit"] * 3 + ["hit"] * 3
    assert M["caught_in_area"]("detected", shooter_detected_it=True, die=1) == "resolve_normally"


def test_hidden_models_are_never_targets():
    for w in ("direct_fire", "blast_weapon", "template_weapon"):
        assert M["may_target"]("hidden", weapon=w) is False
        assert M["may_target"]("visible", weapon=w) is True


# ------------------------------------------------------------- buildings & doors
def test_building_armour_table():
    expected = {"tent_or_inflatable": 5, "hut_or_shack": 10, "plexiglas_or_plastic": 15,
                "timber_stone_or_concrete": 20, "steel_plasteel_or_rockrete": 25,
                "armaplas_ceramite_or_adamantium": 30}
    for m, av in expected.items():
        assert book.building_armour(m) == av


def test_interior_doors_one_grade_lower():
    dav = M["door_armour_value"]
    for m in ("timber_stone_or_concrete", "steel_plasteel_or_rockrete", "armaplas_ceramite_or_adamantium"):
        assert dav(m, interior=True) == dav(m, interior=False) - 5
    assert dav("plexiglas_or_plastic", interior=True) is ABSENT
    assert dav("tent_or_inflatable") is ABSENT


# ------------------------------------------------------------- bunkers
def test_bunker_hit_table_over_every_face():
    locs = [M["bunker_hit_location"](die=d) for d in range(1, 7)]
    assert locs == ["vision_slit", "bunker_door"] + ["bunker_body"] * 4
    hidden_door = [M["bunker_hit_location"](door_visible=False, die=d) for d in range(1, 7)]
    assert hidden_door == ["vision_slit"] + ["bunker_body"] * 5
    assert [M["bunker_hit_armour"](die=d) for d in range(1, 7)] == [ABSENT, 20, 25, 25, 25, 25]


@given(st.integers(0, 20), st.integers(0, 20), st.booleans())
def test_bunker_capacity(inside, roof, weapon):
    ok = M["bunker_occupancy_allowed"](inside, roof, roof_support_weapon=weapon)
    assert ok == (inside <= 8 and (roof == 0 if weapon else roof <= 5))


def test_bunker_to_hit_modifiers_and_slits():
    assert M["bunker_to_hit_modifier"]("roof_models", "short_range") == -2
    assert M["bunker_to_hit_modifier"]("bunker_itself", "long_range") == 1
    assert M["bunker_to_hit_modifier"]("bunker_itself", "short_range") == "auto_hit"
    assert M["vision_slits"](4) == 7
    assert M["bunkers_cost"](3) == 150


# ------------------------------------------------------------- victory points
@settings(max_examples=300)
@given(st.integers(0, MAX_POINTS), st.sampled_from(ALL_LOSSES))
def test_victory_point_lookup_is_total(points, loss):
    vp = M["victory_points"](points, loss)
    assert 0 <= vp <= 4


@settings(max_examples=200)
@given(st.integers(0, MAX_POINTS - 1), st.sampled_from(ALL_LOSSES))
def test_victory_points_never_fall_as_points_rise(points, loss):
    assert M["victory_points"](points, loss) <= M["victory_points"](points + 1, loss)


@pytest.mark.parametrize("table,losses", VP_TABLES.items())
def test_vp_bands_contiguous_and_increasing(table, losses):
    t = book.tables[table] if hasattr(book, "tables") else getattr(book, table)
    rows = [r for r in t.rows() if r.loss == losses[0]]
    bands = [r.points for r in rows]
    assert bands[0].start == 0
    assert bands[-1].stop - 1 == MAX_POINTS
    for lo, hi in zip(bands, bands[1:]):
        assert hi.start == lo.stop  # next band starts one point after the previous ends


def test_vp_printed_values():
    vp = M["victory_points"]
    assert [vp(p, "broken_or_wiped_out") for p in (100, 101, 201, 301, 401)] == [1, 1, 2, 2, 3]
    assert [vp(p, "killed") for p in (50, 51, 101, 201, 301)] == [0, 1, 2, 3, 4]
    assert [vp(p, "half_disabled_or_destroyed") for p in (100, 200, 300, 400, 500, 501)] == [0, 1, 1, 2, 2, 3]
    assert [vp(p, "all_destroyed") for p in (100, 200, 300, 301, 5000)] == [1, 1, 2, 2, 2]
    assert all(vp(p, "wounded") == 0 for p in (0, 50, 300, 10_000))


@given(st.integers(0, 1000), st.integers(1, 30), st.data())
def test_squad_vp_thresholds(points, models, data):
    cas = data.draw(st.integers(0, models))
    vp = M["squad_victory_points_for"](points, models=models, casualties=cas)
    if cas == models:
        assert vp == M["victory_points"](points, "broken_or_wiped_out")
    elif 2 * cas >= models:
        assert vp == M["victory_points"](points, "half_casualties")
    else:
        assert vp == 0


def test_points_above_range_are_rejected():
    with pytest.raises(InputError):
        M["victory_points"](MAX_POINTS + 1, "killed")


# ------------------------------------------------------------- strategy cards
@given(st.integers(0, MAX_POINTS))
def test_one_strategy_card_per_full_thousand(points):
    assert M["strategy_cards"](points) == points // 1000
    assert M["strategy_cards"](points, tyranids=True) == 0


# ------------------------------------------------------------- issue 15 audit
ROOT = Path(__file__).resolve().parents[1]
BUNKER_FINDINGS = {"bunker_armour_is_fortification_grade", "bunker_door_matches_bunker"}


def _mutated(old, new, tmp_path, monkeypatch=None):
    return mutated_book(tmp_path, "warhammer-40k", old, new)[0]


def test_audit_zero_wounds_is_not_a_casualty():
    # seed 16 and 24: a W of 0 does not apply, so the book cannot say the model is a casualty
    assert M["is_casualty"](0, 0) is ABSENT
    assert M["is_casualty"](0, 5) is ABSENT
    assert M["is_casualty"](1, 1) is True and M["is_casualty"](2, 1) is False


def test_audit_hiding_invents_no_terrain_condition():
    # seed 57-63 never ask for concealing terrain to go into hiding
    prose = book.rules_by_id["hiding"].text
    assert "in concealing terrain" not in prose
    absent = [n.text.text for r, n in book.notes if r == "going-into-hiding" and n.kind == "absent"]
    assert any("concealing terrain" in t for t in absent)


def test_audit_bunker_firers_and_direct_hits():
    # seed 102: one model per Vision Slit; seed 104: only direct hits affect a Bunker
    assert M["bunker_firers"](inside=8, walls=4) == 7
    assert M["bunker_firers"](inside=3, walls=4) == 3
    assert M["bunker_affected"](direct_hit=True) is True
    assert M["bunker_affected"](direct_hit=False) is False


def test_audit_printed_randomising_example_is_checked():
    # seed 39: five models, 1 in 6, 1-5 the unit, 6 the character
    row = book.printed_hit_example(5)
    assert (row.one_in, row.squad_low, row.squad_high, row.character_face) == (6, 1, 5, 6)
    assert not [f for f in book.findings if f.check == "printed_hit_example_follows_rule"]


def test_audit_note_kinds():
    kinds = {}
    for rule_id, note in book.notes:
        kinds.setdefault(note.kind, set()).add(rule_id)
    # readings that decide a mechanic's result are interpretations
    assert {"hidden-models", "wounds", "bunkers", "bunker-hit-table"} <= kinds["interpretation"]
    assert "hidden-models" not in kinds.get("clarification", set())
    # the bunker armour disagreement is an apparent error of the source
    assert "bunker-hit-table" in kinds["erratum"]
    # an absent note says only what is absent (no 'we report', 'come back')
    for rule_id, note in book.notes:
        if note.kind == "absent":
            t = note.text.text
            assert "reported as" not in t and "come back" not in t, (rule_id, t)


# a misprint in a printed value must become a finding: change one printed cell, recompile, run the checks
MISPRINTS = [
    # seed 79: building armour
    ("| hut_or_shack | 10 |", "| hut_or_shack | 15 |", BUNKER_FINDINGS | {"building_armour_rises_by_grade"}),
    # seed 94: door armour
    ("| timber_stone_or_concrete | 10 |", "| timber_stone_or_concrete | 15 |",
     BUNKER_FINDINGS | {"door_armour_pattern", "interior_door_one_grade_lower"}),
    # seed 111: the Bunker's door (the present bunker_door_matches_bunker finding goes away, a new one comes)
    ("| 2 | bunker_door | 20 |", "| 2 | bunker_door | 15 |",
     {"bunker_armour_is_fortification_grade", "bunker_door_is_fortification_grade"}),
    # seed 131: vehicles
    ('| "points / loss" | damaged | disabled_or_destroyed |\n            |---|---|---|\n            | 0..100 | 0 | 1 |',
     '| "points / loss" | damaged | disabled_or_destroyed |\n            |---|---|---|\n            | 0..100 | 1 | 1 |',
     BUNKER_FINDINGS | {"vehicles_score_like_squads"}),
    # seed 147: vehicle squadrons
    ('| half_disabled_or_destroyed | all_disabled_or_destroyed |\n            |---|---|---|\n            | 0..100 | 0 | 1 |',
     '| half_disabled_or_destroyed | all_disabled_or_destroyed |\n            |---|---|---|\n            | 0..100 | 1 | 1 |',
     BUNKER_FINDINGS | {"squadrons_score_like_squads_to_500"}),
    # seed 157: support weapon batteries
    ('| half_destroyed | all_destroyed |\n            |---|---|---|\n            | 0..100 | 0 | 1 |',
     '| half_destroyed | all_destroyed |\n            |---|---|---|\n            | 0..100 | 1 | 1 |',
     BUNKER_FINDINGS | {"batteries_score_like_squads_to_400"}),
    # seed 39: the worked example of Targeting Characters
    ("| 5 | 6 | 1 | 5 | 6 |", "| 5 | 5 | 1 | 5 | 6 |", BUNKER_FINDINGS | {"printed_hit_example_follows_rule"}),
    ("| 5 | 6 | 1 | 5 | 6 |", "| 5 | 6 | 1 | 4 | 6 |", BUNKER_FINDINGS | {"printed_hit_example_follows_rule"}),
    # seed 33 and 38: the 2-inch distances are standard squad coherency
    ('const join_distance = 2 ', 'const join_distance = 3 ', BUNKER_FINDINGS | {"join_distance_is_coherency"}),
    ('const character_screen_distance = 2 ', 'const character_screen_distance = 3 ',
     BUNKER_FINDINGS | {"screening_distance_is_coherency"}),
]


@pytest.mark.parametrize("old,new,checks", MISPRINTS)
def test_audit_misprints_become_findings(old, new, checks, tmp_path, monkeypatch):
    mutated = _mutated(old, new, tmp_path, monkeypatch)
    found = {f.check for f in mutated.run_checks() if f.kind != "undefined-name"}
    assert found == checks, (new, found)


def test_audit_bunker_at_30_would_agree_with_the_building_tables(tmp_path, monkeypatch):
    # the erratum on bunker-hit-table: with the footnote's armaplas value (30) both findings vanish
    mutated = _mutated("| 3..6 | bunker_body | 25 |", "| 3..6 | bunker_body | 30 |", tmp_path, monkeypatch)
    assert not [f for f in mutated.run_checks() if f.kind != "undefined-name"]


def test_audit_cavalry_needs_a_one_wound_mount():
    # seed 45: cavalry rides a mount with only one wound; larger mounts are vehicles or have their own rules
    assert M["counts_as_cavalry"](mount_wounds=1) is True
    assert all(M["counts_as_cavalry"](mount_wounds=w) is False for w in range(2, 21))


# names the seed uses but never defines (spelled as in the seed) -> rules whose absent note names them
UNDEFINED_NAMES = {
    "Space Marines": ["characteristics"], "Eldar": ["characteristics"], "Tyranids": ["characteristics", "strategy-cards"],
    "Hand-to-Hand Combat": ["weapon-skill", "strength", "attacks", "leading-squads", "breaking-coherency", "attacking-buildings"],
    "Shooting": ["ballistic-skill"], "Armour Penetration": ["strength", "attacking-buildings"],
    "Attack Dice": ["attacks"], "Break tests": ["leadership", "leading-squads"], "Break Test": ["commanders"],
    "Psychology": ["leadership", "leading-squads"], "Genestealers": ["zero-level-characteristics"],
    "ranged weapons": ["zero-level-characteristics"],
    "Choosing A Target": ["heroic-characters"], "Heavy Weapon": ["heroic-characters"],
    "Charge": ["leading-squads", "going-into-hiding", "moving-in-buildings"], "Broken": ["leading-squads", "breaking-coherency", "vp-squads"],
    "Champions level": ["leading-squads"], "Psyker Champions": ["leading-squads"],
    "vehicle": ["cavalry", "going-into-hiding", "attacking-buildings", "vp-vehicles"],
    "armour saving throw": ["cavalry"], "movement phase": ["breaking-coherency", "going-into-hiding"],
    "Dispersed Formation": ["dispersed-formation"], "Infiltration ability": ["infiltration"],
    "deployment sequence": ["infiltration"], "Line of Sight": ["infiltration"],
    "concealing terrain": ["hiding", "hidden-models", "infiltration"], "Overwatch": ["hidden-models"],
    "Shooting Phase": ["hidden-models"], "Running": ["going-into-hiding", "moving-in-buildings"],
    "Tactical Dreadnought Armor": ["going-into-hiding"], "Blast or Template": ["detecting-hidden-models"],
    "crossing a wall": ["moving-in-buildings"], "penetrating hit": ["attacking-buildings"],
    "blast marker": ["attacking-buildings", "bunkers"], "Support total": ["bunkers"], "Mole Mortars": ["bunkers"],
    "army list": ["bunkers"], "Hard Cover": ["bunkers"], "Long and Short Range": ["bunkers"],
    "direct hits": ["bunkers"], "Scattering": ["bunkers"], "Wargear": ["victory-points"],
    "Wiped Out": ["vp-squads"], "Space Marine Combat Squads": ["vp-squads"],
    "Damaged": ["vp-vehicles"], "Disabled": ["vp-vehicles", "vp-vehicle-squadrons"], "Wounded or Killed": ["vp-characters"],
    "Squadron Coherency": ["vp-vehicle-squadrons"], "Battery Coherency": ["vp-support-weapon-batteries"],
    "support weapon": ["bunkers", "vp-support-weapon-batteries"], "crew": ["bunkers", "vp-support-weapon-batteries"],
    "fleeing": ["leading-squads"], "Leadership-based tests": ["commanders"], "To Hit": ["bunkers"],
    "vehicle squadron": ["vp-vehicle-squadrons"], "support weapon battery": ["vp-support-weapon-batteries"],
    "Hiding": ["hiding"],
}


@pytest.mark.parametrize("name", sorted(UNDEFINED_NAMES))
def test_audit_undefined_names_have_absent_notes(name):
    for rule_id in UNDEFINED_NAMES[name]:
        texts = [n.text.text.lower() for r, n in book.notes if r == rule_id and n.kind == "absent"]
        assert any(name.lower() in t for t in texts), (name, rule_id)
