"""Move rules_dsl's flat modules into a folder per pipeline stage, and rewrite every reference.

A one-off tool (issue 32), kept in the repository so the integrator can run it again on the
final tree, after the module splits land.  Over 500 lines because it is one file to copy onto
another tree and run: the plan, the rewriting, the post-fixes and the checks together.  Run it from a clean checkout's root:

    python scripts/restructure_stages.py --dry          # the plan: every move, nothing written
    python scripts/restructure_stages.py                # move (git mv), rewrite, verify
    python scripts/restructure_stages.py --also foo=faces --also bar=top   # place new modules
    python scripts/restructure_stages.py --refs [--dry]  # after the move: code merged since that
                                                        # still says rules_dsl.parser, `from .nodes`...

What it does, in order:

1. Classifies every flat module `rules_dsl/*.py` and every flat resource (grammar.lark,
   schema/, searchdata/): a stage from STAGES, or TOP (stays in `rules_dsl/`).  A module
   in neither is placed by its name when it is a split of a known module (`cli_lookup.py`
   goes where cli's splits go, `explain_steps.py` beside explain.py, `ws_hover.py` beside
   workspace.py: SPLIT_PREFIXES), or by `--also NAME=STAGE`; otherwise the script stops
   and names it.  A tree with no flat module left to move is reported as done (exit 0).
2. Rewrites, with `ast` positions (the rest of each line kept as written): every
   `from ... import` and `import` of a moved module, relative ones recomputed from the
   importing module's new place, in the package, tests/, bench/, scripts/, docs/, conf.py
   and rulebooks/.  `from rules_dsl import parser, load` is split per target package.
3. Rewrites text: dotted names (`"rules_dsl.export"` in subprocess code,
   `monkeypatch.setattr("rules_dsl.x.y", ...)`, `mock.patch` targets, autodoc lines,
   docstrings), `from rules_dsl import x` inside strings, paths (`rules_dsl/parser.py`,
   `rules_dsl/searchdata/...`, `"rules_dsl" / "grammar.lark"`) in every tracked text file
   (TEXT_SUFFIXES) but those under SKIP_DIRS (notes/: the project's history, left as
   written; the books and vendored files) and this script.
4. Known post-fixes: `_PKG` (the package root) in a moved module gets one more dirname;
   cachekeys.py's file lists become paths relative to the package (PARSE_FILES,
   FRONT_ENDS, the index scope) with PARSE_FILES extended by new modules its modules import or split off, and
   its folder walk learns that the parse scope lives in a sub-folder; paths.grammar_path;
   pyproject.toml's package-data (each resource under its stage's package) and ruff's
   per-file globs.
5. `git mv`s the files, writes each stage's `__init__.py`, and verifies: every module of
   the package imports in a fresh interpreter, the cache scopes stamp the moved files,
   and no old dotted name or path is left in the rewritten files.
"""
from __future__ import annotations

import argparse
import ast
import fnmatch
import os
import re
import subprocess
import sys
from pathlib import Path

PKG = "rules_dsl"
TOP = "top"

#: stage -> (its __init__ docstring, its modules).  The order is the pipeline's: a stage
#: imports only from stages before it (tests/test_imports.py holds the rule).
STAGES: dict[str, tuple[str, list[str]]] = {
    "language": (
        "The rules language: its grammar (grammar.lark), the parser to AST nodes, the book model, prose,\n"
        "values, dice and built-ins, and the language said back in words (render, display, wording).",
        ["syntax", "parser", "example_parser", "recovery", "nodes", "model", "prose", "values", "dice",
         "builtins", "symbolic", "rollpaths", "visitor", "render", "display", "wording"]),
    "analysis": (
        "Analysis of a parsed book: name resolution, the symbol table, the call graph and the checks,\n"
        "one pass per concern.",
        ["resolve", "symbols", "callgraph", "reach", "intervals", "checks", "checks_calls", "checks_design",
         "checks_display", "checks_examples", "checks_front", "checks_names", "checks_ranges", "checks_types",
         "range_analysis", "range_calls", "symbol_index"]),
    # compiler/ is a package of its own already
    # the back ends: odds/ and jsgen/ are packages of their own already
    "evaluation": (
        "A compiled book evaluated for people: its worked examples run and checked (exact odds included),\n"
        "an evaluation's working (explain) as steps and as sentences, and the designer's views (sweeps,\n"
        "variants, cost views).  A back end beside odds/ and jsgen/.",
        ["examples", "example_odds", "explain", "working", "design"]),
    "library": (
        "The library a user holds: books found, loaded, layered (errata, editions, house rules) and cached.",
        ["loader", "book", "layers", "layer_causes", "cachekeys"]),
    "faces": (
        "What users and tools touch: the terminal's text, the lookup index and its search, open data and\n"
        "records, diffs, the language server and its workspace, preview and watch.  The `rules` command's\n"
        "entry point stays rules_dsl/cli.py.",
        ["terminal", "barchart", "odds_text", "diff", "diff_text", "records", "design_models", "index",
         "textsearch", "export", "workspace", "lsp", "lsp_compat", "lsp_framing", "lsp_transport", "preview",
         "watch"]),
}
#: modules that stay in rules_dsl/: the front door, the entry points, the base every stage uses
TOP_MODULES = {
    "__init__": "the front door: rules_dsl.load, Library, InputError... (lazy)",
    "__main__": "python -m rules_dsl",
    "cli": "the `rules` console script, rules_dsl.cli:main (its splits go to faces/)",
    "pytest_plugin": "the pytest11 entry point rules_dsl.pytest_plugin",
    "errors": "every error type (rules_dsl.InputError's home), used by every stage",
    "paths": "where books and caches live; import-light, used by every stage",
    "version": "__version__, read by the caches' keys without the front door",
    "odds_pools": "a former name (rules_dsl.odds_pools) kept importable: moving it would break its point",
}
#: flat non-Python resources -> stage (each moves with the module that reads it beside itself)
RESOURCES = {"grammar.lark": "language", "schema": "faces", "searchdata": "faces"}
#: a new module NAME_*.py (a split) goes with NAME; these prefixes are not module names,
#: or go elsewhere than their parent
SPLIT_PREFIXES = {
    "cli": "faces",            # the entry point stays; its pieces are faces
    "ws": "faces",             # workspace.py's pieces
    "tree": "language",        # parser.py's tree builder
    "lsp": "faces",
    "checks": "analysis",
    "explain": "evaluation",
    "example": "evaluation",
    "search": "faces",
    "lookup": "faces",
    "layer": "library",
}
#: stage of the modules that are packages already (for the layering rule and the report)
PACKAGES = {"compiler": "compiler", "odds": "odds", "jsgen": "jsgen", "sphinxext": "sphinxext"}
#: text files rewritten outside the package (notes/ is history: left as written)
TEXT_SUFFIXES = (".py", ".md", ".toml", ".txt", ".sh", ".cfg", ".ini", ".mjs", ".js", ".json", ".rst", ".in")
SKIP_DIRS = ("notes/", "rulebooks/", "tests/lsp_books/", "tests/vendor/")


class Stop(Exception):
    """A reason to stop before anything is written."""


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


# --------------------------------------------------------------------------- the plan

def classify(root: Path, also: dict[str, str]) -> tuple[dict[str, str], dict[str, str], list[str]]:
    """(module -> stage for modules to move, resource -> stage, notes) for the tree at `root`."""
    pkg = root / PKG
    known = {mod: stage for stage, (_, mods) in STAGES.items() for mod in mods}
    dup = [m for m in known if m in TOP_MODULES]
    if dup:
        raise Stop(f"modules both in a stage and at the top: {dup}")
    valid = set(STAGES) | {TOP}
    for name, stage in also.items():
        if stage not in valid:
            raise Stop(f"--also {name}={stage}: the stages are {', '.join(sorted(valid))}")
    moves, notes, unknown = {}, [], []
    for p in sorted(pkg.glob("*.py")):
        mod = p.stem
        stage = also.get(mod) or (TOP if mod in TOP_MODULES else known.get(mod))
        if stage is None:
            stage = split_stage(mod, known)
            if stage:
                notes.append(f"new module {mod}.py: placed in {stage}/ (a split, by its name; "
                             f"--also {mod}=STAGE to place it elsewhere)")
        if stage is None:
            unknown.append(mod)
        elif stage != TOP:
            moves[mod] = stage
    if unknown:
        raise Stop("these flat modules have no stage:\n" + "\n".join(
            f"  rules_dsl/{m}.py  (first lines: {first_line(pkg / (m + '.py'))})" for m in unknown)
            + "\nadd each to STAGES or TOP_MODULES in this script, or run with --also NAME=STAGE "
              f"(stages: {', '.join(list(STAGES) + [TOP])})")
    resources, odd = {}, []
    for p in sorted(pkg.iterdir()):
        if p.name == "__pycache__" or p.suffix == ".py" or (p.is_dir() and (p / "__init__.py").exists()):
            continue
        if p.name in RESOURCES:
            resources[p.name] = RESOURCES[p.name]
        elif p.name.startswith(".") or p.name.endswith((".pyc", ".egg-info")):
            continue
        else:
            odd.append(p.name)
    if odd:
        raise Stop(f"flat resources with no stage: {odd}; add them to RESOURCES in this script")
    return moves, resources, notes


def split_stage(mod: str, known: dict[str, str]) -> str | None:
    parts = mod.split("_")
    for i in range(len(parts) - 1, 0, -1):             # the longest known prefix wins
        prefix = "_".join(parts[:i])
        if prefix in known:
            return known[prefix]
        if prefix in SPLIT_PREFIXES:
            return SPLIT_PREFIXES[prefix]
    return None


def first_line(path: Path) -> str:
    try:
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    except SyntaxError:
        doc = ""
    return (doc.splitlines() or ["(no docstring)"])[0][:100]


# --------------------------------------------------------------------------- names

def module_name(path: Path, root: Path) -> tuple[str, bool]:
    parts = list(path.relative_to(root).with_suffix("").parts)
    is_pkg = parts[-1] == "__init__"
    return ".".join(parts[:-1] if is_pkg else parts), is_pkg


def remap(name: str, m: dict[str, str]) -> str:
    """The new dotted name of `name` (a module or something in one)."""
    parts = name.split(".")
    for i in range(len(parts), 1, -1):
        head = ".".join(parts[:i])
        if head in m:
            return ".".join([m[head]] + parts[i:])
    return name


def absolute(node: ast.ImportFrom, modname: str, is_pkg: bool) -> str:
    if not node.level:
        return node.module or ""
    base = modname.split(".") if is_pkg else modname.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def relative(target: str, importer: str, is_pkg: bool) -> str:
    """The relative spelling (`..language`) of `target` from module `importer`."""
    here = importer.split(".") if is_pkg else importer.split(".")[:-1]
    t = target.split(".")
    common = 0
    while common < min(len(here), len(t)) and here[common] == t[common]:
        common += 1
    return "." * (len(here) - common + 1) + ".".join(t[common:])


# --------------------------------------------------------------------------- rewriting

HEAD = re.compile(r"from\s+([.\w]+)\s+import\b")


def rewrite_imports(src: str, old: str, new: str, is_pkg: bool, m: dict[str, str], modules: set[str],
                    filename: str, exists: set[str] | None = None) -> str:
    """`src` with every import of a moved module (and, for a moved file, every relative
    import) spelled for the new layout.  `old`/`new`: the file's module name before and
    after (for a file outside the package, both empty: relative imports do not occur).
    With `exists` (the --refs pass: the modules there are now), a relative import that
    already resolves to modules that exist is left alone; the others are read as if the
    file still sat at `old`."""
    try:
        tree = ast.parse(src)
    except SyntaxError as e:
        raise Stop(f"{filename}: does not parse ({e})") from e
    moved_file = old != new
    offsets = [0]
    for line in src.split("\n"):                          # ast's lines (splitlines also cuts at \f...)
        offsets.append(offsets[-1] + len(line) + 1)
    edits = []                                             # (start, end, text)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level and not old:
                continue
            base = old
            if exists is not None and node.level:
                here, there = absolute(node, new, is_pkg), absolute(node, old, is_pkg)
                if here in m or any(f"{here}.{a.name}" in m for a in node.names):
                    base = new                             # written for the new layout, naming an old module
                elif here in exists and not any(f"{here}.{a.name}" not in exists and f"{there}.{a.name}" in modules
                                                for a in node.names):
                    continue                               # resolves where it stands
            src_abs = absolute(node, base, is_pkg) if node.level else (node.module or "")
            if not (src_abs == PKG or src_abs.startswith(PKG + ".")):
                continue
            groups: dict[str, list[ast.alias]] = {}
            for a in node.names:
                sub = f"{src_abs}.{a.name}"
                target = remap(sub, m).rsplit(".", 1)[0] if sub in modules else remap(src_abs, m)
                groups.setdefault(target, []).append(a)
            if list(groups) == [src_abs] and not (moved_file and node.level):
                continue
            spell = (lambda t: relative(t, new, is_pkg)) if node.level else (lambda t: t)
            start = offsets[node.lineno - 1] + node.col_offset
            end = offsets[node.end_lineno - 1] + node.end_col_offset
            text = src[start:end]
            if len(groups) == 1:
                (target,) = groups
                head = HEAD.match(text)
                if not head:
                    raise Stop(f"{filename}:{node.lineno}: cannot read the import {text!r}")
                text = f"from {spell(target)} import" + text[head.end():]
            else:
                indent = "\n" + " " * node.col_offset
                text = indent.join(
                    f"from {spell(t)} import " + ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in al)
                    for t, al in groups.items())
            edits.append((start, end, text))
        elif isinstance(node, ast.Import):
            names = [remap(a.name, m) for a in node.names]
            if names != [a.name for a in node.names]:
                start = offsets[node.lineno - 1] + node.col_offset
                end = offsets[node.end_lineno - 1] + node.end_col_offset
                edits.append((start, end, "import " + ", ".join(
                    n + (f" as {a.asname}" if a.asname else "") for n, a in zip(names, node.names))))
    for start, end, text in sorted(edits, reverse=True):
        src = src[:start] + text + src[end:]
    return src


FROM_PKG = re.compile(r"from rules_dsl import ([A-Za-z_]\w*(?:, *[A-Za-z_]\w*)*)")


def rewrite_text(s: str, m: dict[str, str], paths: dict[str, str]) -> str:
    """Dotted names, `from rules_dsl import x` in strings, and paths, in any text.
    `paths`: old path under rules_dsl/ (`parser.py`, `searchdata`) -> new (`language/parser.py`)."""
    def from_pkg(mt):
        names = [x.strip() for x in mt.group(1).split(",")]
        by = {}
        for x in names:
            by.setdefault(remap(f"{PKG}.{x}", m).rsplit(".", 1)[0], []).append(x)
        return "; ".join(f"from {t} import {', '.join(xs)}" for t, xs in by.items())
    s = FROM_PKG.sub(from_pkg, s)
    if m:
        dotted = re.compile(r"(?<![\w.])(" + "|".join(re.escape(k) for k in sorted(m, key=len, reverse=True)) + r")(?!\w)")
        s = dotted.sub(lambda mt: m[mt.group(1)], s)
    if paths:
        alt = "|".join(re.escape(k) for k in sorted(paths, key=len, reverse=True))
        s = re.sub(r"(?<![\w/.])rules_dsl/(" + alt + r")(?![\w.])", lambda mt: f"rules_dsl/{paths[mt.group(1)]}", s)
        s = re.sub(r"""(["'])rules_dsl\1(\s*/\s*)(["'])(""" + alt + r")\3",
                   lambda mt: f"{mt.group(1)}rules_dsl{mt.group(1)}{mt.group(2)}{mt.group(3)}"
                              f"{paths[mt.group(4)].rsplit('/', 1)[0]}{mt.group(3)}{mt.group(2)}"
                              f"{mt.group(3)}{mt.group(4)}{mt.group(3)}", s)
    return s


# --------------------------------------------------------------------------- post-fixes

PKG_ROOT = re.compile(r"^(_PKG\s*=\s*)(os\.path\.dirname\(os\.path\.abspath\(__file__\)\))", re.M)


def fix_pkg_root(src: str) -> str:
    """In a moved module, `_PKG` (the package's root, by convention) is one folder up."""
    return PKG_ROOT.sub(lambda mt: f"{mt.group(1)}os.path.dirname({mt.group(2)})   # the package's root", src)


DESCEND = 'any(_in_scope(rel + "/x.py", s) for s in scopes)'
MAY_HOLD = '''

def _may_hold(folder: str, scope: str) -> bool:
    """Whether the package's sub-folder `folder` (`language`) may hold a file of `scope`:
    the folder walk of `code_stamps` skips the others."""
    if scope == "parse":
        return any(f.startswith(folder + "/") for f in PARSE_FILES)
    return _in_scope(folder + "/x.py", scope)
'''


def flat_imports(path: Path) -> set[str]:
    """The flat modules a flat module imports (`from .x import`, `from . import x`)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            out |= {node.module.split(".")[0]} if node.module else {a.name for a in node.names}
    return out


def fix_cachekeys(src: str, rel_of: dict[str, str], moves: dict[str, str], notes: list[str], pkg: Path) -> str:
    """cachekeys.py stamps the package's files by their path relative to the package:
    every file name it lists becomes that path, PARSE_FILES takes the splits of its
    modules, and its folder walk enters the stages that hold parse files.  A file list
    that missed a moved file would let a stale cache answer: each step is checked."""
    parse = re.search(r"PARSE_FILES\s*=\s*frozenset\(\{(.*?)\}\)", src, re.S)
    if not parse:
        raise Stop("cachekeys.py: PARSE_FILES = frozenset({...}) not found; fix the cache scopes by hand")
    listed = re.findall(r'"([^"]+)"', parse.group(1))
    parents = {name[:-3] for name in listed if name.endswith(".py")}
    new = {mod for mod in moves if mod not in STAGES[moves[mod]][1]}       # modules this script does not list
    used = set().union(*(flat_imports(pkg / f"{p}.py") for p in parents if (pkg / f"{p}.py").exists()))
    extra = sorted(f"{mod}.py" for mod in new if mod not in parents and (
        mod in used or any(mod.startswith(p + "_") for p in parents)))
    if extra:
        notes.append(f"cachekeys.PARSE_FILES: added {extra} (new modules the parse modules import or split off)")
        body = parse.group(1).rstrip()
        src = src[:parse.start(1)] + body + ", " + ", ".join(f'"{e}"' for e in extra) + src[parse.end(1):]
    # every quoted file name of the package -> its path relative to the package
    src = re.sub(r'"([\w.]+\.(?:py|lark))"', lambda mt: f'"{rel_of.get(mt.group(1), mt.group(1))}"', src)
    parse = re.search(r"PARSE_FILES\s*=\s*frozenset\(\{(.*?)\}\)", src, re.S)
    names = sorted(re.findall(r'"([^"]+)"', parse.group(1)))
    rows, row = [], []
    for name in names:                                    # wrapped, sorted: one folder's files together
        if row and len(", ".join(row + [f'"{name}"'])) > 90:
            rows.append(", ".join(row))
            row = []
        row.append(f'"{name}"')
    rows.append(", ".join(row))
    src = src[:parse.start(1)] + (",\n" + " " * 25).join(rows) + src[parse.end(1):]
    if "base not in FRONT_ENDS" in src:
        src = src.replace("base not in FRONT_ENDS", "rel not in FRONT_ENDS")
        unused = re.compile(r'^ +base = rel\.rsplit\("/", 1\)\[-1\]\n', re.M)
        if len(re.findall(r"\bbase\b", src)) == 1:
            src = unused.sub("", src)
    elif "rel not in FRONT_ENDS" not in src:
        raise Stop("cachekeys.py: `base not in FRONT_ENDS` not found; FRONT_ENDS now holds paths: fix by hand")
    if DESCEND in src:
        src = src.replace(DESCEND, "any(_may_hold(rel, s) for s in scopes)")
        anchor = re.search(r"\n\n\n@functools\.lru_cache", src)
        if not anchor:
            raise Stop("cachekeys.py: cannot place _may_hold before code_fingerprint")
        src = src[:anchor.start()] + MAY_HOLD.rstrip("\n") + src[anchor.start():]
    elif "_may_hold" not in src:
        raise Stop(f"cachekeys.py: the folder walk ({DESCEND}) not found; make it enter stage folders by hand")
    return src


def fix_paths_py(src: str, resources: dict[str, str]) -> str:
    for res, stage in resources.items():
        src = src.replace(f'os.path.join(_PKG, "{res}")', f'os.path.join(_PKG, "{stage}", "{res}")')
    return src


def fix_pyproject(src: str, resources: dict[str, str], moves: dict[str, str], flat: list[str]) -> str:
    # package-data: each moved resource under its stage's package
    line = re.search(r'^rules_dsl\s*=\s*\[(.*?)\]\s*$', src, re.M)
    if resources and not line:
        raise Stop("pyproject.toml: no `rules_dsl = [...]` package-data line; add the resources by hand")
    if line:
        pats = re.findall(r'"([^"]+)"', line.group(1))
        keep, by_stage = [], {}
        for p in pats:
            stage = resources.get(p.split("/", 1)[0])
            (by_stage.setdefault(stage, []) if stage else keep).append(p)
        out = []
        if keep:
            out.append("rules_dsl = [" + ", ".join(f'"{p}"' for p in keep) + "]")
        for stage, ps in by_stage.items():
            out.append(f'"rules_dsl.{stage}" = [' + ", ".join(f'"{p}"' for p in ps) + "]")
        src = src[:line.start()] + "\n".join(out) + src[line.end():]
    # ruff's per-file globs over flat modules: one glob per folder the matched files now sit in
    def glob_line(mt):
        pat, rest = mt.group(1), mt.group(2)
        hit = [f for f in flat if fnmatch.fnmatch(f + ".py", pat)]
        places = sorted({moves.get(f, "") for f in hit})
        if not hit or places == [""]:
            return mt.group(0)
        return "\n".join(f'"rules_dsl/{p + "/" if p else ""}{pat}" = {rest}' for p in places)
    return re.sub(r'^"rules_dsl/([^"/]*[*?][^"/]*\.py)"\s*=\s*(.*)$', glob_line, src, flags=re.M)


# --------------------------------------------------------------------------- the run

def tracked_text_files(root: Path, me: Path) -> list[Path]:
    out = []
    for rel in git(root, "ls-files").splitlines():
        p = root / rel
        if rel.startswith(SKIP_DIRS) or p.resolve() == me or not p.is_file():
            continue
        if rel.endswith(TEXT_SUFFIXES) or rel in (".ci/run", "MANIFEST.in"):
            out.append(p)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dry", action="store_true", help="print the plan; write nothing")
    ap.add_argument("--also", action="append", default=[], metavar="NAME=STAGE",
                    help="place a module the script does not know (STAGE may be 'top': stays in rules_dsl/)")
    ap.add_argument("--root", default=".", help="the checkout (default: the current folder)")
    ap.add_argument("--no-verify", action="store_true", help="skip the import check at the end")
    ap.add_argument("--refs", action="store_true",
                    help="after the move: rewrite references to the old flat names that code merged since "
                         "still uses (imports, relative ones read as written for the flat layout, dotted "
                         "names, paths); moves nothing")
    args = ap.parse_args(argv)
    root = Path(args.root).resolve()
    me = Path(__file__).resolve()
    if not (root / PKG / "__init__.py").exists():
        print(f"no {PKG}/ package under {root}: run from the checkout's root", file=sys.stderr)
        return 2
    try:
        also = dict(a.split("=", 1) for a in args.also)
    except ValueError:
        print("--also takes NAME=STAGE", file=sys.stderr)
        return 2
    if args.refs:
        try:
            return refs_pass(root, me, args.dry, args.no_verify)
        except Stop as e:
            print(f"restructure: stopped, nothing written: {e}", file=sys.stderr)
            return 1
    try:
        moves, resources, notes = classify(root, also)
    except Stop as e:
        print(f"restructure: stopped, nothing written: {e}", file=sys.stderr)
        return 1
    if not moves and not resources:
        print("restructure: nothing to do: every flat module is at its stage or stays at the top")
        return 0
    pkg = root / PKG
    flat = sorted(p.stem for p in pkg.glob("*.py"))
    m = {f"{PKG}.{mod}": f"{PKG}.{stage}.{mod}" for mod, stage in moves.items()}
    rel_of = {f"{mod}.py": f"{stage}/{mod}.py" for mod, stage in moves.items()}
    rel_of.update({res: f"{stage}/{res}" for res, stage in resources.items()})
    path_map = dict(rel_of)
    for stage in sorted(set(moves.values())):
        if (pkg / stage).exists() and not (pkg / stage / "__init__.py").exists():
            print(f"restructure: stopped: rules_dsl/{stage} exists and is not a package", file=sys.stderr)
            return 1
    for note in notes:
        print("note:", note)
    shown = len(notes)
    for stage in STAGES:
        mods = [mod for mod, s in moves.items() if s == stage]
        res = [r for r, s in resources.items() if s == stage]
        if mods or res:
            print(f"rules_dsl/{stage}/: " + ", ".join(mods + res))
    print("stays in rules_dsl/: " + ", ".join(sorted(set(flat) - set(moves))))
    if args.dry:
        return 0
    if git(root, "status", "--porcelain", "--untracked-files=no").strip():
        print("restructure: stopped: the checkout has uncommitted changes (commit them first: "
              "the move should be one commit of its own)", file=sys.stderr)
        return 1

    # 1. read and rewrite everything before moving anything
    files = [p for p in pkg.rglob("*.py") if "__pycache__" not in p.parts]
    modules = {module_name(p, root)[0] for p in files}
    written: dict[Path, str] = {}
    try:
        for p in files:
            old, is_pkg = module_name(p, root)
            new = remap(old, m)
            src = p.read_text(encoding="utf-8")
            out = rewrite_imports(src, old, new, is_pkg, m, modules, str(p.relative_to(root)))
            out = rewrite_text(out, m, path_map)
            if new != old:
                out = fix_pkg_root(out)
            if p.name == "cachekeys.py" and p.parent == pkg:
                out = fix_cachekeys(out, rel_of, moves, notes, pkg)
            if p.name == "paths.py" and p.parent == pkg:
                out = fix_paths_py(out, resources)
            if out != src:
                written[p] = out
        for p in tracked_text_files(root, me):
            if p.is_relative_to(pkg) and p.suffix == ".py":
                continue                                   # done above, with the package's names
            src = p.read_text(encoding="utf-8")
            out = src
            if p.suffix == ".py":
                out = rewrite_imports(out, "", "", False, m, modules, str(p.relative_to(root)))
            out = rewrite_text(out, m, path_map)
            if p.name == "pyproject.toml" and p.parent == root:
                out = fix_pyproject(out, resources, moves, flat)
            if out != src:
                written[p] = out
    except Stop as e:
        print(f"restructure: stopped, nothing written: {e}", file=sys.stderr)
        return 1

    # 2. write, then move
    for p, text in written.items():
        p.write_text(text, encoding="utf-8")
    for stage in sorted(set(moves.values()) | set(resources.values())):
        init = pkg / stage / "__init__.py"
        if not init.exists():
            init.parent.mkdir(exist_ok=True)
            init.write_text(f'"""{STAGES[stage][0]}"""\n', encoding="utf-8")
            git(root, "add", str(init))
    for mod, stage in moves.items():
        git(root, "mv", f"{PKG}/{mod}.py", f"{PKG}/{stage}/{mod}.py")
    for res, stage in resources.items():
        git(root, "mv", f"{PKG}/{res}", f"{PKG}/{stage}/{res}")
    git(root, "add", "-u")
    for note in notes[shown:]:
        print("note:", note)
    print(f"restructure: moved {len(moves)} modules and {len(resources)} resources; rewrote {len(written)} files")
    return verify(root, m, path_map, args.no_verify)


def refs_pass(root: Path, me: Path, dry: bool, skip_imports: bool) -> int:
    """Old flat names -> their stage, for every module and resource now in a stage folder
    that has no flat namesake; rewrite what still uses them."""
    pkg = root / PKG
    m, path_map = {}, {}
    for stage in STAGES:
        if not (pkg / stage).is_dir():
            continue
        for p in sorted((pkg / stage).glob("*.py")):
            if p.stem != "__init__" and not (pkg / p.name).exists():
                m[f"{PKG}.{p.stem}"] = f"{PKG}.{stage}.{p.stem}"
                path_map[p.name] = f"{stage}/{p.name}"
        for res, st in RESOURCES.items():
            if st == stage and (pkg / stage / res).exists() and not (pkg / res).exists():
                path_map[res] = f"{stage}/{res}"
    if not m:
        print("restructure --refs: no stage folders: run the move first")
        return 1
    files = [p for p in pkg.rglob("*.py") if "__pycache__" not in p.parts]
    exists = {module_name(p, root)[0] for p in files}
    modules = exists | set(m)
    written = {}
    for p in files:
        new, is_pkg = module_name(p, root)
        parts = new.split(".")
        old = f"{PKG}.{parts[-1]}" if len(parts) == 3 and parts[1] in STAGES and not is_pkg else new
        src = p.read_text(encoding="utf-8")
        out = rewrite_imports(src, old, new, is_pkg, m, modules, str(p.relative_to(root)), exists=exists)
        out = rewrite_text(out, m, path_map)
        if out != src:
            written[p] = out
    for p in tracked_text_files(root, me):
        if p.is_relative_to(pkg) and p.suffix == ".py":
            continue
        src = p.read_text(encoding="utf-8")
        out = rewrite_imports(src, "", "", False, m, modules, str(p.relative_to(root))) if p.suffix == ".py" else src
        out = rewrite_text(out, m, path_map)
        if out != src:
            written[p] = out
    for p in written:
        print(f"{'would rewrite' if dry else 'rewrote'} {p.relative_to(root)}")
    if dry or not written:
        print("restructure --refs: nothing uses an old name" if not written else "")
        return 0
    for p, text in written.items():
        p.write_text(text, encoding="utf-8")
    return verify(root, m, path_map, skip_imports)


def verify(root: Path, m: dict[str, str], path_map: dict[str, str], skip_imports: bool) -> int:
    """Every module imports; the cache scopes stamp the moved files; no old name is left."""
    problems = []
    names = sorted(module_name(p, root)[0] for p in (root / PKG).rglob("*.py") if "__pycache__" not in p.parts)
    if not skip_imports:
        code = ("import importlib, sys, traceback\nbad = []\n"
                f"for n in {names!r}:\n"
                "    if n.endswith('__main__'): continue\n"
                "    try: importlib.import_module(n)\n"
                "    except Exception as e: bad.append(f'{n}: {type(e).__name__}: {e}')\n"
                "print('\\n'.join(bad))\n")
        done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
                              env=dict(os.environ, PYTHONPATH=str(root)))
        problems += [f"import fails: {line}" for line in done.stdout.splitlines() if line.strip()]
        if done.returncode:
            problems.append(f"import check crashed: {done.stderr[-500:]}")
    check = ("from rules_dsl.library import cachekeys as c\n"
             "p = c.code_stamps('parse'); i = c.code_stamps('index'); e = c.code_stamps('engine')\n"
             "miss = [f for f in c.PARSE_FILES if '/' + f + ':' not in p]\n"
             "miss += [f + ' (index)' for f in ('faces/index.py', 'faces/textsearch.py', 'language/parser.py') "
             "if '/' + f + ':' not in i]\n"
             "miss += [f + ' (engine)' for f in ('language/parser.py', 'analysis/checks.py', 'compiler/book.py') "
             "if '/' + f + ':' not in e]\n"
             "print('\\n'.join(miss))\n")
    if (root / PKG / "library" / "cachekeys.py").exists():
        done = subprocess.run([sys.executable, "-c", check], cwd=root, capture_output=True, text=True,
                              env=dict(os.environ, PYTHONPATH=str(root)))
        problems += [f"a cache scope does not stamp {line}" for line in done.stdout.splitlines() if line.strip()]
        if done.returncode:
            problems.append(f"cache scope check crashed: {done.stderr[-500:]}")
    old_dotted = re.compile(r"(?<![\w.])(" + "|".join(re.escape(k) for k in m) + r")(?!\w)") if m else None
    for p in tracked_text_files(root, Path(__file__).resolve()):
        if not p.exists():
            continue
        text = p.read_text(encoding="utf-8")
        if old_dotted and old_dotted.search(text):
            problems.append(f"old dotted name left in {p.relative_to(root)}: {old_dotted.search(text).group(0)}")
    for line in problems:
        print("restructure: CHECK:", line, file=sys.stderr)
    print("restructure: verified" if not problems else f"restructure: {len(problems)} problems to look at")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
