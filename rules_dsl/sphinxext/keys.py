"""Cache keys of the site: what a cached model, page or derived result depends on.

* `engine_key` / `render_key` / `code_key`: the package's own files (the language
  implementation, this extension, both);
* `content_key`: a book's files and the code;
* `semantic_key`: only what checks, odds and examples depend on (declarations,
  examples and dice; not prose, titles, notes or positions);
* `Closures.key`: one declaration with everything it reaches by name, so editing
  one mechanic re-runs only the checks, odds and examples that can see it;
* `digest`: the fingerprint of a render model (see site.py).
"""
from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

from .. import cachekeys, nodes as n
from ..cachekeys import code_fingerprint

MODEL_VERSION = 7


# ------------------------------------------------------------------ code and content
# One policy for every cache of the project (rules_dsl/cachekeys.py): content plus a
# fingerprint of the code that the cached thing depends on.
def engine_key() -> str:
    """Changes whenever the language implementation (compiler, odds engine...) changes,
    or the choice of each page's odds inputs."""
    page_odds = Path(__file__).with_name("page_odds.py")
    return code_fingerprint("engine", salt=f"{MODEL_VERSION}|{cachekeys.stamp(page_odds)}")


def render_key() -> str:
    """Changes whenever this extension changes (pages must then be rendered again)."""
    return code_fingerprint("site", salt=str(MODEL_VERSION))


def code_key() -> str:
    """Changes whenever the package or this extension changes."""
    return code_fingerprint("engine", "site", salt=str(MODEL_VERSION))


def content_key(files, code: str) -> str:
    return cachekeys.key(*(x for f in files for x in (str(f), Path(f).read_bytes())), code=code)


# ------------------------------------------------------------------ meaning
def _strip(x):
    """An AST value without source positions, for hashing what a node *means*."""
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return (type(x).__name__,) + tuple(_strip(getattr(x, f.name)) for f in dataclasses.fields(x)
                                           if f.name not in ("span", "first_line"))
    if isinstance(x, (tuple, list)):
        return tuple(_strip(i) for i in x)
    return x


def semantic_key(ast, code: str) -> str:
    """Hash of everything checks, odds and examples depend on: declarations,
    examples and dice (not prose, titles, notes or positions)."""
    parts = [code, repr(_strip(ast.header.dice))]

    def visit(items, where):
        for it in items:
            if isinstance(it, n.Section):
                parts.append(f"section {where}/{it.id}")
                visit(it.items, f"{where}/{it.id}")
            elif isinstance(it, n.Rule):
                parts.append(f"rule {it.id}")
                parts.append(repr(_strip(it.decls)))
                parts.append(repr(_strip(it.examples)))
            elif not isinstance(it, n.Prose):
                parts.append(repr(_strip(it)))
    visit(ast.items, "")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def digest(obj) -> str:
    return hashlib.sha256(repr(obj).encode()).hexdigest()[:24]


# ------------------------------------------------------------------ closures
class Closures:
    """Keys for cached results: the hash of a declaration (a check, a mechanic, an
    example) together with every declaration it reaches by name, transitively,
    plus the book's enums and dice.  Editing one mechanic re-runs only the
    checks, odds and examples that can see it."""

    def __init__(self, ast, code: str):
        from ..reach import named_decls
        self.decls = named_decls(ast)      # checks and priced views aside: never a name expressions reach
        enums = [d for d in self.decls.values() if isinstance(d, n.Enum)]
        self.base = code + repr(_strip(ast.header.dice)) + repr(sorted(repr(_strip(e)) for e in enums))
        self._names, self._reprs = {}, {}

    def names(self, node) -> set:
        key = id(node)
        if key not in self._names:
            out = set()

            def visit(x):
                if isinstance(x, n.Name):
                    out.add(x.name)
                elif isinstance(x, n.NamedType):
                    out.add(x.name)
                elif isinstance(x, n.DiceSpec):
                    out.add(x.die)
                if dataclasses.is_dataclass(x) and not isinstance(x, type):
                    for f in dataclasses.fields(x):
                        if f.name != "span":
                            visit(getattr(x, f.name))
                elif isinstance(x, (tuple, list)):
                    for i in x:
                        visit(i)
            visit(node)
            self._names[key] = out
        return self._names[key]

    def _repr(self, name):
        if name not in self._reprs:
            self._reprs[name] = repr(_strip(self.decls[name]))
        return self._reprs[name]

    def key(self, root, extra_names=()) -> str:
        seen, stack = set(), list(self.names(root) | set(extra_names)) if root is not None else list(extra_names)
        while stack:
            name = stack.pop()
            if name in self.decls and name not in seen:
                seen.add(name)
                stack.extend(self.names(self.decls[name]))
        parts = [self.base, repr(_strip(root))] + [self._repr(x) for x in sorted(seen)]
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()
