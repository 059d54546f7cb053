"""No module over ~500 lines without a reason written at its top (issue 32).

Small modules with one job each are the team's standard: a module of more than
`MAX_LINES` lines under rules_dsl/ must say why in its module docstring, in a
sentence that starts "Over 500 lines because".  Read with `ast`: nothing is imported.
"""
from __future__ import annotations

import ast
import re

from conftest import REPO

PACKAGE = "rules_dsl"
MAX_LINES = 500
REASON = re.compile(r"(?:^|[.!?]\s+|\n\s*\n\s*)Over 500 lines because\b")

def line_count(text: str) -> int:
    return len(text.splitlines())


def has_reason(text: str) -> bool:
    """Whether the module's docstring has a sentence starting "Over 500 lines because"."""
    doc = ast.get_docstring(ast.parse(text)) or ""
    return bool(REASON.search(doc))


def _modules() -> dict[str, str]:
    root = REPO / PACKAGE
    return {path.relative_to(REPO).as_posix(): path.read_text(encoding="utf-8") for path in sorted(root.rglob("*.py"))}


def unexplained(modules: dict[str, str]) -> list[tuple[str, int]]:
    return [(name, line_count(text)) for name, text in modules.items()
            if line_count(text) > MAX_LINES and not has_reason(text)]


def test_the_check_can_fail():
    """A long module without the sentence is found; with it, or short, it is not."""
    body = "x = 1\n" * 600
    fake = {
        "rules_dsl/long.py": '"""A module."""\n' + body,
        "rules_dsl/explained.py": '"""A module.\n\nOver 500 lines because it must.\n"""\n' + body,
        "rules_dsl/mid_sentence.py": '"""A module. Over 500 lines because it must."""\n' + body,
        "rules_dsl/in_a_comment.py": '"""A module."""\n# Over 500 lines because it must.\n' + body,
        "rules_dsl/not_at_a_start.py": '"""Nobody says it is over 500 lines because of anything."""\n' + body,
        "rules_dsl/short.py": '"""A module."""\n' + "x = 1\n" * 10,
    }
    assert [name for name, _ in unexplained(fake)] == [
        "rules_dsl/long.py", "rules_dsl/in_a_comment.py", "rules_dsl/not_at_a_start.py"]


def test_no_module_over_500_lines_without_a_reason_at_its_top():
    found = [(name, lines) for name, lines in unexplained(_modules())]
    assert not found, (f"{len(found)} module(s) over {MAX_LINES} lines whose docstring does not say why "
                       "(a sentence starting \"Over 500 lines because\"); split them by job, or say why:\n"
                       + "\n".join(f"  {name}: {lines} lines" for name, lines in found))

