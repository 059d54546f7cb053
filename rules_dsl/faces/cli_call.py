"""`rules call` and `rules explain`: a mechanic evaluated (or a table looked up) with the
inputs typed on the command line, its answer in words, and for `explain` its working;
the one evaluation keeps to the command's deadline (`--time-limit`) beside its count of
steps.
"""
from __future__ import annotations

from .cli_common import command_deadline, output, out_line, print_json
from .cli_inputs import callable_and_inputs


def cmd_call(args):
    from ..language.values import to_json
    from ..compiler.context import within
    book, kind, fn, kwargs = callable_and_inputs(args)
    if kind == "table":
        result, rolls = fn.lookup(**kwargs), {}
    else:
        with within(command_deadline(args)):
            result, rolls = fn.run(seed=args.seed, **kwargs)
    if args.json:
        print_json({"result": to_json(result), "rolls": {k: to_json(v) for k, v in rolls.items()}})
        return 0
    from .terminal import answer_lines, rolls_line
    out = output(args)
    for line in answer_lines(book, fn.name, result, kwargs, out, table=kind == "table"):
        out_line(line)
    if rolls:
        out_line(rolls_line(book, fn.name, rolls, out))
    return 0


def cmd_explain(args):
    from ..compiler.context import within
    book, kind, fn, kwargs = callable_and_inputs(args)
    with within(command_deadline(args)):
        ex = book.explain(fn.name, seed=args.seed, **kwargs)
    if args.json:
        print_json(ex.as_json())
        return 0
    from .terminal import rolls_line
    from ..evaluation.working import text_lines, worked
    out = output(args)
    for line in text_lines(worked(ex, book.display, locations=args.locations), out.width, out.style,
                           ascii_only=out.arrow != "→"):
        out_line(line)
    if ex.rolls:
        out_line(rolls_line(book, fn.name, ex.rolls, out))
    return 0

