"""AMDGPU's DAG hooks (SITargetLowering / AMDGPUTargetLowering), as the engine's combine driver
(patterns.dag.combine) calls them through this target's ``TargetHooks`` (lowering.py):

- PerformDAGCombine (``TargetHooks.dag_combine``): performMulCombine of a divergent ``mul``
  (``perform_mul_combine``: ``mul x, (y + 1)`` rewritten, the 24-bit multiply formed),
  performAndCombine's bit-field extract of an and of a shift (``perform_and_combine``,
  after legalization only), performMinMaxCombine's three-operand min/max
  (``min3_max3``), and the simplification of MUL_U24 / MUL_I24 (``visit_MUL24``);
- LowerOperation of the Custom opcodes (``TargetHooks.legalize``): LowerCTLZ_CTTZ, the
  i32 zero-undef counts becoming the find-first-bit nodes (``lower_ctlz_cttz``);
- computeKnownBitsForTargetNode (``TargetHooks.known_lz``): the known leading zeros of a
  workitem id (lowerWorkitemID's AssertZext) and of BFE_U32;
- the target nodes the CSE map keeps (``CSE_NODES``) and the calling convention whose
  arguments are loaded from the kernel argument segment (``ARGUMENT_LOAD_CCS``).

Each combine is ``f(node, ctx) -> bool`` with ``ctx`` the combine run
(patterns.dag.combine.context.Ctx): it commits its result through ``ctx`` as the engine's
own rules do, and says whether it changed the DAG."""

from __future__ import annotations

from patterns.dag.combine.context import Ctx, is_c, set_result
from patterns.support.intops import int_width
from patterns.dag.combine.demanded import multi_use_demanded, sdb
from patterns.dag.combine.known import sign_bits
from patterns.dag.combine.queries import active_bits, only_mul_users
from patterns.dag.nodes import SDNode
from patterns.support.intops import wrap_vt


def perform_mul_combine(n: SDNode, ctx: Ctx) -> bool:
    """AMDGPUTargetLowering::performMulCombine of a ``mul a, b`` (after the generic
    visitMUL changed nothing): only a divergent one (there is no scalar 24-bit multiply)."""
    if not n.divergent:
        return False
    a, b = n.ops
    ao = a.opcode
    bo = b.opcode
    legal = ctx.legal
    if "ISD::ADD" in legal and (ao == "ISD::ADD" or bo == "ISD::ADD"):
        # undoing InstCombine's X * (Y + 1) -> X * Y + X for mad matching: a divergent
        # mul x, (add y, 1) -> add (mul x, y), x when the add has one use or only mul
        # users; the add operand tried first
        for p_, x in ((a, b), (b, a)):
            if p_.opcode == "ISD::ADD" and is_c(p_.ops[1]) and wrap_vt(p_.ops[1].value, n.vt) == 1 \
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


def perform_and_combine(n: SDNode, ctx: Ctx) -> bool:
    """SITargetLowering::performAndCombine (after the generic visitAND changed nothing) of
    an ``and (srl x, c), mask`` with a constant mask: ``sdwa_bfe``."""
    a, b = n.ops
    if b.opcode != "ISD::Constant" or type(b.value) is not int or a.opcode != "ISD::SRL":
        return False
    return sdwa_bfe(n, ctx, a, b)


def sdwa_bfe(n: SDNode, ctx: Ctx, a: SDNode, b: SDNode) -> bool:
    """SITargetLowering::performAndCombine (after legalization only: a node of this shape
    seen by combine1 is listed in ``ctx.late`` for combine2), on a target with SDWA:
    and (srl x, c), mask with mask a run of 8 or 16 ones above bit 0 whose field starts
    at a multiple of its width in x -> shl (bfe_u32 x, nb + c, width), nb (nb = the
    mask's trailing zeros), the bfe under an AssertZext to the field's width (which keeps
    visitSHL's shift-pair fold off it; the driver's _finish drops it before selection, as
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


MIN3_MAX3 = {"ISD::SMIN": "AMDGPUISD::SMIN3", "ISD::SMAX": "AMDGPUISD::SMAX3", "ISD::UMIN": "AMDGPUISD::UMIN3",
             "ISD::UMAX": "AMDGPUISD::UMAX3"}


def min3_max3(n: SDNode, ctx: Ctx) -> bool:
    """SITargetLowering::performMinMaxCombine (after the generic visit changed nothing):
    op(op(a, b), c) -> op3(a, b, c), else op(a, op(b, c)) -> op3(a, b, c), the inner
    min/max of the same kind used once (i32; the target has the three-operand node)."""
    ops = n.ops
    if len(ops) != 2 or n.vt != "i32":
        return False
    opc3 = MIN3_MAX3.get(n.opcode)
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
        m = (1 << (int_width(x.vt))) - 1
        ctx.sdb_root = x  # (TargetLowering::SimplifyDemandedBits with DCI: x back on the worklist)
        r = sdb(x, low if x.uses == 1 else m, 0, ctx)[0]
        ctx.sdb_root = None
        if r:
            return True
    return False


FFB = {"ISD::CTLZ_ZERO_UNDEF": "AMDGPUISD::FFBH_U32", "ISD::CTTZ_ZERO_UNDEF": "AMDGPUISD::FFBL_B32"}


def lower_ctlz_cttz(n: SDNode, ctx: Ctx) -> bool:
    """AMDGPUTargetLowering::LowerCTLZ_CTTZ: an i32 zero-undef count becomes the
    find-first-bit node (when selectable), whose result for a zero input is -1, so
    nothing is known of its bits any more (the known bits a later block reads, and
    combine2's)."""
    ffb = FFB[n.opcode]
    if n.vt != "i32" or ffb not in ctx.legal:
        return False
    set_result(ctx, n, ffb, [n.ops[0]])
    return True


def workitem_id_lz(n: SDNode) -> int:
    """A workitem id is lowered with AssertZext to the bits of the largest id (flat
    workgroup size 1024 by default: 10 bits, SITargetLowering::lowerWorkitemID)."""
    return 22 if (n.intrinsic or "").startswith("llvm.amdgcn.workitem.id.") else 0


def bfe_u32_lz(n: SDNode) -> int:
    """BFE_U32 x, offset, width: the bits above a constant width are zero."""
    w = n.ops[2]
    return 32 - (w.value & 31) if is_c(w) and 0 < (w.value & 31) else 0


DAG_COMBINE = {
    "ISD::MUL": perform_mul_combine, "ISD::AND": perform_and_combine,
    "ISD::SMIN": min3_max3, "ISD::SMAX": min3_max3, "ISD::UMIN": min3_max3, "ISD::UMAX": min3_max3,
    "AMDGPUISD::MUL_U24": visit_MUL24, "AMDGPUISD::MUL_I24": visit_MUL24,
}
LEGALIZE = {opc: lower_ctlz_cttz for opc in FFB}
KNOWN_LZ = {"ISD::INTRINSIC_WO_CHAIN": workitem_id_lz, "AMDGPUISD::BFE_U32": bfe_u32_lz}
CSE_NODES = frozenset({"AMDGPUISD::MUL_U24", "AMDGPUISD::MUL_I24", "AMDGPUISD::BFE_U32"})
# SITargetLowering::LowerFormalArguments: a kernel's arguments are loads from the kernarg
# segment
ARGUMENT_LOAD_CCS = frozenset({"amdgpu_kernel"})
