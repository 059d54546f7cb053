"""`rules diff`'s text: what changed, in players' words (display forms, sentences),
wrapped to the terminal.  It reads the data `diff.diff_books` made (the same the
JSON and the website show) and the two books, for their words.

Prose changes are a word diff: `[-words that go-]` and `{+words that come+}`, with
a few words of context; odds are a table per input set: each result's chance before
and after (exact fractions and percentages) and the change in percentage points,
then the mean before and after and its change.
"""
from __future__ import annotations

import json
import textwrap
from fractions import Fraction

CONTEXT = 6          # words kept either side of a change in a word diff


def words_diff(ops, context: int = CONTEXT) -> str:
    """A word diff as one line: unchanged runs cut to `context` words either side."""
    out = []
    for i, (op, text) in enumerate(ops):
        if op == "-":
            out.append(f"[-{text}-]")
        elif op == "+":
            out.append(f"{{+{text}+}}")
        else:
            words = text.split()
            first, last = i == 0, i == len(ops) - 1
            if len(words) > 2 * context + (0 if first or last else 1):
                head = [] if first else words[:context]
                tail = [] if last else words[-context:]
                words = head + ["…"] + tail
            out.append(" ".join(words))
    return " ".join(x for x in out if x)


LONG_FRACTION = 13   # characters: a longer exact fraction is shown as its percentage only (JSON keeps it)
TAIL = Fraction(1, 10 ** 4)   # rows of a numeric law below this on both sides are summed into "N or more"


def _frac_pct(f: str, fl: float) -> str:
    pct = f"{fl * 100:.2f}%" if fl == 0 or fl * 100 >= 0.01 else f"{fl * 100:.2g}%"
    return f"{f} = {pct}" if f not in ("0", "1") and len(f) <= LONG_FRACTION else pct


def _fold_tail(rows: list, numeric: bool) -> list:
    """A numeric law's last rows whose chances are all tiny, summed (exactly) into one
    "N or more" row, so a long tail (exploding dice) does not fill the screen."""
    if not numeric or len(rows) < 8:
        return rows
    cut = len(rows)
    while cut > 1 and Fraction(rows[cut - 1]["before"]) < TAIL and Fraction(rows[cut - 1]["after"]) < TAIL:
        cut -= 1
    if len(rows) - cut < 2:
        return rows
    tail = rows[cut:]
    a = sum((Fraction(r["before"]) for r in tail), Fraction(0))
    b = sum((Fraction(r["after"]) for r in tail), Fraction(0))

    def frac(x):
        return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"
    return rows[:cut] + [{"said": f"{tail[0]['said']} or more", "before": frac(a), "after": frac(b),
                          "change": frac(b - a), "before_float": float(a), "after_float": float(b)}]


def _points(change: str) -> str:
    c = Fraction(change)
    if c == 0:
        return "0"
    return f"{float(c) * 100:+.2f}"


def odds_lines(o: dict) -> list:
    """One odds entry as an aligned table, then the means."""
    head = [o.get("result_said", "result").capitalize() or "Result", "before", "after", "change (points)"]
    numeric = o["mean"]["before"] is not None and o["mean"]["after"] is not None
    rows = [[r["said"], _frac_pct(r["before"], r["before_float"]), _frac_pct(r["after"], r["after_float"]),
             _points(r["change"])] for r in _fold_tail(o["outcomes"], numeric)]
    w = [max(len(head[i]), *(len(r[i]) for r in rows)) for i in range(4)]

    def line(cells):
        return "  ".join(f"{c:<{w[i]}}" if i == 0 else f"{c:>{w[i]}}" for i, c in enumerate(cells))
    out = [line(head), line(["-" * x for x in w])] + [line(r) for r in rows]
    m = o["mean"]
    if m["before"] is not None and m["after"] is not None:
        out.append(f"mean: {_mean(m['before'])} before, {_mean(m['after'])} after "
                   f"({_signed(m['change'])})")
    else:
        out.append("mean: - (the result is not a number)")
    return out


def _mean(f: str) -> str:
    x = Fraction(f)
    if x.denominator == 1:
        return str(x.numerator)
    if len(f) > LONG_FRACTION:
        return f"about {float(x):.4g}"
    return f"{f} (about {float(x):.4g})"


def _signed(f: str) -> str:
    """A change of the mean: +1/2 (about +0.5); a long fraction as its value only."""
    x = Fraction(f)
    if x == 0:
        return "no change"
    if x.denominator == 1:
        return f"{x.numerator:+d}"
    if len(f) > LONG_FRACTION:
        return f"about {float(x):+.4g}"
    return f"{'+' if x > 0 else ''}{f} (about {float(x):+.4g})"


def _result_said(r: dict) -> str:
    """A result in a line: a value, a refusal, or a law (its average, or its likeliest results)."""
    if "distribution" not in r:
        return r["said"]
    law = r["distribution"]
    values = [x["value"] for x in law]
    if values and all(isinstance(v, (int, str)) and not isinstance(v, bool) and (isinstance(v, int) or
                                                                                  _is_number(v)) for v in values):
        mean = sum((Fraction(x["probability"]) * Fraction(x["value"]) for x in law), Fraction(0))
        return f"{float(mean):.3g} on average"
    top = sorted(law, key=lambda x: -Fraction(x["probability"]))[:4]
    parts = r["said"].split(", ")
    said = {json.dumps(x["value"]): p for x, p in zip(law, parts)}
    return ", ".join(said[json.dumps(x["value"])] for x in top) + (", …" if len(law) > 4 else "")


def _is_number(v) -> bool:
    try:
        Fraction(v)
        return True
    except (ValueError, TypeError):
        return False


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _because(changed_by) -> list:
    out = []
    for c in changed_by:
        why = f": {c['because']}" if c["because"] else ""
        out.append(f"change {c['number']} of {c['layer']} ({c['location']}){why}")
    return out


class _Writer:
    def __init__(self, width: int):
        self.width = max(40, width)
        self.lines = []

    def say(self, text: str, indent: int = 0, hang: int = 2):
        pad = " " * indent
        if not text:
            self.lines.append("")
            return
        self.lines.extend(textwrap.wrap(text, self.width, initial_indent=pad, subsequent_indent=pad + " " * hang,
                                        break_long_words=False, break_on_hyphens=False) or [pad])

    def raw(self, text: str, indent: int = 0):
        self.lines.append(" " * indent + text)


def lines(d: dict, a, b, width: int = 80) -> list:
    """The diff `d` (from `diff.diff_books(a, b)`) as lines of text."""
    w = _Writer(width)
    w.say(f"What changed from {d['a']['title']} ({d['a']['id']}) to {d['b']['title']} ({d['b']['id']})")
    for layer in d["layers"]:
        n = len(layer["changes"])
        w.say(f"Layer {layer['name']} on {layer['base']}: {n} change{'s' if n != 1 else ''}."
              + (f" {layer['prose'][0].split(chr(10) + chr(10))[0]}" if layer["prose"] else ""), 2)
    if not any(d["summary"].values()) and not any(m.get("question") or m.get("answer") or m.get("signature")
                                                  for m in d["mechanics"]) \
            and not d["constants"] and not d["enums"] and not d["names"]:
        w.say("")
        w.say("Nothing changed: the two books have the same rules, mechanics, tables and findings.")
        return w.lines
    _rules_text(w, d, a, b)
    _tables_text(w, d, a, b)
    _mechanics_text(w, d, a, b)
    _others_text(w, d, a, b)
    _findings_text(w, d)
    return w.lines


def _rules_text(w, d, a, b):
    r = d["rules"]
    for key, label in (("added", "Rules added"), ("removed", "Rules removed")):
        if r[key]:
            w.say("")
            w.say(f"{label} ({len(r[key])})")
            for x in r[key]:
                w.say(f"{x['title']} ({x['id']}), in {x['section'] or 'the book'}", 2)
                for why in _because(x.get("changed_by", [])):
                    w.say(f"by {why}", 4)
    if not r["changed"]:
        return
    w.say("")
    w.say(f"Rules changed ({len(r['changed'])})")
    for x in r["changed"]:
        w.say(f"{x['title']} ({x['id']})", 2)
        if "title" in x["parts"]:
            w.say(f"title: {x['title_before']} → {x['title']}", 4)
        if "text" in x["parts"]:
            w.say("text: " + words_diff(x["text"]["words"]), 4, 4)
        if "flavour" in x["parts"]:
            w.say("flavour text changed", 4)
        if "notes" in x["parts"]:
            for note in x["notes"]["added"]:
                w.say(f"note added ({note['kind']}): {note['text']}", 4, 4)
            for note in x["notes"]["removed"]:
                w.say(f"note removed ({note['kind']}): {note['text']}", 4, 4)
        if "examples" in x["parts"]:
            for what in ("added", "changed", "removed"):
                for title in x["examples"][what]:
                    w.say(f"worked example {what}: {title}", 4)
        for field in ("aliases", "keywords"):
            if field in x["parts"]:
                ch = x[field]
                said = "; ".join(p for p in (("added " + ", ".join(ch["added"])) if ch["added"] else "",
                                             ("removed " + ", ".join(ch["removed"])) if ch["removed"] else "") if p)
                w.say(f"{field}: {said}", 4)
        if "declarations" in x["parts"]:
            decl = x["declarations"]
            for what in ("added", "changed", "removed"):
                if decl[what]:
                    w.say(f"{what}: " + ", ".join(decl["said"][name] for name in decl[what]), 4)
        _by(w, x.get("changed_by", []), own=RULE_PARTS)


RULE_PARTS = ("rule", "section", "title", "text", "note", "example", "aliases", "keywords")


def _by(w, changed_by, own=None, indent=4):
    """The changes behind an entry: with their reasons when they are this entry's own
    (`own`: the kinds of change it is the place for), else by number only (their reasons
    are said where they belong, a table's row, a mechanic)."""
    mine = [c for c in changed_by if own is None or c.get("what") in own]
    for why in _because(mine):
        w.say(f"by {why}", indent, 4)
    rest = [c for c in changed_by if c not in mine]
    if rest:
        layers = list(dict.fromkeys(c["layer"] for c in rest))
        for layer in layers:
            nums = [str(c["number"]) for c in rest if c["layer"] == layer]
            w.say(f"by change{'s' if len(nums) > 1 else ''} {', '.join(nums)} of {layer}", indent, 4)


def shared_changes(t: dict) -> list:
    """The changes behind every row of a changed table (a `replace table`): said once, for
    the table, not under each row."""
    rows = [r for verb in ("changed", "added", "removed") for r in t["rows"].get(verb, [])]
    if len(rows) < 2:
        return []
    return [c for c in rows[0].get("changed_by", []) if all(c in r.get("changed_by", []) for r in rows[1:])]


def _tables_text(w, d, a, b):
    if not d["tables"]:
        return
    w.say("")
    w.say(f"Tables changed ({len(d['tables'])})")
    for t in d["tables"]:
        book = b if t["status"] != "removed" else a
        title = f"{_cap(t['display'])} ({t['name']}, in {book.rule(t['rule']).title if t['rule'] else 'the book'})"
        if t["status"] != "changed":
            w.say(f"{title}: {t['status']}", 2)
            continue
        rows = t["rows"]
        n = len(rows["changed"]) + len(rows["added"]) + len(rows["removed"])
        w.say(f"{title}: {n} row{'s' if n != 1 else ''}", 2)
        if t.get("columns"):
            w.say(columns_sentence(t["columns"]), 4, 4)
        elif t.get("definition_changed"):
            w.say("its keys or columns changed", 4)
        shared = shared_changes(t)
        for why in _because(shared):
            w.say(f"by {why}", 4, 4)

        def by(row, shared=shared):
            for why in _because([c for c in row.get("changed_by", []) if c not in shared]):
                w.say(f"by {why}", 6, 4)
        for row in rows["changed"]:
            w.say(f"{row['said']['keys']}: {cells_changed(row)}", 4, 4)
            by(row)
        for row in rows["added"]:
            said = row["said"]
            cells = "; ".join(f"{said['columns'][c]} {v}" for c, v in said["after"].items())
            w.say(f"added {said['keys']}: {cells}", 4, 4)
            by(row)
        for row in rows["removed"]:
            w.say(f"removed {row['said']['keys']}", 4, 4)
            by(row)


def columns_sentence(columns: dict) -> str:
    """A table's columns gained and lost, as a sentence: "Column added: speed."."""
    out = []
    for key, one, many in (("added", "Column added", "Columns added"), ("removed", "Column removed", "Columns removed")):
        names = [columns["said"].get(c, c) for c in columns[key]]
        if names:
            out.append(f"{one if len(names) == 1 else many}: {', '.join(names)}.")
    return " ".join(out)


def cells_changed(row: dict) -> str:
    """A changed row's cells, before → after; a cell of a new column as its value, one of
    a removed column as what it was."""
    said = row["said"]
    out = []
    for c in row["columns"]:
        name, before, after = said["columns"].get(c, c), said["before"].get(c), said["after"].get(c)
        if before is None:
            out.append(f"{name} {after} (new column)")
        elif after is None:
            out.append(f"{name} was {before} (column removed)")
        else:
            out.append(f"{name} {before} → {after}")
    return "; ".join(out)


def outcome(m: dict) -> str:
    """What comparing a changed mechanic found: "changed", "same" or "not_compared"
    (from `compared.outcome`; derived for a diff written before it was kept)."""
    c = m.get("compared") or {}
    if c.get("outcome"):
        return c["outcome"]
    if c.get("differ"):
        return "changed"
    if c.get("method") == "unchanged":
        return "same"
    return "same" if c.get("inputs") and c.get("method") != "none" else "not_compared"


def compared_sentence(c: dict, lead: bool = True) -> str:
    """How a mechanic was compared and what it gave, as one sentence (`lead`: saying
    "Not compared" first, where no heading says it)."""
    n, how = c["inputs"], c["note"]
    if c["method"] == "unchanged":
        return f"Its results are the same: {how}."
    if c["method"] == "none" or not n:
        return f"Not compared: {how}." if lead else f"{_cap(how)}."
    inputs = f"input{'s' if n != 1 else ''}"
    tried = f"(exhaustive: {how})" if c["method"] == "exhaustive" else f"(sampled: {how})"
    if c["differ"]:
        return f"Results differ for {c['differ']} of {n} {inputs} compared {tried}."
    if c["method"] == "exhaustive":
        return f"The same results for all {n} of its {inputs} {tried}."
    return f"The same results for the {n} {inputs} compared {tried}; other inputs were not compared."


def _mechanics_text(w, d, a, b):
    mechs = d["mechanics"]
    if not mechs:
        return
    shown = [m for m in mechs if m["status"] != "changed" or outcome(m) == "changed"
             or m.get("signature") or m.get("question") or m.get("answer")]
    same = [m for m in mechs if m not in shown and outcome(m) == "same"]
    unknown = [m for m in mechs if m not in shown and m not in same]
    counts = [f"{len(shown)} changed"] + ([f"{len(same)} the same"] if same else []) \
        + ([f"{len(unknown)} not compared"] if unknown else [])
    w.say("")
    w.say(f"Mechanics ({', '.join(counts)})")
    for m in shown:
        book = b if m["status"] != "removed" else a
        where = f", in {book.rule(m['rule']).title}" if m["rule"] else ""
        if m["status"] != "changed":
            w.say(f"{_cap(m['display'])} ({m['name']}{where}): {m['status']}", 2)
            continue
        w.say(f"{_cap(m['display'])} ({m['name']}{where})", 2)
        for part in ("signature", "question", "answer"):
            if m.get(part):
                w.say(f"{part}: {m[part]['before'] or '(none)'} → {m[part]['after'] or '(none)'}", 4, 4)
        c = m.get("compared")
        if c:
            w.say(compared_sentence(c), 4, 4)
            for ex in m.get("differences", []):
                source = f" ({ex['source_said']})" if ex.get("source", "every") != "every" else ""
                w.say(f"With {ex['inputs_said'] or 'its defaults'}{source}: {_result_said(ex['before'])} before, "
                      f"{_result_said(ex['after'])} after.", 6, 4)
        for o in m.get("odds", []):
            w.say("")
            source = f" ({o['source_said']})" if o.get("source", "every") != "every" and o.get("source_said") else ""
            w.say(f"Odds with {o['inputs_said'] or 'its defaults'}{source}"
                  + ("" if o["exact"] else " (a chain's tail is cut below 1e-12)") + ":", 4)
            for line in odds_lines(o):
                w.raw(line, 6)
        for why in _because(m.get("changed_by", [])):
            w.say(f"by {why}", 4, 4)
    for group, one, many in ((same, "reaches a change and gives the same results",
                               "reach a change and give the same results"),
                              (unknown, "reaches a change and was not compared", "reach a change and were not compared")):
        if group:
            w.say(f"{len(group)} other mechanic{'' if len(group) == 1 else 's'} "
                  f"{one if len(group) == 1 else many}:", 2)
            for m in group:
                w.say(f"{_cap(m['display'])} ({m['name']}): {compared_sentence(m['compared'], lead=False)}", 4, 4)


def _others_text(w, d, a, b):
    if d["constants"]:
        w.say("")
        w.say(f"Numbers ({len(d['constants'])})")
        for c in d["constants"]:
            if c["status"] == "changed":
                w.say(f"{_cap(c['display'])} ({c['name']}): {c['before']} → {c['after']}", 2)
            else:
                w.say(f"{_cap(c['display'])} ({c['name']}): {c['status']}", 2)
            for why in _because(c.get("changed_by", [])):
                w.say(f"by {why}", 4, 4)
    if d["enums"]:
        w.say("")
        w.say(f"Lists of names ({len(d['enums'])})")
        for e in d["enums"]:
            book = b if e["status"] != "removed" else a
            if e["status"] == "changed":
                said = "; ".join(p for p in (
                    ("added " + ", ".join(book.display.member(e["name"], m) for m in e["added"])) if e["added"] else "",
                    ("removed " + ", ".join(a.display.member(e["name"], m) for m in e["removed"])) if e["removed"]
                    else "") if p)
                w.say(f"{book.display.enum(e['name'])} ({e['name']}): {said}", 2)
            else:
                w.say(f"{book.display.enum(e['name'])} ({e['name']}): {e['status']}", 2)
    if d["names"]:
        w.say("")
        w.say(f"Names in words ({len(d['names'])})")
        for x in d["names"]:
            w.say(f"{x['name']} ({x['kind']}): \"{x['before']}\" → \"{x['after']}\"", 2)


def _findings_text(w, d):
    f = d["findings"]
    for key, label in (("gone", "Findings that go"), ("appeared", "Findings that appear"),
                       ("changed", "Findings with other cases")):
        if not f[key]:
            continue
        w.say("")
        w.say(f"{label} ({len(f[key])})")
        for x in f[key]:
            said = "; ".join(x["sentences"][:3]) + (" …" if len(x["sentences"]) > 3 else "")
            if x["kind"] == "check-summary":
                n = x["cases"]
                what = {"gone": f"holds now (it failed in {n} case{'s' if n != 1 else ''})",
                        "appeared": f"fails in {n} case{'s' if n != 1 else ''}",
                        "changed": f"fails in {n} case{'s' if n != 1 else ''} ({x.get('cases_before')} before)"}[key]
                w.say(f"{x['rule_title']}: the check \"{x['check_title']}\" {what}", 2, 4)
            else:
                w.say(f"{x['rule_title']}: {said or x['message']}", 2, 4)
