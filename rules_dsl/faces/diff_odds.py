"""`rules diff`'s results and odds as JSON: a result, a refusal or a law, each with its
words (`said`), and the odds of one input set before and after (each result's chance,
the change, the mean).  Split from diff_mechanics.py, which runs the books; this only
writes down what they gave.
"""
from __future__ import annotations

from ..language.values import to_json

__all__ = ["law_key", "results_equal", "result_json", "odds_json", "inputs_said"]


def same_value(x, y) -> bool:
    from ..evaluation.examples import same
    return same(x, y)


def inputs_said(book, name, inputs) -> str:
    from ..language.wording import inputs_phrase
    return inputs_phrase(book.display, name, inputs)


def law_key(v):
    """A result as a key of a law (its JSON text)."""
    import json
    return json.dumps(to_json(v) if not hasattr(v, "as_json") else v.as_json(), sort_keys=True)


def results_equal(x, y) -> bool:
    """Two results (values, refusals as tuples, laws as {key: probability}) the same?"""
    if isinstance(x, tuple) or isinstance(y, tuple):
        return isinstance(x, tuple) and isinstance(y, tuple) and x[:3] == y[:3]
    if isinstance(x, dict) or isinstance(y, dict):
        return x == y
    return same_value(x, y)


def result_json(r, book, name):
    """A result, or an error, or a distribution, as JSON with its words (`said`)."""
    if isinstance(r, tuple):
        return {"error": r[1], "parameter": r[2], "message": r[3], "said": f"refused: {r[3]}"}
    if isinstance(r, dict):
        import json
        from ..language.values import percent_text
        rows = [{"value": json.loads(k), "probability": f"{p.numerator}/{p.denominator}"} for k, p in r.items()]
        said = ", ".join(f"{_value_words(book, row['value'])} {percent_text(p)}" for row, p in zip(rows, r.values()))
        return {"distribution": rows, "said": said}
    return {"value": to_json(r), "said": book.display.value(r)}


def _value_words(book, v) -> str:
    if isinstance(v, dict) and ("at_least" in v or "at_most" in v):
        return f"{v['at_least']} or more" if "at_least" in v else f"{v['at_most']} or less"
    return book.display.value(v)


def odds_json(inputs, da, db, book, name) -> dict:
    """The odds of one input set before (`da`) and after (`db`): each result's chance
    and its change, in order, and the mean."""
    def frac(p):
        return None if p is None else (str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}")
    keys = list(dict.fromkeys([law_key(v) for v, _ in da.outcomes] + [law_key(v) for v, _ in db.outcomes]))
    pa = {law_key(v): p for v, p in da.outcomes}
    pb = {law_key(v): p for v, p in db.outcomes}
    values = {law_key(v): v for v, _ in list(da.outcomes) + list(db.outcomes)}
    if da.mean is not None and db.mean is not None:
        from ..odds.result import OrMore

        def num(k):
            v = values[k]
            return (1 if v.up else -1, v.n) if isinstance(v, OrMore) else (0, v)
        keys.sort(key=num)
    from fractions import Fraction
    zero = Fraction(0)
    rows = []
    for k in keys:
        a, b = pa.get(k, zero), pb.get(k, zero)
        v = values[k]
        rows.append({"value": v.as_json() if hasattr(v, "as_json") else to_json(v),
                     "said": _outcome_words(book, v),
                     "before": frac(a), "after": frac(b), "change": frac(b - a),
                     "before_float": float(a), "after_float": float(b)})
    mean = {"before": frac(da.mean), "after": frac(db.mean),
            "change": frac(db.mean - da.mean) if da.mean is not None and db.mean is not None else None,
            "before_float": None if da.mean is None else float(da.mean),
            "after_float": None if db.mean is None else float(db.mean)}
    return {"inputs": {k: to_json(v) for k, v in inputs.items()}, "inputs_said": inputs_said(book, name, inputs),
            "result_said": book.display.result(name), "outcomes": rows, "mean": mean,
            "exact": da.exact and db.exact, "before": da.as_json(), "after": db.as_json()}


def _outcome_words(book, v) -> str:
    from ..odds.result import OrMore
    if isinstance(v, OrMore):
        return f"{v.n} or more" if v.up else f"{v.n} or less"
    return book.display.value(v)
