"""The commands over whole books, for designers and developers: `rules check` (compile,
run every example, report findings; `--watch`), `rules diff`, `rules export` (JSON open
data), `rules js` (ES modules), and the two servers, `rules preview` and `rules lsp`.
"""
from __future__ import annotations

import sys

from .cli_common import checked_book_id, die, load_book, out_line, output, print_json, require_books, short


def cmd_check(args):
    from ..errors import RulebookError
    from ..library.loader import book_ids, load
    ids = [checked_book_id(args.book)] if args.book is not None else book_ids()
    if not ids:
        require_books()
    if args.book and args.book not in book_ids():
        from ..errors import NotFound
        raise NotFound("book", args.book, book_ids())
    if args.watch:
        from ..library.loader import DEFAULT
        from .watch import watch
        try:
            return watch(DEFAULT, ids, lambda line: (out_line(line), sys.stdout.flush()))
        except KeyboardInterrupt:
            return 0
    report = {"books": [], "examples": {"passed": 0, "failed": 0}, "findings": [], "errors": [], "warnings": []}
    failed = False
    for bid in ids:
        try:
            book = load(bid)
        except RulebookError as e:
            failed = True
            report["errors"].append({"book": bid, "message": e.render(),
                                     "diagnostics": [d.as_json() for d in e.diagnostics]})
            if not args.json:
                sys.stderr.write(e.render() + "\n")
            continue
        results = book.run_examples()
        ok = sum(r.passed for r in results)
        bad = [r for r in results if not r.passed]
        report["examples"]["passed"] += ok
        report["examples"]["failed"] += len(bad)
        findings = book.findings
        report["books"].append({"id": bid, "title": book.title, "rules": len(book.rules),
                                "mechanics": len(book.mechanics), "examples": len(results),
                                "examples_failed": len(bad), "findings": len(findings)})
        report["findings"].extend(f.as_json() for f in findings)
        report["warnings"].extend(dict(d.as_json(), book=bid) for d in book.warnings)
        if bad or any(f.kind == "check-error" for f in findings):
            failed = True
        if (args.strict or book.findings_fail) and findings:
            failed = True
        if not args.json:
            from ..library.findings import finding_lines, tally
            counted = tally(findings)
            out_line(f"{bid}: {len(book.rules)} rules, {len(book.mechanics)} mechanics, "
                     f"{ok}/{len(results)} examples pass, {len(findings)} finding(s)"
                     + (f": {counted}" if counted else ""))
            for r in bad:
                out_line(f"  FAILED example {r.location} ({r.rule})\n" + "\n".join("    " + l for l in r.report.splitlines()))
            for line in finding_lines(findings):
                out_line(line)
            if findings and book.findings_fail and not args.strict:
                out_line(f"  {bid}: its header says `findings fail`, so these findings fail the check")
            for d in book.warnings:
                out_line("  " + d.render().replace("\n", "\n  "))
    if args.json:
        print_json(report)
    return 1 if failed else 0


def cmd_diff(args):
    """`rules diff A B`: diff.py computes, diff_text.py says it in players' words."""
    from . import diff
    from .diff_text import lines
    if args.budget is not None and args.budget < 1:
        die("--budget is a number of evaluations, at least 1")
    a, b = load_book(args.a), load_book(args.b)
    d = diff.diff_books(a, b, budget=args.budget or diff.DEFAULT_BUDGET,
                        time_limit=args.time_limit or diff.DEFAULT_SECONDS)
    if args.json:
        print_json(d)
        return 0
    for line in lines(d, a, b, output(args).width):
        out_line(line)
    return 0


def cmd_export(args):
    """`rules export`: the books as JSON files (rules_dsl/faces/export.py), and where they went."""
    import os
    from . import export
    from ..library.loader import book_ids, load
    if not book_ids():
        require_books()
    if args.book is not None:
        checked_book_id(args.book)
    if args.out is not None and not args.out.strip():
        die("--out needs a folder (or - to print one book's JSON); leave it out for ./rules-data")
    if args.out == "-":
        if not args.book:
            die("--out - prints one book's JSON: name the book, e.g. rules export null-strike --out -")
        sys.stdout.write(export.book_json(load(args.book)))
        return 0
    out = args.out or export.DEFAULT_OUT
    try:
        result = export.export(out, [args.book] if args.book else None)
    except OSError as e:
        die(f"cannot write the export to {short(out)}: {e.strerror or e}")
    for bid, err in result.errors.items():
        sys.stderr.write(f"rules: book '{bid}' does not compile and is not exported: {short(err, 300)}\n")
    where = os.path.abspath(out)
    if args.json:
        print_json({"out": where, "books": result.books, "errors": result.errors,
                    "files": [{"name": name, "bytes": size, "written": name in result.written}
                              for name, size in result.sizes.items()]})
    else:
        out_line(f"{len(result.books)} book(s) exported to {where}")
        for name, size in result.sizes.items():
            note = "" if name in result.written else "  (unchanged)"
            out_line(f"  {name:<30} {size / 1024:8.1f} KB{note}")
    return 1 if result.errors else 0


def cmd_js(args):
    """`rules js [BOOK ...] [--out DIR]`: each book's ES module and the runtime, with their sizes."""
    import gzip
    import os

    if not args.out.strip():
        die("--out needs a folder; leave it out for _build/js")
    from ..jsgen import write
    from ..library.loader import book_ids, load
    known = book_ids()
    ids = args.book or known
    if not ids:
        require_books()
    for bid in ids:
        checked_book_id(bid)
        if bid not in known:
            from ..errors import NotFound
            raise NotFound("book", bid, known)
    written = []
    for bid in ids:
        book = load(bid)
        for kind, path in write(book, args.out, examples=args.examples).items():
            if kind == "runtime" and any(w["kind"] == "runtime" for w in written):
                continue
            data = open(path, "rb").read()
            written.append({"kind": kind, "book": "" if kind == "runtime" else bid, "path": path, "bytes": len(data),
                            "gzip_bytes": len(gzip.compress(data, 9)),
                            "mechanics": len(book.mechanics) if kind == "book" else 0})
    if args.json:
        print_json(written)
        return 0
    for w in written:
        what = f"{w['book']} ({w['mechanics']} mechanics)" if w["kind"] == "book" else w["kind"]
        out_line(f"{os.path.relpath(w['path'])}: {w['bytes']:,} bytes, {w['gzip_bytes']:,} gzipped  {what}")
    return 0


def cmd_lsp(args):
    try:
        from .lsp import main as serve   # pygls is imported by this command only
    except ImportError as e:
        die(f"rules lsp needs pygls ({e}); install it with: pip install 'pygls>=1.3,<3'", 2)
    return serve()


def cmd_preview(args):
    from .preview import run   # sphinx-autobuild runs in its own process
    return run(args.project, args.port, args.host, args.open)


