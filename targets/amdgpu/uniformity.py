"""AMDGPU uniformity facts: what LLVM 19's GCN TargetTransformInfo reports.

The data behind ``isSourceOfDivergence`` / ``isAlwaysUniform`` for amdgcn, written as
name globs over IR intrinsic names (first match wins), calling-convention and
address-space facts. Checked against ``opt-19 -mtriple=amdgcn -passes=print<uniformity>``
by tests/test_divergence_rules.py (every rule below is probed on a real call).

Facts (LLVM 19):
- sources: the structurizer's control-flow intrinsics (if/else/loop: their results
  describe a per-lane split), workitem ids, mbcnt, the interpolation intrinsics of the old (non-inreg)
  form, LDS direct/param loads, ps.live / live.mask, lane-crossing ops whose result
  differs per lane (ds.swizzle, DPP moves, permlane16/x16, writelane, inverse.ballot),
  ordered-count DS ops, matrix ops (mfma/smfmac/wmma/swmmac: per-lane fragments),
  and every atomic intrinsic (buffer/image/global/flat/DS atomics return the value each
  lane saw, which differs because the lanes are serialised);
- always uniform: readfirstlane, readlane, icmp/fcmp/ballot (wave masks), if.break, and
  the exec-mask field (index 1) of ``llvm.amdgcn.if`` / ``llvm.amdgcn.else``;
- a function whose flat work-group size is "1,1" runs on one lane: nothing diverges;
- everything else named ``llvm.*`` follows its operands (ds.bpermute / ds.permute,
  permlane64, set.inactive, wwm/wqm, reductions ...);
- kernels (amdgpu_kernel, spir_kernel) get every argument in SGPRs; graphics shader
  conventions pass an argument in SGPRs iff it is ``inreg`` or ``byval``; any other
  function iff ``inreg``;
- loads from flat (0) and private (5) memory are divergent; atomicrmw/cmpxchg results
  are divergent; calls to non-intrinsic functions are divergent;
- inline asm: divergent iff some output is not an SGPR (``s`` / ``{sN}`` / ``{s[..]}``).
"""

from tdgen.hw import DivergenceKind, DivergenceRule, UniformityModel

_S = DivergenceKind.SOURCE
_U = DivergenceKind.ALWAYS_UNIFORM

_SOURCES = (
    ("llvm.amdgcn.if", "structurizer control flow: per-lane exec split"),
    ("llvm.amdgcn.if.i*", "structurizer control flow: per-lane exec split"),
    ("llvm.amdgcn.else*", "structurizer control flow: per-lane exec split"),
    ("llvm.amdgcn.loop*", "structurizer control flow: per-lane loop exit"),
    ("llvm.amdgcn.workitem.id.*", "lane position in the workgroup"),
    ("llvm.r600.read.tidig.*", "lane position (R600 spelling)"),
    ("llvm.amdgcn.mbcnt.lo*", "count of active lanes below this lane"),
    ("llvm.amdgcn.mbcnt.hi*", "count of active lanes below this lane"),
    ("llvm.amdgcn.interp.mov*", "per-lane parameter interpolation"),
    ("llvm.amdgcn.interp.p1", "per-lane parameter interpolation"),
    ("llvm.amdgcn.interp.p1.f16", "per-lane parameter interpolation"),
    ("llvm.amdgcn.interp.p2", "per-lane parameter interpolation"),
    ("llvm.amdgcn.interp.p2.f16", "per-lane parameter interpolation"),
    ("llvm.amdgcn.lds.direct.load*", "per-lane LDS direct load"),
    ("llvm.amdgcn.lds.param.load*", "per-lane LDS parameter load"),
    ("llvm.amdgcn.ps.live", "per-lane helper-lane flag"),
    ("llvm.amdgcn.live.mask", "per-lane live flag"),
    ("llvm.amdgcn.ds.swizzle*", "lane-crossing permutation"),
    ("llvm.amdgcn.ds.ordered.add", "ordered count: distinct value per lane"),
    ("llvm.amdgcn.ds.ordered.swap", "ordered count: distinct value per lane"),
    ("llvm.amdgcn.permlane16*", "lane-crossing permutation"),
    ("llvm.amdgcn.permlanex16*", "lane-crossing permutation"),
    ("llvm.amdgcn.mov.dpp*", "DPP lane-crossing move"),
    ("llvm.amdgcn.update.dpp*", "DPP lane-crossing move"),
    ("llvm.amdgcn.writelane*", "writes one lane only"),
    ("llvm.amdgcn.inverse.ballot*", "bit of a mask selected by lane"),
    ("llvm.amdgcn.mfma.*", "matrix fragment per lane"),
    ("llvm.amdgcn.smfmac.*", "matrix fragment per lane"),
    ("llvm.amdgcn.wmma.*", "matrix fragment per lane"),
    ("llvm.amdgcn.swmmac.*", "matrix fragment per lane"),
    ("llvm.amdgcn.global.load.tr*", "transposing load: fragment per lane"),
    ("llvm.amdgcn.atomic.cond.sub.u32*", "atomic: lanes serialised"),
    ("llvm.amdgcn.global.atomic.*", "atomic: lanes serialised"),
    ("llvm.amdgcn.flat.atomic.*", "atomic: lanes serialised"),
    ("llvm.amdgcn.ds.fadd*", "atomic: lanes serialised"),
    ("llvm.amdgcn.ds.fmin*", "atomic: lanes serialised"),
    ("llvm.amdgcn.ds.fmax*", "atomic: lanes serialised"),
    ("llvm.amdgcn.raw.buffer.atomic.*", "atomic: lanes serialised"),
    ("llvm.amdgcn.struct.buffer.atomic.*", "atomic: lanes serialised"),
    ("llvm.amdgcn.raw.ptr.buffer.atomic.*", "atomic: lanes serialised"),
    ("llvm.amdgcn.struct.ptr.buffer.atomic.*", "atomic: lanes serialised"),
    ("llvm.amdgcn.image.atomic.*", "atomic: lanes serialised"),
)

_UNIFORM = (
    ("llvm.amdgcn.if.break*", "exec-mask bookkeeping"),
    ("llvm.amdgcn.readfirstlane*", "value of the first active lane"),
    ("llvm.amdgcn.readlane*", "value of one selected lane"),
    ("llvm.amdgcn.icmp*", "wave-wide comparison mask"),
    ("llvm.amdgcn.fcmp*", "wave-wide comparison mask"),
    ("llvm.amdgcn.ballot*", "wave-wide mask"),
)

UNIFORMITY = UniformityModel(
    # Always-uniform rules first: llvm.amdgcn.if.break must not match the if source.
    rules=tuple(DivergenceRule(p, _U, n) for p, n in _UNIFORM)
    + tuple(DivergenceRule(p, _S, n) for p, n in _SOURCES),
    uniform_arg_ccs=frozenset({"amdgpu_kernel", "spir_kernel"}),
    shader_ccs=frozenset(
        {
            "amdgpu_vs",
            "amdgpu_ls",
            "amdgpu_hs",
            "amdgpu_es",
            "amdgpu_gs",
            "amdgpu_ps",
            "amdgpu_cs",
            "amdgpu_gfx",
            "amdgpu_cs_chain",
            "amdgpu_cs_chain_preserve",
        }
    ),
    shader_uniform_arg_attrs=frozenset({"inreg", "byval"}),
    default_uniform_arg_attrs=frozenset({"inreg"}),
    divergent_load_address_spaces=frozenset({0, 5}),
    atomics_divergent=True,
    calls_divergent=True,
    intrinsic_prefix="llvm.",
    uniform_asm_outputs=("s", "{s[0-9]*}", "{s[[]*}", "{ttmp*}", "{vcc*}", "{exec*}", "{m0}"),
    uniform_extracts=(("llvm.amdgcn.if", 1), ("llvm.amdgcn.if.i*", 1), ("llvm.amdgcn.else*", 1)),
    single_lane_function_attrs=frozenset({"amdgpu-flat-work-group-size=1,1"}),
)
