"""The words a book gives for players, checked: display forms (`called "..."`), a
mechanic's `question` and `answer`, a check's `finding` (docs/language.md, "Names in words").

* a display form is a name: not empty, one line, at most `MAX_NAME` characters;
* within one scope a player must be able to tell names apart, and the CLI reads
  either form as input, so no two names of a scope may read the same (case and
  underscores aside), identifier or display form: the parameters and rolls of a
  mechanic, the keys of a table, the fields of a record, the members of an enum,
  the faces of a die; across the book, mechanics, tables, constants and enumerations;
* an answer's `{placeholders}` are `{result}` or a parameter of the mechanic; a
  finding's are `{left}`, `{right}` (the two sides of the check's comparison) or a
  binding of the check; a question has none (it is shown before any input is given).

Each problem is a located diagnostic (file:line:column, a caret, a hint), reported
through the checks' `Reporter`.
"""
from __future__ import annotations

from ..language import nodes as n
from ..language.display import fold, words
from ..errors import Related, did_you_mean
from ..language.model import decls_of
from ..language.wording import placeholders

MAX_NAME = 60
MAX_SENTENCE = 300


def check_display(book, report):
    """Run every check of this module over the book."""
    for die in book.header.dice:
        for _, ph in die.displays:
            _name_ok(ph, report)
        if die.custom:
            shown = dict(die.displays)
            _distinct([(f, shown.get(f), die.span) for f in dict.fromkeys(die.faces)], f"faces of the die {die.name}",
                      report)
    globals_ = []
    for p in decls_of(book):
        d = p.node
        if isinstance(d, n.Enum):
            _name_ok(d.display, report)
            globals_.append((d.name, d.display, d.span))
            shown = dict(d.displays)
            for ph in shown.values():
                _name_ok(ph, report)
            _distinct([(m, shown.get(m), d.span) for m in d.members], f"members of {d.name}", report)
        elif isinstance(d, n.Const):
            _name_ok(d.display, report)
            globals_.append((d.name, d.display, d.span))
        elif isinstance(d, n.Mechanic):
            _mechanic(d, report)
            globals_.append((d.name, d.display, d.span))
        elif isinstance(d, n.Table):
            _name_ok(d.display, report)
            for prm in d.params:
                _name_ok(prm.display, report)
            _distinct([(prm.name, prm.display, prm.span) for prm in d.params], f"keys of {d.name}", report)
            if isinstance(d.returns, n.RecordType):
                shown = dict(d.returns.displays)
                for ph in shown.values():
                    _name_ok(ph, report)
                _distinct([(f, shown.get(f), d.returns.span) for f, _ in d.returns.fields], f"fields of {d.name}",
                          report)
            globals_.append((d.name, d.display, d.span))
        elif isinstance(d, n.Check) and d.finding is not None:
            _sentence_ok(d.finding, report)
            allowed = [b.name for b in d.bindings]
            if isinstance(d.claim, n.Compare) and d.claim.op in ("==", "!=", "<", "<=", ">", ">="):
                allowed += ["left", "right"]
            _placeholders(d.finding, allowed, report, "a finding names the two sides of the check's comparison, "
                          "{left} and {right}, a binding of the check, or a field of a bound row ({row.cost})",
                          dotted=[b.name for b in d.bindings])
    # across the book: a mechanic, a table or a constant a player could mistake for another
    _distinct(globals_, "mechanics, tables, constants and enumerations of the book", report, words_only=True)


def _mechanic(d: n.Mechanic, report):
    _name_ok(d.display, report)
    _name_ok(d.result_display, report)
    for prm in d.params:
        _name_ok(prm.display, report)
    rolls = [s for s in d.body if isinstance(s, n.Roll)]
    for s in rolls:
        _name_ok(s.display, report)
    _distinct([(prm.name, prm.display, prm.span) for prm in d.params] + [(s.name, s.display, s.span) for s in rolls],
              f"inputs of {d.name}", report)
    if d.question is not None:
        _sentence_ok(d.question, report)
        for name, col in placeholders(d.question.text):
            report(_at(d.question, col), f"a question cannot name an input: {{{name}}}",
                   "the question is shown before any input is given; name inputs in the answer "
                   "(\"answer \\\"needs {result}+ at {range} inches\\\"\"), or write {{ for a brace")
    if d.answer is not None:
        _sentence_ok(d.answer, report)
        _placeholders(d.answer, ["result"] + [prm.name for prm in d.params], report,
                      "an answer names the result, {result}, or a parameter of the mechanic")


def _name_ok(ph, report):
    if ph is None:
        return
    if not ph.text.strip():
        report(ph.span, "a display form cannot be empty", "write the words players see, e.g. called \"Under Fire\", "
               "or leave `called` out for the default made from the name")
    elif "\n" in ph.text or "\t" in ph.text:
        report(ph.span, "a display form is one line of words", "write it without \\n or \\t")
    elif len(ph.text) > MAX_NAME:
        report(ph.span, f"a display form is a name: at most {MAX_NAME} characters (this one has {len(ph.text)})",
               "put the explanation in the docstring or the rule's prose")
    elif "{" in ph.text or "}" in ph.text:
        report(ph.span, "a display form cannot hold { or }", "braces mark the placeholders of an answer or a finding")


def _sentence_ok(ph, report):
    if not ph.text.strip():
        report(ph.span, "these words cannot be empty", "write the sentence, or leave the clause out for the default")
    elif len(ph.text) > MAX_SENTENCE:
        report(ph.span, f"at most {MAX_SENTENCE} characters (this has {len(ph.text)})",
               "keep it to one sentence; the rule's prose explains")


def _placeholders(ph, allowed, report, hint, dotted=()):
    """Each `{name}` of the phrase is one of `allowed`, or `{binding.field}` of a binding in `dotted`."""
    for name, col in placeholders(ph.text):
        if name not in allowed and not ("." in name and name.split(".", 1)[0] in dotted):
            report(_at(ph, col), f"unknown placeholder {{{name}}}",
                   (did_you_mean(name, allowed) + " " if did_you_mean(name, allowed) else "") + hint
                   + "; write {{ for a brace")


def _at(ph, col: int) -> n.Span:
    """The span of the character `col` of a phrase's text (after its opening quote)."""
    sp = ph.span
    return n.Span(sp.file, sp.line, sp.column + 1 + col)


def _distinct(items, scope: str, report, words_only: bool = False):
    """No two items of a scope read the same: each item is (identifier, Phrase or None,
    span); its readings are its display form (the default when none) and, unless
    `words_only`, its identifier.  A clash is reported at the later item's words."""
    seen = {}
    for ident, ph, span in items:
        shown = ph.text if ph is not None and ph.text.strip() else words(ident)
        readings = {fold(shown)} if words_only else {fold(shown), fold(ident)}
        me = (ident, ph.span if ph is not None else span, f"{ident} (called \"{shown}\")" if ph is not None else ident,
              ph is not None)
        for r in sorted(readings):
            if r in seen and seen[r][0] != ident:
                other = seen[r]
                # said at the words that make the clash: this item's, or the earlier one's when only it has words
                at, to = (other, me) if other[3] and not me[3] else (me, other)
                report(at[1], f"{at[2]} reads the same as {to[2]} among the {scope}",
                       "players (and the command line, which reads either form) could not tell them apart: "
                       "give one of them other words with called \"...\"",
                       related=[Related.at(to[1], f"{to[0]} is declared here")])
                break
        for r in readings:
            seen.setdefault(r, me)
