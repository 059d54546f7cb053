"""`rules odds` and `rules cost`: exact distributions of a dice mechanic (with `--vs`
variants, a `--sweep` over one input, or `--explain`'s branches) and a book's cost views,
as tables and charts in the game's words (odds_text.py) or as JSON.
"""
from __future__ import annotations

from .cli_common import command_deadline, die, load_book, out_line, output, print_json, short
from .cli_inputs import parse_value, resolve_ref, typed_inputs


def cmd_odds(args):
    book, _kind, mech = resolve_ref(args.ref, allow_tables=False)
    if not mech.has_dice:
        die(f"{book.id}:{mech.name} rolls no dice; use `rules call` for its value", 2)
    from ..odds import TooLarge
    modes = [m for m, on in (("--explain", args.explain), ("--vs", args.vs), ("--sweep", args.sweep)) if on]
    if len(modes) > 1:
        die(f"{' and '.join(modes)} do not combine: ask for each on its own", 2)
    deadline = command_deadline(args)
    try:
        return _odds(args, book, mech, deadline)
    except TooLarge as e:
        raise more_time(e, deadline) from None


def more_time(e, deadline):
    """A refusal that ran out of time, saying how to allow more the command line's way."""
    if e.kind != "time":
        return e
    longer = max(60, int(deadline.seconds * 10))
    return e.about(e.subject, [h for h in e.hints if h != "more time"] + [f"more time (--time-limit {longer})"])


def _hint(text: str, deadline) -> str:
    """A row's refusal with the command line's hint (as `more_time` gives a whole refusal)."""
    if "more time" in text and "--time-limit" not in text:
        return text.replace("more time", f"more time (--time-limit {max(60, int(deadline.seconds * 10))})")
    if text.startswith("not computed:"):
        return text + f"; try more time (--time-limit {max(60, int(deadline.seconds * 10))})"
    return text


def _odds(args, book, mech, deadline):
    from ..odds import distribution
    # one meter for the whole command: the first distribution, the --vs ones, the --explain twin
    meter = deadline.meter()
    inputs = typed_inputs(mech, args.assignments, book)
    if args.explain:
        return _odds_explained(args, book, mech, dict(inputs, _meter=meter))
    words = book.display
    if args.sweep:
        return _odds_sweep(args, book, mech, deadline)
    from . import odds_text
    said = _odds_words(book, mech)
    if args.vs:
        from ..evaluation.design import variants
        dists = variants(mech, inputs, [typed_inputs(mech, v, book, given=inputs) for v in args.vs], meter=meter)
        if args.json:
            print_json({chr(ord("a") + i): d.as_json() for i, d in enumerate(dists)})
            return 0
        for line in odds_text.variants_lines(dists, exact=args.exact, label=lambda k: words.param(mech.name, k), **said):
            out_line(line)
        _odds_chart(args, lambda width, uni: odds_text.variants_chart(dists, said["show"], width, uni))
        return 0
    dist = distribution(mech, _meter=meter, **inputs)
    if args.json:
        print_json(dist.as_json())
        return 0
    for line in _fit("\n".join(odds_text.distribution_lines(dist, exact=args.exact, **said)), args).split("\n"):
        out_line(line)
    _odds_chart(args, lambda width, uni: odds_text.distribution_chart(dist, said["show"], width, uni, exact=args.exact))
    return 0


def _sweep_spec(text: str):
    """NAME, NAME=LOW..HIGH or NAME=a,b,c -> (name, None | (low, high) | [values])."""
    import re
    name, eq, rest = text.partition("=")
    name = name.strip()
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        die(f"--sweep takes NAME=LOW..HIGH (e.g. --sweep target=2..6), got {short(text)!r}")
    if not eq:
        return name, None
    m = re.fullmatch(r"\s*([+-]?[0-9]+)\s*\.\.\s*([+-]?[0-9]+)\s*", rest)
    if m:
        return name, (int(m.group(1)), int(m.group(2)))
    value = parse_value(rest)
    return name, value if isinstance(value, list) else [value]


def _odds_sweep(args, book, mech, deadline):
    """`rules odds BOOK:M --sweep NAME=LOW..HIGH`: a distribution per value of one input,
    every row within the command's one `deadline` (rows it did not reach say so)."""
    from . import odds_text
    from ..evaluation.design import sweep
    from ..language.values import to_json
    name, spec = _sweep_spec(args.sweep)
    words = book.display
    inputs = typed_inputs(mech, args.assignments, book)
    if name in inputs:
        die(f"--sweep {name} and {name}={short(str(inputs[name]))} both set '{name}': sweep it or fix it")
    sw = sweep(mech, name, spec, _deadline=deadline, **inputs)
    sw.rows = [(v, d, err if err is None else _hint(err, deadline)) for v, d, err in sw.rows]
    if args.json:
        print_json({"mechanic": f"{mech.book_id}:{mech.name}", "inputs": {k: to_json(v) for k, v in inputs.items()},
                    "sweep": {"name": name, "values": [to_json(v) for v, _, _ in sw.rows]},
                    "rows": [{"value": to_json(v), "distribution": d.as_json() if d is not None else None, "error": err}
                             for v, d, err in sw.rows]})
        return 0
    said = _odds_words(book, mech)
    for line in odds_text.sweep_lines(sw, exact=args.exact, width=output(args).width, show=said["show"],
                                      heading=said["title"](sw), label=lambda k: words.param(mech.name, k),
                                      result=words.result(mech.name)):
        out_line(line)
    return 0


def cmd_cost(args):
    """`rules cost BOOK[:NAME]`: the book's `priced` views (design.py), as tables and bars."""
    from . import odds_text
    from ..evaluation.design import price
    from ..language.values import to_json
    book_id, _, name = args.ref.partition(":")
    book = load_book(book_id)
    if not book.compiled.priced:
        die(f"{book.id} prices nothing: it has no `priced` view (see docs/language.md, \"Design views\")", 1)
    deadline = command_deadline(args)
    views = price(book, name or None, deadline=deadline)
    for v in views:
        for r in v.rows:
            r.note = _hint(r.note, deadline) if r.note else r.note

    def frac(x):
        return None if x is None else f"{x.numerator}/{x.denominator}"
    if args.json:
        print_json({"book": book.id, "views": [
            {"name": v.name, "title": v.title, "rule": v.rule, "cost": v.cost_text, "per": v.effect_text,
             "chance": v.chance, "names": v.names,
             "rows": [{"case": {k: to_json(x) for k, x in r.bindings.items()}, "cost": to_json(r.cost),
                       "expected": frac(r.expected), "expected_float": None if r.expected is None else float(r.expected),
                       "ratio": frac(r.ratio), "ratio_float": None if r.ratio is None else float(r.ratio),
                       "note": r.note} for r in v.rows]} for v in views]})
        return 0
    width = output(args).width
    for i, v in enumerate(views):
        if i:
            out_line()
        for line in odds_text.cost_lines(v, exact=args.exact, width=width, book_title=book.title):
            out_line(line)
    return 0


def _odds_chart(args, draw):
    """The distribution drawn under its table (odds_text's charts), as wide as the terminal."""
    out = output(args)
    out_line()
    out_line("\n".join(draw(out.width, out.arrow == "→")))


def _fit(text: str, args) -> str:
    """An odds text for the terminal: a line of words (a title) wider than the terminal
    wrapped under itself; a table's rows (columns apart by two spaces) kept whole."""
    import textwrap
    width = output(args).width
    lines = []
    for line in text.split("\n"):
        if len(line) > width and "  " not in line.strip():
            lines.extend(textwrap.wrap(line, width, subsequent_indent="   ", break_long_words=False,
                                       break_on_hyphens=False))
        else:
            lines.append(line)
    return "\n".join(lines)


def _odds_words(book, mech) -> dict:
    """How `rules odds` says a mechanic's results and inputs: in words (display.py)."""
    from ..language.wording import inputs_phrase
    words = book.display

    def title(d):
        given = inputs_phrase(words, mech.name, d.inputs)
        return f"{words.mechanic(mech.name)[:1].upper()}{words.mechanic(mech.name)[1:]}" + (f", with {given}" if given else "")
    return {"show": words.value, "title": title, "result": words.result(mech.name)[:1].upper() + words.result(mech.name)[1:]}


def _odds_explained(args, book, mech, inputs):
    """`rules odds --explain`: the distribution, and for each outcome the branches of
    the mechanic's result (a chain of `if`s) it comes from, with their probabilities
    (`inputs` as `typed_inputs` reads them, with the command's `_meter`)."""
    from ..evaluation.explain import odds_by_branch
    from ..language.values import percent_text
    found = odds_by_branch(mech, **inputs)
    if found is None:
        from ..odds import distribution
        dist = distribution(mech, **inputs)
        note = (f"{book.id}:{mech.name}'s result is not a chain of branches (if ... then ... else ...), "
                "so --explain has no branch to name; `rules explain` shows one evaluation's working")
        if args.json:
            print_json(dict(dist.as_json(), branches=None, note=note))
            return 0
        out_line(dist.table(**_odds_words(book, mech)))
        out_line()
        out_line(note)
        return 0
    arms, rows, dist = found
    rule = book.rule_of(mech.name) or ""
    title = book.rule(rule).title if rule else ""

    def frac(p):
        return f"{p.numerator}/{p.denominator}" if p.denominator != 1 else str(p.numerator)
    if args.json:
        data = dist.as_json()
        data["branches"] = [label for label, _ in arms]
        for o, (_v, _p, parts) in zip(data["outcomes"], rows):
            o["from"] = [{"branch": label, "probability": frac(q), "float": float(q)} for label, q in parts]
        print_json(data)
        return 0
    words = book.display
    out_line(dist.table(**_odds_words(book, mech)))
    out_line()
    from ..language.wording import branch_words
    said = branch_words(mech.node, words)       # each branch in words, in the order of `arms`
    out_line(f"Where each result comes from: the branches of {words.mechanic(mech.name)} ({title}):")
    for i, (label, arm) in enumerate(said, 1):
        out_line(f"  {i}. {label}: {arm}")
    out_line()
    index = {label: i for i, (label, _) in enumerate(arms)}
    for value, _p, parts in rows:
        shares = "; ".join(f"branch {index[label] + 1} ({said[index[label]][0]}) {frac(q)} = {percent_text(q)}"
                           for label, q in parts)
        out_line(f"  {words.value(value)}: {shares}")
    return 0

