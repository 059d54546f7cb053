"""`rules books`, `rules lookup` and `rules show`: the commands that answer from the lookup
index (index.py) without compiling a book (`show` loads one only to print its mechanics).

A cold `rules lookup` imports this module, cli_common, index and terminal: nothing else
of the package.
"""
from __future__ import annotations

import sys

from .cli_common import checked_book_id, decl_names, die, kinds_of, load_book, out_line, output, print_json, require_books, short, split_ref


def cmd_books(args):
    require_books()
    from .index import ensure_index
    idx = ensure_index()
    books = idx.books()
    if args.json:
        print_json(books)
        return 0
    wid = max([16] + [len(b["id"]) for b in books])
    wtitle = max([36] + [len(b["title"]) for b in books])
    for b in books:
        out_line(f"{b['id']:<{wid}} {b['title']:<{wtitle}} {b['rules']:>4} rules {b['mechanics']:>4} mechanics "
                 f"{b['examples']:>4} examples")
    return 0


def cmd_lookup(args):
    if args.book is not None:
        checked_book_id(args.book)
    from .index import ensure_index
    idx = ensure_index()
    query = " ".join(args.query)
    if not query.strip():
        die("give a rule name or some words to look up, e.g. rules lookup suppression")
    if args.book and args.book not in [b["id"] for b in idx.books()]:
        from ..errors import NotFound
        raise NotFound("book", args.book, [b["id"] for b in idx.books()])
    found = idx.search(query, book=args.book, limit=args.limit)
    results = found["results"]
    if results and found["unknown"]:
        # say which words found nothing (a question's "chess", a typo): the list is for the rest
        words = ", ".join(repr(w) for w in found["unknown"])
        sys.stderr.write(f"rules: no rule mentions {words}\n")
    if not results:
        require_books()
        near = idx.near_titles(query, book=args.book)
        where = f" in {args.book}" if args.book else ""
        hint = f"; near titles{where}: {', '.join(near)}" if near else ""
        if args.json:
            print_json([])
        sys.stderr.write(f"rules: nothing found for {short(query)!r}{where}{hint}\n")
        return 1
    if args.json:
        print_json(results)
        return 0
    out = output(args)
    for i, r in enumerate(results):
        if i:
            out_line()
        print_rule(r, out, rule_titles(idx, r["book"]))
    return 0


def rule_titles(idx, home: str, book=None):
    """title_of(book, rule) for [[references]]: the index holds every compiled book's
    rule titles (no compiler needed); a loaded `book` adds its section titles."""
    cache = {}

    def title_of(b, rid):
        b = b or home
        if (b, rid) not in cache:
            title = idx.title(b, rid)       # a layered book's inherited rule: its base's title
            if title is None and book is not None and b == book.id:
                title = next((p.node.title for p in book.sections if p.node.id == rid), None)
            cache[(b, rid)] = title
        return cache[(b, rid)]
    return title_of


def print_rule(r, out=None, title_of=None):
    from .terminal_prose import Out, prose_lines, wrap_segments
    out = out or Out(color=False)
    out_line(f"{out.style(r['book'] + ':' + r['rule'], 'dim')}  {out.style(r['title'], 'bold')}")
    if r.get("section"):
        out_line(f"  section: {r['section']}")
    if r.get("aliases"):
        out_line(f"  also: {', '.join(r['aliases'])}")
    for line in prose_lines(r["text"], out, title_of, compact=True):
        out_line(line)
    for sig in r.get("mechanics", []):
        for line in wrap_segments([(f"mechanic: {sig}", ())], out.width, out, "  ", "      "):
            out_line(line)
    for note in r.get("notes", []):
        for line in prose_lines(f"{note['kind']}: {note['text']}", out, title_of, indent="  note ",
                                subsequent="       ", compact=True):
            out_line(line)


def cmd_show(args):
    book_id, rule_id = split_ref(args.ref)
    from ..errors import NotFound
    from .index import ensure_index
    idx = ensure_index()
    try:
        r = idx.get(book_id, rule_id)
    except NotFound as e:
        if e.kind != "rule":
            raise
        # a mechanic's, table's or constant's name: show the rule that declares it
        book = load_book(book_id)
        owner = book.rule_of(rule_id)
        if not owner:
            raise NotFound("rule", rule_id, list(book.rules_by_id) + decl_names(book), where=book_id) from None
        sys.stderr.write(f"rules: '{rule_id}' is {kinds_of(book, rule_id)[0]} of rule {book_id}:{owner}; showing that rule\n")
        r = idx.get(book_id, owner)
    if args.json:
        print_json(r)
        return 0
    from .terminal import rule_lines
    out = output(args)
    book = load_book(book_id)
    for line in rule_lines(book, book.rule(r["rule"]), r, out, rule_titles(idx, book_id, book)):
        out_line(line)
    return 0


