"""The tree builder's methods for a book's header (`book ID { ... }`): title, edition,
source, units, findings, standard and custom dice, vocabulary, prose and the front
door (`about`, `start`, `quick reference`); one method per grammar alias.

The header is where a book from a stranger states things the whole library trusts
(which dice exist, what search should treat as the same word), so its limits live
here: die sizes, faces per symbol, vocabulary groups and phrases. Each field's method
gives `(field, value)`; `book_header` decides what a field may not repeat, before
the repeated one is built, and a layer's header (`tree_layers`) reuses the methods
of the fields a layer may restate.
"""
from __future__ import annotations

import re

from . import nodes as n

MAX_DIE_SIDES = 1000            # d2 .. d1000
MAX_FACE_COUNT = 100            # faces of one symbol on a custom die

LISTED = ("dice", "prose", "vocabulary")      # fields a header may give again: each adds to a list
FRONT = ("about", "start", "quick")           # the front door's fields: at most once each


class HeaderRules:
    """Methods named after the grammar's `header_field` aliases (see `tree_builder`)."""

    def book_header(self, t) -> n.Header:
        fields = {"title": "", "edition": "", "source": "", "units": "", "findings": "report"}
        lists = {key: [] for key in LISTED}
        front = {}
        for f in t.children[1:]:
            key = f.data[2:]
            if key in front:
                word = "quick reference" if key == "quick" else key
                self.error(f.children[0] if f.children else f, f"the book header has a second `{word}`",
                           "write it once")
                continue
            if key == "vocabulary":
                from . import search_words as ts
                if len(lists["vocabulary"]) >= ts.MAX_GROUPS:
                    self.error(f.children[0], f"a book declares at most {ts.MAX_GROUPS} vocabulary groups",
                               "merge groups of phrases that mean the same thing")
                    continue
            made = self.visit(f)
            if made is None:
                continue
            key, value = made
            if key in LISTED:
                lists[key].extend(value)
            elif key in FRONT:
                front[key] = value
            else:
                fields[key] = value
        return n.Header(self.span(t), str(t.children[0]), dice=tuple(lists["dice"]), prose=tuple(lists["prose"]),
                        vocabulary=tuple(lists["vocabulary"]), **fields, **front)

    def h_title(self, t) -> tuple:
        return "title", self.string(t.children[0])

    def h_edition(self, t) -> tuple:
        return "edition", self.string(t.children[0])

    def h_source(self, t) -> tuple:
        return "source", self.string(t.children[0])

    def h_units(self, t) -> tuple:
        return "units", str(t.children[0])

    def h_findings(self, t):
        """`findings fail` or `findings report`; anything else is a diagnostic (and None)."""
        mode = str(t.children[0])
        if mode not in ("fail", "report"):
            self.error(t.children[0], f"findings {mode}: unknown mode",
                       "write `findings fail` (a check that finds a disagreement fails `rules check`, "
                       "for a game of your own) or `findings report` (the default, for a restated book)")
            return None
        return "findings", mode

    def h_prose(self, t) -> tuple:
        return "prose", [self.read_prose(t.children[0])]

    # -------------------------------------------------------------------- dice
    def h_dice(self, t) -> tuple:
        """`dice d6, d10`: standard dice, each of 2 to MAX_DIE_SIDES sides."""
        dice = []
        for tok in t.children:
            m = re.fullmatch(r"d([0-9]+)", str(tok))
            if not m or len(m.group(1)) > 4 or not 2 <= int(m.group(1)) <= MAX_DIE_SIDES:
                self.error(tok, f"'{tok}' is not a standard die",
                           f"standard dice are written d6, d10, d100... (2 to {MAX_DIE_SIDES} sides); declare custom dice with `die NAME {{ face: count, ... }}`")
                continue
            dice.append(n.Die(self.span(tok), str(tok), tuple(range(1, int(m.group(1)) + 1)), False))
        return "dice", dice

    def h_custom_die(self, t) -> tuple:
        """`die dust { army: 2, target: 2, blank called "miss": 2 }`: a die of symbols."""
        faces, shown = [], []
        for face in t.children[1:]:
            name, count, called = self.visit(face)
            faces.extend([name] * count)
            if called is not None:
                shown.append((name, called))
        return "dice", [n.Die(self.span(t), str(t.children[0]), tuple(faces), True, tuple(shown))]

    def face(self, t) -> tuple:
        """One symbol of a custom die: (name, how many faces show it, its words or None)."""
        name, called, count_tok = t.children
        count = self.int(count_tok)
        if count > MAX_FACE_COUNT:
            self.error(count_tok, f"a custom die has at most {MAX_FACE_COUNT} faces of one symbol")
            count = 1
        return str(name), count, self.optional(called)

    # -------------------------------------------------------------- vocabulary
    def h_vocabulary(self, t):
        """`vocabulary "a", "b" -> "c"`: a group of search phrases (search_words.py, read by the search: textsearch.py), within
        the limits a book from a stranger must keep (`search_words.MAX_*`; the number of
        groups is `book_header`'s to count).  None, after a diagnostic, when over them."""
        from . import search_words as ts
        same = [tok for tok in t.children if getattr(tok, "type", None) == "STRING"]
        wide = next((ch for ch in t.children if getattr(ch, "data", None) == "vocabulary_broader"), None)
        broader = self.visit(wide) if wide is not None else []
        if len(same) + len(broader) > ts.MAX_PHRASES:
            self.error(t.children[0], f"a vocabulary group holds at most {ts.MAX_PHRASES} phrases",
                       "split it into groups of phrases that mean the same thing")
            return None
        phrases = []
        for tok in same + broader:
            text = self.string(tok)
            words = ts.words(text)
            if len(words) > ts.MAX_PHRASE_WORDS or len(text) > 80:
                self.error(tok, f"a vocabulary phrase has at most {ts.MAX_PHRASE_WORDS} words",
                           "a phrase is what a player types for one thing: \"ranged attack\", \"LOS\"")
                return None
            if not any(p not in ts.stopwords() for w in words for p in w.split("-")):
                self.error(tok, f"{text!r} has no word search would look for",
                           "search drops stop words such as \"can\", \"the\" and \"how\" "
                           "(rules_dsl/language/searchdata/stopwords.txt): give a phrase with a word of its own")
                return None
            phrases.append(text)
        return "vocabulary", [n.VocabularyGroup(self.span(t), tuple(phrases[:len(same)]),
                                                tuple(phrases[len(same):]))]

    def vocabulary_broader(self, t) -> list:
        """`-> "broader", ...`: the phrase tokens (search only)."""
        return list(t.children)

    # ------------------------------------------------------------- front door
    def h_about(self, t) -> tuple:
        return "about", self.read_prose(t.children[0])

    def h_start(self, t) -> tuple:
        return "start", n.Named(self.span(t.children[0]), str(t.children[0]))

    def h_quick(self, t) -> tuple:
        """`quick reference { dice ... turn ... tables ... rules ... }`: each part once."""
        parts = {}
        for item in t.children:
            key = item.data[2:]
            if key in parts:
                self.error(item.children[0], f"the quick reference has a second `{key}`",
                           "write it once" + (" (list every name on that one line)" if key in ("tables", "rules") else ""))
                continue
            parts[key] = self.visit(item)
        return "quick", n.QuickReference(self.span(t), **parts)

    def q_dice(self, t) -> n.Prose:
        return self.read_prose(t.children[0])

    def q_turn(self, t) -> n.Prose:
        return self.read_prose(t.children[0])

    def q_tables(self, t) -> tuple:
        return tuple(n.Named(self.span(tok), str(tok)) for tok in t.children)

    def q_rules(self, t) -> tuple:
        return tuple(n.Named(self.span(tok), str(tok)) for tok in t.children)
