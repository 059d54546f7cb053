"""Tests of the VOID 1.1 special rules book (rulebooks/void.rules)."""
import math
import re
import subprocess
import sys
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

import rules_dsl
from rules_dsl import EvaluationError, InputError, RulesError
from conftest import mutated_book

ROOT = Path(__file__).resolve().parents[1]
SEED = "001_546e739ef6003e5d.txt"   # in the `seeds` folder
FACES = range(1, 11)

SPECIAL_RULES = [
    "Berserk Charge", "Camouflage", "Combine Fire", "Dodge", "Drop Trooper", "Enforced Rally", "Fast",
    "Fearless", "Find Weakness", "Fly", "Guard", "Heavy Armour", "High Morale", "Immobile",
    "Immune to Panic", "Impetuous", "Infiltrate", "Inspiring", "Jump Trooper", "Lethal Strike",
    "Marksman", "Mounted Weapon Team", "Multiple Attacks", "Multiple Shots", "Neural Spike Activation",
    "Prone", "Rampage", "Rough Terrain Specialist", "Shield Wall", "Shock Trooper", "Sniper",
    "S.P.O.M.M.", "Spotter", "Stealth", "Stomp Attack", "Strategy", "Strike First", "Suppressive Fire",
    "Swarm", "Tactical Awareness", "Target Acquisition", "Terrifying", "Troop Carrier",
]


@pytest.fixture(scope="module")
def book():
    return rules_dsl.load("void")


B = rules_dsl.load("void")     # for hypothesis tests (fixtures and @given do not mix well)


# ----------------------------------------------------------------- the book as a whole
def test_header(book):
    assert book.id == "void"
    assert book.title == "VOID 1.1 Special Rules"
    assert book.edition == "1.1"
    assert book.source == "001_546e739ef6003e5d.txt"
    assert book.units == "inches"


def test_all_43_special_rules_present_with_exact_titles(book):
    assert len(SPECIAL_RULES) == 43
    titles = {r.title for r in book.rules}
    assert set(SPECIAL_RULES) <= titles
    assert len(book.rules) == 44          # the 43 rules and the list's own heading


def test_every_source_heading_is_a_rule(book, seeds):
    headings = [re.sub(r"^#+\s*", "", line).strip()
                for line in (seeds / SEED).read_text().splitlines() if re.match(r"^#{2,3} ", line)]
    assert len(headings) == 44
    titles = {r.title for r in book.rules}
    assert set(headings) == titles


def test_rules_have_source_prose_and_keywords(book):
    for r in book.rules:
        assert r.node.source, r.id
        assert r.text.strip(), r.id
        assert r.node.keywords or r.node.aliases, r.id


def test_examples_pass_and_no_findings(book):
    results = book.run_examples()
    assert results and all(res.passed for res in results), [res.report for res in results if not res.passed]
    # the checks all hold; the only findings are names the list uses and no rule defines
    assert {f.kind for f in book.findings} == {"undefined-name"}


def test_notes_cover_the_page_break_repairs(book):
    kinds = {}
    for rule_id, note in book.notes:
        kinds.setdefault(note.kind, set()).add(rule_id)
    assert {"tactical-awareness", "troop-carrier", "jump-trooper", "drop-trooper", "immune-to-panic",
            "sniper", "spomm", "guard"} <= kinds["clarification"]
    assert {"dodge", "lethal-strike"} <= kinds["interpretation"]
    assert {"special-rules-list", "dodge", "strike-first", "suppressive-fire"} <= kinds["absent"]


def test_misplaced_troop_carrier_bullets_moved(book):
    tc = book.rule("troop-carrier").text
    ta = book.rule("tactical-awareness").text
    assert "Enemy models may not enter a Troop Carrier" in tc
    assert "whole of a unit or none" in tc
    assert "Enemy models may not enter" not in ta


def test_cli_check_exits_zero():
    proc = subprocess.run([sys.executable, "-m", "rules_dsl", "check", "void"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# ----------------------------------------------------------------- heavy armour, shield wall
def test_heavy_armour_brute_force_over_faces(book):
    for level in range(1, 21):
        saves = sum(book.heavy_armour_save(level, die=d) for d in FACES)
        assert saves == min(10, level + 1)          # d10 + level >= 10
        for d in FACES:
            assert book.heavy_armour_save(level, die=d) == (d + level >= 10)


@given(st.integers(1, 19), st.integers(1, 10))
def test_heavy_armour_save_monotone_in_level(level, die):
    if B.heavy_armour_save(level, die=die):
        assert B.heavy_armour_save(level + 1, die=die)


@given(st.integers(1, 20), st.lists(st.integers(1, 10), max_size=12))
def test_heavy_armour_wounds_counts_failed_saves(level, dice):
    left = B.heavy_armour_wounds(level, len(dice), dice=dice)
    assert left == sum(1 for d in dice if not B.heavy_armour_save(level, die=d))
    assert 0 <= left <= len(dice)


def test_shield_wall_is_heavy_armour_3_from_the_front(book):
    for d in FACES:
        assert book.shield_wall_save(True, die=d) == book.heavy_armour_save(3, die=d)
        assert book.shield_wall_save(False, die=d) is False
        assert book.shield_wall_save(True, in_close_combat=True, die=d) is False
    assert sum(book.shield_wall_save(True, die=d) for d in FACES) == 4    # faces 7..10


def test_heavy_armour_rejects_bad_level(book):
    with pytest.raises(InputError):
        book.heavy_armour_save(0, die=5)
    with pytest.raises(RulesError):
        book.heavy_armour_save(4, die=11)


# ----------------------------------------------------------------- dodge
@given(st.integers(1, 11), st.integers(-50, 0))
def test_dodge_natural_ten_always_succeeds(needed, modifier):
    assert B.dodge_roll(needed, modifier, die=10) is True


@given(st.integers(1, 11), st.integers(-49, 0), st.integers(1, 10))
def test_dodge_penalty_never_helps(needed, modifier, die):
    if B.dodge_roll(needed, modifier - 1, die=die):
        assert B.dodge_roll(needed, modifier, die=die)


def _dodge_reference(needed, dice):
    out, first = [], None
    for i, d in enumerate(dice):
        penalty = 0 if first is None else i - first
        ok = d == 10 or d - penalty >= needed
        if ok and first is None:
            first = i
        out.append(ok)
    return out


@settings(max_examples=150)
@given(st.integers(1, 11), st.lists(st.integers(1, 10), min_size=1, max_size=8))
def test_dodge_turn_matches_reference(needed, dice):
    got = B.dodge_turn(needed, len(dice), dice=dice)
    assert got == _dodge_reference(needed, dice)
    assert B.damage_dodged(needed, len(dice), dice=dice) == sum(got)
    assert all(got[i] for i, d in enumerate(dice) if d == 10)


def test_dodge_brute_force_two_points(book):
    # every pair of faces: the second point only suffers -1 if the first was dodged
    for needed in range(1, 12):
        for a, b in product(FACES, FACES):
            first_ok = a == 10 or a >= needed
            penalty = 1 if first_ok else 0
            second_ok = b == 10 or b - penalty >= needed
            assert book.dodge_turn(needed, 2, dice=[a, b]) == [first_ok, second_ok]


def test_dodge_modifier(book):
    assert [book.dodge_modifier(n) for n in range(4)] == [0, -1, -2, -3]


# ----------------------------------------------------------------- movement
@given(st.integers(0, 20))
def test_fast_never_less_than_mv(mv):
    assert B.fast_mv(mv) >= mv
    assert B.fast_mv(mv) == mv + math.ceil(mv / 2)
    for kind in ("charge", "close", "rush"):
        assert B.fast_bonus(mv, kind) == math.ceil(mv / 2)
    assert B.fast_bonus(mv, "normal_move") == 0


def test_fast_book_example(book):
    assert book.fast_bonus(4, "charge") == 2
    assert book.fast_mv(4) == 6


def test_fly_and_jump_heights(book):
    assert book.fly_ignores_terrain(9) and not book.fly_ignores_terrain(Fraction(91, 10))
    assert book.jump_ignores_obstacle(5) and not book.jump_ignores_obstacle(Fraction(51, 10))
    assert book.constants["jump_distance"] == 10
    assert book.constants["fly_height"] == 9
    with pytest.raises(RulesError):
        book.fly_ignores_terrain(-1)


def test_jump_failed_check_penalties(book):
    for order, passed in product(("move_order", "assault_order"), (True, False)):
        mod = book.jump_to_hit_modifier(order, passed)
        keeps = book.jump_keeps_charge_bonuses(order, passed)
        cc = book.jump_may_be_counter_charged(order, passed)
        assert mod == (-1 if (order == "move_order" and not passed) else 0)
        assert keeps == (passed or order == "move_order")
        assert cc == (order == "assault_order" and not passed)
    assert not book.jump_allowed("rush") and not book.jump_allowed("close")
    assert book.jump_allowed("charge") and book.jump_allowed("normal_move")


def test_drop_and_infiltrate_distances(book):
    assert book.drop_position_allowed(0, 13) and not book.drop_position_allowed(7, 13)
    assert not book.drop_position_allowed(3, 12)
    assert book.infiltrate_position_allowed(False, 13)
    assert not book.infiltrate_position_allowed(True, 30)


# ----------------------------------------------------------------- morale and checks
@given(st.lists(st.integers(0, 10), min_size=1, max_size=10))
def test_high_morale_and_strategy_use_highest(values):
    assert B.high_morale_bonus(values) == max(values)
    assert B.strategy_bonus(values) == max(values)
    assert B.high_morale_bonus(values, check="rally_check") == 0
    assert B.high_morale_bonus(values, check="tactical_awareness_check") == 0


def test_high_morale_book_example(book):
    assert book.high_morale_bonus([1, 1, 1, 2]) == 2


def test_inspiring_reroll_brute_force(book):
    # exact odds over both d10s: a re-roll turns p into 1 - (1 - p)^2
    for needed in range(1, 12):
        p = Fraction(sum(1 for d in FACES if d >= needed), 10)
        hits = sum(book.inspired_check(needed, distance=3, first=a, second=b) for a, b in product(FACES, FACES))
        assert Fraction(hits, 100) == 1 - (1 - p) ** 2
        far = sum(book.inspired_check(needed, distance=7, first=a, second=b) for a, b in product(FACES, FACES))
        assert Fraction(far, 100) == p


def test_inspiring_second_roll_stands(book):
    assert book.inspired_check(8, first=2, second=3) is False
    assert book.inspired_check(8, first=9, second=1) is True


# ----------------------------------------------------------------- damage dice
@given(st.integers(0, 10), st.integers(1, 10))
def test_lethal_strike_adds_dice(level, weapon_dice):
    assert B.lethal_strike_dice(level, weapon_dice) == weapon_dice + level


def test_lethal_strike_book_example(book):
    assert book.lethal_strike_dice(1, 1) == 2


def test_marksman_brute_force_over_faces(book):
    for needed in range(1, 12):
        for modifier in range(-3, 4):
            for d in FACES:
                total = d + modifier
                expected = 0 if total < needed else 1 + (total - needed) // 2
                assert book.marksman_damage_dice(needed, modifier, die=d) == expected


def test_marksman_book_example(book):
    assert book.marksman_damage_dice(needed=6, modifier=2, weapon_dice=1, die=8) == 3


def test_multiple_attacks_and_shots(book):
    assert book.close_combat_attacks(2) == 2
    assert book.shots_fired(2) == 2
    assert book.shots_fired(2, weapons=2) == 2
    for n in range(1, 11):
        for w in range(2, 11):
            assert book.shots_fired(n, weapons=w) <= w


def test_find_weakness(book):
    for ap in range(0, 11):
        for lvl in range(0, 11):
            assert book.armour_piercing(ap, lvl) == ap + lvl


# ----------------------------------------------------------------- crews, spikes, ranges
@given(st.integers(0, 20), st.integers(0, 20))
def test_mounted_weapon_team_losses(mv, lost):
    assert B.crew_mv(mv, lost) == max(mv - lost, 0)
    assert B.crew_to_hit_modifier(lost) == -lost


def test_mounted_weapon_team_removal(book):
    assert book.weapon_removed(2, 2) and not book.weapon_removed(2, 1)
    with pytest.raises(EvaluationError):
        book.weapon_removed(2, 3)
    assert not book.main_gun_can_fire(False, 0, False)


def test_neural_spike_ranges(book):
    assert book.neural_spike_range(1) == 6        # Lictor
    assert book.neural_spike_range(2) == 12       # Censor
    for lvl in range(1, 11):
        assert book.neural_spike_range(lvl) == 6 * lvl
        assert book.neural_spike_reaches(lvl, 6 * lvl, True)
        assert not book.neural_spike_reaches(lvl, 6 * lvl + 1, True)


def test_prone(book):
    assert book.prone_size("prone", 4) == 1 and book.prone_size("standing", 4) == 4
    assert book.prone_to_hit_modifier("prone") == 1
    assert book.prone_counts_as_moved("going_prone") and book.prone_counts_as_moved("getting_up")
    assert not book.prone_may_fight_back("prone")


def test_shock_trooper(book):
    assert book.shock_trooper_bonus("charging") == 1
    assert book.shock_trooper_bonus("counter_charging") == 1
    assert book.shock_trooper_bonus("other_combat") == 0
    assert book.shock_trooper_bonus("charging", lost_charge_bonuses=True) == 0


def test_spomm_grades(book):
    assert [book.spomm_grade_radius(g) for g in (1, 2, 3)] == ["short", "medium", "long"]
    bands = ["short", "medium", "long", "beyond_long"]
    for g in (1, 2, 3):
        reach = book.spomm_unit_reach([g])
        detected = [book.spomm_detects(reach, b) for b in bands]
        assert detected == [i < g for i in range(4)]
    assert book.spomm_unit_reach([1, 3, 2]) == "long_scan"
    assert book.spomm_unit_reach([1], led_by_ungraded=True) == "unlimited_scan"
    with pytest.raises(EvaluationError):
        book.spomm_unit_reach([])


@given(st.integers(0, 20))
def test_spotter_cumulative(n):
    assert B.spotter_bonus(n) == n
    assert B.spotter_bonus(n, indirect=False) == 0


def test_two_spotters_example(book):
    assert book.spotter_bonus(2) == 2


@given(st.lists(st.integers(0, 10), max_size=8), st.integers(1, 100), st.integers(1, 10),
       st.sampled_from(["short", "medium", "long"]))
def test_suppressive_fire_modifier(values, wounds, sz, band):
    steps = {"short": 0, "medium": 1, "long": 2}[band]
    assert B.suppressive_fire_modifier(values, wounds, sz, band) == wounds + max(sz - 2, 0) + steps - sum(values)


def test_suppressive_fire_range_limit(book):
    with pytest.raises(EvaluationError):
        book.suppressive_fire_modifier([1], 3, 2, "beyond_long")
    assert book.suppressive_fire_max_band("beyond_long") == "long"


@given(st.integers(0, 50))
def test_swarm_penalty_capped(n):
    p = B.swarm_penalty(n)
    assert -3 <= p <= 0
    assert p == -min(max(n - 1, 0), 3)
    if n < 50:
        assert B.swarm_penalty(n + 1) <= p


def test_terrifying_radius(book):
    for sz in range(1, 11):
        assert book.terror_radius(sz) == sz
        assert book.terror_check_needed(sz, sz, False)
        assert not book.terror_check_needed(sz, sz + 1, False)
        assert not book.terror_check_needed(sz, 0, True)


@given(st.integers(1, 50), st.integers(1, 10), st.integers(0, 50), st.integers(1, 50), st.integers(1, 10))
def test_troop_carrier_capacity(capacity, max_size, aboard, unit, sz):
    if aboard > capacity:
        with pytest.raises(EvaluationError):
            B.carrier_can_embark(capacity, max_size, aboard, unit, sz)
        return
    ok = B.carrier_can_embark(capacity, max_size, aboard, unit, sz)
    assert ok == (aboard + unit <= capacity and sz <= max_size)


def test_concealment(book):
    assert book.unit_concealment(["camouflage", "stealth"]) == "camouflage"
    assert book.unit_concealment(["stealth"]) == "stealth"
    assert book.unit_concealment(["camouflage", "none"]) == "none"
    for band in ("short", "medium", "long", "beyond_long"):
        assert book.concealed_out_of_los("camouflage", band) == (band in ("long", "beyond_long"))
        assert book.concealed_out_of_los("stealth", band) == (band != "short")
        assert not book.concealed_out_of_los("stealth", band, revealed=True)


def test_verbatim_check_clean(seeds):
    tool = seeds.parent / "tools" / "verbatim-check"
    if not tool.exists():
        pytest.skip("verbatim-check tool not available")
    proc = subprocess.run([str(tool), "rulebooks/void.rules"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout


# ================================================================= audit (issue 15): one test per fix
# Each test names the seed lines (../shared/seeds/001_546e739ef6003e5d.txt) it checks.

def test_audit_berserk_charger_blocks_every_counter_charge(book):
    # seed 13: "When charged by such a unit, you may not counter charge" covers Berserk units too
    for berserk, passed in product((True, False), (True, False)):
        assert book.counter_charges(berserk, passed, charged_by_berserk=True) is False
        assert book.counter_charges(berserk, passed) == (berserk or passed)


def test_audit_combine_fire_one_trade_needs_two_flamers_and_multiple_shots(book):
    # seed 21: two light flame throwers AND Multiple Shot(s); two shots for one normal flame thrower attack
    for two, ms in product((True, False), (True, False)):
        assert book.combine_fire_allowed(two, ms) == (two and ms)
    assert book.combine_fire_shots_left(2, True) == 0
    assert book.combine_fire_shots_left(2, False) == 2
    # under Multiple Shots two one-handed weapons fire once each: never more than 2 shots to trade
    assert book.shots_fired(5, weapons=2) == 2


def test_audit_joined_units_fearless_and_immune_to_panic(book):
    # seed 43 and 84-86: either the unit or the joining individual has the rule; seed 299: Terrifying is Fearless
    for unit, individual in product((True, False), (True, False)):
        assert book.unit_is_fearless(unit, individual) == (unit or individual)
        assert book.unit_is_immune_to_panic(unit, individual) == (unit or individual)
    assert book.unit_is_fearless(False, terrifying=True)


def test_audit_guard_extra_rules_only_for_portable_charges(book):
    # seed 62-64: the carry and damage-first bullets follow "if the thing being guarded is portable or a person"
    assert book.guards_take_damage(3) and not book.guards_take_damage(0)
    assert not book.guards_take_damage(3, portable_or_person=False)
    assert book.guard_can_carry(2, 2, True, 4, 4)
    assert not book.guard_can_carry(2, 2, True, 4, 4, portable_or_person=False)


def test_audit_impetuous_must_assault(book):
    # seed 94: MUST assault if at all possible (override read as cancelling the whole rule)
    assert book.impetuous_must_assault(True, False)
    assert not book.impetuous_must_assault(False, False)
    assert not book.impetuous_must_assault(True, True)


def test_audit_neural_spike_detonation_needs_no_los(book):
    # seed 158: rally needs range AND LOS; seed 160: detonation needs range only; seed 162: 6" per level
    for level in range(1, 11):
        r = 6 * level
        assert book.neural_spike_reaches(level, r, False, use="detonate")
        assert not book.neural_spike_reaches(level, r, False)
        assert book.neural_spike_reaches(level, r, True)
        assert not book.neural_spike_reaches(level, r + 1, True, use="detonate")


def test_audit_prone_no_movement(book):
    # seed 168 and 170: nothing else in the movement phase when going Prone; may not move while Prone; a
    # movement phase spent getting up
    assert [book.prone_may_move(s) for s in ("standing", "going_prone", "prone", "getting_up")] == \
        [True, False, False, False]


def test_audit_sniper_test_is_optional(book):
    # seed 202-204: "it CAN make a CD test"; without the test normal target priority applies
    assert book.sniper_targeting(False, True, takes_test=False) == "normal_priority"
    assert book.sniper_targeting(False, False, takes_test=False) == "normal_priority"
    assert book.sniper_targeting(False, True) == "any_model"
    assert book.sniper_targeting(False, False) == "closest_model"


def test_audit_swarm_counts_enemy_models(book):
    # seed 268: -1 for every enemy model after the first in base contact, to at most -3
    assert [book.swarm_penalty(enemies_in_contact=n) for n in range(0, 7)] == [0, 0, -1, -2, -3, -3, -3]


def test_audit_shield_wall_support_within_two_inches(book):
    # seed 188: support models placed within 2" of the wall
    assert book.shield_wall_support_position_allowed(2)
    assert not book.shield_wall_support_position_allowed(Fraction(21, 10))


def test_audit_spomm_forced_orders(book):
    # seed 222-232: the start-of-turn obligations of Tactical Advance and Fire Support units
    ta, fs = "tactical_advance", "fire_support"
    for los_charge, los_weapon in product((True, False), (True, False)):
        assert book.spomm_start_of_turn(ta, False, los_charge, los_weapon) == "advance_to_closest_enemy"
        assert book.spomm_start_of_turn(fs, False, los_charge, los_weapon) == "hold_stationary"
        assert book.spomm_start_of_turn(ta, True, los_charge, los_weapon) == \
            ("move_and_charge" if los_charge else "free_orders")
        assert book.spomm_start_of_turn(fs, True, los_charge, los_weapon) == \
            ("shoot_without_rush" if los_weapon else "free_orders")
    assert book.tactical_advance_turn_continues(True) and not book.tactical_advance_turn_continues(False)
    assert book.tactical_advance_must_assault(True)
    assert book.fire_support_rush_stops(True, False)
    assert not book.fire_support_rush_stops(True, True)
    assert not book.fire_support_rush_stops(False, False)


def test_audit_strike_first(book):
    # seed 252 (attacking first is a charging bonus) with seed 121 (a failed jump loses all charge bonuses)
    assert book.first_to_strike(False, False) == "charger_first"
    assert book.first_to_strike(False, False, charger_lost_charge_bonuses=True) == "per_core_rules"
    assert book.first_to_strike(True, False, charger_lost_charge_bonuses=True) == "charger_first"
    assert book.first_to_strike(False, True) == "defender_first"
    assert book.return_attack_allowed(False) and not book.return_attack_allowed(True)


def test_audit_mounted_weapon_turn_and_destroyed_carrier(book):
    # seed 138: turn up to 90 degrees; seed 313: within two inches of the carrier's last position
    assert book.weapon_turn_allowed(90) and not book.weapon_turn_allowed(91)
    assert book.destroyed_carrier_position_allowed(2)
    assert not book.destroyed_carrier_position_allowed(Fraction(5, 2))


def test_audit_all_printed_example_checks_hold(book):
    names = set(book.compiled.checks)
    assert {"fast_example_follows_rule", "heavy_armour_example_follows_rule", "high_morale_example_follows_rule",
            "lethal_strike_example_follows_rule", "marksman_example_follows_rule",
            "multiple_attacks_example_follows_rule", "multiple_shots_example_follows_rule",
            "neural_spike_examples_follow_rule", "spotter_example_follows_rule"} <= names
    assert [f for f in book.run_checks() if f.kind != "undefined-name"] == []


# a misprint in any printed value must become a finding: change one printed cell, recompile, run the check
MISPRINTS = [
    ("| rush | 4 | 2 |", "| rush | 4 | 3 |", "fast_example_follows_rule"),                        # seed 39
    ("| 6 | 6 |", "| 6 | 5 |", "heavy_armour_example_follows_rule"),                              # seed 70
    ('| "Sergeant with High Morale (+2)" | 1 | 2 | 2 |', '| "Sergeant with High Morale (+2)" | 1 | 2 | 1 |',
     "high_morale_example_follows_rule"),                                                          # seed 76
    ('| "Combat Blade" | 1 | 1 | 2 |', '| "Combat Blade" | 1 | 1 | 3 |',
     "lethal_strike_example_follows_rule"),                                                        # seed 127
    ("| 6 | 2 | 8 | 10 | 4 | 2 | 3 |", "| 6 | 2 | 8 | 10 | 5 | 2 | 3 |", "marksman_example_follows_rule"),
    ("| 6 | 2 | 8 | 10 | 4 | 2 | 3 |", "| 6 | 2 | 8 | 11 | 4 | 2 | 3 |", "marksman_example_follows_rule"),
    ("| 6 | 2 | 8 | 10 | 4 | 2 | 3 |", "| 6 | 2 | 8 | 10 | 4 | 2 | 4 |", "marksman_example_follows_rule"),
    ("| 2 | 12 |", "| 2 | 10 |", "neural_spike_examples_follow_rule"),                             # seed 162
    ("| spotters | \"to hit bonus\" |\n            |---|---|\n            | 2 | 2 |",
     "| spotters | \"to hit bonus\" |\n            |---|---|\n            | 2 | 1 |", "spotter_example_follows_rule"),
    ("| level | attacks |\n            |---|---|\n            | 2 | 2 |",
     "| level | attacks |\n            |---|---|\n            | 2 | 3 |", "multiple_attacks_example_follows_rule"),
    ("| level | shots |\n            |---|---|\n            | 2 | 2 |",
     "| level | shots |\n            |---|---|\n            | 2 | 1 |", "multiple_shots_example_follows_rule"),
]


@pytest.mark.parametrize("old,new,check", MISPRINTS)
def test_audit_misprints_become_findings(old, new, check, tmp_path):
    mutated, path, source = mutated_book(tmp_path, "void", old, new)
    findings = mutated.run_check(check)
    assert findings and findings[-1].kind == "check-summary", (check, new)
    assert {f.check for f in mutated.run_checks() if f.check} == {check}   # only the check that covers the value
    # one finding for the wrong printed value, located on the very line that prints it
    text = source.replace(old, new)
    line = text[:text.index(new)].count("\n") + 1 + new.count("\n")
    (f,) = [f for f in findings if f.kind == "disagreement"]
    assert f.location.rsplit(":", 2)[:2] == [str(path), str(line)], (f.location, line)


def test_audit_note_kinds(book):
    kinds = {}
    for rule_id, note in book.notes:
        kinds.setdefault(note.kind, set()).add(rule_id)
    # readings that decide a mechanic's result are interpretations (not clarifications)
    assert {"berserk-charge", "camouflage", "combine-fire", "guard", "impetuous", "infiltrate", "prone",
            "shield-wall", "strike-first", "target-acquisition"} <= kinds["interpretation"]
    # seed inconsistencies recorded
    assert {"combine-fire", "infiltrate", "jump-trooper", "neural-spike-activation", "spomm"} <= kinds["clarification"]
    # names used but not defined in the source are said to be absent on the rule that uses them
    assert {"drop-trooper", "fearless", "guard", "immune-to-panic", "multiple-shots", "neural-spike-activation",
            "prone", "shock-trooper", "spotter", "stealth", "stomp-attack", "strategy", "swarm",
            "mounted-weapon-team", "target-acquisition", "troop-carrier"} <= kinds["absent"]
    shield = [n.text.text for r, n in book.notes if r == "shield-wall"]
    assert not any("among the body text" in t for t in shield)        # the heading is a real heading (seed 182)
