"""The rulebook AST: frozen dataclasses, each carrying the source span it came from.

The parser builds these from lark's tree; the checks read them; the outputs
(resolvers, docs, index) consume them.  Nothing here knows about lark, so the
AST can be pickled into the compile cache and handed to Sphinx unchanged.

Over 500 lines because it is the whole node set of the language, one small frozen
dataclass per node and nothing else: split, the node set would be scattered over
several modules, and a reader (or the author of a visitor, which needs a method per
node) could no longer see every node in one place.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union


@dataclass(frozen=True)
class Span:
    file: str
    line: int
    column: int
    end_line: int = 0
    end_column: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


NOWHERE = Span("<builtin>", 0, 0)


# ---------------------------------------------------------------- expressions
@dataclass(frozen=True)
class Expr:
    span: Span


@dataclass(frozen=True)
class Literal(Expr):
    value: object          # int, Fraction, str, bool, or ABSENT


@dataclass(frozen=True)
class Name(Expr):
    name: str


@dataclass(frozen=True)
class BinOp(Expr):
    op: str                # + - * / %
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Compare(Expr):
    op: str                # == != < <= > >= in notin
    left: Expr
    right: Expr


@dataclass(frozen=True)
class BoolOp(Expr):
    op: str                # and / or
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Not(Expr):
    operand: Expr


@dataclass(frozen=True)
class Neg(Expr):
    operand: Expr


@dataclass(frozen=True)
class IfElse(Expr):
    cond: Expr
    then: Expr
    orelse: Expr


@dataclass(frozen=True)
class RangeExpr(Expr):
    low: Expr
    high: Expr


@dataclass(frozen=True)
class ListLit(Expr):
    items: tuple


@dataclass(frozen=True)
class SetLit(Expr):
    items: tuple


@dataclass(frozen=True)
class Comprehension(Expr):
    """`[elem for var in source if cond]`, also the argument of count/sum/max..."""
    elem: Expr
    var: str
    source: Expr
    cond: Optional[Expr]


@dataclass(frozen=True)
class Call(Expr):
    func: Expr
    args: tuple            # of Expr
    kwargs: tuple          # of (name, Expr)
    mode: str = ""         # round's rounding mode (`round(x, up)`): a word of the language, not an argument


@dataclass(frozen=True)
class Attr(Expr):
    obj: Expr
    name: str


@dataclass(frozen=True)
class Index(Expr):
    obj: Expr
    index: Expr


@dataclass(frozen=True)
class Returned(Expr):
    """An inlined mechanic's result, converted to its declared type as the call would.

    Never written in a book nor built by the parser: the odds engine's inlining pass
    (`odds.aggregate_plan`) makes it when it replaces a call by the callee's statements, and
    compiles it (`AggregateCompiler.visit_Returned`); a compiler-only node, like Jinja2's
    `InternalName`.  The checks, the resolver and the other back ends never meet one."""
    expr: Expr
    mechanic: str


# ---------------------------------------------------------------- words for players
@dataclass(frozen=True)
class Phrase:
    """Words a book gives for players, where it wrote them: a name's display form
    (`under_fire called "Under Fire"`), a mechanic's question and answer, a check's
    finding.  Identifiers stay what the language, the JSON and `book:id` use; a
    `Phrase` is what pages and the CLI's text show instead (rules_dsl/language/display.py)."""
    span: Span
    text: str


# ---------------------------------------------------------------------- types
@dataclass(frozen=True)
class Type:
    span: Span


@dataclass(frozen=True)
class NamedType(Type):
    name: str              # int, bool, text, number, an enum, a die


@dataclass(frozen=True)
class RangeType(Type):
    low: int
    high: int


@dataclass(frozen=True)
class ListType(Type):
    item: Type


@dataclass(frozen=True)
class UnionType(Type):
    options: tuple         # of Type


@dataclass(frozen=True)
class RecordType(Type):
    fields: tuple          # of (name, Type)
    displays: tuple = ()   # of (field name, Phrase): `move called "Move": 3..9`


# ----------------------------------------------------------------- statements
@dataclass(frozen=True)
class Let:
    span: Span
    name: str
    value: Expr


@dataclass(frozen=True)
class DiceSpec:
    """What a `roll` statement throws: one die, a pool, a chain, or one die or a pool
    that re-rolls some faces once (`reroll`) or adds a die for some faces (`explode`)."""
    span: Span
    kind: str              # "one" | "pool" | "chain" | "reroll" | "explode"
    die: str
    count: Optional[Expr] = None   # reroll/explode: None for a single die
    on: Optional[Expr] = None      # chain: faces that succeed on the first roll;
                                   # reroll: faces re-rolled once; explode: faces that add a die
    then: Optional[Expr] = None    # chain: faces that succeed on later rolls
    cap: Optional[Expr] = None     # explode: `up to N` extra dice (None: the default)

    def parts(self):
        """The expressions of the spec (count, faces, cap), for passes over every expression."""
        return tuple(e for e in (self.count, self.on, self.then, self.cap) if e is not None)


@dataclass(frozen=True)
class Roll:
    span: Span
    name: str
    dice: DiceSpec
    display: Optional[Phrase] = None


@dataclass(frozen=True)
class Require:
    span: Span
    cond: Expr
    message: str


# --------------------------------------------------------------- declarations
@dataclass(frozen=True)
class Param:
    span: Span
    name: str
    type: Type
    default: Optional[Expr] = None
    display: Optional[Phrase] = None


@dataclass(frozen=True)
class Const:
    span: Span
    name: str
    value: Expr
    doc: str = ""
    display: Optional[Phrase] = None


@dataclass(frozen=True)
class Enum:
    span: Span
    name: str
    members: tuple         # of str
    printed: tuple = ()    # (member, how the source prints it): `enum e { impossible "–" }`
    displays: tuple = ()   # (member, Phrase): `enum e { under_fire called "Under Fire" }`
    display: Optional[Phrase] = None   # the enum's own words: `enum suppression_state called "tokens" {...}`


@dataclass(frozen=True)
class Mechanic:
    span: Span
    name: str
    params: tuple          # of Param
    returns: Type
    doc: str
    body: tuple            # of Let | Roll | Require
    result: Expr
    display: Optional[Phrase] = None          # `mechanic token_dice called "dice to roll"(...)`
    result_display: Optional[Phrase] = None   # `-> 2..3 called "dice"`
    question: Optional[Phrase] = None         # `question "How many dice does the unit roll?"`
    answer: Optional[Phrase] = None           # `answer "it rolls {result} dice"`


@dataclass(frozen=True)
class Cell:
    span: Span
    value: object          # literal value, a (low, high) range key, or ABSENT


@dataclass(frozen=True)
class Table:
    span: Span
    name: str
    params: tuple          # of Param (the keys)
    returns: Type          # RecordType for several value columns
    doc: str
    grid: bool
    header: tuple          # of Cell (the first row: column labels, or a grid's column keys)
    rows: tuple            # of tuple of Cell
    display: Optional[Phrase] = None


@dataclass(frozen=True)
class Binding:
    span: Span
    name: str
    source: Expr


# what a failing case of a check is (`reports gap`); "disagreement" is the default
CHECK_REPORTS = ("gap", "disagreement")


@dataclass(frozen=True)
class Check:
    span: Span
    name: str
    doc: str
    bindings: tuple        # of Binding
    where: Optional[Expr]
    claim: Expr
    finding: Optional[Phrase] = None   # a failing case in words: `finding "printed {left} gc; ..."`
    # what a failing case is (`reports gap`: something named or priced with no definition or
    # formula; else two printed things disagree), and `follows NAME`: the check whose failure
    # this one's follows from, so that its findings are consequences grouped under that cause
    reports: str = "disagreement"
    follows: Optional[str] = None
    follows_span: Optional[Span] = None


@dataclass(frozen=True)
class Priced:
    """`priced NAME "title" { for x in xs [where c]: COST per EFFECT }`: a design view.
    For each case, what it costs (a number: points, gc) per what its dice give on
    average: EFFECT's exact mean (or, for a condition, its chance), computed by the
    odds engine.  Nothing is claimed: the view shows the numbers (design.py)."""
    span: Span
    name: str
    doc: str
    bindings: tuple        # of Binding
    where: Optional[Expr]
    cost: Expr
    effect: Expr


Decl = Union[Const, Enum, Mechanic, Table, Check, Priced]


# ----------------------------------------------------------- prose and rules
@dataclass(frozen=True)
class Ref:
    span: Span
    book: Optional[str]    # None: same book
    rule: str
    label: Optional[str]


@dataclass(frozen=True)
class Prose:
    span: Span
    text: str              # dedented; [[refs]] kept in place
    refs: tuple            # of Ref


NOTE_KINDS = ("clarification", "interpretation", "erratum", "absent")


@dataclass(frozen=True)
class Note:
    span: Span
    kind: str
    text: Prose


@dataclass(frozen=True)
class ExpectedError:
    """An example line that expects an error instead of a value.

    `InputError: yours` expects a mechanic or table to reject the argument
    named `yours`; `Error: some words` expects any evaluation error whose
    message contains those words.  `detail` (words after the parameter) must
    appear in the message too."""
    span: Span
    kind: str              # "InputError" or "Error"
    param: str             # for InputError: the parameter named; else ""
    detail: str


@dataclass(frozen=True)
class Approx:
    """An expected value as a book prints it, rounded: `about 82.6%`, `about 1.33`.
    The value got must round to `value` at `places` decimal places (as a percentage
    when `percent`)."""
    span: Span
    value: object          # Fraction: the number written
    places: int
    percent: bool


@dataclass(frozen=True)
class ExampleCase:
    """One `>>> expression` of a worked example and what it must give.

    Both sides are expressions of the rules language, parsed by the book's own
    grammar: the expected side is a value (numbers, fractions such as 7/2,
    true/false, enum members and die faces, "text", lists, sets, absent)."""
    span: Span             # of the expression after `>>>`
    source: str            # the expression as written (continuation lines joined)
    expr: Expr
    expected_text: str
    expected: Optional[Expr] = None
    error: Optional[ExpectedError] = None
    approx: Optional[Approx] = None    # `about 82.6%`


@dataclass(frozen=True)
class Example:
    span: Span             # of the opening triple quote
    title: str
    text: str              # dedented text, as shown on the site
    first_line: int        # source line of the text's first line
    cases: tuple = ()      # of ExampleCase, in order


@dataclass(frozen=True)
class OddsInputs:
    """`odds attack(shots=3, armour=4)`: inputs the designer chose for the exact-odds
    table of a dice mechanic on the website (instead of the ones the site picks)."""
    span: Span
    call: "Call"


@dataclass(frozen=True)
class Use:
    """A name the rule's source text relies on (`uses "Weapons Skill"`), where it is written."""
    span: Span
    name: str


@dataclass(frozen=True)
class Rule:
    span: Span
    id: str
    title: str
    aliases: tuple = ()
    keywords: tuple = ()
    source: str = ""
    prose: tuple = ()      # of Prose
    flavour: tuple = ()    # of Prose
    notes: tuple = ()      # of Note
    examples: tuple = ()   # of Example
    decls: tuple = ()      # of Decl
    uses: tuple = ()       # of Use
    odds: tuple = ()       # of OddsInputs


@dataclass(frozen=True)
class Section:
    span: Span
    id: str
    title: str
    prose: tuple = ()
    items: tuple = ()      # of Section | Rule | Decl


@dataclass(frozen=True)
class Die:
    span: Span
    name: str
    faces: tuple           # standard dN: ints 1..N; custom: symbol names, repeated per face
    custom: bool
    displays: tuple = ()   # (face, Phrase): `die dust { army called "army symbol": 2, ... }`


@dataclass(frozen=True)
class VocabularyGroup:
    """`vocabulary "shoot", "fire" -> "attack"` in a book header: phrases players use for
    the same thing, and broader ones; used by search only (textsearch.py)."""
    span: Span
    phrases: tuple         # of str
    broader: tuple = ()    # of str


@dataclass(frozen=True)
class Named:
    """A name written in a list (`rules a, b`, `tables t`), with where it is written."""
    span: Span
    name: str


@dataclass(frozen=True)
class QuickReference:
    """`quick reference { ... }` in a book header: what the book's front page shows a
    player at a glance (docs/language.md, "The front door"); each part optional."""
    span: Span
    dice: Optional[Prose] = None     # how the game's dice read, in a player's words
    turn: Optional[Prose] = None     # the turn sequence (its bullet items are its steps, in order)
    tables: tuple = ()               # of Named: the key tables, shown whole
    rules: tuple = ()                # of Named: the most looked-up rules (or sections)


@dataclass(frozen=True)
class Header:
    span: Span
    id: str
    title: str = ""
    edition: str = ""
    source: str = ""
    units: str = ""
    findings: str = "report"   # "fail": a finding fails `rules check` and pytest (a designer's own game)
    dice: tuple = ()       # of Die
    prose: tuple = ()
    vocabulary: tuple = ()  # of VocabularyGroup
    about: Optional[Prose] = None            # what the game is, for a player choosing one
    start: Optional[Named] = None            # the rule or section a new player reads first
    quick: Optional[QuickReference] = None   # the front page's quick reference

    def front_texts(self) -> tuple:
        """The prose of the front door (about, dice, turn): checked for references as any prose."""
        q = self.quick
        return tuple(p for p in (self.about, q and q.dice, q and q.turn) if p is not None)


@dataclass(frozen=True)
class SourceFile:
    """One parsed `.rules` file: an optional header and its top-level items.

    `diagnostics` holds what the tree builder found wrong after the grammar
    accepted the file (an unknown note kind, a malformed reference, a number too
    large): the tree is still whole, so the semantic passes run too and one
    `rules check` reports both."""
    path: str
    header: Optional[Header]
    items: tuple
    diagnostics: tuple = ()
    skipped: tuple = ()        # names and ids declared in items left out after a syntax error (recovery.py)
    recovered: bool = False    # syntax errors were found: `items` is what parsed once they were left out


def iter_nodes(node):
    """Every AST node inside `node` (itself included), depth first.

    The one generic walk over the tree: callers filter by node type (calls made,
    names used, rolls declared) instead of each writing its own visitor.
    """
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, (tuple, list)):
            stack.extend(reversed(x))
            continue
        if not hasattr(x, "__dataclass_fields__") or isinstance(x, Span):
            continue
        yield x
        children = [getattr(x, f) for f in x.__dataclass_fields__ if f != "span"]
        stack.extend(reversed(children))


# ----------------------------------------------------------------------- layers
@dataclass(frozen=True)
class LayerHeader:
    """`layer errata on xenotactics { title "..." ... }`: a layer's name, the book it
    amends (a book's id, or another layer's: `xenotactics+errata`) and its words."""
    span: Span
    name: str
    base: str
    base_span: Span
    title: str = ""
    edition: str = ""
    source: str = ""
    prose: tuple = ()      # of Prose


@dataclass(frozen=True)
class Change:
    """One change of a layer, as an errata sheet lists it: a verb, what it amends, the
    new thing, and why (`because`).  layers.py applies it to the base book's AST.

    `what` says what kind of thing `target` names: "rule", "section", "mechanic",
    "table", "const", "enum", "check" (a whole one), "note", "example", "aliases",
    "keywords", "title", "text" (a rule's parts), "question", "answer" (a mechanic's),
    "row", "cell" (a table's: `keys` are the row's keys, `field` a record's column),
    "member" (an enum's), "called" (a name's words: `field` names a parameter, a
    member, a key, a field or a roll of `target`, or "result")."""
    span: Span
    verb: str              # "replace" | "add" | "remove" | "change"
    what: str
    target: str
    target_span: Span
    keys: tuple = ()       # of (key name or "", Expr): a table row's keys
    field: str = ""
    index: int = 0         # a note's number, from 1
    title: str = ""        # an example's title
    value: object = None   # the new thing: a Rule, a Section, a declaration, Prose, a Note, an
                           # Example, a row (tuple of Cell), an Expr, a str, a tuple of str
    place: tuple = ()      # where an added rule or section goes: (how, id, Span), how in
                           # "section" (at the end of it), "after", "before"
    reason: Optional[Prose] = None     # `because "..."`
    text: str = ""         # the change's first line as written, for messages


@dataclass(frozen=True)
class LayerFile:
    """One parsed layer file: its header and its changes, in order (diagnostics as
    for `SourceFile`)."""
    path: str
    header: LayerHeader
    changes: tuple
    diagnostics: tuple = ()
    skipped: tuple = ()        # as for `SourceFile`: a layer is not recovered after a syntax error
    recovered: bool = False    # (its first syntax error is reported), so these stay empty

    @property
    def items(self) -> tuple:
        """The rules, sections and declarations the changes bring (an editor's outline)."""
        return tuple(c.value for c in self.changes
                     if isinstance(c.value, (Rule, Section, Const, Enum, Mechanic, Table, Check)))
