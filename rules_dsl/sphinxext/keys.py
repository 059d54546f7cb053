"""Cache keys of the site: what a cached model, page or derived result depends on.

* `engine_key` / `render_key` / `code_key`: the package's own files (the language
  implementation, this extension, both);
* `content_key`: a book's files and the code: what everything made of one book (its
  model, its JavaScript) is keyed by;
* `Closures.key`: one result (a check's findings, an example's outcome, a mechanic's
  odds) keyed by everything it is made of, so editing one mechanic re-runs only the
  checks, odds and examples that can see it;
* `digest`: the fingerprint of a render model (see site.py).
"""
from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

from ..library import cachekeys
from ..language import nodes as n
from ..library.cachekeys import code_fingerprint

MODEL_VERSION = 7


# ------------------------------------------------------------------ code and content
# One policy for every cache of the project (rules_dsl/library/cachekeys.py): content plus a
# fingerprint of the code that the cached thing depends on.
def engine_key() -> str:
    """Changes whenever the language implementation (compiler, odds engine...) changes,
    or the choice of each page's odds inputs."""
    page_odds = Path(__file__).parent.parent / "odds" / "page_inputs.py"
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


def digest(obj) -> str:
    return hashlib.sha256(repr(obj).encode()).hexdigest()[:24]


# ------------------------------------------------------------------ closures
_ATOMS = (str, int, float, bool, type(None), n.Span)


class Closures:
    """Keys for cached results: the hash of a declaration (a check, a mechanic, an
    example) together with everything its result is made of: every declaration it
    reaches by name, transitively, the book's enums and dice, and the code.  Editing one
    mechanic re-runs only the checks, odds and examples that can see it.

    What a result shows decides what its key holds.  Exact odds show values only, so
    their key leaves out where things are written (`_strip`).  A finding or a failing
    example shows where (the line of a printed value, the rule that owns the table or
    the check): with ``placed=True`` the key holds the nodes as written, source
    positions included, and the id of the rule declaring each declaration reached.  A
    result that reaches the `defined` built-in reads every rule's title and aliases,
    so those are in its key too."""

    def __init__(self, ast, code: str):
        from ..language.model import decls_of
        self.decls, self.owner = {}, {}
        enums = []
        for p in decls_of(ast):
            d = p.node
            if isinstance(d, (n.Check, n.Priced)):       # their own namespaces: never a name expressions reach
                continue
            self.decls.setdefault(d.name, d)
            self.owner.setdefault(d.name, p.rule.id if p.rule is not None else "")
            if isinstance(d, n.Enum):
                enums.append(d)
        self._ast = ast
        self._defined = None          # every rule's title and aliases, worked out when first reached
        self.base = code + repr(_strip(ast.header.dice)) + repr(sorted(repr(_strip(e)) for e in enums))
        self._names, self._reprs = {}, {}

    def names(self, node) -> set:
        """The names `node` reads (names, named types, dice).  The walk of `nodes.iter_nodes`,
        over each node's attributes directly: it runs over every declaration and example of
        a book each time the book is compiled (a third faster than the generic walk)."""
        key = id(node)
        if key not in self._names:
            out, stack = set(), [node]
            while stack:
                x = stack.pop()
                if isinstance(x, _ATOMS):
                    continue
                if isinstance(x, (tuple, list)):
                    stack.extend(x)
                    continue
                fields = getattr(x, "__dict__", None)      # AST nodes: dataclasses without slots
                if fields is None:
                    continue
                if isinstance(x, (n.Name, n.NamedType)):
                    out.add(x.name)
                elif isinstance(x, n.DiceSpec):
                    out.add(x.die)
                stack.extend(fields.values())
            self._names[key] = out
        return self._names[key]

    def _repr(self, name, placed):
        if (name, placed) not in self._reprs:
            d = self.decls[name]
            self._reprs[name, placed] = repr((d, self.owner[name])) if placed else repr(_strip(d))
        return self._reprs[name, placed]

    def key(self, root, extra_names=(), placed: bool = False, owner: str = "") -> str:
        """The key of a result computed from `root` (and the `extra_names` it reads);
        `placed`: the result shows source positions and owning rules (findings, example
        reports), `owner` the id of the rule it is shown under."""
        seen, stack = set(), list(self.names(root) | set(extra_names)) if root is not None else list(extra_names)
        reached = set(stack)
        while stack:
            name = stack.pop()
            reached.add(name)
            if name in self.decls and name not in seen:
                seen.add(name)
                stack.extend(self.names(self.decls[name]))
        parts = [self.base, owner, repr(root) if placed else repr(_strip(root))]
        parts += [self._repr(x, placed) for x in sorted(seen)]
        if "defined" in reached:
            if self._defined is None:
                from ..analysis.checks import defined_names
                self._defined = repr(sorted(defined_names(self._ast).items()))
            parts.append(self._defined)
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()
