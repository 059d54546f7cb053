"""The words a search reads in a text: folding, word splitting, the stop words, and
the limits on a book's own `vocabulary` header.

They sit in the language, below the search that ranks with them
(faces/textsearch.py), because the parser checks a book's `vocabulary` groups
against them: a book from a stranger keeps within the limits, and every phrase has a
word search would look for.  The data files are here too (searchdata/: the stop
words and the shared wargame vocabulary), so a parse's cache key covers what it read
(library/cachekeys.py, PARSE_FILES).  The site's static/rules_search.js ports
`fold` and `words` line for line.
"""
from __future__ import annotations

import functools
import os
import re

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "searchdata")
STOPWORDS_FILE = os.path.join(DATA_DIR, "stopwords.txt")
VOCABULARY_FILE = os.path.join(DATA_DIR, "vocabulary.txt")

#: a book's own vocabulary: at most this many groups, phrases a group, words a phrase
MAX_GROUPS, MAX_PHRASES, MAX_PHRASE_WORDS = 200, 30, 6

_WORD = re.compile(r"[^\W_]+(?:-[^\W_]+)*")
_APOSTROPHE = r"(?<=[^\W_])['\u2019](?=[^\W_])"     # compiled by `re`'s cache, when a text has one


def fold(text: str) -> str:
    """Lower case; outside ASCII, decomposed (NFKD) with the marks dropped."""
    s = text.lower()
    if not s.isascii():
        import unicodedata      # here: a query in plain ASCII (most) never needs its tables
        s = "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.category(c).startswith("M"))
    return re.sub(_APOSTROPHE, "", s) if "'" in s or "\u2019" in s else s


def words(text: str) -> list:
    """The words of `text`, folded; a hyphenated word stays whole ("re-roll")."""
    return _WORD.findall(fold(text))


@functools.lru_cache(maxsize=1)
def stopwords() -> frozenset:
    return frozenset(data_lines(STOPWORDS_FILE))


def data_lines(path: str) -> list:
    """A data file's lines, without `#` comments and blank lines."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                out.append(line)
    return out
