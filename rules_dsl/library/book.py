"""The Book a user holds: rules in order and by id, sections, notes, examples,
findings, and the mechanics as real callables.

`Book` wraps a checked `BookAST` and its `CompiledBook`; findings (from checks)
and example results are computed on first use, since most lookups need neither.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..language import nodes as n
from ..compiler import CompiledBook, case_text
from ..errors import InputError, NotFound
from ..evaluation.examples import ExampleResult

__all__ = ["Book", "RuleView", "Finding", "ExampleResult"]  # ExampleResult: what run_examples returns
from ..language.model import BookAST, rules_of, sections_of


@dataclass(frozen=True)
class RuleView:
    """A rule with its place in the book."""
    node: n.Rule
    book: str
    section_ids: tuple
    section_titles: tuple

    id = property(lambda self: self.node.id)
    title = property(lambda self: self.node.title)
    aliases = property(lambda self: self.node.aliases)
    keywords = property(lambda self: self.node.keywords)
    source = property(lambda self: self.node.source)
    notes = property(lambda self: self.node.notes)
    examples = property(lambda self: self.node.examples)
    span = property(lambda self: self.node.span)

    @property
    def text(self) -> str:
        return "\n\n".join(p.text for p in self.node.prose)

    @property
    def section(self) -> str:
        return " > ".join(self.section_titles)

    @property
    def mechanic_names(self):
        return [d.name for d in self.node.decls if isinstance(d, n.Mechanic)]

    @property
    def table_names(self):
        return [d.name for d in self.node.decls if isinstance(d, n.Table)]

    @property
    def ref(self) -> str:
        return f"{self.book}:{self.id}"


@dataclass(frozen=True)
class Finding:
    """A fact about the source found by a check (like an erratum): book, rule, where, what.

    Kinds: `disagreement`, one printed value (a table row, or a grid cell) that a
    check finds wrong, located on its row and owned by the rule that prints it;
    `check-summary`, a failing check as a whole, located at the check, with every
    failing case (those with no printed value behind them too); `check-error`, a
    check that cannot run; `undefined-name`, a name a rule `uses` that no rule of
    the book defines; `unchecked-rows`, a table some check sweeps with printed rows
    that no check reads (`Book.coverage_findings`).  `printed` names the printed entry
    (`table(key=value)`), `check_location` is where the check is written.  `sentences`
    says each case in words, for players (the check's `finding` phrase, else display
    forms: wording.py).  `category` says what the finding is (a disagreement, a gap, a
    consequence of the failing check `cause`, coverage, an error: `findings.py`)."""
    book: str
    rule: str
    kind: str
    check: str
    message: str
    location: str
    cases: tuple = ()
    printed: str = ""
    check_location: str = ""
    sentences: tuple = ()
    category: str = ""
    cause: str = ""
    said: str = ""        # the finding in one line with the check's `finding` sentences, when it writes one

    @property
    def text(self) -> str:
        """The finding in one line: in the book's own words where its check writes a
        `finding` sentence, else the comparison as `message` gives it."""
        return self.said or self.message

    def as_json(self) -> dict:
        from .findings import category_of
        return {"book": self.book, "rule": self.rule, "kind": self.kind, "check": self.check,
                "message": self.message, "location": self.location, "cases": list(self.cases),
                "printed": self.printed, "check_location": self.check_location,
                "sentences": list(self.sentences),
                "category": self.category or category_of(self.kind, None), "cause": self.cause}


class Book:
    def __init__(self, ast: BookAST, compiled: CompiledBook):
        self.ast, self.compiled = ast, compiled
        h = ast.header
        self.id, self.title, self.edition, self.source, self.units = h.id, h.title, h.edition, h.source, h.units
        # `findings fail` in the header: the book is a designer's own game, whose
        # checks must hold (a finding fails `rules check` and pytest, as --strict)
        self.findings_fail = h.findings == "fail"
        # `vocabulary` lines: ((phrases...), (broader...)) groups for search (textsearch.py)
        self.vocabulary = tuple((g.phrases, g.broader) for g in h.vocabulary)
        self.dice = compiled.dice
        self.rules = [RuleView(p.node, self.id, p.section_ids, p.section_titles) for p in rules_of(ast)]
        self.rules_by_id = {r.id: r for r in self.rules}
        self.sections = [p for p in sections_of(ast)]
        self.mechanics = compiled.mechanics
        self.tables = compiled.tables
        self.constants = {k: compiled.const(k) for k in compiled.syms.consts}
        self.enums = compiled.enums
        self._findings = None
        self._runner = None

    @property
    def warnings(self) -> list:
        """Diagnostics of severity "warning" (the book compiles; something looks wrong)."""
        return list(self.compiled.syms.warnings)

    def __repr__(self):
        return f"<Book {self.id}: {len(self.rules)} rules, {len(self.mechanics)} mechanics>"

    # -- layers (errata, editions, house rules: layers.py)
    @property
    def layers(self) -> tuple:
        """The layers this book is made of, the lowest first (`layers.LayerInfo`: each
        change, where it is written and why); () for a book that is no layer."""
        return self.ast.layers

    @property
    def base_id(self) -> Optional[str]:
        """The id of the book the top layer amends (None for a book that is no layer)."""
        return self.ast.layers[-1].base if self.ast.layers else None

    def changes_of(self, rule_id: str) -> list:
        """The changes of this book's layers that changed the rule, in order."""
        return [c for layer in self.ast.layers for c in layer.changes_of(rule_id)]

    @property
    def display(self):
        """The display forms of the book's names (a `rules_dsl.language.display.Names`): what
        players read in place of identifiers (`book.display.member("suppression_state",
        "under_fire")` -> "Under Fire"), and `value(v)` for any value in words."""
        from ..language.display import names_of
        return names_of(self.compiled)

    # -- lookups
    def rule(self, rule_id: str) -> RuleView:
        try:
            return self.rules_by_id[rule_id]
        except KeyError:
            raise NotFound("rule", rule_id, list(self.rules_by_id), where=self.id) from None

    def mechanic(self, name: str):
        try:
            return self.mechanics[name]
        except KeyError:
            raise NotFound("mechanic", name, list(self.mechanics) + list(self.tables), where=self.id) from None

    def __getattr__(self, name):
        # book.opposed_target(5, 3): mechanics and tables as attributes
        comp = self.__dict__.get("compiled")
        if comp is not None:
            if name in comp.mechanics:
                return comp.mechanics[name]
            if name in comp.tables:
                return comp.tables[name]
        raise AttributeError(name)

    def rule_of(self, decl_name: str) -> Optional[str]:
        """The id of the rule that declares a mechanic, table or constant."""
        return self.compiled.syms.owner.get(decl_name) or None

    @property
    def notes(self):
        return [(r.id, note) for r in self.rules for note in r.notes]

    @property
    def examples(self):
        return [(r.id, ex) for r in self.rules for ex in r.examples]

    def odds(self, mechanic: str, **kwargs):
        """The exact distribution of a dice mechanic's result (see rules_dsl.odds), within
        a budget: `_budget=rules_dsl.odds.Budget(seconds=60)` allows more than the default
        few seconds; past it, `rules_dsl.odds.TooLarge` says what was too large and what
        to try."""
        from ..odds import distribution
        return distribution(self.mechanic(mechanic), **kwargs)

    def explain(self, mechanic: str, *args, rolls=None, seed=None, **kwargs):
        """Call a mechanic and show its working: an :class:`~rules_dsl.evaluation.explain.Explanation`,
        a tree of steps (calls, lets, branches, table reads, rolls, requires) citing
        the rule, the source line and the notes behind each.  Its `result` is what
        the plain call gives with the same arguments, rolls and seed.  A table's
        name explains one lookup by its keys."""
        from ..evaluation.explain import explain_call, explain_lookup
        if mechanic in self.tables and mechanic not in self.mechanics:
            if rolls or seed is not None:
                raise InputError(mechanic, "seed" if seed is not None else "rolls", seed if seed is not None else rolls,
                                 "nothing: a table rolls no dice")
            return explain_lookup(self.compiled, mechanic, *args, **kwargs)
        self.mechanic(mechanic)    # an unknown name: NotFound with suggestions
        return explain_call(self.compiled, mechanic, *args, rolls=rolls, seed=seed, **kwargs)

    def explain_example(self, rule_id: str, example) -> list:
        """The working of each ``>>>`` line of one worked example (an :class:`~rules_dsl.evaluation.explain.Explanation` each)."""
        from ..evaluation.explain import explain_case
        return [explain_case(self.compiled, rule_id, case) for case in example.cases]

    # -- checks and examples
    @property
    def findings(self):
        if self._findings is None:
            self._findings = self.run_checks()
        return self._findings

    def run_checks(self):
        out, seen = [], {}
        for name in self.compiled.checks:
            seen[name] = set()
            out.extend(self.run_check(name, seen[name]))
        out.extend(self.coverage_findings(seen))
        out.extend(self.name_findings())
        from .findings import classify
        return classify(out, {k: c.node for k, c in self.compiled.checks.items()})

    @property
    def transcribes(self) -> bool:
        """True when the book restates a published source (its header has a `source` line):
        then its findings are facts about that source; without one, the book is a game of
        its own and its findings are mistakes in it to fix."""
        return bool(self.source)

    def coverage_findings(self, seen: dict | None = None) -> list:
        """One `unchecked-rows` finding per table that a check sweeps (reads at two or
        more of its printed entries) but whose printed rows are not all read by some
        check: a consistency check over a printed table should cover every row the
        table prints, or a misprint in the rows it stops short of goes unseen.  A row
        a check's domain binds counts as read even when a `where` leaves it out (the
        check chose to pass it over).  `seen`: check name -> the entries it read, as
        `CheckFn.run(seen)` fills them (each check is run for it when not given)."""
        if seen is None:
            seen = {}
            for name, chk in self.compiled.checks.items():
                seen[name] = set()
                try:
                    chk.run(seen[name])
                except Exception:       # a check that cannot run is a check-error finding already
                    pass
        read, sweepers = {}, {}
        for name, entries in seen.items():
            per_table = {}
            for p in entries:
                per_table.setdefault(p.table, set()).add((p.span, p.keys))
            for table, got in per_table.items():
                read.setdefault(table, set()).update(got)
                if len(got) >= 2:
                    sweepers.setdefault(table, []).append(name)
        out = []
        for table, checks in sweepers.items():
            t = self.compiled.tables.get(table)
            if t is None:
                continue
            missed = [i for i, (keys, _) in enumerate(t.entries) if (t.spans[i], keys) not in read[table]]
            if not missed:
                continue
            labels = [self._printed_label(t.printed(i)) for i in missed]
            shown = ", ".join(f"{label} (line {t.spans[i].line})" for label, i in zip(labels[:8], missed))
            more = f" and {len(missed) - 8} more" if len(missed) > 8 else ""
            which = ", ".join(sorted(checks))
            msg = (f"table {table} is checked ({which}) but {len(missed)} of its {len(t.entries)} printed "
                   f"entries are read by no check: {shown}{more}; a misprint there would go unseen")
            first = t.spans[missed[0]]
            out.append(Finding(self.id, self.rule_of(table) or "", "unchecked-rows", ", ".join(sorted(checks)), msg,
                               str(first), tuple(labels), labels[0],
                               str(self.compiled.checks[sorted(checks)[0]].node.span)))
        return out

    def name_findings(self) -> list:
        """One `undefined-name` finding per name a rule `uses` that no rule of the book
        defines (by title or alias, compared as `checks.name_key` says)."""
        from ..analysis.checks import undefined_names
        out = []
        for rule_id, use, hint in undefined_names(self.ast, self.compiled.defined_names):
            msg = (f"'{use.name}' is used by this rule and no rule of the book defines it "
                   f"(no rule has it as its title or an alias)" + (f"; {hint}" if hint else ""))
            out.append(Finding(self.id, rule_id, "undefined-name", "", msg, str(use.span), (), use.name))
        return out

    def defined(self, name: str) -> bool:
        """True when a rule of this book has `name` as its title or an alias."""
        return self.compiled.defined(name)

    def definer(self, name: str) -> Optional[str]:
        """The id of the rule whose title or alias is `name`, or None."""
        from ..analysis.checks import name_key
        return self.compiled.defined_names.get(name_key(name))

    def run_check(self, name: str, seen: set | None = None) -> list:
        """Run one check; its findings (none when it holds over its whole domain).  A set
        `seen` receives the printed entries it read (see `coverage_findings`)."""
        try:
            chk = self.compiled.checks[name]
        except KeyError:
            raise NotFound("check", name, list(self.compiled.checks), where=self.id) from None
        try:
            total, failures = chk.run(seen)
        except Exception as e:  # a check that cannot run is itself a finding about our source
            return [Finding(self.id, chk.rule_id, "check-error", name, f"{chk.node.doc or name}: {e}",
                            str(chk.node.span))]
        if not failures:
            return []
        doc, at = chk.node.doc or name, str(chk.node.span)
        from ..language.wording import finding_sentence
        names = self.display

        def said(cases):
            return tuple(finding_sentence(names, chk.node, c) for c in cases)
        worded = chk.node.finding is not None

        def words(head, cases):
            return f"{head}: " + "; ".join(said(cases)) if worded else ""
        out = []
        by_value = {}      # the first printed value behind each case -> its cases
        for c in failures:
            if c.get("printed"):
                by_value.setdefault(c["printed"][0], []).append(c)
        for p, cases in by_value.items():
            label = self._printed_label(p)
            shown = "; ".join(case_text(c) for c in cases[:12])
            more = f"; and {len(cases) - 12} more" if len(cases) > 12 else ""
            out.append(Finding(self.id, self.rule_of(p.table) or chk.rule_id, "disagreement", name,
                               f"{doc}: the printed {label} (line {p.span.line}) disagrees: {shown}{more}",
                               str(p.span), tuple(case_text(c) for c in cases), label, at, said(cases),
                               said=words(f"{doc}: the printed {label} (line {p.span.line})", cases)))
        shown = "; ".join(case_text(c) for c in failures[:12])
        more = f"; and {len(failures) - 12} more" if len(failures) > 12 else ""
        out.append(Finding(self.id, chk.rule_id, "check-summary", name,
                           f"{doc}: fails in {len(failures)} of {total} cases: {shown}{more}",
                           at, tuple(case_text(c) for c in failures), "", at, said(failures),
                           said=words(f"{doc}: not so in {len(failures)} of {total} cases", failures)))
        return out

    def _printed_label(self, p) -> str:
        """`superterrans_prices(item=Sniper)`: a printed entry by its table and keys."""
        from ..language.values import show
        t = self.compiled.tables.get(p.table)
        names = [k.name for k in t.keys] if t is not None else [f"key{i + 1}" for i in range(len(p.keys))]
        return f"{p.table}(" + ", ".join(f"{k}={show(v)}" for k, v in zip(names, p.keys)) + ")"

    def example_cases(self):
        """(rule id, Example) for every worked example, in book order."""
        return [(r.id, ex) for r in self.rules for ex in r.examples]

    def run_example(self, rule_id: str, example):
        """Run one worked example through the language's own evaluator (never Python's)."""
        from ..evaluation.examples import ExampleRunner

        if self._runner is None:
            self._runner = ExampleRunner(self.id, self.compiled)
        result = self._runner.run(rule_id, example)
        if not result.passed and self.ast.layers:     # which change of a layer it follows from
            from .layer_causes import explain_example
            result = explain_example(self.ast, result, example)
        return result

    def run_examples(self):
        return [self.run_example(rule_id, ex) for rule_id, ex in self.example_cases()]
