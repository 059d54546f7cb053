"""What a cold `rules lookup` does before it answers (not a timed test: bench/bench_cli.py
measures the time; these pin what it imports and that the lean parser parses the same)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hypothesis import given, settings
from hypothesis import strategies as st

from rules_dsl.cli import COMMANDS, build_parser, lookup_args

ROOT = Path(__file__).resolve().parent.parent


def test_commands_are_the_whole_parsers_subcommands_in_order():
    sub = next(a for a in build_parser()._actions if a.dest == "cmd")
    assert tuple(sub.choices) == COMMANDS


@pytest.mark.parametrize("argv", [
    ["lookup", "Suppression"], ["lookup", "shoot", "after", "running", "--book", "void", "--limit", "3", "--json"],
    ["show", "void:camouflage", "--no-color"], ["call", "x:y", "a=1", "b=2", "--seed", "3"],
    ["odds", "x:y", "n=3", "--vs", "n=4", "--sweep", "t=2..6", "--exact", "--time-limit", "2"],
    ["explain", "x:y", "--no-locations"], ["cost", "skirmish-tutorial"], ["check", "--watch", "--strict"],
    ["export", "void", "--out", "-"], ["preview", "--port", "0", "--open"], ["js", "a", "b", "--examples"],
    ["lsp", "--stdio"], ["books", "--json", "--color"]])
def test_the_parser_of_one_command_parses_as_the_whole_parser(argv):
    assert argv[0] in COMMANDS
    assert vars(build_parser(argv[0]).parse_args(argv)) == vars(build_parser().parse_args(argv))


PLAIN_LOOKUPS = [
    ["lookup", "Suppression"], ["lookup", "shoot", "after", "running"], ["lookup", "x", "--json"],
    ["lookup", "--json", "x", "y"], ["lookup", "--book", "void", "cover"], ["lookup", "cover", "--book=void"],
    ["lookup", "a", "--limit", "3"], ["lookup", "a", "--limit=07"], ["lookup", "a", "--limit", "99999"],
    ["lookup", "a", "--color"], ["lookup", "a", "--no-color", "--json", "--book", "x", "--limit", "1"],
    ["lookup", "a", "--book="], ["lookup", ""], ["lookup", "a b", "c:d", "+1"], ["lookup", "lookup"]]

NOT_PLAIN = [
    ["lookup"], ["lookup", "--json"], ["lookup", "-h"], ["lookup", "a", "--help"], ["lookup", "a", "--lim", "3"],
    ["lookup", "a", "--json", "b"], ["lookup", "a", "--limit", "0"], ["lookup", "a", "--limit", "x"],
    ["lookup", "a", "--limit", " 3"], ["lookup", "a", "--limit", "²"], ["lookup", "a", "--limit"],
    ["lookup", "a", "--book"], ["lookup", "a", "--book", "-x"], ["lookup", "a", "--color", "--no-color"],
    ["lookup", "a", "--book", "x", "--book", "y"], ["lookup", "a", "--json", "--json"], ["lookup", "--", "a"],
    ["lookup", "-5"], ["lookup", "a", "--json=1"], ["lookup", "a", "-x"], ["show", "a:b"], []]


@pytest.mark.parametrize("argv", PLAIN_LOOKUPS)
def test_a_plain_lookup_is_read_without_argparse_as_argparse_reads_it(argv):
    fast = lookup_args(argv)
    assert fast is not None
    assert vars(fast) == vars(build_parser().parse_args(argv))


@pytest.mark.parametrize("argv", NOT_PLAIN)
def test_any_other_command_line_is_left_to_argparse(argv):
    assert lookup_args(argv) is None


TOKENS = st.sampled_from(["a", "shoot", "", "x y", "-", "--", "-h", "-5", "--json", "--json=1", "--color", "--no-color",
                          "--book", "--book=void", "--book=", "--limit", "--limit=2", "--lim", "0", "3", "007", "99999999999",
                          "+4", "void", "²"])


@settings(max_examples=400, deadline=None)
@given(st.lists(TOKENS, max_size=7))
def test_whatever_the_lean_reader_accepts_argparse_reads_the_same(tokens):
    """The lean reader either declines (None: argparse reads the line) or gives exactly
    what argparse gives; it never accepts a line argparse refuses."""
    argv = ["lookup"] + tokens
    fast = lookup_args(argv)
    if fast is None:
        return
    try:
        whole = build_parser().parse_args(argv)
    except SystemExit:
        pytest.fail(f"the lean reader accepts {argv!r}, which argparse refuses")
    assert vars(fast) == vars(whole)


def test_a_lookup_imports_only_what_it_needs():
    """Beyond the floor (the interpreter importing argparse, sqlite3, json and re), a lookup
    loads the index, the search and the terminal: never the compiler, lark, hashlib (the
    index's freshness compares the stamps whole), typing or shutil (argparse is told the
    terminal's width)."""
    env = dict(os.environ)
    subprocess.run([sys.executable, "-m", "rules_dsl", "books"], env=env, check=True, capture_output=True)
    probe = ("import sys; sys.path.insert(0, {root!r}); base = set(sys.modules); {body}; "
             "print(__import__('json').dumps(sorted(set(sys.modules) - base)))")
    floor = "import argparse, sqlite3, json, re"
    lookup = ("import argparse, sqlite3, json, re, io, contextlib; from rules_dsl.cli import main; "
              "out = io.StringIO(); ctx = contextlib.redirect_stdout(out); ctx.__enter__(); "
              "code = main(['lookup', 'Suppression']); ctx.__exit__(None, None, None); assert code == 0, code; "
              "assert 'Suppression' in out.getvalue()")

    def loaded(body):   # -S: no site-packages (this machine's .pth files import half the library at start-up)
        done = subprocess.run([sys.executable, "-S", "-c", probe.format(root=str(ROOT), body=body)], env=env,
                              capture_output=True, text=True, cwd=ROOT)
        assert done.returncode == 0, done.stderr
        return set(json.loads(done.stdout.splitlines()[-1]))

    extra = loaded(lookup) - loaded(floor)
    for heavy in ("rules_dsl.library.loader", "rules_dsl.compiler", "rules_dsl.errors", "lark", "hashlib", "typing", "shutil",
                  "dataclasses", "textwrap", "pickle", "rules_dsl.faces.index_build", "rules_dsl.faces.cli_odds", "rules_dsl.faces.cli_inputs",
                  "zlib", "unicodedata", "locale"):
        assert heavy not in extra, f"a lookup imports {heavy}"
    assert {"rules_dsl.faces.index", "rules_dsl.faces.textsearch", "rules_dsl.faces.terminal_prose"} <= extra
    assert "rules_dsl.faces.terminal" not in extra, "a lookup imports the rule drawing it does not use"
    # a plain lookup is read without argparse (`lookup_args`): it never imports it at all
    alone = loaded(lookup.replace("import argparse, sqlite3, json, re, ", "import "))
    assert "argparse" not in alone and "gettext" not in alone
