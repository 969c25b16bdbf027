"""Moves, compares, selects, branches, returns and the first memory instructions, as llc-19 -mcpu=gfx900 names them.

What the engine used to fake with generic pseudos (``MOV_IMM``, ``SETCC``, ``BRCOND``,
``STORE`` ...) is these LLVM instructions; ``select.py`` holds the Select steps that emit
them (the parts of AMDGPUDAGToDAGISel / SITargetLowering no pattern expresses: block
operands, SCC as a condition, the kernarg segment). Operand lists are LLVM 19's
(checked with ``llc-19 -run-pass=none -verify-machineinstrs`` on ``tdgen isel --format
mir`` output, tests/test_mir_llc.py); implicit registers per instruction, as the MIR
parser requires them.

- constants: S_MOV_B32 (i32), S_MOV_B64 (an inline 64-bit constant, -16..64) and
  S_MOV_B64_IMM_PSEUDO (any other), V_MOV_B32_e32 (the zero VGPR offset of a saddr
  global access);
- compares: S_CMP_* (SOPC, writes SCC) for uniform i32 (and eq/ne i64) setcc, V_CMP_*_e64
  (a lane mask in SReg_64_XEXEC) for divergent ones; selects S_CSELECT_B32 (reads SCC)
  and V_CNDMASK_B32_e64;
- control flow: S_BRANCH, S_CBRANCH_SCC0/1, S_CBRANCH_VCCZ/VCCNZ (a branch on a lane
  mask, through VCC), S_ENDPGM (a kernel's return), SI_RETURN, and
  the divergent control-flow pseudos SI_IF / SI_ELSE / SI_LOOP / SI_END_CF / SI_IF_BREAK
  (``divergent_cf.py``);
- memory: S_LOAD_DWORD_IMM / S_LOAD_DWORDX2_IMM_ec (uniform constant-address-space
  loads and the kernel arguments), GLOBAL_STORE_DWORD_SADDR (uniform base),
  GLOBAL_STORE_DWORD / GLOBAL_LOAD_DWORD (a 64-bit VGPR address) and
  GLOBAL_LOAD_DWORD_SADDR;
- the 64-bit address arithmetic of a divergent index that may be negative:
  V_LSHLREV_B64_e64 and the carry pair V_ADD_CO_U32_e64 / V_ADDC_U32_e64.
"""

from tdgen.model import InstrClass, Instruction

from .formats import InstSI

_SCC = ["SCC"]
_EXEC = ["EXEC"]


def _cls(name: str, outs: str, ins: str, asm: str, **lets) -> InstrClass:
    return InstrClass(name, parent=InstSI, lets={"outs": outs, "ins": ins, "asm": asm, **lets})


SOP1_MOV32 = _cls("SOP1_MOV32", "(outs SReg_32:$sdst)", "(ins i32imm:$src0)", "s_mov_b32 $sdst, $src0", SALU=1,
                  isMoveImm=1, isReMaterializable=1)
SOP1_MOV64 = _cls("SOP1_MOV64", "(outs SReg_64:$sdst)", "(ins i64imm:$src0)", "s_mov_b64 $sdst, $src0", SALU=1,
                  isMoveImm=1, isReMaterializable=1)
VOP1_MOV32 = _cls("VOP1_MOV32", "(outs VGPR_32:$vdst)", "(ins i32imm:$src0)", "v_mov_b32 $vdst, $src0", VALU=1,
                  VOP1=1, isMoveImm=1, isReMaterializable=1)
SOPC_32 = _cls("SOPC_32", "(outs)", "(ins SReg_32:$src0, SReg_32:$src1)", "$src0, $src1", SALU=1)
SOPC_64 = _cls("SOPC_64", "(outs)", "(ins SReg_64:$src0, SReg_64:$src1)", "$src0, $src1", SALU=1)
VOPC_32 = _cls("VOPC_32", "(outs SReg_64_XEXEC:$sdst)", "(ins VGPR_32:$src0, VGPR_32:$src1)",
               "$sdst, $src0, $src1", VALU=1, VOP3=1, Size=8)
SOP2_CSELECT = _cls("SOP2_CSELECT", "(outs SReg_32:$sdst)", "(ins SReg_32:$src0, SReg_32:$src1)",
                    "s_cselect_b32 $sdst, $src0, $src1", SALU=1)
SOP2_CSELECT64 = _cls("SOP2_CSELECT64", "(outs SReg_64:$sdst)", "(ins SReg_64:$src0, SReg_64:$src1)",
                      "s_cselect_b64 $sdst, $src0, $src1", SALU=1)
VOP3_CNDMASK = _cls("VOP3_CNDMASK", "(outs VGPR_32:$vdst)",
                    "(ins i32imm:$src0_modifiers, VGPR_32:$src0, i32imm:$src1_modifiers, VGPR_32:$src1, "
                    "SReg_64_XEXEC:$src2)", "v_cndmask_b32 $vdst, $src0, $src1, $src2", VALU=1, VOP3=1, Size=8)
SOPP_BR = _cls("SOPP_BR", "(outs)", "(ins sopp_brtarget:$simm16)", "$simm16", SALU=1, isBranch=1,
               isTerminator=1)
SOPP_END = _cls("SOPP_END", "(outs)", "(ins i16imm:$simm16)", "s_endpgm", SALU=1, isTerminator=1, isReturn=1,
                isBarrier=1, hasSideEffects=1)
SI_RET = _cls("SI_RET", "(outs)", "(ins)", "", isTerminator=1, isReturn=1, isBarrier=1, isPseudo=1)
SMEM_1 = _cls("SMEM_1", "(outs SReg_32_XM0_XEXEC:$sdst)", "(ins SReg_64:$sbase, smem_offset:$offset, CPol:$cpol)",
              "s_load_dword $sdst, $sbase, $offset", mayLoad=1, SALU=0)
SMEM_2 = _cls("SMEM_2", "(outs SReg_64_XEXEC:$sdst)", "(ins SReg_64:$sbase, smem_offset:$offset, CPol:$cpol)",
              "s_load_dwordx2 $sdst, $sbase, $offset", mayLoad=1, Constraints="@earlyclobber $sdst")
SMEM_4 = _cls("SMEM_4", "(outs SGPR_128:$sdst)", "(ins SReg_64:$sbase, smem_offset:$offset, CPol:$cpol)",
              "s_load_dwordx4 $sdst, $sbase, $offset", mayLoad=1, Constraints="@earlyclobber $sdst")
SMEM_8 = _cls("SMEM_8", "(outs SGPR_256:$sdst)", "(ins SReg_64:$sbase, smem_offset:$offset, CPol:$cpol)",
              "s_load_dwordx8 $sdst, $sbase, $offset", mayLoad=1, Constraints="@earlyclobber $sdst")
GLOBAL_ST_SADDR = _cls("GLOBAL_ST_SADDR", "(outs)",
                       "(ins VGPR_32:$vaddr, VGPR_32:$vdata, SReg_64:$saddr, flat_offset:$offset, CPol:$cpol)",
                       "global_store_dword $vaddr, $vdata, $saddr$offset", mayStore=1)
GLOBAL_ST = _cls("GLOBAL_ST", "(outs)", "(ins VReg_64:$vaddr, VGPR_32:$vdata, flat_offset:$offset, CPol:$cpol)",
                 "global_store_dword $vaddr, $vdata, off$offset", mayStore=1)
GLOBAL_LD_SADDR = _cls("GLOBAL_LD_SADDR", "(outs VGPR_32:$vdst)",
                       "(ins SReg_64:$saddr, VGPR_32:$vaddr, flat_offset:$offset, CPol:$cpol)",
                       "global_load_dword $vdst, $vaddr, $saddr$offset", mayLoad=1)
GLOBAL_LD = _cls("GLOBAL_LD", "(outs VGPR_32:$vdst)", "(ins VReg_64:$vaddr, flat_offset:$offset, CPol:$cpol)",
                 "global_load_dword $vdst, $vaddr, off$offset", mayLoad=1)

# the 64-bit address arithmetic of a divergent address (type legalization's expansion of
# the i64 add into a carry pair, and the VALU's one 64-bit shift)
VOP3_ADD_CO = _cls("VOP3_ADD_CO", "(outs VGPR_32:$vdst, SReg_64_XEXEC:$sdst)",
                   "(ins VGPR_32:$src0, VGPR_32:$src1, clampmod0:$clamp)", "v_add_co_u32 $vdst, $sdst, $src0, $src1",
                   VALU=1, VOP3=1, Size=8)
VOP3_ADDC = _cls("VOP3_ADDC", "(outs VGPR_32:$vdst, SReg_64_XEXEC:$sdst)",
                 "(ins VGPR_32:$src0, VGPR_32:$src1, SReg_64_XEXEC:$src2, clampmod0:$clamp)",
                 "v_addc_co_u32 $vdst, $sdst, $src0, $src1, $src2", VALU=1, VOP3=1, Size=8)
VOP3_SHL64 = _cls("VOP3_SHL64", "(outs VReg_64:$vdst)", "(ins VGPR_32:$src0, VReg_64:$src1)",
                  "v_lshlrev_b64 $vdst, $src0, $src1", VALU=1, VOP3=1, Size=8)

# the control-flow pseudos SIAnnotateControlFlow's intrinsics select to (SIInstructions.td)
SI_CF_IF = _cls("SI_CF_IF", "(outs SReg_64:$dst)", "(ins SReg_64:$vcc, sopp_brtarget:$target)", "", isPseudo=1,
                isBranch=1, isTerminator=1)
SI_CF_LOOP = _cls("SI_CF_LOOP", "(outs)", "(ins SReg_64:$saved, sopp_brtarget:$target)", "", isPseudo=1,
                  isBranch=1, isTerminator=1)
SI_CF_END = _cls("SI_CF_END", "(outs)", "(ins SReg_64:$saved)", "", isPseudo=1, hasSideEffects=1)
SI_CF_BREAK = _cls("SI_CF_BREAK", "(outs SReg_64:$dst)", "(ins SReg_64:$vcc, SReg_64:$src)", "", isPseudo=1)

CLASSES = (SI_CF_IF, SI_CF_LOOP, SI_CF_END, SI_CF_BREAK, SOP1_MOV32, SOP1_MOV64, VOP1_MOV32, SOPC_32, SOPC_64, VOPC_32, SOP2_CSELECT, SOP2_CSELECT64, VOP3_CNDMASK, SOPP_BR,
           SOPP_END, SI_RET, SMEM_1, SMEM_2, SMEM_4, SMEM_8, GLOBAL_ST_SADDR, GLOBAL_ST, GLOBAL_LD_SADDR, GLOBAL_LD,
           VOP3_ADD_CO, VOP3_ADDC, VOP3_SHL64)

# ISD condition code -> the S_CMP / V_CMP suffix (LLVM's SOPC and VOPC patterns)
CMP_SUFFIX = {
    "SETEQ": ("EQ", "U32"), "SETNE": ("LG", "U32"), "SETLT": ("LT", "I32"), "SETLE": ("LE", "I32"),
    "SETGT": ("GT", "I32"), "SETGE": ("GE", "I32"), "SETULT": ("LT", "U32"), "SETULE": ("LE", "U32"),
    "SETUGT": ("GT", "U32"), "SETUGE": ("GE", "U32"),
}
# the VOPC spelling of "not equal" is NE (SOPC's is LG)
S_CMP = {cc: f"S_CMP_{op}_{ty}" for cc, (op, ty) in CMP_SUFFIX.items()}
V_CMP = {cc: f"V_CMP_{'NE' if op == 'LG' else op}_{ty}_e64" for cc, (op, ty) in CMP_SUFFIX.items()}
S_CMP64 = {"SETEQ": "S_CMP_EQ_U64", "SETNE": "S_CMP_LG_U64"}

DEFS = (
    Instruction("S_MOV_B32", SOP1_MOV32),
    Instruction("S_MOV_B64", SOP1_MOV64),
    Instruction("S_MOV_B64_IMM_PSEUDO", SOP1_MOV64, lets={"isPseudo": 1}),
    Instruction("V_MOV_B32_e32", VOP1_MOV32, implicit_uses=_EXEC),
    *(Instruction(name, SOPC_32, implicit_defs=_SCC) for name in sorted(set(S_CMP.values()))),
    *(Instruction(name, SOPC_64, implicit_defs=_SCC) for name in sorted(S_CMP64.values())),
    *(Instruction(name, VOPC_32, implicit_uses=_EXEC) for name in sorted(set(V_CMP.values()))),
    Instruction("S_CSELECT_B32", SOP2_CSELECT, implicit_uses=_SCC),
    Instruction("S_CSELECT_B64", SOP2_CSELECT64, implicit_uses=_SCC),
    Instruction("V_CNDMASK_B32_e64", VOP3_CNDMASK, implicit_uses=_EXEC),
    Instruction("S_BRANCH", SOPP_BR, lets={"isBarrier": 1}),
    Instruction("S_CBRANCH_SCC0", SOPP_BR, implicit_uses=_SCC),
    Instruction("S_CBRANCH_SCC1", SOPP_BR, implicit_uses=_SCC),
    Instruction("S_CBRANCH_VCCNZ", SOPP_BR, implicit_uses=["VCC"]),
    Instruction("S_CBRANCH_VCCZ", SOPP_BR, implicit_uses=["VCC"]),
    Instruction("S_ENDPGM", SOPP_END),
    Instruction("SI_IF", SI_CF_IF, implicit_defs=["EXEC", "SCC"], implicit_uses=_EXEC),
    Instruction("SI_ELSE", SI_CF_IF, implicit_defs=["EXEC", "SCC"], implicit_uses=_EXEC),
    Instruction("SI_LOOP", SI_CF_LOOP, implicit_defs=["EXEC", "SCC"], implicit_uses=_EXEC),
    Instruction("SI_END_CF", SI_CF_END, implicit_defs=["EXEC", "SCC"], implicit_uses=_EXEC),
    Instruction("SI_IF_BREAK", SI_CF_BREAK, implicit_defs=_SCC),
    Instruction("SI_RETURN", SI_RET),
    Instruction("S_LOAD_DWORD_IMM", SMEM_1),
    Instruction("S_LOAD_DWORDX2_IMM_ec", SMEM_2),
    Instruction("S_LOAD_DWORDX2_IMM", SMEM_2, lets={"Constraints": ""}),
    Instruction("S_LOAD_DWORDX4_IMM", SMEM_4, lets={"Constraints": ""}),
    Instruction("S_LOAD_DWORDX8_IMM", SMEM_8, lets={"Constraints": ""}),
    Instruction("S_LOAD_DWORDX4_IMM_ec", SMEM_4),
    Instruction("S_LOAD_DWORDX8_IMM_ec", SMEM_8),
    Instruction("GLOBAL_STORE_DWORD_SADDR", GLOBAL_ST_SADDR, implicit_uses=_EXEC),
    Instruction("GLOBAL_STORE_DWORD", GLOBAL_ST, implicit_uses=_EXEC),
    Instruction("V_ADD_CO_U32_e64", VOP3_ADD_CO, implicit_uses=_EXEC),
    Instruction("V_ADDC_U32_e64", VOP3_ADDC, implicit_uses=_EXEC),
    Instruction("V_LSHLREV_B64_e64", VOP3_SHL64, implicit_uses=_EXEC),
    Instruction("GLOBAL_LOAD_DWORD_SADDR", GLOBAL_LD_SADDR, implicit_uses=_EXEC),
    Instruction("GLOBAL_LOAD_DWORD", GLOBAL_LD, implicit_uses=_EXEC),
)
