"""Terminal output for the `rules` command: prose, tables, signatures and values
as the website shows them, wrapped to the terminal and coloured only on a terminal.

* Width: `COLUMNS` when set; else the terminal's width when stdout is one; else 80
  (the policy of `shutil.get_terminal_size`, without importing shutil). Prose is
  wrapped at that width but never wider than `PROSE_MAX` columns, as on the site.
* Colour (ANSI) only when stdout is a terminal, `NO_COLOR` is unset or empty
  (https://no-color.org) and `TERM` is not `dumb`; `--color` / `--no-color`
  override all three.
* Prose is parsed by `rules_dsl.language.prose` (the one home of the markup) and rendered
  here: `[[rule]]`, `[[book:rule]]`, `[[rule|label]]` references are shown by their
  label, else the target's title (a `title_of(book, rule)` callback), else the
  id's words.

Nothing heavy is imported at module level: `rules lookup` loads this module.

Split from terminal.py (issue 32): this module is the terminal itself (width, colour,
`Out`) and prose wrapped to it, all that `rules lookup` draws with; terminal.py renders a
book's parts (results, tables, signatures, a whole rule) with it.
"""
from __future__ import annotations

import os
import sys

PROSE_MAX = 100
MIN_WIDTH = 24

RESET = "\x1b[0m"
STYLES = {"bold": "1", "dim": "2", "italic": "3", "underline": "4", "ref": "36", "heading": "1;4",
          "warn": "33", "name": "1"}


# ------------------------------------------------------------------ environment
def color_wanted(flag=None, stream=None) -> bool:
    """Colour or not: an explicit flag wins; else a terminal without NO_COLOR or TERM=dumb."""
    if flag is not None:
        return bool(flag)
    stream = stream or sys.stdout
    if os.environ.get("NO_COLOR", ""):
        return False
    if os.environ.get("TERM", "") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def terminal_width(stream=None) -> int:
    """COLUMNS if set (and a number), else the terminal's width, else 80."""
    cols = os.environ.get("COLUMNS", "")
    if cols.strip().isdigit() and int(cols) > 0:
        return max(int(cols), MIN_WIDTH)
    stream = stream or sys.stdout
    try:
        if stream.isatty():
            w = os.get_terminal_size(stream.fileno()).columns
            if w > 0:
                return max(w, MIN_WIDTH)
    except (AttributeError, ValueError, OSError):
        pass
    return 80


def unicode_ok(stream=None) -> bool:
    enc = getattr(stream or sys.stdout, "encoding", None) or "ascii"
    try:
        "—│─•…→".encode(enc)
        return True
    except (UnicodeEncodeError, LookupError):
        return False


class Out:
    """How to print: width, colour, and the characters the stream can take."""

    def __init__(self, color=None, width=None, stream=None):
        self.color = color_wanted(color, stream)
        self.width = width or terminal_width(stream)
        uni = unicode_ok(stream)
        self.dash = "—" if uni else "-"
        self.rule = "─" if uni else "-"
        self.bullet = "•" if uni else "-"
        self.arrow = "→" if uni else "->"
        self.ellipsis = "…" if uni else "..."

    @property
    def prose_width(self) -> int:
        return min(self.width, PROSE_MAX)

    def style(self, text: str, *styles) -> str:
        if not self.color or not styles or not text:
            return text
        codes = ";".join(STYLES[s] for s in styles if s)
        return f"\x1b[{codes}m{text}{RESET}" if codes else text


# ------------------------------------------------------------------ inline markup
def inline_segments(children, title_of=None, styles=()) -> list:
    """Inline prose nodes (rules_dsl.language.prose) -> [(text, styles)]."""
    from ..language.prose import Ref, Strong, Text, ref_text as text_of
    out = []
    for c in children:
        if isinstance(c, Text):
            out.append((c.text, styles))
        elif isinstance(c, Ref):
            out.append((text_of(c, title_of), styles + ("ref",)))
        else:
            out.extend(inline_segments(c.children, title_of, styles + ("bold" if isinstance(c, Strong) else "italic",)))
    return out


def inline(text: str, title_of=None, styles=()) -> list:
    """One paragraph's inline markup -> [(text, styles)]."""
    from ..language.prose import parse_inline
    return inline_segments(parse_inline(text), title_of, tuple(styles))


def wrap_segments(segments, width: int, out: Out, indent: str = "", subsequent: str = None,
                  break_long: bool = False) -> list:
    """Greedy word wrap of styled segments: a line is never wider than `width` visible
    columns unless it holds one word that is (a name or a command is kept whole, so it
    can be copied; `break_long` breaks such words instead)."""
    subsequent = indent if subsequent is None else subsequent
    plain = not out.color        # uncoloured, a word is its segments' text (what `style` returns)
    if plain:                    # so the words are those of the segments' text run together
        words = [[(w, ())] for w in "".join(t for t, _ in segments).split()]
        segments = ()
    else:
        words = []
    cur = []                     # a word: [(text, styles)], styles may change inside a word
    for text, styles in segments:
        if not text:
            continue
        if text[0].isspace() and cur:
            words.append(cur)
            cur = []
        for j, chunk in enumerate(text.split()):
            if j > 0 and cur:
                words.append(cur)
                cur = []
            cur.append((chunk, styles))
        if text[-1].isspace() and cur:
            words.append(cur)
            cur = []
    if cur:
        words.append(cur)
    lines, line, length = [], [], 0      # line: the rendered words of the line being filled
    prefix = indent
    for word in words:
        wlen = len(word[0][0]) if len(word) == 1 else sum(len(t) for t, _ in word)
        avail = width - len(prefix)
        if line and length + 1 + wlen > avail:
            lines.append(prefix + " ".join(line))
            line, length, prefix = [], 0, subsequent
            avail = width - len(prefix)
        if break_long and not line and wlen > avail > 0:   # a word longer than a whole line
            flat = [(c, s) for t, s in word for c in t]
            while len(flat) > avail:
                piece, flat = flat[:avail], flat[avail:]
                lines.append(prefix + _render_word(_regroup(piece), out))
                prefix = subsequent
                avail = width - len(prefix)
            word, wlen = _regroup(flat), len(flat)
        line.append(word[0][0] if plain and len(word) == 1 else _render_word(word, out))
        length += wlen + (1 if length else 0)
    if line:
        lines.append(prefix + " ".join(line))
    return lines


def _regroup(chars):
    out = []
    for c, s in chars:
        if out and out[-1][1] == s:
            out[-1] = (out[-1][0] + c, s)
        else:
            out.append((c, s))
    return out


def _render_word(word, out: Out) -> str:
    return "".join(out.style(t, *s) for t, s in word)


def prose_lines(text: str, out: Out, title_of=None, indent: str = "  ", subsequent: str = None,
                compact: bool = False, width: int = None, styles=()) -> list:
    """A prose text -> wrapped lines: paragraphs (separated by a blank line unless
    `compact`; a list right under the paragraph it follows) and hanging bullets.
    `indent` starts the first line, `subsequent` (default: as wide, blank) every other."""
    from ..language.prose import BulletList, parse_prose
    width = width or out.prose_width
    rest = " " * len(indent) if subsequent is None else subsequent
    styles = tuple(styles)
    lines = []
    for block in parse_prose(text).blocks:
        tight = isinstance(block, BulletList) and block.follows_text
        if lines and not compact and not tight:
            lines.append("")
        if not isinstance(block, BulletList):
            first = indent if not lines else rest
            lines.extend(wrap_segments(inline_segments(block.children, title_of, styles), width, out, first, rest))
            continue
        for item in block.items:
            lead = (indent if not lines else rest) + out.bullet + " "
            lines.extend(wrap_segments(inline_segments(item.children, title_of, styles), width, out, lead,
                                       rest + " " * (len(out.bullet) + 1)) or [lead.rstrip()])   # an empty item too
    return lines
