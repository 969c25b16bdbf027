"""The two ways an execution stops early: ``Undefined`` (the program has undefined behaviour
on these inputs) and ``NotModeled`` (the interpreter does not model a construct).

``Undefined`` is what the execution stage reports instead of guessing: an out-of-bounds or
uninitialised access, poison reaching a store or a branch, an LDS race between barriers,
a cross-lane read of an inactive lane. It carries the kind, a sentence, and when known the
work-item (work-group, local id), the lane and the IR instruction's text and span; it is
a result (``Result.undefined``), not a bad input. ``NotModeled`` is a ``TdgenError`` (exit
2 in the CLI): ``path:line:col: not modeled: <construct>``.
"""

from __future__ import annotations

from tdgen.errors import Span, TdgenError


class Undefined(Exception):
    """Undefined behaviour found while executing; ``kind`` is one of ``KINDS``."""

    KINDS = ("out-of-bounds", "uninitialised", "poison", "race", "inactive-lane", "division",
             "barrier", "readonly", "assume", "unreachable", "freeze")

    def __init__(self, kind: str, detail: str, *, item: tuple[int, int] | None = None,
                 lane: int | None = None, inst: str | None = None, span: Span | None = None) -> None:
        self.kind = kind
        self.detail = detail
        self.item = item
        self.lane = lane
        self.inst = inst
        self.span = span
        super().__init__(self.text())

    def located(self, *, item=None, lane=None, inst=None, span=None) -> "Undefined":
        """This report with the fields it lacks filled in (the interpreter adds the
        instruction, the memory model the lane)."""
        return Undefined(self.kind, self.detail, item=self.item if self.item is not None else item,
                         lane=self.lane if self.lane is not None else lane,
                         inst=self.inst if self.inst is not None else inst,
                         span=self.span if self.span is not None else span)

    def text(self) -> str:
        where = f"{self.span}: " if self.span is not None else ""
        who = ""
        if self.item is not None:
            who = f" (work-group {self.item[0]}, work-item {self.item[1]}"
            who += f", lane {self.lane})" if self.lane is not None else ")"
        inst = f": {self.inst.strip()}" if self.inst else ""
        return f"{where}undefined behaviour: {self.kind}: {self.detail}{who}{inst}"

    def as_json(self) -> dict:
        return {"kind": self.kind, "detail": self.detail,
                "item": list(self.item) if self.item is not None else None, "lane": self.lane,
                "inst": self.inst.strip() if self.inst else None,
                "span": str(self.span) if self.span is not None else None}


class NotModeled(TdgenError):
    """A construct the execution stage does not model (exit 2): never a wrong answer."""

    def __init__(self, span: Span | None, construct: str) -> None:
        super().__init__(span, f"not modeled: {construct}")
