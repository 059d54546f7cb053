"""The README is a front door: short, its commands real, its loop runnable, its links alive.

The reference lives in docs/ (docs/cli.md, docs/scale.md ...); these tests keep the
README from growing back into one, and fail when a command or a link it shows stops
being true.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    m = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", README, re.M | re.S)
    assert m, f"the README has no section {title!r}"
    return m.group(1)


def _fenced(text: str, lang: str = "sh") -> str:
    m = re.search(rf"^```{lang}\n(.*?)^```", text, re.M | re.S)
    assert m, f"no {lang} block"
    return m.group(1)


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub (and myst) make it: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_readme_is_short():
    assert len(README.splitlines()) <= 150


def test_the_two_commands_come_first_and_ci_runs_the_test_command():
    first = _fenced(_section("Two commands"))
    assert [line.split("#")[0].strip() for line in first.splitlines()] == \
        ["bash scripts/main.sh", "bash scripts/test.sh"]
    assert README.index("bash scripts/main.sh") < README.index("## Write a rule")
    ci = (ROOT / ".ci" / "run").read_text()
    assert "scripts/test.sh" in ci and "scripts/test-newest.sh" in ci
    for script in ("main.sh", "test.sh", "test-newest.sh", "install.sh"):
        assert (ROOT / "scripts" / script).is_file()


def test_the_command_table_lists_every_subcommand_with_a_live_link():
    from rules_dsl.cli import build_parser
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "cmd")
    table = _section("The `rules` command")
    listed = re.findall(r"^\| `rules (\w+)", table, re.M)
    assert sorted(listed) == sorted(sub.choices), "one row per subcommand, no more, no less"
    for name in listed:
        assert f"(docs/cli.md#rules-{name})" in table, f"rules {name}: no link to its docs/cli.md section"


def test_every_link_into_docs_points_at_a_page_and_a_heading():
    links = re.findall(r"\]\((docs/[^)#]+)(?:#([^)]+))?\)", README)
    assert len(links) >= 15
    for path, anchor in links:
        page = ROOT / path
        assert page.is_file(), path
        if anchor:
            headings = re.findall(r"^#+ (.+)$", page.read_text(encoding="utf-8"), re.M)
            assert anchor in {_slug(h) for h in headings}, f"{path}#{anchor}: no such heading"


def test_the_moved_reference_lives_in_docs():
    """The CLI reference is in docs/cli.md and the measured history in docs/scale.md,
    both in the site's toctree; the README keeps neither."""
    cli = (ROOT / "docs" / "cli.md").read_text()
    scale = (ROOT / "docs" / "scale.md").read_text()
    index = (ROOT / "docs" / "index.md").read_text()
    for json_key in ('"probability_at_least"', "`matched`", '"passed"', '"edition"'):
        assert json_key in cli
    assert "## Measured history" in scale and "edb4f73" in scale
    assert re.search(r"^cli$", index, re.M) and re.search(r"^scale$", index, re.M)
    assert "edb4f73" not in README and "probability_at_least" not in README


def test_the_write_check_see_loop_runs_as_written(tmp_path):
    """Every line of the loop but the last (a server) runs in a fresh folder, with `rules`
    as this checkout's `python -m rules_dsl`; the outputs are the ones its comments promise."""
    loop = _fenced(_section("Write a rule, check it, see its page"))
    lines = loop.rstrip("\n").splitlines()
    assert 10 <= len(lines) <= 16
    assert lines[-1].startswith("rules preview --open")
    script = "\n".join(lines[:-1]) + "\n"
    env = dict(os.environ, RULES_DSL_CACHE=str(tmp_path / "cache"), NO_COLOR="1", COLUMNS="100")
    env.pop("RULES_DSL_BOOKS", None)
    prelude = f'rules() {{ "{sys.executable}" -m rules_dsl "$@"; }}\nset -e\n'
    work = tmp_path / "work"
    work.mkdir()
    done = subprocess.run(["bash", "-c", prelude + script], cwd=work, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "1/1 examples pass" in done.stdout
    assert re.search(r"yes\s+50\.00%", done.stdout) and re.search(r"no\s+50\.00%", done.stdout)
    assert (work / "mybooks" / "my-game.rules").is_file()

    # "Change `true` to `false` in the example and `rules check` fails, pointing at the line."
    book = work / "mybooks" / "my-game.rules"
    book.write_text(book.read_text().replace("    true\n", "    false\n"))
    env["RULES_DSL_BOOKS"] = str(work / "mybooks")
    failed = subprocess.run([sys.executable, "-m", "rules_dsl", "check", "my-game"], cwd=work, env=env,
                            capture_output=True, text=True, timeout=120)
    assert failed.returncode == 1
    line = book.read_text().splitlines().index("    >>> hits(4, die=5)") + 1
    assert f"my-game.rules:{line}:" in failed.stdout and "expected: false" in failed.stdout


@pytest.mark.parametrize("command", ["rules lookup suppression",
                                     "rules call null-strike:opposed_target yours=5 opposed=3",
                                     "rules explain dust-tactics:suppression_after_attack state=clear hits=2"])
def test_the_examples_of_the_command_table_run(command):
    assert command in _fenced(_section("The `rules` command")).splitlines()
    env = dict(os.environ, NO_COLOR="1")          # the session's cache: the real books' index, built once
    env.pop("RULES_DSL_BOOKS", None)
    done = subprocess.run([sys.executable, "-m", "rules_dsl", *command.split()[1:]], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()
