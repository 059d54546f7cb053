"""Our error types: every failure a user can cause is one of these, never a traceback.

* `RulebookError` -- a rulebook source is wrong (syntax or meaning).  It holds one
  or more `Diagnostic`s, each with file:line:column, the source line, a caret and
  a hint, in the style of Catala's and rustc's diagnostics.
* `InputError` -- a mechanic was called with a value outside its declared type.
* `EvaluationError` -- a mechanic could not produce a value (missing table row,
  a `require` that failed, an absent value used in arithmetic).
* `NotFound` -- an unknown book, rule or mechanic, with suggestions; `BadBookId`,
  one of them, a book id that is not a name at all (a path, `..`, nothing).
"""
from __future__ import annotations

from typing import Iterable, Optional


class RulesError(Exception):
    """Base class of every error this package raises on purpose."""


def suggest(word: str, candidates: Iterable[str], n: int = 3) -> list:
    """Near matches for did-you-mean hints (case-insensitive); never `word` itself,
    since suggesting the very name that just failed helps nobody."""
    import difflib  # lazy: only a failing lookup needs it

    cands = [c for c in dict.fromkeys(candidates) if c != word]
    lowered = {c.lower(): c for c in cands}
    hits = difflib.get_close_matches(word.lower(), list(lowered), n=n, cutoff=0.6)
    return [lowered[h] for h in hits]


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    hits = suggest(word, candidates)
    return f"did you mean {', '.join(repr(h) for h in hits)}?" if hits else ""


class Related:
    """Another place that explains a diagnostic ("first declared here")."""

    __slots__ = ("file", "line", "column", "message")

    def __init__(self, file: str, line: int, column: int, message: str):
        self.file, self.line, self.column, self.message = file, line, column, message

    def __repr__(self):
        return f"Related({self.file}:{self.line}:{self.column}: {self.message!r})"

    def __eq__(self, other):
        return isinstance(other, Related) and all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    def __reduce__(self):
        return (Related, tuple(getattr(self, k) for k in self.__slots__))

    @classmethod
    def at(cls, span, message: str) -> "Related":
        return cls(span.file, span.line, span.column, message)


class Fix:
    """A change that would correct a diagnostic (an editor offers it as a quick fix):
    replace the text from (line, column) to (end_line, end_column), 1-based and the
    end exclusive, by `text`.  An insertion has its end at its start."""

    __slots__ = ("title", "line", "column", "end_line", "end_column", "text")

    def __init__(self, title: str, line: int, column: int, end_line: int, end_column: int, text: str):
        self.title, self.line, self.column = title, line, column
        self.end_line, self.end_column, self.text = end_line, end_column, text

    def __repr__(self):
        return f"Fix({self.title!r} at {self.line}:{self.column}-{self.end_line}:{self.end_column}: {self.text!r})"

    def __eq__(self, other):
        return isinstance(other, Fix) and all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    def __reduce__(self):
        return (Fix, tuple(getattr(self, k) for k in self.__slots__))

    def as_json(self) -> dict:
        return {k: getattr(self, k) for k in self.__slots__}


SEVERITIES = ("error", "warning")


class Diagnostic:
    """One problem in a source: where, what, how to fix it, how bad, and the other
    places that explain it.  Errors stop a book from compiling; warnings do not."""

    __slots__ = ("file", "line", "column", "message", "hint", "source_line", "severity", "related", "fixes")

    def __init__(self, file: str, line: int, column: int, message: str, hint: str = "", source_line: str = "",
                 severity: str = "error", related: tuple = (), fixes: tuple = ()):
        self.file, self.line, self.column = file, line, column
        self.message, self.hint, self.source_line = message, hint, source_line
        self.severity, self.related, self.fixes = severity, tuple(related), tuple(fixes)

    def __repr__(self):
        return (f"Diagnostic({self.severity} {self.file}:{self.line}:{self.column}: {self.message!r}, "
                f"hint={self.hint!r})")

    def __eq__(self, other):
        return isinstance(other, Diagnostic) and all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    def __reduce__(self):
        return (Diagnostic, tuple(getattr(self, k) for k in self.__slots__))

    def as_json(self) -> dict:
        return {"file": self.file, "line": self.line, "column": self.column, "severity": self.severity,
                "message": self.message, "hint": self.hint,
                "related": [{"file": r.file, "line": r.line, "column": r.column, "message": r.message}
                            for r in self.related],
                **({"fixes": [f.as_json() for f in self.fixes]} if self.fixes else {})}

    def render(self) -> str:
        out = [f"{self.file}:{self.line}:{self.column}: {self.severity}: {self.message}"]
        if self.source_line:
            gutter = f"{self.line:>4} | "
            line, col = self.source_line.rstrip("\n"), max(self.column - 1, 0)
            if len(line) > 120:  # a window around the caret, not a 20,000-character line
                start = max(0, min(col - 60, len(line) - 120))
                line = ("…" if start else "") + line[start:start + 120] + ("…" if start + 120 < len(line) else "")
                col = col - start + (1 if start else 0)
            out.append(gutter + line)
            pad = "".join(c if c == "\t" else " " for c in line[:col])
            out.append(" " * (len(gutter) - 2) + "| " + pad + "^")
        if self.hint:
            out.append(f"     = hint: {self.hint}")
        for r in self.related:
            out.append(f"     = note: {r.message} at {r.file}:{r.line}:{r.column}")
        return "\n".join(out)


def line_of(text: str, line: int) -> str:
    lines = text.splitlines()
    return lines[line - 1] if 0 < line <= len(lines) else ""


class RulebookError(RulesError):
    """A rulebook failed to parse or check; carries every diagnostic found."""

    def __init__(self, diagnostics: list):
        self.diagnostics = list(diagnostics)
        super().__init__(self.render())

    def render(self) -> str:
        n = len(self.diagnostics)
        body = "\n\n".join(d.render() for d in self.diagnostics)
        return body + (f"\n\n{n} errors" if n > 1 else "")

    def first_line(self) -> str:
        d = self.diagnostics[0]
        more = f" (and {len(self.diagnostics) - 1} more)" if len(self.diagnostics) > 1 else ""
        return f"{d.file}:{d.line}:{d.column}: {d.message}{more}"


class InputError(RulesError, ValueError):
    """A mechanic argument is outside its declared range or enumeration.  The value is
    shown as the book writes values (`values.literal`: `7/2`, `true`, `"text"`, never a
    Python repr); None stands for a value that was not given."""

    def __init__(self, mechanic: str, param: str, value: object, allowed: str):
        self.mechanic, self.param, self.value, self.allowed = mechanic, param, value, allowed
        if value is None:
            if allowed.startswith("a value is required"):
                said = "needs a value " + allowed[len("a value is required"):].strip()
            else:
                said = f"got nothing; allowed: {allowed}"
            super().__init__(f"{mechanic}: parameter '{param}' {said.strip()}")
            return
        from .language.values import literal
        try:
            shown = literal(value)
        except Exception:       # a Python caller's own object: what it says it is
            shown = repr(value)
        super().__init__(f"{mechanic}: parameter '{param}' got {shown}; allowed: {allowed}")


class EvaluationError(RulesError):
    """A mechanic could not be evaluated with the inputs it was given."""


class NotFound(RulesError, LookupError):
    """An unknown book, rule, mechanic or name; the message carries suggestions."""

    def __init__(self, kind: str, name: str, candidates: Iterable[str] = (), where: Optional[str] = None,
                 note: str = ""):
        """`note` says what the name is instead (e.g. "'x' is a table there"); it replaces
        the did-you-mean hint, which never offers `name` itself."""
        hint = note or did_you_mean(name, candidates)
        place = f" in {where}" if where else ""
        self.kind, self.name = kind, name
        super().__init__(f"unknown {kind} '{name}'{place}" + (f"; {hint}" if hint else ""))


class BadBookId(NotFound):
    """A book id that is not a name (`paths.check_book_id`): empty, `.` or `..`, a
    path, or anything else that is not a book header's id.  Never looked up."""

    def __init__(self, book_id: str, reason: str, candidates: Iterable[str] = ()):
        shown = book_id if len(book_id) <= 60 else book_id[:59] + "…"
        candidates, plain = list(candidates), _plain_id(book_id)
        hint = f"did you mean '{plain}'?" if plain in candidates else did_you_mean(plain, candidates) if plain else ""
        self.kind, self.name, self.reason = "book", book_id, reason
        RulesError.__init__(self, (f"{shown!r} is not a book id: {reason}" if book_id else reason)
                            + (f"; {hint}" if hint else ""))


def _plain_id(book_id: str) -> str:
    """What a mistyped book id most likely meant: a path's last part without `.rules`,
    in lower case with hyphens (`rulebooks/Null_Strike.rules` -> `null-strike`)."""
    last = book_id.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    if last.endswith(".rules"):
        last = last[: -len(".rules")]
    return last.strip().lower().replace("_", "-").replace(" ", "-")
