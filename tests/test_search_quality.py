"""Search answers a player's question: the question set's goal, in the terminal and the browser.

tests/search_questions.json holds questions a player asks at the table, written from the
seed texts, each with the rules of our books that answer it (decided by reading them).
bench/bench_search_quality.py measures top-1 and top-3 for `rules lookup` and for the
site's ranking (under node, fetching what the box fetches); the goal is the right rule
in the first three for at least 90% of the questions in both, and the two questions of
issue 28 answered in the first three.  docs/search.md records the measured table.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
import bench_search_quality  # noqa: E402

NODE = shutil.which("node")
QUESTIONS = {q["q"]: q for q in bench_search_quality.questions()}


def test_the_question_set_is_well_formed():
    from rules_dsl.faces import index
    assert len(QUESTIONS) >= 40
    idx = index.ensure_index()
    known = {(r[0], r[1]) for r in idx.con.execute("SELECT book, rule FROM rules")}
    for q in QUESTIONS.values():
        assert q["answers"] and q["seed"], q["q"]
        for a in q["answers"]:
            assert tuple(a.split(":")) in known, (q["q"], a)


@pytest.mark.parametrize("question", ["can I shoot after running", "how many actions do I get"])
def test_rules_lookup_answers_the_issues_questions_in_the_first_three(question):
    proc = subprocess.run([sys.executable, "-m", "rules_dsl", "lookup", question, "--json", "--limit", "3"],
                          capture_output=True, text=True, timeout=300, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    got = [f"{r['book']}:{r['rule']}" for r in json.loads(proc.stdout)]
    assert set(got) & set(QUESTIONS[question]["answers"]), got


@pytest.mark.skipif(NODE is None, reason="node is not installed (the site's search runs in JavaScript)")
def test_the_question_set_is_answered_in_the_first_three_in_both(tmp_path):
    m = bench_search_quality.measure(node=NODE)
    table = bench_search_quality.table(m)
    (tmp_path / "search-quality.md").write_text(table + "\n", encoding="utf-8")
    print(table)
    assert m["cli"]["top3"] >= 0.9 and m["site"]["top3"] >= 0.9, table
    # one ranking: the two runtimes give each question the same list
    assert [r["cli"] for r in m["questions"]] == [r["site"] for r in m["questions"]]
