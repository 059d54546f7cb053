"""The JavaScript back end: a book's checked AST compiled to one ES module.

Beside the Python closures (`rules_dsl.compiler`), every mechanic, table, enum, die and
constant of a book becomes JavaScript that runs in node and in a browser with the same
semantics: exact integers (BigInt) and fractions, the rounding modes, ranges and the
InputError words naming the parameter, `require` messages, enums, custom die faces,
absent cells, calls between mechanics, and dice given by name (`hit.hit_dice`) or rolled
from a seed (CPython's Mersenne Twister, so `seed` rolls what `rules call --seed` rolls)
or from a supplied RNG.

* `emit`        -- safe JS text for a book's names and values; `JSGenError`
* `types`       -- declared types as data for the runtime's conversion
* `expressions` -- `ExprGen`: one `visit_<Node>` per expression node
* `mechanics`, `tables` -- one definition each
* `module`      -- the book module and the worked-examples module
* `runtime.js`  -- the hand-written runtime every module imports (no dependencies)
* `canonical`   -- the tagged JSON form in which the two back ends' values are compared

`write(book, out_dir)` writes `runtime.mjs` and `<book id>.mjs` (and with `examples=True`
`<book id>.examples.mjs`).  A construct the back end does not support raises `JSGenError`
naming it and its file:line:col.
"""
from __future__ import annotations

import os
from importlib import resources

from ..paths import write_text_if_changed
from .emit import JSGenError

__all__ = ["JSGenError", "runtime_source", "odds_engine_source", "generate", "generate_with_odds", "write"]

RUNTIME_FILE = "runtime.mjs"
ODDS_ENGINE_FILE = "odds.mjs"


def runtime_source() -> str:
    return resources.files(__package__).joinpath("runtime.js").read_text(encoding="utf-8")


def odds_engine_source() -> str:
    """The exact-odds engine (`odds.js`, shipped as `odds.mjs`): rules_dsl/odds ported."""
    return resources.files(__package__).joinpath("odds.js").read_text(encoding="utf-8")


def generate(book) -> str:
    """The ES module of a loaded `Book` (it imports `./runtime.mjs`)."""
    from .module import book_module
    return book_module(book)[0]


def generate_with_odds(book) -> tuple:
    """(the book's module, the module of its dice mechanics' odds plans) of a loaded `Book`:
    `<id>.mjs` and `<id>.odds.mjs` (which imports the first and `./odds.mjs`)."""
    from .module import book_module
    from .odds import odds_module
    text, g = book_module(book)
    return text, odds_module(book, g, f"{book.id}.mjs")


def write(book, out_dir: str, examples: bool = False, odds: bool = False) -> dict:
    """Write the runtime and the book's module (and its examples module, and with `odds` the
    odds engine and the book's odds plans) to `out_dir`; {kind: path} of the files written.
    Each file is written whole, then renamed."""
    from .module import book_module, examples_module
    os.makedirs(out_dir, exist_ok=True)
    text, g = book_module(book)
    name = f"{book.id}.mjs"
    out = {"runtime": _put(out_dir, RUNTIME_FILE, runtime_source()), "book": _put(out_dir, name, text)}
    if examples:
        ex_text, _ = examples_module(book, g, name)
        out["examples"] = _put(out_dir, f"{book.id}.examples.mjs", ex_text)
    if odds:
        from .odds import odds_module
        out["engine"] = _put(out_dir, ODDS_ENGINE_FILE, odds_engine_source())
        out["odds"] = _put(out_dir, f"{book.id}.odds.mjs", odds_module(book, g, name))
    return out


def _put(folder, name, text) -> str:
    path = os.path.join(folder, name)
    write_text_if_changed(path, text)
    return path
