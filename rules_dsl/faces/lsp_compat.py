"""Where pygls 1.3 and pygls 2 differ, in one place: `rules lsp` runs on either.

pygls 2 moved the server class (`pygls.server` -> `pygls.lsp.server`), renamed the
server's protocol attribute (`ls.lsp` -> `ls.protocol`), replaced the hand-written
notification helpers by generated ones named after the LSP method and taking the
lsprotocol params object (`show_message_log` -> `window_log_message`,
`publish_diagnostics` -> `text_document_publish_diagnostics`), and rewrote the I/O:
the protocol is no longer an `asyncio.Protocol`; messages go in through
`handle_message` and out through a writer given to `set_writer`.

Each function below names the API it uses in each version.  Everything else that
`lsp.py` and `lsp_transport.py` use is the same public API in both: `feature`,
`report_server_error`, `shutdown`, `workspace.get_text_document`,
`workspace.text_documents`, `workspace.position_codec`, `pygls.uris`,
`pygls.protocol.default_converter`, `protocol.get_message_type` and
`protocol.fm.features` / `builtin_features`.  `tests/test_lsp_compat.py` fails
loudly, naming the function, when either version stops offering what is used here.
"""
from __future__ import annotations

import asyncio

from lsprotocol import types as t

try:                                                  # pygls 2
    from pygls.lsp.server import LanguageServer
    PYGLS_2 = True
except ImportError:                                   # pygls 1.3
    from pygls.server import LanguageServer
    PYGLS_2 = False

__all__ = ["LanguageServer", "PYGLS_2", "protocol", "log_message", "publish_diagnostics",
           "attach_writer", "deliver", "event_loop"]


def protocol(ls):
    """The server's JSON-RPC protocol object: `ls.protocol` (2), `ls.lsp` (1.3)."""
    return ls.protocol if PYGLS_2 else ls.lsp


def log_message(ls, text: str, kind: t.MessageType = t.MessageType.Log) -> None:
    """Send `window/logMessage`: `ls.window_log_message(LogMessageParams)` (2),
    `ls.show_message_log(text, type)` (1.3)."""
    if PYGLS_2:
        ls.window_log_message(t.LogMessageParams(type=kind, message=text))
    else:
        ls.show_message_log(text, kind)


def publish_diagnostics(ls, uri: str, diagnostics: list, version=None) -> None:
    """Send `textDocument/publishDiagnostics`: `ls.text_document_publish_diagnostics(
    PublishDiagnosticsParams)` (2), `ls.publish_diagnostics(uri, diagnostics, version=)` (1.3)."""
    if PYGLS_2:
        ls.text_document_publish_diagnostics(t.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics,
                                                                        version=version))
    else:
        ls.publish_diagnostics(uri, diagnostics, version=version)


def attach_writer(ls, writer) -> None:
    """Make `writer.write(data)` receive every message the server sends, framed
    (headers and body, bytes): `protocol.set_writer(writer)` (2);
    `protocol.connection_made(writer)`, the `asyncio.Protocol` entry point (1.3)."""
    if PYGLS_2:
        protocol(ls).set_writer(writer)
    else:
        protocol(ls).connection_made(writer)


def deliver(ls, message: dict) -> None:
    """Dispatch one message, already decoded and checked by `lsp_transport`, to the
    server's handlers (a request's answer goes out through the writer).

    pygls 2: `protocol.handle_message(protocol.structure_message(message))`, both public.
    pygls 1.3 has no public entry for a decoded message: its public `data_received`
    takes bytes and converts every nested object holding a "jsonrpc" key as a message
    of its own (so a request whose params held one would go unanswered).  Its
    `_procedure_handler` and `_deserialize_message` are the two methods that pygls 2
    made public as `handle_message` and `structure_message`; 1.3.1 is the last 1.x release so far, and
    `tests/test_lsp_compat.py` checks that they are there."""
    p = protocol(ls)
    if PYGLS_2:
        p.handle_message(p.structure_message(message))
    else:
        p._procedure_handler(p._deserialize_message(message))


def event_loop(ls) -> asyncio.AbstractEventLoop:
    """The event loop to serve on: `ls.loop`, which the pygls 1.3 server creates and its
    async handlers are scheduled on; pygls 2 creates none (its `start_io` calls
    `asyncio.run`), so a new one."""
    if PYGLS_2:
        return asyncio.new_event_loop()
    return ls.loop
