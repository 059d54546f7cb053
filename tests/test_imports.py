"""Modules talk through public names, and the imports run one way.

Plain tests over the package's source, read with `ast` (nothing is imported or run):

* no module takes another module's underscore names, neither by
  `from x import _y` nor by attribute use (`x._y`) on a name bound to another
  `rules_dsl` module; dunders (`__version__`) are public;
* the module import graph has no circles (no strongly connected component of
  more than one module, no module importing itself);
* imports run down the package's stages (its folders: language < analysis <
  compiler < odds < jsgen < evaluation < library < faces < sphinxext < entry
  points), never back up, but for the few listed in `UPWARD` with their reason.

How imports are counted:

* every `import`/`from ... import` statement counts, wherever it sits: at module
  level, in a function (a lazy import is still a dependency), or under
  `if TYPE_CHECKING:` (a type hint that points back is still a circle to a reader);
* `from pkg import sub`, where `sub` is a submodule, is an edge to `pkg.sub`;
  `from pkg.sub import name` is an edge to `pkg.sub`;
* a package's `__init__` counts as a module of its own, named after the package:
  importing a name the `__init__` defines (`from rules_dsl.odds import outcome_of`) is
  an edge to it, and the `__init__`'s own imports (lazy `__getattr__` ones included)
  are its edges. The implicit import of a parent package when a submodule is
  imported is *not* an edge: Python runs the parent first, so it cannot close a
  circle by itself, and counting it would make every package circular with
  its own `__init__`.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from conftest import REPO

PACKAGE = "rules_dsl"


@dataclass(frozen=True)
class Module:
    name: str  # dotted, e.g. rules_dsl.odds.engine (a package's __init__ is rules_dsl.odds)
    path: Path
    is_package: bool
    tree: ast.Module


def _modules() -> dict[str, Module]:
    found = {}
    root = REPO / PACKAGE
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(REPO).with_suffix("")
        parts = list(rel.parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        name = ".".join(parts)
        found[name] = Module(name, path, is_package, ast.parse(path.read_text(encoding="utf-8"), str(path)))
    return found


def _absolute(module: Module, node: ast.ImportFrom) -> str:
    """The module named by a `from X import ...` statement, made absolute."""
    if not node.level:
        return node.module or ""
    base = module.name.split(".")
    if not module.is_package:
        base = base[:-1]
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


@dataclass(frozen=True)
class Use:
    importer: str
    target: str  # the module depended on
    name: str | None  # the name taken from it, when one is
    line: int


def _uses(modules: dict[str, Module]) -> list[Use]:
    """Every dependency of every module on another module of the package, with the name taken."""
    uses = []
    for module in modules.values():
        bound: dict[str, str] = {}  # local name -> module it is bound to (for `x._y`)
        for node in ast.walk(module.tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == PACKAGE or alias.name.startswith(PACKAGE + "."):
                        uses.append(Use(module.name, alias.name, None, node.lineno))
                        if alias.asname:
                            bound[alias.asname] = alias.name
            elif isinstance(node, ast.ImportFrom):
                source = _absolute(module, node)
                if not (source == PACKAGE or source.startswith(PACKAGE + ".")):
                    continue
                for alias in node.names:
                    sub = f"{source}.{alias.name}"
                    if sub in modules:
                        uses.append(Use(module.name, sub, None, node.lineno))
                        bound[alias.asname or alias.name] = sub
                    else:
                        uses.append(Use(module.name, source, alias.name, node.lineno))
        for node in ast.walk(module.tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in bound and bound[node.value.id] != module.name):
                uses.append(Use(module.name, bound[node.value.id], node.attr, node.lineno))
    return uses


def _components(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components, largest first: the modules each module reaches
    and is reached back from (plain reachability: a package has about a hundred modules)."""
    reach = {}
    for start in graph:
        seen, todo = set(), [start]
        while todo:
            for nxt in graph.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        reach[start] = seen
    out = {frozenset({m} | {x for x in reach[m] if m in reach[x]}) for m in graph}
    return sorted((sorted(c) for c in out), key=lambda c: (-len(c), c))


def import_graph(modules: dict[str, Module] | None = None) -> dict[str, set[str]]:
    modules = modules if modules is not None else _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for use in _uses(modules):
        target = use.target
        while target not in modules and "." in target:
            target = target.rsplit(".", 1)[0]
        if target in modules:
            graph[use.importer].add(target)
    return graph


def private_imports(modules: dict[str, Module] | None = None) -> list[Use]:
    modules = modules if modules is not None else _modules()
    return sorted({u for u in _uses(modules) if u.name and _is_private(u.name) and u.target != u.importer},
                  key=lambda u: (u.importer, u.line, u.name))


def circles(modules: dict[str, Module] | None = None) -> list[list[str]]:
    graph = import_graph(modules)
    return [c for c in _components(graph) if len(c) > 1 or c[0] in graph[c[0]]]


def test_the_reader_sees_every_module_and_its_imports():
    """The two tests below mean something only if the reader finds the package's imports."""
    modules = _modules()
    assert "rules_dsl.language.nodes" in modules and "rules_dsl.odds" in modules and "rules_dsl.compiler.expressions" in modules
    graph = import_graph(modules)
    assert "rules_dsl.language.nodes" in graph["rules_dsl.language.parser"]
    assert "rules_dsl.compiler.expressions" in graph["rules_dsl.compiler.mechanics"]
    # a function-level import counts: the package's lazy __getattr__ takes the loader
    assert "rules_dsl.library.loader" in graph["rules_dsl"]


def test_the_reader_finds_private_uses_and_circles_where_they_are():
    """Planted faults are found: the tests below can fail."""
    fake = {
        "rules_dsl.a": Module("rules_dsl.a", Path("a.py"), False, ast.parse(
            "from .b import _hidden, public, __version__\nfrom . import c\nc._secret()\nc.fine()\n")),
        "rules_dsl.b": Module("rules_dsl.b", Path("b.py"), False, ast.parse(
            "def later():\n    from . import a\n")),
        "rules_dsl.c": Module("rules_dsl.c", Path("c.py"), False, ast.parse("import os\n")),
    }
    assert [(u.importer, u.name) for u in private_imports(fake)] == [("rules_dsl.a", "_hidden"), ("rules_dsl.a", "_secret")]
    assert circles(fake) == [["rules_dsl.a", "rules_dsl.b"]]


def test_no_module_takes_another_modules_underscore_names():
    found = private_imports()
    assert not found, f"{len(found)} private cross-module uses:\n" + "\n".join(
        f"  {u.importer} line {u.line}: {u.name} from {u.target}" for u in found)


def test_no_import_circles():
    found = circles()
    assert not found, f"{len(found)} import circles:\n" + "\n".join(
        f"  ({len(c)} modules) " + " <-> ".join(c) for c in found)


# ----------------------------------------------------------------- the stages' order
#: the package's folders, lowest first (docs/architecture.md draws them): a module imports
#: from its own stage and the stages before it, never from one after it.  Data flows one
#: way: the language knows nothing of analysis, the compiler nothing of its back ends,
#: the back ends nothing of the library that holds books, the library nothing of the faces.
STAGES = ["language", "analysis", "compiler", "odds", "jsgen", "evaluation", "library", "faces", "sphinxext",
          "entry"]
#: modules at the package's top and their stage: the base every stage uses sits with the
#: language; `cli` (the `rules` command's entry point) is a face; the rest are entry points
#: that may take anything (the front door's lazy names, `python -m`, the pytest plugin, a
#: former module name kept importable)
TOP = {"errors": "language", "paths": "language", "version": "language", "cli": "faces",
       "__init__": "entry", "__main__": "entry", "pytest_plugin": "entry", "odds_pools": "entry"}
#: imports that run back up today, each with its reason; the test fails when one goes away
#: (delete it here) and when a new one comes
UPWARD: dict = {
    # (importer, imported): why it may run back up.  Empty: the last one (the parser reading
    # the search's words for a book's `vocabulary`) went when those words moved into the
    # language (language/search_words.py).
}


def stage_of(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return "entry"
    if parts[1] in STAGES:
        return parts[1]
    assert parts[1] in TOP, (f"{module}: a module at the package's top that is no entry point nor base; "
                             f"put it in a stage's folder, or add it to TOP with its stage")
    return TOP[parts[1]]


def upward_imports(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    return {(a, b) for a, targets in graph.items() for b in targets
            if STAGES.index(stage_of(b)) > STAGES.index(stage_of(a))}


def test_every_module_has_a_stage():
    """Every folder of the package is a stage, and every module at the top is placed."""
    folders = {p.name for p in (REPO / PACKAGE).iterdir() if (p / "__init__.py").exists()}
    assert folders == set(STAGES) - {"entry"}, folders ^ (set(STAGES) - {"entry"})
    for name in _modules():
        stage_of(name)


def test_the_stage_rule_finds_an_import_that_runs_back_up():
    fake = {
        "rules_dsl.language.nodes": Module("rules_dsl.language.nodes", Path("n.py"), False, ast.parse(
            "from ..errors import RulesError\n")),
        "rules_dsl.errors": Module("rules_dsl.errors", Path("e.py"), False, ast.parse("")),
        "rules_dsl.analysis.checks": Module("rules_dsl.analysis.checks", Path("c.py"), False, ast.parse(
            "from ..language import nodes\ndef f():\n    from ..library.loader import load\n")),
        "rules_dsl.library.loader": Module("rules_dsl.library.loader", Path("l.py"), False, ast.parse(
            "from ..analysis import checks\n")),
    }
    assert upward_imports(import_graph(fake)) == {("rules_dsl.analysis.checks", "rules_dsl.library.loader")}


def test_imports_run_down_the_stages():
    found = upward_imports(import_graph())
    new = sorted(found - set(UPWARD))
    assert not new, f"{len(new)} imports run back up the stages ({' < '.join(STAGES)}):\n" + "\n".join(
        f"  {a} ({stage_of(a)}) imports {b} ({stage_of(b)})" for a, b in new)
    gone = sorted(set(UPWARD) - found)
    assert not gone, f"no longer imported, delete from UPWARD: {gone}"
