"""Hover text: what the thing under the cursor is, in a few lines of Markdown.

A rule reference shows the rule's title, where it sits and the start of its prose;
a name shows its declaration (a mechanic's signature, doc and parameter ranges; a
table's keys; an enum's members; a constant's value), found through the book's
`SymbolIndex`.  `short_detail` and `signature`, the one-line forms of a
declaration, are shared with completion and the outline.
"""
from __future__ import annotations

from typing import Optional

from ..language import nodes as n
from .ws_places import at, target_of_ref


def hover(ws, path: str, line: int, col: int) -> Optional[str]:
    """Markdown about the thing at (line, col), or None."""
    st, what = at(ws, path, line, col)
    if what is None:
        return None
    if what[0] in ("ref", "rule-id"):
        book, rule = (what[1], what[2]) if what[0] == "ref" else (None, what[1])
        tst, d = target_of_ref(ws, st, book, rule)
        if d is None:
            return f"unknown rule `{(book + ':') if book else ''}{rule}`"
        return rule_hover(tst.book_id, d)
    return name_hover(st.index, what[1], path, line)


def name_hover(index, res, path: str, line: int) -> Optional[str]:
    """Markdown about the name `res` (a `resolve.Resolved`) as written at `line` of `path`."""
    if res.kind == "member":
        parts = []
        for o in index.member_owners(res.name) or [res.owner]:
            e = index.globals.get(("enum", o))
            if e is not None:
                parts.append(f"`{res.name}`: a member of enum `{o}` {{ {', '.join(e.node.members)} }}")
            else:
                parts.append(f"`{res.name}`: a face of die `{o}`")
        return "\n\n".join(parts)
    if res.kind == "builtin":
        from ..language.builtins import BUILTINS
        return f"built-in `{res.name}`: {BUILTINS[res.name][3]}"
    if res.kind == "round-mode":
        return f"rounding mode `{res.name}`"
    if res.kind == "local":
        return _local_hover(index, res, path, line)
    d = index.definition(res)
    if d is None:
        return None
    node = d.node
    if res.kind == "mechanic":
        return _mechanic_hover(node)
    if res.kind == "table":
        return _decl_hover(short_detail("table", node), node.doc, node.params, f"\n\n{len(node.rows)} rows")
    if res.kind == "enum":
        return f"```rules\nenum {node.name} {{ {', '.join(node.members)} }}\n```"
    if res.kind == "const":
        from ..language.render import expr_text
        return f"```rules\nconst {node.name} = {expr_text(node.value)}\n```" + (f"\n\n{node.doc}" if node.doc else "")
    if res.kind == "die":
        faces = ", ".join(str(f) for f in dict.fromkeys(node.faces)) if node.custom else f"1..{len(node.faces)}"
        return f"die `{node.name}`: faces {faces}"
    return None


def _local_hover(index, res, path, line) -> str:
    d = index.local(path, line, res.name)
    if d is not None and isinstance(index.scope_at(path, line), n.Mechanic):
        from ..language.render import dice_text, type_text
        if d.role == "parameter":
            return f"parameter `{d.name}: {type_text(d.node.type)}` of `{d.owner}`"
        if d.role == "roll":
            return f"roll `{d.name}: {dice_text(d.node.dice)}` in `{d.owner}`"
        if d.role == "let":
            return f"local `{d.name}` of `{d.owner}`"
    return f"local `{res.name}`"


def rule_hover(book_id: str, d) -> str:
    """A rule's or section's hover: its title and id, the sections around it, the start of its prose."""
    from ..language.prose import parse_prose, plain_text

    node = d.node
    where = " › ".join(d.sections)
    out = f"**{node.title}** ({d.kind} `{book_id}:{node.id}`)" + (f"\n\n{where}" if where else "")
    if node.prose:
        text = plain_text(parse_prose(node.prose[0].text), first_only=True)
        if len(text) > 400:
            text = text[:399].rsplit(" ", 1)[0] + "…"
        out += f"\n\n{text}"
    return out


def short_detail(kind, node) -> str:
    """A declaration in one line: a mechanic's or table's signature, an enum's members, a constant's value."""
    from ..language.render import type_text
    if kind == "mechanic":
        return signature(node)
    if kind == "table":
        return f"table {node.name}(" + ", ".join(f"{k.name}: {type_text(k.type)}" for k in node.params) + \
            f") -> {type_text(node.returns)}"
    if kind == "enum":
        return "{ " + ", ".join(node.members) + " }"
    if kind == "const":
        from ..language.render import expr_text
        return f"= {expr_text(node.value)}"
    if kind == "die":
        return "die"
    if kind in ("check", "priced"):
        return node.doc or kind
    return ""


def signature(m: n.Mechanic) -> str:
    """`mechanic name(param: type = default, ...) -> type`."""
    from ..language.render import expr_text, type_text
    params = ", ".join(f"{p.name}: {type_text(p.type)}" + (f" = {expr_text(p.default)}" if p.default is not None else "")
                       for p in m.params)
    return f"mechanic {m.name}({params}) -> {type_text(m.returns)}"


def _decl_hover(head: str, doc: str, params, tail: str = "") -> str:
    """A mechanic's or table's hover: its signature, its doc, its parameters' ranges."""
    from ..language.render import type_text
    out = f"```rules\n{head}\n```"
    if doc:
        out += f"\n\n{doc}"
    if params:
        out += "\n\n" + "\n".join(f"- `{p.name}`: {type_text(p.type)}" for p in params)
    return out + tail


def _mechanic_hover(m: n.Mechanic) -> str:
    from ..language.render import dice_text
    rolls = [s for s in m.body if isinstance(s, n.Roll)]
    tail = "\n\nrolls: " + ", ".join(f"`{s.name}: {dice_text(s.dice)}`" for s in rolls) if rolls else ""
    return _decl_hover(signature(m), m.doc, m.params, tail)
