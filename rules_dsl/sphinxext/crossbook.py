"""Data of the pages across books: the glossary of keywords, the cross index of
terms shared by two books, and the table of books (from the books' render models)."""
from __future__ import annotations

import functools
import re

_STOP = {"a", "an", "the", "of", "and", "or", "to", "in", "on", "for", "with", "by", "at", "from", "as",
         "is", "it", "its", "vs", "versus", "rule", "rules", "into", "onto", "your", "their", "than", "not",
         "no", "be", "are", "how", "what", "when", "who", "all", "any", "each", "per", "one", "two",
         "three", "once", "twice", "use", "using", "make", "making", "take", "taking", "new", "other",
         "more", "less", "only", "first", "second", "third", "last", "out", "off", "over", "under", "up",
         "down", "within", "without", "after", "before", "during", "can", "may", "must", "this", "that",
         "these", "those", "has", "have", "get", "getting", "general", "basic", "basics", "special",
         "optional", "advanced", "overview", "introduction", "notes", "example", "examples", "summary",
         "while", "name", "end", "type", "full"}


_stemmer = None


@functools.lru_cache(maxsize=None)
def stem(word: str) -> str:
    """The word's English stem; cached: a library repeats the same few thousand words."""
    global _stemmer
    if _stemmer is None:
        import snowballstemmer
        _stemmer = snowballstemmer.stemmer("english")
    return _stemmer.stemWord(word.lower())


def words(text: str):
    return [w for w in re.findall(r"[a-z][a-z']+", text.lower().replace("’", "'")) if w not in _STOP and len(w) > 2]


def rule_terms(rule: dict) -> dict:
    """stem -> (surface words that produced it, from the title?) for a rule's title and keywords."""
    out = {}
    for i, source in enumerate([rule["title"]] + list(rule["keywords"])):
        for w in words(source):
            w = w.strip("'")
            if len(w) < 3:
                continue
            surface, in_title = out.get(stem(w), (set(), False))
            surface.add(w)
            out[stem(w)] = (surface, in_title or i == 0)
    return out


def cross_index(models: dict) -> list:
    """Terms shared by rules of at least two books, with each book's rules side by side.

    Rules are grouped by the stems of their title words and keywords, so
    "Suppression" (Dust) meets "Suppressive Fire" (VOID).  A term needs at
    least one rule whose *title* has it; rules that only share a keyword are
    listed after the title matches (marked as such)."""
    groups = {}
    for bid, m in models.items():
        for r in m["rules"].values():
            title_words = words(r["title"])
            terms = r["terms"] if "terms" in r else rule_terms(r)      # summaries carry them worked out
            for st, (surface, in_title) in terms.items():
                g = groups.setdefault(st, {"surface": {}, "rules": {}, "titles": set(), "title_hits": 0})
                for w in surface:
                    g["surface"][w] = g["surface"].get(w, 0) + (2 if in_title else 1)
                g["rules"].setdefault(bid, []).append((r["id"], r["title"], in_title))
                g["title_hits"] += in_title
                if len(title_words) == 1 and stem(title_words[0]) == st:
                    g["titles"].add(r["title"])
    out = []
    for st, g in groups.items():
        if len(g["rules"]) < 2 or not g["title_hits"]:
            continue
        if g["titles"]:
            label = sorted(g["titles"], key=lambda t: (len(t), t))[0]
        else:
            label = sorted(g["surface"].items(), key=lambda kv: (-kv[1], len(kv[0]), kv[0]))[0][0].capitalize()
        by_book = {bid: sorted(set(rs), key=lambda x: (not x[2], x[1].lower(), x[1], x[0])) for bid, rs in g["rules"].items()}
        out.append({"stem": st, "label": label, "books": by_book})
    out.sort(key=lambda e: (e["label"].lower(), e["stem"]))
    return out


#: definitions shown under one keyword at most (one per book that defines it, in book order)
DEFINITIONS_SHOWN = 3


def defining_rules(models: dict) -> dict:
    """name_key -> [(book, rule id, title, definition)] of the rules whose title or an alias
    is that name: what a book *defines* (checks.defined_names), across every book."""
    from ..analysis.checks import name_key
    out = {}
    for bid, m in sorted(models.items()):
        for r in m["rules"].values():
            if not r.get("definition"):
                continue
            for name in dict.fromkeys(name_key(x) for x in (r["title"], *r.get("aliases", ()))):
                out.setdefault(name, []).append((bid, r["id"], r["title"], r["definition"]))
    return out


def glossary(models: dict) -> list:
    """Every keyword across the books, with what it means and the rules that carry it.

    A keyword's definition is the first sentence of the rule whose title or alias is
    that keyword (compared as a book compares names: `checks.name_key`), one per book
    that defines it, a rule that also carries the keyword first.  Keywords without a
    letter ("1", "4+", "+2") are left out: they name no term a player reads about, and
    `rules lookup` still finds them; keywords that start with a digit ("2d6", "25mm")
    are kept, after the letters (see `split_pages`)."""
    from ..analysis.checks import name_key
    defs = defining_rules(models)
    terms = {}
    for bid, m in models.items():
        for r in m["rules"].values():
            for kw in r["keywords"]:
                key = " ".join(kw.lower().split())
                if not re.search(r"[^\W\d_]", key):
                    continue
                t = terms.setdefault(key, {"forms": {}, "rules": []})
                form = " ".join(kw.split())
                t["forms"][form] = t["forms"].get(form, 0) + 1
                t["rules"].append((bid, r["id"], r["title"]))
    out = []
    for key, t in terms.items():
        label = sorted(t["forms"].items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
        rules = sorted(set(t["rules"]), key=lambda x: (x[0], x[2].lower(), x[2], x[1]))
        carriers = {(b, rid) for b, rid, _ in rules}
        cands = sorted(defs.get(name_key(key), ()), key=lambda d: (d[0], (d[0], d[1]) not in carriers,
                                                                   d[2].lower(), d[2], d[1]))
        shown, books = [], set()
        for d in cands:
            if d[0] not in books and len(shown) < DEFINITIONS_SHOWN:
                books.add(d[0])
                shown.append(d)
        out.append({"key": key, "label": label, "rules": rules, "definitions": shown})
    out.sort(key=lambda e: e["key"])
    return out


def books_table(models: dict) -> list:
    """Each book's id, title, edition, counts and its card for the game picker (front.py)."""
    return [{"id": bid, "title": m["title"], "edition": m["edition"], "counts": m["counts"], "card": m.get("card")}
            for bid, m in sorted(models.items())]


#: the home page shows every game's card up to this many books; beyond, the game picker
#: is split into pages by the first letters of the titles, none holding more
GAMES_PER_PAGE = 30


def games_pages(books: list, per_page: int = GAMES_PER_PAGE) -> list:
    """[(slug, books)]: no pages while the home page can hold every card; else the books in
    title order on pages by first letters (`split_pages`), each at most `per_page` books
    (a letter with more is split by its first two letters, then numbered pages)."""
    if len(books) <= per_page:
        return []
    ordered = sorted(books, key=lambda b: (b["title"].lower(), b["id"]))
    return split_pages(ordered, key=lambda b: b["title"], weight=lambda b: 1, budget=per_page,
                       cut=lambda b, budget: [b])


#: how many rule links one glossary or cross-index page holds at most (a page of
#: 600 links is about 250 KB of HTML, well under the 500 KB a phone should load)
LINKS_PER_PAGE = 600


def _letters(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _group(text: str) -> int:
    """Where a name's page goes: 0 letters (a-z), 1 digits (after the letters), 2 other."""
    k = _letters(text)
    return 2 if not k else (1 if k[0].isdigit() else 0)


DIGITS = "0-9"


def split_pages(entries: list, key, weight, budget: int = LINKS_PER_PAGE, cut=None) -> list:
    """[(slug, entries)]: `entries` (already in reading order) grouped by the
    first letter of `key(entry)`; a group with more than `budget` links
    (`weight(entry)` each) is split by its first two letters, and so on (at
    most four), so no page grows past the budget however big the library.
    Names that start with a digit share one page, ``0-9``, after the letters
    (split by their first digits when over budget); names without a letter or
    digit go last, under ``other``.

    A page still over budget after that (one term that a hundred books share, or
    terms alike in their first four letters) is packed onto consecutive pages
    ``slug``, ``slug-2``, ... when `cut` is given: `cut(entry, budget)` cuts an
    entry bigger than a page into parts (see `cut_xindex_entry`)."""
    def split(items, depth):
        groups = {}
        for e in items:
            k = _letters(key(e))
            groups.setdefault(k[:depth] if k else "other", []).append(e)
        out = []
        for slug, es in sorted(groups.items(), key=lambda kv: (kv[0] == "other", kv[0])):
            if (slug != "other" and depth < 4 and sum(weight(e) for e in es) > budget
                    and len({_letters(key(e))[:depth + 1] for e in es}) > 1):
                out.extend(split(es, depth + 1))
            else:
                out.append((slug, es))
        return out
    letters = [e for e in entries if _group(key(e)) == 0]
    digits = [e for e in entries if _group(key(e)) == 1]
    other = [e for e in entries if _group(key(e)) == 2]
    out = split(letters, 1)
    if digits:
        if sum(weight(e) for e in digits) > budget and len({_letters(key(e))[:1] for e in digits}) > 1:
            out.extend(split(digits, 1))
        else:
            out.append((DIGITS, digits))
    if other:
        out.append(("other", other))
    if cut is None:
        return out
    return [page for slug, es in out
            for page in (_pack(slug, es, weight, budget, cut) if sum(map(weight, es)) > budget else [(slug, es)])]


def _pack(slug: str, entries: list, weight, budget: int, cut) -> list:
    """[(slug, entries), (slug-2, ...), ...]: `entries` in order on pages of at most
    `budget` links, an entry bigger than a page cut into parts first."""
    pages, page, used = [], [], 0
    for piece in (p for e in entries for p in (cut(e, budget) if weight(e) > budget else [e])):
        if page and used + weight(piece) > budget:
            pages.append(page)
            page, used = [], 0
        page.append(piece)
        used += weight(piece)
    pages.append(page)
    return [(slug if i == 0 else f"{slug}-{i + 1}", es) for i, es in enumerate(pages)]


def _cut_by_book(items: list, budget: int, first: int = 0) -> list:
    """`items` [(book, weight, x)] in order, as runs that keep each book's items together,
    each run at most `budget` (a book bigger than that is a run of its own); the first run
    has `first` less room (what the entry carries besides its links)."""
    runs, run, used, room = [], [], 0, budget - first
    for book in dict.fromkeys(b for b, _, _ in items):
        mine = [it for it in items if it[0] == book]
        w = sum(it[1] for it in mine)
        if run and used + w > room:
            runs.append(run)
            run, used, room = [], 0, budget
        run.extend(mine)
        used += w
    runs.append(run)
    return runs


def cut_xindex_entry(entry: dict, budget: int) -> list:
    """A cross-index term too big for one page, as parts that each hold some of its books
    (whole), numbered ``part`` of ``parts``: the term's anchor is on the first part."""
    items = [(b, len(rs), rs) for b, rs in entry["books"].items()]
    runs = _cut_by_book(items, budget)
    return [{**entry, "books": {b: rs for b, _, rs in run}, "part": i + 1, "parts": len(runs)}
            for i, run in enumerate(runs)]


def cut_glossary_entry(entry: dict, budget: int) -> list:
    """A glossary keyword too big for one page, as parts that each list the rules of some
    books (whole); its definitions and its glossary term are on the first part."""
    items = [(r[0], 1, r) for r in entry["rules"]]
    runs = _cut_by_book(items, budget, first=3 * len(entry.get("definitions", ())))
    return [{**entry, "rules": [r for _, _, r in run], "definitions": entry.get("definitions", []) if i == 0 else [],
             "part": i + 1, "parts": len(runs)} for i, run in enumerate(runs)]


def page_title(slug: str) -> str:
    """A glossary or cross-index page's heading part: "A", "Sa", "0–9", "Other", and
    "Basi, page 2" for the pages a big term continues on (`split_pages`)."""
    if slug == DIGITS:
        return "0–9"
    more = re.fullmatch(r"(.+)-(\d+)", slug)
    if more:
        return f"{page_title(more.group(1))}, page {more.group(2)}"
    return slug.capitalize()


def part_label(entry: dict) -> str:
    """The label of an entry, with "(part 2 of 3)" when it is one part of a cut entry."""
    label = entry["label"]
    return f"{label} (part {entry['part']} of {entry['parts']})" if entry.get("parts", 1) > 1 else label


def jump_targets(slugs) -> list:
    """The A–Z jump bar: [(label, slug of the first page for it, or None)] for A..Z,
    then 0–9 and Other when there are such pages."""
    slugs = list(slugs)
    out = []
    for c in "abcdefghijklmnopqrstuvwxyz":
        out.append((c.upper(), next((s for s in slugs if s.startswith(c)), None)))
    digit = next((s for s in slugs if s[:1].isdigit()), None)
    if digit:
        out.append(("0–9", digit))
    if "other" in slugs:
        out.append(("Other", "other"))
    return out


def glossary_pages(entries: list, budget: int = LINKS_PER_PAGE) -> list:
    """A definition weighs about as much as three links (its text and its rule's link)."""
    return split_pages(entries, key=lambda e: e["key"],
                       weight=lambda e: len(e["rules"]) + 3 * len(e.get("definitions", ())), budget=budget,
                       cut=cut_glossary_entry)


def xindex_pages(entries: list, budget: int = LINKS_PER_PAGE) -> list:
    return split_pages(entries, key=lambda e: e["label"], weight=lambda e: sum(len(r) for r in e["books"].values()),
                       budget=budget, cut=cut_xindex_entry)


# ------------------------------------------------------------------ the front pages
#: terms shown under each letter on the glossary's and the cross index's front pages (the
#: letter's pages hold them all): the fronts stay the same size however big the library
FRONT_PER_LETTER = 6
#: a term's meaning on a front page is cut at a word past this many characters
MEANING_CHARS = 120


def one_line(text: str, most: int = MEANING_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= most else text[:most].rsplit(" ", 1)[0].rstrip(",;:") + " …"


def letter_of(slug: str) -> str:
    """The jump bar's label a page belongs to: "A" for a, ab, a-2; "0–9"; "Other"."""
    if slug == "other":
        return "Other"
    return "0–9" if slug[:1].isdigit() else slug[:1].upper()


def _by_letter(pages: dict) -> dict:
    """label -> [(slug, entries)] in page order."""
    out = {}
    for slug, entries in pages.items():
        out.setdefault(letter_of(slug), []).append((slug, entries))
    return out


def _usage(books: list, titles: dict) -> str:
    names = [titles.get(b, b) for b in books]
    shown = names if len(names) <= 3 else names[:2] + [f"{len(names) - 2} more"]
    return "In " + (shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1])


def glossary_front(pages: dict, titles: dict, per_letter: int = FRONT_PER_LETTER) -> list:
    """The glossary's front: per letter, its first page's slug, how many keywords it has and
    the `per_letter` keywords most rules carry, those with a definition first, shown A–Z,
    each with its meaning on one line (or, undefined, the books that use it)."""
    out = []
    for label, group in _by_letter(pages).items():
        rules = {}         # a keyword cut onto several pages: its parts' rules together
        for _, es in group:
            for e in es:
                rules.setdefault(e["key"], []).extend(e["rules"])
        entries = [e for _, es in group for e in es if e.get("part", 1) == 1]
        ranked = sorted(entries, key=lambda e: (not e.get("definitions"), -len(rules[e["key"]]), e["key"]))
        picked = []
        for e in sorted(ranked[:per_letter], key=lambda e: e["key"]):
            d = (e.get("definitions") or [None])[0]
            books = sorted({b for b, _, _ in rules[e["key"]]})
            picked.append({"key": e["key"], "label": e["label"], "rules": len(rules[e["key"]]),
                           "meaning": one_line(d[3]) if d else "", "usage": _usage(books, titles)})
        out.append({"letter": label, "slug": group[0][0], "count": len(entries), "terms": picked})
    return out


def xindex_front(pages: dict, titles: dict, defs: dict, per_letter: int = FRONT_PER_LETTER) -> list:
    """The cross index's front: per letter, the `per_letter` terms shared by the most books
    (shown A–Z), each with what it means where a book defines it (`defining_rules`), and
    the books that have rules for it."""
    from ..analysis.checks import name_key
    out = []
    for label, group in _by_letter(pages).items():
        books = {}         # a term cut onto several pages: its parts' books together
        for _, es in group:
            for e in es:
                books.setdefault(e["stem"], set()).update(e["books"])
        entries = [(slug, e) for slug, es in group for e in es if e.get("part", 1) == 1]
        ranked = sorted(entries, key=lambda se: (-len(books[se[1]["stem"]]), se[1]["label"].lower(), se[1]["stem"]))
        picked = []
        for slug, e in sorted(ranked[:per_letter], key=lambda se: (se[1]["label"].lower(), se[1]["stem"])):
            d = (defs.get(name_key(e["label"])) or [None])[0]
            picked.append({"stem": e["stem"], "label": e["label"], "slug": slug,
                           "meaning": one_line(d[3]) if d else "", "usage": _usage(sorted(books[e["stem"]]), titles)})
        out.append({"letter": label, "slug": group[0][0], "count": len(entries), "terms": picked})
    return out
