"""Properties every encoded book must have, checked over all of their mechanics.

* every book compiles, and every rule has prose and, in a book that restates a
  source (its header names one), a source section;
* every range parameter rejects a value just outside its range with InputError
  naming that parameter;
* with random valid inputs (and seeded rolls) a mechanic returns a value or one
  of our errors: never a bare Python exception.
"""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import rules_dsl
from rules_dsl.language import nodes as n
from rules_dsl.errors import InputError, RulesError
from rules_dsl.language.values import ABSENT

BOOKS = rules_dsl.book_ids()
EXPECTED = {"null-strike", "xenotactics", "dust-tactics", "void", "warhammer-40k", "skirmish-tutorial"}


def test_all_six_books_are_present():
    assert EXPECTED <= set(BOOKS)


@pytest.fixture(scope="module", params=BOOKS)
def book(request):
    return rules_dsl.load(request.param)


def test_book_compiles_with_rules_prose_and_sources(book):
    assert book.rules, book.id
    for r in book.rules:
        assert r.text.strip() or any(note.kind == "absent" for note in r.notes), f"{book.id}:{r.id} has no prose"
        if book.source:                     # our own game (skirmish-tutorial) restates no source
            assert r.source.strip(), f"{book.id}:{r.id} does not name its source section"


def _sample(t: n.Type, rng: random.Random, book):
    if isinstance(t, n.RangeType):
        return rng.randint(t.low, t.high)
    if isinstance(t, n.UnionType):
        return _sample(rng.choice(t.options), rng, book)
    if isinstance(t, n.ListType):
        return [_sample(t.item, rng, book) for _ in range(rng.randint(0, 3))]
    if isinstance(t, n.NamedType):
        if t.name in book.enums:
            return rng.choice(list(book.enums[t.name].values()))
        if t.name in book.dice:
            return rng.choice(book.dice[t.name].faces)
        if t.name == "absent":
            return ABSENT
        return {"int": rng.randint(0, 12), "bool": rng.random() < 0.5, "number": rng.randint(0, 12),
                "text": "x"}[t.name]
    raise AssertionError(t)


def _valid_args(mech, rng, book):
    args = {}
    for p in mech.params:
        args[p.name] = _sample(p.type, rng, book)
    return args


def test_out_of_range_inputs_name_the_parameter(book):
    rng = random.Random(1)
    tried = 0
    for mech in book.mechanics.values():
        for p in mech.params:
            t = p.type
            if not isinstance(t, n.RangeType):
                continue
            args = _valid_args(mech, rng, book)
            args[p.name] = t.high + 1
            with pytest.raises(InputError) as e:
                mech(**args)
            assert e.value.param == p.name and str(t.high) in e.value.allowed
            tried += 1
    assert tried or not book.mechanics


@pytest.mark.parametrize("book_id", BOOKS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10 ** 6))
def test_mechanics_never_escape_with_a_python_error(book_id, seed):
    book = rules_dsl.load(book_id)
    rng = random.Random(seed)
    for mech in book.mechanics.values():
        args = _valid_args(mech, rng, book)
        try:
            mech.run(seed=seed, **args)
        except RulesError:
            pass  # a clear error of ours (e.g. a `require` that the random inputs broke)
