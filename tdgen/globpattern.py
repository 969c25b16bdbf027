"""LLVM 19's ``llvm::GlobPattern`` as the generated C++ uses it: ``create`` without
``MaxSubPatterns`` (so ``{``, ``,`` and ``}`` are literals) and ``match``.

- ``glob_problem(pattern)``: None when ``GlobPattern::create(pattern)`` succeeds, else
  LLVM's reason (``"unmatched '['"``, ``"stray '\\'"``, ``"invalid range"``).
- ``compile_glob(pattern)``: a ``match(name) -> bool`` answering as ``GlobPattern::match``
  does (``?`` one byte, ``*`` any bytes, ``[...]`` one byte of a set with ``a-z`` ranges
  and ``^``/``!`` negation, ``]`` allowed first in a set, ``\\`` escaping the next
  character). Names are matched as UTF-8 bytes, as LLVM matches a ``StringRef``.

tests/test_spec_holes.py compares both with the real ``GlobPattern`` through a compiled
probe against libLLVM-19.
"""

from __future__ import annotations

from typing import Callable

__all__ = ["GlobError", "compile_glob", "glob_problem"]

_META = b"?*[{\\"


class GlobError(ValueError):
    """``GlobPattern::create`` rejects the pattern; the message is LLVM's reason."""


def _expand(chars: bytes) -> set[int]:
    """The bytes of a bracket's body (``a-cx`` -> {a, b, c, x}); LLVM's ``expand``."""
    out: set[int] = set()
    s = chars
    while len(s) >= 3:
        start, end = s[0], s[2]
        if s[1] != ord("-"):
            out.add(start)
            s = s[1:]
            continue
        if start > end:
            raise GlobError("invalid glob pattern (a range whose start is above its end)")
        out.update(range(start, end + 1))
        s = s[3:]
    out.update(s)
    return out


def _sub_glob(s: bytes) -> list[tuple[int, frozenset[int]]]:
    """The brackets of one sub-pattern: (offset after the bracket, byte set)."""
    brackets: list[tuple[int, frozenset[int]]] = []
    i, e = 0, len(s)
    while i < e:
        c = s[i]
        if c == ord("["):
            # ']' may be the first character of a set ('[]]'); '[]' alone is unmatched
            i += 1
            j = s.find(b"]", i + 1)
            if j < 0:
                raise GlobError("invalid glob pattern, unmatched '['")
            chars = s[i:j]
            invert = s[i] in (ord("^"), ord("!"))
            bv = _expand(chars[1:] if invert else chars)
            if invert:
                bv = set(range(256)) - bv
            brackets.append((j + 1, frozenset(bv)))
            i = j
        elif c == ord("\\"):
            i += 1
            if i == e:
                raise GlobError("invalid glob pattern, stray '\\'")
        i += 1
    return brackets


def _parse(pattern: str) -> tuple[bytes, bytes | None, list[tuple[int, frozenset[int]]]]:
    s = pattern.encode("utf-8", "surrogateescape")
    cut = min((k for k in (s.find(bytes([m])) for m in _META) if k >= 0), default=-1)
    if cut < 0:
        return s, None, []
    rest = s[cut:]
    return s[:cut], rest, _sub_glob(rest)


def glob_problem(pattern: str) -> str | None:
    """None when LLVM 19's ``GlobPattern::create(pattern)`` accepts it, else why not."""
    try:
        _parse(pattern)
    except GlobError as e:
        return str(e)
    return None


def compile_glob(pattern: str) -> Callable[[str], bool]:
    """``GlobPattern::create(pattern)`` then its ``match``; raises GlobError when
    create fails."""
    prefix, pat, brackets = _parse(pattern)
    if pat is None:
        return lambda name: name.encode("utf-8", "surrogateescape") == prefix

    def match(name: str) -> bool:
        s = name.encode("utf-8", "surrogateescape")
        if not s.startswith(prefix):
            return False
        return _match_sub(pat, brackets, s[len(prefix):])

    return match


def _match_sub(pat: bytes, brackets: list[tuple[int, frozenset[int]]], s: bytes) -> bool:
    """``SubGlobPattern::match``: segments between '*' matched left to right, a mismatch
    after a '*' retried one byte further."""
    p = 0
    si = 0
    seg: int | None = None
    saved_s = 0
    b = saved_b = 0
    pend, end = len(pat), len(s)
    while si != end:
        if p != pend:
            c = pat[p]
            if c == 0x2A:  # '*'
                p += 1
                seg, saved_s, saved_b = p, si, b
                continue
            if c == 0x5B:  # '['
                nxt, chars = brackets[b]
                if s[si] in chars:
                    p = nxt
                    b += 1
                    si += 1
                    continue
            elif c == 0x5C:  # '\\'
                if pat[p + 1] == s[si]:
                    p += 2
                    si += 1
                    continue
            elif c == s[si] or c == 0x3F:  # literal or '?'
                p += 1
                si += 1
                continue
        if seg is None:
            return False
        p = seg
        saved_s += 1
        si = saved_s
        b = saved_b
    return all(ch == 0x2A for ch in pat[p:])
