"""A book's front door as plain data: what the home page's game picker and the book's own
front page show a player (docs/language.md, "The front door").

A book may say it in its header (`about`, `start`, `quick reference { dice, turn, tables,
rules }`); what it leaves out has a default worked out here from the book alone:

* **about** (what the game is): the first sentence of the header's prose;
* **dice**: the dice the header declares, in words ("six-sided dice (d6)", "Dust dice:
  six faces, two each of army, target and shield");
* **start** (where a new player starts): the first top-level section;
* **turn**: a link to the first section or rule whose title speaks of the turn
  ("Turn Sequence", "The Turn"), if there is one (a turn sequence is never invented);
* **rules** (the most looked-up rules): the rules other rules of the book refer to most
  (at least twice), up to `DEFAULT_RULES`, in reading order;
* **tables**: the small tables (`SMALL_TABLE_ROWS` rows at most) those rules declare, up
  to `DEFAULT_TABLES`.

Everything here reads one book only, so a book's front page and its card on the home page
change only when that book does.  Plain data (no Sphinx): the render model (`data.py`)
holds `front_model`'s result, the book's summary (`models.summary_of`) `card_of`'s.
"""
from __future__ import annotations

import re

from ..language import nodes as n

DEFAULT_RULES = 8
DEFAULT_TABLES = 2
SMALL_TABLE_ROWS = 12
#: a card's "what it is" (the home page) is cut at a word past this many characters
CARD_CHARS = 280

_SIDES = {2: "two", 3: "three", 4: "four", 6: "six", 8: "eight", 10: "ten", 12: "twelve", 20: "twenty"}
_COUNTS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}
_TURN = re.compile(r"\bturns?\b", re.I)


def _words(name: str) -> str:
    return name.replace("_", " ")


def _and(items: list) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def dice_words(dice, face_words=None) -> str:
    """The book's declared dice, as a player would say them (`dice` of a `Book`: name -> Die;
    `face_words(die, face)`: a face's display form, `Book.display.member`)."""
    face_words = face_words or (lambda die, face: _words(face))
    out = []
    for name, die in dice.items():
        if not die.custom:
            sides = len(die.faces)
            word = "percentile dice" if sides == 100 else (f"{_SIDES[sides]}-sided dice" if sides in _SIDES
                                                            else f"{sides}-sided dice")
            out.append(f"{word} ({name})")
            continue
        counts = {}
        for f in die.faces:
            counts[str(f)] = counts.get(str(f), 0) + 1
        faces = len(die.faces)
        size = _SIDES.get(faces, str(faces))
        label = name[:1].upper() + _words(name[1:])
        if len(set(counts.values())) == 1:
            each = next(iter(counts.values()))
            out.append(f"{label} dice: {size} faces, {_COUNTS.get(each, str(each))} each of "
                       f"{_and([face_words(name, k) for k in counts])}")
        else:
            out.append(f"{label} dice: {size} faces ("
                       + ", ".join(f"{face_words(name, k)} ×{v}" for k, v in counts.items()) + ")")
    text = "; ".join(out)
    return text[:1].upper() + text[1:] if text else ""


def _ref_counts(rules: dict, book_id: str) -> dict:
    """rule id -> how many other rules of the book refer to it."""
    counts = {}
    for r in rules.values():
        for b, rid in r.get("refs", ()):
            if b == book_id and rid in rules and rid != r["id"]:
                counts[rid] = counts.get(rid, 0) + 1
    return counts


def _table_owner(name: str, rules: dict, sections: dict):
    """("rule" | "section", id) of the rule or section that declares table `name`."""
    for rid, r in rules.items():
        if any(d["kind"] == "table" and d["name"] == name for d in r["decls"]):
            return ("rule", rid)
    for sid, s in sections.items():
        if any(k == "decl" and v["kind"] == "table" and v["name"] == name for k, v in s["items"]):
            return ("section", sid)
    return None


def _target(kind_id: str, rules: dict, sections: dict):
    if kind_id in rules:
        return {"kind": "rule", "id": kind_id, "title": rules[kind_id]["title"]}
    if kind_id in sections:
        return {"kind": "section", "id": kind_id, "title": sections[kind_id]["title"]}
    return None


def front_model(book, rules: dict, sections: dict, top_sections: list, first_sentence) -> dict:
    """The front door of a compiled book (`rules`, `sections`: its render model's);
    `first_sentence(paragraphs)` gives a text's first sentence in plain words."""
    h = book.ast.header
    q = h.quick or n.QuickReference(h.span)
    about = h.about.text if h.about is not None else first_sentence([p.text for p in h.prose])
    dice = q.dice.text if q.dice is not None else dice_words(book.dice, book.display.member)
    start = _target(h.start.name, rules, sections) if h.start is not None else (
        _target(top_sections[0], rules, sections) if top_sections else None)
    turn_link = None
    if q.turn is None:
        found = next((sid for sid, s in sections.items() if _TURN.search(s["title"])), None) or next(
            (rid for rid, r in rules.items() if _TURN.search(r["title"])), None)
        turn_link = _target(found, rules, sections) if found else None
    if q.rules:
        ids = [x.name for x in q.rules]
    else:
        counts = _ref_counts(rules, book.id)
        order = {rid: i for i, rid in enumerate(rules)}
        top = sorted((rid for rid, c in counts.items() if c >= 2), key=lambda rid: (-counts[rid], order[rid]))
        ids = sorted(top[:DEFAULT_RULES], key=order.get)          # the most referred to, in reading order
    listed = [t for t in (_target(x, rules, sections) for x in dict.fromkeys(ids)) if t is not None]
    if q.tables:
        names = [x.name for x in q.tables]
    else:
        names = [d["name"] for t in listed if t["kind"] == "rule" for d in rules[t["id"]]["decls"]
                 if d["kind"] == "table" and len(d["rows"]) <= SMALL_TABLE_ROWS][:DEFAULT_TABLES]
    tables = []
    for name in dict.fromkeys(names):
        owner = _table_owner(name, rules, sections)
        if owner is not None:
            tables.append({"name": name, "owner": owner})
    return {"about": about, "about_given": h.about is not None, "dice": dice, "dice_given": q.dice is not None,
            "start": start, "turn": q.turn.text if q.turn is not None else None, "turn_link": turn_link,
            "rules": listed, "tables": tables, "given": h.quick is not None}


def card_of(model) -> dict:
    """What the home page's game picker shows of a book (kept in its summary): its dice in
    one sentence (the quick reference on its page says the rest)."""
    from ..language.prose import first_sentence, parse_prose, plain_text
    f = model["front"]
    dice = plain_text(parse_prose(f["dice"])) if f["dice_given"] else f["dice"]
    return {**{k: f[k] for k in ("about", "about_given", "start")},
            "dice": first_sentence(dice, min_words=3), "dice_given": False}


def units_of(model) -> set:
    """The units (site.py) a book's quick reference shows besides the book's head (which holds
    this front model, titles included): the rules and sections it lists and those declaring
    its tables (their first sentences and rows)."""
    book, f = model["id"], model["front"]
    out = {(t["kind"], book, t["id"]) for t in f["rules"]}
    return out | {(t["owner"][0], book, t["owner"][1]) for t in f["tables"]}
