"""`rules check --watch`: after each save, only what changed is printed.

The watch loop takes the function that waits for a change; here it makes the
change itself (an edit of the book) and returns at once, so nothing is timed."""
from __future__ import annotations

from rules_dsl.cli import build_parser
from rules_dsl.library.loader import Library
from rules_dsl.faces.watch import watch


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

    def wait(stamp, since):
        assert stamp() == since           # nothing changed since the last check
        if not edits:
            return False
        src.write_text(edits.pop(0), encoding="utf-8")
        assert stamp() != since           # the watch sees the save
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


def test_rules_check_watch_command_reports_a_save(demo_books):
    """The command itself: it prints the first check, then what a save changed.
    Reading its output line by line waits for each event (the limit only guards a hang)."""
    import os
    import subprocess
    import sys
    import threading

    src = demo_books / "demo.rules"
    good = src.read_text(encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "rules_dsl", "check", "--watch", "demo"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=dict(os.environ))
    timer = threading.Timer(120, proc.kill)   # a hang fails the test instead of blocking the run
    timer.start()
    try:
        lines = []

        def read_until(pred):
            for line in proc.stdout:
                lines.append(line.rstrip("\n"))
                if pred(lines[-1]):
                    return lines[-1]
            raise AssertionError("the watch ended: " + "\n".join(lines))

        read_until(lambda line: line.startswith("watching for changes"))
        assert lines[0] == "demo: 2 problem(s)"
        def save(text):   # as editors do: a whole new file in place of the old
            tmp = src.with_suffix(".tmp")
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, src)

        save(good.replace("let d = opposed - yours", "let d = oposed - yours"))
        line = read_until(lambda line: line.startswith("  new error: ") and "oposed" in line)
        assert "did you mean 'opposed'" in line
        save(good)
        read_until(lambda line: line.startswith("  fixed: ") and "oposed" in line)
    finally:
        timer.cancel()
        proc.kill()
        proc.wait()
        proc.stdout.close()
