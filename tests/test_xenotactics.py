"""Tests for Xenotactics 0.9.8 (rulebooks/xenotactics/*.rules): roll-under tests,
defence rolls, opposed-roll cancellation, end-of-activation Quality rolls, weapon
abilities, HP, cost formulas and price lists, missions and the campaign."""
from __future__ import annotations

import itertools
import re
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rules_dsl
from rules_dsl.errors import InputError
from conftest import mutated_book

FACES = range(1, 11)


@pytest.fixture(scope="module")
def book():
    return rules_dsl.load("xenotactics")


def reference_cancel(mine, stat, theirs, their_stat):
    """Independent statement of the cancelling rule: a success survives unless some
    opposing success is strictly higher."""
    their_successes = [t for t in theirs if t <= their_stat]
    return sum(1 for m in mine if m <= stat and not any(t > m for t in their_successes))


pools = st.lists(st.integers(1, 10), max_size=4)
stats = st.integers(0, 10)


# ------------------------------------------------------------------ header
def test_header(book):
    assert book.title == "Xenotactics"
    assert book.edition == "0.9.8"
    assert book.units == "inches"


# ------------------------------------------------------------------ basic rolls
def test_stat_roll_is_roll_under(book):
    for stat in range(0, 11):
        assert [book.stat_roll(stat, d) for d in FACES] == [d <= stat for d in FACES]


def test_defence_outcome_all_faces(book):
    for defence in range(0, 11):
        for die in FACES:
            got = book.defence_outcome(defence, die)
            if die <= defence:
                assert got == "ignored"
            elif die % 2:
                assert got == "pinned_down"
            else:
                assert got == "out_of_action"


def test_defence_roll_exact_odds(book):
    # Defence 5: 5 faces ignored, 7 and 9 pin, 6, 8 and 10 take out of action
    dist = book.odds("defence_roll", defence=5)
    assert dist.probability(lambda v: v == "ignored") == Fraction(5, 10)
    assert dist.probability(lambda v: v == "pinned_down") == Fraction(2, 10)
    assert dist.probability(lambda v: v == "out_of_action") == Fraction(3, 10)
    # a pinned model rolls against Defence 0: odd faces pin, even faces take out
    pinned = book.odds("defence_roll", defence=5, pinned=True)
    assert pinned.probability(lambda v: v == "out_of_action") == Fraction(1, 2)


def test_bounty_hunter_and_dummy(book):
    assert book.attack_hits(attack=6, firepower=2, dice=[1, 6]) == 2
    assert book.defence_rolls(defence=6, hits=2, dice=[4, 10]) == ["ignored", "out_of_action"]


def test_bad_inputs_are_rejected(book):
    with pytest.raises(InputError):
        book.stat_roll(6, 11)
    with pytest.raises(InputError):
        book.statline_cost(2, 6, 3, 6)          # Move must be 3-9
    with pytest.raises(InputError):
        book.statline_cost(4, 6, 7, 6)          # Defence must be 1-6
    with pytest.raises(InputError):
        book.close_combat_weapon_cost("stabbing", 1, 6)


# ------------------------------------------------------------------ opposed rolls
def test_book_examples_of_opposed_rolls(book):
    # the smuggler's 4 cancels the bounty hunter's 1; the 8 missed
    assert book.opposed_hits(6, 2, 4, 1, mine=[1, 8], theirs=[4]) == [0, 1]
    # the alien's 1 is cancelled by the android's 2, which the alien's 7 cancels
    assert book.opposed_hits(7, 3, 3, 1, mine=[1, 2, 7], theirs=[2]) == [2, 0]
    # the observer bot's 5 cancels both of the mercenary's 3s
    assert book.surviving_successes([3, 3], 6, [5], 5) == 0


@settings(max_examples=200, deadline=None)
@given(pools, stats, pools, stats)
def test_cancellation_matches_reference(book, mine, a, theirs, b):
    assert book.surviving_successes(mine, a, theirs, b) == reference_cancel(mine, a, theirs, b)


@settings(max_examples=200, deadline=None)
@given(pools, stats, pools, stats)
def test_hits_never_exceed_pools_or_successes(book, mine, a, theirs, b):
    hits = book.opposed_hits(a, len(mine), b, len(theirs), mine=mine, theirs=theirs)
    assert 0 <= hits[0] <= sum(1 for m in mine if m <= a) <= len(mine)
    assert 0 <= hits[1] <= sum(1 for t in theirs if t <= b) <= len(theirs)


@settings(max_examples=200, deadline=None)
@given(pools, pools, stats)
def test_swapping_sides_is_symmetric(book, mine, theirs, a):
    one = book.opposed_hits(a, len(mine), a, len(theirs), mine=mine, theirs=theirs)
    two = book.opposed_hits(a, len(theirs), a, len(mine), mine=theirs, theirs=mine)
    assert one == list(reversed(two))


@settings(max_examples=200, deadline=None)
@given(pools, stats, pools, stats)
def test_one_side_always_keeps_its_best_success(book, mine, a, theirs, b):
    # the highest success overall can never be cancelled, and equal rolls both stand
    hits = book.opposed_hits(a, len(mine), b, len(theirs), mine=mine, theirs=theirs)
    succ = [m for m in mine if m <= a] + [t for t in theirs if t <= b]
    if succ:
        assert hits[0] + hits[1] >= 1


def test_equal_rolls_both_hit(book):
    for face in FACES:
        assert book.opposed_hits(10, 1, 10, 1, mine=[face], theirs=[face]) == [1, 1]


def test_single_reacting_die_brute_force(book):
    # every pair of two active dice against one reacting die, Attack 6 vs 4
    for d1, d2, r in itertools.product(FACES, FACES, FACES):
        got = book.opposed_hits(6, 2, 4, 1, mine=[d1, d2], theirs=[r])
        assert got == [reference_cancel([d1, d2], 6, [r], 4), reference_cancel([r], 4, [d1, d2], 6)]


# ------------------------------------------------------------------ activation
def test_quality_roll_count(book):
    assert [book.quality_roll_count(ap) for ap in range(0, 6)] == [0, 1, 2, 3, 4, 5]
    assert book.quality_roll_count(4, ai=True) == 3
    assert book.quality_roll_count(1, robot=True) == 0
    assert book.quality_roll_count(2, robot=True) == 0
    assert book.quality_roll_count(3, robot=True) == 3


def test_turn_ends_on_two_failures_brute_force(book):
    for dice in itertools.product(FACES, repeat=3):
        fails = sum(1 for d in dice if d > 6)
        got = book.end_of_activation(quality=6, action_points=3, quality_dice=list(dice))
        assert got == ("turn_ends" if fails >= 2 else "turn_continues")


def test_single_action_point_never_ends_the_turn(book):
    dist = book.odds("end_of_activation", quality=3, action_points=1)
    assert dist.probability(lambda v: v == "turn_ends") == 0


def test_leader_reroll_lowers_the_risk(book):
    plain = book.odds("end_of_activation", quality=5, action_points=3).probability(lambda v: v == "turn_ends")
    led = book.odds("end_of_activation", quality=5, action_points=3, leader=True).probability(lambda v: v == "turn_ends")
    robot = book.odds("end_of_activation", quality=5, action_points=3, leader=True, robot=True).probability(lambda v: v == "turn_ends")
    assert led < plain
    assert robot == plain        # robots gain nothing from leaders


def test_mercenary_spotted(book):
    assert book.end_of_activation(quality=6, action_points=2, spotted=True, spotter_quality=5,
                                  quality_dice=[3, 3], spot=5) == "turn_ends"


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(1, 10), min_size=0, max_size=3), st.integers(1, 10), st.integers(0, 9))
def test_spotting_only_adds_failures(book, dice, spot, sq):
    base = book.quality_failures(6, dice)
    spotted = book.quality_failures(6, dice, spotted=True, spotter_quality=sq, spot=spot)
    assert base <= spotted <= len(dice)


def test_stand_up(book):
    assert book.stand_up_cost(True) == 2
    assert book.stand_up_cost(False) == 3
    assert book.stand_up_cost(True, robot=True) == 3
    assert book.stands_up(quality=6, friend_within_3=False, quality_dice=[1, 2, 6])
    assert not book.stands_up(quality=6, friend_within_3=False, quality_dice=[1, 2, 7])


def test_reactions(book):
    assert [book.reaction_dice(f) for f in range(0, 4)] == [0, 1, 1, 1]
    assert not book.may_react(True, 3)
    assert not book.may_react(True, 0, is_reaction=True)
    assert book.close_combat_dice(3) == 3 and book.close_combat_dice(3, reacting=True) == 1
    assert book.pushback(0, 0) == "initiator_pushed"


def test_action_costs(book):
    assert book.shoot_action_cost(heavy=True, directly_after_move=True) == 2
    assert book.action_costs("fly") == 2
    assert book.action_costs("teleport") == 3
    assert book.action_costs("telepathic_confusion") == 1


# ------------------------------------------------------------------ weapon abilities
def test_impacts_on_even_hits(book):
    for die in FACES:
        for impact in (1, 2, 3):
            got = book.attack_die_hits(die, 6, impact)
            assert got == (0 if die > 6 else impact if die % 2 == 0 else 1)


def test_shields(book):
    assert [book.attack_die_hits(d, 10, 1, "shield_protected") for d in FACES] == [0, 0] + [1] * 8
    assert [book.attack_die_hits(d, 10, 1, "bubble_protected") for d in FACES] == [0] + [1] * 9


def test_energy_beam_and_slashing(book):
    # an attack is a whole attack (shoot action or close combat): the first rolls, the 2nd and 3rd are ones
    assert book.auto_hit_faces([9, 8, 7]) == [9, 8, 7]
    assert book.auto_hit_faces([9, 8, 7], earlier_attacks=1) == [1, 1, 1]
    assert book.auto_hit_faces([9], earlier_attacks=2) == [1]
    assert book.shot_hits(attack=5, firepower=3, beam=True, dice=[9, 8, 7]) == 0
    assert book.shot_hits(attack=5, firepower=3, beam=True, earlier_attacks=1, dice=[9, 8, 7]) == 3
    with pytest.raises(InputError):          # a fourth attack on the same target is not covered by the book
        book.auto_hit_faces([9], earlier_attacks=3)


def test_defence_modifiers(book):
    for d in range(0, 11):
        assert book.weapon_defence(d, effect="counts_as_zero") == 0
        assert book.weapon_defence(d, effect="counts_as_four") == 4
        assert book.weapon_defence(d, pinned=True) == 0


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 10), st.lists(st.integers(1, 10), max_size=3))
def test_more_impact_never_fewer_hits(book, attack, dice):
    fp = len(dice)
    hits = [book.shot_hits(attack, fp, impact=i, dice=dice) for i in (1, 2, 3)]
    assert hits == sorted(hits)
    assert hits[0] <= fp and hits[2] <= 3 * fp


# ------------------------------------------------------------------ HP
def test_hp(book):
    assert [book.hp_costs(h) for h in range(2, 7)] == [12, 18, 24, 30, 36]
    assert book.damage_after_hits(defence=4, hp=3, damage=0, hits=2, dice=[3, 7]) == 1
    # with 2 damage, a roll of 1 is cancelled and counts as failed
    assert book.damage_after_hits(defence=4, hp=3, damage=2, hits=1, dice=[1]) == 3
    with pytest.raises(rules_dsl.EvaluationError):
        book.damage_after_hits(defence=3, hp=2, damage=0, hits=1, dice=[1])


@settings(max_examples=100, deadline=None)
@given(st.integers(4, 10), st.integers(2, 6), st.integers(0, 6), st.lists(st.integers(1, 10), max_size=5))
def test_damage_only_grows_and_is_capped(book, defence, hp, damage, dice):
    damage = min(damage, hp)
    after = book.damage_after_hits(defence=defence, hp=hp, damage=damage, hits=len(dice), dice=dice)
    assert damage <= after <= hp


# ------------------------------------------------------------------ costs
def test_terran_worked_example(book):
    statline = book.statline_cost(4, 6, 3, 6)
    gun = book.ranged_weapon_cost("Plasmagun", 6)
    shield = book.ability_cost("Energy shield", 4, 6, 3, 6)
    assert (statline, gun, shield) == (37, 36, 30)
    assert book.model_cost(statline, [gun, shield]) == 103


def test_statline_formula_brute_force(book):
    for m, a, d, q in itertools.product(range(3, 10), range(3, 10), range(1, 7), range(3, 10)):
        raw = Fraction(m + 3 * a + 5 * d) * q / 6
        expected = int(raw) + (1 if raw - int(raw) >= Fraction(1, 2) else 0)
        assert book.statline_cost(m, a, d, q) == expected


@settings(max_examples=200, deadline=None)
@given(st.integers(3, 8), st.integers(3, 8), st.integers(1, 5), st.integers(3, 8))
def test_statline_cost_monotone_in_each_stat(book, m, a, d, q):
    base = book.statline_cost(m, a, d, q)
    assert book.statline_cost(m + 1, a, d, q) >= base
    assert book.statline_cost(m, a + 1, d, q) >= base
    assert book.statline_cost(m, a, d + 1, q) >= base
    assert book.statline_cost(m, a, d, q + 1) > base


def test_rounding_is_half_up(book):
    assert book.ranged_weapon_cost("Thrown weapon", 7) == 18      # 17.5
    assert book.ranged_weapon_cost("Shotgun", 7) == 32            # 31.5
    assert book.faction_base_cost("mutants") == 33                # 32.5
    assert book.armour_cost(1, 0, "none", 4, 5, 4, 5) == 4        # 4.17: not rounded up


def test_close_combat_costs(book):
    for d in (1, 2, 3):
        for t in ("balanced", "slashing", "thrusting"):
            assert book.close_combat_rates(t, d) == d
        assert book.close_combat_rates("crushing", d) == d + 1


def test_firepower_only_where_the_book_fixes_it(book):
    fp = {r.weapon: r.firepower for r in book.compiled.tables["ranged_weapons"].rows()}
    stated = {w: f for w, f in fp.items() if f is not rules_dsl.language.values.ABSENT}
    assert stated == {"Laser pistol": 1, "Autogun": 2, "Smoke grenade": 0, "Gas grenade": 0}
    assert len(fp) == 26


def test_price_list_findings(book):
    findings = {f.check: f for f in book.findings if f.kind == "check-summary"}
    assert "statlines_follow_formula" not in findings
    assert "terrans_prices_follow_formulas" not in findings
    # and the three names the book uses but never defines (tests/test_names.py lists them)
    assert {f.kind for f in book.findings} == {"disagreement", "check-summary", "undefined-name"}
    sniper = findings["superterrans_prices_follow_formulas"]
    assert any("Sniper" in str(c) for c in sniper.cases)


def test_one_finding_per_wrong_printed_price_on_its_row(book):
    # every price that disagrees with its formula is its own finding, on the line that prints it
    values = [f for f in book.findings if f.kind == "disagreement"]
    summaries = [f for f in book.findings if f.kind == "check-summary"]
    assert len(values) == sum(len(f.cases) for f in summaries) == 30   # 29 prices != formula, and Revive
    # Revive has no formula: it is the finding of the check that every printed price has one
    (revive,) = [f for f in values if f.check == "printed_prices_have_formulas"]
    assert revive.printed == "exterminators_prices(item=Revive)"
    values = [f for f in values if f is not revive]
    texts = {}
    for f in values:
        path, line, col = f.location.rsplit(":", 2)
        lines = texts.setdefault(path, Path(path).read_text().splitlines())
        item = re.fullmatch(r"\w+_prices\(item=(.*)\)", f.printed).group(1)
        assert lines[int(line) - 1].lstrip().startswith(f'| "{item}" |'), (f.location, f.printed)
        assert lines[int(line) - 1][int(col) - 1] == '"'      # the column of the row's first cell
        assert f.rule == book.rule_of(f.printed.split("(")[0]) and f.check.endswith("_prices_follow_formulas")
        assert f.check_location == {s.check: s.location for s in summaries}[f.check]
    wrong = {(f.rule, f.printed.split("=", 1)[1][:-1]) for f in values}
    assert ("superterrans", "Sniper") in wrong and ("exterminators", "Revive") not in wrong and len(wrong) == 29
    assert ("terrans", "Sniper") not in wrong


def test_every_faction_base_cost_matches(book):
    for row in book.compiled.tables["faction_statlines"].rows():
        assert book.faction_base_cost(row.faction) == row.listed


# ------------------------------------------------------------------ missions
def test_mission_table(book):
    assert [book.mission_table(r) for r in range(1, 7)] == [
        "encounter_mission", "assassination_mission", "capture_mission",
        "rescue_mission", "sabotage_mission", "raid_mission"]


def test_defender_bid(book):
    assert book.defender_bid(100, 50, 300, 300) == "first_player_defends"
    assert book.defender_bid(50, 50, 400, 300) == "second_player_defends"
    assert book.defender_bid(50, 50, 300, 300) == "roll_to_decide"


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 500), st.integers(0, 500), st.integers(0, 1000), st.integers(0, 1000))
def test_defender_bid_is_symmetric(book, b1, b2, w1, w2):
    one = book.defender_bid(b1, b2, w1, w2)
    two = book.defender_bid(b2, b1, w2, w1)
    flip = {"first_player_defends": "second_player_defends",
            "second_player_defends": "first_player_defends", "roll_to_decide": "roll_to_decide"}
    assert flip[one] == two


def test_mission_scores(book):
    assert book.rescue_score(True, True) == [3, 2]
    assert book.sabotage_score(True, True, False) == [3, 2]
    assert book.sabotage_score(True, False, True) == [2, 3]
    with pytest.raises(rules_dsl.EvaluationError):
        book.sabotage_score(False, True, False)
    assert book.raid_score(3) == [3, 2]
    assert book.hold_point(2) == 1 and book.hold_point(1) == 0
    assert book.countdown_after(3, 1, added=2) == 4


# ------------------------------------------------------------------ campaign
def test_rewards_and_reputation(book):
    assert book.mission_reward(True, True) == 100
    assert book.mission_reward(False, False) == 25
    assert book.reputation_after(9, 11) == [11, 9]
    assert book.reputation_after(12, 10) == [13, 9]


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 100), st.integers(0, 100))
def test_reputation_is_conserved(book, w, l):
    after = book.reputation_after(w, l)
    assert sum(after) == w + l and after[1] >= 0


def test_experience_keeps_highest(book):
    assert book.experience_gained(3, dice=[2, 9, 4]) == 9
    dist = book.odds("experience_gained", victory_points=0)
    assert all(p == Fraction(1, 10) for _, p in dist)
    # more victory points, better expected experience
    assert book.odds("experience_gained", victory_points=2).mean > dist.mean


def test_levels(book):
    assert book.level_up_cost(8) == 13
    for cost in range(0, 400):
        assert book.starting_level(cost) == cost // 30


def test_campaign_tables_cover_every_face(book):
    for face in FACES:
        book.injury_table(face)
        book.madness_table(face)
        book.missing_in_action_table(face)
        book.level_up_table(face)
    assert book.injury_roll(doomed=True, dice=[3, 10]) == "missing"
    assert [book.stat_caps(s) for s in ("move_stat", "attack_stat", "defence_stat", "quality_stat")] == [8, 9, 6, 9]


# ------------------------------------------------------------------ audit (issue 15)
# Tests for the fixes of the line-by-line audit (notes/audit/xenotactics.md); "seed N" is a
# line of ../shared/seeds/002_aeea4458ecedbdab.txt.

ROOT = Path(__file__).resolve().parents[1]


def test_audit_move_may_not_pass_within_one_inch(book):
    # seed 134: a model may move within 1" of an enemy only when going into base contact
    assert book.move_allowed(3, 4, comes_within_1_inch_of_enemy=True) is False
    assert book.move_allowed(3, 4, comes_within_1_inch_of_enemy=True, ends_in_base_contact=True) is True
    assert book.move_allowed(4, 4) is True and book.move_allowed(4.5, 4) is False
    with pytest.raises(rules_dsl.NotFound):
        book.move_allowed(3, 4, ends_within_1_inch_of_enemy=True)       # the old, end-only parameter is gone


def test_audit_secret_targets_only_the_opponent_scores_noted_models(book):
    # seed 974: the remaining warband scores 3; "their opponent" scores 1 per noted model down
    for down in range(0, 4):
        assert book.secret_targets_score(noted_models_down=down) == [3, down]
    with pytest.raises(InputError):
        book.secret_targets_score(noted_models_down=4)


def test_audit_inferno_hits_friends_but_not_the_caster(book):
    # seed 909: blast 8" centred on the psionic, immune "unlike its friends"
    assert book.caught_by_inferno(0, is_caster=True) is False
    assert all(book.caught_by_inferno(d) for d in (0, 1, 4, 8))
    assert book.caught_by_inferno(8.5) is False


def test_audit_deployment_tie_is_absent_not_a_reroll(book):
    # seed 963: the higher roll chooses; a tie is not covered
    for a, b in itertools.product(FACES, FACES):
        got = book.deployment_roll_off(a, b)
        if a > b:
            assert got == "first_player_wins"
        elif b > a:
            assert got == "second_player_wins"
        else:
            assert got is rules_dsl.language.values.ABSENT
    assert set(book.compiled.enums["roll_off"]) == {"first_player_wins", "second_player_wins"}


def test_audit_hivemind_limit_counts_actions(book):
    # seed 830: "a single action per activation unless their master is on the battlefield"
    assert book.hivemind_limited_to_one_action(False) is True
    assert book.hivemind_limited_to_one_action(True) is False
    assert book.compiled.const("hivemind_actions_without_master") == 1
    assert "hivemind_action_limit" not in book.mechanics


def _cases_total(finding):
    return int(re.search(r"fails in \d+ of (\d+) cases", finding.message).group(1))


FACTION_TABLES = ["terrans", "superterrans", "eldara", "mutants", "engi", "locust", "exterminators",
                  "renegade_superterrans"]


def test_audit_every_printed_price_row_is_checked(book):
    # a check must include every printed value: each row with a formula by its faction's price
    # check, and every row by the check that it has a formula (Revive has none: its finding)
    findings = {f.check: f for f in book.findings if f.kind == "check-summary"}
    for faction in FACTION_TABLES:
        rows = list(book.compiled.tables[f"{faction}_prices"].rows())
        f = findings.get(f"{faction}_prices_follow_formulas")
        with_formula = [r for r in rows if book.has_cost_formula(r.kind, r.ref)]
        if f is not None:
            assert _cases_total(f) == len(with_formula), faction
        assert len(with_formula) == len(rows) - (1 if faction == "exterminators" else 0), faction
    every = findings["printed_prices_have_formulas"]
    assert _cases_total(every) == sum(len(list(book.compiled.tables[f"{x}_prices"].rows())) for x in FACTION_TABLES)
    assert [c for c in every.cases] == ["row=Revive"]
    assert book.price_of("exterminators", "ability", "Revive") is rules_dsl.language.values.ABSENT
    assert book.price_of("exterminators", "ability", "Teleport") == 24


def test_audit_new_printed_value_checks_hold(book):
    names = set(book.compiled.checks)
    new = {"ai_four_action_points", "deployment_depth_printings_agree", "defender_start_vp_printings_agree",
           "doubled_rewards_are_double"}
    assert new <= names
    assert not [f for f in book.findings if f.check in new]
    assert [r.seed_line for r in book.compiled.tables["printed_defender_start_vp"].rows()] == [1000, 1012, 1025, 1032]
    assert [r.seed_line for r in book.compiled.tables["printed_deployment_depths"].rows()] == [963, 996]
    assert book.mission_reward(won=True, lower_reputation=True) == 2 * book.mission_reward(won=True, lower_reputation=False)


def test_audit_stun_grenade_turns_out_of_action_into_pinned(book):
    # seed 713
    for die in FACES:
        r = book.defence_outcome(3, die)
        got = book.stun_grenade_result(r)
        assert got == ("pinned_down" if r == "out_of_action" else r)


def test_audit_readings_of_sights_heavy_and_telepathy(book):
    # the recorded readings: distance bands bind the favoured-weapon re-rolls (seed 774, 778)
    assert book.sight_reroll_allowed("laser_sight", "light", 3, 6, 12) is False
    assert book.sight_reroll_allowed("telescopic_sight", "basic", 5, 6, 8) is False
    assert book.sight_reroll_allowed("telescopic_sight", "basic", 5, 6, 9) is True
    # heavy: "an extra action" read as one extra action point (seed 612)
    assert book.shoot_action_cost(heavy=True, directly_after_move=True) == 2
    # mind control "win" = success not cancelled; equal successes both stand (seed 921-923)
    assert book.telepathy_succeeds(8, 6, mine=5, theirs=5) is True
    assert book.telepathy_succeeds(8, 6, mine=9, theirs=10) is False


# a misprint in any printed value must become a finding: change one printed cell, recompile, run the checks
MISPRINTS = [
    ("20-armory.rules", '| terrans | 4 | 6 | 3 | 6 | "none" | 37 |', '| terrans | 4 | 6 | 3 | 6 | "none" | 38 |',
     "statlines_follow_formula"),                                                                   # seed 223
    ("20-armory.rules", '| "Autogun" | ranged | "Autogun" | 0 | 0 | 0 | 30 |',
     '| "Autogun" | ranged | "Autogun" | 0 | 0 | 0 | 31 |', "terrans_prices_follow_formulas"),      # seed 244
    ("25-abilities.rules", "| 3 | 18 |", "| 3 | 17 |", "hp_cost_is_six_per_point"),                  # seed 844
    ("25-abilities.rules", 'const ai_max_action_points = 4', 'const ai_max_action_points = 5',
     "ai_four_action_points"),                                                                      # seed 788
    ("30-missions.rules", '| 996 | "asymmetrical" | 5 |', '| 996 | "asymmetrical" | 6 |',
     "deployment_depth_printings_agree"),                                                           # seed 996
    ("30-missions.rules", '| 1025 | "Detonate either bombsite" | 2 |', '| 1025 | "Detonate either bombsite" | 3 |',
     "defender_start_vp_printings_agree"),                                                          # seed 1025
    ("40-campaign.rules", '| "win" | 25 | 50 |', '| "win" | 25 | 40 |', "doubled_rewards_are_double"),  # seed 1054
]


@pytest.mark.parametrize("filename,old,new,check", MISPRINTS)
def test_audit_misprints_become_findings(book, filename, old, new, check, tmp_path):
    mutated, path, source = mutated_book(tmp_path, "xenotactics", old, new, filename)
    findings = mutated.run_check(check)
    assert findings and findings[-1].kind == "check-summary", (check, new)
    text = source.replace(old, new)
    line = text[:text.index(new)].count("\n") + 1 + new.count("\n")
    values = [f for f in findings if f.kind == "disagreement"]
    if new.startswith("|"):     # a printed row: exactly one finding, on that very line
        (f,) = values
        assert f.location.rsplit(":", 2)[:2] == [str(path), str(line)], (f.location, line)
    else:                       # a constant: no table behind it, the finding stays at the check
        assert values == [] and findings[-1].location == findings[-1].check_location
    before = {f.check for f in book.findings}
    assert {f.check for f in mutated.run_checks()} - before == {check}


def test_audit_note_kinds(book):
    kinds = {}
    for rule_id, note in book.notes:
        kinds.setdefault(note.kind, set()).add(rule_id)
    # readings that decide a result are interpretations
    assert {"locust", "heavy", "telescopic-sight", "laser-sight", "autogun", "close-combat-weapons", "hivemind",
            "hit-points", "healer", "regenerate", "psionics", "pyrokinesis", "telepathy", "encounter", "sabotage",
            "level-up-table"} <= kinds["interpretation"]
    # seed inconsistencies recorded
    assert "silent" in kinds["erratum"]
    # names used but never defined (or content the seed lacks) are absent notes on the rules that use them
    assert {"silent", "reactions", "special-action", "shoot-action", "missions", "mission-rewards", "campaign",
            "hacker", "energy-being", "electrokinesis", "symmetrical-missions", "armour", "revive",
            "basic-terrain", "special-terrain", "ignores-cover", "ranged-weapons"} <= kinds["absent"]
    # no clarification decides a result
    for rule_id, note in book.notes:
        if note.kind == "clarification":
            text = note.text.text if hasattr(note.text, "text") else str(note.text)
            assert "we read" not in text.lower() and "is read as" not in text.lower(), (rule_id, text)


def test_price_calls_stay_inside_their_callees_ranges(book):
    """Two crashes the range analysis found (issue 38) but could not prove, so `rules check`
    passed them: a close combat price with the default dice=0 reached
    close_combat_weapon_cost's 1..3 as a range error, and an armour's ability priced at the
    improved Defence (10 + a bonus of 2) reached raw_ability_cost's Defence 0..10."""
    from rules_dsl.errors import RulesError
    with pytest.raises(RulesError) as err:
        book.mechanics["price_of"]("terrans", "close_combat", "balanced")
    assert "give dice" in str(err.value) and "parameter 'dice'" not in str(err.value)
    assert book.mechanics["price_of"]("terrans", "close_combat", "balanced", dice=1) > 0
    # an included ability is priced at the improved Defence, up to 10 + 2
    for extra in ("Flying", "Teleport"):
        assert book.mechanics["armour_cost"](2, 0, extra, 5, 5, 10, 5) >= 0
