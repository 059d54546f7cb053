"""`rules_dsl/faces/lsp_compat.py` against the pygls that is installed (1.3 or 2): every API it
stands on is there, and each of its functions does its job in process.  A pygls release
that moves one of them fails here, by name, before an editor meets it.

And the parts of the wire that need no server: `lsp_framing`, read from any chunking of
the stream (hypothesis), and `lsp_transport`'s strict conversion of params.
"""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("pygls")

from rules_dsl.faces import lsp_compat as compat  # noqa: E402
from rules_dsl.faces.lsp_framing import MAX_HEADER_LINE, FrameError, FrameReader, FrameWriter  # noqa: E402
from rules_dsl.faces.lsp_transport import params_problem  # noqa: E402


class Capture:
    """A writer that keeps what the server sends, as decoded messages."""

    def __init__(self):
        self.data = b""

    def write(self, data: bytes):
        self.data += data

    def close(self):
        pass

    def messages(self) -> list:
        return [json.loads(b) for b in FrameReader(_reader(self.data)) if not isinstance(b, FrameError)]


def _reader(data: bytes, cuts=()):
    """read(n) over `data`, returning at most up to the next cut each time."""
    pos = [0]
    cuts = sorted(set(c for c in cuts if 0 < c < len(data))) + [len(data)]

    def read(n):
        start = pos[0]
        stop = min(start + n, next(c for c in cuts if c > start) if start < len(data) else start)
        pos[0] = stop
        return data[start:stop]
    return read


# ----------------------------------------------------------------- what lsp_compat stands on
def test_the_pygls_api_that_lsp_compat_uses_is_there():
    import pygls.protocol
    import pygls.uris

    ls = compat.LanguageServer("probe", "0")
    p = compat.protocol(ls)
    wanted = {
        "protocol.get_message_type": p, "protocol.fm": p,
        "LanguageServer.feature": ls, "LanguageServer.report_server_error": ls, "LanguageServer.shutdown": ls,
    }
    if compat.PYGLS_2:
        wanted.update({"protocol.handle_message": p, "protocol.structure_message": p, "protocol.set_writer": p,
                       "LanguageServer.window_log_message": ls,
                       "LanguageServer.text_document_publish_diagnostics": ls})
    else:
        wanted.update({"protocol._procedure_handler": p, "protocol._deserialize_message": p,
                       "protocol.connection_made": p, "LanguageServer.show_message_log": ls,
                       "LanguageServer.publish_diagnostics": ls, "LanguageServer.loop": ls})
    missing = [name for name, owner in wanted.items() if not hasattr(owner, name.split(".")[1])]
    assert not missing, f"pygls {_version()} no longer has {missing}: update rules_dsl/faces/lsp_compat.py"
    assert hasattr(pygls.protocol, "default_converter") and hasattr(pygls.uris, "from_fs_path")
    assert isinstance(p.fm.features, dict) and "initialize" in p.fm.builtin_features
    from pygls.workspace import Workspace
    for attr in ("get_text_document", "text_documents", "position_codec"):
        assert hasattr(Workspace, attr), f"pygls {_version()}: Workspace.{attr} is gone (used by rules_dsl/faces/lsp.py)"


def _version() -> str:
    from importlib.metadata import version
    return version("pygls")


def _initialized():
    """A rules-dsl server, initialized in process, whose output is captured."""
    from rules_dsl.faces.lsp import create_server

    ls = create_server()
    out = Capture()
    compat.attach_writer(ls, out)
    compat.deliver(ls, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                        "params": {"processId": None, "rootUri": None, "capabilities": {}}})
    return ls, out


def test_deliver_dispatches_and_the_answer_goes_to_the_writer():
    ls, out = _initialized()
    [answer] = out.messages()
    assert answer["id"] == 1 and answer["result"]["capabilities"]["hoverProvider"]
    compat.deliver(ls, {"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    assert out.messages()[-1] == {"jsonrpc": "2.0", "id": 2, "result": None}
    ls.shutdown()


def test_log_and_publish_send_their_notifications():
    from lsprotocol import types as t

    ls, out = _initialized()
    compat.log_message(ls, "hello", t.MessageType.Warning)
    rng = t.Range(t.Position(0, 0), t.Position(0, 1))
    compat.publish_diagnostics(ls, "file:///x.rules", [t.Diagnostic(rng, "bad")], version=3)
    log, diags = out.messages()[1:]
    assert log["method"] == "window/logMessage" and log["params"] == {"type": 2, "message": "hello"}
    assert diags["method"] == "textDocument/publishDiagnostics"
    assert diags["params"]["version"] == 3 and diags["params"]["diagnostics"][0]["message"] == "bad"
    ls.shutdown()


def test_the_event_loop_is_usable():
    ls = compat.LanguageServer("probe", "0")
    loop = compat.event_loop(ls)
    assert loop.run_until_complete(_answer()) == 42
    ls.shutdown()
    if not loop.is_closed():
        loop.close()


async def _answer():
    return 42


# ----------------------------------------------------------------- the framing
def frame(obj) -> bytes:
    body = json.dumps(obj).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


MESSAGES = [{"jsonrpc": "2.0", "id": i, "method": "m", "params": {"text": "é\n" * i}} for i in range(4)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=400), max_size=30))
def test_messages_are_read_whatever_the_chunks(cuts):
    data = b"\r\n".join(frame(m) for m in MESSAGES)       # blank lines between messages are allowed
    assert [json.loads(b) for b in FrameReader(_reader(data, cuts))] == MESSAGES


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300), st.lists(st.integers(min_value=1, max_value=900), max_size=20))
def test_after_any_noise_the_next_message_is_read(noise, cuts):
    """Garbage, then a message: the message comes out, after errors for what was not one
    (unless the garbage happens to frame a message of its own that swallows it)."""
    data = noise + b"\r\n\r\n" + frame(MESSAGES[1])
    items = list(FrameReader(_reader(data, cuts)))
    bodies = [i for i in items if not isinstance(i, FrameError)]
    assert len(items) >= 1
    if b"content-length" not in noise.lower():
        assert bodies and json.loads(bodies[-1]) == MESSAGES[1]


def test_an_endless_line_is_read_in_bounded_pieces():
    read_sizes = []
    base = _reader(b"x" * (50 * MAX_HEADER_LINE) + b"\r\n\r\n" + frame(MESSAGES[0]))

    def read(n):
        read_sizes.append(n)
        return base(n)
    items = list(FrameReader(read))
    assert isinstance(items[0], FrameError) and "skipped" in items[0].message
    assert json.loads(items[-1]) == MESSAGES[0]
    assert max(read_sizes) <= 2 ** 20


def test_the_writer_stops_on_a_closed_pipe():
    class Gone:
        def write(self, data):
            raise BrokenPipeError

        def flush(self):
            pass
    w = FrameWriter(Gone())
    w.send({"jsonrpc": "2.0", "method": "x"})
    assert w.closed
    w.send({"jsonrpc": "2.0", "method": "x"})     # quietly nothing


# ----------------------------------------------------------------- the params
def test_params_are_converted_without_coercion():
    from lsprotocol import types as t

    def hover(position, uri="file:///x.rules"):
        return params_problem({"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover",
                               "params": {"textDocument": {"uri": uri}, "position": position}},
                              t.TextDocumentHoverRequest if hasattr(t, "TextDocumentHoverRequest")
                              else t.HoverRequest)
    assert hover({"line": 3, "character": 0}) is None
    assert hover({"line": "3", "character": 0}) == "position.line: expected an integer, got a string"
    assert hover({"line": True, "character": 0}) == "position.line: expected an integer, got true or false"
    assert hover({"line": 1.5, "character": 0}) == "position.line: expected an integer, got a number"
    assert "position" in hover({"line": -1, "character": 0}) and "-1" in hover({"line": -1, "character": 0})
    assert hover({"line": 0}) == "position.character: missing"
    assert hover(5) == "position: expected an object"
    assert hover({"line": 0, "character": 0}, uri=5) == "textDocument.uri: expected a string, got a number"
