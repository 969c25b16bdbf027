"""The raw records of the exact IR path: what the syntax gives before names and types are resolved.

Stage job: the data passed from the syntax (the lark grammar, ``patterns/ir/exact_lark.py``
and ``patterns/ir/exact_tree.py``, or the line reader ``patterns/ir/reader_lines.py``) to the
resolver (``patterns/ir/reader_exact.py``): ``RawFunc`` per function, ``RawInst`` per
instruction, ``RawVal`` per operand, each with where it was written.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tdgen.errors import Span

from patterns.ir.core import Type
from patterns.ir.spelling import quote_name


@dataclass(slots=True)
class RawVal:
    """An operand before name resolution: kind + payload + where it was written.

    kinds: local, global, int, float, word (true/false/null/...), vector, array,
    struct, pstruct, cstring, cast, gep, binop, splat, md."""

    kind: str
    payload: object
    span: Span | None


@dataclass(slots=True)
class RawInst:
    """One parsed instruction before resolution."""

    opcode: str
    span: Span
    name: str | None = None  # from `%x =` (bare name)
    name_span: Span | None = None
    type: Type | None = None  # result type when the syntax states it
    ops: list = field(default_factory=list)  # [(Type | None, RawVal)]
    words: list = field(default_factory=list)
    tail: list = field(default_factory=list)  # [(kind, payload, span)]
    extra: dict = field(default_factory=dict)


@dataclass(slots=True)
class RawFunc:
    name: str
    span: Span
    header_words: list
    ret_type: Type
    params: list  # [(type, [attrs], name | None, span)]
    vararg: bool
    suffix: list  # attrs / '#N' / ('addrspace', n) ...
    body: list | None  # [('label', name, span) | RawInst]; None for declarations


def raw_text(v: RawVal) -> str:
    """Source-ish text of a raw value (for metadata bodies and error messages)."""
    if v.kind == "local":
        return "%" + quote_name(v.payload)
    if v.kind == "global":
        return "@" + quote_name(v.payload)
    if v.kind in ("int", "float", "word"):
        return v.payload
    if v.kind == "md":
        return v.payload
    return "<" + v.kind + ">"
