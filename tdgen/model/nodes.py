"""SDNode records: type profiles with their SDTC constraints, and the nodes themselves.

``SDTypeProfile(num_results, num_operands, constraints, name=None)`` (``-1`` operands:
variadic; ``name=None`` profiles are emitted inline) with constraint values
``SDTCisVT/SDTCisInt/...`` (each ``.tablegen``); ``SDNode(name, opcode, profile,
properties, builtin=False, sdclass="SDNode")`` whose ``opcode`` is the C++ enum
(``ISD::ADD``, ``MyGPUISD::SHFLIDX_I32``). ``SDNP_PROPERTIES``: the known properties.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from ..errors import SpecError, expected
from ..types import ValueType
from .record import Record, guard_constructors, report_construction_errors

# The most results or operands a profile may declare (LLVM's nodes have a handful).
MAX_PROFILE_COUNT = 255


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

    def __post_init__(self) -> None:
        super().__post_init__()
        # (the type inference makes a type set per result and operand: counts are bounded,
        # and a negative result count is none TableGen reads)
        errs = []
        for fname, low in (("num_results", 0), ("num_operands", -1)):
            v = getattr(self, fname)
            if isinstance(v, int) and not isinstance(v, bool) and not low <= v <= MAX_PROFILE_COUNT:
                what = "a result count" if low == 0 else "an operand count (-1: variadic)"
                errs.append(SpecError(self.field_span(fname)[0],
                                      expected(f"{what} from {low} to {MAX_PROFILE_COUNT}", v),
                                      record=self.name or "SDTypeProfile", field=fname))
        for i, c in enumerate(self.constraints if isinstance(self.constraints, tuple) else ()):
            for f in fields(c) if isinstance(c, SDTypeConstraint) else ():
                v = getattr(c, f.name)
                if f.name == "vt":
                    ok, want = isinstance(v, ValueType), "a value type (tdgen.types)"
                else:
                    ok, want = isinstance(v, int) and not isinstance(v, bool), "an integer operand number"
                if not ok:
                    errs.append(SpecError(self.field_span("constraints", i)[0],
                                          expected(f"{want} as {type(c).__name__}'s {f.name}", repr(v)),
                                          record=self.name or "SDTypeProfile", field="constraints"))
        report_construction_errors(self, errs)

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
