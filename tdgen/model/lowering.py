"""What the target's hand-written C++ does: intrinsic lowerings, IR rewrites, custom selection.

``Lowering(intrinsic, node, operands)`` (a LowerINTRINSIC_WO_CHAIN case),
``Rewrite(foreign, target, operands)`` with ``Const(value, type)`` operands (an IR
rewrite of another target's intrinsic calls), ``CustomSelect(name, opcodes, emits,
model, vt, doc)`` (a case of the C++ ``Select`` switch tried before the matcher table).
"""

from __future__ import annotations

from dataclasses import dataclass

from .intrinsics import Intrinsic, enum_name_of
from .nodes import SDNode
from .record import Record, guard_constructors


@dataclass(frozen=True)
class Lowering(Record):
    """Lower ``intrinsic`` to target node ``node`` in LowerINTRINSIC_WO_CHAIN.

    ``operands[i]`` is the intrinsic param index feeding node operand ``i``
    (default: params in order)."""

    intrinsic: Intrinsic
    node: SDNode
    operands: tuple[int, ...] | None = None

    @property
    def name(self) -> str:
        """How messages name this record: ``Lowering<int_x, node>``."""
        intr = getattr(self.intrinsic, "name", self.intrinsic)
        node = getattr(self.node, "name", self.node)
        return f"Lowering<{intr}, {node}>"

    @property
    def operand_map(self) -> tuple[int, ...]:
        if self.operands is not None:
            return self.operands
        return tuple(range(len(self.intrinsic.params)))


@dataclass(frozen=True)
class CustomSelect(Record):
    """A target's custom selection step: a case of the C++ ``Select(SDNode *N)`` switch
    that runs *before* the generated matcher table for the nodes it names (LLVM's
    ``AMDGPUDAGToDAGISel::Select`` -> ``SelectS_BFE`` for and/srl/sra/sext_inreg).

    ``name`` is the C++ function it stands for (``SelectS_BFE``); ``opcodes`` the SDNode
    names (TableGen names: ``and``, ``srl``, ``AMDGPUbfe_u32``) whose nodes go to it;
    ``vt`` the result type the switch case requires (``N->getValueType(0)``; other types
    go straight to the table); ``emits`` every instruction the step may produce;
    ``model`` Python source defining ``select(N, cur)``, the executable model of the C++
    code: it returns ``cur.machine_node(OPCODE, operand, ...)`` (operands are DAG nodes
    or ``cur.target_constant(int)``) to replace ``N``, or None / ``cur.decline(why)``
    to fall through to the table (``SelectCode(N)``). ``doc`` says what it does.
    Source text rather than a Python function so the checked target can be cached."""

    name: str
    opcodes: tuple[str, ...]
    emits: tuple[str, ...]
    model: str
    vt: str = "i32"
    doc: str = ""


@dataclass(frozen=True)
class Const:
    """A constant operand in a rewrite: ``value`` of IR type ``type`` (``i32``)."""

    value: int
    type: str = "i32"


@dataclass(frozen=True)
class Rewrite(Record):
    """Rewrite calls to foreign intrinsic ``foreign`` (IR name) into calls to ``target``.

    ``operands[i]`` gives target param ``i``: a foreign argument index or a ``Const``.
    ``foreign_params`` is the number of foreign arguments (optional; the checker knows
    it from ``tdgen.builtins.FOREIGN_INTRINSICS`` and rejects a wrong one)."""

    foreign: str
    target: Intrinsic
    operands: tuple[int | Const, ...]
    foreign_params: int | None = None

    @property
    def foreign_enum(self) -> str:
        return enum_name_of(self.foreign)

    @property
    def foreign_prefix(self) -> str:
        return self.foreign.split(".")[1]


guard_constructors(Lowering, CustomSelect, Rewrite)
