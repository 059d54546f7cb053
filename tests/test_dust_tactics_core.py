"""Tests for the core rules of Dust Tactics (revised rules): dice, initiative,
actions, movement, attacks, suppression, reactive attacks, heroes, end of game
and scenario rules (rulebooks/dust-tactics/00..40-*.rules)."""
from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rules_dsl
from rules_dsl.errors import InputError

FACES = ["army", "army", "target", "target", "shield", "shield"]  # the six faces of a Dust die
SYMBOLS = ["army", "target", "shield"]
STATES = ["clear", "under_fire", "suppressed"]
SEVERITY = {"clear": 0, "under_fire": 1, "suppressed": 2}


@pytest.fixture(scope="module")
def book():
    return rules_dsl.load("dust-tactics")


faces = st.sampled_from(SYMBOLS)


# ------------------------------------------------------------------ dice
def test_header(book):
    assert book.title == "Dust Tactics"
    assert book.edition == "Revised rules"


def test_hits_and_saves_faces(book):
    assert [f for f in FACES if book.hits_on(f)] == ["army", "army"]
    assert [f for f in FACES if book.hits_on(f, extra=True)] == ["army", "army", "target", "target"]
    assert [f for f in FACES if book.saves_on(f)] == ["army", "army"]
    assert [f for f in FACES if book.saves_on(f, cover=True)] == ["army", "army", "shield", "shield"]


def test_original_dice_keep_the_odds(book):
    original = ["original_target"] * 2 + ["original_blank"] * 4
    for two in (False, True):
        orig = sum(book.original_die_success(f, two_symbols=two) for f in original)
        dust = sum(book.hits_on(f, extra=two) for f in FACES)
        assert orig == dust


CORE_CHECKS = {"original_dice_keep_odds", "third_actions_never_stack", "book_distances_follow_printed",
               "hits_never_reduce_tokens", "activation_never_raises_tokens", "extra_die_never_hurts",
               "reactive_outcomes_partition", "advanced_outcomes_partition", "advanced_outcomes_all_possible",
               "advanced_never_worse", "single_die_partition"}


def test_core_checks_hold(book):
    """Every check of the core part holds: printed conversions agree, outcomes partition, tokens ordered."""
    failing = [f for f in book.run_checks() if f.check in CORE_CHECKS]
    assert failing == []


# ------------------------------------------------------------- initiative
def test_initiative_brute_force(book):
    """Over all 6^3 x 6^3 rolls: army count decides, then target count, else roll again."""
    wins = {"player_a_wins": 0, "player_b_wins": 0, "roll_again": 0}
    for a in itertools.product(SYMBOLS, repeat=3):
        for b in itertools.product(SYMBOLS, repeat=3):
            r = str(book.initiative_winner(a=list(a), b=list(b)))
            key_a = (a.count("army"), a.count("target"))
            key_b = (b.count("army"), b.count("target"))
            expected = "player_a_wins" if key_a > key_b else "player_b_wins" if key_b > key_a else "roll_again"
            assert r == expected
            wins[r] += 1
    assert wins["player_a_wins"] == wins["player_b_wins"]  # the roll is fair


def test_black_ops_rolls_four(book):
    assert str(book.initiative_winner(dice_a=4, a=["army"] * 4, b=["army"] * 3)) == "player_a_wins"
    with pytest.raises(InputError):
        book.initiative_winner(dice_a=5)


# ----------------------------------------------------------------- actions
def test_action_cap_never_exceeds_three(book):
    kinds = ["nothing", "move", "march_move", "attack", "sustained_attack", "special"]
    for n in range(0, 11):
        allowed = book.actions_allowed(n)
        assert allowed == (2 if n == 0 else 3)
        for k in range(1, 5):
            for plan in itertools.product(kinds, repeat=k):
                if book.activation_is_legal(list(plan), third_action_effects=n):
                    assert sum(book.action_cost(a) for a in plan) == allowed <= 3
                    assert plan.count("move") <= 1 and plan.count("attack") <= 1


def test_passing(book):
    assert book.may_pass(1, 2)
    assert not book.may_pass(2, 2)


# ---------------------------------------------------------------- movement
@given(st.integers(1, 10), st.booleans())
def test_terrain_never_lengthens_a_move(book, move, march):
    capped = book.terrain_move_limit(move, march=march, crosses_terrain=True)
    assert capped <= book.move_distance(move, march=march)
    assert capped <= (16 if march else 8)


def test_vehicle_terrain_tests(book):
    assert sum(book.vehicle_crosses_terrain("tracked", face=f) for f in FACES) == 4
    assert sum(book.vehicle_crosses_terrain("wheeled", face=f) for f in FACES) == 2
    assert sum(book.vehicle_crosses_terrain("half_tracked", face=f) for f in FACES) == 2


# ----------------------------------------------------------------- attacks
def _absent(v):
    return str(v) == "absent"


def test_range_conversions(book):
    """Every printing of the book-wide table follows 1 point = 10 cm = 4 inches (32 printings)."""
    rows = book.tables["printed_conversions"].rows()
    assert len(rows) == 32
    for row in rows:
        assert "seed " in row.place
        if not _absent(row.inches):
            assert row.cm * 4 == row.inches * 10
        if not _absent(row.points):
            assert row.points * 10 == row.cm and row.points * 4 == row.inches
        assert book.printed_distance_agrees(row.points, row.cm, row.inches)
    for n in range(0, 31):
        assert book.range_inches(n) == 4 * n
        assert book.range_cm(n) == 10 * n


def test_officer_reach_misprints_are_findings_on_their_rules(book):
    """'range 2 (10cm/8")' in Ammo Drop and Get Moving (seed 1783/1899, 1794/1910) is reported on
    the rule that prints it, and by the book-wide check too; no other printing disagrees."""
    by_check = {f.check: f for f in book.run_checks()}
    assert by_check["command_ammo_drop_reach_converts"].rule == "command-ammo-drop"
    assert by_check["command_get_moving_reach_converts"].rule == "command-get-moving"
    wide = by_check["printed_conversions_agree"]
    assert wide.rule == "check-range"
    assert len(wide.cases) == 2
    assert "Ammo Drop" in wide.cases[0] and "Get Moving" in wide.cases[1]
    # the printed values themselves: range 2 and 8 inches agree, the 10 cm does not
    for table in ("command_ammo_drop_printed_reach", "command_get_moving_printed_reach"):
        (row,) = book.tables[table].rows()
        assert (row.points, row.cm, row.inches) == (2, 10, 8)
        assert not book.printed_distance_agrees(row.points, row.cm, row.inches)
        assert book.printed_distance_agrees(row.points, 20, row.inches)   # the corrected value agrees
        assert book.printed_distance_agrees(row.points, "absent", row.inches)
    assert {f.check for f in book.run_checks() if f.check} == {"printed_conversions_agree", "command_ammo_drop_reach_converts",
                                                    "command_get_moving_reach_converts"}


@given(st.integers(1, 5), st.integers(1, 10), st.booleans(), st.integers(0, 4))
def test_attack_dice_formula(book, chart, minis, salvo, volley):
    if salvo and volley:
        with pytest.raises(rules_dsl.EvaluationError):
            book.attack_dice(chart, minis, salvo=salvo, volley_boxes=volley)
        return
    n = book.attack_dice(chart, minis, salvo=salvo, volley_boxes=volley)
    assert n == chart * minis * (2 if salvo else 1) * (volley or 1)


@settings(max_examples=60)
@given(st.lists(faces, min_size=1, max_size=8), st.lists(faces, min_size=8, max_size=8), st.booleans())
def test_sustained_attack_only_adds_hits(book, first, pool, extra):
    plain = book.attack_hits(len(first), extra_target=extra, first=first)
    misses = len(first) - plain
    rerolled = pool[:misses]
    sustained = book.attack_hits(len(first), sustained=True, extra_target=extra, first=first, rerolled=rerolled)
    assert plain <= sustained <= len(first)
    assert plain == sum(book.hits_on(f, extra=extra) for f in first)


def test_saves_brute_force(book):
    for f in FACES:
        assert book.save_succeeds(f, "infantry_squad", True) == (f in ("army", "shield"))
        assert book.save_succeeds(f, "infantry_squad", False) == (f == "army")
        assert book.save_succeeds(f, "hero", True) == (f in ("army", "shield"))
        assert book.save_succeeds(f, "vehicle", True) == (f == "army")
        assert book.save_succeeds(f, "aircraft", False) is False
        assert book.save_succeeds(f, "infantry_squad", True, denial="denies_cover_save") == (f == "army")
        assert book.save_succeeds(f, "infantry_squad", True, denial="denies_all_saves") is False


@given(st.sampled_from(["infantry_squad", "support_weapon", "hero", "vehicle", "aircraft"]),
       st.integers(0, 30), st.integers(1, 20), st.one_of(st.integers(1, 10), st.just("eliminates")))
def test_damage_never_exceeds_what_is_left(book, kind, hits, remaining, value):
    d = book.damage_taken(kind, hits, remaining, damage_value=value)
    assert 0 <= d <= remaining
    if hits == 0:
        assert d == 0


def test_field_of_fire(book):
    front = [b for b in range(360) if book.in_field_of_fire("front_mounted", b)]
    rear = [b for b in range(360) if book.in_field_of_fire("rear_mounted", b)]
    assert len(front) == len(rear) == 91
    right = [b for b in range(360) if book.in_field_of_fire("right_side_mounted", b)]
    left = [b for b in range(360) if book.in_field_of_fire("left_side_mounted", b)]
    assert not set(right) & set(left) and 0 not in right + left and 180 not in right + left


# ------------------------------------------------------------- suppression
@given(st.sampled_from(STATES), st.integers(0, 40))
def test_hits_never_lower_tokens(book, state, hits):
    after = str(book.suppression_after_attack(state, hits))
    assert after in STATES
    assert SEVERITY[after] >= SEVERITY[state]
    if hits >= 10:
        assert after == "suppressed"


def test_every_hit_transition(book):
    assert str(book.suppression_after_attack("clear", 1)) == "under_fire"
    assert str(book.suppression_after_attack("under_fire", 1)) == "suppressed"
    assert str(book.suppression_after_attack("suppressed", 1)) == "suppressed"
    assert str(book.suppression_after_attack("clear", 10)) == "suppressed"
    assert str(book.suppression_after_attack("clear", 0)) == "clear"
    assert str(book.suppression_after_attack("clear", 25, immune=True)) == "clear"
    with pytest.raises(rules_dsl.EvaluationError):
        book.suppression_after_attack("under_fire", 1, immune=True)


@pytest.mark.parametrize("n", [2, 3])
def test_activation_roll_brute_force(book, n):
    """Every face combination of 2 (or 3) dice: result stays in the state set and never worsens."""
    counts = {s: {t: 0 for t in STATES} for s in STATES}
    for state in ("under_fire", "suppressed"):
        for roll in itertools.product(FACES, repeat=n):
            after = str(book.suppression_on_activation(state, extra_die=(n == 3), dice=list(roll)))
            assert after in STATES and SEVERITY[after] <= SEVERITY[state]
            counts[state][after] += 1
    total = 6 ** n
    if n == 2:
        # Under Fire: removed unless neither die shows the army symbol (16 of 36 keep it)
        assert counts["under_fire"] == {"clear": 20, "under_fire": 16, "suppressed": 0}
        # Suppressed: both army 4, exactly one 16, none 16
        assert counts["suppressed"] == {"clear": 4, "under_fire": 16, "suppressed": 16}
    else:
        assert counts["under_fire"]["under_fire"] == 4 ** 3
        assert counts["suppressed"]["suppressed"] == 4 ** 3
        assert counts["suppressed"]["under_fire"] == 3 * 2 * 4 ** 2
    assert sum(counts["suppressed"].values()) == total


def test_forced_nothing_and_fighting(book):
    assert book.must_do_nothing_first("suppressed")
    assert not book.must_do_nothing_first("clear")
    assert book.must_do_nothing_first("clear", stunned=True)
    assert not book.can_fight("suppressed")
    assert not book.can_fight("clear", stunned=True)
    assert book.can_fight("under_fire")


def test_three_dice_for_brave_commissar_hero(book):
    assert book.token_dice() == 2
    assert book.token_dice(brave=True) == book.token_dice(commissar=True) == book.token_dice(with_hero=True) == 3
    assert book.never_suppressed(is_hero=True) and book.never_suppressed(is_superhuman=True)
    assert not book.never_suppressed()


# -------------------------------------------------------- reactive attacks
def test_reactive_outcomes_partition_36_pairs(book):
    seen = {"react_sustained_or_move_attack": 0, "react_attack": 0, "react_nothing": 0}
    for a, b in itertools.product(FACES, repeat=2):
        both_army = a == "army" and b == "army"
        one_army = (a == "army") != (b == "army")
        neither = a in ("target", "shield") and b in ("target", "shield")
        assert both_army + one_army + neither == 1
        out = str(book.reactive_roll(dice=[a, b]))
        seen[out] += 1
        assert out == ("react_sustained_or_move_attack" if both_army else "react_attack" if one_army else "react_nothing")
    assert seen == {"react_sustained_or_move_attack": 4, "react_attack": 16, "react_nothing": 16}


RANK = {"react_nothing": 0, "react_attack": 1, "react_sustained_or_move_attack": 2}


def test_advanced_reactive_fire_partition(book):
    """Advanced Reactive Fire counts the shield symbol as the army symbol (issue 15 re-decision):
    over the 36 face pairs the three outcomes take 16, 16 and 4 pairs, so all three stay possible."""
    seen = {"react_sustained_or_move_attack": 0, "react_attack": 0, "react_nothing": 0}
    for a, b in itertools.product(FACES, repeat=2):
        counted = sum(f in ("army", "shield") for f in (a, b))
        out = str(book.reactive_roll(advanced=True, dice=[a, b]))
        assert out == ["react_nothing", "react_attack", "react_sustained_or_move_attack"][counted]
        # never worse than the same dice without the skill
        assert RANK[out] >= RANK[str(book.reactive_roll(dice=[a, b]))]
        seen[out] += 1
    assert seen == {"react_sustained_or_move_attack": 16, "react_attack": 16, "react_nothing": 4}


def test_advanced_reactive_fire_single_die(book):
    """A suppressed or stunned unit with the skill rolls one die: ATTACK on army or shield, never more."""
    for f in FACES:
        out = str(book.reactive_attempt("clear", stunned=True, advanced=True, dice=[f]))
        assert out == ("react_attack" if f in ("army", "shield") else "react_nothing")


def test_advanced_reactive_fire_exact_odds(book):
    """The exact-odds engine agrees with the face count: 4/9, 4/9, 1/9 (without the skill 1/9, 4/9, 4/9)."""
    from fractions import Fraction as F
    from rules_dsl import odds
    with_skill = {str(v): p for v, p in odds.distribution(book.mechanics["reactive_roll"], advanced=True)}
    assert with_skill == {"react_sustained_or_move_attack": F(4, 9), "react_attack": F(4, 9), "react_nothing": F(1, 9)}
    without = {str(v): p for v, p in odds.distribution(book.mechanics["reactive_roll"])}
    assert without == {"react_sustained_or_move_attack": F(1, 9), "react_attack": F(4, 9), "react_nothing": F(4, 9)}


def test_single_die_when_suppressed_or_stunned(book):
    for f in FACES:
        out = str(book.reactive_attempt("clear", stunned=True, dice=[f]))
        assert out == ("react_attack" if f == "army" else "react_nothing")
    # a suppressed unit that fails its removal roll rolls one die
    for r in itertools.product(["target", "shield"], repeat=2):
        for f in FACES:
            out = str(book.reactive_attempt("suppressed", removal=list(r), dice=[f]))
            assert out in ("react_attack", "react_nothing")
    # one that rallies rolls two
    assert str(book.reactive_attempt("suppressed", removal=["army", "shield"], dice=["army", "army"])) == "react_sustained_or_move_attack"


@given(st.integers(0, 40), st.booleans(), st.booleans(), st.booleans(), st.booleans(), st.booleans())
def test_reactive_declaration(book, distance, activated, aircraft, sustained, nothing2, advanced):
    ok = book.may_declare_reactive(distance, already_activated=activated, is_aircraft=aircraft,
                                   enemy_sustained_attack=sustained, enemy_second_action_nothing=nothing2,
                                   advanced=advanced)
    expected = (not activated and not aircraft and not sustained and not nothing2
                and distance <= (24 if advanced else 16))
    assert ok == expected


# ------------------------------------------------------- heroes, scenarios
def test_heroes_and_pilots(book):
    assert book.combined_move(2, 3) == 2
    assert sum(book.pilot_escape_damage(face=f) == 0 for f in FACES) == 4
    assert book.may_pilot("skill_air_pilot", "piloted_aircraft")
    assert not book.may_pilot("skill_air_pilot", "piloted_vehicle")


def test_reserves(book):
    for units in range(1, 40):
        r = book.minimum_reserves(units)
        assert 2 * r >= units and 2 * (r - 1) < units
    assert [book.reserve_dice(t) for t in (1, 2, 3)] == [1, 2, 0]
    assert [book.reserve_dice(t, delayed=True) for t in (1, 2, 3, 4)] == [0, 1, 2, 0]
    # arrival odds by brute force: turn 1 one die (2/6), turn 2 two dice (20/36)
    assert sum(book.reserve_arrives(1, dice=[f]) for f in FACES) == 2
    assert sum(book.reserve_arrives(2, dice=[a, b]) for a, b in itertools.product(FACES, repeat=2)) == 20
    assert book.reserve_arrives(3) and book.reserve_arrives(4, delayed=True)
    assert not book.reserve_arrives(1, delayed=True)
    zones = {str(book.scattered_arrival(face=f)) for f in FACES}
    assert zones == {"anywhere_on_own_edge", "near_left_corner", "near_right_corner"}


def test_ambush_actions(book):
    counts = [book.ambush_actions(dice=[a, b]) for a, b in itertools.product(FACES, repeat=2)]
    assert max(counts) == 2 and min(counts) == 0
    assert counts.count(2) == 16


def test_objectives_and_end(book):
    assert book.counts_for_objective(4) and not book.counts_for_objective(Fraction(9, 2))
    assert not book.counts_for_objective(1, last_action="march_move")
    assert not book.objective_captured(3, 1)
    assert str(book.winner_on_ap(10, 20)) == "victory_b"


# ----------------------------------------------------------- note kinds (issue 15 audit)
def _notes(book, rule_id):
    rule = next(r for r in book.rules if r.id == rule_id)
    return [(n.kind, n.text.text) for n in rule.notes]


@pytest.mark.parametrize("rule_id, words", [
    ("heroes", "same square"),
    ("game-end", "Reserves eliminated again"),
    ("vehicle-terrain-tests", "Walkers are not named"),
    ("fort-cover-from-bunkers", "default"),
    ("piloting", "vehicle's square"),
    ("unit-coherency", None),
    ("field-of-fire", "quick reference"),
    ("blast-weapons", "quick reference"),
    ("rolling-saves", "Aircraft"),
    ("skill-berserk", "SUSTAINED ATTACK"),
    ("skill-brave", "3 dice"),
    ("skill-tank-head", "damage_marked"),
    ("fort-weapons-in-bunkers", "strongpoint unit"),
    ("command-makeshift-repair", "Returns 1 point"),
])
def test_readings_that_decide_a_result_are_interpretations(book, rule_id, words):
    """A reading that decides a mechanic's result is an interpretation, not a clarification."""
    if words is None:      # the coherency note sits on check-range beside the printed distances
        rule_id, words = "check-range", "approximately 6"
    kinds = [k for k, t in _notes(book, rule_id) if words in t]
    assert kinds and set(kinds) == {"interpretation"}, (rule_id, kinds)


def test_no_clarification_decides(book):
    """Every remaining clarification restates or explains the seed: none says 'we read' or names a mechanic's default."""
    for r in book.rules:
        for n in r.notes:
            if n.kind == "clarification":
                assert "we read" not in n.text.text.lower() and "default" not in n.text.text.lower(), (r.id, n.text.text)
