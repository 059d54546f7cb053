"""The prose mini-markup, parsed once: text -> a small tree every renderer walks.

The markup (docs/language.md): paragraphs separated by blank lines; lines starting
with `- ` are bullet items (a line that follows an item continues it); `**bold**`,
`*italic*`; `[[rule-id]]`, `[[book-id:rule-id]]`, `[[rule-id|shown text]]`
cross-references.  This module is the one home of that syntax: the parser finds
references for its diagnostics with `REF_RE`/`parse_ref`, and the terminal
(terminal.py), the site (sphinxext/prose.py) and the hover previews
(`plain_text`) all render the `Doc` that `parse_prose` returns.

Inline rules, in order of precedence:

* `[[...]]` up to the first `]]` is one atom: a `Ref` when its body is well formed,
  else literal text (markup inside it is never read as bold or italic).  A ref's
  label is plain text.
* `**...**`: strong, to the first `**` after at least one character; its content is
  parsed again.  An unmatched `**` is literal text.
* `*...*`: emphasis.  The opening `*` is not preceded by a word character or `*` and
  not followed by a space; the closing `*` is not preceded by a space nor followed
  by a word character or `*`.  Inside, a `*` with a space on both sides is a
  literal asterisk (`*2 * d6*` is "2 * d6" in italics); any other `*` ends the
  attempt and the opening `*` is literal text.

Nothing is ever dropped: every character of the source is in a `Text`, a `Ref`'s
`source`, or is a delimiter (`**`, `*`, a bullet's `- `) or whitespace between
lines.  Pure and cheap to import (only `re`): `rules lookup` renders prose.
"""
from __future__ import annotations

import re

# one reference: [[body]]; and its body: [book:]rule[|label]
REF_RE = re.compile(r"\[\[(.*?)\]\]", re.S)
REF_BODY_RE = re.compile(r"^(?:([a-z0-9]+(?:-[a-z0-9]+)*):)?([a-z0-9]+(?:-[a-z0-9]+)*)(?:\|(.+))?$", re.S)
REF_HINT = "write [[rule-id]], [[book-id:rule-id]] or [[rule-id|shown text]]"

_CHUNK = re.compile(r"\n[ \t]*\n")
#: where markup can start: `[[`, `**` or `*`; the text up to the next one is plain
_MARKUP = re.compile(r"[\[*]")


def parse_ref(body: str):
    """`book:rule|label` (the text between `[[` and `]]`) -> (book or None, rule,
    label or None); None when malformed.  The label's spacing is normalised here,
    once, so every renderer shows the same words (`[[x|  two  words ]]`)."""
    m = REF_BODY_RE.match(body.strip())
    if not m:
        return None
    label = " ".join(m.group(3).split()) if m.group(3) is not None else None
    return m.group(1), m.group(2), label or None


# ------------------------------------------------------------------ the tree
class _Node:
    """A tiny frozen record (dataclasses would cost `rules lookup` its import time)."""

    __slots__ = ()

    def __init__(self, *values):
        for name, value in zip(self.__slots__, values, strict=True):
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is read-only")

    def _values(self):
        return tuple(getattr(self, s) for s in self.__slots__)

    def __eq__(self, other):
        return type(other) is type(self) and other._values() == self._values()

    def __hash__(self):
        return hash((type(self).__name__,) + self._values())

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(repr(v) for v in self._values())})"


class Text(_Node):
    """Plain text (never markup, never HTML)."""
    __slots__ = ("text",)


class Strong(_Node):
    """`**...**`; `children` are inline nodes."""
    __slots__ = ("children",)


class Emphasis(_Node):
    """`*...*`; `children` are inline nodes."""
    __slots__ = ("children",)


class Ref(_Node):
    """`[[book:rule|label]]`: `book` None for the same book, `label` None when absent;
    `source` is the reference as written."""
    __slots__ = ("book", "rule", "label", "source")


class Paragraph(_Node):
    """A paragraph, or the body of one bullet item; `children` are inline nodes."""
    __slots__ = ("children",)


class BulletList(_Node):
    """Bullet items (each a `Paragraph`).  `follows_text`: the list comes straight
    after a paragraph, with no blank line between (the terminal prints it right under)."""
    __slots__ = ("items", "follows_text")


class Doc(_Node):
    """A whole prose text: `Paragraph`s and `BulletList`s in order."""
    __slots__ = ("blocks",)


# ------------------------------------------------------------------ parsing
def parse_prose(text: str) -> Doc:
    """A prose text (already dedented) -> its `Doc`.  Never raises."""
    blocks = []
    for chunk in _CHUNK.split(text.strip("\n")):
        if not chunk.strip():
            continue
        lines, items = [], []
        for line in chunk.split("\n"):
            s = line.strip()
            if s.startswith("- ") or s == "-":
                items.append([s[2:]])
            elif items:
                items[-1].append(s)       # a continuation line of the last item
            else:
                lines.append(s)
        if lines:
            blocks.append(Paragraph(parse_inline(" ".join(lines))))
        if items:
            blocks.append(BulletList(tuple(Paragraph(parse_inline(" ".join(it))) for it in items), bool(lines)))
    return Doc(tuple(blocks))


def _word(c: str) -> bool:
    return c.isalnum() or c == "_"


def _ref_end(s: str, i: int) -> int:
    """If `s[i:]` starts a `[[...]]` atom, the index just after it; else -1."""
    if not s.startswith("[[", i):
        return -1
    j = s.find("]]", i + 2)
    return -1 if j < 0 else j + 2


def _strong_close(s: str, i: int):
    """The index of the `**` closing a strong opened just before `i` (content non-empty)."""
    j = i
    while j < len(s):
        end = _ref_end(s, j)
        if end >= 0:
            j = end
            continue
        if j > i and s.startswith("**", j):
            return j
        j += 1
    return None


def _emphasis_close(s: str, i: int):
    """The index of the `*` closing an emphasis whose content starts at `i`."""
    j, n = i, len(s)
    while j < n:
        end = _ref_end(s, j)
        if end >= 0:
            j = end
            continue
        if s[j] == "*":
            after = s[j + 1] if j + 1 < n else ""
            if j > i and not s[j - 1].isspace() and after != "*" and not (after and _word(after)):
                return j
            if not (j > i and s[j - 1].isspace() and after.isspace() and after):
                return None         # a `*` that is neither a closer nor a loose asterisk
        j += 1
    return None


def _emphasis_opens(s: str, i: int) -> bool:
    before = s[i - 1] if i else ""
    after = s[i + 1] if i + 1 < len(s) else ""
    return bool(after) and not after.isspace() and after != "*" and before != "*" and not (before and _word(before))


def parse_inline(s: str) -> tuple:
    """One paragraph's (or item's, or label-free docstring's) inline markup -> nodes."""
    out, buf = [], []
    i, n = 0, len(s)

    def flush():
        if buf:
            out.append(Text("".join(buf)))
            buf.clear()

    while i < n:
        end = _ref_end(s, i)
        if end >= 0:
            parsed = parse_ref(s[i + 2:end - 2])
            if parsed is None:
                buf.append(s[i:end])          # malformed: shown as written
            else:
                flush()
                out.append(Ref(*parsed, s[i:end]))
            i = end
            continue
        if s.startswith("**", i):
            j = _strong_close(s, i + 2)
            if j is None:
                buf.append("**")
                i += 2
                continue
            flush()
            out.append(Strong(parse_inline(s[i + 2:j])))
            i = j + 2
            continue
        if s[i] == "*" and _emphasis_opens(s, i):
            j = _emphasis_close(s, i + 1)
            if j is not None:
                flush()
                out.append(Emphasis(parse_inline(s[i + 1:j])))
                i = j + 1
                continue
        nxt = _MARKUP.search(s, i + 1)      # plain text up to where markup could start
        j = nxt.start() if nxt else n
        buf.append(s[i:j])
        i = j
    flush()
    return tuple(out)


# ------------------------------------------------------------------ plain text
def ref_text(ref: Ref, title_of=None) -> str:
    """What a reference reads as: its label, else the target's title (`title_of(book,
    rule)`, book None for the same book), else the id's words."""
    if ref.label:
        return " ".join(ref.label.split())
    if title_of is not None:
        t = title_of(ref.book, ref.rule)
        if t:
            return t
    return ref.rule.replace("-", " ")


def inline_text(children, title_of=None) -> str:
    """Inline nodes -> their text without markup (refs as `ref_text`)."""
    parts = []
    for c in children:
        if isinstance(c, Text):
            parts.append(c.text)
        elif isinstance(c, Ref):
            parts.append(ref_text(c, title_of))
        else:
            parts.append(inline_text(c.children, title_of))
    return "".join(parts)


def block_text(block, title_of=None) -> str:
    if isinstance(block, Paragraph):
        return inline_text(block.children, title_of)
    return " ".join(inline_text(it.children, title_of) for it in block.items)


def plain_text(doc: Doc, title_of=None, first_only: bool = False) -> str:
    """A doc as one line of plain text (for hover previews); `first_only`: only its
    first paragraph with the list that follows it directly."""
    parts = []
    for k, block in enumerate(doc.blocks):
        if first_only and k and not (k == 1 and isinstance(block, BulletList) and block.follows_text):
            break
        parts.append(block_text(block, title_of))
    return " ".join(" ".join(parts).split())


def to_markup(doc: Doc) -> str:
    """A doc written back as markup, whitespace normalised: it holds every non-space
    character of the text the doc was parsed from (tests check this)."""
    def inl(children):
        out = []
        for c in children:
            if isinstance(c, Text):
                out.append(c.text)
            elif isinstance(c, Ref):
                out.append(c.source)
            elif isinstance(c, Strong):
                out.append("**" + inl(c.children) + "**")
            else:
                out.append("*" + inl(c.children) + "*")
        return "".join(out)
    chunks = []
    for block in doc.blocks:
        if isinstance(block, Paragraph):
            chunks.append(inl(block.children))
        else:
            text = "\n".join("- " + inl(it.children) for it in block.items)
            if block.follows_text and chunks:
                chunks[-1] += "\n" + text
            else:
                chunks.append(text)
    return "\n\n".join(chunks)


# ------------------------------------------------------------------ sentences
DEFINITION_CHARS = 320

#: a sentence ends at . ! or ? followed by a space and a capital, a digit or a quote ...
#: (a pattern's text, compiled by `re`'s cache on first use: `rules lookup` never needs it)
_SENTENCE_END = r"([.!?])\s+(?=[A-Z0-9\"“(])"
#: ... unless the full stop ends an abbreviation ("e.g. A", "vs. Cover", "Fig. 3") or an initial
_ABBREVIATIONS = {"e.g", "i.e", "etc", "vs", "cf", "fig", "no", "approx", "p", "pp"}


def first_sentence(text: str, limit: int = DEFINITION_CHARS, min_words: int = 8) -> str:
    """The first sentence of a plain text (a glossary definition), shortened at a word.
    A sentence of fewer than `min_words` words is a lead-in ("Receiving tokens.", a price
    "D x 6 gc."): the next sentences are added until the text says something."""
    s = text
    for m in re.finditer(_SENTENCE_END, text):
        word = text[:m.start(1)].rsplit(" ", 1)[-1]
        if m.group(1) == "." and (word.lower() in _ABBREVIATIONS or (len(word) == 1 and word.isupper())):
            continue
        if len(text[:m.end(1)].split()) < min_words:
            continue
        s = text[:m.end(1)]
        break
    if len(s) > limit:
        s = s[:limit].rsplit(" ", 1)[0].rstrip(",;:") + " …"
    return s
