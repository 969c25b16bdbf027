"""SDNode records: type profiles with their SDTC constraints, and the nodes themselves.

``SDTypeProfile(num_results, num_operands, constraints, name=None)`` (``-1`` operands:
variadic; ``name=None`` profiles are emitted inline) with constraint values
``SDTCisVT/SDTCisInt/...`` (each ``.tablegen``); ``SDNode(name, opcode, profile,
properties, builtin=False, sdclass="SDNode")`` whose ``opcode`` is the C++ enum
(``ISD::ADD``, ``MyGPUISD::SHFLIDX_I32``). ``SDNP_PROPERTIES``: the known properties.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from ..types import ValueType
from .record import Record, guard_constructors


@dataclass(frozen=True)
class SDTypeConstraint:
    """Base of SDTC* constraints; ``op`` is the operand number (results first)."""

    op: int

    @property
    def tablegen(self) -> str:
        args = [str(getattr(self, f.name)) for f in fields(self)]
        return f"{type(self).__name__}<{', '.join(args)}>"

    def operands(self) -> tuple[int, ...]:
        return tuple(getattr(self, f.name) for f in fields(self) if f.name in ("op", "other"))


@dataclass(frozen=True)
class SDTCisVT(SDTypeConstraint):
    vt: ValueType


@dataclass(frozen=True)
class SDTCisPtrTy(SDTypeConstraint):
    pass


@dataclass(frozen=True)
class SDTCisInt(SDTypeConstraint):
    pass


@dataclass(frozen=True)
class SDTCisFP(SDTypeConstraint):
    pass


@dataclass(frozen=True)
class SDTCisVec(SDTypeConstraint):
    pass


@dataclass(frozen=True)
class SDTCisSameAs(SDTypeConstraint):
    other: int


@dataclass(frozen=True)
class SDTCisVTSmallerThanOp(SDTypeConstraint):
    other: int


@dataclass(frozen=True)
class SDTCisOpSmallerThanOp(SDTypeConstraint):
    other: int


@dataclass(frozen=True)
class SDTCisEltOfVec(SDTypeConstraint):
    other: int


@dataclass(frozen=True)
class SDTCVecEltisVT(SDTypeConstraint):
    vt: ValueType


@dataclass(frozen=True)
class SDTCisSameNumEltsAs(SDTypeConstraint):
    other: int


@dataclass(frozen=True)
class SDTCisSameSizeAs(SDTypeConstraint):
    other: int


@dataclass(frozen=True)
class SDTypeProfile(Record):
    """``SDTypeProfile<num_results, num_operands, [constraints]>``; -1 = variadic."""

    num_results: int
    num_operands: int
    constraints: tuple[SDTypeConstraint, ...] = ()
    name: str | None = None
    builtin: bool = False

    @property
    def tablegen(self) -> str:
        cs = ", ".join(c.tablegen for c in self.constraints)
        return f"SDTypeProfile<{self.num_results}, {self.num_operands}, [{cs}]>"

    @property
    def variadic(self) -> bool:
        return self.num_operands < 0


SDNP_PROPERTIES = (
    "SDNPCommutative", "SDNPAssociative", "SDNPHasChain", "SDNPOutGlue", "SDNPInGlue",
    "SDNPOptInGlue", "SDNPMayLoad", "SDNPMayStore", "SDNPSideEffect", "SDNPMemOperand",
    "SDNPVariadic",
)


@dataclass(frozen=True)
class SDNode(Record):
    """``def name : SDNode<"opcode", profile, [properties]>``."""

    name: str
    opcode: str
    profile: SDTypeProfile
    properties: tuple[str, ...] = ()
    builtin: bool = False
    sdclass: str = "SDNode"

    @property
    def isd_name(self) -> str:
        return self.opcode.split("::")[-1]

    @property
    def namespace(self) -> str:
        return self.opcode.split("::")[0] if "::" in self.opcode else ""

    @property
    def num_operands(self) -> int:
        return self.profile.num_operands

    @property
    def num_results(self) -> int:
        return self.profile.num_results

    @property
    def is_commutative(self) -> bool:
        return "SDNPCommutative" in self.properties


guard_constructors(SDTypeProfile, SDNode)
