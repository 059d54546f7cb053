"""The JavaScript back end (rules_dsl/jsgen) gives what the Python back end gives.

Each book (the real ones in rulebooks/ and tests/jsgen_book.rules, a book of every construct
under hostile names) is compiled to its ES module; one node process per batch runs it
(tests/jsgen_runner.mjs: JSON in, JSON out), and every value is compared with Python's through
the tagged canonical form (rules_dsl/jsgen/canonical.py: ints as text, fractions as n/d,
members by name, errors by kind and parameter, and their messages word for word):

* every `>>>` line of every worked example;
* every constant, and every row of every table;
* every mechanic of every book, once with fixed sampled inputs and seeded rolls (coverage:
  all of them), and under hypothesis with random in-range inputs, given rolls and seeds;
* hostile names and text: generated and run without breaking out or touching prototypes;
* a construct the back end does not support stops generation, naming it and its file:line.
"""
from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import rules_dsl
from rules_dsl import jsgen
from rules_dsl.language import nodes as n
from rules_dsl.compiler import Ctx, compile_expr
from rules_dsl.language.dice import GivenRoller
from rules_dsl.errors import RulesError
from rules_dsl.evaluation.example_odds import form_name
from rules_dsl.evaluation.examples import guarded
from rules_dsl.jsgen.canonical import canonical, canonical_error, encode
from rules_dsl.language.values import ABSENT

from conftest import REPO, write_book

HERE = Path(__file__).resolve().parent
RUNNER = HERE / "jsgen_runner.mjs"
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not on PATH: the JavaScript back end is tested under node")

REAL = rules_dsl.Library(REPO / "rulebooks").book_ids()
BOOKS = REAL + ["jsgen"]


@pytest.fixture(scope="module")
def out_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("js")


@pytest.fixture(scope="module")
def libraries(tmp_path_factory):
    own = tmp_path_factory.mktemp("jsbook")
    shutil.copy(HERE / "jsgen_book.rules", own / "jsgen.rules")
    return {"real": rules_dsl.Library(REPO / "rulebooks", cache=own / "cache-real"),
            "own": rules_dsl.Library(own, cache=own / "cache")}


_BUILT = {}


def built(book_id, libraries, out_dir):
    """(book, books folder) of a book whose module and examples module are in out_dir."""
    if book_id not in _BUILT:
        lib = libraries["own" if book_id == "jsgen" else "real"]
        book = lib.load(book_id)
        jsgen.write(book, str(out_dir), examples=True)
        _BUILT[book_id] = (book, str(lib.books_dir))
    return _BUILT[book_id]


def run_node(out_dir, book_id, batch) -> dict:
    p = subprocess.run([NODE, str(RUNNER), str(out_dir), book_id], input=json.dumps(batch),
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout)


def python_outcome(thunk, books_dir):
    """Python's value in the canonical form, an error as [error, kind, (param)] + its message
    with the books folder taken off the spans (the module writes spans relative to it)."""
    try:
        return canonical(guarded(thunk))
    except RulesError as e:
        return canonical_error(e) + [str(e).replace(books_dir.rstrip("/") + "/", "")]


def agree(py, js) -> bool:
    if py[0] != "error" or js[0] != "error":
        return py == js
    if py[:-1] != js[:-1]:
        return False
    if py[1] == "NotFound" or "cannot evaluate:" in py[-1]:
        return True        # the did-you-mean words (difflib), Python's own exception text
    return py[-1] == js[-1]


# ---------------------------------------------------------------- names in words
@pytest.mark.parametrize("book_id", BOOKS)
def test_names_in_words_agree_under_node(book_id, libraries, out_dir):
    """The forms speak as the CLI and the pages do: every mechanic's title, result words and
    parameters' labels and accepted values in words (signature), every worked example's value
    in words, and its answer as the mechanic says it (wording.answer), are the same in the
    runtime's `Words` as in display.py and wording.py; a member typed in words reads back."""
    from rules_dsl.language import wording
    from rules_dsl.language.display import capitalised
    book, books_dir = built(book_id, libraries, out_dir)
    names = book.display
    cases = [c for _, ex in book.example_cases() for c in ex.cases]
    answer_of = [c.expr.func.name if isinstance(c.expr, n.Call) and isinstance(c.expr.func, n.Name)
                 and c.expr.func.name in book.mechanics else None for c in cases]
    reads = [({"k": "enum", "name": e}, names.member(e, m).upper()) for e, ms in names.enum_members.items() for m in ms]
    out = run_node(out_dir, book_id, {"words": {"answer_of": answer_of, "read": [[t, x] for t, x in reads]}})["words"]
    signatures = dict(out["signatures"])
    for name, mech in book.mechanics.items():
        sig = signatures[name]
        assert sig["title"] == wording.title(names, name), name
        assert sig["result"] == capitalised(names.result(name)), name
        assert sig["params"] == [[names.param(name, p.name), names.describe(p.type)] for p in mech.params], name
        assert sig["rollLabels"] == [names.roll(name, r.name) for r in mech.rolls], name
    checked = 0
    for case, said, answer, mech in zip(cases, out["values"], out["answers"], answer_of):
        if said is None or case.error is not None:
            continue
        value = _example_value(book, case)
        if value is _NO_VALUE:
            continue
        assert said == names.value(value), case.source
        if mech:
            assert answer == wording.answer(names, mech, value, {}), case.source
        checked += 1
    assert checked > len(cases) // 2
    assert out["read"] == [m for e, ms in names.enum_members.items() for m in ms]


_NO_VALUE = object()


def _example_value(book, case):
    """Python's value of an example's expression, as the example runner makes it (rolls from seed 0)."""
    import random
    try:
        return guarded(lambda: compile_expr(book.compiled, case.expr, frozenset())(
            {}, Ctx(GivenRoller(rng=random.Random(0)))))
    except RulesError:
        return _NO_VALUE


# ---------------------------------------------------------------- worked examples
@pytest.mark.parametrize("book_id", BOOKS)
def test_every_worked_example_agrees_under_node(book_id, libraries, out_dir):
    book, books_dir = built(book_id, libraries, out_dir)
    cases = [c for _, ex in book.example_cases() for c in ex.cases]
    assert cases
    js = run_node(out_dir, book_id, {"examples": True})["examples"]
    assert len(js) == len(cases)
    bad = []
    for case, got in zip(cases, js):
        if form_name(case.expr, book.compiled.syms) is not None:
            # chance(...) / mean(...): exact odds, Python's engine only; JavaScript refuses them by name
            assert got[0] == "error" and "exact odds" in got[-1], (case.span, got)
            continue
        py = python_outcome(lambda case=case: compile_expr(book.compiled, case.expr, frozenset())(
            {}, Ctx(GivenRoller(rng=random.Random(0)))), books_dir)
        if not agree(py, got):
            bad.append(f"{case.span}: >>> {case.source}\n  python: {py}\n  js:     {got}")
        if case.error is not None:   # the example's own expectation holds in JavaScript too
            assert got[0] == "error", f"{case.span}: expected {case.expected_text}, js gave {got}"
            assert " ".join(case.error.detail.split()) in " ".join(got[-1].split()), (case.span, got)
    assert not bad, f"{len(bad)} of {len(cases)} differ:\n" + "\n".join(bad[:10])


# ---------------------------------------------------------------- constants, tables, every mechanic
def sample(t, rng, book):
    if isinstance(t, n.RangeType):
        return rng.randint(t.low, t.high)
    if isinstance(t, n.UnionType):
        return sample(rng.choice(t.options), rng, book)
    if isinstance(t, n.ListType):
        return [sample(t.item, rng, book) for _ in range(rng.randint(0, 3))]
    if isinstance(t, n.NamedType):
        if t.name in book.enums:
            return str(rng.choice(list(book.enums[t.name])))
        if t.name in book.dice:
            f = rng.choice(book.dice[t.name].faces)
            return f if isinstance(f, int) else str(f)
        return {"int": lambda: rng.randint(-12, 12), "bool": lambda: rng.random() < 0.5, "absent": lambda: ABSENT,
                "number": lambda: Fraction(rng.randint(-12, 12), rng.randint(1, 4)), "text": lambda: "x"}[t.name]()
    raise AssertionError(f"no sample for {t}")


def compare_calls(book, books_dir, out_dir, calls):
    """Run the calls [(mechanic, args, rolls, seed)] in Python and in one node process: the
    differences, how many gave a value, and the mechanics that did."""
    batch = [{"mechanic": m, "args": {k: encode(v) for k, v in a.items()},
              "rolls": {k: encode(v) for k, v in r.items()}, "seed": s} for m, a, r, s in calls]
    js = run_node(out_dir, book.id, {"calls": batch})["calls"]
    bad, values, gave = [], 0, set()
    for (m, a, r, s), got in zip(calls, js):
        made = {}

        def call(m=m, a=a, r=r, s=s, made=made):
            result, rolls = book.mechanics[m].run(seed=s, rolls=dict(r), **a)
            made.update({k: canonical(v) for k, v in rolls.items()})
            return result
        py = python_outcome(call, books_dir)
        values += py[0] != "error"
        if py[0] != "error":
            gave.add(m)
        if not agree(py, got["result"]) or (py[0] != "error" and made != got["rolls"]):
            bad.append(f"{m}({a}, rolls={r}, seed={s})\n  python: {py} {made}\n  js:     {got}")
    return bad, values, gave


@pytest.mark.parametrize("book_id", BOOKS)
def test_every_mechanic_constant_and_table_agrees(book_id, libraries, out_dir):
    """Coverage: the module defines every mechanic, table, constant, enum and die of the book;
    every constant and every table's rows agree; every mechanic, called with sampled inputs and
    seeded rolls (dice mechanics too: the runtime rolls with CPython's generator), agrees."""
    book, books_dir = built(book_id, libraries, out_dir)
    rng = random.Random(7)
    calls = []
    for name, mech in book.mechanics.items():
        for k in range(3):
            calls.append((name, {p.name: sample(p.type, rng, book) for p in mech.params}, {}, 1000 + k))
    out = run_node(out_dir, book_id, {"constants": True, "tables": True})
    assert out["counts"] == {"mechanics": len(book.mechanics), "tables": len(book.tables),
                             "constants": len(book.constants), "enums": len(book.enums), "dice": len(book.dice)}
    for name in book.constants:
        assert agree(python_outcome(lambda name=name: book.constants[name], books_dir), out["constants"][name]), name
    for name, t in book.tables.items():
        assert agree(python_outcome(t.rows, books_dir), out["tables"][name]), name
    bad, values, gave = compare_calls(book, books_dir, out_dir, calls)
    assert not bad, f"{len(bad)} of {len(calls)} calls differ:\n" + "\n".join(bad[:10])
    assert values > len(calls) // 3, "most sampled calls should give a value, not an error"
    # covered: each mechanic's JavaScript gave a value that Python gave too, in a worked
    # example (called there or by a mechanic called there) or in a sampled call
    missing = set(book.mechanics) - reached_by_examples(book) - gave
    assert not missing, f"mechanics never compared on a value: {sorted(missing)}"


def reached_by_examples(book) -> set:
    """The mechanics the worked examples call, and those they call in turn."""
    def callees(node):
        return {x.func.name for x in n.iter_nodes(node)
                if isinstance(x, n.Call) and isinstance(x.func, n.Name) and x.func.name in book.mechanics}
    todo = [m for _, ex in book.example_cases() for c in ex.cases for m in callees(c.expr)]
    seen = set()
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo.extend(callees(book.mechanics[m].node))
    return seen


# text: quotes, backslashes, controls, markup, non-ASCII and astral characters (Python's repr escapes some),
# but not unassigned code points, whose category differs between Python's and node's Unicode versions
TEXT = st.sampled_from(list("ab '\"\\<>/&\n\t\x00\x7f\xa0é€\u2028😀"))


def value_of(t, book):
    """A hypothesis strategy of the values of a parameter type (in range)."""
    if isinstance(t, n.RangeType):
        return st.integers(t.low, t.high)
    if isinstance(t, n.UnionType):
        return st.one_of(*[value_of(o, book) for o in t.options])
    if isinstance(t, n.ListType):
        return st.lists(value_of(t.item, book), max_size=4)
    if t.name in book.enums:
        return st.sampled_from(sorted(book.enums[t.name]))
    if t.name in book.dice:
        return st.sampled_from([f if isinstance(f, int) else str(f) for f in book.dice[t.name].distinct])
    return {"int": st.integers(-(10 ** 20), 10 ** 20), "bool": st.booleans(), "absent": st.just(ABSENT),
            "text": st.text(TEXT, max_size=4), "number": st.fractions(max_denominator=12)}[t.name]


@pytest.mark.parametrize("book_id", BOOKS)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_inputs_agree(book_id, libraries, out_dir, data):
    """Every dice-free mechanic with random in-range inputs (two sets each), and every dice
    mechanic with random inputs, a random seed and, for its own single-die rolls, sometimes
    a given face: Python and JavaScript agree, one node process per drawn batch."""
    book, books_dir = built(book_id, libraries, out_dir)
    calls = []
    for name, mech in book.mechanics.items():
        for _ in range(1 if mech.has_dice else 2):
            args = {}
            for p in mech.params:
                if p.default is not None and data.draw(st.booleans()):
                    continue
                args[p.name] = data.draw(value_of(p.type, book), label=f"{name}.{p.name}")
            rolls, seed = {}, None
            if mech.has_dice:
                seed = data.draw(st.integers(0, 2 ** 40))
                for r in mech.rolls:
                    if r.dice.kind == "one" and data.draw(st.booleans()):
                        rolls[r.name] = data.draw(value_of(n.NamedType(r.span, r.dice.die), book))
            calls.append((name, args, rolls, seed))
    bad, _, _ = compare_calls(book, books_dir, out_dir, calls)
    assert not bad, f"{len(bad)} of {len(calls)} calls differ:\n" + "\n".join(bad[:10])


# ---------------------------------------------------------------- hostile names, unsupported constructs
def test_hostile_names_are_data_not_code(libraries, out_dir):
    book, _ = built("jsgen", libraries, out_dir)
    text = (out_dir / "jsgen.mjs").read_text()
    assert "</script" not in text.lower() and "<script" not in text.lower()
    assert "\u2028" not in text and "\u2029" not in text
    # a book's names appear only inside string literals, never as identifiers of their own
    assert not re.search(r"(?<![\w$\"])(__proto__|constructor|toString|prototype)\s*[=(:]", text.replace("v_", "")), \
        "a book name used as JS code"
    code = f"""
      const B = (await import({json.dumps((out_dir / "jsgen.mjs").as_uri())})).default;
      const R = await import({json.dumps((out_dir / "runtime.mjs").as_uri())});
      const r = B.call("__proto__", {{constructor: 2, kind: "valueOf"}});
      const t = B.lookup("toString", new Map([["__proto__", "__lookupGetter__"]]));
      const c = B.constant("__defineGetter__");
      const sig = B.signature("__proto__");
      const said = [sig.title, sig.params[0].label, sig.params[1].describeWords, B.answer("__proto__", 3n, {{kind: "valueOf"}}),
                    B.words.mechanic("toString"), B.words.member("constructor", "__lookupGetter__")];
      console.log(JSON.stringify({{
        proto: R.toJSON(r.result), row: R.toJSON(t), text: c,
        clean: Object.getPrototypeOf({{}}) === Object.prototype && typeof ({{}}).toString === "function"
               && ({{}}).hasOwnProperty === Object.prototype.hasOwnProperty && !("valueOf" in Object.create(null)),
        names: [...B.mechanics.keys()].includes("__proto__") && B.tables.has("toString"), said,
      }}));
    """
    p = subprocess.run([NODE, "--input-type=module", "-e", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    got = json.loads(p.stdout)
    said = got.pop("said")     # names in words from hostile words: data, the same as Python's
    from rules_dsl.language import wording
    from rules_dsl.language.values import Sym
    names = book.display
    mech = book.mechanics["__proto__"]
    assert said == [wording.title(names, "__proto__"), names.param("__proto__", "constructor"),
                    names.describe(mech.params[1].type),
                    wording.answer(names, "__proto__", 3, {"kind": Sym("valueOf", "constructor")}),
                    names.mechanic("toString"), names.member("constructor", "__lookupGetter__")]
    assert said[:2] == ["toString?</script>", "__proto__"] and said[3] == "3 {constructor} valueOf"
    assert got == {"proto": book.mechanics["__proto__"](constructor=2, kind="valueOf"), "row": {"hasOwnProperty": 1, "valueOf": "</script>"},
                   "text": book.constants["__defineGetter__"], "clean": True, "names": True}


def test_rolls_are_given_by_name_or_rolled_from_a_seed_as_python_rolls(libraries, out_dir):
    book, _ = built("jsgen", libraries, out_dir)
    code = f"""
      const B = (await import({json.dumps((out_dir / "jsgen.mjs").as_uri())})).default;
      const R = await import({json.dumps((out_dir / "runtime.mjs").as_uri())});
      const j = (r) => ({{result: R.toJSON(r.result), rolls: Object.fromEntries([...r.rolls].map(([k, v]) => [k, R.toJSON(v)]))}});
      let fn = 0;
      console.log(JSON.stringify([
        j(B.call("saves", {{n: 5, armour: 4}}, {{seed: 12345}})),
        j(B.call("twice", {{armour: 4}}, {{rolls: {{"save.die": 6, "save[1].die": 5}}}})),
        j(B.call("saves", {{n: 3, armour: 4}}, {{rng: () => [0.0, 0.5, 0.99][fn++ % 3]}})),
      ]));
    """
    p = subprocess.run([NODE, "--input-type=module", "-e", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    seeded, named, supplied = json.loads(p.stdout)
    result, rolls = book.mechanics["saves"].run(n=5, armour=4, seed=12345)
    assert seeded == {"result": result, "rolls": {"dice": rolls["dice"]}}
    result, rolls = book.mechanics["twice"].run(armour=4, rolls={"save.die": 6, "save[1].die": 5})
    assert named == {"result": result, "rolls": rolls} == {"result": [True, True],
                                                           "rolls": {"save[0].die": 6, "save[1].die": 5}}
    assert supplied == {"result": 2, "rolls": {"dice": [1, 4, 6]}}


def test_every_construct_of_the_python_back_end_has_a_javascript_twin(out_dir, libraries):
    """Each expression node the Python compiler visits, ExprGen visits; each built-in is in the
    runtime or refused by name (so a new construct cannot slip through as something else)."""
    from rules_dsl.language.builtins import BUILTINS
    from rules_dsl.compiler.expressions import ExprCompiler
    from rules_dsl.jsgen.expressions import UNSUPPORTED_BUILTINS, ExprGen

    def visits(cls):
        return {k for k in dir(cls) if k.startswith("visit_")}
    assert visits(ExprCompiler) <= visits(ExprGen)
    built("skirmish-tutorial", libraries, out_dir)
    code = f"import({json.dumps((out_dir / 'runtime.mjs').as_uri())}).then((R) => console.log(JSON.stringify(R.BUILTIN_NAMES)))"
    p = subprocess.run([NODE, "-e", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert set(json.loads(p.stdout)) == set(BUILTINS) - set(UNSUPPORTED_BUILTINS)


def test_an_unsupported_construct_names_itself_and_its_line(tmp_path):
    write_book(tmp_path, "nojs", 'rule r "R" {\n  """x"""\n  mechanic known() -> bool = defined("R")\n}\n')
    book = rules_dsl.Library(tmp_path, cache=tmp_path / "cache").load("nojs")
    with pytest.raises(jsgen.JSGenError) as e:
        jsgen.generate(book)
    assert "nojs.rules:8:" in str(e.value) and "defined()" in str(e.value)


def test_rules_js_refuses_an_unsupported_construct_in_one_line(tmp_path):
    write_book(tmp_path, "nojs", 'rule r "R" {\n  """x"""\n  mechanic known() -> bool = defined("R")\n}\n')
    env = dict(__import__("os").environ, RULES_DSL_BOOKS=str(tmp_path), RULES_DSL_CACHE=str(tmp_path / "cache"))
    p = subprocess.run([__import__("sys").executable, "-m", "rules_dsl", "js", "nojs", "--out", str(tmp_path / "out")],
                       capture_output=True, text=True, timeout=120, env=env)
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    assert "nojs.rules:8:" in p.stderr and "does not support the built-in defined()" in p.stderr
    assert not (tmp_path / "out" / "nojs.mjs").exists()


def test_rules_js_writes_the_modules(tmp_path):
    env_out = tmp_path / "out"
    p = subprocess.run([__import__("sys").executable, "-m", "rules_dsl", "js", "skirmish-tutorial", "--out", str(env_out),
                        "--json"], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert p.returncode == 0, p.stderr
    files = {w["kind"]: w for w in json.loads(p.stdout)}
    assert files["book"]["mechanics"] == 14 and files["book"]["bytes"] > files["book"]["gzip_bytes"] > 0
    assert (env_out / "runtime.mjs").read_text() == jsgen.runtime_source()
    assert (env_out / "skirmish-tutorial.mjs").read_text().startswith("// Generated by rules_dsl.jsgen")
    q = subprocess.run([__import__("sys").executable, "-m", "rules_dsl", "js", "no-such-book"], capture_output=True,
                       text=True, timeout=120, cwd=REPO)
    assert q.returncode == 2 and "unknown book 'no-such-book'" in q.stderr


# ---------------------------------------------------------------- generated books
def test_generated_books_agree(tmp_path):
    """Books written at random from the grammar's shapes (tests/fuzz_sources.py: ill-typed
    arithmetic, fractions, rounding, comprehensions, rolls, chains, absent cells...): every one
    that compiles is generated, and its examples and its mechanics (sampled inputs, seeded
    rolls) agree with Python: all of them in one node process."""
    import fuzz_sources as fz
    lib = rules_dsl.Library(tmp_path / "none", cache=tmp_path / "cache")
    jobs, expected = [], []
    for i in range(int(__import__("os").environ.get("RULES_JSGEN_FUZZ_N", "300"))):
        rng = random.Random(i)
        src = fz.generated(rng).replace("book f {", f"book f{i} {{", 1)
        try:
            book = lib.loads(src, f"/fuzz/f{i}.rules")
        except RulesError:
            continue
        if book.id != f"f{i}":
            continue
        folder = tmp_path / book.id
        jsgen.write(book, str(folder), examples=True)
        srng = random.Random(i)
        calls = [(name, {p.name: sample(p.type, srng, book) for p in m.params}, {}, i)
                 for name, m in book.mechanics.items() for _ in range(3)]
        cases = [c for _, ex in book.example_cases() for c in ex.cases]
        jobs.append({"dir": str(folder), "id": book.id, "examples": True, "constants": True, "calls": [
            {"mechanic": m, "args": {k: encode(v) for k, v in a.items()}, "rolls": {}, "seed": s} for m, a, _, s in calls]})
        expected.append((book, cases, calls))
    assert len(jobs) > 20, "the generator should give books that compile"
    p = subprocess.run([NODE, str(RUNNER)], input=json.dumps({"jobs": jobs}), capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    bad, compared = [], 0
    for (book, cases, calls), out in zip(expected, json.loads(p.stdout)["jobs"]):
        for case, got in zip(cases, out["examples"]):
            py = python_outcome(lambda case=case, book=book: compile_expr(book.compiled, case.expr, frozenset())(
                {}, Ctx(GivenRoller(rng=random.Random(0)))), "/fuzz")
            compared += 1
            if not agree(py, got):
                bad.append(f"{case.span}: >>> {case.source}\n  python: {py}\n  js:     {got}")
        for (m, a, _, s), got in zip(calls, out["calls"]):
            py = python_outcome(lambda m=m, a=a, s=s, book=book: book.mechanics[m].run(seed=s, **a)[0], "/fuzz")
            compared += 1
            if not agree(py, got["result"]):
                bad.append(f"{book.id}: {m}({a}, seed={s})\n  python: {py}\n  js:     {got['result']}")
    assert compared > 100
    assert not bad, f"{len(bad)} of {compared} differ:\n" + "\n".join(bad[:10])
