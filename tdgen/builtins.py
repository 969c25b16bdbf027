"""TableGen's standard SelectionDAG vocabulary, as tdgen records marked ``builtin``.

Facts follow ``llvm/Target/TargetSelectionDAG.td`` and ``llvm/Target/Target.td`` of
LLVM 19 (profiles, opcodes, SDNP properties, the ``not``/``ineg`` fragments, the
``iNimm`` operands). Targets reference these by name in patterns; emitters do not
re-emit them (the generated .td includes LLVM's own definitions).

- ``BUILTIN_PROFILES``: name -> SDTypeProfile (SDTIntBinOp, SDTIntShiftOp, ...)
- ``BUILTIN_NODES``: name -> SDNode (add, sub, ..., imm, timm, intrinsic_wo_chain ...)
- ``BUILTIN_FRAGS``: name -> PatFrag (not, vnot, ineg, load, store ...)
- ``BUILTIN_OPERANDS``: name -> OperandKind (i1imm ... f64imm)
- ``BUILTIN_LEAVES``: name -> value type name of non-node records usable as DAG leaves
  (``srcvalue``, condition codes ``SETEQ`` ..., ``immAllOnesV``), or None when untyped.
- ``GENERIC_INSTRUCTIONS``: name -> ``GenericInstruction``: Target.td's target-independent
  instructions a Pat result may use and the selector executes (``REG_SEQUENCE``,
  ``EXTRACT_SUBREG``, ``COPY_TO_REGCLASS``, ``IMPLICIT_DEF``; not yet INSERT_SUBREG /
  SUBREG_TO_REG), with the role of each operand (value, sub-register index, register
  class).
- ``SPECIAL_OPERATORS``: DAG operators that are not nodes (``set``, ``ops``, ``outs``,
  ``ins``, ``node``, ``null_frag``).
- ``FOREIGN_INTRINSICS``: IR name -> ``ForeignIntrinsic``: the other targets'
  intrinsics LLVM 19 has that a ``Rewrite`` may name (NVVM warp shuffles, votes,
  special registers), with their signatures. ``check`` rejects a rewrite of anything
  else, since the generated rewrite pass names ``Intrinsic::<enum>`` and would not
  compile against LLVM 19. tests/test_check_oracles.py compares every entry with
  llvm-tblgen-19's records of llvm/IR/Intrinsics.td; no LLVM is needed at run time.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import Span
from .model.fragments import PatFrag
from .model.nodes import (
    SDNode,
    SDTCisEltOfVec,
    SDTCisFP,
    SDTCisInt,
    SDTCisOpSmallerThanOp,
    SDTCisPtrTy,
    SDTCisSameAs,
    SDTCisSameNumEltsAs,
    SDTCisVT,
    SDTCisVTSmallerThanOp,
    SDTypeProfile,
)
from .model.registers import OperandKind
from .types import (
    IntrinsicType,
    OtherVT,
    VALUE_TYPES,
    llvm_float_ty,
    llvm_i1_ty,
    llvm_i32_ty,
)

_B = Span("<builtin>")


def _p(name: str, nres: int, nops: int, *cs) -> SDTypeProfile:
    return SDTypeProfile(nres, nops, tuple(cs), name=name, builtin=True, span=_B)


BUILTIN_PROFILES: dict[str, SDTypeProfile] = {
    p.name: p  # type: ignore[misc]
    for p in (
        _p("SDTIntLeaf", 1, 0, SDTCisInt(0)),
        _p("SDTFPLeaf", 1, 0, SDTCisFP(0)),
        _p("SDTPtrLeaf", 1, 0, SDTCisPtrTy(0)),
        _p("SDTOther", 1, 0, SDTCisVT(0, OtherVT)),
        _p("SDTUNDEF", 1, 0),
        _p("SDTVecBuild", 1, -1),
        _p("SDTVecExtract", 1, 2, SDTCisEltOfVec(0, 1), SDTCisPtrTy(2)),
        _p("SDTUnaryOp", 1, 1),
        _p("SDTIntBinOp", 1, 2, SDTCisSameAs(0, 1), SDTCisSameAs(0, 2), SDTCisInt(0)),
        _p("SDTIntShiftOp", 1, 2, SDTCisSameAs(0, 1), SDTCisInt(0), SDTCisInt(2)),
        _p("SDTIntShiftDOp", 1, 3, SDTCisSameAs(0, 1), SDTCisSameAs(0, 2), SDTCisInt(0), SDTCisInt(3)),
        _p("SDTIntBinHiLoOp", 2, 2, SDTCisSameAs(0, 1), SDTCisSameAs(0, 2), SDTCisSameAs(0, 3), SDTCisInt(0)),
        _p("SDTFPBinOp", 1, 2, SDTCisSameAs(0, 1), SDTCisSameAs(0, 2), SDTCisFP(0)),
        _p("SDTFPUnaryOp", 1, 1, SDTCisSameAs(0, 1), SDTCisFP(0)),
        _p("SDTFPTernaryOp", 1, 3, SDTCisSameAs(0, 1), SDTCisSameAs(0, 2), SDTCisSameAs(0, 3), SDTCisFP(0)),
        _p("SDTIntUnaryOp", 1, 1, SDTCisSameAs(0, 1), SDTCisInt(0)),
        _p("SDTIntBitCountUnaryOp", 1, 1, SDTCisInt(0), SDTCisInt(1)),
        _p("SDTIntExtendOp", 1, 1, SDTCisInt(0), SDTCisInt(1), SDTCisOpSmallerThanOp(1, 0), SDTCisSameNumEltsAs(0, 1)),
        _p("SDTIntTruncOp", 1, 1, SDTCisInt(0), SDTCisInt(1), SDTCisOpSmallerThanOp(0, 1), SDTCisSameNumEltsAs(0, 1)),
        _p("SDTExtInreg", 1, 2, SDTCisSameAs(0, 1), SDTCisInt(0), SDTCisVT(2, OtherVT), SDTCisVTSmallerThanOp(2, 1)),
        _p("SDTSetCC", 1, 3, SDTCisInt(0), SDTCisSameAs(1, 2), SDTCisVT(3, OtherVT)),
        _p("SDTSelect", 1, 3, SDTCisInt(1), SDTCisSameAs(0, 2), SDTCisSameAs(2, 3)),
        _p("SDTLoad", 1, 1, SDTCisPtrTy(1)),
        _p("SDTStore", 0, 2, SDTCisPtrTy(1)),
        _p("SDTIntrinsicWoChain", 1, -1, SDTCisPtrTy(1)),
        _p("SDTIntrinsicWChain", 1, -1, SDTCisPtrTy(1)),
        _p("SDTIntrinsicVoid", 0, -1, SDTCisPtrTy(0)),
    )
}

_P = BUILTIN_PROFILES
_COMM = ("SDNPCommutative", "SDNPAssociative")


def _n(name: str, opcode: str, profile: str, props: tuple[str, ...] = (), sdclass: str = "SDNode") -> SDNode:
    return SDNode(name, opcode, _P[profile], props, builtin=True, sdclass=sdclass, span=_B)


BUILTIN_NODES: dict[str, SDNode] = {
    n.name: n
    for n in (
        _n("imm", "ISD::Constant", "SDTIntLeaf", sdclass="ConstantSDNode"),
        _n("timm", "ISD::TargetConstant", "SDTIntLeaf", sdclass="ConstantSDNode"),
        _n("fpimm", "ISD::ConstantFP", "SDTFPLeaf", sdclass="ConstantFPSDNode"),
        _n("vt", "ISD::VALUETYPE", "SDTOther", sdclass="VTSDNode"),
        _n("bb", "ISD::BasicBlock", "SDTOther", sdclass="BasicBlockSDNode"),
        _n("cond", "ISD::CONDCODE", "SDTOther", sdclass="CondCodeSDNode"),
        _n("undef", "ISD::UNDEF", "SDTUNDEF"),
        _n("add", "ISD::ADD", "SDTIntBinOp", _COMM),
        _n("sub", "ISD::SUB", "SDTIntBinOp"),
        _n("mul", "ISD::MUL", "SDTIntBinOp", _COMM),
        _n("mulhs", "ISD::MULHS", "SDTIntBinOp", ("SDNPCommutative",)),
        _n("mulhu", "ISD::MULHU", "SDTIntBinOp", ("SDNPCommutative",)),
        _n("sdiv", "ISD::SDIV", "SDTIntBinOp"),
        _n("udiv", "ISD::UDIV", "SDTIntBinOp"),
        _n("srem", "ISD::SREM", "SDTIntBinOp"),
        _n("urem", "ISD::UREM", "SDTIntBinOp"),
        _n("srl", "ISD::SRL", "SDTIntShiftOp"),
        _n("sra", "ISD::SRA", "SDTIntShiftOp"),
        _n("shl", "ISD::SHL", "SDTIntShiftOp"),
        _n("rotl", "ISD::ROTL", "SDTIntShiftOp"),
        _n("rotr", "ISD::ROTR", "SDTIntShiftOp"),
        _n("fshl", "ISD::FSHL", "SDTIntShiftDOp"),
        _n("fshr", "ISD::FSHR", "SDTIntShiftDOp"),
        _n("and", "ISD::AND", "SDTIntBinOp", _COMM),
        _n("or", "ISD::OR", "SDTIntBinOp", _COMM),
        _n("xor", "ISD::XOR", "SDTIntBinOp", _COMM),
        _n("smin", "ISD::SMIN", "SDTIntBinOp", _COMM),
        _n("smax", "ISD::SMAX", "SDTIntBinOp", _COMM),
        _n("umin", "ISD::UMIN", "SDTIntBinOp", _COMM),
        _n("umax", "ISD::UMAX", "SDTIntBinOp", _COMM),
        _n("uaddsat", "ISD::UADDSAT", "SDTIntBinOp", ("SDNPCommutative",)),
        _n("usubsat", "ISD::USUBSAT", "SDTIntBinOp"),
        _n("smullohi", "ISD::SMUL_LOHI", "SDTIntBinHiLoOp", ("SDNPCommutative",)),
        _n("umullohi", "ISD::UMUL_LOHI", "SDTIntBinHiLoOp", ("SDNPCommutative",)),
        _n("sext_inreg", "ISD::SIGN_EXTEND_INREG", "SDTExtInreg"),
        _n("abs", "ISD::ABS", "SDTIntUnaryOp"),
        _n("bitreverse", "ISD::BITREVERSE", "SDTIntUnaryOp"),
        _n("bswap", "ISD::BSWAP", "SDTIntUnaryOp"),
        _n("ctlz", "ISD::CTLZ", "SDTIntBitCountUnaryOp"),
        _n("cttz", "ISD::CTTZ", "SDTIntBitCountUnaryOp"),
        _n("ctpop", "ISD::CTPOP", "SDTIntBitCountUnaryOp"),
        _n("ctlz_zero_undef", "ISD::CTLZ_ZERO_UNDEF", "SDTIntBitCountUnaryOp"),
        _n("cttz_zero_undef", "ISD::CTTZ_ZERO_UNDEF", "SDTIntBitCountUnaryOp"),
        _n("sext", "ISD::SIGN_EXTEND", "SDTIntExtendOp"),
        _n("zext", "ISD::ZERO_EXTEND", "SDTIntExtendOp"),
        _n("anyext", "ISD::ANY_EXTEND", "SDTIntExtendOp"),
        _n("trunc", "ISD::TRUNCATE", "SDTIntTruncOp"),
        _n("bitconvert", "ISD::BITCAST", "SDTUnaryOp"),
        _n("fadd", "ISD::FADD", "SDTFPBinOp", ("SDNPCommutative",)),
        _n("fsub", "ISD::FSUB", "SDTFPBinOp"),
        _n("fmul", "ISD::FMUL", "SDTFPBinOp", ("SDNPCommutative",)),
        _n("fdiv", "ISD::FDIV", "SDTFPBinOp"),
        _n("fma", "ISD::FMA", "SDTFPTernaryOp", ("SDNPCommutative",)),
        _n("fneg", "ISD::FNEG", "SDTFPUnaryOp"),
        _n("fabs", "ISD::FABS", "SDTFPUnaryOp"),
        _n("setcc", "ISD::SETCC", "SDTSetCC"),
        _n("build_vector", "ISD::BUILD_VECTOR", "SDTVecBuild"),
        _n("extractelt", "ISD::EXTRACT_VECTOR_ELT", "SDTVecExtract"),
        _n("select", "ISD::SELECT", "SDTSelect"),
        _n("ld", "ISD::LOAD", "SDTLoad", ("SDNPHasChain", "SDNPMayLoad", "SDNPMemOperand")),
        _n("st", "ISD::STORE", "SDTStore", ("SDNPHasChain", "SDNPMayStore", "SDNPMemOperand")),
        _n("intrinsic_void", "ISD::INTRINSIC_VOID", "SDTIntrinsicVoid", ("SDNPHasChain",)),
        _n("intrinsic_w_chain", "ISD::INTRINSIC_W_CHAIN", "SDTIntrinsicWChain", ("SDNPHasChain",)),
        _n("intrinsic_wo_chain", "ISD::INTRINSIC_WO_CHAIN", "SDTIntrinsicWoChain"),
    )
}


def _f(name: str, ops: tuple[str, ...], frag: str) -> PatFrag:
    return PatFrag(name, ops, frag, builtin=True, span=_B)


BUILTIN_FRAGS: dict[str, PatFrag] = {
    f.name: f
    for f in (
        _f("not", ("in",), "(xor node:$in, -1)"),
        _f("vnot", ("in",), "(xor node:$in, immAllOnesV)"),
        _f("ineg", ("in",), "(sub 0, node:$in)"),
        _f("unindexedload", ("ptr",), "(ld node:$ptr)"),
        _f("load", ("ptr",), "(unindexedload node:$ptr)"),
        _f("unindexedstore", ("val", "ptr"), "(st node:$val, node:$ptr)"),
        _f("store", ("val", "ptr"), "(unindexedstore node:$val, node:$ptr)"),
    )
}


def _o(name: str, vt: str) -> OperandKind:
    return OperandKind(name, VALUE_TYPES[vt], builtin=True, span=_B)


BUILTIN_OPERANDS: dict[str, OperandKind] = {
    o.name: o
    for o in (
        _o("i1imm", "i1"), _o("i8imm", "i8"), _o("i16imm", "i16"), _o("i32imm", "i32"),
        _o("i64imm", "i64"), _o("f32imm", "f32"), _o("f64imm", "f64"),
    )
}

_CONDCODES = (
    "SETOEQ", "SETOGT", "SETOGE", "SETOLT", "SETOLE", "SETONE", "SETO", "SETUO", "SETUEQ",
    "SETUGT", "SETUGE", "SETULT", "SETULE", "SETUNE", "SETEQ", "SETGT", "SETGE", "SETLT",
    "SETLE", "SETNE",
)

BUILTIN_LEAVES: dict[str, str | None] = {
    "srcvalue": None,
    "immAllOnesV": None,
    "immAllZerosV": None,
    "zero_reg": None,
    **{c: "OtherVT" for c in _CONDCODES},
}

SPECIAL_OPERATORS = frozenset({"set", "ops", "outs", "ins", "node", "null_frag", "implicit"})


# ------------------------------------------------- generic (Target.td) instructions


@dataclass(frozen=True)
class GenericInstruction:
    """A target-independent instruction of Target.td usable in a result DAG.

    ``operands`` are the roles of the fixed operands, ``repeat`` a group of roles that
    follows them one or more times (REG_SEQUENCE's value/sub-register pairs). Roles:
    ``"value"`` (a value: variable, instruction DAG ...), ``"subreg"`` (a sub-register
    index of the target, e.g. ``sub0``), ``"regclass"`` (a register class name).
    ``result``: how the result type is found -- ``"regclass"`` (the types of the
    register-class operand) or ``"context"`` (from where the result is used, or a cast like ``(i32 (IMPLICIT_DEF))``).
    """

    name: str
    operands: tuple[str, ...]
    repeat: tuple[str, ...] = ()
    result: str = "context"

    def roles(self, n: int) -> list[str] | None:
        """The role of each of ``n`` operands, or None when ``n`` is not a valid count."""
        fixed = len(self.operands)
        if not self.repeat:
            return list(self.operands) if n == fixed else None
        extra = n - fixed
        if extra < len(self.repeat) or extra % len(self.repeat):
            return None
        return list(self.operands) + list(self.repeat) * (extra // len(self.repeat))

    def shape(self) -> str:
        """The operand list as text, e.g. ``(REG_SEQUENCE regclass, value, subreg, ...)``."""
        parts = list(self.operands) + [f"{', '.join(self.repeat)}, ..."] * bool(self.repeat)
        return f"({self.name}{' ' if parts else ''}{', '.join(parts)})"


GENERIC_INSTRUCTIONS: dict[str, GenericInstruction] = {
    g.name: g
    for g in (
        GenericInstruction("REG_SEQUENCE", ("regclass",), ("value", "subreg"), result="regclass"),
        GenericInstruction("EXTRACT_SUBREG", ("value", "subreg")),
        GenericInstruction("COPY_TO_REGCLASS", ("value", "regclass"), result="regclass"),
        GenericInstruction("IMPLICIT_DEF", ()),
    )
}


# ------------------------------------------------------------ foreign intrinsics


@dataclass(frozen=True)
class ForeignIntrinsic:
    """Signature of an LLVM 19 intrinsic of another target (``ir_name`` like
    ``llvm.nvvm.shfl.sync.idx.i32``); ``convergent``: it has ``IntrConvergent``."""

    ir_name: str
    results: tuple[IntrinsicType, ...]
    params: tuple[IntrinsicType, ...]
    convergent: bool = False


def _foreign() -> dict[str, ForeignIntrinsic]:
    out: list[ForeignIntrinsic] = []
    # warp shuffles: [membermask,] value, lane/offset, clamp; ".p" variants also
    # return whether the source lane was in range
    for sync in (False, True):
        for mode in ("up", "down", "bfly", "idx"):
            for tname, ty in (("i32", llvm_i32_ty), ("f32", llvm_float_ty)):
                for pred in (False, True):
                    name = "llvm.nvvm.shfl." + ("sync." if sync else "") + f"{mode}.{tname}" + ("p" if pred else "")
                    params = ((llvm_i32_ty,) if sync else ()) + (ty, llvm_i32_ty, llvm_i32_ty)
                    results = (ty, llvm_i1_ty) if pred else (ty,)
                    out.append(ForeignIntrinsic(name, results, params, True))
    # warp votes ([membermask,] predicate)
    for mode in ("all", "any", "uni", "ballot"):
        res = llvm_i32_ty if mode == "ballot" else llvm_i1_ty
        out.append(ForeignIntrinsic(f"llvm.nvvm.vote.{mode}", (res,), (llvm_i1_ty,), True))
        out.append(ForeignIntrinsic(f"llvm.nvvm.vote.{mode}.sync", (res,), (llvm_i32_ty, llvm_i1_ty), True))
    # special registers
    for reg in ("tid", "ntid", "ctaid", "nctaid"):
        for dim in ("x", "y", "z", "w"):
            out.append(ForeignIntrinsic(f"llvm.nvvm.read.ptx.sreg.{reg}.{dim}", (llvm_i32_ty,), ()))
    out.append(ForeignIntrinsic("llvm.nvvm.read.ptx.sreg.laneid", (llvm_i32_ty,), ()))
    out.append(ForeignIntrinsic("llvm.nvvm.read.ptx.sreg.warpsize", (llvm_i32_ty,), ()))
    out.append(ForeignIntrinsic("llvm.nvvm.activemask", (llvm_i32_ty,), (), True))
    out.append(ForeignIntrinsic("llvm.nvvm.bar.warp.sync", (), (llvm_i32_ty,), True))
    return {f.ir_name: f for f in sorted(out, key=lambda f: f.ir_name)}


FOREIGN_INTRINSICS: dict[str, ForeignIntrinsic] = _foreign()
