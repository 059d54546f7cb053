"""`rules check --watch`: after each save, only what changed is printed.

The watch loop takes the function that waits for a change; here it makes the
change itself (an edit of the book) and returns at once, so nothing is timed."""
from __future__ import annotations

from rules_dsl.cli import build_parser
from rules_dsl.loader import Library
from rules_dsl.watch import watch


def test_check_accepts_watch():
    args = build_parser().parse_args(["check", "--watch", "demo"])
    assert args.watch and args.book == "demo"


def test_watch_prints_new_and_fixed_errors_and_examples(demo_books, tmp_path):
    src = demo_books / "demo.rules"
    good = src.read_text(encoding="utf-8")
    edits = [
        good.replace("let d = opposed - yours + 4 + penalty", "let d = oposed - yours + 4 + penalty"),
        good.replace(">>> needed(5, 3)\n    2", ">>> needed(5, 3)\n    3"),
        good,
        "\n" + good,                                   # a line more: the same problems, nothing to say
    ]
    out, calls = [], []

    def wait(stamp):
        before = stamp()
        if not edits:
            return False
        src.write_text(edits.pop(0), encoding="utf-8")
        assert stamp() != before          # the watch sees the save
        calls.append(len(out))
        return True

    lib = Library(demo_books, tmp_path / "cache")
    assert watch(lib, ["demo"], out.append, wait) == 0
    first = out[:calls[0]]
    assert first[0] == "demo: 2 problem(s)" and all(line.startswith("  finding: ") for line in first[1:3])
    step1 = out[calls[0]:calls[1]]
    assert any(line.startswith("  new error: ") and "oposed" in line and "did you mean 'opposed'" in line
               for line in step1), step1
    assert not any("finding" in line for line in step1[1:] if "new" in line)
    step2 = out[calls[1]:calls[2]]
    assert any(line.startswith("  fixed: ") and "oposed" in line for line in step2), step2
    assert any(line.startswith("  now failing: ") and "needed(5, 3): expected 3, got 2" in line for line in step2)
    step3 = out[calls[2]:calls[3]]
    assert [line for line in step3 if line.startswith("  ")] == \
        [line for line in step3 if line.startswith("  now passing: ") and "needed(5, 3)" in line]
    assert len(step3) == 2
    step4 = out[calls[3]:]
    assert step4 == ["demo: 2 problem(s), nothing changed"]
