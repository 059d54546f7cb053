"""How the lookup index matches a query against rule titles and aliases: the normalised
form of a name, its spelling without inner hyphens, the trigram query and the deletion
keys by which SQLite hands over a query's candidate names (so no name is scanned in
Python), and the score of one candidate (`score_name`).  index_build.py writes names and
keys with these; index.py queries with them: one definition for both sides.
"""
from __future__ import annotations

import re


def norm_name(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", s.lower()).strip()


_INNER_HYPHEN = r"(?<=[A-Za-z0-9])-(?=[A-Za-z0-9])"     # compiled by `re`'s cache, when a text has "-"


def unhyphenated(text: str) -> str:
    """`text` with its words' inner hyphens dropped ("Re-roll" -> "Reroll")."""
    return re.sub(_INNER_HYPHEN, "", text) if "-" in text else text


def trigram_query(q: str) -> str:
    """An FTS5 trigram query matching any trigram of `q` (words shorter than three
    characters have none)."""
    grams = {q[i:i + 3] for i in range(len(q) - 2)}
    return " OR ".join(f'"{g}"' for g in sorted(grams))


#: how many distinct names the trigram prefilter hands to difflib, best bm25 first
FUZZY_CANDIDATES = 300
#: words longer than this get no deletion keys (their typos share trigrams)
MAX_DELETE_WORD = 14


def deletions(word: str) -> set:
    """`word` and the strings left by deleting one character (two for words of
    five or more): any name a typo of a short word still shares no trigram with
    (a swap, a dropped or a wrong letter: "aromr" and "armour" both give "armr")
    shares one of these with it."""
    out = {word}
    frontier = {word}
    for _ in range(2 if len(word) >= 5 else 1):
        frontier = {w[:i] + w[i + 1:] for w in frontier for i in range(len(w)) if len(w) > 2}
        out |= frontier
    return out


def delete_keys(norm: str) -> set:
    """The deletion keys of a normalised name: of each word of two or more
    characters and of the name without its spaces."""
    words = [w for w in norm.split() if len(w) >= 2] + [norm.replace(" ", "")]
    keys = set()
    for w in words:
        if 2 <= len(w) <= MAX_DELETE_WORD:
            keys |= deletions(w)
    return keys


def score_name(q: str, nn: str, sm, one_word: bool) -> float:
    """The title/alias score of one normalised name `nn` for the query `q` (before
    the alias penalty): exact 100, a word or a prefix 80, a word prefix 70, a
    similar name 50..90, a typo of one word of a longer name 45; 0 if none."""
    lq = len(q)
    if nn == q:
        return 100
    words = nn.split()
    if q in words or (lq >= 4 and nn.startswith(q)):
        return 80
    if lq >= 4 and f" {q}" in f" {nn}":
        return 70
    best = 0
    # typo-tolerant: a similarity ratio >= 0.75 needs lengths within a factor 0.6
    ln = len(nn)
    if 0.6 * lq <= ln <= lq / 0.6:
        sm.set_seq1(nn)
        if sm.quick_ratio() >= 0.75:
            r = sm.ratio()
            if r >= 0.75:
                best = 50 + 40 * (r - 0.75) / 0.25
    # a typo of one word of a longer title (e.g. "supresion" -> "Suppressive Fire")
    if one_word and best < 45:
        for w in words:
            if len(w) >= 5 and 0.66 * lq <= len(w) <= lq / 0.66:
                sm.set_seq1(w)
                if sm.quick_ratio() >= 0.8 and sm.ratio() >= 0.8:
                    best = 45
                    break
    return best

