"""Open data: each book as one JSON document (`rules export`, and `data/` on the website).

Why a file and not the website or the Python API: other tools (army builders, bots,
apps in any language) can then use a book without scraping HTML or running this
package.  The format is described by a JSON Schema shipped with the package
(`rules_dsl/faces/schema/book.schema.json`, `schema_path()`) and published beside the files.

What goes in is read from the compiled book (the checked AST and its compiled
declarations), never from source text, through the functions the other outputs
already use: `records.rule_record` (a rule's fields, as `rules lookup` has them),
`index_build.book_info` (the counts of `rules books`), `records.decl_model` and
`records.cell_text` (a declaration as the website shows it: signature, parameters, table
cells, absent cells), `prose.parse_prose` (the prose markup) and `values.show`.

The bytes are deterministic: keys sorted, lists in the book's order, file paths
relative to the books folder, no dates: the same books give the same files on every
machine and every run, so a consumer can diff them and the site can skip a file
whose bytes would not change (`paths.write_text_if_changed`).
"""
from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

from ..language import nodes as n
from ..paths import write_text_if_changed
from ..language.prose import BulletList, Emphasis, Paragraph, Ref, Strong, Text, inline_text, parse_prose, ref_text
from ..language.values import ABSENT, Record, show, to_json

#: bumped when a field changes meaning or goes away (adding a field keeps it)
SCHEMA_VERSION = 1
SCHEMA_FILE = "book.schema.json"
INDEX_FILE = "index.json"
#: where `rules export` writes when no --out is given (relative to the current folder)
DEFAULT_OUT = "rules-data"


def schema_path() -> Path:
    """The JSON Schema (draft 2020-12) of a book export; its `$defs/index` is index.json's."""
    return Path(__file__).resolve().parent / "schema" / SCHEMA_FILE


def dumps(obj) -> str:
    """The one serialisation of every exported file: UTF-8 text (no \\u escapes), keys
    sorted, compact (a quarter smaller than indented; `python -m json.tool` shows it
    indented), a final newline."""
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"


# ------------------------------------------------------------------ places
class _Places:
    """Source paths made relative to the books folder (never a machine's absolute path)."""

    def __init__(self, books_dir):
        self.root = Path(books_dir).resolve()

    def file(self, path) -> str:
        p = Path(path)
        try:
            return p.resolve().relative_to(self.root).as_posix()
        except (ValueError, OSError):
            return p.name

    def span(self, span) -> dict:
        return {"file": self.file(span.file), "line": span.line}

    def text(self, location: str):
        """A `file:line:column` location string -> {"file", "line"}; None when empty."""
        if not location:
            return None
        parts = location.rsplit(":", 2)
        if len(parts) == 3 and parts[1].isdigit():
            return {"file": self.file(parts[0]), "line": int(parts[1])}
        return {"file": self.file(location), "line": 0}


# ------------------------------------------------------------------ prose
def _inline(children, home, title_of) -> list:
    out = []
    for c in children:
        if isinstance(c, Text):
            out.append({"type": "text", "text": c.text})
        elif isinstance(c, Ref):
            out.append({"type": "ref", "book": c.book or home, "rule": c.rule, "label": c.label,
                        "text": ref_text(c, title_of)})
        else:
            out.append({"type": "strong" if isinstance(c, Strong) else "emphasis",
                        "children": _inline(c.children, home, title_of)})
    return out


def _refs(children, home, seen: dict):
    for c in children:
        if isinstance(c, Ref):
            seen.setdefault((c.book or home, c.rule), None)
        elif isinstance(c, (Strong, Emphasis)):
            _refs(c.children, home, seen)


def prose_json(text: str, home: str, title_of=None):
    """Prose -> {"text": plain text (paragraphs apart by a blank line, list items as
    "- " lines, references as their titles), "markup": the text as written,
    "blocks": the parsed markup, "refs": the rules it references}; None when empty."""
    if not text or not text.strip():
        return None
    doc = parse_prose(text)
    blocks, chunks, seen = [], [], {}
    for block in doc.blocks:
        if isinstance(block, Paragraph):
            blocks.append({"type": "paragraph", "children": _inline(block.children, home, title_of)})
            chunks.append(inline_text(block.children, title_of))
            _refs(block.children, home, seen)
        elif isinstance(block, BulletList):
            blocks.append({"type": "list", "items": [_inline(it.children, home, title_of) for it in block.items]})
            lines = "\n".join("- " + inline_text(it.children, title_of) for it in block.items)
            if block.follows_text and chunks:
                chunks[-1] += "\n" + lines
            else:
                chunks.append(lines)
            for it in block.items:
                _refs(it.children, home, seen)
    return {"text": "\n\n".join(chunks), "markup": text, "blocks": blocks,
            "refs": [{"book": b, "rule": r} for b, r in seen]}


def _prose_of(parts, home, title_of):
    return prose_json("\n\n".join(p.text for p in parts), home, title_of)


# ------------------------------------------------------------------ values and types
def value_json(v) -> dict:
    """A value of the language (or a table cell of the source) -> {"kind", "value", "text"}.

    Kinds: number (an int, or an exact fraction as "p/q"), bool, text, name (an enum
    member or die face), range (a `low..high` key: [low, high]), list, record, and
    absent: a value the source does not give, {"kind": "absent", "value": null,
    "absent": true}."""
    if v is ABSENT:
        return {"kind": "absent", "value": None, "text": "absent", "absent": True}
    if isinstance(v, n.Name):
        return {"kind": "name", "value": v.name, "text": v.name}
    if isinstance(v, tuple) and len(v) == 2 and all(isinstance(x, int) for x in v):   # a (low, high) key cell
        return {"kind": "range", "value": [v[0], v[1]], "text": f"{v[0]}..{v[1]}"}
    if isinstance(v, range):
        return {"kind": "range", "value": [v.start, v.stop - 1], "text": show(v)}
    if isinstance(v, bool):
        return {"kind": "bool", "value": v, "text": show(v)}
    if isinstance(v, (int, Fraction)):
        return {"kind": "number", "value": to_json(v), "text": show(v)}
    if isinstance(v, str):
        is_name = getattr(v, "enum", None) is not None      # a Sym: an enum member or die face
        return {"kind": "name" if is_name else "text", "value": str(v), "text": str(v)}
    if isinstance(v, Record):
        return {"kind": "record", "value": {k: value_json(x) for k, x in v.as_dict().items()}, "text": show(v)}
    if isinstance(v, (list, tuple, set, frozenset)):
        items = sorted(v, key=show) if isinstance(v, (set, frozenset)) else v
        return {"kind": "list", "value": [value_json(x) for x in items], "text": show(v)}
    return {"kind": "text", "value": show(v), "text": show(v)}   # pragma: no cover - every value is above


def type_json(t, compiled) -> dict:
    """A declared type -> {"kind", "text", ...}: a range with its min and max, an enum
    with its members, a die with its faces, lists, unions and records of those."""
    from ..language.render import type_text
    out = {"text": type_text(t)}
    if isinstance(t, n.RangeType):
        out.update(kind="range", min=t.low, max=t.high)
    elif isinstance(t, n.NamedType):
        if t.name in compiled.enums:
            out.update(kind="enum", name=t.name, members=list(compiled.enums[t.name]))
        elif t.name in compiled.dice:
            out.update(kind="die", name=t.name, faces=[to_json(f) for f in compiled.dice[t.name].faces])
        else:
            out.update(kind=t.name)          # int, number, bool, text, absent
    elif isinstance(t, n.ListType):
        out.update(kind="list", item=type_json(t.item, compiled))
    elif isinstance(t, n.UnionType):
        out.update(kind="union", options=[type_json(o, compiled) for o in t.options])
    elif isinstance(t, n.RecordType):
        out.update(kind="record", fields=[{"name": k, "type": type_json(v, compiled)} for k, v in t.fields])
    else:   # pragma: no cover - the parser makes no other type
        out.update(kind="unknown")
    return out


# ------------------------------------------------------------------ declarations
def _mechanic(book, d, rule, model) -> dict:
    m = book.mechanics[d.name]
    names = book.display
    params = []
    for p, (_name, _ttext, allowed, _default) in zip(d.params, model["params"]):
        params.append({"name": p.name, "type": type_json(p.type, book.compiled), "allowed": allowed,
                       "default": value_json(m.default(p.name)) if p.default is not None else None,
                       "display": names.param(d.name, p.name)})
    return {"name": d.name, "rule": rule, "doc": model["doc"] or "",
            "signature": model["signature"], "params": params,
            "rolls": [{"name": name, "dice": dice, "display": names.roll(d.name, name)} for name, dice in model["rolls"]],
            "returns": {"type": type_json(d.returns, book.compiled), "allowed": model["returns"][1]},
            "rolls_dice": model["has_dice"], "body": list(model["lines"]),
            "display": {"name": names.mechanic(d.name), "result": names.results.get(d.name),
                        "question": names.questions.get(d.name), "answer": names.answers.get(d.name)}}


def _cell(c) -> dict:
    from .records import cell_text
    out = value_json(c.value)
    text, absent = cell_text(c.value)
    out["text"] = text
    if absent:
        out["absent"] = True
    return out


def _table(book, d, rule, model) -> dict:
    names = book.display
    columns = ([{"name": k, "type": type_json(t, book.compiled), "display": names.field(d.name, k)}
                for k, t in d.returns.fields]
               if isinstance(d.returns, n.RecordType)
               else [{"name": "value", "type": type_json(d.returns, book.compiled), "display": names.table(d.name)}])
    return {"name": d.name, "rule": rule, "doc": model["doc"] or "", "display": names.table(d.name),
            "layout": "grid" if d.grid else "rows",
            "keys": [{"name": p.name, "type": type_json(p.type, book.compiled), "display": names.param(d.name, p.name)}
                     for p in d.params],
            "columns": columns, "header": [_cell(c) for c in d.header],
            "rows": [[_cell(c) for c in row] for row in d.rows]}


# ------------------------------------------------------------------ the book
def book_data(book, library=None, consulted: set | None = None) -> dict:
    """One compiled book -> the export document (plain JSON data).  `consulted`, when
    given, gets the ids of the other books whose titles the document shows (its
    cross-book references): the document must be made again when one of them changes."""
    from .index_build import book_info
    from ..library.loader import DEFAULT
    from ..language.model import decls_of
    from .records import decl_model, rule_record

    library = library or DEFAULT
    places = _Places(library.books_dir)
    title_of = _title_of(book, library, consulted)
    home = book.id
    compiled = book.compiled

    sections = [{"id": p.node.id, "title": p.node.title, "path": list(p.section_ids),
                 "prose": _prose_of(p.node.prose, home, title_of)} for p in book.sections]

    rules = []
    for r in book.rules:
        rec = rule_record(book, r)
        node = r.node
        notes = {}
        for note in node.notes:
            notes.setdefault(note.kind, []).append(prose_json(note.text.text, home, title_of))
        owned = {"mechanics": [], "tables": [], "constants": [], "enums": [], "checks": []}
        for d in node.decls:
            kind = {n.Mechanic: "mechanics", n.Table: "tables", n.Const: "constants", n.Enum: "enums",
                    n.Check: "checks"}.get(type(d))
            if kind:
                owned[kind].append(d.name)
        examples = []
        for ex in node.examples:
            cases = [{"expression": c.source, "expected": c.expected_text,
                      "error": ({"kind": c.error.kind, "param": c.error.param or None, "detail": c.error.detail}
                                if c.error is not None else None)} for c in ex.cases]
            examples.append({"title": ex.title, "text": ex.text, "cases": cases})
        rules.append(dict(owned, **{
            "id": rec["rule"], "ref": f"{home}:{rec['rule']}", "title": rec["title"], "section": rec["section"],
            "section_path": [{"id": i, "title": t} for i, t in zip(r.section_ids, r.section_titles)],
            "aliases": rec["aliases"], "keywords": rec["keywords"], "source": rec["source"],
            "prose": prose_json(rec["text"], home, title_of), "flavour": _prose_of(node.flavour, home, title_of),
            "notes": notes, "examples": examples,
            "uses": [{"name": u.name, "rule": book.definer(u.name)} for u in node.uses],
            "location": places.span(r.span)}))

    mechanics, tables, constants, enums, checks = [], [], [], [], []
    for p in decls_of(book.ast):
        d, rule = p.node, (p.rule.id if p.rule else None)
        model = decl_model(book, d, None)
        if isinstance(d, n.Mechanic):
            mechanics.append(_mechanic(book, d, rule, model))
        elif isinstance(d, n.Table):
            tables.append(_table(book, d, rule, model))
        elif isinstance(d, n.Const):
            constants.append({"name": d.name, "rule": rule, "doc": d.doc or "",
                              "value": value_json(book.constants[d.name]), "formula": model["formula"],
                              "display": book.display.const(d.name)})
        elif isinstance(d, n.Enum):
            enums.append({"name": d.name, "rule": rule, "members": list(d.members), "display": book.display.enum(d.name),
                          "members_display": {m: book.display.member(d.name, m) for m in d.members}})
        elif isinstance(d, n.Check):
            checks.append({"name": d.name, "rule": rule, "doc": d.doc or "",
                           "formula": model["formula"]})

    findings = []
    for f in book.findings:
        j = f.as_json()
        j["location"] = places.text(j["location"])
        j["check_location"] = places.text(j["check_location"])
        j["check"] = j["check"] or None
        j["printed"] = j["printed"] or None
        j["cause"] = j["cause"] or None
        del j["book"]
        findings.append(j)

    h = book.ast.header
    info = book_info(book)
    counts = {k: v for k, v in info.items() if isinstance(v, int)}
    counts.update(sections=len(sections), enums=len(enums), constants=len(constants), checks=len(checks),
                  notes=sum(len(r.node.notes) for r in book.rules))
    dice = [{"name": name, "custom": die.custom, "faces": [to_json(f) for f in die.faces],
             **({"faces_display": {str(f): book.display.member(name, f) for f in die.distinct}} if die.custom else {})}
            for name, die in compiled.dice.items()]
    return {
        "schema_version": SCHEMA_VERSION, "id": home, "title": h.title or home, "edition": h.edition,
        "source": h.source, "units": h.units, "findings_policy": h.findings,
        "about": _prose_of(h.prose, home, title_of), "files": [places.file(f) for f in book.ast.files],
        "dice": dice, "counts": counts, "sections": sections, "rules": rules, "mechanics": mechanics,
        "tables": tables, "constants": constants, "enums": enums, "checks": checks, "findings": findings,
        **({"layers": [_layer_json(layer, places) for layer in book.layers]} if book.layers else {}),
    }


def _layer_json(layer, places) -> dict:
    """A layer of a layered book (layers.py): what it amends and each change, where it is
    written and why."""
    return {"id": layer.id, "name": layer.name, "base": layer.base, "title": layer.title,
            "edition": layer.edition, "source": layer.source, "file": places.file(layer.file),
            "changes": [{"number": c.number, "change": c.text, "because": c.reason, "verb": c.verb,
                         "what": c.what, "target": c.target, "rules": list(c.rules), "names": list(c.names),
                         "before": c.before, "after": c.after, "location": places.span(c.span)}
                        for c in layer.changes]}


def _title_of(book, library, consulted=None):
    """title_of(book, rule) for references: this book's rules and sections, and another
    book's (parsed only, once) for a cross-book reference; None when not found."""
    from ..errors import RulesError
    from ..language.model import walk
    titles = {}

    def of(bid):
        if bid not in titles:
            if consulted is not None and bid != book.id:
                consulted.add(bid)
            found = {}
            try:
                items = book.ast.items if bid == book.id else library.parse_book(bid)[0].items
                for p in walk(items):
                    if isinstance(p.node, (n.Rule, n.Section)):
                        found.setdefault(p.node.id, p.node.title)
            except (RulesError, OSError):   # an unknown or broken other book: the reference reads as its id's words
                pass
            titles[bid] = found
        return titles[bid]

    return lambda b, rid: of(b or book.id).get(rid)


def book_json(book, library=None) -> str:
    return dumps(book_data(book, library))


def index_entry(data: dict, text: str) -> dict:
    """index.json's line for one exported book."""
    import hashlib
    return {"id": data["id"], "title": data["title"], "edition": data["edition"], "file": f"{data['id']}.json",
            "counts": data["counts"], "schema_version": SCHEMA_VERSION, "bytes": len(text.encode("utf-8")),
            "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()}


def index_json(entries: list) -> str:
    from ..version import __version__
    return dumps({"schema_version": SCHEMA_VERSION, "schema": SCHEMA_FILE, "generator": f"rules-dsl {__version__}",
                  "books": sorted(entries, key=lambda e: e["id"])})


# ------------------------------------------------------------------ writing


class Exported:
    """What an export did: files written or left as they were (name -> bytes), and
    the books that could not be exported (id -> one-line reason)."""

    def __init__(self, out: Path):
        self.out, self.sizes, self.written, self.errors = out, {}, [], {}

    @property
    def books(self) -> list:
        return [name[:-5] for name in self.sizes if name not in (INDEX_FILE, SCHEMA_FILE)]


def export(out, ids=None, library=None) -> Exported:
    """Write `<book>.json` for each book of `ids` (default: every book of the library),
    `index.json` listing them and `book.schema.json` into the folder `out`.  A book
    that does not compile is left out and named in `errors`; an unknown id raises
    `NotFound` before anything is written."""
    from ..errors import NotFound, RulebookError
    from ..library.loader import DEFAULT

    library = library or DEFAULT
    out = Path(out)
    known = library.book_ids()
    ids = list(known if ids is None else ids)
    for bid in ids:
        if bid not in known:
            raise NotFound("book", bid, known)
    result = Exported(out)
    entries, texts = [], {}
    for bid in ids:
        try:
            book = library.load(bid)
        except RulebookError as e:
            result.errors[bid] = e.first_line()
            continue
        data = book_data(book, library)
        text = dumps(data)
        texts[f"{bid}.json"] = text
        entries.append(index_entry(data, text))
    texts[INDEX_FILE] = index_json(entries)
    texts[SCHEMA_FILE] = schema_path().read_text(encoding="utf-8")
    for name, text in texts.items():
        if write_text_if_changed(out / name, text):
            result.written.append(name)
        result.sizes[name] = len(text.encode("utf-8"))
    return result
