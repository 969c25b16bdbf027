"""The rules of the opcodes without a visit family of their own (``other_rules``): SETCC
(TargetLowering::SimplifySetCC for eq/ne, foldSetCCWithBinOp), SELECT of a compare ->
min/max, sign_extend_inreg formation from shift pairs and sext of trunc, the zero-undef
count forms, smax of a negation -> abs; and visitSIGN_EXTEND_INREG."""

from __future__ import annotations

from typing import Final

from patterns.dag.combine.context import WouldChange, Ctx, is_c, is_not, set_result
from patterns.support.intops import int_width
from patterns.dag.combine.demanded import demanded_const, sdb
from patterns.dag.combine.known import known_bits, sign_bits
from patterns.dag.combine.queries import never_zero
from patterns.dag.combine.reassoc import commuted_other
from patterns.dag.isd import COMMUTATIVE, SWAPPED_CONDCODE
from patterns.dag.nodes import SDNode


_MINMAX: Final = {"SETLT": ("ISD::SMIN", "ISD::SMAX"), "SETLE": ("ISD::SMIN", "ISD::SMAX"),
                  "SETGT": ("ISD::SMAX", "ISD::SMIN"), "SETGE": ("ISD::SMAX", "ISD::SMIN"),
                  "SETULT": ("ISD::UMIN", "ISD::UMAX"), "SETULE": ("ISD::UMIN", "ISD::UMAX"),
                  "SETUGT": ("ISD::UMAX", "ISD::UMIN"), "SETUGE": ("ISD::UMAX", "ISD::UMIN")}


def visit_SIGN_EXTEND_INREG(n: SDNode, ctx: Ctx) -> bool:
    """DAGCombiner::visitSIGN_EXTEND_INREG for i32 values: a constant; an input sign
    extended already (ComputeMaxSignificantBits within the width) is the result; nested
    extensions keep the narrower; a known-zero sign bit makes it an and with the low
    mask (zext_in_reg); SimplifyDemandedBits with every bit demanded (its operand's low
    bits demanded, ``sdb``); ``(sext_in_reg (srl X, c), iN)`` -> ``sra X, c`` when X has
    the sign bits for it."""
    ops = n.ops
    if len(ops) != 2:
        return False
    x, t = ops
    bits, ext = int_width(n.vt), int_width(t.vt)
    if not bits or not ext or ext >= bits:
        return False
    if is_c(x):
        v = x.value & ((1 << ext) - 1)
        ctx.replace(n, ctx.const(v - (1 << ext) if v >> (ext - 1) else v, n.vt))
        return True
    if ext >= bits - sign_bits(x, ctx) + 1:
        ctx.replace(n, x)
        return True
    if x.opcode == "ISD::SIGN_EXTEND_INREG" and ext < (int_width(x.ops[1].vt) or bits):
        set_result(ctx, n, "ISD::SIGN_EXTEND_INREG", [x.ops[0], t])
        return True
    if known_bits(x, ctx).zero >> (ext - 1) & 1:
        set_result(ctx, n, "ISD::AND", [x, ctx.const((1 << ext) - 1, n.vt)])
        return True
    k = known_bits(n, ctx, 0)
    m = (1 << bits) - 1
    ctx.sdb_root = n
    r = sdb(n, m, 0, ctx)[0] if (k.zero | k.one) ^ m else demanded_const(n, m, k, ctx)
    ctx.sdb_root = None
    if r:
        return True
    if x.opcode == "ISD::SRL" and is_c(x.ops[1]):
        sh = x.ops[1].value & ((1 << bits) - 1)
        if sh <= bits - ext and (bits - ext) - sh < sign_bits(x.ops[0], ctx):
            set_result(ctx, n, "ISD::SRA", [x.ops[0], x.ops[1]])
            return True
    return False


def visit_other(n: SDNode, ctx: Ctx) -> bool:
    """The visits of the other opcodes with rules (other_rules), then for a commutative
    one its commuted form."""
    if other_rules(n, ctx):
        return True
    return n.opcode in COMMUTATIVE and commuted_other(n, ctx)


def other_rules(n: SDNode, ctx: Ctx) -> bool:
    opc = n.opcode
    ops = n.ops
    if opc == "ISD::SETCC":
        return _setcc_rules(n, ctx)
    if opc == "ISD::SRA" and is_c(ops[1]) and ops[0].opcode == "ISD::SHL" and is_c(ops[0].ops[1]) \
            and ops[0].ops[1].value == ops[1].value and ops[1].value in (16, 24) and n.vt == "i32" \
            and "ISD::SIGN_EXTEND_INREG" in ctx.legal:
        set_result(ctx, n, "ISD::SIGN_EXTEND_INREG", [ops[0].ops[0], ctx.vtnode(f"i{32 - ops[1].value}")])
        return True
    if opc == "ISD::SIGN_EXTEND" and n.vt == "i32" and ops and ops[0].opcode == "ISD::TRUNCATE" \
            and ops[0].vt in ("i8", "i16") and ops[0].ops[0].vt == "i32" \
            and "ISD::SIGN_EXTEND_INREG" in ctx.legal:
        # visitSIGN_EXTEND: sext (trunc x) with x already of the result type
        set_result(ctx, n, "ISD::SIGN_EXTEND_INREG", [ops[0].ops[0], ctx.vtnode(ops[0].vt)])
        return True
    if opc in _EXT_LOAD and ops and ops[0].opcode == "ISD::LOAD" and not ctx.legal_ops:
        return _ext_of_load(n, ctx)
    if opc == "ISD::SELECT" and len(ops) == 3 and n.vt == "i1" and ops[0].vt == "i1":
        return _bool_select(n, ctx)
    if opc == "ISD::SELECT" and len(ops) == 3 and ops[0].opcode == "ISD::SETCC" and n.vt == "i32":
        c, a, b = ops
        if c.cc in _MINMAX and c.uses == 1 and all(m in ctx.legal for m in _MINMAX[c.cc]):
            if c.ops[0] is a and c.ops[1] is b:
                set_result(ctx, n, _MINMAX[c.cc][0], [a, b])
                return True
            if c.ops[0] is b and c.ops[1] is a:
                set_result(ctx, n, _MINMAX[c.cc][1], [b, a])
                return True
    if opc in ("ISD::CTLZ", "ISD::CTTZ") and n.vt == "i32" and opc + "_ZERO_UNDEF" in ctx.legal \
            and never_zero(ops[0], ctx):
        # visitCTLZ/visitCTTZ: a value known never to be zero counts as the zero-undef
        # form (before the target lowers the zero-defined one with a umin)
        inner = ctx.new(opc + "_ZERO_UNDEF", "i32", [ops[0]], like=n)
        inner.intrinsic = n.intrinsic
        ctx.commit(n, inner)
        return True
    if opc in ("ISD::CTLZ", "ISD::CTTZ") and n.vt == "i32" and opc + "_ZERO_UNDEF" in ctx.legal \
            and "ISD::UMIN" in ctx.legal:
        inner = ctx.new(opc + "_ZERO_UNDEF", "i32", [ops[0]], like=n)
        inner.intrinsic = n.intrinsic
        set_result(ctx, n, "ISD::UMIN", [inner, ctx.const(32, "i32")])
        return True
    if opc == "ISD::SMAX" and len(ops) == 2 and not ctx.legal_ops:
        # (before legalization only: after it a divergent abs is this smax, _legalize_abs)
        for x, s in ((ops[0], ops[1]), (ops[1], ops[0])):
            if s.opcode == "ISD::SUB" and is_c(s.ops[0]) and s.ops[0].value == 0 and s.ops[1] is x \
                    and "ISD::ABS" in ctx.legal:
                set_result(ctx, n, "ISD::ABS", [x])
                return True
    return False


# extension -> the extending load it folds into (ISD::LoadExtType)
_EXT_LOAD: Final = {"ISD::ZERO_EXTEND": "ZEXTLOAD", "ISD::SIGN_EXTEND": "SEXTLOAD", "ISD::ANY_EXTEND": "EXTLOAD"}


def _ext_of_load(n: SDNode, ctx: Ctx) -> bool:
    """visitZERO_EXTEND / visitSIGN_EXTEND / visitANY_EXTEND's tryToFoldExtOfLoad before
    legalization: an extension of a simple (not volatile, not atomic), not yet extending
    load used only by it becomes that load, extending, of the extension's type (its memory
    operand keeps the memory type; after legalization LLVM also asks isLoadExtLegal: not
    modelled, so combine2 does not fold). Not modelled: ExtendUsesToFormExtLoad (a load
    with other users)."""
    ld = n.ops[0]
    mem = ld.mem
    if ld.uses != 1 or ld.cc is not None or mem is None or mem.is_volatile or mem.ordering is not None \
            or n.vt[:1] != "i" or ld.vt[:1] != "i":
        return False
    if ctx.dry:
        raise WouldChange
    ld.vt = n.vt  # (the load's only user is n: nothing else sees its old type)
    ld.cc = _EXT_LOAD[n.opcode]
    ld.kbc = None
    ctx.replace(n, ld)
    return True


def _bool_select(n: SDNode, ctx: Ctx) -> bool:
    """DAGCombiner's foldBoolSelectToLogic, a select of i1 values on an i1 condition:
    ``select c, c|1, f`` -> ``or c, f``; ``select c, t, c|0`` -> ``and c, t``;
    ``select c, t, 1`` -> ``or (not c), t``; ``select c, 0, f`` -> ``and (not c), f``."""
    c, t, f = n.ops

    def one(x: SDNode) -> bool:
        return is_c(x) and x.value & 1 == 1

    def zero(x: SDNode) -> bool:
        return is_c(x) and x.value & 1 == 0

    if t is c or one(t):
        set_result(ctx, n, "ISD::OR", [c, f])
        return True
    if f is c or zero(f):
        set_result(ctx, n, "ISD::AND", [c, t])
        return True
    if one(f) or zero(t):
        inv = ctx.get("ISD::XOR", "i1", [c, ctx.const(-1, "i1")], like=n)
        if one(f):
            set_result(ctx, n, "ISD::OR", [inv, t])
        else:
            set_result(ctx, n, "ISD::AND", [inv, f])
        return True
    return False


def _setcc_rules(n: SDNode, ctx: Ctx) -> bool:
    """TargetLowering::SimplifySetCC for an integer equality compare whose operand is an
    add, sub or xor: the folds that drop that operation (when nothing else uses it); for
    an ordered compare ``_setcc_ordered``."""
    if len(n.ops) != 2:
        return False
    n0, n1 = n.ops
    if n0.vt == "i1" or not n0.vt.startswith("i"):
        return False
    if n.cc not in ("SETEQ", "SETNE"):
        return _setcc_ordered(n, n0, n1, ctx)
    if is_c(n0) and not is_c(n1):
        set_result(ctx, n, "ISD::SETCC", [n1, n0])  # the constant goes to the right (equality: same condition)
        return True
    vt = n0.vt
    arith = ("ISD::ADD", "ISD::SUB", "ISD::XOR")
    if n0.opcode in arith:
        if n0.opcode == n1.opcode:
            # (X op Y) == (X op Z) -> Y == Z (and the commuted forms for add/xor)
            a0, a1 = n0.ops
            b0, b1 = n1.ops
            pairs = [(a0, b0, a1, b1), (a1, b1, a0, b0)]
            if n0.opcode != "ISD::SUB":
                pairs += [(a0, b1, a1, b0), (a1, b0, a0, b1)]
            for x, y, p, q in pairs:
                if x is y:
                    set_result(ctx, n, "ISD::SETCC", [p, q])
                    return True
        legal_imm = False
        if is_c(n1):
            c2 = n1.value
            a0, a1 = n0.ops
            if is_c(a1) and n0.uses == 1:
                if n0.opcode == "ISD::ADD":  # (X + C1) == C2 -> X == C2 - C1
                    set_result(ctx, n, "ISD::SETCC", [a0, ctx.const(c2 - a1.value, vt)])
                    return True
                if n0.opcode == "ISD::XOR":  # (X ^ C1) == C2 -> X == C1 ^ C2
                    set_result(ctx, n, "ISD::SETCC", [a0, ctx.const(c2 ^ a1.value, vt)])
                    return True
            if n0.opcode == "ISD::SUB" and is_c(a0) and n0.uses == 1:  # (C1 - X) == C2 -> X == C1 - C2
                set_result(ctx, n, "ISD::SETCC", [a1, ctx.const(a0.value - c2, vt)])
                return True
            legal_imm = True  # isLegalICmpImmediate (any immediate on AMDGPU)
        if (not legal_imm or n0.uses == 1) and _setcc_binop(n, n0, n1, ctx):
            return True
    if n1.opcode in arith and _setcc_binop(n, n1, n0, ctx):
        return True
    return False


_SWAPPED_CC: Final = SWAPPED_CONDCODE
# the GE/LE canonicalization: condition -> (new condition, constant step, signed)
_CANONICAL: Final = {"SETGE": ("SETGT", -1, True), "SETUGE": ("SETUGT", -1, False),
                     "SETLE": ("SETLT", 1, True), "SETULE": ("SETULT", 1, False)}


def _setcc_ordered(n: SDNode, n0: SDNode, n1: SDNode, ctx: Ctx) -> bool:
    """SimplifySetCC for a signed or unsigned integer compare: a constant LHS moves to the
    right with the swapped condition (FoldSetCC / the canonicalization), then
    ``~X < ~Y`` -> ``Y < X`` and ``~X < C`` -> ``~C < X``, i.e. ``X > ~C`` once the
    constant has moved right (any ordered condition). Dropping the not's use matters to
    selection: an xor that fed ``not`` and the compare is no longer ``xor_oneuse``, so
    ``s_xnor_b32`` is not formed.

    With the constant on the right, ``X >= C`` becomes ``X > C-1`` and ``X <= C``
    becomes ``X < C+1`` (the GE/LE canonicalization: StructurizeCFG's inverted compares
    reach the DAG in these forms), and a compare that cannot fail (``X >= MIN``, ``X <=
    MAX``) is the constant true.

    Not modeled (no effect on the compared opcodes while the compare stays a compare):
    ``setlt X, MAX`` -> ``setne`` and the SINTMIN/SINTMAX ones, the folds of ``X < MIN``
    / ``X > MAX`` to false."""
    cc = n.cc
    swapped = _SWAPPED_CC.get(cc)
    if swapped is None:
        return False
    if is_c(n0) and not is_c(n1):
        ctx.commit(n, ctx.get("ISD::SETCC", n.vt, [n1, n0], like=n, cc=swapped))
        return True
    if is_c(n1) and not is_c(n0) and cc in _CANONICAL:
        bits = int_width(n0.vt)
        new_cc, step, signed = _CANONICAL[cc]
        c = n1.value if signed else n1.value & ((1 << bits) - 1)
        bound = (-(1 << (bits - 1)) if signed else 0) if step < 0 else \
            ((1 << (bits - 1)) - 1 if signed else (1 << bits) - 1)
        if c == bound:  # (X >= MIN, X <= MAX: always true)
            if n.vt != "i1":
                return False
            ctx.commit(n, ctx.const(1, "i1"))
            return True
        ctx.commit(n, ctx.get("ISD::SETCC", n.vt, [n0, ctx.const(c + step, n0.vt)], like=n, cc=new_cc))
        return True
    if is_not(n0):
        if is_not(n1):  # ~X op ~Y -> Y op X
            ctx.commit(n, ctx.get("ISD::SETCC", n.vt, [n1.ops[0], n0.ops[0]], like=n, cc=cc))
            return True
        if is_c(n1) and not is_c(n0.ops[0]):  # ~X op C -> ~C op X -> X swapped(op) ~C
            ctx.commit(n, ctx.get("ISD::SETCC", n.vt, [n0.ops[0], ctx.const(~n1.value, n0.vt)],
                                  like=n, cc=swapped))
            return True
    return False


def _setcc_binop(n: SDNode, n0: SDNode, n1: SDNode, ctx: Ctx) -> bool:
    """TargetLowering::foldSetCCWithBinOp: (X op Y) == X -> Y == 0; (X + Y) == Y,
    (X ^ Y) == Y -> X == 0; (X - Y) == Y -> X == Y << 1 (the sub used once)."""
    x, y = n0.ops
    vt = n0.vt
    if x is n1:
        set_result(ctx, n, "ISD::SETCC", [y, ctx.const(0, vt)])
        return True
    if y is not n1:
        return False
    if n0.opcode in ("ISD::ADD", "ISD::XOR"):
        set_result(ctx, n, "ISD::SETCC", [x, ctx.const(0, vt)])
        return True
    if not n0.uses == 1:
        return False
    sh = ctx.new("ISD::SHL", vt, [n1, ctx.const(1, vt)], like=n0)
    ctx.add(sh)  # (foldSetCCWithBinOp puts the shift on the worklist)
    set_result(ctx, n, "ISD::SETCC", [x, sh])
    return True
