"""`rules lsp` driven through the protocol: a real JSON-RPC client over the stdio of
`python -m rules_dsl lsp`, one server for the module, on a books folder of its own
(the demo book, and `skirmish`, a book in a folder of two files that refers to it).

Every request waits for its answer and every diagnostics check for the server's
`publishDiagnostics` notification (the time limit only guards against a hang).
"""
from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

pytest.importorskip("pygls")

from conftest import DEMO, REPO  # noqa: E402

HERE = Path(__file__).resolve().parent
HANG = 120   # seconds: a server that has not answered by then is stuck


class Client:
    """Just enough of an LSP client: framed JSON-RPC over a subprocess's pipes."""

    def __init__(self, books: Path, cache: Path):
        env = dict(os.environ, RULES_DSL_BOOKS=str(books), RULES_DSL_CACHE=str(cache))
        self.proc = subprocess.Popen([sys.executable, "-m", "rules_dsl", "lsp"], cwd=REPO, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.next_id = 0
        self.responses: dict = {}
        self.inbox: queue.Queue = queue.Queue()
        self.diagnostics: dict = {}         # uri -> [(version, diagnostics)] as published
        self.version = 0                    # every open and change gets a new, higher version
        self.cond = threading.Condition()
        self.opened: set = set()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    with self.cond:
                        self.responses["closed"] = True
                        self.cond.notify_all()
                    return
                line = line.decode("ascii").strip()
                if not line:
                    break
                k, _, v = line.partition(":")
                headers[k.lower()] = v.strip()
            msg = json.loads(out.read(int(headers["content-length"])))
            with self.cond:
                if "id" in msg and ("result" in msg or "error" in msg):
                    self.responses[msg["id"]] = msg
                elif msg.get("method") == "textDocument/publishDiagnostics":
                    p = msg["params"]
                    self.diagnostics.setdefault(p["uri"], []).append((p.get("version"), p["diagnostics"]))
                self.cond.notify_all()

    def _send(self, msg):
        body = json.dumps(msg).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method, params):
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method, params):
        self.next_id += 1
        rid = self.next_id
        self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        with self.cond:
            ok = self.cond.wait_for(lambda: rid in self.responses or "closed" in self.responses, HANG)
        assert ok and rid in self.responses, f"no answer to {method}; server stderr: {self.stderr()}"
        msg = self.responses.pop(rid)
        assert "error" not in msg, msg["error"]
        return msg["result"]

    def wait_diagnostics(self, uri, count_before, version=None):
        """The first diagnostics published for `uri` after `count_before` publications
        (with `version`: the first for that version of the document or a later one;
        version None: the first for the file as it is on disk, not open)."""
        def match():
            for v, diags in self.diagnostics.get(uri, [])[count_before:]:
                if (v is None) if version is None else (v is not None and v >= version):
                    return diags
            return None

        with self.cond:
            ok = self.cond.wait_for(lambda: match() is not None or "closed" in self.responses, HANG)
            found = match()
        assert ok and found is not None, f"no diagnostics; {self.stderr()}"
        return found

    def wait_until(self, uri, count_before, predicate):
        """The first diagnostics published for `uri` after `count_before` publications
        that satisfy `predicate` (for a file the server re-checks because another changed)."""
        def match():
            for _, diags in self.diagnostics.get(uri, [])[count_before:]:
                if predicate(diags):
                    return diags
            return None

        with self.cond:
            ok = self.cond.wait_for(lambda: match() is not None or "closed" in self.responses, HANG)
            found = match()
        assert ok and found is not None, f"no such diagnostics: {self.diagnostics.get(uri, [])[count_before:]}"
        return found

    def published(self, uri):
        with self.cond:
            return len(self.diagnostics.get(uri, []))

    def stderr(self):
        if self.proc.poll() is None:
            return "(server running)"
        return self.proc.stderr.read().decode("utf-8", "replace")[-3000:]

    # the document calls
    def open(self, path: Path, text: str | None = None):
        uri = path.resolve().as_uri()
        before = self.published(uri)
        self.opened.add(uri)
        self.version += 1
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "rules", "version": self.version,
            "text": path.read_text(encoding="utf-8") if text is None else text}})
        return self.wait_diagnostics(uri, before, self.version)

    def change(self, path: Path, text: str):
        uri = path.resolve().as_uri()
        if uri not in self.opened:   # each test may run alone
            return self.open(path, text)
        before = self.published(uri)
        self.version += 1
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": self.version},
                                               "contentChanges": [{"text": text}]})
        return self.wait_diagnostics(uri, before, self.version)

    def close(self, path: Path):
        """Close a document; the diagnostics the server then publishes for it (from the
        file on disk, or none for a file that was never saved)."""
        uri = path.resolve().as_uri()
        self.opened.discard(uri)
        before = self.published(uri)
        self.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        return self.wait_diagnostics(uri, before)

    def at(self, method, path: Path, line: int, character: int, **extra):
        return self.request(method, {"textDocument": {"uri": path.resolve().as_uri()},
                                     "position": {"line": line, "character": character}, **extra})


@pytest.fixture(scope="module")
def books(tmp_path_factory):
    root = tmp_path_factory.mktemp("lsp")
    folder = root / "books"
    shutil.copytree(HERE / "lsp_books", folder)
    shutil.copy(DEMO, folder / "demo.rules")
    return folder


@pytest.fixture(scope="module")
def client(books):
    c = Client(books, books.parent / "cache")
    init = c.request("initialize", {"processId": os.getpid(), "rootUri": books.as_uri(), "capabilities": {}})
    c.initialize_result = init
    c.notify("initialized", {})
    yield c
    try:
        c.request("shutdown", None)
        c.notify("exit", None)
        c.proc.wait(timeout=HANG)
    finally:
        if c.proc.poll() is None:
            c.proc.kill()
        c.proc.stdin.close()
        c.proc.stdout.close()
        c.proc.stderr.close()


def find(text: str, needle: str, nth: int = 0):
    """(line, character) of the nth occurrence of `needle`, 0-based as LSP counts."""
    i = -1
    for _ in range(nth + 1):
        i = text.index(needle, i + 1)
    line = text.count("\n", 0, i)
    return line, i - (text.rfind("\n", 0, i) + 1)


def line_of(loc):
    return loc["range"]["start"]["line"]


# ----------------------------------------------------------------- capabilities
def test_initialize_announces_every_feature(client):
    caps = client.initialize_result["capabilities"]
    for cap in ("hoverProvider", "definitionProvider", "referencesProvider", "completionProvider",
                "documentSymbolProvider", "foldingRangeProvider", "textDocumentSync"):
        assert caps.get(cap), cap
    assert "[" in caps["completionProvider"]["triggerCharacters"]


# ----------------------------------------------------------------- diagnostics
def test_a_clean_book_has_no_errors(client, books):
    diags = client.open(books / "skirmish" / "10-combat.rules")
    assert [d for d in diags if d["severity"] == 1] == []


def test_diagnostics_as_you_type_several_per_file_with_hints(client, books):
    path = books / "skirmish" / "10-combat.rules"
    good = path.read_text(encoding="utf-8")
    bad = (good.replace("return die + bonus >= skill", "return die + bonsu >= skill")
               .replace("[[wounding]]", "[[wonding]]"))
    diags = client.change(path, bad)
    messages = [d["message"] for d in diags]
    assert len(diags) >= 2, messages
    undefined = next(d for d in diags if "bonsu" in d["message"])
    assert "did you mean 'bonus'" in undefined["message"]
    line, char = find(bad, "bonsu")
    assert undefined["range"]["start"] == {"line": line, "character": char}
    assert undefined["severity"] == 1 and undefined["source"] == "rules"
    ref = next(d for d in diags if "wonding" in d["message"])
    assert "wounding" in ref["message"]   # the did-you-mean names the real rule
    # the same messages as `rules check` gives for the same text
    from rules_dsl.errors import RulebookError
    from rules_dsl.library.loader import Library
    from rules_dsl.faces.workspace import Workspace
    ws = Workspace(books, books.parent / "cache-check")
    ws.open(path, bad)
    st = ws.analyse(path)
    assert sorted(d.message for d in st.diagnostics[str(path.resolve())]) == \
        sorted(m.split("\nhint: ")[0] for m in messages)
    # and `rules check`'s own library, on a copy of the book with the edited text saved
    copy = books.parent / "copy"
    shutil.copytree(books, copy, dirs_exist_ok=True)
    (copy / "skirmish" / "10-combat.rules").write_text(bad, encoding="utf-8")
    with pytest.raises(RulebookError) as e:
        Library(copy, books.parent / "cache-check").compile_book("skirmish")
    assert sorted(d.message for d in e.value.diagnostics) == sorted(m.split("\nhint: ")[0] for m in messages)
    # fixed again: the errors go away
    diags = client.change(path, good)
    assert [d for d in diags if d["severity"] == 1] == []


def test_warnings_of_the_checks_are_warnings(client, books):
    path = books / "skirmish" / "10-combat.rules"
    good = path.read_text(encoding="utf-8")
    bad = good.replace("      roll die: d6\n      let bonus", "      roll die: d6\n      let spare = 2\n      let bonus", 1)
    assert bad != good
    diags = client.change(path, bad)
    [warning] = [d for d in diags if d["severity"] == 2]
    assert warning["message"] == "'spare' (let) is never used in to_hit\nhint: use it, or remove the line"
    assert warning["range"]["start"]["line"] == find(bad, "let spare")[0]
    assert not [d for d in diags if d["severity"] == 1]
    client.change(path, good)


def test_syntax_errors_several_per_file_and_a_missing_brace(client, books):
    path = books / "skirmish" / "10-combat.rules"
    good = path.read_text(encoding="utf-8")
    bad = good.replace("let bonus = if", "let bonus = iff", 1).replace('rule wounding "Wounding" {',
                                                                       'rule Wounding "Wounding" {')
    diags = client.change(path, bad)
    assert len(diags) >= 2, diags
    assert any("kebab-case" in d["message"] for d in diags)
    diags = client.change(path, good.rstrip().rstrip("}"))
    (missing,) = [d for d in diags if "'}' is missing at the end of the file" in d["message"]]
    # the quick fix closes the section, on a line of its own
    actions = client.request("textDocument/codeAction", {
        "textDocument": {"uri": path.resolve().as_uri()}, "range": missing["range"],
        "context": {"diagnostics": [missing]}})
    (action,) = actions
    assert action["kind"] == "quickfix" and action["title"] == "Insert '}' to close section 'combat'"
    (edit,) = action["edit"]["changes"][path.resolve().as_uri()]
    assert edit["newText"] == "}\n"
    diags = client.change(path, good)
    assert [d for d in diags if d["severity"] == 1] == []


def code_actions(client, path, diag):
    return client.request("textDocument/codeAction", {
        "textDocument": {"uri": path.resolve().as_uri()}, "range": diag["range"], "context": {"diagnostics": [diag]}})


def test_quick_fixes_for_a_misspelt_name_and_a_missing_table_row(client, books):
    path = books / "skirmish" / "10-combat.rules"
    good = path.read_text(encoding="utf-8")
    bad = good.replace("if target == prone", "if target == prne", 1)
    diags = client.change(path, bad)
    (d,) = [d for d in diags if d["message"].startswith("unknown name 'prne'")]
    (fix,) = code_actions(client, path, d)
    (edit,) = fix["edit"]["changes"][path.resolve().as_uri()]
    assert fix["title"] == "Change to 'prone'" and edit["newText"] == "prone"
    assert edit["range"]["start"] == d["range"]["start"]
    line = find(bad, "prne")[0]
    assert edit["range"] == {"start": {"line": line, "character": find(bad, "prne")[1]},
                             "end": {"line": line, "character": find(bad, "prne")[1] + 4}}
    table = ('    table range_mod(band: 1..3) -> int "By range band" {\n      | band | mod |\n      |---|---|\n'
             '      | 1 | 0 |\n      | 3 | 2 |\n    }\n    mechanic ranged(band: 1..3) -> int = range_mod(band)\n')
    bad = good.replace("    mechanic wounds(", table + "    mechanic wounds(", 1)
    diags = client.change(path, bad)
    (d,) = [d for d in diags if "has no row for band=2" in d["message"]]
    assert d["range"]["start"]["line"] == find(bad, "| 3 | 2 |")[0]     # where the row goes
    (fix,) = code_actions(client, path, d)
    (edit,) = fix["edit"]["changes"][path.resolve().as_uri()]
    assert edit["newText"] == "      | 2 | absent |\n" and edit["range"]["start"] == {"line": d["range"]["start"]["line"],
                                                                                     "character": 0}
    client.change(path, good)


def test_a_failing_example_is_a_diagnostic_on_its_line(client, books):
    path = books / "skirmish" / "10-combat.rules"
    good = path.read_text(encoding="utf-8")
    bad = good.replace(">>> to_hit(4, standing, die=4)\n    true", ">>> to_hit(4, standing, die=4)\n    false")
    assert bad != good
    diags = client.change(path, bad)
    fail = [d for d in diags if "example fails" in d["message"]]
    assert len(fail) == 1 and "expected false, got true" in fail[0]["message"]
    assert fail[0]["range"]["start"]["line"] == find(bad, "to_hit(4, standing")[0]
    client.change(path, good)


def test_errors_in_another_file_of_the_book_are_published_for_that_file(client, books):
    book_file = books / "skirmish" / "00-book.rules"
    combat = books / "skirmish" / "10-combat.rules"
    combat_uri = combat.resolve().as_uri()
    before = client.published(combat_uri)
    client.open(book_file, book_file.read_text(encoding="utf-8").replace("enum stance { standing, prone }",
                                                                          "enum stance { standing, lying }"))
    # `prone` is now unknown in the other file, which the server checks again
    client.wait_until(combat_uri, before, lambda diags: any("unknown name 'prone'" in d["message"] for d in diags))
    before = client.published(combat_uri)
    client.change(book_file, book_file.read_text(encoding="utf-8"))
    client.wait_until(combat_uri, before, lambda diags: not any(d["severity"] == 1 for d in diags))


def test_findings_are_information_on_open(client, books):
    diags = client.open(books / "demo.rules")
    infos = [d for d in diags if d["severity"] == 3]
    assert any("disagreement" in d["message"] for d in infos), diags
    assert not [d for d in diags if d["severity"] == 1]


def test_findings_stay_while_typing_with_the_severity_rules_check_gives_them(client, books):
    """Issue 30: a `findings fail` book's findings showed only as information and vanished
    on the next edit, although `rules check` fails on them."""
    demo = books / "demo.rules"
    text = demo.read_text(encoding="utf-8")
    if demo.resolve().as_uri() not in client.opened:
        client.open(demo)
    diags = client.change(demo, text + "\n")          # an edit elsewhere: the finding stays
    assert any("disagreement" in d["message"] and d["severity"] == 3 for d in diags), diags
    failing = text.replace('  title "Demo"\n', '  title "Demo"\n  findings fail\n', 1)
    assert failing != text
    diags = client.change(demo, failing)             # a designer's own game: an error, as `rules check` says
    found = [d for d in diags if "disagreement" in d["message"]]
    assert found and all(d["severity"] == 1 for d in found), diags
    assert "findings fail" in found[0]["message"]     # the hint says why it is an error
    uri = demo.resolve().as_uri()
    before = client.published(uri)
    client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    diags = client.wait_diagnostics(uri, before, client.version)
    assert any("disagreement" in d["message"] and d["severity"] == 1 for d in diags), diags
    client.change(demo, text)


HALF_TYPED = [
    "",
    "book",
    "section combat \"Combat\" {\n  rule shooting \"Shooting\" {\n    mechanic to_hit(",
    "section combat \"Combat\" {\n  rule shooting \"Sh",
    "section combat {{{{ ]] [[ \"\"\" ",
    "section combat \"Combat\" {\n  rule x \"X\" {\n  \"\"\"[[\"\"\"\n  mechanic f() -> int = 1 +\n}}",
    "\x00\ufeff\u202e",
    "section s \"S\" {\n" + "(" * 500 + "\n}",
]


@pytest.mark.parametrize("text", HALF_TYPED)
def test_half_typed_documents_never_crash_the_server(client, books, text):
    path = books / "skirmish" / "20-draft.rules"   # a new file of the book, never saved
    diags = client.open(path, text)
    assert all(d["severity"] == 1 and d["message"] for d in diags)
    assert diags or not text.strip()
    assert not any("internal error" in d["message"] for d in diags), diags
    # every feature still answers (with nothing, or the last version that parsed)
    for method in ("textDocument/hover", "textDocument/definition", "textDocument/completion"):
        client.at(method, path, 1, 3)
    client.request("textDocument/documentSymbol", {"textDocument": {"uri": path.resolve().as_uri()}})
    client.request("textDocument/foldingRange", {"textDocument": {"uri": path.resolve().as_uri()}})
    client.close(path)
    assert client.proc.poll() is None


def test_a_new_unsaved_file_is_part_of_its_folder_book(client, books):
    draft = books / "skirmish" / "30-new.rules"
    diags = client.open(draft, 'section extras "Extras" {\n  rule dice "Dice again" {\n    """Twice."""\n  }\n}\n')
    dup = [d for d in diags if "duplicate id 'dice'" in d["message"]]
    assert len(dup) == 1 and dup[0]["range"]["start"]["line"] == 1
    [related] = dup[0]["relatedInformation"]
    assert related["location"]["uri"] == (books / "skirmish" / "00-book.rules").resolve().as_uri()
    assert client.close(draft) == []   # closed unsaved: no longer part of the book


def test_a_broken_document_keeps_its_last_outline(client, books):
    path = books / "skirmish" / "10-combat.rules"
    good = path.read_text(encoding="utf-8")
    client.change(path, good)
    diags = client.change(path, good.replace("mechanic wounds(", "mechanic wounds(("))
    assert any(d["severity"] == 1 for d in diags)
    syms = client.request("textDocument/documentSymbol", {"textDocument": {"uri": path.resolve().as_uri()}})
    assert [s["name"] for s in syms] == ["combat"]
    client.change(path, good)


# ----------------------------------------------------------------- hover
def test_hover_on_a_reference_shows_the_rule_title_and_prose(client, books):
    path = books / "skirmish" / "10-combat.rules"
    text = path.read_text(encoding="utf-8")
    line, char = find(text, "[[wounding]]")
    hover = client.at("textDocument/hover", path, line, char + 4)
    value = hover["contents"]["value"]
    assert "**Wounding**" in value and "skirmish:wounding" in value
    assert "Compare strength and toughness" in value


def test_hover_on_a_cross_book_reference(client, books):
    path = books / "skirmish" / "00-book.rules"
    text = path.read_text(encoding="utf-8")
    line, char = find(text, "[[demo:dice-rolls]]")
    value = client.at("textDocument/hover", path, line, char + 9)["contents"]["value"]
    assert "**Dice**" in value and "demo:dice-rolls" in value and "Rolls." in value


def test_hover_on_a_mechanic_shows_signature_doc_and_ranges(client, books):
    path = books / "demo.rules"
    text = path.read_text(encoding="utf-8")
    line, char = find(text, "needed(5, 3)")
    value = client.at("textDocument/hover", path, line, char + 2)["contents"]["value"]
    assert "mechanic needed(yours: 1..10, opposed: 1..10, penalty: 0..5 = 0) -> 2..6 | chart_entry" in value
    assert "doc" in value and "- `penalty`: 0..5" in value


def test_hover_on_a_table_and_an_enum_member(client, books):
    path = books / "skirmish" / "10-combat.rules"
    text = path.read_text(encoding="utf-8")
    line, char = find(text, "wound_chart(strength")
    value = client.at("textDocument/hover", path, line, char + 1)["contents"]["value"]
    assert "table wound_chart(strength: 1..2, toughness: 1..2) -> 2..6" in value and "To wound" in value
    line, char = find(text, "prone then")
    value = client.at("textDocument/hover", path, line, char + 1)["contents"]["value"]
    assert "member of enum `stance`" in value and "standing, prone" in value


def test_hover_on_nothing_is_empty(client, books):
    path = books / "demo.rules"
    text = path.read_text(encoding="utf-8")
    line, char = find(text, "Intro prose")
    assert client.at("textDocument/hover", path, line, char + 2) is None


# ----------------------------------------------------------------- definition
def test_definition_of_references_across_files_and_books(client, books):
    combat = books / "skirmish" / "10-combat.rules"
    text = combat.read_text(encoding="utf-8")
    line, char = find(text, "[[dice]]")
    [loc] = client.at("textDocument/definition", combat, line, char + 3)
    assert loc["uri"] == (books / "skirmish" / "00-book.rules").resolve().as_uri()
    assert line_of(loc) == find((books / "skirmish" / "00-book.rules").read_text(), "rule dice")[0]
    book_file = books / "skirmish" / "00-book.rules"
    btext = book_file.read_text(encoding="utf-8")
    line, char = find(btext, "[[demo:dice-rolls]]")
    [loc] = client.at("textDocument/definition", book_file, line, char + 10)
    assert loc["uri"] == (books / "demo.rules").resolve().as_uri()
    dline, dchar = find((books / "demo.rules").read_text(), "dice-rolls \"Dice\"")
    assert loc["range"]["start"] == {"line": dline, "character": dchar}


def test_a_used_name_leads_to_the_rule_that_defines_it(client, books):
    combat = books / "skirmish" / "10-combat.rules"
    book_file = books / "skirmish" / "00-book.rules"
    text = combat.read_text(encoding="utf-8")
    line, char = find(text, '"dice"')
    [loc] = client.at("textDocument/definition", combat, line, char + 2)
    assert loc["uri"] == book_file.resolve().as_uri()
    assert line_of(loc) == find(book_file.read_text(encoding="utf-8"), "rule dice")[0]
    line, char = find(text, '"Wounding"')
    assert "**Wounding**" in client.at("textDocument/hover", combat, line, char + 3)["contents"]["value"]


def test_definition_of_mechanics_tables_enums_members_and_constants(client, books):
    combat = books / "skirmish" / "10-combat.rules"
    book_file = books / "skirmish" / "00-book.rules"
    text, btext = combat.read_text(encoding="utf-8"), book_file.read_text(encoding="utf-8")
    cases = [
        (find(text, "wound_chart(strength, toughness)"), combat, find(text, "wound_chart(strength: 1")),
        (find(text, "to_hit(4"), combat, find(text, "to_hit(skill")),
        (find(text, "stance)"), book_file, find(btext, "stance {")),
        (find(text, "prone then"), book_file, find(btext, "prone }")),
        (find(text, "bonus >="), combat, find(text, "bonus = if")),
        (find(text, "skill\n"), combat, find(text, "skill: 2..6")),
        (find(text, "target: stance"), combat, find(text, "target: stance")),   # on the signature line itself
    ]
    for (line, char), where, target in cases:
        [loc] = client.at("textDocument/definition", combat, line, char + 1)
        assert loc["uri"] == where.resolve().as_uri(), (line, char)
        assert loc["range"]["start"] == {"line": target[0], "character": target[1]}, (line, char)


def test_definition_of_a_constant(client, books):
    demo = books / "demo.rules"
    text = demo.read_text(encoding="utf-8")
    edited = text.replace('enum outcome {', 'const max_hits = 10 "most dice"\n    enum outcome {').replace(
        "hits: 0..10) -> list of outcome {", "hits: 0..10) -> list of outcome {\n      require hits <= max_hits \"too many\"")
    diags = client.change(demo, edited)
    assert not [d for d in diags if d["severity"] == 1], diags
    line, char = find(edited, "max_hits \"too")
    [loc] = client.at("textDocument/definition", demo, line, char + 1)
    assert loc["range"]["start"] == dict(zip(("line", "character"), find(edited, "max_hits = 10")))
    value = client.at("textDocument/hover", demo, line, char + 1)["contents"]["value"]
    assert "const max_hits = 10" in value and "most dice" in value
    client.change(demo, text)


def test_unsaved_text_is_used_in_place_of_the_file(client, books):
    """A mechanic that exists only in the editor's buffer is known to the rest of the book."""
    book_file = books / "skirmish" / "00-book.rules"
    combat = books / "skirmish" / "10-combat.rules"
    btext = book_file.read_text(encoding="utf-8")
    unsaved = btext.replace('enum stance', 'mechanic cover(x: 0..2) -> int = x + 1\n    enum stance')
    client.open(book_file, unsaved)
    ctext = combat.read_text(encoding="utf-8").replace("return die + bonus >=", "return die + bonus + cover(0) >=")
    diags = client.change(combat, ctext)
    assert not [d for d in diags if d["severity"] == 1], diags
    line, char = find(ctext, "cover(0)")
    [loc] = client.at("textDocument/definition", combat, line, char + 1)
    assert loc["uri"] == book_file.resolve().as_uri()
    assert line_of(loc) == find(unsaved, "mechanic cover")[0]
    client.change(combat, combat.read_text(encoding="utf-8"))
    client.change(book_file, btext)


# ----------------------------------------------------------------- references
def test_references_of_a_mechanic_and_of_a_rule(client, books):
    demo = books / "demo.rules"
    text = demo.read_text(encoding="utf-8")
    line, char = find(text, "needed(yours")
    refs = client.at("textDocument/references", demo, line, char + 1, context={"includeDeclaration": True})
    lines = sorted(line_of(r) for r in refs)
    expected = sorted({find(text, "needed(yours")[0], find(text, "needed(y, o)")[0]}
                      | {find(text, ">>> needed", k)[0] for k in range(3)})
    assert lines == expected
    refs = client.at("textDocument/references", demo, line, char + 1, context={"includeDeclaration": False})
    assert find(text, "needed(yours")[0] not in [line_of(r) for r in refs]
    combat = books / "skirmish" / "10-combat.rules"
    ctext = combat.read_text(encoding="utf-8")
    line, char = find(ctext, "rule shooting")
    refs = client.at("textDocument/references", combat, line, char + 6, context={"includeDeclaration": True})
    assert sorted(line_of(r) for r in refs) == [line, find(ctext, "[[shooting|")[0]]


def test_references_of_a_rule_from_other_books(client, books):
    demo = books / "demo.rules"
    text = demo.read_text(encoding="utf-8")
    line, char = find(text, "rule dice-rolls")
    refs = client.at("textDocument/references", demo, line, char + 7, context={"includeDeclaration": False})
    book_file = books / "skirmish" / "00-book.rules"
    assert [(r["uri"], line_of(r)) for r in refs] == [   # this book's first, then the others'
        (demo.resolve().as_uri(), find(text, "[[dice-rolls]]")[0]),
        (book_file.resolve().as_uri(), find(book_file.read_text(encoding="utf-8"), "[[demo:dice-rolls]]")[0])]


def test_references_of_an_enum_member_across_files(client, books):
    book_file = books / "skirmish" / "00-book.rules"
    btext = book_file.read_text(encoding="utf-8")
    line, char = find(btext, "standing")
    refs = client.at("textDocument/references", book_file, line, char + 1, context={"includeDeclaration": True})
    uris = {r["uri"] for r in refs}
    assert uris == {book_file.resolve().as_uri(), (books / "skirmish" / "10-combat.rules").resolve().as_uri()}
    assert len(refs) == 2


# ----------------------------------------------------------------- completion
def labels(result):
    items = result["items"] if isinstance(result, dict) else result
    return {i["label"]: i for i in items}


def test_completion_of_rule_ids_inside_brackets(client, books):
    combat = books / "skirmish" / "10-combat.rules"
    text = combat.read_text(encoding="utf-8")
    edited = text.replace("then to wound ([[wounding]])", "then to wound ([[wounding]]) and [[")
    client.change(combat, edited)
    line, char = find(edited, "and [[")
    items = labels(client.at("textDocument/completion", combat, line, char + 6))
    assert {"dice", "shooting", "wounding", "basics", "combat", "demo:"} <= set(items)
    assert items["wounding"]["detail"] == "Wounding"
    edited2 = edited.replace("and [[", "and [[demo:")
    client.change(combat, edited2)
    items = labels(client.at("textDocument/completion", combat, line, char + 11))
    assert {"dice-rolls", "opposed-stat-rolls"} <= set(items) and "wounding" not in items
    client.change(combat, text)


def test_completion_of_a_calls_parameters_and_rolls_by_name(client, books):
    demo = books / "demo.rules"
    text = demo.read_text(encoding="utf-8")
    edited = text.replace(">>> cost(4, 6, 3, 6)", ">>> cost(4, 6, 3, 6) + defence(6, 2, d")
    client.change(demo, edited)
    line, char = find(edited, "defence(6, 2, d")
    items = labels(client.at("textDocument/completion", demo, line, char + len("defence(6, 2, d")))
    assert items["dice="]["detail"] == "roll: hits of d10" and items["defence="]["detail"] == "parameter: 0..10"
    assert "hits=" not in items                  # the typed `d` narrows the list
    items = labels(client.at("textDocument/completion", demo, line, char + len("defence(6, 2, ")))
    assert {"defence=", "hits=", "dice="} <= set(items) and "yours=" not in items
    client.change(demo, text)


def test_completion_of_names_and_keywords(client, books):
    combat = books / "skirmish" / "10-combat.rules"
    text = combat.read_text(encoding="utf-8")
    line, char = find(text, "return die >= wound_chart")
    items = labels(client.at("textDocument/completion", combat, line, char))   # start of `return`
    for name in ("to_hit", "wound_chart", "stance", "prone", "max_range", "return", "roll", "let", "count"):
        assert name in items, name
    assert items["wound_chart"]["kind"] == 22 and items["to_hit"]["kind"] == 3 and items["prone"]["kind"] == 20
    assert items["return"]["kind"] == 14
    # inside a mechanic its parameters and rolls too; a prefix narrows the list
    line, char = find(text, "wound_chart(strength, toughness)")
    items = labels(client.at("textDocument/completion", combat, line, char + 3))
    assert "wound_chart" in items and "wounds" in items and "to_hit" not in items
    items = labels(client.at("textDocument/completion", combat, line, char))
    assert {"strength", "toughness", "distance", "die"} <= set(items)
    line, char = find(text, "skill: 2..6")
    value = client.at("textDocument/hover", combat, line, char + 1)["contents"]["value"]
    assert value == "parameter `skill: 2..6` of `to_hit`"


# ----------------------------------------------------------------- outline
def test_document_symbols_sections_rules_and_mechanics(client, books):
    combat = books / "skirmish" / "10-combat.rules"
    text = combat.read_text(encoding="utf-8")
    syms = client.request("textDocument/documentSymbol", {"textDocument": {"uri": combat.resolve().as_uri()}})
    [section] = syms
    assert section["name"] == "combat" and section["detail"] == "Combat" and section["kind"] == 3
    assert [r["name"] for r in section["children"]] == ["shooting", "wounding"]
    wounding = section["children"][1]
    assert [(c["name"], c["kind"]) for c in wounding["children"]] == [("wound_chart", 23), ("wounds", 12)]
    assert wounding["selectionRange"]["start"] == dict(zip(("line", "character"), find(text, "wounding \"Wounding")))
    assert wounding["range"]["end"]["line"] == len(text.rstrip().split("\n")) - 2


def test_folding_by_section_and_rule(client, books):
    combat = books / "skirmish" / "10-combat.rules"
    text = combat.read_text(encoding="utf-8")
    ranges = client.request("textDocument/foldingRange", {"textDocument": {"uri": combat.resolve().as_uri()}})
    got = sorted((r["startLine"], r["endLine"]) for r in ranges)
    last = len(text.rstrip().split("\n")) - 1
    assert got == [(0, last), (1, find(text, "rule wounding")[0] - 1), (find(text, "rule wounding")[0], last - 1)]


# ----------------------------------------------------------------- the command
def test_other_commands_do_not_import_pygls(demo_books):
    code = ("import sys\nfrom rules_dsl import cli\n"
            "try:\n    cli.main(['books', '--json'])\nexcept SystemExit:\n    pass\n"
            "sys.stderr.write('PYGLS' if 'pygls' in sys.modules else 'NO-PYGLS')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert r.stderr.endswith("NO-PYGLS"), r.stderr
    assert '"demo"' in r.stdout


# ----------------------------------------------------------------- the VS Code extension
def test_vscode_extension_declares_the_language_grammar_and_server():
    folder = REPO / "editors" / "vscode"
    pkg = json.loads((folder / "package.json").read_text(encoding="utf-8"))
    [lang] = pkg["contributes"]["languages"]
    assert lang["id"] == "rules" and lang["extensions"] == [".rules"]
    [grammar] = pkg["contributes"]["grammars"]
    assert grammar["language"] == "rules" and (folder / grammar["path"]).is_file()
    assert (folder / pkg["main"]).is_file() and (folder / lang["configuration"]).is_file()
    props = pkg["contributes"]["configuration"]["properties"]
    assert props["rules.server.command"]["default"] == "rules" and props["rules.server.args"]["default"] == ["lsp"]
    assert "onLanguage:rules" in pkg["activationEvents"]
    assert "vscode-languageclient" in pkg["dependencies"]


def _grammar_patterns(node):
    if isinstance(node, dict):
        for k, v in node.items():
            if k in ("match", "begin", "end"):
                yield v
            else:
                yield from _grammar_patterns(v)
    elif isinstance(node, list):
        for v in node:
            yield from _grammar_patterns(v)


def test_textmate_grammar_compiles_and_knows_every_keyword():
    import re

    from rules_dsl.faces.ws_completion import KEYWORDS

    grammar = json.loads((REPO / "editors" / "vscode" / "syntaxes" / "rules.tmLanguage.json").read_text(encoding="utf-8"))
    assert grammar["scopeName"] == "source.rules"
    patterns = list(_grammar_patterns(grammar["repository"]))
    for p in patterns:
        re.compile(p)
    for name in grammar["patterns"]:
        assert name["include"].lstrip("#") in grammar["repository"]
    words = [re.compile(p["match"]) for key in ("keyword", "constant")
             for p in grammar["repository"][key].get("patterns", [grammar["repository"][key]])]
    for kw in KEYWORDS:
        assert any(w.fullmatch(kw) for w in words), kw
    # and the grammar's keywords are the parser's: each one is a keyword of grammar.lark
    lark_text = (REPO / "rules_dsl" / "language" / "grammar.lark").read_text(encoding="utf-8")
    for kw in KEYWORDS:
        assert f'"{kw}"' in lark_text or kw in ("int", "bool", "text", "number"), kw
    ref = re.compile(grammar["repository"]["reference"]["match"])
    assert ref.search("see [[demo:dice-rolls|the dice]] here").group(1, 2) == ("demo", "dice-rolls")


def test_positions_are_utf16_units_as_lsp_counts(client, books):
    """A character outside the BMP (two UTF-16 units) before a reference moves the
    reference by two units per character on the client's side."""
    demo = books / "demo.rules"
    text = demo.read_text(encoding="utf-8")
    edited = text.replace('"""Prose [[dice-rolls]] here."""', '"""Prose \U0001F3B2\U0001F3B2 [[dice-rolls]] here."""')
    assert edited != text
    client.change(demo, edited)
    line, char = find(edited, "[[dice-rolls]]")          # in characters
    utf16 = char + 2                                       # two dice, one extra unit each
    hover = client.at("textDocument/hover", demo, line, utf16 + 3)
    assert hover and "**Dice**" in hover["contents"]["value"]
    dline, dchar = find(edited, "rule dice-rolls")
    refs = client.at("textDocument/references", demo, dline, dchar + 7, context={"includeDeclaration": False})
    mine = [r for r in refs if r["uri"] == demo.resolve().as_uri()]
    assert [r["range"]["start"] for r in mine] == [{"line": line, "character": utf16}]
    assert mine[0]["range"]["end"] == {"line": line, "character": utf16 + len("[[dice-rolls]]")}
    client.change(demo, text)


def test_every_prefix_of_a_book_is_answered_without_an_exception(tmp_path):
    """The half-typed book at many points of its typing: analysis and every feature
    answer (in process, so any exception fails here instead of being logged)."""
    from rules_dsl.faces.workspace import Workspace

    folder = tmp_path / "books"
    folder.mkdir()
    path = folder / "demo.rules"
    full = DEMO.read_text(encoding="utf-8")
    path.write_text(full, encoding="utf-8")
    ws = Workspace(folder, tmp_path / "cache")
    for end in list(range(0, len(full), 89)) + [len(full)]:
        text = full[:end]
        ws.change(path, text)
        state = ws.analyse(path, findings=True)
        diags = state.diagnostics[str(path.resolve())]
        assert not any("internal error" in d.message for d in diags), (end, diags)
        lines = text.split("\n")
        for line in range(1, len(lines) + 1, 3):
            for col in (1, 6, 15, len(lines[line - 1]) + 1):
                ws.hover(path, line, col)
                ws.definition(path, line, col)
                ws.references(path, line, col)
                ws.complete(path, line, col)
        ws.symbols(path)
        ws.folding(path)
    assert [s.name for s in ws.symbols(path)] == ["basics"]


def test_an_untitled_buffer_is_a_book_of_its_own(client, books):
    uri = "untitled:Untitled-1"
    text = ('book scratch {\n  title "Scratch"\n}\nrule a "A" {\n'
            '  """See [[demo:dice-rolls]] and [[b]]."""\n}\n')
    before = client.published(uri)
    client.version += 1
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "rules",
                                                            "version": client.version, "text": text}})
    diags = client.wait_diagnostics(uri, before, client.version)
    assert [d["message"].split("\n")[0] for d in diags if d["severity"] == 1] == ["unknown rule 'b' in cross-reference"]
    line, char = find(text, "[[demo:")
    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                  "position": {"line": line, "character": char + 8}})
    assert "**Dice**" in hover["contents"]["value"]
    syms = client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    assert [s["name"] for s in syms] == ["a"]
    refs = client.request("textDocument/references", {"textDocument": {"uri": uri},
                                                      "position": {"line": 3, "character": 6},
                                                      "context": {"includeDeclaration": True}})
    assert [(r["uri"], r["range"]["start"]["line"]) for r in refs] == [(uri, 3)]
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
