"""The ISD vocabulary the DAG builder maps LLVM IR onto: the IR opcode -> ISD opcode tables
(binary ops, casts, generic intrinsics), the condition codes, the commutative opcodes, the
opcodes the selector treats as glue, the value type of an IR type (``vt_of``) and the
integer value of an IR constant (``const_int``)."""

from __future__ import annotations

from typing import Final

from patterns.ir.opcodes import COMMUTATIVE_BINOPS, INT_PREDICATE_ORDER, SWAPPED_PREDICATE


# IR binary opcode -> ISD opcode
ISD_OF_BINOP: Final = {
    "add": "ISD::ADD", "sub": "ISD::SUB", "mul": "ISD::MUL", "and": "ISD::AND",
    "or": "ISD::OR", "xor": "ISD::XOR", "shl": "ISD::SHL", "lshr": "ISD::SRL",
    "ashr": "ISD::SRA", "udiv": "ISD::UDIV", "sdiv": "ISD::SDIV", "urem": "ISD::UREM",
    "srem": "ISD::SREM",
}
ISD_OF_CAST: Final = {"zext": "ISD::ZERO_EXTEND", "sext": "ISD::SIGN_EXTEND", "trunc": "ISD::TRUNCATE",
                      "bitcast": "ISD::BITCAST", "freeze": "ISD::FREEZE"}
CONDCODES: Final = {"eq": "SETEQ", "ne": "SETNE", "slt": "SETLT", "sle": "SETLE", "sgt": "SETGT",
                    "sge": "SETGE", "ult": "SETULT", "ule": "SETULE", "ugt": "SETUGT", "uge": "SETUGE"}
# Generic LLVM intrinsics that become plain ISD nodes (name prefix -> opcode).
ISD_OF_INTRINSIC: Final = {
    "llvm.ctpop": "ISD::CTPOP", "llvm.bitreverse": "ISD::BITREVERSE", "llvm.bswap": "ISD::BSWAP",
    "llvm.smin": "ISD::SMIN", "llvm.smax": "ISD::SMAX", "llvm.umin": "ISD::UMIN",
    "llvm.umax": "ISD::UMAX", "llvm.abs": "ISD::ABS",
    "llvm.ctlz": "ISD::CTLZ", "llvm.cttz": "ISD::CTTZ",
}
# the ISD condition code of each ordered compare with its operands exchanged (the
# IR's swapped predicate, spelled in ISD; SETEQ/SETNE need no swap and are not listed)
SWAPPED_CONDCODE: Final = {CONDCODES[p]: CONDCODES[SWAPPED_PREDICATE[p]] for p in INT_PREDICATE_ORDER
                           if p not in ("eq", "ne")}
# the commutative opcodes: the IR's commutative binary operators and the min/max nodes
COMMUTATIVE: Final = frozenset(ISD_OF_BINOP[op] for op in COMMUTATIVE_BINOPS) | frozenset(
    {"ISD::SMIN", "ISD::SMAX", "ISD::UMIN", "ISD::UMAX"})

GLUE_OPCODES: Final = frozenset({"ISD::EntryToken", "ISD::CopyFromReg", "ISD::CopyToReg", "ISD::TokenFactor",
                                 "ISD::Register", "ISD::BR", "ISD::BRCOND", "ISD::RET", "ISD::PHI_USE",
                                 "ISD::LOAD", "ISD::STORE", "ISD::Constant", "ISD::PTRADD", "ISD::SETCC",
                                 "ISD::BITCAST", "ISD::FREEZE", "ISD::UNDEF", "ISD::ZERO_EXTEND",
                                 "ISD::SIGN_EXTEND", "ISD::TRUNCATE", "ISD::SELECT", "ISD::CALL",
                                 "ISD::VALUETYPE"})


def vt_of(ty) -> str:
    """LLVM MVT name of an IR type (``i32``, ``i1``, ``f32``, ``v2i32``, ``iPTR``)."""
    cls = type(ty).__name__
    if cls == "IntType":
        return f"i{ty.bits}"
    if cls == "PtrType":
        return "i64" if getattr(ty, "addrspace", 0) in (0, 1, 4) else "i32"
    if cls == "FloatType":
        return {"half": "f16", "bfloat": "bf16", "float": "f32", "double": "f64"}.get(ty.name, ty.name)
    if cls == "VectorType":
        return f"v{ty.count}{vt_of(ty.elem)}"
    if cls == "VoidType":
        return "isVoid"
    return str(ty)


def is_ir_constant(v) -> bool:
    return type(v).__name__ == "Constant"


def const_int(v) -> int | None:
    t = getattr(v, "text", None)
    if t is None:
        return None
    if t == "true":
        return -1 if vt_of(v.type) == "i1" else 1
    if t in ("false", "null", "zeroinitializer"):
        return 0
    try:
        return int(t, 0)
    except ValueError:
        return None
