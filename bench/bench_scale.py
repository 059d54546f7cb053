"""Benchmark a library of N books (run by hand, not a test).

    python bench/bench_scale.py                 # N = 5, 25, 100
    python bench/bench_scale.py -n 5 -n 25      # some sizes only
    python bench/bench_scale.py --site          # also the website (slow: minutes per size)
    python bench/bench_scale.py --layers        # each copy with its layers; time the layer commands

For each N it generates a library of N books from the real books in
rulebooks/ (copy k of book `b` is `b` for k = 0, else `b-k`, with its
`book <id>` header and any `[[b:rule]]` reference rewritten to the copy's
ids) in a temporary folder, points RULES_DSL_BOOKS and RULES_DSL_CACHE at it,
and reports, each as the median of several cold processes:

* `rules lookup supression` (a typo), `rules lookup Suppression` and two questions
  (`QUESTIONS`: full text), index warm, the sizes interleaved run by run with
  `python -c pass`;
* the first `rules books` from an empty cache (parse, check, compile every book, build the index);
* `rules books` again after editing one book (only that book should recompile);
* with `--layers`: every copy of a book also gets the real layers on it
  (`xenotactics-3+errata`...; not counted in N), and `LAYER_COMMANDS` are timed, index
  warm: compile and diff a layer (`rules diff`), `rules check` a layered book (compile
  it, run its examples and checks) and a lookup in a layered book;
* with `--site`: full build, rebuild with no change, rebuild after editing one
  rule's prose, and the largest generated page.

How it runs the code: `python -m rules_dsl ...` with PYTHONPATH set to this
checkout (never the installed console script, which may belong to another
checkout).  Ratios are against `python -c pass` measured in the same run,
interleaved with the timed commands: the machine is shared, so read the ratios
rather than the milliseconds.  The package is byte-compiled first (`compileall`, as
`scripts/install.sh` and any regular pip install do): where PYTHONDONTWRITEBYTECODE
is set, a checkout without bytecode would compile every module in every timed process.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ID_RE = r"[a-z0-9][a-z0-9-]*"


def real_books(src: Path):
    """The ids of the books of `src` (not its layers, `base+name.rules`: see `real_layers`)."""
    return sorted(p.stem if p.is_file() else p.name for p in src.iterdir()
                  if "+" not in p.name and
                  ((p.suffix == ".rules" and p.is_file()) or (p.is_dir() and any(p.glob("*.rules")))))


def real_layers(src: Path):
    """The ids of the layers of `src` (errata, house rules on a book: `base+name`)."""
    return sorted(p.stem for p in src.glob("*+*.rules") if p.is_file())


def copy_id(book: str, k: int) -> str:
    return book if k == 0 else f"{book}-{k}"


def rewrite(text: str, k: int, ids) -> str:
    """Copy k of a book's text: its `book <id>` header and cross-book references."""
    if k == 0:
        return text
    text = re.sub(rf"^book\s+({ID_RE})(\s*\{{)", lambda m: f"book {copy_id(m.group(1), k)}{m.group(2)}",
                  text, count=1, flags=re.M)
    return re.sub(rf"\[\[({ID_RE}):", lambda m: f"[[{copy_id(m.group(1), k)}:" if m.group(1) in ids else m.group(0),
                  text)


def make_library(n: int, dest: Path, src: Path = REPO / "rulebooks", layers: bool = False) -> Path:
    """A books folder of `n` books: copies of the real ones (n rounded up to whole rounds).
    With `layers`, each copy of a book also gets a copy of the real layers on it (not
    counted in `n`; `layer NAME on BASE` rewritten to the copy's id)."""
    ids = real_books(src)
    on = {}
    for lid in real_layers(src):
        base, _, name = lid.rpartition("+")
        if "+" not in base:            # a layer on a layer is left out
            on.setdefault(base, []).append(name)
    dest.mkdir(parents=True, exist_ok=True)
    made = 0
    k = 0
    while made < n:
        for b in ids:
            if made >= n:
                break
            new = copy_id(b, k)
            if (src / f"{b}.rules").is_file():
                (dest / f"{new}.rules").write_text(rewrite((src / f"{b}.rules").read_text("utf-8"), k, ids), "utf-8")
            else:
                (dest / new).mkdir()
                for f in sorted((src / b).glob("*.rules")):
                    (dest / new / f.name).write_text(rewrite(f.read_text("utf-8"), k, ids), "utf-8")
            for name in on.get(b, []) if layers else ():
                text = (src / f"{b}+{name}.rules").read_text("utf-8")
                text = re.sub(rf"^layer\s+{name}\s+on\s+{re.escape(b)}\b", f"layer {name} on {new}", text,
                              count=1, flags=re.M)
                (dest / f"{new}+{name}.rules").write_text(rewrite(text, k, ids), "utf-8")
            made += 1
        k += 1
    return dest


def run(cmd, env, cwd=None):
    t = time.perf_counter()
    p = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    return time.perf_counter() - t, p


def ms(s):
    return f"{s * 1000:.0f} ms"


def sec(s):
    return f"{s:.1f} s"


def edit_one_book(books: Path) -> str:
    """Append a comment to one file of the first folder book (or a single-file
    book): an in-place edit that leaves the folder's mtime alone."""
    for p in sorted(books.iterdir()):
        if p.is_dir():
            f = sorted(p.glob("*.rules"))[-1]
            break
    else:
        f = sorted(books.glob("*.rules"))[0]
    with open(f, "a", encoding="utf-8") as fh:
        fh.write(f"\n# edited by bench_scale at {time.time()}\n")
    return f.parent.name if f.parent != books else f.stem


def bench_size(n, runs, slow_runs, site, base_env, tmp: Path, layers: bool = False):
    books = make_library(n, tmp / f"books-{n}", layers=layers)
    n_files = len(list(books.rglob("*.rules")))
    env = dict(base_env, RULES_DSL_BOOKS=str(books))
    rules = [sys.executable, "-m", "rules_dsl"]
    row = {"N": n, "files": n_files}

    # first `rules books` from cold (empty cache), and after editing one book
    cold, edited = [], []
    for i in range(slow_runs):
        cache = tmp / f"cache-{n}-{i}"
        e = dict(env, RULES_DSL_CACHE=str(cache))
        dt, p = run(rules + ["books"], e)
        if p.returncode != 0:
            sys.exit(f"rules books failed at N={n}: {p.stderr.strip()[:300]}")
        cold.append(dt)
        which = edit_one_book(books)
        dt, p = run(rules + ["books"], e)
        edited.append(dt)
        if i < slow_runs - 1:
            shutil.rmtree(cache, ignore_errors=True)
    row["books_cold"] = statistics.median(cold)
    row["books_edit"] = statistics.median(edited)
    row["edited"] = which
    env["RULES_DSL_CACHE"] = str(tmp / f"cache-{n}-{slow_runs - 1}")

    row["env"] = env
    if site:
        row.update(bench_site(books, tmp / f"site-{n}", base_env, slow_runs))
    return row


#: questions a player types (full text: stop words, stems, the vocabulary), timed as the names are
QUESTIONS = {"shoot": "can I shoot after running", "actions": "how many actions do I get"}


#: the layer commands `--layers` times (cold processes, index warm)
LAYER_COMMANDS = {
    "diff_errata": ["diff", "xenotactics", "xenotactics+errata"],
    "diff_house": ["diff", "null-strike", "null-strike+house"],
    "check_errata": ["check", "xenotactics+errata"],
    "lookup_house": ["lookup", "morale check", "--book", "null-strike+house"],
}


def _has_books(r, args) -> bool:
    """Whether the library of row `r` holds the books a layer command names (at N=5 the
    fifth real book in order, xenotactics, is not there yet)."""
    books = Path(r["env"]["RULES_DSL_BOOKS"])
    named = [a for a in args[1:] if not a.startswith("-") and " " not in a]
    return all((books / f"{b}.rules").is_file() or (books / b).is_dir() for b in named)


def bench_layers(rows, runs):
    """The layer commands, interleaved across the sizes like the lookups (a command whose
    book a size lacks is left out there)."""
    rules = [sys.executable, "-m", "rules_dsl"]
    for r in rows:
        for args in LAYER_COMMANDS.values():
            if not _has_books(r, args):
                continue
            dt, p = run(rules + args, r["env"])
            if p.returncode != 0:
                sys.exit(f"rules {' '.join(args)} failed at N={r['N']}: {p.stderr.strip()[:300]}")
    times = {(r["N"], what): [] for r in rows for what in LAYER_COMMANDS}
    for _ in range(runs):
        for r in rows:
            for what, args in LAYER_COMMANDS.items():
                if _has_books(r, args):
                    times[(r["N"], what)].append(run(rules + args, r["env"])[0])
    for r in rows:
        for what in LAYER_COMMANDS:
            if times[(r["N"], what)]:
                r[what] = statistics.median(times[(r["N"], what)])


def bench_lookups(rows, runs):
    """Cold lookups, every index warm, interleaved across the sizes and with the
    bare interpreter, so that each size sees the same machine noise."""
    rules = [sys.executable, "-m", "rules_dsl"]
    for r in rows:
        run(rules + ["lookup", "Suppression"], r["env"])
    kinds = ("base", "typo", "exact") + tuple(QUESTIONS)
    times = {(r["N"], what): [] for r in rows for what in kinds}
    for _ in range(runs):
        for r in rows:
            times[(r["N"], "base")].append(run([sys.executable, "-c", "pass"], r["env"])[0])
            dt, p = run(rules + ["lookup", "supression"], r["env"])
            if p.returncode != 0:
                sys.exit(f"rules lookup supression failed at N={r['N']}: {p.stderr.strip()[:300]}")
            times[(r["N"], "typo")].append(dt)
            times[(r["N"], "exact")].append(run(rules + ["lookup", "Suppression"], r["env"])[0])
            for what, words in QUESTIONS.items():
                times[(r["N"], what)].append(run(rules + ["lookup", words], r["env"])[0])
    for r in rows:
        for what in kinds:
            r[what] = statistics.median(times[(r["N"], what)])


def bench_site(books: Path, tmp: Path, base_env, slow_runs):
    sys.path.insert(0, str(REPO))
    from rules_dsl.sphinxext.testing import build, make_project
    project = make_project(tmp / "project")
    out, cache = tmp / "out", tmp / "cache"
    res = {}
    os.environ.update({k: v for k, v in base_env.items() if k == "PYTHONPATH"})
    t = time.perf_counter()
    p = build(project, out, books, cache, "-j", "auto", timeout=7200)
    res["site_full"] = time.perf_counter() - t
    import resource
    # the largest resident set of any child process waited for so far (the sphinx main
    # process of the full build; -j workers are forked from it and smaller)
    res["site_peak_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    if p.returncode != 0:
        print("site build failed:", (p.stdout + p.stderr)[-1500:])
        res["site_ok"] = False
        return res
    nochange, oneedit = [], []
    for _ in range(slow_runs):
        t = time.perf_counter()
        build(project, out, books, cache, "-j", "auto", timeout=7200)
        nochange.append(time.perf_counter() - t)
        edit_prose(books)
        t = time.perf_counter()
        p = build(project, out, books, cache, "-j", "auto", timeout=7200)
        oneedit.append(time.perf_counter() - t)
        if p.returncode != 0:     # a timing of a failed build means nothing: say so
            print("site rebuild after the edit failed:", (p.stdout + p.stderr)[-1500:])
            res["site_ok"] = False
    res["site_nochange"] = statistics.median(nochange)
    res["site_edit"] = statistics.median(oneedit)
    pages = [p for p in out.rglob("*.html")]
    big = max(pages, key=lambda p: p.stat().st_size)
    res["site_largest"] = (big.relative_to(out).as_posix(), big.stat().st_size)
    res["site_pages"] = len(pages)
    res["site_median_page"] = statistics.median(p.stat().st_size for p in pages)
    res["site_over_500k"] = sorted(p.relative_to(out).as_posix() for p in pages if p.stat().st_size > 500_000)
    res["site_size"] = sum(p.stat().st_size for p in out.rglob("*") if p.is_file() and ".doctrees" not in p.parts)
    res["site_doctrees_inside"] = (out / ".doctrees").exists()
    return res


def edit_prose(books: Path):
    """Add a word to the prose of the first rule of the first single-file book: the first
    prose block after a `rule id "Title" {` line (not after the word "rule" anywhere, which
    can sit in a header's prose: an edit there broke the book, and the site left it out)."""
    f = sorted(books.glob("*.rules"))[0]
    text = f.read_text("utf-8")
    head = re.search(r'^[ \t]*rule[ \t]+[a-z0-9-]+[ \t]+"[^"\n]*"[ \t]*\{', text, re.M)
    i = text.index('"""', head.end())
    j = text.index('"""', i + 3)
    f.write_text(text[:j] + " Edited." + text[j:], "utf-8")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, action="append", help="library size (repeatable; default 5, 25, 100)")
    ap.add_argument("--runs", type=int, default=11, help="runs per lookup timing (default 11)")
    ap.add_argument("--slow-runs", type=int, default=3, help="runs per compile / site timing (default 3)")
    ap.add_argument("--site", action="store_true", help="also build the website at each size")
    ap.add_argument("--layers", action="store_true", help="copy the real layers too and time the layer commands")
    ap.add_argument("--keep", action="store_true", help="keep the scratch folder")
    args = ap.parse_args(argv)
    sizes = args.n or [5, 25, 100]
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("RULES_DEBUG", None)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "rules_dsl")], check=True,
                   stdout=subprocess.DEVNULL)
    tmp = Path(tempfile.mkdtemp(prefix="bench-scale-"))
    print(f"code: {REPO} (python -m rules_dsl, PYTHONPATH); python {sys.version.split()[0]}; "
          f"{os.cpu_count()} cores; lookup runs {args.runs}, compile/site runs {args.slow_runs}")
    rows = []
    try:
        for n in sizes:
            row = bench_size(n, args.runs, args.slow_runs, args.site, env, tmp, args.layers)
            rows.append(row)
            print(f"N={n}: " + str({k: v for k, v in row.items() if k != "env"}), file=sys.stderr)
        bench_lookups(rows, args.runs)
        if args.layers:
            bench_layers(rows, args.slow_runs)
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    first = rows[0]
    hdr = "| what | " + " | ".join(f"{r['N']} books ({r['files']} files)" for r in rows) + " |"
    print()
    print(hdr)
    print("|---" * (len(rows) + 1) + "|")

    def line(label, cells):
        print(f"| {label} | " + " | ".join(cells) + " |")

    line("`python -c pass`", [ms(r["base"]) for r in rows])
    line("`rules lookup supression` (cold process)",
         [f"{ms(r['typo'])} ({r['typo'] / r['base']:.1f}x pass, {r['typo'] / first['typo']:.2f}x N={first['N']})"
          for r in rows])
    line("`rules lookup Suppression` (cold process)",
         [f"{ms(r['exact'])} ({r['exact'] / r['base']:.1f}x pass, {r['exact'] / first['exact']:.2f}x N={first['N']})"
          for r in rows])
    for what, words in QUESTIONS.items():
        line(f"`rules lookup \"{words}\"` (cold process)",
             [f"{ms(r[what])} ({r[what] / r['base']:.1f}x pass, {r[what] / first[what]:.2f}x N={first['N']})"
              for r in rows])
    if args.layers:
        for what, cmd in LAYER_COMMANDS.items():
            ref = next((r for r in rows if what in r), None)
            line(f"`rules {' '.join(cmd)}` (cold process)",
                 [f"{sec(r[what])} ({r[what] / r['base']:.1f}x pass, {r[what] / ref[what]:.2f}x N={ref['N']})"
                  if what in r else "(book not in this library)" for r in rows])
    line("first `rules books` (compile all + index)",
         [f"{sec(r['books_cold'])} ({r['books_cold'] / r['N'] * 1000:.0f} ms/book)" for r in rows])
    line("`rules books` after editing one book",
         [f"{sec(r['books_edit'])}" for r in rows])
    if args.site:
        line("site, full build (`-j auto`)", [sec(r["site_full"]) if "site_full" in r else "" for r in rows])
        line("site, rebuild with no change", [sec(r["site_nochange"]) if "site_nochange" in r else "" for r in rows])
        line("site, rebuild after editing one rule", [sec(r["site_edit"]) if "site_edit" in r else "" for r in rows])
        line("site size (without doctrees)", [f"{r['site_size'] / 1e6:.0f} MB" if "site_size" in r else ""
                                              for r in rows])
        line("peak memory of a full build (largest process)",
             [f"{r['site_peak_mb']:.0f} MB" if "site_peak_mb" in r else "" for r in rows])
        line("HTML pages (median size)", [f"{r['site_pages']} ({r['site_median_page'] / 1e3:.0f} KB)"
                                          if "site_pages" in r else "" for r in rows])
        line("pages over 500 KB", [", ".join(r["site_over_500k"]) or "none" if "site_pages" in r else ""
                                   for r in rows])
        line("largest page", [f"{r['site_largest'][0]} {r['site_largest'][1] / 1e3:.0f} KB"
                              if "site_largest" in r else "" for r in rows])
    print(f"\nmedians: lookups of {args.runs} runs, compile/site of {args.slow_runs}; "
          "`python -m rules_dsl` with PYTHONPATH=this checkout")


if __name__ == "__main__":
    main()
