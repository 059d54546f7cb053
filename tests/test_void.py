"""Tests of the VOID 1.1 special rules book (rulebooks/void.rules)."""
import math
import re
import subprocess
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

import rules_dsl
from rules_dsl import EvaluationError, InputError, RulesError

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT.parent / "shared" / "seeds" / "001_546e739ef6003e5d.txt"
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


def test_every_source_heading_is_a_rule(book):
    headings = [re.sub(r"^#+\s*", "", line).strip()
                for line in SEED.read_text().splitlines() if re.match(r"^#{2,3} ", line)]
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
    assert book.findings == []


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
    proc = subprocess.run(["rules", "check", "void"], capture_output=True, text=True, cwd=ROOT)
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


def test_verbatim_check_clean():
    tool = ROOT.parent / "shared" / "tools" / "verbatim-check"
    if not tool.exists():
        pytest.skip("verbatim-check tool not available")
    proc = subprocess.run([str(tool), "rulebooks/void.rules"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout
