"""pytest collects every worked example of the books folder as its own test item.

The books folder is the default library's (`RULES_DSL_BOOKS`, else `rulebooks/`
beside the package), whatever its name; `.rules` files elsewhere are left alone.

Each `example` block of a `.rules` file becomes one item named after
its rule, reported at file:line; a book that fails to compile is one failing
item that shows the diagnostics.  A layer's file (`base+name.rules`) collects
every example of its layered book, the base's included, run under the layer.
"""
from __future__ import annotations

from pathlib import Path

import pytest


def pytest_collect_file(file_path: Path, parent):
    if file_path.suffix != ".rules":
        return None
    from .errors import BadBookId
    from .library.loader import DEFAULT
    try:
        book_id = DEFAULT.book_id_of(file_path, strict=True)
    except BadBookId as e:     # a file where a book would be, named as no book can be: say so
        return RulesFile.from_parent(parent, path=file_path, book_id=None, error=e)
    if book_id is None:
        return None  # a .rules file outside the books folder (e.g. a test fixture)
    return RulesFile.from_parent(parent, path=file_path, book_id=book_id)


class RulesFile(pytest.File):
    def __init__(self, *, book_id, error=None, **kw):
        super().__init__(**kw)
        self.book_id, self.error = book_id, error

    def collect(self):
        from .errors import RulesError
        from .library.loader import DEFAULT

        if self.error is not None:
            yield CompileItem.from_parent(self, name=f"{self.path.name}[book id]", error=self.error)
            return
        book_id = self.book_id
        try:
            book = DEFAULT.load(book_id)
        except RulesError as e:
            yield CompileItem.from_parent(self, name=f"{book_id}[compile]", error=e)
            return
        # a layered book (layers.py) is collected from its layer's file: every example of the
        # book, its base's included (run under the layer), and its findings
        home = Path(book.ast.files[-1] if book.layers else book.ast.files[0]).resolve()
        if book.findings_fail and home == self.path.resolve():
            yield FindingsItem.from_parent(self, name=f"{book_id}[findings]", book=book)
        counts = {}
        for rule_id, _ in book.example_cases():
            counts[rule_id] = counts.get(rule_id, 0) + 1
        seen = {}
        for rule_id, ex in book.example_cases():
            seen[rule_id] = seen.get(rule_id, 0) + 1
            if Path(ex.span.file).resolve() != self.path.resolve() and not (book.layers and home == self.path.resolve()):
                continue
            name = f"{book.id}:{rule_id}" + (f"[{seen[rule_id]}]" if counts[rule_id] > 1 else "")
            yield ExampleItem.from_parent(self, name=f"{name} (line {ex.first_line})", book=book,
                                          rule_id=rule_id, example=ex)


class CompileItem(pytest.Item):
    def __init__(self, *, error, **kw):
        super().__init__(**kw)
        self.error = error

    def runtest(self):
        raise self.error

    def repr_failure(self, excinfo):
        return str(self.error)

    def reportinfo(self):
        return self.path, 0, self.name


class ExampleFailed(Exception):
    pass


class FindingsItem(pytest.Item):
    """A book whose header says `findings fail` (a designer's own game): its checks
    must find nothing, so each finding fails this item."""

    def __init__(self, *, book, **kw):
        super().__init__(**kw)
        self.book = book

    def runtest(self):
        findings = self.book.findings
        if findings:
            from .library.findings import finding_lines
            raise ExampleFailed("\n".join(finding_lines(findings, indent="")))

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, ExampleFailed):
            return f"{self.book.id}: the book says `findings fail`, and its checks found:\n{excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, 0, self.name


class ExampleItem(pytest.Item):
    def __init__(self, *, book, rule_id, example, **kw):
        super().__init__(**kw)
        self.book, self.rule_id, self.example = book, rule_id, example

    def runtest(self):
        # the language's own evaluator: an example never reaches Python's doctest or eval
        result = self.book.run_example(self.rule_id, self.example)
        if not result.passed:
            raise ExampleFailed(result.report)

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, ExampleFailed):
            return f"{self.example.span.file}:{self.example.first_line}: example failed\n{excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, self.example.first_line - 1, f"{self.path.name}:{self.example.first_line}: {self.name}"
