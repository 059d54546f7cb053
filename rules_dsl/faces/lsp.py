"""`rules lsp`: a Language Server Protocol server for `.rules` files, over stdio.

Built on pygls; every answer comes from `workspace.Workspace` (its features in
`ws_*.py`, names through the book's `symbol_index`), which runs the ordinary
pipeline (parser, checks, compiler, worked examples) on the open documents' texts.  Served: diagnostics as you type (every file of the edited
book; findings of the book's checks too, with the severity `rules check` gives
them, until an edit fixes them), quick fixes (a did-you-mean name, a missing table
row, a missing brace), hover, go to definition, find references, completion,
document symbols and folding ranges.

Only `rules lsp` imports this module (and pygls with it): the other commands
start as fast as before.  A handler that meets a bug of ours logs it and answers
nothing; the server itself never stops on a document, however broken.  The wire
(framing, malformed messages, the lifecycle, exit codes) is `lsp_transport.py`;
what differs between pygls 1.3 and 2 is `lsp_compat.py`.
"""
from __future__ import annotations

import asyncio
import functools
import hashlib
import os
import re
import sys
import traceback

from lsprotocol import types as t
from pygls.uris import from_fs_path, to_fs_path

from .lsp_compat import LanguageServer, log_message, publish_diagnostics
from .workspace import Workspace

SEVERITY = {"error": t.DiagnosticSeverity.Error, "warning": t.DiagnosticSeverity.Warning,
            "information": t.DiagnosticSeverity.Information}
SYMBOL_KIND = {"section": t.SymbolKind.Namespace, "rule": t.SymbolKind.Class, "mechanic": t.SymbolKind.Function,
               "table": t.SymbolKind.Struct, "enum": t.SymbolKind.Enum, "const": t.SymbolKind.Constant,
               "check": t.SymbolKind.Event, "priced": t.SymbolKind.Operator}
COMPLETION_KIND = {"rule": t.CompletionItemKind.Reference, "section": t.CompletionItemKind.Module,
                   "book": t.CompletionItemKind.Folder, "mechanic": t.CompletionItemKind.Function,
                   "table": t.CompletionItemKind.Struct, "enum": t.CompletionItemKind.Enum,
                   "member": t.CompletionItemKind.EnumMember, "const": t.CompletionItemKind.Constant,
                   "die": t.CompletionItemKind.Value, "builtin": t.CompletionItemKind.Function,
                   "keyword": t.CompletionItemKind.Keyword, "local": t.CompletionItemKind.Variable}
DEBOUNCE_SECONDS = 0.3    # typing: check once the keys stop, not on every one
_TOKEN_END = re.compile(r"[A-Za-z0-9_\-.]*")


class RulesLanguageServer(LanguageServer):
    def __init__(self, books=None, cache=None):
        super().__init__("rules-dsl", "0.1.0")
        self.books = Workspace(books, cache)
        self.pending: dict = {}    # uri -> version waiting to be checked

    def report_server_error(self, error, source):
        """pygls's hook for an error outside a request's answer (a notification that failed,
        say an edit to a document never opened): logged, not shown to the user as a pop-up."""
        log_message(self, f"rules lsp: {type(error).__name__}: {error}", t.MessageType.Error)


def _safe(fn):
    """Answer None (and log the traceback) instead of letting a bug of ours escape."""
    @functools.wraps(fn)
    def wrapper(ls, params):
        try:
            return fn(ls, params)
        except Exception:
            log_message(ls, "rules lsp: " + traceback.format_exc(), t.MessageType.Error)
            return None
    return wrapper


# Documents that are not files (an editor's `untitled:` buffer) get a path that exists
# nowhere, under which the workspace treats them as a book of their own.
UNSAVED_DIR = os.path.join(os.sep, "rules-lsp-unsaved-buffers")
_UNSAVED: dict = {}    # such a path -> its URI


def _path(uri: str) -> str:
    if uri.startswith("file:"):
        return to_fs_path(uri) or uri
    path = os.path.join(UNSAVED_DIR, hashlib.sha1(uri.encode("utf-8")).hexdigest()[:16] + ".rules")
    _UNSAVED[path] = uri
    return path


def _uri(path: str) -> str:
    return _UNSAVED.get(path) or from_fs_path(path)


def _lines(ls, path: str) -> list:
    return ls.books.text_of(path).splitlines(True)


def _place(ls, params):
    """(path, line, column) of a request's position: 1-based, the column in characters
    (the client counts UTF-16 units, as LSP says, unless it asked for another encoding)."""
    path = _path(params.text_document.uri)
    pos = ls.workspace.position_codec.position_from_client_units(_lines(ls, path), params.position)
    return path, pos.line + 1, pos.character + 1


def _range(loc, ls=None) -> t.Range:
    rng = t.Range(t.Position(max(loc.line - 1, 0), max(loc.column - 1, 0)),
                  t.Position(max(loc.end_line - 1, 0), max(loc.end_column - 1, 0)))
    return ls.workspace.position_codec.range_to_client_units(_lines(ls, loc.path), rng) if ls is not None else rng


def _location(ls, loc) -> t.Location:
    return t.Location(_uri(loc.path), _range(loc, ls))


def _diag_range(d, text: str) -> t.Range:
    lines = text.split("\n")
    line = max(d.line - 1, 0)
    col = max(d.column - 1, 0)
    src = lines[line] if line < len(lines) else ""
    m = _TOKEN_END.match(src, col)
    end = m.end() if m and m.end() > col else min(col + 1, max(len(src), col + 1))
    return t.Range(t.Position(line, col), t.Position(line, end))


def to_lsp_diagnostic(d, text: str, codec=None) -> t.Diagnostic:
    message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
    related = [t.DiagnosticRelatedInformation(
        t.Location(_uri(r.file), t.Range(t.Position(max(r.line - 1, 0), max(r.column - 1, 0)),
                                                t.Position(max(r.line - 1, 0), max(r.column, 0)))), r.message)
        for r in d.related if r.file and not r.file.startswith("<")]
    rng = _diag_range(d, text)
    if codec is not None:
        rng = codec.range_to_client_units(text.splitlines(True), rng)
    return t.Diagnostic(rng, message, severity=SEVERITY.get(d.severity, t.DiagnosticSeverity.Error),
                        source="rules", related_information=related or None)


def publish(ls: RulesLanguageServer, uri: str, findings: bool = False):
    state = ls.books.analyse(_path(uri), run_examples=True, findings=findings)
    open_docs = ls.workspace.text_documents
    for path in sorted(state.diagnostics):
        text = state.texts.get(path) or ls.books.text_of(path)
        file_uri = _uri(path)
        doc = open_docs.get(file_uri)      # the version checked, for an open document
        publish_diagnostics(ls, file_uri, [to_lsp_diagnostic(d, text, ls.workspace.position_codec)
                                           for d in state.diagnostics[path]],
                            version=doc.version if doc is not None else None)


def _publish_safely(ls, uri, findings=False):
    try:
        publish(ls, uri, findings)
    except Exception:
        log_message(ls, "rules lsp: " + traceback.format_exc(), t.MessageType.Error)


def create_server(books=None, cache=None) -> RulesLanguageServer:
    ls = RulesLanguageServer(books, cache)

    @ls.feature(t.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: RulesLanguageServer, params: t.DidOpenTextDocumentParams):
        ls.books.open(_path(params.text_document.uri), params.text_document.text)
        _publish_safely(ls, params.text_document.uri, findings=True)

    @ls.feature(t.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: RulesLanguageServer, params: t.DidChangeTextDocumentParams):
        uri = params.text_document.uri
        if uri not in ls.workspace.text_documents:
            return    # an edit to a document never opened: nothing to apply it to
        doc = ls.workspace.get_text_document(uri)   # pygls has applied the change
        ls.books.change(_path(uri), doc.source)
        ls.pending[uri] = params.text_document.version
        await asyncio.sleep(DEBOUNCE_SECONDS)
        if ls.pending.get(uri) != params.text_document.version:
            return    # a newer change is waiting: it checks the newer text
        ls.pending.pop(uri, None)
        _publish_safely(ls, uri, findings=True)     # findings stay until the edit that fixes them

    @ls.feature(t.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: RulesLanguageServer, params: t.DidSaveTextDocumentParams):
        _publish_safely(ls, params.text_document.uri, findings=True)

    @ls.feature(t.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: RulesLanguageServer, params: t.DidCloseTextDocumentParams):
        uri = params.text_document.uri
        ls.books.close(_path(uri))
        ls.pending.pop(uri, None)
        if os.path.isfile(_path(uri)):
            _publish_safely(ls, uri)    # the file on disk again, for this file and the rest of its book
        else:                           # a new file closed without saving: it is no longer part of the book
            publish_diagnostics(ls, uri, [])
            for other in list(ls.books.overlays):
                if os.path.dirname(other) == os.path.dirname(_path(uri)):
                    _publish_safely(ls, _uri(other))
                    break

    @ls.feature(t.TEXT_DOCUMENT_CODE_ACTION, t.CodeActionOptions(code_action_kinds=[t.CodeActionKind.QuickFix]))
    @_safe
    def code_action(ls: RulesLanguageServer, params: t.CodeActionParams):
        path = _path(params.text_document.uri)
        actions = []
        for title, d, edits in ls.books.code_actions(path, params.range.start.line + 1, params.range.end.line + 1):
            text = ls.books.text_of(path)
            changes = {}
            for loc, new_text in edits:
                changes.setdefault(_uri(loc.path), []).append(t.TextEdit(_range(loc, ls), new_text))
            actions.append(t.CodeAction(title, kind=t.CodeActionKind.QuickFix,
                                        diagnostics=[to_lsp_diagnostic(d, text, ls.workspace.position_codec)],
                                        edit=t.WorkspaceEdit(changes=changes), is_preferred=len(d.fixes) == 1))
        return actions or None

    @ls.feature(t.TEXT_DOCUMENT_HOVER)
    @_safe
    def hover(ls: RulesLanguageServer, params: t.HoverParams):
        text = ls.books.hover(*_place(ls, params))
        if not text:
            return None
        return t.Hover(t.MarkupContent(t.MarkupKind.Markdown, text))

    @ls.feature(t.TEXT_DOCUMENT_DEFINITION)
    @_safe
    def definition(ls: RulesLanguageServer, params: t.DefinitionParams):
        locs = ls.books.definition(*_place(ls, params))
        return [_location(ls, x) for x in locs] or None

    @ls.feature(t.TEXT_DOCUMENT_REFERENCES)
    @_safe
    def references(ls: RulesLanguageServer, params: t.ReferenceParams):
        locs = ls.books.references(*_place(ls, params), params.context.include_declaration if params.context else True)
        return [_location(ls, x) for x in locs] or None

    @ls.feature(t.TEXT_DOCUMENT_COMPLETION, t.CompletionOptions(trigger_characters=["[", ":"]))
    @_safe
    def completion(ls: RulesLanguageServer, params: t.CompletionParams):
        items = ls.books.complete(*_place(ls, params))
        return t.CompletionList(False, [t.CompletionItem(c.label, kind=COMPLETION_KIND.get(c.kind),
                                                         detail=c.detail or None) for c in items])

    @ls.feature(t.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @_safe
    def document_symbol(ls: RulesLanguageServer, params: t.DocumentSymbolParams):
        def convert(s):
            return t.DocumentSymbol(s.name, SYMBOL_KIND.get(s.kind, t.SymbolKind.Object), _range(s.range, ls),
                                    _range(s.selection, ls), detail=s.detail or None,
                                    children=[convert(c) for c in s.children])
        return [convert(s) for s in ls.books.symbols(_path(params.text_document.uri))]

    @ls.feature(t.TEXT_DOCUMENT_FOLDING_RANGE)
    @_safe
    def folding_range(ls: RulesLanguageServer, params: t.FoldingRangeParams):
        return [t.FoldingRange(a - 1, b - 1, kind=t.FoldingRangeKind.Region)
                for a, b in ls.books.folding(_path(params.text_document.uri))]

    return ls


def main(argv=None) -> int:
    """Serve over stdin/stdout until the client says exit: 0 after shutdown, else 1."""
    from .lsp_transport import serve

    return serve(create_server())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
