"""Why a value is divergent: the reason chain of the uniformity analysis.

The analysis stores one compact cause per divergent value (``FunctionUniformity.divergent``:
the operand it came from for a data step, else ``(kind, parent, detail)``; the same per
block in ``divergent_term_blocks``). This module words them:

- ``Step``: one link of a reason chain (a plain frozen record, ``tdgen.hw.FrozenRecord``);
- ``cause``: the step that made one value divergent and the value it came from;
- ``why``: the chain from a source of divergence to the value;
- ``describe_value``: how a value is named in a step (``%x``, ``terminator of block B``,
  or the instruction's text).

Only ``--why``, ``--format json`` and the details of temporal divergence ask for these,
so they are made on demand, never while the worklist runs.
"""

from __future__ import annotations

from typing import Any

from tdgen.hw import FrozenRecord

from patterns.ir.function import Argument, Instruction


class Step(FrozenRecord):
    """One link of a reason chain: ``value`` became divergent because of ``detail``.

    ``kind``: source | data | terminator | sync | temporal | cycle. (A frozen record as
    ``@dataclass(frozen=True)`` makes it, see ``tdgen.hw.FrozenRecord``.)"""

    _FIELDS = __match_args__ = ("kind", "value", "detail")
    kind: str
    value: str
    detail: str

    def __init__(self, kind: str, value: str, detail: str) -> None:
        d = self.__dict__
        d["kind"] = kind
        d["value"] = value
        d["detail"] = detail

    def format(self) -> str:
        return f"{self.kind:<10} {self.value}: {self.detail}"

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "value": self.value, "detail": self.detail}


def _value_name(v: Any) -> Any:
    if isinstance(v, (Instruction, Argument)):
        return v.ref
    return getattr(v, "ref", None) or getattr(v, "text", "?")


def describe_value(v: Any) -> str:
    """``v`` as a reason names it: its reference, a terminator's block, or the text of
    an unnamed instruction."""
    if isinstance(v, Instruction):
        if v.block is not None and v is v.block.terminator:
            return f"terminator of block {v.block.slot}"
        return _value_name(v) if v.name is not None else v.text
    return _value_name(v)


def cause(fu: Any, value: Any) -> tuple[Step, Any] | None:
    """The step that made ``value`` divergent in ``fu`` (a
    ``patterns.uniformity.results.FunctionUniformity``) and the value it came from (None
    for a source), or None when ``value`` is uniform."""
    c: Any
    if isinstance(value, Instruction) and value.is_terminator:
        c = fu.divergent_term_blocks.get(value.block)
    else:
        c = fu.divergent.get(value)
    if c is None:
        return None
    if type(c) is not tuple:  # compact form of ("data", operand, None)
        c = ("data", c, None)
    kind, parent, detail = c
    if detail is None:
        verb = "branches on" if kind == "terminator" else "uses"
        detail = f"{verb} divergent {describe_value(parent)}"
    return Step(kind, describe_value(value), detail), parent


def why(fu: Any, value: Any) -> list[Step]:
    """The reason chain of ``value`` in ``fu``, from its source to the value itself
    (empty when it is uniform)."""
    steps: list[Step] = []
    seen: set[int] = set()
    cur: Any = value
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        c = cause(fu, cur)
        if c is None:
            break
        steps.append(c[0])
        cur = c[1]
    steps.reverse()
    return steps
