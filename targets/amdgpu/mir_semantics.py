"""What llc-19's gfx900 MIR needs beyond the subset's own instructions, for the ``llc`` engine.

llc's ``-stop-after=finalize-isel`` output of a kernel also holds instructions this subset
does not select yet: kernel-argument loads, global loads and stores, moves, compares and
selects, the 64-bit address arithmetic, branches and the SI_* exec-mask pseudos. They are
not records of the target (they generate nothing); ``MIR_INSTRUCTIONS`` gives each its
LLVM operand list (``(name, register class or operand kind)``, ``brtarget`` a block) and
its semantics in the same DSL (``tdgen.model.semantics``), checked like the records'
(tests/test_semantics_check.py). The subset's instructions (alu.py ...) run with their own
semantics (semantics.py). Everything else in llc's MIR is not modeled. The same table is
what tdgen's own selection runs with (``patterns.run.machine.selection_semantics``) for the
instructions control.py declares without semantics (moves, compares, selects, the
kernel-argument loads, global accesses, branches, SI_* pseudos): one definition of each
instruction for both the ``selected`` and the ``llc`` engine. ``ENTRY_REGISTERS`` (at the
end) is the entry state of that selection's live-in registers.

Facts (GCN3/Vega ISA, LLVM 19's SIInstructions.td / SILowerControlFlow.cpp):

- ``SI_IF dst, cond, target``: ``dst = exec & ~cond``, ``exec &= cond``, branch to
  ``target`` when exec becomes 0 (s_and_saveexec + s_xor + s_cbranch_execz);
  ``SI_ELSE dst, src, target``: ``dst = exec`` (the lanes that ran the then side),
  ``exec = src & ~exec``, branch when that is 0; ``SI_END_CF mask``: ``exec |= mask``;
  ``SI_IF_BREAK dst, cond, prev``: ``dst = (exec & cond) | prev``; ``SI_LOOP mask,
  target``: ``exec &= ~mask``, back to ``target`` while exec is not 0.
- VOPC compares write a lane mask (inactive lanes 0); ``V_CNDMASK_B32 src0, src1, mask``
  picks ``src1`` where the lane's mask bit is set; SCC compares and ``S_CSELECT``.
- Carry chains: ``V_ADD_CO_U32`` writes its carry lane mask, ``V_ADDC_U32`` adds one;
  ``S_ADD_U32``/``S_ADDC_U32`` through SCC.
- Global accesses: ``saddr + zext(vaddr) + offset`` (``_SADDR`` forms), ``vaddr + offset``
  otherwise; the offset field is signed. Kernel-argument loads read the constant arena
  (``s_load`` from the kernarg segment pointer).
- results wider than 64 bits (``S_LOAD_DWORDX4``/``X8``) are written in 64-bit chunks:
  the result ``sdst#c`` is the same register's bits 64c..64c+63 (sub2c, sub2c+1).

``LLC_ARGS``: the llc command line -- ``-mtriple=amdgcn-amd-amdhsa``, not the bare
``amdgcn``: the bare triple's ABI puts 36 bytes of Mesa's implicit arguments before the
explicit ones, the HSA one lays the kernarg segment out as the launch does
(patterns/run/launch.py: explicit arguments first, code-object v5 implicit ones after);
``ARGUMENT_REGISTERS``: what each
``machineFunctionInfo.argumentInfo`` register holds at entry; ``WAVES``: the wave sizes
gfx900 runs (wave64 only).
"""

from __future__ import annotations

from tdgen.model import Sem

S = Sem

LLC_ARGS = ("-mtriple=amdgcn-amd-amdhsa", "-mcpu=gfx900", "-stop-after=finalize-isel")
WAVES = (64,)
ARGUMENT_REGISTERS = {
    "kernargSegmentPtr": "kernarg",
    "dispatchPtr": "dispatch",
    "implicitArgPtr": "implicit",
    "workItemIDX": "workitem_id_x",
    "workItemIDY": "zero",
    "workItemIDZ": "zero",
    "workGroupIDX": "workgroup_id_x",
    "workGroupIDY": "zero",
    "workGroupIDZ": "zero",
}

_V, _S, _S64, _V64 = "VGPR_32", "SReg_32", "SReg_64", "VReg_64"


def _lane_bit(mask):
    return S.ne(S.and_(S.lshr(mask, S.zext(S.lane_id(), bits=64)), 1), 0)


def _addr(base, off):
    return S.add(base, S.sext(off, bits=64))


_EXEC = S.implicit("EXEC")
_SCC = S.implicit("SCC")


def _data(n):
    """The data operand of an n-dword store: 64-bit chunks ``vdata``, ``vdata#1``."""
    return tuple(("vdata" + (f"#{c}" if c else ""), _V64) for c in range(n // 2))


def _dword_stores(addr, n):
    out = []
    for k in range(n):
        chunk = "vdata" + (f"#{k // 2}" if k // 2 else "")
        out.append(S.store("global", S.add(addr, 4 * k), S.trunc(S.lshr(chunk, 32 * (k % 2)), bits=32), 32))
    return out


def _vcmp(op):
    return ((("sdst", _S64),), (("src0", _V), ("src1", _V)), S.lane(sdst=op("src0", "src1")))


def _scmp(op):
    return ((), (("src0", _S), ("src1", _S)), S.wave(SCC=op("src0", "src1")))


MIR_INSTRUCTIONS = {
    # --- moves
    "S_MOV_B32": ((("sdst", _S),), (("src0", _S),), S.wave(sdst="src0")),
    "S_MOV_B64": ((("sdst", _S64),), (("src0", _S64),), S.wave(sdst="src0")),
    # (the pseudo llc expands after selection into two S_MOV_B32 of the halves)
    "S_MOV_B64_IMM_PSEUDO": ((("sdst", _S64),), (("src0", _S64),), S.wave(sdst="src0")),
    "V_MOV_B32_e32": ((("vdst", _V),), (("src0", _V),), S.lane(vdst="src0")),
    "V_MOV_B32_e64": ((("vdst", _V),), (("src0", _V),), S.lane(vdst="src0")),
    # --- kernel arguments and global memory
    "S_LOAD_DWORD_IMM": ((("sdst", _S),), (("sbase", _S64), ("offset", "i32imm"), ("cpol", "i32imm")),
                         S.wave(sdst=S.load(_addr("sbase", "offset"), space="global", bits=32))),
    "S_LOAD_DWORDX2_IMM": ((("sdst", _S64),), (("sbase", _S64), ("offset", "i32imm"), ("cpol", "i32imm")),
                           S.wave(sdst=S.load(_addr("sbase", "offset"), space="global", bits=64))),
    **{f"S_LOAD_DWORDX{n}_IMM": (tuple(("sdst" + (f"#{c}" if c else ""), _S64) for c in range(n // 2)),
                                 (("sbase", _S64), ("offset", "i32imm"), ("cpol", "i32imm")),
                                 S.wave(*(S.write("sdst" + (f"#{c}" if c else ""),
                                                  S.load(S.add(_addr("sbase", "offset"), 8 * c), space="global",
                                                         bits=64)) for c in range(n // 2))))
       for n in (4, 8)},
    "GLOBAL_LOAD_DWORD_SADDR": ((("vdst", _V),), (("saddr", _S64), ("vaddr", _V), ("offset", "i32imm"),
                                                  ("cpol", "i32imm")),
                                S.lane(vdst=S.load(_addr(S.add("saddr", S.zext("vaddr", bits=64)), "offset"),
                                                   space="global", bits=32))),
    "GLOBAL_LOAD_DWORD": ((("vdst", _V),), (("vaddr", _V64), ("offset", "i32imm"), ("cpol", "i32imm")),
                          S.lane(vdst=S.load(_addr("vaddr", "offset"), space="global", bits=32))),
    "GLOBAL_STORE_DWORD_SADDR": ((), (("vaddr", _V), ("vdata", _V), ("saddr", _S64), ("offset", "i32imm"),
                                      ("cpol", "i32imm")),
                                 S.lane(S.store("global", _addr(S.add("saddr", S.zext("vaddr", bits=64)), "offset"),
                                                "vdata", 32))),
    "GLOBAL_STORE_DWORD": ((), (("vaddr", _V64), ("vdata", _V), ("offset", "i32imm"), ("cpol", "i32imm")),
                           S.lane(S.store("global", _addr("vaddr", "offset"), "vdata", 32))),
    # wider accesses (what llc's load/store vectorizer makes of neighbouring dwords): a
    # store writes its dwords one by one (each compares with the IR's i32 store there)
    **{f"GLOBAL_STORE_DWORDX{n}_SADDR": ((), (("vaddr", _V), *_data(n), ("saddr", _S64), ("offset", "i32imm"),
                                              ("cpol", "i32imm")),
                                         S.lane(*_dword_stores(_addr(S.add("saddr", S.zext("vaddr", bits=64)), "offset"),
                                                               n)))
       for n in (2, 4)},
    **{f"GLOBAL_STORE_DWORDX{n}": ((), (("vaddr", _V64), *_data(n), ("offset", "i32imm"), ("cpol", "i32imm")),
                                   S.lane(*_dword_stores(_addr("vaddr", "offset"), n)))
       for n in (2, 4)},
    # --- compares and selects
    **{f"V_CMP_{n}_{t}_e64": _vcmp(op) for t, ops in (
        ("U32", {"EQ": S.eq, "NE": S.ne, "GT": S.ugt, "GE": S.uge, "LT": S.ult, "LE": S.ule}),
        ("I32", {"EQ": S.eq, "NE": S.ne, "GT": S.sgt, "GE": S.sge, "LT": S.slt, "LE": S.sle}))
       for n, op in ops.items()},
    **{f"S_CMP_{n}_{t}": _scmp(op) for t, ops in (
        ("U32", {"EQ": S.eq, "LG": S.ne, "GT": S.ugt, "GE": S.uge, "LT": S.ult, "LE": S.ule}),
        ("I32", {"EQ": S.eq, "LG": S.ne, "GT": S.sgt, "GE": S.sge, "LT": S.slt, "LE": S.sle}))
       for n, op in ops.items()},
    "S_CMP_EQ_U64": ((), (("src0", _S64), ("src1", _S64)), S.wave(SCC=S.eq("src0", "src1"))),
    "S_CMP_LG_U64": ((), (("src0", _S64), ("src1", _S64)), S.wave(SCC=S.ne("src0", "src1"))),
    "V_CNDMASK_B32_e64": ((("vdst", _V),), (("src0_modifiers", "i32imm"), ("src0", _V), ("src1_modifiers", "i32imm"),
                                            ("src1", _V), ("src2", _S64)),
                          S.lane(vdst=S.select(_lane_bit("src2"), "src1", "src0"))),
    "S_CSELECT_B32": ((("sdst", _S),), (("src0", _S), ("src1", _S)), S.wave(sdst=S.select(_SCC, "src0", "src1"))),
    "S_CSELECT_B64": ((("sdst", _S64),), (("src0", _S64), ("src1", _S64)),
                      S.wave(sdst=S.select(_SCC, "src0", "src1"))),
    # --- lane-mask logic
    "S_AND_B64": ((("sdst", _S64),), (("src0", _S64), ("src1", _S64)),
                  S.wave(sdst=S.and_("src0", "src1"), SCC=S.ne(S.and_("src0", "src1"), 0))),
    "S_OR_B64": ((("sdst", _S64),), (("src0", _S64), ("src1", _S64)),
                 S.wave(sdst=S.or_("src0", "src1"), SCC=S.ne(S.or_("src0", "src1"), 0))),
    "S_XOR_B64": ((("sdst", _S64),), (("src0", _S64), ("src1", _S64)),
                  S.wave(sdst=S.xor("src0", "src1"), SCC=S.ne(S.xor("src0", "src1"), 0))),
    "S_ANDN2_B64": ((("sdst", _S64),), (("src0", _S64), ("src1", _S64)),
                    S.wave(sdst=S.and_("src0", S.not_("src1")), SCC=S.ne(S.and_("src0", S.not_("src1")), 0))),
    # --- 64-bit arithmetic pieces
    "S_ADD_U32": ((("sdst", _S),), (("src0", _S), ("src1", _S)),
                  S.wave(sdst=S.add("src0", "src1"), SCC=S.ult(S.add("src0", "src1"), "src0"))),
    "S_ADDC_U32": ((("sdst", _S),), (("src0", _S), ("src1", _S)),
                   S.wave(sdst=S.add(S.add("src0", "src1"), S.zext(_SCC, bits=32)),
                          SCC=S.ugt(S.add(S.add(S.zext("src0", bits=64), S.zext("src1", bits=64)),
                                          S.zext(_SCC, bits=64)), 0xFFFFFFFF))),
    "V_ADD_CO_U32_e64": ((("vdst", _V), ("sdst", _S64)), (("src0", _V), ("src1", _V), ("clamp", "i1imm")),
                         S.lane(vdst=S.add("src0", "src1"), sdst=S.ult(S.add("src0", "src1"), "src0"))),
    "V_ADDC_U32_e64": ((("vdst", _V), ("sdst", _S64)), (("src0", _V), ("src1", _V), ("src2", _S64),
                                                         ("clamp", "i1imm")),
                       S.lane(vdst=S.add(S.add("src0", "src1"), S.zext(_lane_bit("src2"), bits=32)),
                              sdst=S.ugt(S.add(S.add(S.zext("src0", bits=64), S.zext("src1", bits=64)),
                                               S.zext(_lane_bit("src2"), bits=64)), 0xFFFFFFFF))),
    "V_LSHLREV_B64_e64": ((("vdst", _V64),), (("src0", _V), ("src1", _V64)),
                          S.lane(vdst=S.shl("src1", S.and_("src0", 63)))),
    # --- control flow: the exec-mask pseudos and branches
    "SI_IF": ((("dst", _S64),), (("cond", _S64), ("target", "brtarget")),
              S.wave(S.write("dst", S.and_(_EXEC, S.not_("cond"))), S.write("EXEC", S.and_(_EXEC, "cond")),
                     S.branch("target", S.eq(_EXEC, 0)))),
    "SI_ELSE": ((("dst", _S64),), (("src", _S64), ("target", "brtarget")),
                S.wave(S.write("dst", _EXEC), S.write("EXEC", S.and_("src", S.not_(_EXEC))),
                       S.branch("target", S.eq(_EXEC, 0)))),
    "SI_END_CF": ((), (("mask", _S64),), S.wave(S.write("EXEC", S.or_(_EXEC, "mask")))),
    "SI_IF_BREAK": ((("dst", _S64),), (("cond", _S64), ("prev", _S64)),
                    S.wave(dst=S.or_(S.and_(_EXEC, "cond"), "prev"))),
    "SI_LOOP": ((), (("mask", _S64), ("target", "brtarget")),
                S.wave(S.write("EXEC", S.and_(_EXEC, S.not_("mask"))), S.branch("target", S.ne(_EXEC, 0)))),
    "S_BRANCH": ((), (("target", "brtarget"),), S.wave(S.branch("target"))),
    "S_CBRANCH_SCC1": ((), (("target", "brtarget"),), S.wave(S.branch("target", S.ne(_SCC, 0)))),
    "S_CBRANCH_SCC0": ((), (("target", "brtarget"),), S.wave(S.branch("target", S.eq(_SCC, 0)))),
    "S_CBRANCH_VCCNZ": ((), (("target", "brtarget"),), S.wave(S.branch("target", S.ne(S.implicit("VCC"), 0)))),
    "S_CBRANCH_VCCZ": ((), (("target", "brtarget"),), S.wave(S.branch("target", S.eq(S.implicit("VCC"), 0)))),
    "S_CBRANCH_EXECZ": ((), (("target", "brtarget"),), S.wave(S.branch("target", S.eq(_EXEC, 0)))),
    "S_CBRANCH_EXECNZ": ((), (("target", "brtarget"),), S.wave(S.branch("target", S.ne(_EXEC, 0)))),
    "S_ENDPGM": ((), (("imm", "i16imm"),), S.wave(S.end())),
    # (a function's return: the run has no caller, so it ends the wave; the returned
    # value's $vgpr0 is not compared)
    "SI_RETURN": ((), (), S.wave(S.end())),
}
# the early-clobber forms llc prints for loads whose result overlaps the address
for _n in ("S_LOAD_DWORDX2_IMM", "S_LOAD_DWORDX4_IMM", "S_LOAD_DWORDX8_IMM"):
    MIR_INSTRUCTIONS[_n + "_ec"] = MIR_INSTRUCTIONS[_n]

# The entry state of tdgen's own selection (the ``selected`` engine): kernargs.py lowers a
# kernel's arguments with the bare ``-mtriple=amdgcn`` (Mesa) ABI -- the segment pointer in
# $sgpr2_sgpr3, the explicit arguments from byte 36 (``KERNARG_EXPLICIT_OFFSET``) -- while
# the launch (patterns/run/launch.py) and llc's HSA code put them at byte 0. So the run
# gives $sgpr2_sgpr3 the launch's kernarg address minus 36: the explicit arguments are read
# where the launch put them; Mesa's 36 bytes of implicit arguments are not modeled (a read
# of them reads outside the kernarg allocation: uninitialised memory, an illegal state).
# $vgpr0..2 hold the work-item ids (select.py's PRELOADED; only x varies in a launch).
KERNARG_POINTER = "$sgpr2_sgpr3"
KERNARG_EXPLICIT_OFFSET = 36
ENTRY_REGISTERS = {
    KERNARG_POINTER: ("kernarg", -KERNARG_EXPLICIT_OFFSET),
    "$vgpr0": ("workitem_id_x", 0),
    "$vgpr1": ("zero", 0),
    "$vgpr2": ("zero", 0),
}
