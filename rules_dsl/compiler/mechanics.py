"""Mechanics: `MechanicFn`, a compiled mechanic, and its compiled statements (steps).

A mechanic's body compiles to a list of steps, one per statement, each holding the
closure that computes it: `LetStep` and `RollStep` bind a name, `RequireStep`
stops the evaluation with its message when its condition is false.  `invoke` runs
them in order; the exact-odds engine (rules_dsl.odds.plan) reads the same steps.
"""
from __future__ import annotations

import inspect
import random
from dataclasses import dataclass
from typing import Callable, ClassVar

from ..language import nodes as n
from ..language import rollpaths
from ..language.dice import EXPLODE_CAP, MAX_DICE, GivenRoller, roll_faces
from ..errors import EvaluationError, InputError, NotFound
from ..language.render import dice_text as _dice_text
from ..language.values import show
from .context import BookParts, Ctx, Invocable, fail
from .expressions import iterable, compile_expr
from .typecheck import TypeCheck


@dataclass(frozen=True, slots=True)
class LetStep:
    """`let name = value`: binds `name` to `fn(env, ctx)`."""
    name: str
    fn: Callable
    binds: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class RollStep:
    """`roll name: dice`: binds `name` to what `fn(env, ctx)` asks the roller for."""
    name: str
    fn: Callable
    binds: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class RequireStep:
    """`require cond, "message"`: the evaluation fails with `message` when `fn(env, ctx)` is false."""
    message: str
    fn: Callable
    span: n.Span
    binds: ClassVar[bool] = False


class MechanicFn(Invocable):
    """A compiled mechanic: a real callable with a signature and a docstring.

    Call it like a Python function; pass a roll's name as a keyword to give that
    roll's value instead of rolling it (`defence_roll(5, die=7)`).
    """

    def __init__(self, book: BookParts, node: n.Mechanic):
        self.book, self.node = book, node
        self.name = self.__name__ = node.name
        self.book_id = book.book_id
        self.params = node.params
        self.checks = {p.name: TypeCheck(p.type, book) for p in node.params}
        self.returns = self.result_check(node, book)
        scope = frozenset(p.name for p in node.params)
        self.defaults = {p.name: compile_expr(book, p.default, frozenset()) for p in node.params if p.default is not None}
        self._default_values = {}
        steps = []
        self.rolls = []
        for s in node.body:
            if isinstance(s, n.Let):
                steps.append(LetStep(s.name, compile_expr(book, s.value, scope)))
                scope = scope | {s.name}
            elif isinstance(s, n.Roll):
                steps.append(RollStep(s.name, self._compile_roll(s, scope)))
                self.rolls.append(s)
                scope = scope | {s.name}
            else:
                steps.append(RequireStep(s.message, compile_expr(book, s.cond, scope), s.span))
        self.steps = steps
        self.result = compile_expr(book, node.result, scope)
        self.__doc__ = self._docstring()
        self.__signature__ = self._signature()
        self.__qualname__ = f"{self.book_id}:{self.name}"

    # -- introspection
    @property
    def has_dice(self) -> bool:
        return bool(self.rolls) or any(m.has_dice for m in self._callees())

    def _callees(self, seen=None):
        seen = set() if seen is None else seen
        out = []
        for name in _called_mechanics(self.node):
            if name not in seen and name in self.book.mechanics:
                seen.add(name)
                m = self.book.mechanics[name]
                out.append(m)
                out.extend(m._callees(seen))
        return out

    def signature_text(self) -> str:
        parts = []
        for p in self.params:
            s = f"{p.name}: {self.checks[p.name].describe}"
            if p.default is not None:
                s += f" = {show(self.default(p.name))}"
            parts.append(s)
        parts += [f"roll {r.name}: {_dice_text(r.dice)}" for r in self.rolls]
        return f"{self.name}({', '.join(parts)}) -> {self.returns.describe}"

    def _docstring(self):
        lines = [self.node.doc or ""]
        lines.append("")
        for p in self.params:
            lines.append(f"{p.name}: {self.checks[p.name].describe}")
        for r in self.rolls:
            lines.append(f"{r.name} (roll): {_dice_text(r.dice)}; rolled unless given")
        lines.append(f"returns: {self.returns.describe}")
        return "\n".join(lines).strip()

    def _signature(self):
        P = inspect.Parameter
        ps = []
        for p in self.params:
            default = P.empty
            if p.default is not None:
                default = self.default(p.name)
            ps.append(P(p.name, P.POSITIONAL_OR_KEYWORD, default=default))
        for r in self.rolls:
            ps.append(P(r.name, P.KEYWORD_ONLY, default=None))
        return inspect.Signature(ps)

    def default(self, name):
        """A parameter's default value (a constant expression: evaluated once)."""
        if name not in self._default_values:
            self._default_values[name] = self.defaults[name]({}, Ctx(GivenRoller()))
        return self._default_values[name]

    def check_defaults(self):
        diags = []
        for p in self.params:
            if p.default is None:
                continue
            try:
                self.checks[p.name].convert(self.default(p.name))
            except (ValueError, EvaluationError):
                diags.append(self.book.diag(p.default.span, f"default of '{p.name}' does not fit its type",
                                            f"allowed: {self.checks[p.name].describe}"))
        return diags

    def _compile_roll(self, s: n.Roll, scope, compile=None):
        """The closure of a roll statement; `compile(expr, scope)` compiles its dice count
        and faces (default: the plain compiler; explanations pass their own)."""
        spec, book = s.dice, self.book
        die = book.dice[spec.die]
        if compile is None:
            def compile(e, sc):
                return compile_expr(book, e, sc)
        count = compile(spec.count, scope) if spec.count is not None else None
        on = compile(spec.on, scope) if spec.on is not None else None
        then = compile(spec.then, scope) if spec.then is not None else None
        cap = compile(spec.cap, scope) if spec.cap is not None else None
        name, sp = s.name, s.span

        def _faces(env, ctx, what):
            try:
                return roll_faces(die, iterable(sp, on(env, ctx)), name, what)
            except EvaluationError as e:
                fail(sp, str(e))

        def n_dice(env, ctx):
            k = count(env, ctx)
            if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= MAX_DICE:
                fail(sp, f"roll '{name}': the number of dice must be 0..{MAX_DICE}, got {show(k)}")
            return k

        if spec.kind == "one":
            return lambda env, ctx: ctx.roller.one(ctx.prefix + name, die)
        if spec.kind == "pool":
            return lambda env, ctx: ctx.roller.pool(ctx.prefix + name, die, n_dice(env, ctx))
        if spec.kind == "reroll":
            def reroll(env, ctx):
                k = n_dice(env, ctx) if count is not None else None
                faces = _faces(env, ctx, "re-rolled")
                return ctx.roller.reroll(ctx.prefix + name, die, k, faces)
            return reroll
        if spec.kind == "explode":
            def explode(env, ctx):
                k = n_dice(env, ctx) if count is not None else 1
                faces = _faces(env, ctx, "exploding")
                if faces >= set(die.faces):
                    fail(sp, f"roll '{name}': exploding on every face of {die.name} would never stop")
                most = cap(env, ctx) if cap is not None else EXPLODE_CAP
                if isinstance(most, bool) or not isinstance(most, int) or not 0 <= most <= MAX_DICE - k:
                    fail(sp, f"roll '{name}': 'up to' takes 0..{MAX_DICE - k} extra dice, got {show(most)}")
                return ctx.roller.explode(ctx.prefix + name, die, k, faces, most)
            return explode

        def chain(env, ctx):
            k = n_dice(env, ctx) if count is not None else 1
            first = frozenset(iterable(sp, on(env, ctx)))
            later = frozenset(iterable(sp, then(env, ctx))) if then is not None else first
            return ctx.roller.chain(ctx.prefix + name, die, k, first, later)
        return chain

    # -- calling
    def result_check(self, node: n.Mechanic, book) -> TypeCheck:
        """What checks and converts the result (`self.returns`): the declared type.  A
        hook, in the manner of Jinja2's `TrackingCodeGenerator`: a twin that returns
        something else by design (explain's odds by branch) overrides it."""
        return TypeCheck(node.returns, book)

    def bind(self, args, kwargs) -> dict:
        """Match arguments to parameters, validate them, fill defaults."""
        names = [p.name for p in self.params]
        if len(args) > len(names):
            raise InputError(self.name, names[-1] if names else "-", args[len(names)],
                             f"at most {len(names)} argument(s): {', '.join(names)}")
        bound = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise self.unknown_input(k)
            bound[k] = v
        for p in self.params:
            if p.name not in bound:
                if p.default is None:
                    raise InputError(self.name, p.name, None, f"a value is required ({self.checks[p.name].describe})")
                bound[p.name] = self.default(p.name)
            try:
                bound[p.name] = self.checks[p.name].convert(bound[p.name])
            except ValueError:
                raise InputError(self.name, p.name, bound[p.name], self.checks[p.name].describe) from None
        return bound

    def unknown_input(self, name: str) -> NotFound:
        """The error for an input no parameter or roll of this mechanic has: the near
        names, then every valid one (its parameters, and its rolls, which can be given)."""
        from ..errors import did_you_mean
        params, rolls = [p.name for p in self.params], [r.name for r in self.rolls]
        hint = did_you_mean(name, params + rolls)
        valid = f"its parameters: {', '.join(params)}" if params else "it takes no parameters"
        if rolls:
            valid += f"; its rolls, which can be given by name: {', '.join(rolls)}"
        return NotFound("parameter", name, where=f"{self.book_id}:{self.name}",
                        note=f"{hint} ({valid})" if hint else valid)

    def invoke(self, bound: dict, ctx: Ctx):
        env = dict(bound)
        for step in self.steps:
            if step.binds:
                env[step.name] = step.fn(env, ctx)
            elif not step.fn(env, ctx):
                raise EvaluationError(f"{self.name}: {step.message}")
        value = self.result(env, ctx)
        if isinstance(value, range):
            value = list(value)
        try:
            return self.returns.convert(value)
        except ValueError:
            raise EvaluationError(f"{self.node.span}: {self.name} produced {show(value)}, "
                                  f"which is not {self.returns.describe} as declared") from None

    def given_rolls(self, kwargs: dict, rolls=None) -> dict:
        """Take the rolls given by name out of `kwargs` (which keeps the parameters):
        a roll of this mechanic by its name, a roll of a mechanic it calls by the
        dotted name a call prints (`hit.hit_dice`), and those in `rolls`."""
        roll_names = {r.name for r in self.rolls}
        params = {p.name for p in self.params}
        given = {rollpaths.canonical(k): v for k, v in (rolls or {}).items()}
        for k in list(kwargs):
            if (k in roll_names or rollpaths.is_path(k)) and k not in params:
                given[rollpaths.canonical(k)] = kwargs.pop(k)
        return given

    def run(self, *args, rolls=None, seed=None, rng=None, **kwargs):
        """Evaluate; return (result, rolls made).  `rolls` gives named rolls' values.

        A roll may also be given as a keyword: its own name (`save=1`), or, for a roll
        made inside a mechanic this one calls, the path a call prints for it
        (`hit.hit_dice=[4, 4, 4]`, `attack[1].hit_dice=[6]` for the second call of
        `attack`, through ``**{...}`` in Python; see `rules_dsl.language.rollpaths`).  The rolls
        made are named the same way."""
        given = self.given_rolls(kwargs, rolls)
        bound = self.bind(list(args), kwargs)
        roller = GivenRoller(given, rng or (random.Random(seed) if seed is not None else random.Random()))
        try:
            result = self.invoke(bound, Ctx(roller))
        except RecursionError:
            raise EvaluationError(f"{self.name}: the evaluation nests too deeply") from None
        made = rollpaths.shown_names(roller.made)
        unknown = set(given) - roller.used
        if unknown:
            raise NotFound("roll", sorted(unknown)[0], list(made) + sorted(r.name for r in self.rolls),
                           where=f"{self.book_id}:{self.name} (rolls made: {', '.join(made) or 'none'})")
        return result, made

    def __call__(self, *args, **kwargs):
        return self.run(*args, **kwargs)[0]

    def __repr__(self):
        return f"<mechanic {self.book_id}:{self.signature_text()}>"


def _called_mechanics(node):
    """Names of the mechanics and tables a mechanic calls by name."""
    return [x.func.name for x in n.iter_nodes(node) if isinstance(x, n.Call) and isinstance(x.func, n.Name)]
