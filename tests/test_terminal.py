"""`rules show` and `rules call` read like the site: reference titles, aligned tables,
rolls in words, tables callable, honest suggestions, width and colour as documented.

These run the real books (the repository's rulebooks) through the CLI as a user does.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

ANSI = re.compile(r"\x1b\[[0-9;]*m")
ENV_DROP = ("RULES_DSL_BOOKS", "NO_COLOR", "COLUMNS", "TERM", "FORCE_COLOR")


def _env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ENV_DROP}
    env.update({k: str(v) for k, v in extra.items()})
    return env


def rules(*args, **env):
    p = subprocess.run([sys.executable, "-m", "rules_dsl", *args], capture_output=True, text=True,
                       env=_env(**env), timeout=300)
    assert "Traceback" not in p.stderr, p.stderr
    return p


def rules_in_pty(*args, **env):
    """Run the CLI with stdout (and stderr) on a pseudo-terminal; its output as text."""
    import pty
    master, slave = pty.openpty()
    try:
        p = subprocess.Popen([sys.executable, "-m", "rules_dsl", *args], stdout=slave, stderr=slave,
                             stdin=subprocess.DEVNULL, env=_env(**env))
    finally:
        os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:   # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert p.wait(timeout=300) == 0
    return b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")


# ------------------------------------------------------------------ references
def test_references_print_the_target_rules_title():
    out = rules("show", "dust-tactics:skill-defensive-tactics").stdout
    assert "has Damage Resilient." in out
    assert "skill damage resilient" not in out


def test_every_unlabelled_reference_in_dust_reads_as_a_title():
    """Every [[rule]] without a label in Dust prints its target's title, never its id."""
    import rules_dsl
    from rules_dsl.faces.cli_lookup import rule_titles
    from rules_dsl.faces.index import ensure_index
    from rules_dsl.faces.terminal_prose import Out, prose_lines
    book = rules_dsl.load("dust-tactics")
    title_of = rule_titles(ensure_index(), book.id, book)
    out = Out(color=False, width=100)
    refs = 0
    for r in book.rules:
        texts = list(r.node.prose) + [note.text for note in r.node.notes] + list(r.node.flavour)
        for p in texts:
            shown = " ".join(" ".join(prose_lines(p.text, out, title_of)).split())
            for ref in p.refs:
                if ref.label:
                    assert " ".join(ref.label.split()) in shown
                    continue
                refs += 1
                target = rules_dsl.load(ref.book) if ref.book else book
                assert title_of(ref.book, ref.rule) == target.rule(ref.rule).title
                assert target.rule(ref.rule).title in shown
            assert "[[" not in shown
    assert refs >= 90


def test_labels_cross_book_refs_and_missing_targets():
    from rules_dsl.faces.terminal_prose import Out, prose_lines

    def title_of(book, rule):
        return {(None, "close-combat"): "Close Combat", ("void", "spomm"): "S.P.O.M.M."}.get((book, rule))
    text = "See [[close-combat]], [[void:spomm]], [[gone-rule]] and [[close-combat|the melee]]."
    (line,) = prose_lines(text, Out(color=False, width=200), title_of)
    assert line == "  See Close Combat, S.P.O.M.M., gone rule and the melee."


def test_bold_run_in_headings_and_bullets():
    from rules_dsl.faces.terminal_prose import Out, prose_lines
    text = "**Heading.** Body text.\n\n- one\n- two"
    plain = prose_lines(text, Out(color=False, width=80))
    assert plain[0] == "  Heading. Body text." and plain[2].endswith("one") and plain[3].endswith("two")
    coloured = prose_lines(text, Out(color=True, width=80))
    assert coloured[0].startswith("  \x1b[1mHeading.\x1b[0m") and ANSI.sub("", coloured[0]) == plain[0]


# ------------------------------------------------------------------ tables
def _table_block(out: str, first_header: str):
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(first_header)
                 and i + 1 < len(lines) and set(lines[i + 1].strip()) <= set("─ "))
    block = [lines[start], lines[start + 1]]
    for line in lines[start + 2:]:
        if not line.strip() or not line.startswith("    "):
            break
        block.append(line)
    return block


def test_tables_print_aligned_with_absent_cells_marked():
    out = rules("show", "null-strike:sample-weapons", COLUMNS=120).stdout
    header, rule, *rows = _table_block(out, "weapon")
    rows = [r for r in rows if not r.strip().startswith("— absent")]
    # column starts from the rule line under the header
    starts = [m.start() for m in re.finditer(r"─+", rule)]
    assert len(starts) == 9
    names = [header[s:e].strip() for s, e in zip(starts, starts[1:] + [None])]
    assert names[:4] == ["weapon", "points", "type", "attacks"]
    assert len(rows) >= 7
    for row in rows:
        for s in starts[1:]:
            assert row[s - 1] == " ", row          # every cell starts on its column
    heat = next(r for r in rows if r.strip().startswith("Blastgun (Heat)"))
    cells = [heat[s:e].strip() for s, e in zip(starts, starts[1:] + [None])]
    assert cells[:4] == ["Blastgun (Heat)", "—", "assault", "1"] and cells[-1] == "—"
    assert "— absent: the rulebook gives no value" in out


def test_a_table_too_wide_falls_back_to_one_record_per_block():
    out = rules("show", "null-strike:opposed-stat-rolls", COLUMNS=60).stdout
    assert all(len(line) <= 60 for line in out.split("  Example")[0].splitlines())
    assert re.search(r"^    yours +1$", out, re.M) and re.search(r"^    opposed 4 +impossible$", out, re.M)


def test_grid_table_as_a_grid_when_it_fits():
    out = rules("show", "null-strike:opposed-stat-rolls", COLUMNS=200).stdout
    header, rule, *rows = _table_block(out, "yours / opposed")
    assert header.split("  ")[-1].strip() == "10" and len(rows) == 10
    assert rows[0].split()[:4] == ["1", "4", "5", "6"]


# ------------------------------------------------------------------ signatures
def test_rolls_read_as_words():
    out = rules("show", "dust-tactics:ambush_actions").stdout
    assert re.search(r"roll 2 Dust dice \(rolled unless given", out)
    assert "2dust" not in out
    out = rules("show", "void:cd_check_passes").stdout
    assert "roll a d10" in out
    from rules_dsl.language import nodes as n
    from rules_dsl.language.wording import dice_phrase
    sp = n.NOWHERE
    assert dice_phrase(n.DiceSpec(sp, "pool", "d6", n.Name(sp, "shots"))) == "roll shots d6"
    assert dice_phrase(n.DiceSpec(sp, "pool", "d6", n.Literal(sp, 1))) == "roll 1 d6"


def test_parameters_show_ranges_enums_and_defaults():
    out = rules("show", "void:spomm", COLUMNS=120).stdout
    assert re.search(r"Led by ungraded +yes or no; default no", out)      # names and values in words
    assert re.search(r"Role +one of: Tactical Advance, Fire Support", out)   # the book's words
    assert "rules call void:spomm_directive_for role=" in out               # the command: identifiers


def test_show_json_keeps_its_keys():
    rec = json.loads(rules("show", "void:spomm", "--json").stdout)
    assert {"book", "rule", "title", "section", "text", "aliases", "mechanics", "tables", "notes",
            "examples", "findings"} <= set(rec)


# ------------------------------------------------------------------ rules call on a table
def test_call_looks_a_table_up():
    p = rules("call", "void:spomm_grade_radius", "grade=1")
    assert p.returncode == 0 and p.stdout.strip() == "Spomm grade radius: short range"
    assert json.loads(rules("call", "void:spomm_grade_radius", "grade=3", "--json").stdout) == {
        "result": "long", "rolls": {}}


def test_call_a_table_of_records_prints_one_field_a_line():
    p = rules("call", "null-strike:sample_weapons", "weapon=Blastgun (Heat)")
    assert p.returncode == 0
    assert re.search(r"^  Points +absent \(the rulebook gives no value\)$", p.stdout, re.M)
    assert re.search(r"^  Type +assault$", p.stdout, re.M)
    j = json.loads(rules("call", "null-strike:sample_weapons", "weapon=Blastgun (Heat)", "--json").stdout)
    assert j["result"]["points"] is None and j["result"]["type"] == "assault"


@pytest.mark.parametrize("args, needle", [
    (("call", "void:spomm_grade_radius", "grad=1"), "unknown key 'grad'"),
    (("call", "void:spomm_grade_radius", "grade=9"), "allowed: 1..3"),
    (("odds", "void:spomm_grade_radius"), "'spomm_grade_radius' is a table"),
    (("call", "void:spomm"), "'spomm' is a rule there"),
    (("call", "void:spomm_grade_radiuss"), "did you mean 'spomm_grade_radius'"),
])
def test_call_errors_are_one_line(args, needle):
    p = rules(*args)
    assert p.returncode == 2 and needle in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_show_a_declaration_shows_its_rule():
    p = rules("show", "void:spomm_grade_radius")
    assert p.returncode == 0 and "S.P.O.M.M." in p.stdout and "is a table of rule void:spomm" in p.stderr


# ------------------------------------------------------------------ did you mean
@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="abcdefgh_-", min_size=1, max_size=8), min_size=1, max_size=8), st.data())
def test_did_you_mean_never_offers_the_name_typed(names, data):
    from rules_dsl.errors import NotFound, suggest
    word = data.draw(st.sampled_from(names) | st.text(alphabet="abcdefgh_-", min_size=1, max_size=8))
    assert word not in suggest(word, names)
    message = str(NotFound("mechanic", word, names))
    hint = message.split("; ", 1)[1] if "; " in message else ""
    assert f"'{word}'" not in hint


def test_unknown_mechanic_that_is_its_exact_table_name_is_no_longer_suggested():
    p = rules("call", "void:spomm_grade_radius")
    assert "did you mean 'spomm_grade_radius'" not in p.stderr


# ------------------------------------------------------------------ width and colour
def test_prose_wraps_at_columns():
    for cols in (40, 72):
        out = rules("show", "void:spomm", COLUMNS=cols).stdout
        body = out.split("  Example")[0].splitlines()
        # wider only when one word (a name, a command) is wider than the line
        assert all(len(line) <= cols or len(line.split()) == 1 for line in body), \
            [line for line in body if len(line) > cols]
        assert max(len(line) for line in body if len(line.split()) > 1) >= cols - 12


def test_no_colour_when_piped_unless_asked():
    assert not ANSI.search(rules("show", "void:spomm").stdout)
    assert ANSI.search(rules("show", "void:spomm", "--color").stdout)


def test_colour_on_a_terminal_but_not_with_no_color_or_dumb_term():
    assert ANSI.search(rules_in_pty("show", "void:spomm", TERM="xterm"))
    assert not ANSI.search(rules_in_pty("show", "void:spomm", TERM="xterm", NO_COLOR="1"))
    assert not ANSI.search(rules_in_pty("show", "void:spomm", TERM="dumb"))
    assert not ANSI.search(rules_in_pty("show", "void:spomm", "--no-color", TERM="xterm"))
    assert not ANSI.search(rules_in_pty("call", "void:spomm_grade_radius", "grade=1", TERM="xterm", NO_COLOR="x"))
