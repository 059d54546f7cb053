"""LSP's base protocol on a byte stream: message bodies out of whatever arrives, framed
messages in.  Each message is `Content-Length: N`, other headers, a blank line, then N
bytes of UTF-8 JSON; this reads them so that no input, however broken, stops it:

* header names in any case, lines ending in CRLF or a bare LF, blank lines between messages;
* a header without a usable length (none, not a number, two that disagree, more than
  MAX_MESSAGE_BYTES) is a `FrameError`, and reading goes on at the next `Content-Length`
  header, even one in the middle of a line of noise; bytes that are no header are
  skipped and said to be (one `FrameError` per stretch);
* a body that is not UTF-8 JSON is a `FrameError` too (`decode`);
* memory stays bounded: a header line is read in pieces of MAX_HEADER_LINE bytes.

`lsp_transport.py` answers each `FrameError` with a JSON-RPC parse error and handles
the messages.
"""
from __future__ import annotations

import json
import re
import threading
from typing import Callable, NamedTuple

# JSON-RPC's and LSP's error codes
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SERVER_NOT_INITIALIZED = -32002
REQUEST_CANCELLED = -32800

MAX_MESSAGE_BYTES = 64 * 2 ** 20   # a book file is at most 2 MB, a few times that as escaped JSON
MAX_HEADER_LINE = 8192             # a longer "header" line is noise, read in pieces and skipped
READ_CHUNK = 2 ** 16

_HEADER = re.compile(rb"([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*")
_CONTENT_LENGTH = re.compile(rb"content-length:", re.I)


class FrameError(NamedTuple):
    """Input that is no message: answered with an error whose id is null."""
    code: int
    message: str


class FrameReader:
    """The bodies of the messages in a byte stream framed as LSP's base protocol says
    (bytes), and a `FrameError` for each stretch that is not a message, whatever the
    stream holds; memory stays bounded by MAX_MESSAGE_BYTES."""

    def __init__(self, read: Callable[[int], bytes]):
        self._read = read          # read(n): up to n bytes, b"" at the end (os.read)
        self._buf = bytearray()
        self._eof = False

    def _fill(self, want: int = READ_CHUNK) -> bool:
        if self._eof:
            return False
        chunk = self._read(min(max(want, READ_CHUNK), 2 ** 20))
        if not chunk:
            self._eof = True
            return False
        self._buf += chunk
        return True

    def _line(self) -> bytes:
        """The next line with its LF, or the next MAX_HEADER_LINE bytes of a longer one
        (no LF), or what is left before the end (b"" once nothing is)."""
        while True:
            i = self._buf.find(b"\n", 0, MAX_HEADER_LINE)
            if i >= 0:
                n = i + 1
                break
            if len(self._buf) >= MAX_HEADER_LINE or not self._fill():
                n = min(len(self._buf), MAX_HEADER_LINE)
                break
        line = bytes(self._buf[:n])
        del self._buf[:n]
        return line

    def _exactly(self, n: int):
        while len(self._buf) < n:
            if not self._fill(n - len(self._buf)):
                return None
        body = bytes(self._buf[:n])
        del self._buf[:n]
        return body

    def __iter__(self):
        while True:
            lengths, noise, headers = [], 0, False
            while True:
                line = self._line()
                if not line:
                    if headers or noise:
                        yield FrameError(PARSE_ERROR, "the input ended inside a message header")
                    return
                text = line.rstrip(b"\r\n")
                if not line.endswith(b"\n"):
                    noise += len(line)          # a piece of an endless line
                    continue
                if not text:
                    if headers or noise:
                        break
                    continue                    # blank lines between messages
                m = _HEADER.fullmatch(text)
                if m is None:                   # noise; a header may follow it on the same line
                    found = _CONTENT_LENGTH.search(text)
                    m = _HEADER.fullmatch(text, found.start()) if found else None
                    noise += found.start() if m else len(line)
                    if m is None:
                        continue
                headers = True
                if m.group(1).lower() == b"content-length":
                    lengths.append(m.group(2))
            if noise:
                yield FrameError(PARSE_ERROR, f"skipped {noise} bytes that are not a message header "
                                              "(each message is `Content-Length: N`, a blank line, then N bytes of JSON)")
                if not headers:
                    continue
            problem = _length_problem(lengths)
            if problem:
                yield FrameError(PARSE_ERROR, problem + "; reading on at the next Content-Length header")
                continue
            body = self._exactly(int(lengths[0]))
            if body is None:
                yield FrameError(PARSE_ERROR, "the input ended inside a message body")
                return
            yield body


def _length_problem(lengths: list):
    if not lengths:
        return "a message header without Content-Length"
    if len(set(lengths)) > 1:
        return "Content-Length given twice, differently"
    raw = lengths[0]
    if not raw.isdigit():
        shown = raw[:20].decode("ascii", "replace")
        return f"Content-Length must be a number of bytes, not {shown!r}"
    if int(raw) > MAX_MESSAGE_BYTES:
        return (f"a message of {int(raw):,} bytes is more than this server reads "
                f"({MAX_MESSAGE_BYTES // 2 ** 20} MB; a book file is at most 2 MB)")
    return None


class FrameWriter:
    """Where every message goes out (pygls's and ours): written whole, flushed, under a
    lock.  A client that went away (broken pipe) closes it; the loop then stops."""

    def __init__(self, stream):
        self.stream = stream
        self.lock = threading.Lock()
        self.closed = False

    def write(self, data: bytes) -> None:
        if self.closed:
            return
        try:
            with self.lock:
                self.stream.write(data)
                self.stream.flush()
        except (OSError, ValueError):
            self.closed = True

    def send(self, message: dict) -> None:
        body = json.dumps(message).encode("utf-8")
        self.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def close(self) -> None:
        self.closed = True


def _no_constant(name):
    raise ValueError(f"{name} is not JSON")


def decode(body: bytes):
    """A message body as JSON (any JSON value), or a FrameError saying why it is not."""
    try:
        return json.loads(body.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        return FrameError(PARSE_ERROR, f"the message is not UTF-8 JSON ({str(e)[:200]})")


def read_messages(reader):
    """(decoded message or FrameError, its size in bytes) from a FrameReader."""
    for item in reader:
        yield (item, 0) if isinstance(item, FrameError) else (decode(item), len(item))
