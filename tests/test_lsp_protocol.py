"""`rules lsp` under attack, over its stdio, byte by byte (issue 31, item 3).

A client that sends whatever bytes it likes to `python -m rules_dsl lsp` and
reads back every message the server writes.  The server must answer every
request (errors as JSON-RPC errors with the right code), survive malformed
messages of every kind (bad JSON, wrong types, bad headers and lengths, batches,
notifications with bad params), exit on `exit` with the code the LSP
specification gives (0 after `shutdown`, 1 otherwise), and stay responsive under
a storm of edits and a document of several megabytes.

Each test asserts on what the server wrote back, never on timing; `HANG` only
guards against a server that stopped answering.  The latency of hover during a
storm is measured by `bench/bench_lsp.py`.
"""
from __future__ import annotations

import json
import os
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

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
SERVER_NOT_INITIALIZED = -32002
REQUEST_CANCELLED = -32800


class Server:
    """`rules lsp` in a subprocess; `sent` raw bytes in, every message it writes kept in order."""

    def __init__(self, books: Path, cache: Path):
        env = dict(os.environ, RULES_DSL_BOOKS=str(books), RULES_DSL_CACHE=str(cache))
        self.proc = subprocess.Popen([sys.executable, "-m", "rules_dsl", "lsp"], cwd=REPO, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.messages: list = []
        self.closed = False
        self.cond = threading.Condition()
        self.next_id = 1000
        self.version = 0
        self.err = b""
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()

    def _drain_stderr(self):
        for chunk in iter(lambda: self.proc.stderr.read(4096), b""):
            self.err = (self.err + chunk)[-20000:]

    def _read(self):
        out = self.proc.stdout
        try:
            while True:
                length = None
                while True:
                    line = out.readline()
                    if not line:
                        return
                    if not line.strip():
                        break
                    name, _, value = line.decode("ascii").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                assert length is not None, "the server wrote a message without Content-Length"
                msg = json.loads(out.read(length))
                with self.cond:
                    self.messages.append(msg)
                    self.cond.notify_all()
        finally:
            with self.cond:
                self.closed = True
                self.cond.notify_all()

    # ------------------------------------------------------------ sending
    def send_bytes(self, data: bytes):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    @staticmethod
    def frame(body) -> bytes:
        if not isinstance(body, bytes):
            body = json.dumps(body).encode("utf-8")
        return b"Content-Length: %d\r\n\r\n" % len(body) + body

    def send(self, body):
        self.send_bytes(self.frame(body))

    def notify(self, method, params=None):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id

    def request(self, method, params=None) -> dict:
        """Send a request; its whole response (`result` or `error`)."""
        rid = self.new_id()
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return self.response(rid)

    def result(self, method, params=None):
        msg = self.request(method, params)
        assert "error" not in msg, msg
        return msg["result"]

    # ------------------------------------------------------------ receiving
    def wait(self, predicate, start: int = 0, what: str = "a message"):
        """The first message from index `start` on that satisfies `predicate`."""
        def find():
            for m in self.messages[start:]:
                if predicate(m):
                    return m
            return None
        with self.cond:
            ok = self.cond.wait_for(lambda: find() is not None or self.closed, HANG)
            found = find()
        assert ok and found is not None, f"no answer: {what}; server stderr: {self.stderr_tail()}"
        return found

    def response(self, rid) -> dict:
        return self.wait(lambda m: m.get("id") == rid and ("result" in m or "error" in m) and "method" not in m,
                         what=f"response to id {rid}")

    def mark(self) -> int:
        with self.cond:
            return len(self.messages)

    def error_without_id(self, start: int) -> dict:
        """The first error response with id null written after `start`."""
        msg = self.wait(lambda m: "error" in m and m.get("id", "missing") is None, start, "an error with id null")
        return msg["error"]

    def diagnostics(self, uri: str, version: int, start: int = 0) -> list:
        msg = self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                        and m["params"]["uri"] == uri and (m["params"].get("version") or -1) >= version,
                        start, f"diagnostics of {uri} v{version}")
        return msg["params"]["diagnostics"]

    def publications(self, uri: str, start: int = 0) -> list:
        with self.cond:
            return [m["params"] for m in self.messages[start:]
                    if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri]

    def stderr_tail(self) -> str:
        return self.err.decode("utf-8", "replace")[-3000:]

    # ------------------------------------------------------------ a session
    def initialize(self, root: Path):
        self.result("initialize", {"processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": {}})
        self.notify("initialized", {})
        return self

    def open(self, path: Path, text: str) -> list:
        self.version += 1
        uri = path.resolve().as_uri()
        start = self.mark()
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "rules",
                                                              "version": self.version, "text": text}})
        return self.diagnostics(uri, self.version, start)

    def change_message(self, path: Path, text: str) -> bytes:
        self.version += 1
        return self.frame({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": path.resolve().as_uri(), "version": self.version},
            "contentChanges": [{"text": text}]}})

    def hover_message(self, path: Path, line: int, character: int) -> tuple:
        rid = self.new_id()
        return rid, self.frame({"jsonrpc": "2.0", "id": rid, "method": "textDocument/hover", "params": {
            "textDocument": {"uri": path.resolve().as_uri()}, "position": {"line": line, "character": character}}})

    def hover(self, path: Path, line: int, character: int):
        rid, data = self.hover_message(path, line, character)
        self.send_bytes(data)
        msg = self.response(rid)
        assert "error" not in msg, msg
        return msg["result"]

    def stop(self, shutdown: bool = True) -> int:
        """shutdown (if asked) and exit; the server's exit code."""
        if shutdown:
            assert self.request("shutdown")["result"] is None
        self.notify("exit")
        try:
            return self.proc.wait(timeout=HANG)
        finally:
            self.kill()

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                f.close()
            except OSError:
                pass


@pytest.fixture(scope="module")
def books(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lsp-attack") / "books"
    shutil.copytree(HERE / "lsp_books", folder)
    shutil.copy(DEMO, folder / "demo.rules")
    return folder


@pytest.fixture
def fresh(books):
    """A server of its own (initialized) for a test that ends it."""
    s = Server(books, books.parent / "cache")
    s.initialize(books)
    yield s
    s.kill()


@pytest.fixture(scope="module")
def server(books):
    """One server for the attacks it must survive; each test checks it still answers."""
    s = Server(books, books.parent / "cache")
    s.initialize(books)
    yield s
    assert s.proc.poll() is None, f"the server died: {s.stderr_tail()}"
    code = s.stop()
    assert code == 0, s.stderr_tail()


def still_answers(s: Server, books: Path):
    """A real request after the attack gets its real answer."""
    text = DEMO.read_text(encoding="utf-8")
    line = text[:text.index("needed(5, 3)")].count("\n")
    col = text.split("\n")[line].index("needed(5, 3)")
    s.open(books / "demo.rules", text)
    value = s.hover(books / "demo.rules", line, col + 2)["contents"]["value"]
    assert "mechanic needed(" in value
    assert s.proc.poll() is None


# ----------------------------------------------------------------- the attack as reported
def test_an_empty_batch_is_an_invalid_request_and_the_server_still_shuts_down_and_exits(fresh, books):
    start = fresh.mark()
    fresh.send_bytes(b"Content-Length: 2\r\n\r\n[]")
    assert fresh.error_without_id(start)["code"] == INVALID_REQUEST
    still_answers(fresh, books)
    assert fresh.stop() == 0


def test_a_batch_is_refused_request_by_request(server, books):
    start = server.mark()
    server.send([{"jsonrpc": "2.0", "id": 1, "method": "shutdown"},
                 {"jsonrpc": "2.0", "id": "two", "method": "textDocument/hover", "params": {}},
                 {"jsonrpc": "2.0", "method": "initialized", "params": {}}])
    for rid in (1, "two"):
        msg = server.wait(lambda m, rid=rid: m.get("id") == rid and "error" in m, start)
        assert msg["error"]["code"] == INVALID_REQUEST and "batch" in msg["error"]["message"]
    still_answers(server, books)   # the shutdown inside the batch was not carried out


@pytest.mark.parametrize("position", [
    {"line": -1, "character": 0},
    {"line": 0, "character": -5},
    {"line": 2 ** 31, "character": 0},
    {"line": 0, "character": 2 ** 40},
    {"line": "3", "character": 0},
    {"line": 1.5, "character": 0},
    {"line": 0},
    None,
])
def test_invalid_positions_are_invalid_params(server, books, position):
    params = {"textDocument": {"uri": (books / "demo.rules").resolve().as_uri()}}
    if position is not None:
        params["position"] = position
    for method in ("textDocument/hover", "textDocument/definition", "textDocument/completion"):
        msg = server.request(method, params)
        assert msg["error"]["code"] == INVALID_PARAMS, msg
        assert "position" in msg["error"]["message"], msg
    still_answers(server, books)


def test_positions_past_the_end_of_the_document_answer_nothing(server, books):
    demo = books / "demo.rules"
    server.open(demo, DEMO.read_text(encoding="utf-8"))
    big = 2 ** 31 - 1     # the largest position LSP allows
    for line, character in ((big, 0), (0, big), (big, big), (3, 10_000)):
        assert server.hover(demo, line, character) is None
        msg = server.request("textDocument/definition", {"textDocument": {"uri": demo.resolve().as_uri()},
                                                         "position": {"line": line, "character": character}})
        assert msg.get("result") is None and "error" not in msg, msg
        assert "error" not in server.request("textDocument/completion", {
            "textDocument": {"uri": demo.resolve().as_uri()}, "position": {"line": line, "character": character}})


def test_an_unknown_method_is_method_not_found(server, books):
    for method in ("textDocument/teleport", "$/rulesSecret", "workspace/symbol", ""):
        msg = server.request(method, {})
        assert msg["error"]["code"] == METHOD_NOT_FOUND, msg
        assert repr(method) in msg["error"]["message"] or method in msg["error"]["message"]
    start = server.mark()
    server.notify("textDocument/teleport", {})     # an unknown notification is ignored, as LSP says
    server.notify("$/rulesSecret", {})
    still_answers(server, books)
    assert not [m for m in server.messages[start:] if "error" in m]


# ----------------------------------------------------------------- malformed messages
@pytest.mark.parametrize("body", [
    b'{"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover", "params": {',   # cut short
    b"{'jsonrpc': '2.0'}",                                                       # not JSON
    b"\xff\xfe{\x00}\x00",                                                       # not UTF-8
    b"",                                                                         # nothing
    pytest.param(b"[" * 100_000 + b"]" * 100_000, id="nested-past-any-stack"),
    b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": NaN}',       # not JSON either
])
def test_bad_json_is_a_parse_error(server, books, body):
    start = server.mark()
    server.send(body)
    assert server.error_without_id(start)["code"] == PARSE_ERROR
    still_answers(server, books)


@pytest.mark.parametrize("message,with_id", [
    (5, False),
    ("hover", False),
    (None, False),
    ({}, False),
    ({"id": 7, "method": "textDocument/hover", "params": {}}, True),                    # no "jsonrpc"
    ({"jsonrpc": "1.0", "id": 7, "method": "textDocument/hover", "params": {}}, True),
    ({"jsonrpc": 2.0, "id": 7, "method": "textDocument/hover", "params": {}}, True),
    ({"jsonrpc": "2.0", "id": 7, "method": 42, "params": {}}, True),
    ({"jsonrpc": "2.0", "id": 7, "method": None}, True),
    ({"jsonrpc": "2.0", "id": {"a": 1}, "method": "textDocument/hover", "params": {}}, False),
    ({"jsonrpc": "2.0", "id": [1], "method": "textDocument/hover", "params": {}}, False),
    ({"jsonrpc": "2.0", "id": True, "method": "textDocument/hover", "params": {}}, False),
    ({"jsonrpc": "2.0", "id": 1.5, "method": "textDocument/hover", "params": {}}, False),
    ({"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover", "params": "hover here"}, True),
    ({"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover", "params": 12}, True),
    ({"jsonrpc": "2.0", "id": 7}, True),                                                  # neither asks nor answers
    ({"jsonrpc": "2.0", "method": 42}, False),                                            # a broken notification
    ({"jsonrpc": "2.0", "method": "initialized", "params": 12}, False),
])
def test_messages_of_the_wrong_shape_are_invalid_requests(server, books, message, with_id):
    start = server.mark()
    server.send(message)
    if with_id:
        msg = server.wait(lambda m: m.get("id") == 7 and "error" in m, start)
        assert msg["error"]["code"] == INVALID_REQUEST, msg
    else:
        assert server.error_without_id(start)["code"] == INVALID_REQUEST
    still_answers(server, books)


@pytest.mark.parametrize("params", [
    {"textDocument": {"uri": 5}, "position": {"line": 0, "character": 0}},
    {"textDocument": "demo.rules", "position": {"line": 0, "character": 0}},
    {"position": {"line": 0, "character": 0}},
    [1, 2, 3],
])
def test_request_params_of_the_wrong_type_are_invalid_params(server, books, params):
    msg = server.request("textDocument/hover", params)
    assert msg["error"]["code"] == INVALID_PARAMS, msg
    still_answers(server, books)


def test_params_that_hold_a_jsonrpc_key_are_only_params(server, books):
    """An object inside the params that happens to look like a message is data, not a message."""
    demo = books / "demo.rules"
    server.open(demo, DEMO.read_text(encoding="utf-8"))
    msg = server.request("textDocument/foldingRange", {"textDocument": {"uri": demo.resolve().as_uri(),
                                                                        "jsonrpc": "2.0", "method": "exit"}})
    assert msg["result"], msg
    still_answers(server, books)


def test_bad_headers_and_lengths_are_answered_and_the_stream_recovers(server, books):
    good = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "shutdown"}).encode()
    attacks = [
        b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + good,  # no Content-Length
        b"Content-Length: ten\r\n\r\n" + good,
        b"Content-Length: -44\r\n\r\n" + good,
        b"Content-Length: %d\r\nContent-Length: 45\r\n\r\n" % len(good) + good,   # two, that disagree
        b"Content-Length: 99999999999999999999\r\n\r\n" + good,                  # more than any message
        b"Content-Length: 5\r\n\r\n" + good,                                    # cut short: the rest is noise
        b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n",
        b"x" * 200_000 + b"\r\n\r\n",                                           # one endless header line
        # a header block left open: read with the next message's headers, two lengths that disagree
        b"Content-Length: 0\r\n" + Server.frame({"jsonrpc": "2.0", "method": "$/lost"}),
    ]
    for data in attacks:
        start = server.mark()
        server.send_bytes(data)
        err = server.error_without_id(start)
        assert err["code"] in (PARSE_ERROR, INVALID_REQUEST), (data[:60], err)
        still_answers(server, books)      # the next good message is read: the stream is in step again
    # (the shutdown hidden in the bodies above was never carried out: the server still serves)
    start = server.mark()
    server.send_bytes(b"\r\n\r\n\r\n")     # blank lines between messages are no message at all
    still_answers(server, books)
    assert not [m for m in server.messages[start:] if "error" in m]


def test_lenient_headers_are_read(server, books):
    """Header names in any case, lines ending in a bare LF, extra headers: as clients write them."""
    rid = server.new_id()
    body = json.dumps({"jsonrpc": "2.0", "id": rid, "method": "textDocument/foldingRange",
                       "params": {"textDocument": {"uri": (books / "demo.rules").resolve().as_uri()}}}).encode()
    server.send_bytes(b"content-length: %d\nContent-Type: application/vscode-jsonrpc; charset=utf-8\n\n" % len(body)
                      + body)
    assert "error" not in server.response(rid)


def test_notifications_with_bad_params_are_ignored(server, books):
    demo = books / "demo.rules"
    uri = demo.resolve().as_uri()
    nowhere = (books / "nowhere.rules").resolve().as_uri()
    start = server.mark()
    for method, params in [
        ("textDocument/didOpen", {"textDocument": 5}),
        ("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "rules", "version": "one",
                                                   "text": "x"}}),
        ("textDocument/didOpen", None),
        ("textDocument/didChange", {"textDocument": {"uri": nowhere, "version": 3},
                                    "contentChanges": [{"text": "rule x"}]}),
        ("textDocument/didChange", {"textDocument": {"uri": uri, "version": 3}, "contentChanges": "all of it"}),
        ("textDocument/didSave", {"textDocument": {"uri": nowhere}}),
        ("textDocument/didClose", {"textDocument": {"uri": nowhere}}),
        ("textDocument/didClose", {}),
        ("$/cancelRequest", {}),
        ("$/cancelRequest", {"id": {"nested": True}}),
        ("$/setTrace", {"value": "loud"}),
        ("initialized", [1, 2]),
    ]:
        server.notify(method, params)
    still_answers(server, books)
    # a notification gets no response, not even an error
    assert not [m for m in server.messages[start:] if "id" in m and "error" in m]


def test_responses_to_requests_never_sent_are_ignored(server, books):
    start = server.mark()
    server.send({"jsonrpc": "2.0", "id": 99999, "result": {"anything": [1, 2]}})
    server.send({"jsonrpc": "2.0", "id": "nobody", "error": {"code": -32000, "message": "no"}})
    server.send({"jsonrpc": "2.0", "id": 5, "error": "not an error object"})
    still_answers(server, books)
    assert not [m for m in server.messages[start:] if "id" in m and "error" in m]


def test_an_edit_outside_the_document_is_ignored(server, books):
    demo = books / "demo.rules"
    text = DEMO.read_text(encoding="utf-8")
    server.open(demo, text)
    server.version += 1
    start = server.mark()
    server.notify("textDocument/didChange", {"textDocument": {"uri": demo.resolve().as_uri(), "version": server.version},
                                             "contentChanges": [{"range": {"start": {"line": 10_000, "character": 4},
                                                                           "end": {"line": 3, "character": 0}},
                                                                 "text": "junk"}]})
    server.diagnostics(demo.resolve().as_uri(), server.version, start)
    still_answers(server, books)


def test_a_lone_surrogate_in_a_document_is_survived(server, books):
    draft = books / "skirmish" / "40-draft.rules"
    body = ('{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": "%s", '
            '"languageId": "rules", "version": 900, "text": "section s \\"\\ud800\\" {\\n}\\n"}}}'
            % draft.resolve().as_uri()).encode()
    start = server.mark()
    server.send(body)
    server.diagnostics(draft.resolve().as_uri(), 900, start)
    still_answers(server, books)


# ----------------------------------------------------------------- the lifecycle
def test_requests_before_initialize_are_refused_and_exit_without_shutdown_is_1(books):
    s = Server(books, books.parent / "cache")
    try:
        msg = s.request("textDocument/hover", {"textDocument": {"uri": "file:///x.rules"},
                                               "position": {"line": 0, "character": 0}})
        assert msg["error"]["code"] == SERVER_NOT_INITIALIZED
        s.initialize(books)
        assert s.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})["error"]["code"] \
            == INVALID_REQUEST     # only once
        assert s.stop(shutdown=False) == 1
    finally:
        s.kill()


def test_after_shutdown_requests_are_invalid_and_exit_is_0(fresh, books):
    assert fresh.request("shutdown")["result"] is None
    msg = fresh.request("textDocument/hover", {"textDocument": {"uri": (books / "demo.rules").resolve().as_uri()},
                                               "position": {"line": 0, "character": 0}})
    assert msg["error"]["code"] == INVALID_REQUEST
    fresh.notify("textDocument/didOpen", {"textDocument": {"uri": "file:///x.rules", "languageId": "rules",
                                                           "version": 1, "text": ""}})   # dropped
    assert fresh.stop(shutdown=False) == 0


def test_the_end_of_the_input_ends_the_server(fresh):
    fresh.proc.stdin.close()
    assert fresh.proc.wait(timeout=HANG) == 1     # the client vanished without shutdown


# ----------------------------------------------------------------- load
def test_a_storm_of_edits_is_debounced_and_hover_answers_within_it(server, books):
    """300 edits sent at once, a hover every 30 of them: every hover is answered, the
    last with the text as it stood, the others at once as superseded (the editor asked
    again); the book is checked a handful of times, not 300; the last diagnostics are
    those of the last text."""
    combat = books / "skirmish" / "10-combat.rules"
    good = combat.read_text(encoding="utf-8")
    bad = good.replace("return die + bonus >= skill", "return die + bonsu >= skill")
    server.open(combat, good)
    uri = combat.resolve().as_uri()
    start = server.mark()
    first = server.version + 1
    burst, hovers = [], []
    line = good[:good.index("wound_chart(strength, toughness)")].count("\n")
    col = good.split("\n")[line].index("wound_chart(strength, toughness)")
    for i in range(300):
        burst.append(server.change_message(combat, good + "\n" * (i % 7) if i < 299 else bad))
        if i % 30 == 29:
            rid, data = server.hover_message(combat, line, col + 1)
            hovers.append(rid)
            burst.append(data)
    server.send_bytes(b"".join(burst))
    last = server.version
    answers = [server.response(rid) for rid in hovers]
    for msg in answers[:-1]:
        if "error" in msg:
            assert msg["error"]["code"] == REQUEST_CANCELLED and "superseded" in msg["error"]["message"], msg
        else:
            assert "table wound_chart" in msg["result"]["contents"]["value"], msg
    assert "table wound_chart" in answers[-1]["result"]["contents"]["value"], answers[-1]
    diags = server.diagnostics(uri, last, start)
    assert any("bonsu" in d["message"] for d in diags), diags
    published = [p for p in server.publications(uri, start) if (p.get("version") or 0) >= first]
    assert len(published) <= 10, [p.get("version") for p in published]
    server.open(combat, good)


def _slow_open(server: Server, books: Path) -> tuple:
    """A didOpen of a large document (its check keeps the server busy for a while), framed; its uri."""
    slow = books.parent / "scratch" / "slow.rules"
    rule = 'rule r{0} "R {0}" {{\n  """Prose of rule {0}."""\n}}\n'
    server.version += 1
    return Server.frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": slow.as_uri(), "languageId": "rules", "version": server.version,
        "text": 'section s "S" {\n' + "".join(rule.format(i) for i in range(6000)) + "}\n"}}}), slow.as_uri()


def test_a_cancelled_request_still_waiting_is_answered_as_cancelled(server, books):
    """A request whose $/cancelRequest arrives while it waits (behind the check of a
    large document just opened) is answered at once with RequestCancelled."""
    demo = books / "demo.rules"
    server.open(demo, DEMO.read_text(encoding="utf-8"))
    opening, slow = _slow_open(server, books)
    rid, hover = server.hover_message(demo, 0, 0)
    cancel = Server.frame({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": rid}})
    server.send_bytes(opening + hover + cancel)
    msg = server.response(rid)
    assert msg["error"]["code"] == REQUEST_CANCELLED and "cancelled" in msg["error"]["message"], msg
    server.notify("textDocument/didClose", {"textDocument": {"uri": slow}})
    still_answers(server, books)


def test_a_hover_asked_again_while_waiting_is_answered_once(server, books):
    """Three hovers on the same document wait behind a long check (the editor asked again
    as the mouse moved): the first two are answered at once as superseded, the last
    with its hover; a hover on another document is not superseded by them."""
    demo = books / "demo.rules"
    combat = books / "skirmish" / "10-combat.rules"
    text = DEMO.read_text(encoding="utf-8")
    server.open(demo, text)
    server.open(combat, combat.read_text(encoding="utf-8"))
    line = text[:text.index("needed(5, 3)")].count("\n")
    col = text.split("\n")[line].index("needed(5, 3)")
    opening, slow = _slow_open(server, books)
    asked = [server.hover_message(demo, line, col + 2) for _ in range(3)]
    other_id, other = server.hover_message(combat, 0, 0)
    server.send_bytes(opening + asked[0][1] + other + asked[1][1] + asked[2][1])
    first, second, last = (server.response(rid) for rid, _ in asked)
    for msg in (first, second):
        assert msg["error"]["code"] == REQUEST_CANCELLED and "superseded" in msg["error"]["message"], msg
    assert "mechanic needed(" in last["result"]["contents"]["value"]
    assert "error" not in server.response(other_id)
    server.notify("textDocument/didClose", {"textDocument": {"uri": slow}})
    still_answers(server, books)


def test_a_document_of_several_megabytes_gets_a_clear_diagnostic(server, books):
    """3 MB in one didOpen, then as an edit: a diagnostic naming the size limit, and
    every feature still answers on that document and on the others."""
    big = books / "skirmish" / "50-huge.rules"
    rule = 'rule r{0} "R {0}" {{\n  """Prose of rule {0}, long enough to make the file grow quickly."""\n}}\n'
    text = 'section huge "Huge" {\n' + "".join(rule.format(i) for i in range(34_000)) + "}\n"
    assert len(text.encode()) > 3_000_000
    diags = server.open(big, text)
    assert any("MB" in d["message"] and "at most 2 MB" in d["message"] for d in diags), diags
    server.hover(big, 1, 7)            # answered (with nothing: the file does not parse), not hung
    server.result("textDocument/documentSymbol", {"textDocument": {"uri": big.resolve().as_uri()}})
    server.result("textDocument/completion", {"textDocument": {"uri": big.resolve().as_uri()},
                                              "position": {"line": 20_000, "character": 3}})
    start = server.mark()
    server.send_bytes(server.change_message(big, text + text[: 1_000_000]))
    diags = server.diagnostics(big.resolve().as_uri(), server.version, start)
    assert any("at most 2 MB" in d["message"] for d in diags), diags
    server.notify("textDocument/didClose", {"textDocument": {"uri": big.resolve().as_uri()}})
    still_answers(server, books)
