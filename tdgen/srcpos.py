"""Source positions of spec declarations.

- ``caller_span()``: where a record constructor was called in a spec file (the first
  stack frame outside the tdgen package), as a ``Span`` with a 1-based column.
- ``value_span(span, field, index, positional)``: the position of one argument of the
  constructor call at ``span`` (keyword ``field=`` or positional ``positional``), found
  by parsing the spec file with ``ast``. For string literals it points at the first
  character of the text, so positions inside a pattern string map onto the file.

Paths are shown relative to the repository root (or the working directory) so error
text is the same on every machine.
"""

from __future__ import annotations

import ast
import os
import sys
from functools import lru_cache
from pathlib import Path

from .errors import Span
from .paths import ROOT

_PKG = str(Path(__file__).resolve().parent) + os.sep
_BUILTIN = Span("<builtin>")


def display_path(path: str | os.PathLike) -> str:
    p = Path(path).resolve()
    for base in (ROOT, Path.cwd()):
        try:
            return p.relative_to(base).as_posix()
        except ValueError:
            continue
    return p.as_posix()


@lru_cache(maxsize=512)
def _display(filename: str) -> str:
    return display_path(filename)


def caller_span() -> Span:
    """The span of the innermost call site outside the tdgen package."""
    frame = sys._getframe(1)
    while frame is not None:
        fn = frame.f_code.co_filename
        if not (fn.startswith("<") or fn.startswith(_PKG) or fn.endswith("dataclasses.py")):
            break
        frame = frame.f_back
    if frame is None:
        return _BUILTIN
    line = frame.f_lineno
    col = 1
    try:  # Python >= 3.11: exact column of the call expression
        positions = list(frame.f_code.co_positions())
        pos = positions[frame.f_lasti // 2]
        if pos[0] is not None and pos[2] is not None:
            line, col = pos[0], pos[2] + 1
    except (AttributeError, IndexError):
        pass
    return Span(_display(frame.f_code.co_filename), line, col)


@lru_cache(maxsize=64)
def _calls(path: str, mtime: float) -> dict[tuple[int, int], ast.Call]:
    try:
        src = Path(path).read_text(encoding="utf-8")
        import warnings

        with warnings.catch_warnings():  # (Python's warnings on the spec's source are not tdgen's report)
            warnings.simplefilter("ignore")
            tree = ast.parse(src)
    except (OSError, SyntaxError, ValueError):
        return {}
    out: dict[tuple[int, int], ast.Call] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            out[(node.lineno, node.col_offset + 1)] = node
            # `Foo(...)` may have been reported at the callee's name position
            f = node.func
            out.setdefault((f.lineno, f.col_offset + 1), node)
    return out


_RESOLVED: dict[str, Path] = {}


def _resolve(path: str) -> Path | None:
    hit = _RESOLVED.get(path)
    if hit is not None:
        return hit
    found = _resolve_uncached(path)
    if found is not None:
        _RESOLVED[path] = found
    return found


def _resolve_uncached(path: str) -> Path | None:
    p = Path(path)
    if not p.is_absolute():
        for base in (ROOT, Path.cwd()):
            if (base / p).exists():
                return base / p
        return None
    return p if p.exists() else None


def _string_start(node: ast.expr, span_path: str) -> tuple[Span, bool]:
    """Span of the first character of a string literal's text (exact=True), or of the
    expression itself (exact=False) when it is not a plain literal."""
    line, col = node.lineno, node.col_offset + 1
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        # skip prefix letters and the opening quote(s)
        src_line = _source_line(span_path, line)
        i = col - 1
        while i < len(src_line) and src_line[i] in "rRbBuUfF":
            i += 1
        q = src_line[i : i + 3]
        width = 3 if q in ('"""', "'''") else 1
        return Span(span_path, line, i + width + 1), True
    return Span(span_path, line, col), False


def _source_line(display: str, line: int) -> str:
    p = _resolve(display)
    if p is None:
        return ""
    try:
        st = p.stat()
        lines = _lines(str(p), st.st_mtime_ns, st.st_size)
    except OSError:
        return ""
    return lines[line - 1] if 0 < line <= len(lines) else ""


@lru_cache(maxsize=64)
def _lines(path: str, mtime_ns: int, size: int) -> tuple[str, ...]:
    """The lines of a spec file (keyed by modification time and size)."""
    return tuple(Path(path).read_text(encoding="utf-8").split("\n"))


def value_span(
    span: Span | None,
    field: str,
    *,
    index: int | None = None,
    positional: int | None = None,
) -> tuple[Span | None, bool]:
    """Locate argument ``field`` of the constructor call declared at ``span``.

    Returns ``(span, exact)``: ``exact`` is True when the span is the first character of
    a string literal's text (so ``Span.offset`` maps positions inside it). Falls back
    to the record's own span when the argument cannot be found."""
    if span is None or span.line <= 0:
        return span, False
    real = _resolve(span.path)
    if real is None:
        return span, False
    calls = _calls(str(real), real.stat().st_mtime)
    call = calls.get((span.line, span.col))
    if call is None:
        return span, False
    node: ast.expr | None = None
    for kw in call.keywords:
        if kw.arg == field:
            node = kw.value
    if node is None and positional is not None and positional < len(call.args):
        node = call.args[positional]
    if node is None:
        return span, False
    if index is not None:
        if isinstance(node, (ast.Tuple, ast.List)) and index < len(node.elts):
            node = node.elts[index]
        elif isinstance(node, ast.Dict) and index < len(node.values):
            node = node.values[index]
        elif index > 0 or not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            return Span(span.path, node.lineno, node.col_offset + 1), False
    return _string_start(node, span.path)


def key_span(span: Span | None, field: str, key: str) -> Span | None:
    """Span of ``key`` inside a dict argument ``field`` (e.g. ``lets={"Size": 4}``)."""
    if span is None or span.line <= 0:
        return span
    real = _resolve(span.path)
    if real is None:
        return span
    call = _calls(str(real), real.stat().st_mtime).get((span.line, span.col))
    if call is None:
        return span
    for kw in call.keywords:
        if kw.arg == field and isinstance(kw.value, ast.Dict):
            for k in kw.value.keys:
                if isinstance(k, ast.Constant) and k.value == key:
                    return Span(span.path, k.lineno, k.col_offset + 1)
            return Span(span.path, kw.value.lineno, kw.value.col_offset + 1)
        if kw.arg == field:
            return Span(span.path, kw.value.lineno, kw.value.col_offset + 1)
    return span
