"""Benchmark the website build (run by hand, not a test).

    python bench/bench_docs.py            # all books of rulebooks/
    python bench/bench_docs.py -j auto    # extra sphinx options are passed on

Works on scratch copies of the project and of rulebooks/ (the working tree is
never touched) and prints:

1. full build, cold: empty output and empty rules cache (parses, compiles,
   runs every check, example and exact-odds computation);
2. full build, warm cache: empty output folder, but the rules cache (parsed
   sources, results of checks/examples/odds by content) kept;
3. rebuild, nothing changed;
4. rebuild after editing the prose of one rule;
5. rebuild after editing one dice mechanic (its docstring: its odds are
   recomputed, as for any change to a mechanic).

For each rebuild it shows how many pages Sphinx re-read (the goal: only the
page holding the edited rule).  Goal for 4: under 5 s on a 2-core machine.
"""
from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules_dsl.sphinxext.testing import REPO, build, make_project  # noqa: E402


def timed(label, *args, **kw):
    t = time.perf_counter()
    proc = build(*args, **kw)
    dt = time.perf_counter() - t
    m = re.search(r"(\d+) added, (\d+) changed, (\d+) removed", proc.stdout)
    reread = f"{m.group(1)} added, {m.group(2)} changed" if m else "?"
    w = re.search(r"looking for now-outdated files\.\.\. (\d+) found", proc.stdout)
    extra = f", {w.group(1)} more written for fresh previews" if w else ""
    status = "ok" if proc.returncode == 0 else f"exit {proc.returncode}"
    print(f"{label:<48} {dt:7.2f} s   ({reread}{extra}; {status})")
    if proc.returncode != 0:
        warnings = [l for l in (proc.stdout + proc.stderr).splitlines() if "WARNING" in l or "ERROR" in l]
        for line in warnings[:5]:
            print("      " + line[:160])
        if len(warnings) > 5:
            print(f"      ... {len(warnings) - 5} more")
    return dt, proc


def pick_edits(books: Path):
    """A rule with prose, and a dice mechanic, from the copied books."""
    import os
    os.environ["RULES_DSL_BOOKS"] = str(books)
    from rules_dsl.language import nodes as n
    from rules_dsl.library.loader import book_ids, load
    prose = mech = None
    for bid in book_ids():
        try:
            book = load(bid, use_cache=False)
        except Exception:
            continue
        for r in book.rules:
            if prose is None and r.node.prose:
                prose = (bid, r.id, r.node.prose[0].span)
            for d in r.node.decls:
                if mech is None and isinstance(d, n.Mechanic) and d.doc and book.mechanics[d.name].has_dice:
                    mech = (bid, d.name, d.span)
        if prose and mech:
            break
    return prose, mech


def edit_prose(span):
    path = Path(span.file)
    lines = path.read_text(encoding="utf-8").split("\n")
    end = (span.end_line or span.line) - 1
    i = lines[end].rfind('"""')
    if i < 0:
        i = lines[end].rfind('"')
    lines[end] = lines[end][:i] + " Edited for the benchmark." + lines[end][i:]
    path.write_text("\n".join(lines), encoding="utf-8")


def edit_mechanic_doc(span):
    path = Path(span.file)
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    # the docstring is the first string after the signature: find it from the mechanic's line
    for k in range(span.line - 1, min(len(lines), span.line + 8)):
        m = re.search(r'"((?:[^"\\]|\\.)+)"', lines[k])
        if m and not lines[k].lstrip().startswith("#"):
            lines[k] = lines[k][:m.end() - 1] + " (benchmark)" + lines[k][m.end() - 1:]
            break
    path.write_text("\n".join(lines), encoding="utf-8")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--keep", action="store_true", help="keep the scratch folder")
    ap.add_argument("sphinx_args", nargs="*", help="extra sphinx options, e.g. -j auto")
    args, extra = ap.parse_known_args(argv)
    extra = list(extra) + list(args.sphinx_args)
    tmp = Path(tempfile.mkdtemp(prefix="bench-docs-"))
    try:
        project = make_project(tmp / "project")
        books = tmp / "books"
        shutil.copytree(REPO / "rulebooks", books)
        cache = tmp / "cache"
        out = tmp / "out"
        n_files = len(list(books.rglob("*.rules")))
        print(f"books: {books} ({n_files} .rules files); sphinx options: {' '.join(extra) or '(none)'}")
        timed("1. full build, cold (no caches)", project, out, books, cache, *extra)
        shutil.rmtree(out)
        full, _ = timed("2. full build, warm rules cache", project, out, books, cache, *extra)
        timed("3. rebuild, nothing changed", project, out, books, cache, *extra)
        prose, mech = pick_edits(books)
        if prose:
            edit_prose(prose[2])
            rebuild, _ = timed(f"4. rebuild after editing prose of {prose[0]}:{prose[1]}"[:48], project, out, books,
                               cache, *extra)
        else:
            rebuild = None
            print("4. (no rule with prose found)")
        if mech:
            edit_mechanic_doc(mech[2])
            timed(f"5. rebuild after editing mechanic {mech[0]}:{mech[1]}"[:48], project, out, books, cache,
                  *extra)
        print()
        print(f"full build (warm cache): {full:.2f} s")
        if rebuild is not None:
            print(f"rebuild after editing one rule: {rebuild:.2f} s (goal < 5 s: {'met' if rebuild < 5 else 'NOT met'})")
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
