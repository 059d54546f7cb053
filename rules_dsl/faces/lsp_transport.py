"""The wire side of `rules lsp`: whatever arrives on stdin, every request is answered
and the server goes on serving until `exit`.

The server runs this loop instead of pygls's `start_io`, which (in 1.3 and in 2) stops
reading for good after a body that is not a JSON object, loses the id of a request whose
params do not convert (so it is never answered), and exits 0 whatever came before.
A message meets these steps in order; the first it fails answers it:

1. Framing (`lsp_framing.FrameReader`): `Content-Length` headers, a blank line, the
   body; a header without a usable length is refused and reading goes on at the next
   `Content-Length` header; bytes that are no header are skipped, and said to be. -32700
2. The body is UTF-8 JSON.                                                         -32700
3. JSON-RPC 2.0: an object with `"jsonrpc": "2.0"`, a string `method`, an integer or
   string `id`, `params` an object or array.  A batch (an array) is not part of LSP:
   each request in it is refused, and nothing in it is done.                       -32600
4. The LSP lifecycle: before `initialize` a request gets -32002 (a notification is
   dropped); `initialize` is answered once; after `shutdown` a request gets -32600;
   `exit` ends the loop, with exit code 0 after `shutdown` and 1 otherwise (the end
   of stdin likewise).
5. The method: one the server does not serve is -32601 (a notification is ignored).
6. The params, converted with lsprotocol's types and no coercion (the string "3" is
   not a line number): -32602 naming the field; a notification with bad params is
   logged (`window/logMessage`) and dropped.
7. A request whose `$/cancelRequest` is already waiting behind it, or a transient
   view (hover, completion...) of a document for which a newer one is waiting, is
   answered at once as cancelled: in a storm of edits the server answers the last
   hover asked, not each in turn.                                                  -32800
8. pygls dispatches it to the handler (`lsp_compat.deliver`), which answers.

One thread reads and decodes stdin, never the event loop, at most QUEUE_MESSAGES (and
QUEUE_BYTES) ahead: a flood waits in the pipe, not in memory.  The event loop takes
the messages one at a time in arrival order and yields between them, so debounced
checks and other tasks run.  Nothing here knows about rulebooks: `lsp.py` is the server.
"""
from __future__ import annotations

import asyncio
import collections
import functools
import os
import re
import sys
import threading
from typing import Callable

from . import lsp_compat as compat
from .lsp_framing import (
    INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, MAX_MESSAGE_BYTES, METHOD_NOT_FOUND, REQUEST_CANCELLED,
    SERVER_NOT_INITIALIZED, FrameError, FrameReader, FrameWriter, read_messages,
)

QUEUE_MESSAGES = 256
QUEUE_BYTES = MAX_MESSAGE_BYTES
MAX_PROBLEMS = 3                   # invalid params: the first few fields named

# served without being a registered feature: pygls handles it itself
_ALWAYS_SERVED = {"$/cancelRequest"}
# requests for a view of a document that the editor asks again as the user moves or types:
# an older one still waiting when a newer one for the same document is queued is moot
SUPERSEDED = {"textDocument/hover", "textDocument/completion", "textDocument/signatureHelp",
              "textDocument/documentHighlight", "textDocument/codeAction", "textDocument/codeLens",
              "textDocument/documentSymbol", "textDocument/foldingRange", "textDocument/documentLink",
              "textDocument/inlayHint", "textDocument/semanticTokens/full", "textDocument/semanticTokens/range"}


def _valid_id(value) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool)) or isinstance(value, str)


def _envelope_problem(msg):
    """Why `msg` is not a JSON-RPC 2.0 request, notification or response (None if it is one)."""
    if not isinstance(msg, dict):
        return f"a message is a JSON object, not {_json_kind(msg)}"
    if msg.get("jsonrpc") != "2.0":
        return 'a message must say "jsonrpc": "2.0"'
    if "id" in msg and not _valid_id(msg["id"]):
        return f"the id of a message is an integer or a string, not {_json_kind(msg['id'])}"
    if "method" in msg:
        if not isinstance(msg["method"], str):
            return f"the method of a message is a string, not {_json_kind(msg['method'])}"
        if "params" in msg and not isinstance(msg["params"], (dict, list, type(None))):
            return f"the params of a message are an object or an array, not {_json_kind(msg['params'])}"
        return None
    if "id" in msg and ("result" in msg or "error" in msg):
        return None      # a response to a request of the server's
    return "a message has a method (a request or a notification) or a result or error (a response)"


def _json_kind(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


class Inbox:
    """The messages read ahead of the handler (at most QUEUE_MESSAGES of them, and
    QUEUE_BYTES of JSON unless one alone is more: a flood waits in the pipe, not in
    memory), and what the handler may ask about those still waiting:
    whether a `$/cancelRequest` names a request, and whether a newer request of a
    transient view (hover, completion...) of the same document makes an older one moot."""

    def __init__(self, wake: Callable[[], None]):
        self.cond = threading.Condition()
        self.items: collections.deque = collections.deque()
        self.keys: collections.Counter = collections.Counter()     # superseding keys of waiting requests
        self.cancels: collections.Counter = collections.Counter()  # ids named by waiting $/cancelRequest
        self.size = 0                                              # bytes of JSON waiting
        self.wake = wake

    @staticmethod
    def _marks(item):
        """(superseding key, cancelled id) of a message; either may be None."""
        if not isinstance(item, dict) or not isinstance(item.get("params"), dict):
            return None, None
        method, params = item.get("method"), item["params"]
        if method == "$/cancelRequest":
            cid = params.get("id")
            return None, (cid if _valid_id(cid) else None)
        doc = params.get("textDocument")
        if method in SUPERSEDED and "id" in item and isinstance(doc, dict) and isinstance(doc.get("uri"), str):
            return (method, doc["uri"]), None
        return None, None

    def put(self, item, size: int = 0) -> None:
        key, cid = self._marks(item)
        with self.cond:
            while self.items and (len(self.items) >= QUEUE_MESSAGES or self.size + size > QUEUE_BYTES):
                self.cond.wait()
            self.items.append((item, size))
            self.size += size
            if key is not None:
                self.keys[key] += 1
            if cid is not None:
                self.cancels[cid] += 1
        self.wake()

    EMPTY = object()

    def get(self):
        """The next message, or Inbox.EMPTY when none waits."""
        with self.cond:
            if not self.items:
                return self.EMPTY
            item, size = self.items.popleft()
            self.size -= size
            key, cid = self._marks(item)
            if key is not None:
                self.keys[key] -= 1
            if cid is not None:
                self.cancels[cid] -= 1
            self.cond.notify()
            return item

    def moot(self, msg: dict):
        """Why the request `msg`, about to run, need not (cancelled, or asked again), or None."""
        key, _ = self._marks(msg)
        with self.cond:
            if self.cancels[msg["id"]] > 0:
                return "cancelled by the client"
            if key is not None and self.keys[key] > 0:
                return f"superseded by a newer {key[0]} for the same document"
        return None


@functools.lru_cache(maxsize=None)
def strict_converter():
    """lsprotocol's converter, but a JSON value of the wrong type is refused instead of
    coerced (cattrs would read "3" or 1.5 or true as the line 3, 1 or 1)."""
    from pygls.protocol import default_converter

    conv = default_converter()

    def exact(kinds, wanted):
        def hook(value, _type):
            if isinstance(value, bool) is not (kinds is bool) or not isinstance(value, kinds):
                raise TypeError(f"expected {wanted}, got {_json_kind(value)}")
            return value
        return hook

    conv.register_structure_hook(int, exact(int, "an integer"))
    conv.register_structure_hook(float, exact((int, float), "a number"))
    conv.register_structure_hook(str, exact(str, "a string"))
    conv.register_structure_hook(bool, exact(bool, "true or false"))
    return conv


def params_problem(message: dict, message_type) -> str | None:
    """Why `message` does not convert to its lsprotocol type: the first few fields, by
    their names in the protocol ("position.line: ..."), or None."""
    try:
        strict_converter().structure(message, message_type)
        return None
    except RecursionError:
        return "nested too deeply"
    except Exception as e:   # cattrs reports every field that failed, as a tree of exceptions
        return _describe(e)


_NOT_AN_OBJECT = re.compile(r"not subscriptable|indices must be|is not iterable|argument of type")


def _describe(exc) -> str:
    from cattrs import transform_error
    from cattrs.v import format_exception

    def leaf(e, type_):
        if isinstance(e, KeyError):
            return "missing"
        if isinstance(e, TypeError) and _NOT_AN_OBJECT.search(str(e)):
            return ""                   # reading a field of something that is no object: said of its parent
        if isinstance(e, (TypeError, ValueError)) and str(e):
            return str(e)
        return format_exception(e, type_)

    try:
        lines = transform_error(exc, path="$", format_exception=leaf)
    except Exception:
        return f"{type(exc).__name__}: {exc}"
    out = []
    for line in lines:
        text, _, path = line.rpartition(" @ ")
        path = re.sub(r"_([a-z])", lambda m: m.group(1).upper(), path.removeprefix("$.params").lstrip("."))
        if not text:
            path, text = path.rpartition(".")[0], "expected an object"
        said = f"{path or 'params'}: {text}"
        if said not in out:
            out.append(said)
    more = len(out) - MAX_PROBLEMS
    return "; ".join(out[:MAX_PROBLEMS]) + (f"; and {more} more" if more > 0 else "")


class Connection:
    """One client's session over the wire: each message checked, refused with the right
    error or handed to pygls, and the lifecycle (initialize, shutdown, exit) kept."""

    def __init__(self, ls, writer: FrameWriter, inbox: "Inbox | None" = None):
        self.ls = ls
        self.writer = writer
        self.inbox = inbox
        self.protocol = compat.protocol(ls)
        self.initialized = False
        self.shut_down = False
        self.exit_code = None      # set by `exit` (or the end of the input): the loop stops

    def error(self, rid, code: int, message: str) -> None:
        self.writer.send({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})

    def log(self, text: str) -> None:
        if not self.initialized:    # LSP: nothing is sent to the client before initialize
            return
        try:
            compat.log_message(self.ls, "rules lsp: " + text)
        except Exception:    # logging must never be what stops the server
            pass

    def receive(self, msg) -> None:
        """One decoded message (any JSON value), or a FrameError to answer."""
        if isinstance(msg, FrameError):
            self.error(None, msg.code, msg.message)
            return
        if isinstance(msg, list):
            self.batch(msg)
            return
        rid = msg.get("id") if isinstance(msg, dict) and _valid_id(msg.get("id")) else None
        try:
            self.one(msg, rid)
        except Exception as e:   # a bug of ours: the request still gets an answer
            self.log(f"internal error on a message: {type(e).__name__}: {e}")
            if rid is not None:
                self.error(rid, INTERNAL_ERROR, f"internal error: {type(e).__name__}: {e}")

    def batch(self, items: list) -> None:
        if not items:
            self.error(None, INVALID_REQUEST, "an empty batch; send one JSON-RPC message per Content-Length frame")
            return
        text = ("batches are not part of the Language Server Protocol: send each message on its own; "
                "nothing in this batch was done")
        ids = [m["id"] for m in items if isinstance(m, dict) and "method" in m and _valid_id(m.get("id"))]
        for rid in ids:
            self.error(rid, INVALID_REQUEST, text)
        if not ids:
            self.error(None, INVALID_REQUEST, text)

    def one(self, msg, rid) -> None:
        problem = _envelope_problem(msg)
        if problem:
            self.error(rid, INVALID_REQUEST, problem)
            return
        method = msg.get("method")
        if method is None:
            self.deliver(msg, None, "a response")
            return
        request = "id" in msg
        if method == "exit":
            if request:
                self.writer.send({"jsonrpc": "2.0", "id": rid, "result": None})
            self.exit_code = 0 if self.shut_down else 1
            return
        refusal = self.lifecycle_refusal(method, request)
        if refusal:
            code, text = refusal
            if request:
                self.error(rid, code, text)
            else:
                self.log(f"ignored {method}: {text}")
            return
        if not self.serves(method):
            if request:
                self.error(rid, METHOD_NOT_FOUND, f"method not found: rules lsp does not serve {method!r}")
            return    # an unknown notification is ignored, as LSP says
        message_type = self.protocol.get_message_type(method)
        problem = params_problem(msg, message_type) if message_type is not None else None
        if problem:
            if request:
                self.error(rid, INVALID_PARAMS, f"invalid params for {method}: {problem}")
            else:
                self.log(f"ignored a {method} notification with invalid params: {problem}")
            return
        moot = self.inbox.moot(msg) if request and self.inbox is not None else None
        if moot:
            self.error(rid, REQUEST_CANCELLED, f"{method} not answered: {moot}")
            return
        self.deliver(msg, rid if request else None, method)
        if method == "initialize":
            self.initialized = True
        elif method == "shutdown":
            self.shut_down = True

    def lifecycle_refusal(self, method: str, request: bool):
        """(code, text) refusing `method` at this point of the session, or None."""
        if self.shut_down:
            return INVALID_REQUEST, "the server is shutting down (shutdown was received): only exit is accepted"
        if method in ("initialize", "shutdown") and not request:
            return INVALID_REQUEST, f"{method} is a request: it needs an id"
        if method == "initialize":
            if self.initialized:
                return INVALID_REQUEST, "initialize was received already; it is sent once"
            return None
        if not self.initialized:
            return SERVER_NOT_INITIALIZED, f"{method} before initialize: the server is not initialized yet"
        return None

    def serves(self, method: str) -> bool:
        fm = self.protocol.fm
        return method in fm.features or method in fm.builtin_features or method in _ALWAYS_SERVED

    def deliver(self, msg: dict, rid, what: str) -> None:
        try:
            compat.deliver(self.ls, msg)
        except Exception as e:    # pygls answers its handlers' errors itself; this is anything else
            self.log(f"{what}: {type(e).__name__}: {e}")
            if rid is not None:
                self.error(rid, INTERNAL_ERROR, f"internal error: {type(e).__name__}: {e}")


async def _serve(conn: Connection, messages, inbox: Inbox, ready: asyncio.Event) -> None:
    end = object()

    def pump():
        try:
            for item, size in messages:
                inbox.put(item, size)
        except Exception as e:     # a read error: the input is gone
            sys.stderr.write(f"rules lsp: reading stdin: {type(e).__name__}: {e}\n")
        inbox.put(end)

    threading.Thread(target=pump, name="rules-lsp-stdin", daemon=True).start()
    while conn.exit_code is None and not conn.writer.closed:
        item = inbox.get()
        if item is Inbox.EMPTY:
            ready.clear()
            if not inbox.items:
                await ready.wait()
            continue
        if item is end:
            conn.exit_code = 0 if conn.shut_down else 1    # the client went away without exit
            break
        conn.receive(item)
        await asyncio.sleep(0)     # let the handlers' tasks (debounced checks) run
    if conn.exit_code is None:
        conn.exit_code = 1         # stdout closed under us


def serve(ls, stdin_fd: int = 0, stdout=None) -> int:
    """Serve `ls` over stdin/stdout until `exit` or the end of the input; the exit code."""
    out = stdout or sys.stdout.buffer
    saved, sys.stdout = sys.stdout, sys.stderr     # a stray print must never corrupt the stream
    writer = FrameWriter(out)
    compat.attach_writer(ls, writer)
    loop = compat.event_loop(ls)
    asyncio.set_event_loop(loop)
    ready = asyncio.Event()

    def wake():
        try:
            loop.call_soon_threadsafe(ready.set)
        except RuntimeError:      # the loop has closed: the server has stopped
            pass

    inbox = Inbox(wake)
    conn = Connection(ls, writer, inbox)
    messages = read_messages(FrameReader(functools.partial(os.read, stdin_fd)))
    try:
        loop.run_until_complete(_serve(conn, messages, inbox, ready))
    except KeyboardInterrupt:
        conn.exit_code = 1
    finally:
        pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        ls.shutdown()
        if not loop.is_closed():
            loop.close()
        sys.stdout = saved
    return conn.exit_code if conn.exit_code is not None else 1
