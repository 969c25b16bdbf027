"""The IR reader's lexer: LLVM IR text -> one flat list of token strings, and where each token is.

Stage job: for ``patterns/ir/parser_base.py`` and the parser layers above it, the text
cut into tokens by one compiled regular expression (``re.findall`` over the whole
file: the scanning is done in C). White space and ``;`` comments before a token are
skipped by the expression itself (a ``"`` in a comment is just comment text). A line
break is a token of its own, ``\\n`` followed by the next line's indentation, so the
parser counts lines as it passes them and knows the column of a line's first token
(its length); every other position is found again only when needed, by ``Positions``
(the token's line scanned once more with the same expression), so tokens carry no
positions. The token kinds are told apart by their first character (``%`` local, ``@``
global, ``!`` metadata, ``#`` attribute group, ``$`` comdat, ``"`` string, a digit or a
sign a number, a letter a word; a token ending in ``:`` is a label). A ``"`` without its
closing quote on the same line is a token of its own (``"`` + the rest of the line),
reported by the parser; any other character the expression does not know is a
one-character token the parser reports as it finds it. The list ends with ``EOF``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Final

from tdgen.errors import Span

EOF: Final = "\x04\x04"  # the last token (no character of the text gives two)

# (alternatives in order of frequency; a word or number followed by what would make it
# a label or a longer name fails its alternative, possessively, so the later one matches)
_TOKEN: Final = re.compile(
    r'[ \t\r]*(?:;[^\n]*)?('
    r'[%@$][-a-zA-Z$._0-9]++(?!:)'        # local, global and comdat names, numbered too
    r'|[a-zA-Z_.][a-zA-Z_0-9.]*+(?![-$:"])'  # words (keywords, types, '...')
    r'|[,=()\[\]{}<>*]'                    # punctuation
    r'|\n[ \t]*'                           # a line break and the next line's indentation
    r'|[-+]?[0-9]++(?:\.[0-9]*+(?:[eE][-+]?[0-9]++)?)?(?![-a-zA-Z$._:])'  # decimal integers and floats
    r'|[us]0x[0-9a-fA-F]++(?![-a-zA-Z$._:])|0x[KLMHR]?[0-9a-fA-F]++(?![-a-zA-Z$._:])'  # hexadecimal
    r'|[-a-zA-Z$._0-9]+:'                 # a label (also a metadata field name, 'line:')
    r'|"[^"\n]*":'                        # a quoted label
    r'|[%@$]"[^"\n]*"'                    # quoted names
    r'|![-a-zA-Z$._0-9]+|!"[^"\n]*"|!'    # metadata: !0, !name, !"string", '!' of !{ and !DI...
    r'|#[0-9]+'                           # attribute group
    r'|c"[^"\n]*"'                        # string constant
    r'|"[^"\n]*"?'                        # string (no closing quote: reported by the parser)
    r'|[^ \t\r\n]'                        # anything else: one character
    r')')


def tokenize(text: str) -> list[str]:
    """The tokens of ``text``: a leading line break (line 1 starts like every other line),
    then every token in order, then ``EOF``."""
    toks = _TOKEN.findall("\n" + text)
    toks.append(EOF)
    return toks


def column_of(line: str, k: int) -> int:
    """The column (1-based) of the ``k``-th token of the text line ``line`` (1: its first;
    0: the line break before it, as the lexer reads the line after one)."""
    for m in _TOKEN.finditer("\n" + line):
        if k == 0:
            return m.start(1)
        k -= 1
    return len(line) + 1  # pragma: no cover - tokens always rescan alike


class Positions:
    """Where tokens are: line and column of a token index, for messages and spans.

    Made once per file when the first position is needed (a pass over the tokens for
    the indices of the line breaks), then each lookup is a bisection and one scan of
    the token's line."""

    def __init__(self, path: str, text: str, toks: list[str]) -> None:
        self.path = path
        self.lines = text.split("\n")
        self.breaks = [i for i, t in enumerate(toks) if t[0] == "\n"]
        self.ntoks = len(toks)

    def line_col(self, i: int) -> tuple[int, int]:
        """(line, column) of token ``i`` (1-based; ``EOF`` is just after the last token)."""
        if i >= self.ntoks - 1:  # EOF: after the last token of the text
            j = self.ntoks - 2
            while j >= 0 and j in self._break_set():
                j -= 1
            if j < 0:
                return 1, 1
            line, col = self.line_col(j)
            return line, col + len(self._token_text(j, line))
        line = bisect_right(self.breaks, i)  # the breaks at or before i (the first is line 1's)
        first = self.breaks[line - 1]
        if i == first:  # a line break itself: the end of the previous line
            return max(line - 1, 1), len(self.lines[line - 2]) + 1 if line >= 2 else 1
        k = i - first  # the k-th match of the line scan (the break is the 0th)
        for m in _TOKEN.finditer("\n" + self.lines[line - 1]):
            if k == 0:
                return line, m.start(1)
            k -= 1
        return line, len(self.lines[line - 1]) + 1  # pragma: no cover - tokens always rescan alike

    def _break_set(self) -> set:
        s = getattr(self, "_bs", None)
        if s is None:
            s = self._bs = set(self.breaks)
        return s

    def _token_text(self, i: int, line: int) -> str:
        first = self.breaks[line - 1]
        k = i - first
        for m in _TOKEN.finditer("\n" + self.lines[line - 1]):
            if k == 0:
                return m.group(1)
            k -= 1
        return ""  # pragma: no cover

    def span(self, i: int) -> Span:
        line, col = self.line_col(i)
        return Span(self.path, line, col)
