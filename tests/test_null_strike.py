"""Tests for the Null Strike core rules (rulebooks/null-strike.rules)."""
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

import rules_dsl
from rules_dsl import InputError
from conftest import mutated_book

book = rules_dsl.load("null-strike")

STAT = st.integers(min_value=1, max_value=10)
FACES = range(1, 7)


def rank(entry):
    """Order chart entries by difficulty: automatic < 2+ < ... < 6+ < impossible."""
    if entry == "automatic":
        return 1
    if entry == "impossible":
        return 7
    return int(entry)


def successes(entry):
    """How many of the six d6 faces succeed against a chart entry."""
    return sum(book.face_meets(entry, f) for f in FACES)


# ---------------------------------------------------------------- opposed chart
SEED = "000_a98ad1beda8ad7f1.txt"   # in the `seeds` folder


def test_printed_chart_matches_source_text(seeds):
    # Transcription check against the seed's chart, cell by cell.
    lines = (seeds / SEED).read_text(encoding="utf-8").splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("Your Value:")) + 1
    for line in lines[start:start + 10]:
        cells = line.split()
        yours = int(cells[0])
        for opposed, c in enumerate(cells[1:], start=1):
            want = "automatic" if c == "A" else "impossible" if c in ("-", "\u2013") else int(c.rstrip("+"))
            assert str(book.opposed_chart(yours, opposed)) == str(want), (yours, opposed)


def test_chart_equals_formula_everywhere():
    for yours in range(1, 11):
        for opposed in range(1, 11):
            assert book.opposed_chart(yours, opposed) == book.opposed_target(yours, opposed)


def test_known_values():
    assert book.opposed_target(1, 1) == 4
    assert book.opposed_target(5, 3) == 2
    assert book.opposed_target(4, 1) == "automatic"
    assert book.opposed_target(1, 4) == "impossible"
    assert book.opposed_target(10, 10) == 4


@given(yours=st.integers(1, 9), opposed=STAT, penalty=st.integers(0, 10))
def test_opposed_target_non_increasing_in_yours(yours, opposed, penalty):
    assert rank(book.opposed_target(yours + 1, opposed, penalty)) <= rank(book.opposed_target(yours, opposed, penalty))


@given(yours=STAT, opposed=st.integers(1, 9), penalty=st.integers(0, 10))
def test_opposed_target_non_decreasing_in_opposed(yours, opposed, penalty):
    assert rank(book.opposed_target(yours, opposed + 1, penalty)) >= rank(book.opposed_target(yours, opposed, penalty))


@given(yours=STAT, opposed=STAT, penalty=st.integers(0, 9))
def test_penalty_never_helps(yours, opposed, penalty):
    assert rank(book.opposed_target(yours, opposed, penalty + 1)) >= rank(book.opposed_target(yours, opposed, penalty))


@given(yours=STAT, opposed=STAT)
def test_modified_target_without_bonus_is_chart(yours, opposed):
    assert book.modified_opposed_target(yours, opposed) == book.opposed_chart(yours, opposed)


@given(bad=st.one_of(st.integers(max_value=0), st.integers(min_value=11)), good=STAT)
def test_opposed_target_rejects_out_of_range(bad, good):
    with pytest.raises(InputError) as e:
        book.opposed_target(bad, good)
    assert e.value.param == "yours" and "yours" in str(e.value)
    with pytest.raises(InputError) as e:
        book.opposed_target(good, bad)
    assert e.value.param == "opposed"


@pytest.mark.parametrize("call, param", [
    (lambda: book.needed_score(7), "base"),
    (lambda: book.needed_score(3, penalty=-1), "penalty"),
    (lambda: book.stat_roll(1), "base"),
    (lambda: book.wound_target(11, 3), "strength"),
    (lambda: book.armour_save_target(1), "armour"),
    (lambda: book.resolve_attack(-1, 5, 3, 5, 3, 5), "shots"),
    (lambda: book.move_allowance(0, 3), "speed"),
    (lambda: book.rally_roll(5, failed_attempts=-1), "failed_attempts"),
    (lambda: book.panicked_may_take("sprint"), "chosen"),
    (lambda: book.evasion_bonus("bunker"), "cover"),
    (lambda: book.opposed_roll(3, 3, die=7), None),
    (lambda: book.unit_examples(5), "unit"),
])
def test_bad_inputs_are_rejected(call, param):
    if param is None:
        with pytest.raises(rules_dsl.EvaluationError):
            call()
        return
    with pytest.raises(InputError) as e:
        call()
    assert e.value.param == param


# ------------------------------------------------------------- dice & penalties
def test_book_example_penalty():
    assert book.needed_score(3, penalty=2) == 5
    assert [book.stat_roll(3, penalty=2, die=f) for f in FACES] == [False] * 4 + [True] * 2


@given(base=st.integers(2, 6), penalty=st.integers(0, 10), bonus=st.integers(0, 10))
def test_stat_roll_brute_force_over_faces(base, penalty, bonus):
    score = base + penalty - bonus
    wins = [f for f in FACES if book.stat_roll(base, penalty, bonus, die=f)]
    expected = [f for f in FACES if score <= 1 or (score <= 6 and f >= score)]
    assert wins == expected
    assert len(wins) == successes(book.needed_score(base, penalty, bonus))


@given(yours=STAT, opposed=STAT, penalty=st.integers(0, 10))
def test_opposed_roll_brute_force_matches_chart(yours, opposed, penalty):
    entry = book.opposed_target(yours, opposed, penalty)
    wins = sum(book.opposed_roll(yours, opposed, penalty, die=f) for f in FACES)
    if entry == "automatic":
        assert wins == 6
    elif entry == "impossible":
        assert wins == 0
    else:
        assert wins == 7 - entry


# --------------------------------------------------------------------- attacks
def test_attack_step_targets():
    assert book.hit_target(5, 4) == 3
    assert book.hit_target(3, 4, aimed=True) == 3          # Aim: +2 Weapons
    assert book.hit_target(5, 4, evasion_bonus=1) == 4      # soft cover
    assert book.armour_save_target(3, 2) == 5               # Penetration as a penalty
    assert book.armour_save_target(6, 1) == "impossible"


def test_poison_fusion_emp_and_mechanised():
    assert book.wound_target(1, 8, poison=4) == 4
    assert book.wound_target(1, 8, target="vehicle", poison=4) == "impossible"
    assert book.wound_target(1, 8, target="mechanised", poison=4) == "impossible"
    assert book.wound_target(1, 8, target="vehicle", fusion=True) == 4
    assert book.wound_target(1, 8, target="mechanised", emp=True) == 2
    assert book.wound_target(1, 8, emp=True, fusion=True) == "impossible"   # neither hits non-vehicles
    assert book.wound_target(9, 1, target="vehicle", fusion=True) == "automatic"


@given(s=STAT, t=STAT, poison=st.sampled_from([0, 2, 3, 4, 5, 6]), kind=st.sampled_from(["non_vehicle", "mechanised", "vehicle"]),
       fusion=st.booleans(), emp=st.booleans())
def test_special_rules_only_make_wounding_easier(s, t, poison, kind, fusion, emp):
    plain = book.wound_target(s, t, target=kind)
    special = book.wound_target(s, t, target=kind, poison=poison, fusion=fusion, emp=emp)
    assert rank(special) <= rank(plain)


@pytest.mark.parametrize("weapons, evasion, strength, toughness, armour, penetration", [
    (5, 3, 5, 3, 5, 3), (3, 4, 4, 5, 3, 0), (4, 4, 2, 4, 4, 1), (1, 4, 5, 5, 2, 0),
])
def test_single_shot_attack_brute_force(weapons, evasion, strength, toughness, armour, penetration):
    """Enumerate every d6 face of each step of a one-shot attack; compare with the chart odds."""
    hit, wound = book.hit_target(weapons, evasion), book.wound_target(strength, toughness)
    save = book.armour_save_target(armour, penetration)
    kills = 0
    for h in FACES:
        hit_ok = book.face_meets(hit, h)
        for w in FACES:
            wound_ok = hit_ok and book.face_meets(wound, w)
            for sv in FACES:
                casualties = book.resolve_attack(1, weapons, evasion, strength, toughness, armour, penetration,
                                                 hits=[h], wounds=[w] if hit_ok else [],
                                                 saves=[sv] if wound_ok else [])
                assert casualties == int(wound_ok and not book.face_meets(save, sv))
                kills += casualties
    assert kills == successes(hit) * successes(wound) * (6 - successes(save))


@settings(max_examples=30)
@given(shots=st.integers(0, 30), seed=st.integers(0, 10_000))
def test_attack_casualties_never_exceed_shots(shots, seed):
    casualties = book.mechanics["resolve_attack"].run(shots, 5, 4, 5, 4, 4, seed=seed)[0]
    assert 0 <= casualties <= shots


# ------------------------------------------------------------ movement & terrain
@given(speed=STAT, prof=STAT)
def test_difficult_terrain(speed, prof):
    assert book.move_allowance(speed, prof) == speed
    assert book.move_allowance(speed, prof, difficult=True) == min(speed, prof)
    jug = book.move_allowance(speed, prof, difficult=True, kind="juggernaut")
    assert min(speed, prof) <= jug <= max(speed, prof)
    assert jug == max(min(speed, prof), int(Fraction(speed + prof, 2) + Fraction(1, 2)))
    assert book.move_allowance(speed, prof, difficult=True, kind="jet_infantry") == speed
    assert book.move_allowance(speed, prof, difficult=True, kind="hover") == speed
    assert book.run_distance(speed) == 2 * speed


def test_juggernaut_rounds_halves_up():
    assert book.move_allowance(5, 4, difficult=True, kind="juggernaut") == 5
    assert book.round_nearest(Fraction(9, 2)) == 5
    assert book.round_nearest(Fraction(17, 4)) == 4


def test_wheels_and_rotation():
    assert book.move_allowance(8, 4, kind="wheeled") == 14
    assert book.move_allowance(8, 4, kind="wheeled", rotated=True) == 8
    assert book.may_rotate("tracked", "start_and_end")
    assert not book.may_rotate("wheeled", "start_and_end")
    assert book.may_rotate("walker", "during_move")
    with pytest.raises(rules_dsl.EvaluationError):
        book.may_rotate("infantry", "at_start")


def test_cover_bonuses():
    assert book.evasion_bonus("soft") == 1 and book.toughness_bonus("soft") == 0
    assert book.evasion_bonus("hard") == 0 and book.toughness_bonus("hard") == 1
    assert book.evasion_bonus("full") == 1 and book.toughness_bonus("full") == 1
    assert book.evasion_bonus("soft", stealth=True, ran=True) == 3
    assert book.evasion_bonus("soft", stealth=True, ran=True, seeker=True) == 0
    assert book.cover_against("full", barrage=True) == "no_cover"
    assert book.cover_against("full", from_terrain=False, barrage=True) == "full"
    assert book.in_cover(1, 2) and not book.in_cover(1, 3)


# ------------------------------------------------------------ actions & setup
def test_actions_per_turn_bands():
    assert [book.base_actions(p) for p in (1, 500, 501, 1000, 1001, 1500, 1501, 2000, 2001, 5000)] == \
        [2, 2, 3, 3, 4, 4, 5, 5, 6, 6]
    assert book.actions_per_turn(1000, warlords=2) == 5


@given(p=st.integers(1, 4999))
def test_base_actions_monotone(p):
    assert book.base_actions(p) <= book.base_actions(p + 1) <= 6


@given(size=st.integers(1, 5000), short=st.integers(0, 5000))
def test_turn_order_bonus(size, short):
    army = max(0, size - short)
    assert book.turn_order_bonus(army, size) == (size - army) // 25
    assert book.turn_order_roll(army, size, die=1) == 1 + (size - army) // 25


def test_turn_order_rejects_oversized_army():
    with pytest.raises(rules_dsl.EvaluationError):
        book.turn_order_bonus(1001, 1000)


def test_rally_is_cumulative():
    # Morale 5+: the first try needs 5, each failure lowers the need by one.
    needs = [min(f for f in FACES if book.rally_roll(5, failed_attempts=k, die=f) == "steady") for k in range(4)]
    assert needs == [5, 4, 3, 2]
    assert all(book.rally_roll(5, failed_attempts=4, die=f) == "steady" for f in FACES)


def test_morale_and_fearless():
    assert book.morale_check(3, penalty=2, die=4) == "panicked"
    assert book.morale_check(3, penalty=2, fearless=True, die=4) == "steady"
    assert not book.panicked_may_take("attack")
    assert not book.panicked_may_take("capture")
    assert book.panicked_may_take("run") and not book.panicked_may_take("run", moves_closer_to_enemy=True)


def test_capture_and_victory():
    assert book.can_capture(True, 1, 25)
    assert not book.can_capture(True, 1, 24)
    assert not book.can_capture(True, 1, 30, panicked=True)
    assert book.has_majority(3, 5) and not book.has_majority(1, 2)


# ----------------------------------------------------------- transports & weapons
@given(v=st.integers(0, 10))
def test_halved_rounds_to_nearest_halves_up(v):
    assert book.halved(v) == (v + 1) // 2


def test_destroyed_transport():
    assert book.wreck_strength([5, 6]) == 3
    assert book.wreck_penetration([1, 4]) == 2
    assert book.wreck_hits([2, 1, 1]) == 4
    assert book.has_room(6, 2, [2, 1, 1]) and not book.has_room(6, 3, [2, 1, 1])


def test_linked_and_fierce_assault():
    assert book.weapon_attacks(2, linked=2) == 4
    assert book.weapon_attacks(1, linked=4) == 4
    assert book.weapon_attacks(1, charging=True, fierce_assault=True) == 2


def test_sample_tables():
    assert book.sample_weapons("Fusion Rifle").strength == 6
    assert book.sample_weapons("Fusion Rifle").special == "Fusion"
    assert book.sample_weapons("EMP Rifle").penetration == 4
    assert str(book.sample_weapons("Flamethrower").penetration) == "absent"
    assert len(book.sample_weapons.rows()) == 7
    sk = book.unit_examples("Star Knights")
    assert (sk.weapons, sk.evasion, sk.toughness, sk.speed, sk.proficiency, sk.armour, sk.morale) == (5, 4, 5, 5, 4, 3, 3)
    assert book.effective_range(24, "auto", moved=True) == 12
    assert book.effective_range(48, "heavy", moved=True) == 0
    assert not book.may_fire("heavy", moved=True)


# ------------------------------------------------------------------- the book
def test_book_checks_and_findings():
    findings = {f.check for f in book.findings if f.kind != "undefined-name"}
    assert findings == BASELINE_FINDINGS


def test_examples_pass():
    results = book.run_examples()
    assert results and all(r.passed for r in results), [r.report for r in results if not r.passed]


def test_lost_headings_are_rules():
    for rid in ("vehicle-attacks", "vehicle-movement", "transport-capacity", "destroyed-transports", "run",
                "aim", "rally", "charge", "capture", "deploy", "embark", "disembark", "fortify", "cover",
                "move-action", "attack-action", "actions"):
        assert book.rule(rid).text


# ------------------------------------------------------------ audit (issue 15)
@pytest.fixture
def seed_lines(seeds):
    return (seeds / SEED).read_text(encoding="utf-8").splitlines()


def test_audit_sample_weapons_match_every_printed_cell(seed_lines):
    """Seed lines 121-127: every printed value of every row (type, attacks, H, S, P, R, special, cost)."""
    lines = seed_lines
    assert lines[119].startswith("Sample Weapons:")
    seen = 0
    for line in lines[120:127]:
        name_part, _, rest = line.partition(" Assault ") if " Assault " in line else \
            line.partition(" Auto ") if " Auto " in line else line.partition(" Heavy ")
        wtype = line[len(name_part):].split()[0].lower()
        name, _, cost = name_part.partition(", +")
        cells = rest.split()
        attacks, hands, strength, pen, rng = cells[:5]
        special = " ".join(cells[5:]) or None
        row = book.sample_weapons(name)
        assert str(row.type) == wtype, name
        assert (row.attacks, row.hands, row.strength) == (int(attacks), int(hands), int(strength)), name
        assert (str(row.penetration) == "absent") if pen == "-" else row.penetration == int(pen), name
        assert row.range == int(rng.rstrip('"')), name
        assert (str(row.special) == "absent") if special is None else row.special == special, name
        assert (str(row.points) == "absent") if not cost else row.points == int(cost.split()[0]), name
        seen += 1
    assert seen == len(book.sample_weapons.rows()) == 7


def test_audit_blastgun_frag_strength_is_one():
    # Fix: the frag mode was transcribed with Strength 2; seed line 121 prints 1.
    assert book.sample_weapons("Blastgun (frag)").strength == 1
    assert book.wound_target(1, 3) == 6


def test_audit_unit_examples_match_every_printed_cell(seed_lines):
    """Seed lines 71-75: all seven stats of all five sample units."""
    lines = seed_lines
    assert lines[69].startswith("Unit Examples:")
    for line in lines[70:75]:
        cells = line.split()
        name, stats = " ".join(cells[:-7]), cells[-7:]
        row = book.unit_examples(name)
        got = (row.weapons, row.evasion, row.toughness, row.speed, row.proficiency, row.armour, row.morale)
        assert got == tuple(int(c.rstrip("+")) for c in stats), name
    assert len(book.unit_examples.rows()) == 5


@pytest.mark.parametrize("failed", [10, 11, 15, 20])
def test_audit_rally_accepts_every_declared_attempt_count(failed):
    # Fix: rally_roll declared 0..20 failed attempts but crashed above 10 (needed_score's bonus was 0..10).
    assert book.rally_roll(6, failed_attempts=failed, die=1) == "steady"
    assert book.needed_score(6, bonus=failed) == "automatic"


def test_audit_base_actions_follow_the_printed_bands():
    # base_actions reads the printed bands (seed 140-144); 2000 points is in the first band that holds it.
    assert [book.base_actions(p) for p in (1, 500, 501, 1000, 1001, 1500, 1501, 2000, 2001, 2500, 9999)] == \
        [2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 6]
    assert book.in_band(2000, 4) and book.in_band(2000, 5)       # the printed overlap
    assert not book.in_band(2001, 4) and book.in_band(2001, 5)


ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]
BASELINE_FINDINGS = {"action_bands_disjoint", "printed_bands_step_by_500", "fortify_is_an_increase",
                     "sample_specials_have_rules"}

# a misprint in any printed value must become a finding: change one printed cell, recompile, run the checks
MISPRINTS = [
    ("| 3  | 2 | 3 | 4 | 5 | 6 |", "| 3  | 2 | 3 | 4 | 4 | 6 |", {"chart_is_formula", "modified_matches_chart"}),  # seed 35
    ("| 10 | automatic | automatic | automatic | automatic | automatic | automatic | automatic | 2 | 3 | 4 |",
     "| 10 | automatic | automatic | automatic | automatic | automatic | automatic | 2 | 2 | 3 | 4 |",
     {"chart_is_formula", "modified_matches_chart"}),                                                      # seed 42
    ("| 2 | 501  | 1000   | 3 |", "| 2 | 501  | 1000   | 4 |", {"printed_bands_step_by_500"}),            # seed 141
    ("| 3 | 1001 | 1500   | 4 |", "| 3 | 1001 | 1600   | 4 |",
     {"printed_bands_step_by_500", "action_bands_disjoint"}),                                             # seed 142
    ("| 1 | 1    | 500    | 2 |", "| 1 | 1    | 550    | 2 |",
     {"printed_bands_step_by_500", "action_bands_disjoint"}),                                             # seed 140
]


@pytest.mark.parametrize("old,new,checks", MISPRINTS)
def test_audit_misprints_become_findings(old, new, checks, tmp_path):
    mutated, _, _ = mutated_book(tmp_path, "null-strike", old, new)

    def cases(b):
        return {(f.check, c) for f in b.run_checks() for c in f.cases}

    added = cases(mutated) - cases(book)
    assert added, new                                          # the misprint is a new failing case
    assert {check for check, _ in added} == checks             # in exactly the checks that cover the value


def test_audit_dug_in_cover_ends_when_a_model_moves():
    # Fix: seed 163 "until any model in the unit moves" (the mechanic lacked the condition).
    assert book.dug_in_cover() == "soft" and book.dug_in_cover(fortified=True) == "hard"
    assert book.dug_in_cover(moved=True) == "no_cover"
    assert book.dug_in_cover(fortified=True, moved=True) == "no_cover"
    assert book.evasion_bonus(book.dug_in_cover(moved=True)) == 0


@given(speed=STAT, prof=STAT, difficult=st.booleans(), fleet=st.booleans())
def test_audit_wheeled_charge_needs_no_turn(speed, prof, difficult, fleet):
    # Fix: seed 94 (+6 only in a move without turning) now reaches the charge move (seed 172).
    turned = book.charge_distance(speed, prof, kind="wheeled", difficult=difficult, fleet=fleet, rotated=True)
    straight = book.charge_distance(speed, prof, kind="wheeled", difficult=difficult, fleet=fleet)
    assert straight >= turned
    if not difficult and not fleet:
        assert (turned, straight) == (speed, speed + 6)
    for kind in ("infantry", "hover", "tracked", "walker", "plain_vehicle"):
        assert book.charge_distance(speed, prof, kind=kind, difficult=difficult, fleet=fleet, rotated=True) == \
            book.charge_distance(speed, prof, kind=kind, difficult=difficult, fleet=fleet)


def test_audit_embark_needs_an_eligible_transport():
    # Fix: can_embark ignored the infantry-only capacity (seed 101, 184).
    assert book.can_embark(10, 0, [1, 1], 1)
    assert not book.can_embark(10, 0, [1, 1], 1, infantry=False)
    assert not book.can_embark(10, 0, [1, 1], 1, same_army=False)
    assert not book.can_embark(10, 0, [1, 1], 1, massive=True)
    assert not book.can_embark(10, 0, [1, 1], Fraction(11, 10))
    assert not book.can_embark(2, 1, [2], 0)


def test_audit_leadership_range_has_no_invented_limit():
    # Fix: leader_range was limited to 0..48 inches; the seed gives no upper limit (seed 220).
    assert book.leadership_applies(60, 50) and not book.leadership_applies(60, 61)
    assert book.leadership_applies(Fraction(13, 2), 6)
    with pytest.raises(rules_dsl.EvaluationError):
        book.leadership_applies(-1, 0)


def test_audit_note_kinds():
    kinds = {}
    for rule_id, note in book.notes:
        kinds.setdefault(note.kind, set()).add(rule_id)
    # readings that decide a mechanic's result are interpretations, not clarifications
    assert {"unit-stats", "transport-capacity", "skirmisher", "warlord", "actions", "fortify", "dice",
            "cover", "charge", "deploy", "run", "stealth", "linked-weapons", "dig-in"} <= kinds["interpretation"]
    assert not {"unit-stats", "transport-capacity", "skirmisher", "warlord", "actions"} & kinds["clarification"]
    # seed inconsistencies recorded
    assert {"actions", "fortify", "full-cover", "play", "morale-and-panic"} <= kinds["erratum"]
    assert {"terrain-selection", "fierce-assault"} <= kinds["clarification"]
    # names used but never defined: an absent note on the rule that uses them
    assert {"turn-order", "attack-action", "aim", "hard-cover", "sample-weapons", "morale-and-panic", "bodyguard",
            "recon", "deployment", "deploy", "army-selection", "rules-exceptions", "common-sense", "barrage",
            "run", "leadership", "transport-capacity", "stealth", "victory", "unit", "dice", "cover",
            "full-cover"} <= kinds["absent"]
