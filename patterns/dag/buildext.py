"""SelectionDAGBuilder for the IR instructions beyond the integer core that
``patterns.dag.builder`` builds inline: floating point (``fadd`` ... ``frem``, ``fneg``,
``fcmp`` -> ``ISD::SETCC`` with an FP condition code, the conversions), vectors
(``extractelement`` / ``insertelement`` -> ``ISD::EXTRACT_VECTOR_ELT`` /
``ISD::INSERT_VECTOR_ELT``; a ``select`` on a vector condition is ``ISD::VSELECT``),
atomics (``atomicrmw`` -> ``ISD::ATOMIC_LOAD_<OP>`` / ``ISD::ATOMIC_SWAP``, on the chain,
its result divergent when the uniformity analysis says so) and ``fence`` ->
``ISD::ATOMIC_FENCE``.

``other_node(ins, get, mk, vt_of)`` makes the node of one such instruction and says
whether it goes on the block's chain; None when the instruction is none of these.
Where it stops: fast-math flags are not carried (an ``fcmp`` with ``nnan`` keeps its
ordered condition code where SelectionDAGBuilder would drop the ordering), the
``fence``'s ordering and scope and the atomics' orderings are not operands, and
``cmpxchg`` (a two-result node, the loaded value and the success bit) is refused by the
builder as not modeled."""

from __future__ import annotations

from typing import Final

FP_BINOPS: Final = {"fadd": "ISD::FADD", "fsub": "ISD::FSUB", "fmul": "ISD::FMUL", "fdiv": "ISD::FDIV",
                    "frem": "ISD::FREM"}
FP_CASTS: Final = {"sitofp": "ISD::SINT_TO_FP", "uitofp": "ISD::UINT_TO_FP", "fptosi": "ISD::FP_TO_SINT",
                   "fptoui": "ISD::FP_TO_UINT", "fpext": "ISD::FP_EXTEND", "fptrunc": "ISD::FP_ROUND",
                   "ptrtoint": "ISD::TRUNCATE_OR_ZEXT", "inttoptr": "ISD::TRUNCATE_OR_ZEXT"}
# fcmp predicate -> ISD condition code (ISD::CondCode: SETO/SETUO, ordered SETO*, unordered SETU*)
FCMP_CONDCODES: Final = {
    "false": "SETFALSE", "oeq": "SETOEQ", "ogt": "SETOGT", "oge": "SETOGE", "olt": "SETOLT", "ole": "SETOLE",
    "one": "SETONE", "ord": "SETO", "uno": "SETUO", "ueq": "SETUEQ", "ugt": "SETUGT", "uge": "SETUGE",
    "ult": "SETULT", "ule": "SETULE", "une": "SETUNE", "true": "SETTRUE",
}
ATOMIC_RMW: Final = {
    "xchg": "ISD::ATOMIC_SWAP", "add": "ISD::ATOMIC_LOAD_ADD", "sub": "ISD::ATOMIC_LOAD_SUB",
    "and": "ISD::ATOMIC_LOAD_AND", "nand": "ISD::ATOMIC_LOAD_NAND", "or": "ISD::ATOMIC_LOAD_OR",
    "xor": "ISD::ATOMIC_LOAD_XOR", "max": "ISD::ATOMIC_LOAD_MAX", "min": "ISD::ATOMIC_LOAD_MIN",
    "umax": "ISD::ATOMIC_LOAD_UMAX", "umin": "ISD::ATOMIC_LOAD_UMIN", "fadd": "ISD::ATOMIC_LOAD_FADD",
    "fsub": "ISD::ATOMIC_LOAD_FSUB", "fmax": "ISD::ATOMIC_LOAD_FMAX", "fmin": "ISD::ATOMIC_LOAD_FMIN",
    "uinc_wrap": "ISD::ATOMIC_LOAD_UINC_WRAP", "udec_wrap": "ISD::ATOMIC_LOAD_UDEC_WRAP",
}
OTHER_OPCODES: Final = frozenset(FP_BINOPS) | frozenset(FP_CASTS) | frozenset(
    {"fneg", "fcmp", "extractelement", "insertelement", "atomicrmw", "fence"})


def _width(vt: str) -> int:
    digits = "".join(ch for ch in vt if ch.isdigit())
    return int(digits) if vt.startswith("i") and digits else 0


def other_node(ins, get, mk, vt_of, divergent) -> tuple | None:
    """(node, chained) for ``ins``, or None when the builder has no rule for its opcode
    here. ``get`` gives an operand's node, ``mk(opcode, vt, ops, ir, cc=None)`` makes one,
    ``vt_of`` an IR type's value type, ``divergent(ins)`` the analysis's verdict."""
    op = ins.opcode
    ops = ins.operands
    vt = vt_of(ins.type) if ins.type is not None else "isVoid"
    isd = FP_BINOPS.get(op)
    if isd is not None:
        return mk(isd, vt, (get(ops[0]), get(ops[1])), ins), False
    if op == "fneg":
        return mk("ISD::FNEG", vt, (get(ops[0]),), ins), False
    if op == "fcmp":
        cc = FCMP_CONDCODES[ins.predicate]
        return mk("ISD::SETCC", vt, (get(ops[0]), get(ops[1])), ins, cc), False
    isd = FP_CASTS.get(op)
    if isd is not None:
        a = get(ops[0])
        if isd == "ISD::TRUNCATE_OR_ZEXT":  # (ptrtoint/inttoptr: getZExtOrTrunc)
            wa, wr = _width(a.vt) or 64, _width(vt) or 64
            if wa == wr:
                return a, None
            isd = "ISD::TRUNCATE" if wa > wr else "ISD::ZERO_EXTEND"
        return mk(isd, vt, (a,), ins), False
    if op == "extractelement":
        return mk("ISD::EXTRACT_VECTOR_ELT", vt, (get(ops[0]), get(ops[1])), ins), False
    if op == "insertelement":
        return mk("ISD::INSERT_VECTOR_ELT", vt, (get(ops[0]), get(ops[1]), get(ops[2])), ins), False
    if op == "atomicrmw":
        isd = ATOMIC_RMW.get(getattr(ins, "rmw_op", ""))
        if isd is None:
            return None
        n = mk(isd, vt, (get(ops[0]), get(ops[1])), ins)
        n.source = "divergent" if divergent(ins) else None
        return n, True
    if op == "fence":
        n = mk("ISD::ATOMIC_FENCE", "ch", (), ins)
        n.source = "uniform"
        return n, True
    return None
