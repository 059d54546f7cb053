"""`rules export`: every book as JSON open data, valid against the published JSON Schema.

* the export of every book in rulebooks/ validates (and index.json too), its counts
  are those of `rules books --json`, and two exports (different hash seeds) are
  byte-identical; exporting again rewrites nothing;
* absent table cells are marked exactly where the source says `absent`;
* the CLI: every book, one book, stdout, an unknown book (one line, exit 2);
* hostile prose (`<script>`, `{{`, `</`, quotes, non-ASCII) comes through as plain data;
* the schema catches a broken export, and the example on docs/open-data.md is what
  the export gives for its book source.
"""
from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import jsonschema
import pytest

from rules_dsl.faces import export
from rules_dsl.language import nodes as n
from rules_dsl.library.loader import Library, book_ids

REPO = Path(__file__).resolve().parent.parent
SCHEMA = json.loads(export.schema_path().read_text(encoding="utf-8"))


def validator(part: str = ""):
    """A validator of a whole book export, or of one part of it (`$defs/<part>`)."""
    schema = {**SCHEMA["$defs"][part], "$defs": SCHEMA["$defs"]} if part else SCHEMA
    return jsonschema.Draft202012Validator(schema)


def errors(data, part: str = "") -> list:
    return [f"{list(e.absolute_path)}: {e.message[:200]}" for e in validator(part).iter_errors(data)]


def run(*args, books=None, env_extra=None, cwd=None):
    env = dict(os.environ)
    if books is not None:
        env["RULES_DSL_BOOKS"] = str(books)
    env.update(env_extra or {})
    p = subprocess.run([sys.executable, "-m", "rules_dsl", *args], capture_output=True, text=True, env=env,
                       timeout=300, cwd=cwd)
    assert "Traceback" not in p.stderr, p.stderr
    return p


def read(folder: Path, name: str):
    return json.loads((folder / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """`rules export --out DIR` of every book in rulebooks/ (the command as a user runs it)."""
    if not book_ids():
        pytest.skip("no books in rulebooks/")
    out = tmp_path_factory.mktemp("export") / "data"
    p = run("export", "--out", str(out), env_extra={"PYTHONHASHSEED": "1"})
    assert p.returncode == 0, p.stderr
    assert str(out) in p.stdout and p.stderr == ""
    return out


# ------------------------------------------------------------------ the real books
def test_schema_is_a_valid_draft_2020_12_schema_and_knows_every_note_kind():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    kinds = SCHEMA["$defs"]["rule"]["properties"]["notes"]["propertyNames"]["enum"]
    assert sorted(kinds) == sorted(n.NOTE_KINDS)


def test_every_book_exports_and_validates(exported):
    ids = book_ids()
    assert sorted(p.name for p in exported.iterdir()) == sorted([f"{b}.json" for b in ids] + ["index.json",
                                                                                              "book.schema.json"])
    for bid in ids:
        data = read(exported, f"{bid}.json")
        assert errors(data) == [], bid
        assert data["id"] == bid and data["rules"] and data["schema_version"] == export.SCHEMA_VERSION
    index = read(exported, "index.json")
    assert errors(index, "index") == []
    assert [b["id"] for b in index["books"]] == ids
    assert read(exported, "book.schema.json") == SCHEMA


def test_counts_match_rules_books(exported):
    p = run("books", "--json")
    assert p.returncode == 0
    books = {b["id"]: b for b in json.loads(p.stdout)}
    index = {b["id"]: b for b in read(exported, "index.json")["books"]}
    assert set(index) == set(books)
    for bid, b in books.items():
        counts = index[bid]["counts"]
        for key in ("rules", "mechanics", "examples", "tables", "findings"):
            assert counts[key] == b[key], (bid, key)
        assert index[bid]["title"] == b["title"]
        data = read(exported, index[bid]["file"])
        assert data["counts"] == counts
        assert len(data["rules"]) == counts["rules"] and len(data["findings"]) == counts["findings"]
        assert sum(len(r["examples"]) for r in data["rules"]) == counts["examples"]
        assert index[bid]["bytes"] == len((exported / index[bid]["file"]).read_bytes())


def test_two_exports_are_byte_identical_and_a_third_rewrites_nothing(exported, tmp_path):
    again = tmp_path / "again"
    p = run("export", "--out", str(again), "--json", env_extra={"PYTHONHASHSEED": "2"})
    assert p.returncode == 0, p.stderr
    for f in exported.iterdir():
        assert (again / f.name).read_bytes() == f.read_bytes(), f.name
    report = json.loads(p.stdout)
    assert report["out"] == str(again) and all(f["written"] for f in report["files"])
    before = {f.name: f.stat().st_mtime_ns for f in again.iterdir()}
    third = json.loads(run("export", "--out", str(again), "--json").stdout)
    assert not any(f["written"] for f in third["files"])
    assert {f.name: f.stat().st_mtime_ns for f in again.iterdir()} == before


def test_rules_in_book_order_and_declarations_complete(exported):
    lib = Library()
    for bid in book_ids():
        book, data = lib.load(bid), read(exported, f"{bid}.json")
        assert [r["id"] for r in data["rules"]] == [r.id for r in book.rules]
        assert [r["section"] for r in data["rules"]] == [r.section for r in book.rules]
        assert [m["name"] for m in data["mechanics"]] == list(book.mechanics)
        assert {t["name"] for t in data["tables"]} == set(book.tables)
        for m in data["mechanics"]:
            assert m["rolls_dice"] == book.mechanics[m["name"]].has_dice
            assert m["signature"] == book.mechanics[m["name"]].signature_text()
    assert "/" + REPO.name + "/" not in (exported / "xenotactics.json").read_text(encoding="utf-8"), \
        "an absolute path of this machine leaked into the export"


def test_absent_cells_are_marked_where_the_source_says_absent(exported):
    from rules_dsl.language.model import decls_of
    from rules_dsl.language.values import ABSENT
    lib, marked = Library(), 0
    for bid in book_ids():
        book = lib.load(bid)
        tables = {t["name"]: t for t in read(exported, f"{bid}.json")["tables"]}
        for p in decls_of(book.ast):
            if not isinstance(p.node, n.Table):
                continue
            t = tables[p.node.name]
            assert len(t["rows"]) == len(p.node.rows)
            for src_row, row in zip(p.node.rows, t["rows"]):
                assert len(row) == len(src_row)
                for cell, c in zip(src_row, row):
                    if cell.value is ABSENT:
                        assert c == {"kind": "absent", "value": None, "absent": True, "text": "absent in source"}
                        marked += 1
                    else:
                        assert "absent" not in c and c["kind"] != "absent"
    assert marked > 10, "the books have absent cells (e.g. xenotactics' ranged weapons)"


def test_a_broken_export_fails_validation(exported):
    """Each change a consumer would trip on is caught (validated part by part: a whole
    book takes seconds)."""
    data = read(exported, "xenotactics.json")
    table = next(t for t in data["tables"] if any(c.get("absent") for row in t["rows"] for c in row))
    r, c = next((ri, ci) for ri, row in enumerate(table["rows"]) for ci, cell in enumerate(row) if cell.get("absent"))
    rule, mechanic = data["rules"][0], next(m for m in data["mechanics"] if m["params"] and m["rolls_dice"])
    assert errors(table, "table") == [] and errors(rule, "rule") == [] and errors(mechanic, "mechanic") == []

    def broken(part, obj, change):
        obj = copy.deepcopy(obj)
        change(obj)
        return errors(obj, part)
    assert broken("table", table, lambda t: t["rows"][r][c].pop("absent"))             # an absent cell unmarked
    assert broken("table", table, lambda t: t["rows"][r][c].update(value=0))           # ... or given a value
    assert broken("table", table, lambda t: t["rows"][r][0].update(absent=True))       # a present cell marked absent
    assert broken("table", table, lambda t: t["rows"][r][0].update(kind="html"))
    assert broken("rule", rule, lambda x: x.pop("title"))
    assert broken("rule", rule, lambda x: x.update(html="<p>"))                        # no unknown fields
    assert broken("rule", rule, lambda x: x["notes"].update(opinion=[]))               # no unknown note kind
    assert broken("rule", rule, lambda x: x["prose"]["blocks"][0]["children"][0].update(type="html"))
    assert broken("mechanic", mechanic, lambda m: m.update(rolls_dice="yes"))
    assert broken("mechanic", mechanic, lambda m: m["params"][0]["type"].update(kind="float"))
    small = read(exported, "skirmish-tutorial.json")
    assert errors(small) == []
    assert broken("", small, lambda d: d.update(schema_version=2))
    assert broken("", small, lambda d: d.pop("findings"))


# ------------------------------------------------------------------ the command
def test_cli_one_book_stdout_and_unknown_book(demo_books, tmp_path):
    out = tmp_path / "one"
    p = run("export", "demo", "--out", str(out), books=demo_books)
    assert p.returncode == 0, p.stderr
    assert str(out) in p.stdout and "demo.json" in p.stdout
    assert sorted(f.name for f in out.iterdir()) == ["book.schema.json", "demo.json", "index.json"]
    index = read(out, "index.json")
    assert [b["id"] for b in index["books"]] == ["demo"] and errors(index, "index") == []

    s = run("export", "demo", "--out", "-", books=demo_books)
    assert s.returncode == 0 and s.stdout.encode() == (out / "demo.json").read_bytes()
    data = json.loads(s.stdout)
    assert errors(data) == []
    chart = next(t for t in data["tables"] if t["name"] == "chart")
    assert chart["layout"] == "grid" and [c["value"] for c in chart["header"][1:]] == [1, 2]
    needed = next(m for m in data["mechanics"] if m["name"] == "needed")
    assert [p["type"] for p in needed["params"]][0] == {"kind": "range", "min": 1, "max": 10, "text": "1..10"}
    assert needed["params"][2]["default"] == {"kind": "number", "value": 0, "text": "0"}
    assert needed["returns"]["type"]["options"][1] == {"kind": "enum", "name": "chart_entry", "text": "chart_entry",
                                                       "members": ["auto", "never"]}
    assert not needed["rolls_dice"] and next(m for m in data["mechanics"] if m["name"] == "defence")["rolls_dice"]
    opposed = data["rules"][0]
    assert opposed["notes"] == {"erratum": [{"text": "x", "markup": "x", "refs": [],
                                             "blocks": [{"type": "paragraph", "children": [{"type": "text", "text": "x"}]}]}]}
    assert opposed["prose"]["text"] == "Prose Dice here." and opposed["prose"]["refs"] == [{"book": "demo", "rule": "dice-rolls"}]
    assert data["findings"] and data["findings"][0]["location"]["file"] == "demo.rules"

    bad = run("export", "demo-x", "--out", str(tmp_path / "none"), books=demo_books)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert "unknown book 'demo-x'" in bad.stderr and "'demo'" in bad.stderr
    assert not (tmp_path / "none").exists()
    nobook = run("export", "--out", "-", books=demo_books)
    assert nobook.returncode == 2 and len(nobook.stderr.strip().splitlines()) == 1


def test_cli_default_folder_and_a_book_that_does_not_compile(demo_books, tmp_path):
    (demo_books / "broken.rules").write_text('book broken {\n  title "B"\n}\nrule r "R" {\n  """[[nowhere]]"""\n}\n',
                                             encoding="utf-8")
    p = run("export", books=demo_books, cwd=tmp_path)
    assert p.returncode == 1
    assert sorted(f.name for f in (tmp_path / export.DEFAULT_OUT).iterdir()) == ["book.schema.json", "demo.json",
                                                                                 "index.json"]
    assert len(p.stderr.strip().splitlines()) == 1 and "broken" in p.stderr
    assert str(tmp_path / export.DEFAULT_OUT) in p.stdout


# ------------------------------------------------------------------ hostile prose
HOSTILE = textwrap.dedent('''\
    book hostile {
        title "Hostile </title><script>alert(0)</script>"
        dice d6
    }
    section s "Section {{ s }}" {
        rule evil "Evil <script>alert(1)</script>" {
            aliases "</script>", "{{alias}}"
            keywords "<b>", "café ✓"
            """
            Text with <script>alert(1)</script>, {{ jinja }}, {% block %}, </p></div> and
            "quotes" 'single' \\\\ back\\slash, café ✓ — and a [[other|<i>label</i>]].

            - item </li><li>
            """
            note clarification """A note </script> {{x}}."""
            table labels(key: 1..2) -> text | absent "Labels <script>" {
                | key | label |
                |---|---|
                | 1 | "<script>alert(4)</script> {{ cell }} </td>" |
                | 2 | absent |
            }
        }
        rule other "Other" {
            """Plain."""
        }
    }
''')


def test_hostile_prose_round_trips_as_plain_data(tmp_path):
    books = tmp_path / "books"
    books.mkdir()
    (books / "hostile.rules").write_text(HOSTILE, encoding="utf-8")
    lib = Library(books, cache=tmp_path / "cache")
    book = lib.load("hostile")
    result = export.export(tmp_path / "out", library=lib)
    assert result.books == ["hostile"] and not result.errors
    raw = (tmp_path / "out" / "hostile.json").read_text(encoding="utf-8")
    assert "café ✓" in raw and "\\u" not in raw          # UTF-8, not ASCII-escaped
    data = json.loads(raw)
    assert errors(data) == []
    assert data["title"] == "Hostile </title><script>alert(0)</script>"
    assert data["sections"][0]["title"] == "Section {{ s }}"
    evil = data["rules"][0]
    node = book.rule("evil")
    assert evil["title"] == "Evil <script>alert(1)</script>"
    assert evil["aliases"] == ["</script>", "{{alias}}"] and evil["keywords"] == ["<b>", "café ✓"]
    assert evil["prose"]["markup"] == node.text
    text = evil["prose"]["text"]
    for s in ("<script>alert(1)</script>", "{{ jinja }}", "{% block %}", "</p></div>", '"quotes"', "'single'",
              "café ✓", "<i>label</i>", "- item </li><li>"):
        assert s in text, s
    ref = [c for c in evil["prose"]["blocks"][0]["children"] if c["type"] == "ref"]
    assert ref == [{"type": "ref", "book": "hostile", "rule": "other", "label": "<i>label</i>", "text": "<i>label</i>"}]
    assert evil["notes"]["clarification"][0]["text"] == "A note </script> {{x}}."
    cells = data["tables"][0]["rows"]
    assert cells[0][1] == {"kind": "text", "value": "<script>alert(4)</script> {{ cell }} </td>",
                           "text": "<script>alert(4)</script> {{ cell }} </td>"}
    assert cells[1][1]["absent"] is True and cells[1][1]["value"] is None


# ------------------------------------------------------------------ the docs
def test_the_example_on_the_open_data_page_is_what_the_export_gives(tmp_path):
    page = (REPO / "docs" / "open-data.md").read_text(encoding="utf-8")
    source = re.search(r"```text\n(.*?)\n```", page, re.S).group(1)
    shown = [json.loads(block) for block in re.findall(r"```json\n(.*?)\n```", page, re.S)]
    books = tmp_path / "books"
    books.mkdir()
    bid = re.match(r"book ([a-z0-9-]+)", source).group(1)
    (books / f"{bid}.rules").write_text(source + "\n", encoding="utf-8")
    lib = Library(books, cache=tmp_path / "cache")
    data = export.book_data(lib.load(bid), lib)
    assert errors(data) == []
    rule, mechanic, table = shown
    assert rule == data["rules"][0] and errors(rule, "rule") == []
    assert mechanic == data["mechanics"][0] and errors(mechanic, "mechanic") == []
    assert table == data["tables"][0] and errors(table, "table") == []
    assert any(c.get("absent") for row in table["rows"] for c in row)


def test_export_needs_no_sphinx(demo_books):
    """`rules export` builds on the plain records (records.py) the site uses too, without
    importing Sphinx: a wheel installed without the docs extra exports too."""
    code = ("import sys, rules_dsl\nfrom rules_dsl.faces import export\n"
            "export.book_data(rules_dsl.load('demo'))\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('sphinx', 'docutils')))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, RULES_DSL_BOOKS=str(demo_books)))
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[]"
