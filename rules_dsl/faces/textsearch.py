"""Full-text search's one definition: how text becomes search terms, and how a rule scores.

`rules lookup` (index.py, over SQLite) and the site's search box (static/rules_search.js,
in the browser) rank a rule's text by this module's rules; the JavaScript is a port of
it, line for line, and tests/test_search_js.py holds the two to the same terms, the same
scores and the same top three.  docs/search.md explains it for players and designers.

**Terms.**  Text is lower-cased; outside ASCII it is decomposed (NFKD) and its marks
dropped ("Blütkreuz" is "blutkreuz"); an apostrophe inside a word goes ("don't" is
"dont").  A word is a run of letters and digits, or several joined by hyphens: "re-roll"
gives "re", "roll" and, at the place of its last part, "reroll".  Stop words
(searchdata/stopwords.txt: "can", "I", "how"...) are dropped and take no place, so
"line of sight" is two neighbouring terms.  Each word is stemmed by the Snowball Porter
stemmer ("running" is "run", "models" is "model"): the `snowballstemmer` package here,
the same Snowball program's JavaScript (vendored, static/snowball-*.js) in the browser.
Porter, not Porter2: its Snowball source is frozen, so every release of either gives the
same stems (checked word for word by tests/test_search_js.py).

**Vocabulary.**  searchdata/vocabulary.txt holds groups of phrases players use for the
same thing ("shoot, fire, ranged attack"), and optional broader phrases ("run ... ->
move"); a book adds groups in its header (`vocabulary`).  Each group is a *concept*: a
rule's field that holds one of its phrases also holds the concept's term (``~`` and the
group's first phrase, "~shoot"), at the phrase's last place.  A query's phrase adds its
group's concept (weight `RANK["synonym"]`) and its broader phrases (`RANK["broader"]`)
to the query.  A book's groups apply to that book's rules only: they annotate its rules,
and a query's phrase expands through them only when scoring its rules (a term's book in `Slot.terms`),
so a book can never change how another book's rules rank.

**Scoring** (BM25F over five fields; constants in `RANK`, shipped to the browser):

* each query word not a stop word is a *slot*; its terms are its stem (weight 1), the
  concepts and broader terms of the phrases ending at it, the indexed terms it is a
  prefix of when it is the query's last word (`prefix`, at most `prefix_max`, most
  common first), and, when its stem is in no rule, the indexed terms closest to it
  (`fuzzy`: difflib's ratio at least `fuzzy_ratio`, same first letter; a word found
  only so is still reported as in no rule);
* a term's weight in a rule: ``tf~ = sum over fields f of W_f * tf_f / (1 - b_f + b_f *
  len_f / ref_f)``, with `ref` fixed reference lengths (not the library's averages: a
  rule's weights depend on that rule alone, so a book's part is made once), saturated as
  ``tf~ / (k1 + tf~)``;
* ``idf = ln(1 + (N - df + 0.5) / (df + 0.5))`` over the whole library (N rules, df the
  rules holding the term);
* ``base`` = the sum, over slots and their terms, of weight x idf x saturated tf~;
* ``proximity``: for each two neighbouring slots found in one field (not notes), ``prox
  x (best_i + best_j) / 2 / distance`` when their nearest places are at most `window`
  apart (distance 1: side by side in order; a reversed pair counts one more), where
  best is the slot's largest weight x idf found in the rule;
* the score ``base + proximity``, rounded to 6 decimals (`rounded`), so that the two
  runtimes' last bits never decide.

Every word is optional: a rule that holds more of them, rarer ones, in its title and
aliases, and near each other, ranks higher.

Over 500 lines because it is the one definition that static/rules_search.js ports line
for line and tests/test_search_js.py holds the two to: terms, the vocabulary, a rule's
document and a query's score are one ranking, read together; split, the definition the
browser must match would live in several files (index_build.py and index.py already
keep the SQLite side of it apart).
"""
from __future__ import annotations

import functools
import math

# the words a search reads (word splitting, stop words, the data files): the language's, since
# the parser checks a book's `vocabulary` against them (language/search_words.py)
from ..language.search_words import STOPWORDS_FILE, VOCABULARY_FILE, data_lines, stopwords, words

#: the full-text fields of a rule, in order (rules_search.js reads the same order)
FIELDS = ("title", "aliases", "keywords", "text", "notes")
#: the ranking's constants: one definition, written into the site's names file for the browser
RANK = {
    "weights": [3.0, 2.5, 1.5, 1.0, 0.5],       # title and aliases above keywords above text
    "b": [0.5, 0.5, 0.5, 0.75, 0.75],            # how much a field's length discounts its terms
    "ref": [3, 6, 8, 80, 60],                    # reference field lengths, in terms
    "k1": 1.2,
    "synonym": 0.6, "broader": 0.3, "prefix": 0.4, "fuzzy": 0.5,
    "prox": 0.5, "window": 5,
    "prefix_min": 3, "prefix_max": 20, "fuzzy_ratio": 0.85, "fuzzy_max": 3,
    "gap": 10,                                   # places between two aliases (or keywords)
}
#: notes are searched (cut to this many characters), never shown in results
NOTE_CHARS = 600


# ------------------------------------------------------------------ words and terms
@functools.lru_cache(maxsize=1)
def _porter():
    # the module, not `snowballstemmer.stemmer("porter")`: that picks PyStemmer's C library
    # when it is installed, whose version need not be the one the browser's copy was made from
    from snowballstemmer.porter_stemmer import PorterStemmer
    return PorterStemmer()


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """The Snowball Porter stem of one folded word (the word itself where Porter leaves
    nothing: "s")."""
    return _porter().stemWord(word) or word


def tokens(text: str, stem_of=stem) -> list:
    """[(term, place, joined)] of one piece of text, from place 0: each word's stem, stop
    words dropped and taking no place; a hyphenated word's parts, then its joined spelling
    (`joined` true) at the place of its last part.  Phrases are matched against the parts
    only."""
    stop = stopwords()
    out, place = [], 0
    for w in words(text):
        parts = w.split("-")
        last = None
        for p in parts:
            if p not in stop:
                out.append((stem_of(p), place, False))
                last = place
                place += 1
        if len(parts) > 1:
            j = "".join(parts)
            if j not in stop:
                if last is None:
                    last = place
                    place += 1
                out.append((stem_of(j), last, True))
    return out


def field_tokens(items, stem_of=stem) -> list:
    """`tokens` of a field given as pieces (a rule's aliases, its keywords, or one text):
    each piece starts `RANK["gap"]` places after the end of the one before."""
    out, start = [], 0
    for item in items:
        toks = tokens(item, stem_of)
        if not toks:
            continue
        if out:
            start += RANK["gap"]
        for term, place, joined in toks:
            out.append((term, place + start, joined))
        start += max(t[1] for t in toks) + 1
    return out


# ------------------------------------------------------------------ the vocabulary
def parse_vocabulary_line(line: str) -> tuple:
    """("a, b, c -> d, e") -> ([a, b, c], [d, e])."""
    left, _, right = line.partition("->")
    same = [p.strip() for p in left.split(",") if p.strip()]
    broader = [p.strip() for p in right.split(",") if p.strip()]
    return same, broader


@functools.lru_cache(maxsize=1)
def shared_groups() -> tuple:
    """The shared vocabulary's groups: ((phrases...), (broader...)), in file order."""
    return tuple((tuple(a), tuple(b)) for a, b in map(parse_vocabulary_line, data_lines(VOCABULARY_FILE)))


def data_key() -> str:
    """A key of the search data files (stop words, vocabulary): part of every cache key
    that depends on them (the lookup index's book entries, the site's search parts)."""
    import hashlib
    h = hashlib.sha256()
    for path in (STOPWORDS_FILE, VOCABULARY_FILE):
        with open(path, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:20]


def data_stamps() -> list:
    """The stamps of the search data files (the lookup index's fast freshness check)."""
    from ..library.cachekeys import stamp
    return [stamp(STOPWORDS_FILE), stamp(VOCABULARY_FILE)]


def phrase_terms(phrase: str, stem_of=stem) -> tuple:
    """A phrase as search terms: its parts' stems (not a hyphenated word's joined
    spelling), stop words dropped."""
    return tuple(t[0] for t in tokens(phrase, stem_of) if not t[2])


def concept_name(terms) -> str:
    return "~" + "_".join(terms)


class Vocabulary:
    """The phrase table of one scope (the shared list, or the shared list with one book's
    groups): `entries` [(phrase terms, concept, (broader terms...))] in order; the site
    ships them and rules_search.js builds the same table."""

    def __init__(self, entries):
        self.entries = list(entries)
        self.by_first = {}
        for e in self.entries:
            self.by_first.setdefault(e[0][0], []).append(e)

    def concepts_at(self, terms, places) -> list:
        """[(phrase, concept, broader, index of its first term, of its last)] for every phrase
        of the table found in `terms` at consecutive `places`, in the order of `terms`."""
        out = []
        for i, t in enumerate(terms):
            for phrase, concept, broader in self.by_first.get(t, ()):
                n = len(phrase)
                if i + n <= len(terms) and tuple(terms[i:i + n]) == phrase and \
                        all(places[i + k + 1] == places[i + k] + 1 for k in range(n - 1)):
                    out.append((phrase, concept, broader, i, i + n - 1))
        return out


def _group_entries(groups, stem_of, known: dict, owner: str) -> list:
    """Table entries of `groups` [((phrases), (broader))].  A group takes the concept of
    the first group (in `known`, {phrase terms: concept}, or earlier here) that shares a
    phrase with it, else its own (its first phrase); a broader phrase is the concept of
    the group holding it, else (one word) its term."""
    made = []
    for same, broader in groups:
        phrases = list(dict.fromkeys(p for p in (phrase_terms(s, stem_of) for s in same) if p))
        if not phrases:
            continue
        concept = next((known[p] for p in phrases if p in known), None) or concept_name(phrases[0])
        for p in phrases:
            known.setdefault(p, concept)
        made.append((phrases, concept, broader))
    entries = []
    for phrases, concept, broader in made:
        wide = []
        for b in broader:
            bt = phrase_terms(b, stem_of)
            if not bt:
                continue
            target = known.get(bt)
            if target is None:
                if len(bt) > 1:
                    raise ValueError(f"{owner}: the broader phrase {b!r} is in no group (a broader phrase of "
                                     "several words must be one of a group's phrases)")
                target = bt[0]
            if target not in wide and target != concept:
                wide.append(target)
        entries.extend((p, concept, tuple(wide)) for p in phrases)
    return entries


@functools.lru_cache(maxsize=1)
def shared_vocabulary() -> Vocabulary:
    return Vocabulary(_group_entries(shared_groups(), stem, {}, "searchdata/vocabulary.txt"))


def book_vocabulary_entries(groups, stem_of=stem) -> list:
    """The entries a book's own groups add to the shared table: their phrases, with the
    concept of the shared group they share a phrase with (else their own), and their
    broader phrases; an entry the shared table already holds as is is left out."""
    if not groups:
        return []
    shared = shared_vocabulary().entries
    have = {(e[0], e[1], e[2]) for e in shared}
    known = {}
    for e in shared:
        known.setdefault(e[0], e[1])
    return [e for e in _group_entries(groups, stem_of, known, "the book's vocabulary") if e not in have]


def book_vocabulary(groups) -> Vocabulary:
    """The table a book's rules are annotated with: the shared one and the book's groups."""
    extra = book_vocabulary_entries(groups)
    return shared_vocabulary() if not extra else Vocabulary(shared_vocabulary().entries + extra)


# ------------------------------------------------------------------ a rule's document
def rule_fields(title, aliases, keywords, text, notes, mechanics) -> list:
    """A rule's five fields as lists of pieces of text (`FIELDS`): `text` is its prose as
    plain text, `mechanics` its mechanics' names, `notes` the notes' text, cut to
    `NOTE_CHARS` (search_index.py ships exactly these strings to the browser)."""
    body = text + ("\n" + mechanics if mechanics else "")
    return [[title], list(aliases), list(keywords), [body], [notes[:NOTE_CHARS]]]


def analyse(fields, vocabulary: Vocabulary, stem_of=stem) -> dict:
    """A rule's document: ``{"len": [terms per field], "terms": {term: [[tf per field],
    [[places] per field]]}}`` (concepts included, found in each field)."""
    nf = len(FIELDS)
    lens, terms = [], {}
    for f, items in enumerate(fields):
        toks = field_tokens(items, stem_of)
        parts = [t for t in toks if not t[2]]
        lens.append(len(parts))
        for t in toks:
            _add(terms, t[0], f, t[1], nf)
        found = vocabulary.concepts_at([t[0] for t in parts], [t[1] for t in parts])
        for _phrase, concept, _broader, _i, last in found:
            if concept is not None:
                _add(terms, concept, f, parts[last][1], nf)
    return {"len": lens, "terms": terms}


def _add(terms, term, f, place, nf):
    entry = terms.get(term)
    if entry is None:
        entry = terms[term] = [[0] * nf, [[] for _ in range(nf)]]
    entry[0][f] += 1
    entry[1][f].append(place)


def term_weight(tf, lens) -> float:
    """tf~: a term's weight in a rule, from its count in each field and the fields' lengths."""
    w = 0.0
    W, B, R = RANK["weights"], RANK["b"], RANK["ref"]
    for f in range(len(FIELDS)):
        if tf[f]:
            w += W[f] * tf[f] / (1 - B[f] + B[f] * lens[f] / R[f])
    return w


def saturated(w: float) -> float:
    return w / (RANK["k1"] + w)


def idf(n: int, df: int) -> float:
    return rounded(math.log(1 + (n - df + 0.5) / (df + 0.5)), 9)


def rounded(x: float, digits: int = 6) -> float:
    """x to `digits` decimals, the same way in both runtimes (floor(x * 10**d + 0.5) / 10**d)."""
    m = 10 ** digits
    return math.floor(x * m + 0.5) / m


def places_text(places) -> str:
    """[[places] per field] as the index stores them: "f:p,p;f:p"."""
    return ";".join(f"{f}:{','.join(map(str, ps))}" for f, ps in enumerate(places) if ps)


def parse_places(text: str) -> dict:
    out = {}
    for part in text.split(";") if text else ():
        f, _, ps = part.partition(":")
        out[int(f)] = [int(p) for p in ps.split(",")]
    return out


# ------------------------------------------------------------------ queries
class Slot:
    """One query word: its folded spelling, and its terms [(term, weight, first slot
    covered, book or None)] in scoring order."""
    __slots__ = ("word", "stem", "terms", "fuzzy")

    def __init__(self, word, stem_):
        self.word, self.stem, self.terms, self.fuzzy = word, stem_, [], []

    def add(self, term, weight, first, book=None):
        for t in self.terms:
            if t[0] == term and t[3] == book:
                return
        self.terms.append((term, weight, first, book))


def query_slots(query: str, stem_of=stem) -> list:
    """The query's slots, each holding its stem only (`expand` adds the rest): one per word
    that is not a stop word; a hyphenated word is one slot, found by its joined spelling
    (which the index holds for every hyphenated word).  A query of stop words only has no
    slot: the names tier answers it alone."""
    stop = stopwords()
    slots = []
    for w in words(query):
        spelled = w.replace("-", "")
        if spelled in stop:
            continue
        s = Slot(spelled, stem_of(spelled))
        s.add(s.stem, 1.0, len(slots))
        slots.append(s)
    return slots


def expand(slots, tables, prefixes=None, similar=None) -> list:
    """Add each slot's other terms, in scoring order: the vocabulary's (`tables`: [(book or
    None, Vocabulary or entries by first term)], shared first), then, for the last slot,
    the indexed terms its spelling begins (`prefixes(word)` -> [term], most common first),
    and, for a slot whose stem no rule holds, similar terms (`similar(stem)` -> [term]).
    `prefixes` and `similar` are the index's (SQLite or the browser's terms files)."""
    if not slots:
        return slots
    terms = [s.stem for s in slots]
    places = list(range(len(slots)))
    for book, table in tables:
        for _phrase, concept, broader, i, last in table.concepts_at(terms, places):
            if concept is not None:
                slots[last].add(concept, RANK["synonym"], i, book)
            for b in broader:
                slots[last].add(b, RANK["broader"], i, book)
    last = slots[-1]
    if prefixes is not None and last.word and len(last.word) >= RANK["prefix_min"]:
        for t in prefixes(last.word):
            last.add(t, RANK["prefix"], len(slots) - 1)
    if similar is not None:
        for i, s in enumerate(slots):
            for t in similar(s.stem):
                s.add(t, RANK["fuzzy"], i)
                s.fuzzy.append(t)
    return slots


def similar_terms(stem_: str, candidates) -> list:
    """The fuzzy terms of a stem no rule holds, from `candidates` [(term, df)] (the index's
    terms with the same first character and a length within 2): difflib's ratio at least
    `fuzzy_ratio`, best first (then the commoner, then alphabetical), at most `fuzzy_max`."""
    from difflib import SequenceMatcher
    sm = SequenceMatcher(autojunk=False)
    sm.set_seq2(stem_)
    scored = []
    for term, df in candidates:
        if term == stem_ or term.startswith("~"):
            continue
        sm.set_seq1(term)
        if sm.quick_ratio() >= RANK["fuzzy_ratio"]:
            r = sm.ratio()
            if r >= RANK["fuzzy_ratio"]:
                scored.append((-r, -df, term))
    return [t for _, _, t in sorted(scored)[:RANK["fuzzy_max"]]]


def score_parts(slots, idfs: dict, doc_terms: dict, book: str) -> tuple:
    """(base, covered, best) of one rule of `book`: `doc_terms` {term: saturated tf~} are
    the rule's, `idfs` {term: idf} the query terms'.  The sum runs slot by slot, term by
    term, in the query's order (rules_search.js sums in the same order: the same bits)."""
    n = len(slots)
    covered, best, base = [False] * n, [0.0] * n, 0.0
    for i, s in enumerate(slots):
        for term, weight, first, tbook in s.terms:
            if tbook is not None and tbook != book:
                continue
            sat = doc_terms.get(term)
            if sat is None:
                continue
            wi = weight * idfs[term]
            base += wi * sat
            for k in range(first, i + 1):
                covered[k] = True
                if wi > best[k]:
                    best[k] = wi
    return base, covered, best


def proximity(slots, covered, best, book, doc_terms, places_of) -> float:
    """The nearness bonus: for each two neighbouring slots found in one field (titles to
    text), prox x (best_i + best_j) / 2 / distance, when the distance is at most `window`."""
    prox = 0.0
    for i in range(len(slots) - 1):
        if covered[i] and covered[i + 1]:
            d = _distance(_slot_places(slots, i, book, doc_terms, places_of),
                          _slot_places(slots, i + 1, book, doc_terms, places_of))
            if d is not None and d <= RANK["window"]:
                prox += RANK["prox"] * (best[i] + best[i + 1]) / 2 / d
    return prox


def final(covered, base: float, prox: float) -> float:
    """base + proximity, rounded to 6 decimals.  No coverage factor: the sum already ranks a
    rule holding more of the words higher, and a factor for the words a rule lacks sank the
    answer under rules that happen to hold a vague word of the question ("far", "big")."""
    return rounded(base + prox)


def score(slots, idfs: dict, doc_terms: dict, book: str, places_of) -> tuple:
    """(score, covered) of one rule (`score_parts`, `proximity`, `final`)."""
    base, covered, best = score_parts(slots, idfs, doc_terms, book)
    if not any(covered):
        return 0.0, covered
    return final(covered, base, proximity(slots, covered, best, book, doc_terms, places_of)), covered


def proximity_bound(covered, best) -> float:
    """The largest nearness bonus a rule with these slots found could get (distance 1)."""
    b = 0.0
    for i in range(len(covered) - 1):
        if covered[i] and covered[i + 1]:
            b += RANK["prox"] * (best[i] + best[i + 1]) / 2
    return b


def _slot_places(slots, i, book, doc_terms, places_of) -> dict:
    """{field: sorted places} of the terms that find slot `i` in a rule (its own, and those
    of a later slot's phrase that covers it), titles to text (not notes)."""
    out = {}
    for j in range(i, len(slots)):
        for term, _w, first, tbook in slots[j].terms:
            if first > i or (tbook is not None and tbook != book) or term not in doc_terms:
                continue
            for f, ps in places_of(term).items():
                if f < 4:
                    out.setdefault(f, set()).update(ps)
    return {f: sorted(ps) for f, ps in out.items()}


def _distance(a: dict, b: dict):
    """The nearest two places of `a` and `b` in one field: q - p for p before q, else p - q + 1
    (a reversed pair counts one more; the same place counts as side by side)."""
    best = None
    for f, ps in a.items():
        qs = b.get(f)
        if not qs:
            continue
        for p in ps:
            for q in qs:
                d = q - p if q > p else p - q + 1
                if best is None or d < best:
                    best = d
    return best


# ------------------------------------------------------------------ a book, as the index holds it
def plain(text: str) -> str:
    """A rule's prose as plain text on one line: markup gone, references read as their
    labels (what a reader sees; what both the lookup index and the site's shards hold)."""
    from ..language.prose import parse_prose, plain_text
    try:
        return plain_text(parse_prose(text))
    except Exception:      # prose the parser rejects stays as written (it is escaped when shown)
        return " ".join(text.split())


def mechanic_names(signatures) -> str:
    return " ".join(s.split("(", 1)[0] for s in signatures)


def note_text(notes) -> str:
    return " ".join(" ".join(n["text"].split()) for n in notes)


def record_fields(rec: dict) -> list:
    """`rule_fields` of one of the index's rule records (records.rule_record)."""
    return rule_fields(rec["title"], rec["aliases"], rec["keywords"], plain(rec["text"]),
                       note_text(rec["notes"]), mechanic_names(rec["mechanics"]))


def analyse_book(records, groups) -> dict:
    """What search keeps of one book, made once per book (index_build.book_entry caches it):
    ``{"vocabulary": the entries its own groups add, "stems": {word: stem} of every word
    it holds, "docs": [per rule, in order: {"len", "post": [[term, saturated tf~, places]]}]}``."""
    vocab = book_vocabulary(groups)
    stems = {}

    def stem_of(w):
        s = stems.get(w)
        if s is None:
            s = stems[w] = stem(w)
        return s

    docs = []
    for rec in records:
        d = analyse(record_fields(rec), vocab, stem_of)
        lens = d["len"]
        docs.append({"len": lens, "post": [[t, saturated(term_weight(tf, lens)), places_text(ps)]
                                           for t, (tf, ps) in sorted(d["terms"].items())]})
    return {"vocabulary": [[list(p), c, list(b)] for p, c, b in book_vocabulary_entries(groups)],
            "stems": stems, "docs": docs}
