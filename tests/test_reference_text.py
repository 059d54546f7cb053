"""A reference reads as part of its sentence (issue 30).

`[[rule-id]]` prints the target rule's title; where the title does not fit the sentence
a reference gives its own words, `[[rule-id|words]]` (prose.py).  Issue 30 found
"makes an The Attack Roll", "not even to strike back in Close Combat Weapons" and "with
Limited Ammo Weapons weapons".  Every reference of the real books is read here with
its title in place, and the mistakes a machine can see are refused:

* an article before a title that starts with its own ("a The Armory");
* the title's last word said again right after it ("Limited Ammo Weapons weapons");
* a title ending in a bracketed abbreviation followed by the same one ("Movement (M) (M)").
"""
from __future__ import annotations

import re

import pytest

import rules_dsl
from rules_dsl.language import nodes as n
from rules_dsl.language.model import walk
from rules_dsl.language.prose import REF_RE, parse_ref

BOOKS = rules_dsl.Library().book_ids()


def _titles():
    out = {}
    for b in BOOKS:
        book = rules_dsl.load(b)
        out.update({(b, r.id): r.title for r in book.rules})
        out.update({(b, p.node.id): p.node.title for p in book.sections})
    return out


def _singular(word: str) -> str:
    w = word.lower().strip(".,;:()'\"")
    return w[:-1] if w.endswith("s") and len(w) > 3 else w


def read_references(book_id, titles):
    """(rule id, the words before, the title, the words after) of every reference without words of its own."""
    book = rules_dsl.load(book_id)
    for p in walk(book.ast.items):
        node = p.node
        if isinstance(node, n.Rule):
            texts = [x.text for x in node.prose] + [x.text for x in node.flavour] + [x.text.text for x in node.notes]
        elif isinstance(node, n.Section):
            texts = [x.text for x in node.prose]
        else:
            continue
        for text in texts:
            flat = " ".join(text.split())
            for m in REF_RE.finditer(flat):
                ref = parse_ref(m.group(1))
                if ref is None or ref[2] is not None:
                    continue
                title = titles.get((ref[0] or book_id, ref[1]))
                if title:
                    yield node.id, flat[: m.start()], title, flat[m.end():]


def misreadings(before: str, title: str, after: str) -> list:
    found = []
    prev = before.split()[-1:] or [""]
    if prev[0].lower() in ("a", "an", "the") and title.split()[0].lower() in ("the", "a", "an"):
        found.append(f"'{prev[0]} {title}'")
    nxt = after.split()[:1] or [""]
    if nxt[0] and _singular(nxt[0]) == _singular(title.split()[-1]) and nxt[0][:1].isalpha():
        found.append(f"'{title} {nxt[0]}'")
    m = re.search(r"\(([^)]+)\)$", title)
    if m and after.lstrip().startswith(f"({m.group(1)})"):
        found.append(f"'{title} ({m.group(1)})'")
    return found


@pytest.mark.parametrize("book_id", BOOKS)
def test_no_reference_misreads_in_its_sentence(book_id):
    titles = _titles()
    bad = [f"{book_id}:{rule}: ...{before[-40:]}[{title}]{after[:30]}... reads {', '.join(found)}"
           for rule, before, title, after in read_references(book_id, titles)
           for found in [misreadings(before, title, after)] if found]
    assert not bad, "give these references their own words, [[id|words]]:\n" + "\n".join(bad)


def test_the_detector_sees_the_issue_s_cases():
    assert misreadings("The attacker makes an", "The Attack Roll", " against the target.")
    assert misreadings("pick a unit with", "Limited Ammo Weapons", " weapons in line of sight")
    assert misreadings("nine of them:", "Movement (M)", " (M), [[weapon-skill]]")
    assert not misreadings("see also", "Cover", ", Run and Aim")


def test_the_issue_s_sentences_now_read_well():
    from rules_dsl.language.prose import parse_prose, plain_text
    cases = {("dust-tactics", "suppression"): "not even to strike back in close combat.",
             ("dust-tactics", "command-ammo-drop"): "pick a unit with limited ammo weapons in line of sight",
             ("dust-tactics", "weapon-volley"): "A volley weapon is a limited ammo weapon"}
    titles = _titles()
    for (b, rid), words in cases.items():
        rule = rules_dsl.load(b).rule(rid)
        text = plain_text(parse_prose(rule.text), lambda bk, r, b=b: titles.get((bk or b, r)))
        assert words in text, (b, rid, text[:300])
