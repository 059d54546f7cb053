"""A small library of books made for the rebuild property (tests/test_rebuild_property.py),
held as a model, written out as `.rules` sources, and edited one small change at a time.

Every edit a designer makes to a book has a kind here: prose, titles, aliases and keywords,
`uses`, notes, `odds` lines (sweeps too), a mechanic's body, a table's cells, a constant, a
worked example, a `priced` view; the book's front door (`about`, `start`, the `quick
reference`'s dice, turn, tables and rules); adding, moving and deleting rules, sections
(with their rules) and whole books; cross-references inside a book and between books. The sources written are always valid
(every worked example passes, every reference has a target: a reference whose target is
gone is written as plain words), so a build with `-W` succeeds and what is compared is
the output, not an error.

An edit is data, `(kind, a, b)`: `a` and `b` are integers that pick the target and the
new value modulo what there is (hypothesis draws them and shrinks them), so every edit
applies to whatever the library holds at that point.
"""
from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WORDS = ("cover", "smoke", "beast", "ruins", "charge", "volley", "morale", "flank", "ambush", "bunker",
         "rally", "sniper", "armour", "vehicle", "grenade", "scout", "banner", "trench", "assault", "orders")
NOTE_KINDS = ("clarification", "interpretation", "erratum", "absent")


@dataclass
class Rule:
    id: str
    title: str
    paras: list                      # of lists of tokens: a word, or ("ref", book, rule, strict)
    aliases: list = field(default_factory=list)
    keywords: list = field(default_factory=list)
    uses: list = field(default_factory=list)
    notes: list = field(default_factory=list)           # of (kind, text)
    dice: dict | None = None         # {"cmp": ">=" or ">", "bonus": int, "odds": [(n, target)], "given": [faces],
    #                                   "sweeps": [(n, lo, hi)]: `odds hits(n=N, target=LO..HI)`}
    const: int | None = None         # a constant and a mechanic that adds it
    table: list | None = None        # three values, with a check that each is at most 6
    source: str = ""                 # where the source rulebook says it
    flavour: str = ""                # a quotation that is not a rule
    words: dict = field(default_factory=dict)    # slot -> `called "..."` words (WORD_SLOTS)
    priced: dict | None = None       # a cost view of its dice mechanic: {"most": 1..3, "cost": 0..2, "chance": bool}

    @property
    def name(self) -> str:           # the stem of its declarations' names (ids have no underscore)
        return self.id.replace("-", "_")


@dataclass
class Section:
    id: str
    title: str
    prose: str = ""
    items: list = field(default_factory=list)           # of Rule | Section


@dataclass
class Book:
    id: str
    title: str
    prose: str = ""
    edition: str = ""
    vocabulary: list = field(default_factory=list)     # of (phrases, broader): what players call things
    broken: str = ""                 # "compile": a mechanic reads an unknown name; "example": an example fails
    folder: bool = False             # a folder of files, one per top-level section, and a header file
    sections: list = field(default_factory=list)
    # the front door (docs/language.md): `about` (tokens, as a rule's paragraph), `start` (a rule
    # or section id) and the quick reference {"dice": str | None, "turn": [tokens] | None,
    # "tables": [ids of rules whose chart it lists], "rules": [rule or section ids]}; names
    # that are gone when the book is written are left out, as dangling references are
    about: list | None = None
    start: str | None = None
    quick: dict | None = None


@dataclass
class Library:
    books: list
    counter: int = 100
    real: dict = field(default_factory=dict)     # {file name: text} of real books, edited as text

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"


# ------------------------------------------------------------------ walking
def sections_of(items, out=None, parent=None) -> list:
    """[(section, the list holding it)] of every section, depth first."""
    out = [] if out is None else out
    for it in items:
        if isinstance(it, Section):
            out.append((it, items))
            sections_of(it.items, out)
    return out


def rules_of(book: Book) -> list:
    """[(rule, the list holding it)] of every rule of a book, in order."""
    out = []
    for sec, _ in sections_of(book.sections):
        out.extend((it, sec.items) for it in sec.items if isinstance(it, Rule))
    return out


def all_rules(lib: Library) -> list:
    """[(book, rule, the list holding it)]."""
    return [(b, r, holder) for b in lib.books for r, holder in rules_of(b)]


def rule_ids(lib: Library) -> dict:
    return {b.id: {r.id for r, _ in rules_of(b)} for b in lib.books}


# ------------------------------------------------------------------ writing
def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _para(tokens, book: Book, ids: dict) -> str:
    out = []
    for t in tokens:
        if isinstance(t, tuple):
            _, b, r, strict = t
            if r in ids.get(b, ()) or strict:      # a strict reference stays when its target is gone:
                out.append(f"[[{r}]]" if b == book.id else f"[[{b}:{r}]]")    # the book no longer compiles
            else:
                out.append("elsewhere")          # its target is gone: plain words
        else:
            out.append(t)
    text = " ".join(out)
    return text[0].upper() + text[1:] + "."


def _hits(r: Rule, n: int, target: int, given=None) -> int:
    faces = given if given is not None else []
    hit = sum(1 for f in faces if (f >= target if r.dice["cmp"] == ">=" else f > target))
    return hit + r.dice["bonus"]


#: where a rule's declarations take words (`called "..."`): the dice mechanic, its input n,
#: its roll and its result; the constant; the table and its key
WORD_SLOTS = {"dice": ("mechanic", "n", "roll", "result"), "const": ("const",), "table": ("table", "key")}


def _called(r: Rule, slot: str) -> str:
    return f" called {_q(r.words[slot])}" if slot in r.words else ""


def write_rule(r: Rule, book: Book, ids: dict, pad: str) -> str:
    i = pad + "    "
    lines = [f"{pad}rule {r.id} {_q(r.title)} {{"]
    if r.aliases:
        lines.append(f"{i}aliases " + ", ".join(map(_q, r.aliases)))
    if r.keywords:
        lines.append(f"{i}keywords " + ", ".join(map(_q, r.keywords)))
    if r.uses:
        lines.append(f"{i}uses " + ", ".join(map(_q, r.uses)))
    if r.source:
        lines.append(f"{i}source {_q(r.source)}")
    lines.append(f'{i}"""')
    for k, p in enumerate(r.paras):
        if k:
            lines.append("")
        lines.append(i + _para(p, book, ids))
    lines.append(f'{i}"""')
    if r.flavour:
        lines.append(f'{i}flavour """{r.flavour}"""')
    for kind, text in r.notes:
        lines.append(f"{i}note {kind} {_q(text)}")
    examples = []
    if r.dice is not None:
        d = r.dice
        bonus = f" + {d['bonus']}" if d["bonus"] else ""
        lines += [f"{i}mechanic hits_{r.name}{_called(r, 'mechanic')}(n{_called(r, 'n')}: 1..4, target: 2..6)"
                  f" -> int{_called(r, 'result')}",
                  f"{i}    {_q('How many of n dice score ' + ('at least' if d['cmp'] == '>=' else 'over') + ' target.')}",
                  f"{i}{{", f"{i}    roll dice{_called(r, 'roll')}: n of d6",
                  f"{i}    return count(x for x in dice if x {d['cmp']} target){bonus}", f"{i}}}"]
        for n, target in d["odds"]:
            lines.append(f"{i}odds hits_{r.name}(n={n}, target={target})")
        for n, lo, hi in d.get("sweeps", ()):
            lines.append(f"{i}odds hits_{r.name}(n={n}, target={lo}..{hi})")
        if r.priced is not None:
            p = r.priced
            cost = ("k * 2", f"k + bonus_{r.name}" if r.const is not None else "k + 1", "3")[p["cost"]]
            effect = f"hits_{r.name}(k, 4)" + (" >= 1" if p["chance"] else "")
            lines.append(f"{i}priced cost_{r.name} {_q('What ' + r.title + ' buys')} {{")
            lines.append(f"{i}    for k in 1..{p['most']}: {cost} per {effect}")
            lines.append(f"{i}}}")
        given = d["given"]
        examples.append((f"hits_{r.name}({len(given)}, 4, dice={list(given)})", _hits(r, len(given), 4, given)))
    if r.const is not None:
        lines += [f"{i}const bonus_{r.name}{_called(r, 'const')} = {r.const} {_q('The bonus of ' + r.title)}",
                  f"{i}mechanic plus_{r.name}(x: 0..5) -> int = x + bonus_{r.name}"]
        examples.append((f"plus_{r.name}(1)", 1 + r.const))
    if r.table is not None:
        lines += [f"{i}table chart_{r.name}{_called(r, 'table')}(key{_called(r, 'key')}: 1..3) -> int "
                  f"{_q('Chart of ' + r.title)} {{",
                  f"{i}    | key | value |", f"{i}    |---|---|"]
        lines += [f"{i}    | {k + 1} | {v} |" for k, v in enumerate(r.table)]
        lines += [f"{i}}}", f"{i}check chart_{r.name}_small {_q('Every value of the chart is at most 6')} {{",
                  f"{i}    for k in 1..3: chart_{r.name}(k) <= 6", f"{i}}}"]
        examples.append((f"chart_{r.name}(2)", r.table[1]))
    if examples:
        lines.append(f'{i}example "Worked" """')
        for expr, value in examples:
            lines += [f"{i}>>> {expr}", f"{i}{value}"]
        lines.append(f'{i}"""')
    lines.append(f"{pad}}}")
    return "\n".join(lines)


BROKEN = {"compile": "mechanic broken_{id}(x: 0..5) -> int = x + nowhere",
          "example": ('rule broken-{id} "Broken" {{\n    """A rule whose example is wrong."""\n'
                      '    mechanic broken_{id}(x: 0..5) -> int = x + 1\n'
                      '    example "Wrong" """\n    >>> broken_{id}(1)\n    3\n    """\n}}')}


def write_section(s: Section, book: Book, ids: dict, pad: str = "") -> str:
    i = pad + "    "
    lines = [f"{pad}section {s.id} {_q(s.title)} {{"]
    if s.prose:
        lines.append(f'{i}"""{s.prose}"""')
    if book.broken and not pad and s is book.sections[0]:        # a designer's mistake, in the first section
        lines.append(i + BROKEN[book.broken].format(id=s.id.replace("-", "_")).replace("\n", "\n" + i))
    for it in s.items:
        lines.append(write_rule(it, book, ids, i) if isinstance(it, Rule) else write_section(it, book, ids, i))
    lines.append(f"{pad}}}")
    return "\n".join(lines)


def _front(b: Book, ids: dict) -> str:
    """The header's front-door lines: names the book no longer has are left out."""
    mine = {r.id: r for r, _ in rules_of(b)}
    named = set(mine) | {s.id for s, _ in sections_of(b.sections)}
    lines = []
    if b.about is not None:
        lines.append(f'    about """{_para(b.about, b, ids)}"""')
    if b.start is not None and b.start in named:
        lines.append(f"    start {b.start}")
    q = b.quick
    if q is not None:
        lines.append("    quick reference {")
        if q.get("dice") is not None:
            lines.append(f"        dice {_q(q['dice'])}")
        if q.get("turn") is not None:
            lines.append('        turn """')
            lines += [f"        - {_para(step, b, ids)}" for step in q["turn"]]
            lines.append('        """')
        tables = [f"chart_{mine[rid].name}" for rid in dict.fromkeys(q.get("tables", ()))
                  if rid in mine and mine[rid].table is not None]
        if tables:
            lines.append("        tables " + ", ".join(tables))
        listed = [x for x in dict.fromkeys(q.get("rules", ())) if x in named]
        if listed:
            lines.append("        rules " + ", ".join(listed))
        lines.append("    }")
    return "".join(line + "\n" for line in lines)


def write_header(b: Book, ids: dict | None = None) -> str:
    prose = f'    """{b.prose}"""\n' if b.prose else ""
    edition = f"    edition {_q(b.edition)}\n" if b.edition else ""
    vocabulary = "".join(f"    vocabulary {', '.join(map(_q, phrases))}"
                         + (f" -> {', '.join(map(_q, broader))}" if broader else "") + "\n"
                         for phrases, broader in b.vocabulary)
    front = _front(b, ids if ids is not None else {})
    return f"book {b.id} {{\n    title {_q(b.title)}\n{edition}    dice d6\n{vocabulary}{prose}{front}}}\n"


def sources(lib: Library) -> dict:
    """{relative path: text} of every file of the library."""
    ids = rule_ids(lib)
    out = dict(lib.real)
    for b in lib.books:
        if b.folder:
            out[f"{b.id}/00-header.rules"] = write_header(b, ids)
            for k, s in enumerate(b.sections):
                out[f"{b.id}/{10 * (k + 1):02d}-{s.id}.rules"] = write_section(s, b, ids) + "\n"
        else:
            out[f"{b.id}.rules"] = write_header(b, ids) + "".join(write_section(s, b, ids) + "\n" for s in b.sections)
    return out


def write(lib: Library, folder: Path) -> None:
    """Make `folder` hold exactly the library's files (a file whose text is unchanged is
    not touched: an editor saving one book does not touch the others)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    wanted = sources(lib)
    for rel, text in wanted.items():
        p = folder / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if not p.is_file() or p.read_text(encoding="utf-8") != text:
            p.write_text(text, encoding="utf-8")
    for p in sorted(folder.rglob("*.rules"), reverse=True):
        if p.relative_to(folder).as_posix() not in wanted:
            p.unlink()
    for p in sorted(folder.rglob("*"), reverse=True):
        if p.is_dir() and not any(p.iterdir()):
            p.rmdir()


# ------------------------------------------------------------------ the library the property starts from
REAL_BOOK = "skirmish-tutorial.rules"


def start(real: bool = False) -> Library:
    """Three small books: one file with two sections (one nested), a folder book, and a
    one-section book; references within and across books, dice with `odds` lines, a
    constant, a table with its check, notes, aliases, keywords and `uses`.  With `real`,
    the tutorial book too (edited as text: `edit_real`)."""
    lib = Library([])
    if real:
        lib.real[REAL_BOOK] = (REPO / "rulebooks" / REAL_BOOK).read_text(encoding="utf-8")
    alpha = Book("alpha", "Alpha Skirmish", "A small game of cover and smoke.",
                 about=["a", "game", "of", "cover", "and", ("ref", "beta", "sniper", False)],
                 quick={"dice": "Six-sided dice, read high.", "turn": [["move", "then", ("ref", "alpha", "charge", False)],
                                                                      ["fire", "a", "volley"]],
                        "tables": ["volley"], "rules": ["cover", "volleys"]})
    s1 = Section("basics", "The Basics", "What every rule builds on.")
    s1.items = [
        Rule("cover", "Cover", [["a", "model", "in", "ruins", "is", "in", "cover"], ["see", ("ref", "alpha", "smoke", False)]],
             aliases=["Hard Cover"], keywords=["cover", "ruins"], uses=["Smoke"],
             dice={"cmp": ">=", "bonus": 0, "odds": [(3, 4)], "given": [2, 5, 6]}),
        Rule("smoke", "Smoke", [["smoke", "blocks", "sight", "of", "a", ("ref", "beta", "sniper", True)]],
             keywords=["smoke"], notes=[("clarification", "Smoke lasts one turn.")], const=2),
    ]
    s2 = Section("combat", "Combat", "")
    sub = Section("volleys", "Volleys", "Firing together.")
    sub.items = [Rule("volley", "Volley Fire", [["every", "grenade", "counts", "twice"]],
                      aliases=["Volley"], table=[4, 5, 6])]
    s2.items = [Rule("charge", "Charge", [["a", "charge", "ends", "in", "assault"]], keywords=["assault"]), sub]
    alpha.sections = [s1, s2]
    beta = Book("beta", "Beta Recon", "", folder=True)
    b1 = Section("scouting", "Scouting", "Eyes forward.")
    b1.items = [Rule("sniper", "Sniper", [["a", "sniper", "ignores", ("ref", "alpha", "cover", False)]],
                     aliases=["Marksman"], keywords=["sniper"],
                     dice={"cmp": ">", "bonus": 1, "odds": [(2, 3), (4, 5)], "given": [1, 6], "sweeps": [(2, 2, 4)]},
                     priced={"most": 2, "cost": 0, "chance": False})]
    b2 = Section("orders", "Orders", "")
    b2.items = [Rule("rally", "Rally", [["a", "banner", "helps", "a", "rally"]], keywords=["morale"],
                     notes=[("absent", "The source gives no range.")])]
    beta.sections = [b1, b2]
    beta.start = "rally"
    gamma = Book("gamma", "Gamma Trenches", "Mud.")
    g1 = Section("trenches", "Trenches", "")
    g1.items = [Rule("trench", "Trench", [["a", "trench", "is", "cover", ("ref", "gamma", "bunker", False)]],
                     keywords=["cover"], const=1),
                Rule("bunker", "Bunker", [["a", "bunker", "stops", "a", "grenade"]], aliases=["Pillbox"])]
    gamma.sections = [g1]
    lib.books = [alpha, beta, gamma]
    return lib


# ------------------------------------------------------------------ edits
def _pick(items, a):
    return items[a % len(items)] if items else None


def _words(a: int, n: int = 3) -> list:
    return [WORDS[(a // (7 ** k)) % len(WORDS)] for k in range(n)]


def _new_rule(lib: Library, a: int, b: int, book: Book) -> Rule:
    rid = lib.fresh("r")
    word = WORDS[a % len(WORDS)]
    r = Rule(rid, f"{word.title()} {rid[1:]}", [_words(a) + ["matters"]], keywords=[word])
    feature = b % 4
    if feature == 1:
        r.dice = {"cmp": ">=", "bonus": 0, "odds": [(1 + a % 4, 2 + b % 5)], "given": [3, 4]}
    elif feature == 2:
        r.const = a % 4
    elif feature == 3:
        r.table = [1 + a % 6, 2, 3]
    targets = [(bk.id, x.id) for bk in lib.books for x, _ in rules_of(bk)]
    if targets and b % 3 == 0:
        bid, tid = _pick(targets, a + b)
        r.paras[0].append(("ref", bid, tid, a % 4 == 0))
    return r


def _top_sections(book: Book) -> list:
    return book.sections


def edit_prose(lib, a, b):
    _, r, _ = _pick(all_rules(lib), a)
    para = _pick(r.paras, b)
    if b % 5 == 0:
        r.paras.append(_words(a + b))
    elif b % 5 == 1 and len(r.paras) > 1:
        r.paras.remove(para)
    else:
        para[(a // 3) % len(para)] = WORDS[b % len(WORDS)]


def edit_title(lib, a, b):
    what = b % 3
    if what == 0:
        _, r, _ = _pick(all_rules(lib), a)
        r.title = f"{WORDS[b % len(WORDS)].title()} {r.id}"
    elif what == 1:
        book = _pick(lib.books, a)
        sec, _ = _pick(sections_of(book.sections), a // 7)
        sec.title = f"{WORDS[b % len(WORDS)].title()} Section"
    else:
        book = _pick(lib.books, a)
        book.title = f"{WORDS[b % len(WORDS)].title()} {book.id.title()}"


def edit_aliases(lib, a, b):
    _, r, _ = _pick(all_rules(lib), a)
    target = r.aliases if b % 2 == 0 else r.keywords
    word = WORDS[b % len(WORDS)]
    if word.title() in target or word in target:
        target.remove(word.title() if word.title() in target else word)
    else:
        target.append(word.title() if target is r.aliases else word)


def edit_uses(lib, a, b):
    _, r, _ = _pick(all_rules(lib), a)
    word = WORDS[b % len(WORDS)].title()
    if word in r.uses:
        r.uses.remove(word)
    else:
        r.uses.append(word)


def edit_note(lib, a, b):
    _, r, _ = _pick(all_rules(lib), a)
    if r.notes and b % 3 == 0:
        r.notes.pop(a % len(r.notes))
    elif r.notes and b % 3 == 1:
        k = a % len(r.notes)
        r.notes[k] = (r.notes[k][0], f"Read {WORDS[b % len(WORDS)]} as written.")
    else:
        r.notes.append((NOTE_KINDS[b % len(NOTE_KINDS)], f"The {WORDS[a % len(WORDS)]} case is unclear."))


def _with(lib, a, attr):
    rules = [r for _, r, _ in all_rules(lib) if getattr(r, attr) is not None]
    return _pick(rules, a)


def edit_odds(lib, a, b):
    r = _with(lib, a, "dice")
    if r is None:
        return edit_mechanic(lib, a, b)
    odds = r.dice["odds"]
    if b % 4 == 0 and len(odds) < 3:
        odds.append((1 + a % 4, 2 + b % 5))
    elif b % 4 == 1 and len(odds) > 0:
        odds.pop(a % len(odds))
    elif odds:
        k = a % len(odds)
        n, t = odds[k]
        odds[k] = (1 + (n + b) % 4, t) if b % 2 else (n, 2 + (t + b) % 5)
    else:
        odds.append((2, 4))


def edit_mechanic(lib, a, b):
    r = _pick([r for _, r, _ in all_rules(lib)], a)
    if r.dice is None:
        r.dice = {"cmp": ">=", "bonus": 0, "odds": [], "given": [4]}
    elif b % 4 == 0:
        r.dice = None
    elif b % 4 == 1:
        r.dice["cmp"] = ">" if r.dice["cmp"] == ">=" else ">="
    elif b % 4 == 2:
        r.dice["bonus"] = (r.dice["bonus"] + 1) % 3
    else:
        r.dice["given"] = [1 + (b + k) % 6 for k in range(1 + a % 4)]     # the worked example


def edit_table(lib, a, b):
    r = _with(lib, a, "table")
    if r is None or b % 5 == 0:
        r = _pick([r for _, r, _ in all_rules(lib)], a)
        r.table = None if r.table is not None else [b % 6 + 1, 3, 4]
        return
    r.table[a % 3] = 1 + b % 7          # 7 breaks the table's check: a finding


def edit_const(lib, a, b):
    r = _with(lib, a, "const")
    if r is None or b % 5 == 0:
        r = _pick([r for _, r, _ in all_rules(lib)], a)
        r.const = None if r.const is not None else b % 4
        return
    r.const = (r.const + 1 + b % 3) % 5


def edit_source(lib, a, b):
    """A rule's `source` or `flavour`, or a book's edition."""
    what, word = b % 3, WORDS[(a + b) % len(WORDS)]
    if what == 2:
        book = _pick(lib.books, a)
        book.edition = "" if book.edition else f"{word.title()} Edition"
        return
    _, r, _ = _pick(all_rules(lib), a)
    if what == 0:
        r.source = "" if r.source else f"Core Rules > {word.title()}"
    else:
        r.flavour = "" if r.flavour else f"The {word} was all we had."


def edit_vocabulary(lib, a, b):
    """A book's `vocabulary` (what players call things, for search): a group added or taken out."""
    book = _pick(lib.books, a)
    if book.vocabulary and b % 3 == 0:
        book.vocabulary.pop(a % len(book.vocabulary))
        return
    phrases = (f"{WORDS[b % len(WORDS)]} {WORDS[a % len(WORDS)]}", WORDS[(a + b) % len(WORDS)])
    book.vocabulary.append((phrases, (WORDS[(a * 3 + b) % len(WORDS)],) if b % 2 else ()))


def edit_words(lib, a, b):
    """Words for a name players see (`called "..."`: issue 26's display names), given or
    taken back: a mechanic, its input, roll or result; a constant; a table or its key."""
    slots = [(r, slot) for _, r, _ in all_rules(lib) for what, names in WORD_SLOTS.items()
             if getattr(r, what) is not None for slot in names]
    if not slots:
        return edit_mechanic(lib, a, b)
    r, slot = _pick(slots, a)
    if slot in r.words:
        del r.words[slot]
    else:
        r.words[slot] = f"{WORDS[b % len(WORDS)]} {slot} of {r.id}"


def edit_front(lib, a, b):
    """A book's front door: its `about` (with a reference, sometimes to another book), its
    `start`, and its quick reference's dice, turn, tables and rules, each given, changed or
    taken back; or the whole quick reference."""
    book = _pick(lib.books, a)
    what = b % 7
    word = WORDS[(a + b) % len(WORDS)]
    rules = [r for r, _ in rules_of(book)]
    named = [r.id for r in rules] + [sec.id for sec, _ in sections_of(book.sections)]
    if what == 0:
        if book.about is not None and b % 2:
            book.about = None
        else:
            targets = [(bk.id, r.id) for bk, r, _ in all_rules(lib)]
            ref = _pick(targets, a // 5)
            book.about = ["a", "game", "of", word] + ([("ref", *ref, False)] if ref and b % 3 else [])
        return
    if what == 1:
        book.start = None if book.start is not None and b % 2 else _pick(named, a // 3)
        return
    if what == 6:
        book.quick = None if book.quick is not None else {"dice": None, "turn": None, "tables": [], "rules": []}
        return
    q = book.quick if book.quick is not None else {"dice": None, "turn": None, "tables": [], "rules": []}
    book.quick = q
    if what == 2:
        q["dice"] = None if q["dice"] is not None and b % 2 else f"Six-sided dice; {word} rolls read high."
    elif what == 3:
        if q["turn"] is not None and b % 2:
            q["turn"] = None
        else:
            ref = _pick(rules, a // 7)
            q["turn"] = [["move", "every", word], ["then", "fire"] + ([("ref", book.id, ref.id, False)] if ref else [])]
    elif what == 4:
        charts = [r.id for r in rules if r.table is not None]
        rid = _pick(charts, a // 3)
        if rid is None:
            q["tables"] = []
        elif rid in q["tables"]:
            q["tables"].remove(rid)
        else:
            q["tables"].insert(a % (len(q["tables"]) + 1), rid)
    else:
        x = _pick(named, a // 3)
        if x in q["rules"]:
            q["rules"].remove(x)
        elif x is not None:
            q["rules"].insert(a % (len(q["rules"]) + 1), x)


def edit_sweep(lib, a, b):
    """An `odds` line that sweeps the target (a design view: a table and a chart), added,
    changed or taken out."""
    r = _with(lib, a, "dice")
    if r is None:
        return edit_mechanic(lib, a, b)
    sweeps = r.dice.setdefault("sweeps", [])
    if sweeps and b % 3 == 0:
        sweeps.pop(a % len(sweeps))
    elif sweeps and b % 3 == 1:
        k = a % len(sweeps)
        n, lo, hi = sweeps[k]
        sweeps[k] = (1 + (n + b) % 4, lo, hi) if b % 2 else (n, 2 + b % 3, 5 + b % 2)
    elif len(sweeps) < 2:
        sweeps.append((1 + a % 4, 2 + b % 3, 4 + b % 3))


def edit_priced(lib, a, b):
    """A `priced` view of a dice mechanic: added, taken out, or its cases, its cost (a
    constant of the rule, when it has one) or its effect (a mean or a chance) changed."""
    r = _with(lib, a, "dice")
    if r is None:
        return edit_mechanic(lib, a, b)
    if r.priced is None:
        r.priced = {"most": 1 + b % 3, "cost": a % 3, "chance": bool(b % 2)}
    elif b % 4 == 0:
        r.priced = None
    elif b % 4 == 1:
        r.priced["most"] = 1 + (r.priced["most"] + a) % 3
    elif b % 4 == 2:
        r.priced["cost"] = (r.priced["cost"] + 1 + a) % 3
    else:
        r.priced["chance"] = not r.priced["chance"]


def edit_section_prose(lib, a, b):
    book = _pick(lib.books, a)
    if b % 3 == 0:
        book.prose = "" if book.prose else " ".join(_words(b)).capitalize() + "."
        return
    sec, _ = _pick(sections_of(book.sections), b)
    sec.prose = "" if sec.prose and b % 3 == 1 else " ".join(_words(a + b)).capitalize() + "."


def edit_add_rule(lib, a, b):
    book = _pick(lib.books, a)
    sec, _ = _pick(sections_of(book.sections), b)
    sec.items.insert(b % (len(sec.items) + 1), _new_rule(lib, a, b, book))


def edit_delete_rule(lib, a, b):
    found = all_rules(lib)
    if len(found) <= 1:
        return
    _, r, holder = _pick(found, a)
    holder.remove(r)


def edit_move_rule(lib, a, b):
    """Within its section, to another section, or to another book."""
    _, r, holder = _pick(all_rules(lib), a)
    book = _pick(lib.books, b // 3)
    dest, _ = _pick(sections_of(book.sections), b)
    holder.remove(r)
    dest.items.insert((a + b) % (len(dest.items) + 1), r)


def edit_add_section(lib, a, b):
    book = _pick(lib.books, a)
    sec = Section(lib.fresh("s"), f"{WORDS[b % len(WORDS)].title()} Matters", "")
    sec.items = [_new_rule(lib, a, b, book)]
    if b % 2 and sections_of(book.sections):
        parent, _ = _pick(sections_of(book.sections), a)
        parent.items.append(sec)
    else:
        book.sections.insert(b % (len(book.sections) + 1), sec)


def edit_delete_section(lib, a, b):
    book = _pick(lib.books, a)
    found = sections_of(book.sections)
    if len(found) <= 1 or sum(len(rules_of(bk)) for bk in lib.books) <= 2:
        return
    sec, holder = _pick(found, b)
    if holder is book.sections and len(book.sections) == 1:
        return
    holder.remove(sec)
    if not rules_of(book):          # a book keeps a rule
        sec2, _ = sections_of(book.sections)[0]
        sec2.items.append(_new_rule(lib, a, b, book))


def edit_move_section(lib, a, b):
    book = _pick(lib.books, a)
    found = sections_of(book.sections)
    sec, holder = _pick(found, b)
    if holder is book.sections and len(book.sections) == 1:
        return
    holder.remove(sec)
    if b % 2 == 0:        # to the top level, at another place
        book.sections.insert((a + b) % (len(book.sections) + 1), sec)
    else:                 # into another section that is not inside it
        inside = {id(s) for s, _ in sections_of([sec])}
        others = [s for s, _ in sections_of(book.sections) if id(s) not in inside]
        dest = _pick(others, a) if others else None
        (dest.items if dest is not None else book.sections).append(sec)


def edit_add_book(lib, a, b):
    if len(lib.books) >= 5:
        return edit_delete_book(lib, a, b)
    bid = lib.fresh("book")
    book = Book(bid, f"{WORDS[a % len(WORDS)].title()} Book", "", folder=bool(b % 2))
    sec = Section(lib.fresh("s"), "Opening", "")
    book.sections = [sec]
    lib.books.insert(b % (len(lib.books) + 1), book)
    sec.items = [_new_rule(lib, a, b, book)]


def edit_delete_book(lib, a, b):
    if len(lib.books) <= 1:
        return
    lib.books.pop(a % len(lib.books))


def edit_break(lib, a, b):
    """A book saved with a mistake (a name nothing declares: it does not compile; or a
    worked example that fails), or its mistakes mended (its references whose targets
    are gone too)."""
    book = _pick(lib.books, a)
    ids = rule_ids(lib)
    dangling = [(p, k) for r, _ in rules_of(book) for p in r.paras for k, t in enumerate(p)
                if isinstance(t, tuple) and t[3] and t[2] not in ids.get(t[1], ())]
    if book.broken or dangling:
        book.broken = ""
        for p, k in dangling:
            p[k] = p[k][:3] + (False,)
    else:
        book.broken = ("compile", "example")[b % 2]


def edit_book_form(lib, a, b):
    """A single-file book becomes a folder of files, or the other way round."""
    book = _pick(lib.books, a)
    book.folder = not book.folder


def _real_edits(text: str, b: int) -> list:
    """The edits of the real book, each keeping it valid: an `odds` line, a word of prose,
    a title, a note, a constant, the order of its top-level sections."""
    import re
    sep = "\n# ===========================================================================\n"
    parts = text.split(sep)
    moved = parts[:1] + parts[2:] + parts[1:2] if len(parts) > 2 else parts
    return [
        re.sub(r"odds hits\(n=\d, target=4\)", f"odds hits(n={1 + b % 6}, target=4)", text),
        re.sub(r"Hollow Fields uses \S+ dice", f"Hollow Fields uses {WORDS[b % len(WORDS)]} dice", text),
        re.sub(r'rule leaders "[^"]*"', f'rule leaders "Leaders of the {WORDS[b % len(WORDS)].title()}"', text),
        re.sub(r'includes exactly 6 inches[^"]*"', f'includes exactly 6 inches, {WORDS[b % len(WORDS)]}."', text),
        re.sub(r"const leader_range = \d+", f"const leader_range = {6 + b % 3}", text),
        sep.join(moved),
    ]


def _real_design_edits(text: str, b: int) -> list:
    """Edits of the real book's front door and design views, each keeping it valid: an
    `about` and a `start` given, the sweep's range, the priced view's number of attacks."""
    import re
    word = WORDS[b % len(WORDS)]
    head = "    findings fail\n"

    def header_line(pattern: str, line: str) -> str:      # given, or changed where it is
        if re.search(pattern, text, flags=re.M):
            return re.sub(pattern, line.rstrip("\n"), text, count=1, flags=re.M)
        return text.replace(head, head + line, 1)
    return [
        header_line(r'^    about """.*"""$', f'    about """A tutorial game of {word} and farms."""\n'),
        header_line(r"^    start \S+$", "    start the-roster\n" if b % 2 else "    start dice\n"),
        re.sub(r"odds hits\(n=3, target=\d\.\.6\)", f"odds hits(n={1 + b % 4}, target={2 + b % 3}..6)", text),
        re.sub(r"per attack\(\d, profile", f"per attack({1 + b % 3}, profile", text),
    ]


def edit_real_design(lib, a, b):
    """A real book's front door or design views edited (nothing when there is none)."""
    for name, text in sorted(lib.real.items()):
        lib.real[name] = _pick(_real_design_edits(text, b), a)


def edit_real(lib, a, b):
    """A real book's text edited (nothing when there is none)."""
    for name, text in sorted(lib.real.items()):
        lib.real[name] = _pick(_real_edits(text, b), a)


EDITS = {f.__name__[len("edit_"):]: f for f in (
    edit_prose, edit_title, edit_aliases, edit_uses, edit_note, edit_odds, edit_mechanic, edit_table, edit_const,
    edit_source, edit_vocabulary, edit_words, edit_front, edit_sweep, edit_priced, edit_section_prose, edit_add_rule, edit_delete_rule, edit_move_rule, edit_add_section, edit_delete_section,
    edit_move_section, edit_add_book, edit_delete_book, edit_book_form, edit_break, edit_real,
    edit_real_design)}


def apply(lib: Library, edit) -> Library:
    """A copy of `lib` with one edit `(kind, a, b)` made (a library left without a rule
    gets one first: most edits work on a rule)."""
    kind, a, b = edit
    lib = copy.deepcopy(lib)
    if not all_rules(lib):
        edit_add_rule(lib, a, b)
    EDITS[kind](lib, a, b)
    return lib


def describe(lib: Library) -> str:
    return repr(dataclasses.asdict(lib))


# ------------------------------------------------------------------ for hypothesis
def edits():
    """The strategy of one edit."""
    from hypothesis import strategies as st
    return st.tuples(st.sampled_from(sorted(EDITS)), st.integers(0, 10 ** 6), st.integers(0, 10 ** 6))


def steps(most: int):
    """Sequences of up to `most` steps, each one or two edits saved together."""
    from hypothesis import strategies as st
    return st.lists(st.lists(edits(), min_size=1, max_size=2), min_size=1, max_size=most)


#: one fixed sequence that makes every kind of edit, four at a time
EVERY_KIND = [[(kind, 7 + 13 * i, 11 + 31 * i) for i, kind in enumerate(sorted(EDITS))][k:k + 4]
              for k in range(0, len(EDITS), 4)]

#: a book deleted (beta) while another (alpha) refers to one of its rules: alpha no longer
#: compiles, though its own files did not change; then alpha is mended
DANGLING = [[("delete_book", 1, 0)], [("prose", 0, 2)], [("break", 0, 0)]]

#: a table's check finds a value over 6 (a finding, shown with its line), then a paragraph
#: is added to a rule above it: the finding is kept but must show its new line
FINDING_MOVED = [[("table", 0, 6)], [("prose", 0, 0)]]
