"""The AMDGPU-specific combines and legalizations, gathered in one place to become the
target's hooks (SITargetLowering / AMDGPUTargetLowering): performMulCombine
(``perform_mul_combine``: a divergent ``mul x, (y + 1)`` rewritten, the 24-bit multiply
formed) and the simplification of MUL_U24 / MUL_I24
(``visit_MUL24``), the combine2 bit-field extract of an and of a shift (``sdwa_bfe``), the
three-operand min/max (``min3_max3``), the find-first-bit nodes of the zero-undef counts
(``FFB``, LowerCTLZ_CTTZ), a kernel argument read as a load that may be poison
(``kernel_argument_load``), and the known leading zeros of the target's nodes (a workitem
id's AssertZext, BFE_U32), registered in ``patterns.dag.combine.known.TARGET_LZ``, and the
target nodes the CSE map keeps (``patterns.dag.combine.context.CSE_OTHER``) when this module
is imported (by the driver)."""

from __future__ import annotations

from typing import Final

from patterns.dag.combine.context import CSE_OTHER, Ctx, is_c, set_result, width
from patterns.dag.combine.demanded import multi_use_demanded, sdb
from patterns.dag.combine.known import sign_bits, TARGET_LZ
from patterns.dag.combine.queries import active_bits, only_mul_users
from patterns.dag.nodes import SDNode, wrap


def perform_mul_combine(n: SDNode, ctx: Ctx, a: SDNode, b: SDNode) -> bool:
    """AMDGPUTargetLowering::performMulCombine of a divergent ``mul a, b`` (after the generic
    visitMUL changed nothing)."""
    ao = a.opcode
    bo = b.opcode
    legal = ctx.legal
    if "ISD::ADD" in legal and (ao == "ISD::ADD" or bo == "ISD::ADD"):
        # AMDGPUTargetLowering::performMulCombine (a target combine: runs when the
        # generic visitMUL changed nothing), undoing InstCombine's X * (Y + 1) -> X * Y
        # + X for mad matching: a divergent mul x, (add y, 1) -> add (mul x, y), x
        # when the add has one use or only mul users; the add operand tried first
        for p_, x in ((a, b), (b, a)):
            if p_.opcode == "ISD::ADD" and is_c(p_.ops[1]) and wrap(p_.ops[1].value, n.vt) == 1 \
                    and (p_.uses == 1 or only_mul_users(p_, ctx)):
                m = ctx.new("ISD::MUL", n.vt, [x, p_.ops[0]], like=n)
                set_result(ctx, n, "ISD::ADD", [m, x])
                return True
    if n.vt == "i32" and "AMDGPUISD::MUL_U24" in legal:
        # ... then a divergent multiply of two operands that fit in 24 bits becomes
        # MUL_U24 (known leading zeros), else MUL_I24 (sign bits)
        if max(active_bits(a, ctx), active_bits(b, ctx)) <= 24:
            set_result(ctx, n, "AMDGPUISD::MUL_U24", [a, b])
            return True
        if max(33 - sign_bits(a, ctx, 0), 33 - sign_bits(b, ctx, 0)) <= 24:
            set_result(ctx, n, "AMDGPUISD::MUL_I24", [a, b])
            return True
    return False


def sdwa_bfe(n: SDNode, ctx: Ctx, a: SDNode, b: SDNode) -> bool:
    """SITargetLowering::performAndCombine (after legalization only: a node of this shape
    seen by combine1 is listed in ``ctx.late`` for combine2), on a target with SDWA:
    and (srl x, c), mask with mask a run of 8 or 16 ones above bit 0 whose field starts
    at a multiple of its width in x -> shl (bfe_u32 x, nb + c, width), nb (nb = the
    mask's trailing zeros), the bfe under an AssertZext to the field's width (which keeps
    visitSHL's shift-pair fold off it; _finish drops it before selection, as
    SelectionDAGISel does). AMDGPUTargetLowering's BFE_U32 combine, made here at once,
    turns a field reaching bit 31 into an srl, except the 16-bit field at 16 (kept for
    SDWA)."""
    mask = b.value & 0xFFFFFFFF
    bits = bin(mask).count("1")
    if (bits != 8 and bits != 16) or mask & 1 or not is_c(a.ops[1]):
        return False
    low = mask & -mask
    if (mask + low) & mask:  # (not one run of ones)
        return False
    nb = low.bit_length() - 1
    off = nb + (a.ops[1].value & 0xFFFFFFFF)
    if off & (bits - 1):
        return False
    if not ctx.legal_ops:
        ctx.late.append(n)
        return False
    x = a.ops[0]
    if off + bits >= 32 and not (off == 16 and bits == 16):
        f = ctx.new("ISD::SRL", "i32", [x, ctx.const(off, "i32")], like=a)
    else:
        f = ctx.new("AMDGPUISD::BFE_U32", "i32", [x, ctx.const(off, "i32"), ctx.const(bits, "i32")], like=a)
    f = ctx.get("ISD::AssertZext", "i32", [f, ctx.vtnode(f"i{bits}")], like=a)
    set_result(ctx, n, "ISD::SHL", [f, ctx.const(nb, "i32")])
    return True


_MIN3_MAX3: Final = {"ISD::SMIN": "AMDGPUISD::SMIN3", "ISD::SMAX": "AMDGPUISD::SMAX3", "ISD::UMIN": "AMDGPUISD::UMIN3",
                     "ISD::UMAX": "AMDGPUISD::UMAX3"}


def min3_max3(n: SDNode, ctx: Ctx) -> bool:
    """SITargetLowering::performMinMaxCombine (after the generic visit changed nothing):
    op(op(a, b), c) -> op3(a, b, c), else op(a, op(b, c)) -> op3(a, b, c), the inner
    min/max of the same kind used once (i32; the target has the three-operand node)."""
    ops = n.ops
    if len(ops) != 2 or n.vt != "i32":
        return False
    opc3 = _MIN3_MAX3.get(n.opcode)
    if opc3 is None or opc3 not in ctx.legal:
        return False
    a, b = ops
    if a.opcode == n.opcode and a.uses == 1:
        set_result(ctx, n, opc3, [a.ops[0], a.ops[1], b])
        return True
    if b.opcode == n.opcode and b.uses == 1:
        set_result(ctx, n, opc3, [a, b.ops[0], b.ops[1]])
        return True
    return False


def visit_MUL24(n: SDNode, ctx: Ctx) -> bool:
    """AMDGPU's PerformDAGCombine of MUL_U24 / MUL_I24 (simplifyMul24): the node reads the
    low 24 bits of each operand. SimplifyMultipleUseDemandedBits of both operands first
    (a new node when either has a simpler value for those bits); else
    SimplifyDemandedBits of the left, then the right operand, each its own root (every
    bit demanded when it has other users)."""
    ops = n.ops
    if len(ops) != 2:
        return False
    a, b = ops
    low = (1 << 24) - 1
    va = multi_use_demanded(a, low, 0, ctx)
    vb = multi_use_demanded(b, low, 0, ctx)
    if va is not None or vb is not None:
        set_result(ctx, n, n.opcode, [va or a, vb or b])
        return True
    for x in (a, b):
        if x.opcode == "ISD::Constant":
            continue
        m = (1 << (width(x.vt))) - 1
        ctx.sdb_root = x  # (TargetLowering::SimplifyDemandedBits with DCI: x back on the worklist)
        r = sdb(x, low if x.uses == 1 else m, 0, ctx)[0]
        ctx.sdb_root = None
        if r:
            return True
    return False


def kernel_argument_load(n: SDNode) -> bool:
    """A kernel's argument read in its entry block: llc lowers it as a load from the
    kernel-argument segment (which may be poison), where this DAG has a CopyFromReg (a
    register copy, which is not)."""
    a = n.ir
    if a is None or type(a).__name__ != "Argument":
        return False
    fn = a.function
    return fn is not None and fn.cc == "amdgpu_kernel" and bool(fn.blocks) and n.block is fn.blocks[0]


FFB: Final = {"ISD::CTLZ_ZERO_UNDEF": "AMDGPUISD::FFBH_U32", "ISD::CTTZ_ZERO_UNDEF": "AMDGPUISD::FFBL_B32"}


# the visits of the target's nodes (PerformDAGCombine), by opcode
TARGET_VISITS: Final = {"AMDGPUISD::MUL_U24": visit_MUL24, "AMDGPUISD::MUL_I24": visit_MUL24}


def workitem_id_lz(n: SDNode) -> int:
    """A workitem id is lowered with AssertZext to the bits of the largest id (flat
    workgroup size 1024 by default: 10 bits, SITargetLowering::lowerWorkitemID)."""
    return 22 if (n.intrinsic or "").startswith("llvm.amdgcn.workitem.id.") else 0


def bfe_u32_lz(n: SDNode) -> int:
    """BFE_U32 x, offset, width: the bits above a constant width are zero."""
    w = n.ops[2]
    return 32 - (w.value & 31) if is_c(w) and 0 < (w.value & 31) else 0


# computeKnownBitsForTargetNode: the leading zeros of the target's nodes
TARGET_LZ.update({"ISD::INTRINSIC_WO_CHAIN": workitem_id_lz, "AMDGPUISD::BFE_U32": bfe_u32_lz})
# the target nodes SelectionDAG's CSE map keeps
CSE_OTHER.update({"AMDGPUISD::MUL_U24", "AMDGPUISD::MUL_I24", "AMDGPUISD::BFE_U32"})
