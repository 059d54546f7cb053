"""The symbol index (rules_dsl/analysis/symbol_index.py): every name's definition and references.

* over every book of the library: each name the resolver resolved has the
  definition the editor's old walks found (the declaration of that kind and name;
  an enum member's enum or die; a local's parameter, `let`, roll, binding or
  comprehension in the declaration around it, looked for in that order), each
  definition's and each reference's span reads the name in the source, and the
  references of each global name are exactly the resolved uses of that name (a
  member's table cells too);
* the language server's definition and references, at every resolved name of a
  real book, answer from the index;
* a property: in a generated mechanic, each local's uses are exactly where the
  source writes it, and each leads to its one declaration.
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import rules_dsl
from rules_dsl.language import nodes as n
from rules_dsl.language.model import decls_of
from rules_dsl.analysis.resolve import Resolved
from rules_dsl.analysis.symbol_index import GLOBAL_KINDS, SCOPES, SymbolIndex

BOOKS = rules_dsl.book_ids()


@pytest.fixture(scope="module", params=BOOKS)
def book(request):
    return rules_dsl.load(request.param)


def _reads(texts, span: n.Span, name: str) -> bool:
    """Whether the source writes `name` at `span`'s start."""
    lines = texts.get(span.file, "").split("\n")
    line = lines[span.line - 1] if 0 < span.line <= len(lines) else ""
    return line[span.column - 1: span.column - 1 + len(name)] == name


def _old_enclosing(book_ast, path, line):
    """The old workspace's `_enclosing_decl`: the first mechanic, check, table or view holding the line."""
    for p in decls_of(book_ast):
        d = p.node
        if isinstance(d, SCOPES) and d.span.file == path and d.span.line <= line <= (d.span.end_line or d.span.line):
            return d
    return None


def _old_local(d, name):
    """The old workspace's `_local_decl`, returning the declaring node."""
    if isinstance(d, n.Mechanic):
        for pa in d.params:
            if pa.name == name:
                return pa
        for s in d.body:
            if isinstance(s, (n.Let, n.Roll)) and s.name == name:
                return s
    elif isinstance(d, (n.Check, n.Priced)):
        for b in d.bindings:
            if b.name == name:
                return b
    for x in n.iter_nodes(d):
        if isinstance(x, n.Comprehension) and x.var == name:
            return x
    return None


def test_the_library_has_the_real_books():
    assert {"null-strike", "xenotactics", "dust-tactics", "void", "warhammer-40k"} <= set(BOOKS)


def test_every_resolved_name_has_the_definition_the_old_walks_found(book):
    c = book.compiled
    index, syms, texts = c.symbol_index, c.syms, c.texts
    assert index is c.symbol_index             # built once per book
    tables = {"const": syms.consts, "mechanic": syms.mechanics, "table": syms.tables, "enum": syms.enums,
              "die": syms.dice}
    assert syms.resolved, book.id
    defined = 0
    for node, r in syms.resolved.items():
        assert _reads(texts, node.span, node.name), (book.id, node)
        d = index.definition(r, node.span.file, node.span.line)
        if r.kind in GLOBAL_KINDS:
            want = tables[r.kind][r.name]
        elif r.kind == "member":
            want = syms.enums.get(r.owner) or syms.dice.get(r.owner)
        elif r.kind == "local":
            scope = _old_enclosing(c.ast, node.span.file, node.span.line)
            want = _old_local(scope, r.name) if scope is not None else None
        else:
            want = None
        if want is None:
            assert d is None, (book.id, node, r)
            continue
        defined += 1
        assert d is not None and d.node is want, (book.id, node, r)
        assert d.name == r.name and _reads(texts, d.name_span, r.name), (book.id, d)
        assert (d.name_span.line, d.name_span.column) >= (want.span.line, want.span.column)
        assert node.span in index.references(r, node.span.file, node.span.line), (book.id, node)
    assert defined > 0.9 * len(syms.resolved), book.id    # only built-ins (and forms' names) have none


def test_the_references_of_every_global_name_are_its_resolved_uses(book):
    c = book.compiled
    index, syms, texts = c.symbol_index, c.syms, c.texts
    uses = {}
    for node, r in syms.resolved.items():
        if r.kind != "local":
            uses.setdefault((r.kind, r.name), []).append(node.span)
    for p in decls_of(c.ast):
        if isinstance(p.node, n.Table):
            for row in (p.node.header,) + p.node.rows:
                for cell in row:
                    if isinstance(cell.value, n.Name):
                        s = cell.span
                        uses.setdefault(("member", cell.value.name), []).append(
                            n.Span(s.file, s.line, s.column, s.line, s.column + len(cell.value.name)))
    keys = set(uses) | {k for k in index.globals if k[0] in GLOBAL_KINDS}
    for kind, name in keys:
        got = index.references(Resolved(kind, name))
        assert sorted(got, key=str) == sorted(uses.get((kind, name), []), key=str), (book.id, kind, name)
        assert all(_reads(texts, s, name) for s in got), (book.id, kind, name)
    for (kind, name), d in index.globals.items():
        assert d.kind == kind and d.name == name
        assert _reads(texts, d.name_span, name) or not texts.get(d.span.file), (book.id, d)
        assert d.rule == (syms.owner.get(name) or "")


def test_rules_and_sections_are_indexed_by_id_with_their_sections(book):
    index, texts = book.compiled.symbol_index, book.compiled.texts
    ids = [r.id for r in book.rules]
    assert set(ids) <= set(index.rules)
    for rid, d in index.rules.items():
        assert d.node.id == rid and d.kind in ("rule", "section")
        assert _reads(texts, d.name_span, rid), (book.id, rid)
        assert d.name_span.line == d.span.line


def test_the_editor_answers_definition_and_references_from_the_index(tmp_path):
    from rules_dsl.library.loader import Library
    from rules_dsl.faces.workspace import Workspace
    from rules_dsl.faces.ws_state import span_loc

    lib = Library(None, tmp_path / "cache")
    book_id = "void"
    path = str(lib.book_files(book_id)[0].resolve())
    ws = Workspace(lib.books_dir, tmp_path / "cache")
    st = ws.analyse(path, run_examples=False)
    index = st.index
    assert index is not None and index.book_id == book_id
    names = [(node, r) for node, r in st.resolved.items() if node.span.file == path]
    assert len(names) > 50
    for node, r in names[::3]:
        line, col = node.span.line, node.span.column
        d = index.definition(r, path, line)
        assert ws.definition(path, line, col) == ([span_loc(d.name_span)] if d is not None else []), node
        refs = ws.references(path, line, col, include_declaration=False)
        assert span_loc(node.span) in refs, node
        assert {x.path for x in refs} <= set(st.files)


# ------------------------------------------------------------ a generated mechanic
NAMES = [a + b for a in "pqrstuvw" for b in ("", "x", "y")]


@st.composite
def mechanics(draw):
    """A mechanic of random parameters and lets, each let reading earlier names: (source, {name: uses})."""
    names = draw(st.lists(st.sampled_from(NAMES), min_size=2, max_size=7, unique=True))
    nparams = draw(st.integers(1, len(names) - 1))
    params, lets = names[:nparams], names[nparams:]
    uses = {x: 0 for x in names}
    body = []
    for i, x in enumerate(lets):
        read = draw(st.lists(st.sampled_from(params + lets[:i]), min_size=1, max_size=3))
        for r in read:
            uses[r] += 1
        body.append(f"    let {x} = " + " + ".join(read))
    ret = draw(st.lists(st.sampled_from(names), min_size=1, max_size=4))
    for r in ret:
        uses[r] += 1
    sig = ", ".join(f"{p}: 1..6" for p in params)
    src = ('book gen {\n  title "G"\n  dice d6\n}\nrule r "R" {\n  """Prose."""\n'
           f"  mechanic m({sig}) -> int {{\n" + "\n".join(body) + ("\n" if body else "")
           + "    return " + " + ".join(ret) + "\n  }\n}\n")
    return src, uses, params


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mechanics())
def test_each_local_leads_to_its_declaration_and_to_every_use(tmp_path, generated):
    from rules_dsl.library.loader import Library
    src, uses, params = generated
    book = Library(tmp_path / "none", tmp_path / "cache").loads(src, "gen.rules")
    index = book.compiled.symbol_index
    lines = src.split("\n")
    for name, count in uses.items():
        decl_line = 7 if name in params else next(i + 1 for i, x in enumerate(lines) if x.startswith(f"    let {name} ="))
        d = index.local("gen.rules", decl_line, name)
        assert d is not None and d.role == ("parameter" if name in params else "let")
        assert d.name_span.line == decl_line and _reads({"gen.rules": src}, d.name_span, name)
        refs = index.references(Resolved("local", name), "gen.rules", decl_line)
        assert len(refs) == count
        for s in refs:
            assert _reads({"gen.rules": src}, s, name)
            # the cursor anywhere on a use finds that use, resolved to this local
            for col in range(s.column, s.column + len(name)):
                node, r = index.name_at("gen.rules", s.line, col)
                assert node.span == s and r == Resolved("local", name)
    assert index.name_at("gen.rules", 1, 1) is None


def test_an_index_of_nothing_answers_nothing():
    from rules_dsl.analysis.symbols import Symbols
    index = SymbolIndex(None, Symbols(), {})
    assert index.name_at("x.rules", 1, 1) is None
    assert index.definition(Resolved("mechanic", "m")) is None
    assert index.references(Resolved("local", "x"), "x.rules", 1) == []
    assert index.declared_at("x.rules", 1, "m") is None
    assert index.rules == {} and index.of_kind("mechanic") == []


def test_names_are_found_as_whole_words_only():
    from rules_dsl.analysis.symbol_index import name_span
    text = "mechanic hits_total(hits: 1..6) -> int = hits"
    s = name_span(text, "f", n.Span("f", 1, 1), "hits")
    assert (s.line, s.column, s.end_column) == (1, 21, 25)
    missing = name_span(text, "f", n.Span("f", 1, 3), "nowhere")
    assert (missing.line, missing.column, missing.end_column) == (1, 3, 3 + len("nowhere"))


@settings(max_examples=300, deadline=None)
@given(st.text("ab_-1 x\n", max_size=40), st.text("ab_1x-", min_size=1, max_size=3),
       st.integers(0, 4), st.integers(0, 8))
def test_a_name_is_found_where_the_old_pattern_found_it(text, name, line, col):
    """name_span searches with str.find (a pattern compiled per name cost the editor most of
    an index's build); it finds what the old whole-word regular expression found."""
    import re
    from rules_dsl.analysis.symbol_index import name_span
    span = n.Span("f", line, col)
    lines = text.split("\n")
    pat = re.compile(r"(?<![A-Za-z0-9_-])" + re.escape(name) + r"(?![A-Za-z0-9_-])")
    want = n.Span("f", line, col, line, col + len(name))
    for i in range(line - 1, min(len(lines), line + 20)):
        m = pat.search(lines[i], max(col, 1) - 1 if i == line - 1 else 0)
        if m:
            want = n.Span("f", i + 1, m.start() + 1, i + 1, m.end() + 1)
            break
    assert name_span(text, "f", span, name) == want


def test_the_locals_of_a_declaration_made_since_are_its_own(tmp_path):
    """A twin of a mechanic (a node made after the index, as explain's odds by branch
    make) gets its own locals, never a cached answer for another node."""
    import dataclasses

    from rules_dsl.library.loader import Library
    src = ('book t {\n  title "T"\n  dice d6\n}\nrule r "R" {\n  """Prose."""\n'
           "  mechanic m(a: 1..6) -> int {\n    let b = a + 1\n    return b\n  }\n}\n")
    book = Library(tmp_path / "none", tmp_path / "cache").loads(src, "t.rules")
    index = book.compiled.symbol_index
    node = book.compiled.mechanics["m"].node
    assert [(d.name, d.role) for d in index.locals_of(node)] == [("a", "parameter"), ("b", "let")]
    for _ in range(3):
        twin = dataclasses.replace(node, params=node.params[:0], body=())
        assert index.locals_of(twin) == []
    assert [d.name for d in index.locals_of(node)] == ["a", "b"]
