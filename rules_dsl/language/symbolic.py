"""The stand-in protocol: what evaluation code must do for the exact-odds engine.

The exact-odds engine (`rules_dsl.odds`) does not hand a mechanic one face per
die.  Where the mechanic cannot tell some faces apart, it hands over one
*stand-in* for all of them (`rules_dsl.odds.standins`): a `Face` covering a class
of faces of a die, or a `Tail` covering "k or more successes" of a chain.  The
stand-in watches each use: a use that gives the same answer for every value it
covers is answered; any other makes the engine split the class and evaluate
again.  This module is the whole contract between that engine and the code that
evaluates mechanics (the compiler's closures, `rules_dsl.language.builtins`, `TypeCheck`):

1. **A stand-in is a `Symbolic`.**  `type(x)` is its own class, but `x.__class__`
   (hence `isinstance`) is the type of the values it covers (`int` for a numbered
   die, `values.Sym` for a custom one), so a check such as
   `isinstance(v, int) and not isinstance(v, bool)` passes as it would for a face.
   Evaluation code must test types with `isinstance`, never with `type(x) is ...`.
2. **Operators and conversions are its own methods**: arithmetic, comparisons,
   `bool`, `int`, `index`, `abs`, `round`, `hash`, `==`.  The builtins may call
   them freely (`abs(x)`, `x % 2`, `sorted(xs)`, `math.floor(x)`...).
3. **A set lookup is the one use it cannot see** (a hash only).  Evaluation code
   routes `item in container` with a `Symbolic` item through
   `item.observe(fn, key)`: `fn` is the test applied to one covered value; the
   stand-in answers it when it is the same for all of them.  `key` names the test
   for caching (it may be unhashable, then nothing is cached).  The compiler does
   this for the `in` / `not in` operators (`compiler.expressions._contains`).
4. **`max` and `min` compare only distinct stand-ins.**  A pool is handed over as
   one stand-in object per face class, repeated once per die; `builtins._extreme`
   picks among the distinct objects (a winning stand-in stands for the highest of
   its copies), so a `max` is decided only as far as it is used.
5. **Refinement must not be swallowed.**  A use that splits a class raises an
   internal `BaseException` (not an `Exception`), so an `except Exception` or
   `except (TypeError, ValueError)` in evaluation code lets it through.  Evaluation
   code must not catch `BaseException`.
6. **Results never hold a stand-in**: the engine settles (splits) whatever stand-in
   reaches a mechanic's result, so outputs are always plain values.

`tests/test_odds.py::test_every_builtin_on_stand_ins` runs every builtin on
stand-ins and compares each distribution with brute-force enumeration; a new
builtin must be added there.
"""
from __future__ import annotations


class Symbolic:
    """Base of the exact-odds engine's stand-ins (see the module docstring)."""
    __slots__ = ()

    def observe(self, fn, key=None):  # pragma: no cover - implemented by rules_dsl.odds
        """`fn(v)` for the values `v` this stand-in covers, when it is the same for all of them."""
        raise NotImplementedError

