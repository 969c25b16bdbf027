"""amdgpu's instruction semantics (targets/amdgpu/semantics.py, tdgen.model.semantics) against
the wave model's ISA semantics (patterns/wave/execute.py) for every instruction both know:
the same random registers and exec mask, the same result on every active lane (vector
results) or for the wave (scalar results); inactive lanes keep their old value in both."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from patterns.run.machine import selection_semantics
from patterns.run.machine_state import MInstr, WaveRun
from patterns.wave.assembler import run_asm
from tdgen.target_cache import load_target

ROOT = Path(__file__).resolve().parent.parent

# (spec instruction, wave-model assembly writing v3 / s3, operands in the spec's order)
# v0, v1, v2 are %a, %b, %c; s0, s1 are %sa, %sb
VECTOR = [
    ("V_ADD_U32_e64", "v_add_u32 v3, v0, v1", ["%a", "%b", "0"]),
    ("V_SUB_U32_e64", "v_sub_u32 v3, v0, v1", ["%a", "%b", "0"]),
    ("V_MUL_LO_U32_e64", "v_mul_lo_u32 v3, v0, v1", ["%a", "%b"]),
    ("V_AND_B32_e64", "v_and_b32 v3, v0, v1", ["%a", "%b"]),
    ("V_OR_B32_e64", "v_or_b32 v3, v0, v1", ["%a", "%b"]),
    ("V_XOR_B32_e64", "v_xor_b32 v3, v0, v1", ["%a", "%b"]),
    ("V_NOT_B32_e32", "v_not_b32 v3, v0", ["%a"]),
    ("V_LSHLREV_B32_e64", "v_lshlrev_b32 v3, v0, v1", ["%a", "%b"]),
    ("V_LSHRREV_B32_e64", "v_lshrrev_b32 v3, v0, v1", ["%a", "%b"]),
    ("V_ASHRREV_I32_e64", "v_ashrrev_i32 v3, v0, v1", ["%a", "%b"]),
    ("V_MIN_U32_e64", "v_min_u32 v3, v0, v1", ["%a", "%b"]),
    ("V_MAX_U32_e64", "v_max_u32 v3, v0, v1", ["%a", "%b"]),
    ("V_MIN_I32_e64", "v_min_i32 v3, v0, v1", ["%a", "%b"]),
    ("V_MAX_I32_e64", "v_max_i32 v3, v0, v1", ["%a", "%b"]),
    ("V_AND_OR_B32_e64", "v_and_or_b32 v3, v0, v1, v2", ["%a", "%b", "%c"]),
    ("V_OR3_B32_e64", "v_or3_b32 v3, v0, v1, v2", ["%a", "%b", "%c"]),
    ("V_LSHL_OR_B32_e64", "v_lshl_or_b32 v3, v0, v1, v2", ["%a", "%b", "%c"]),
    ("V_LSHL_ADD_U32_e64", "v_lshl_add_u32 v3, v0, v1, v2", ["%a", "%b", "%c"]),
    ("V_ADD_LSHL_U32_e64", "v_add_lshl_u32 v3, v0, v1, v2", ["%a", "%b", "%c"]),
    ("V_ADD3_U32_e64", "v_add3_u32 v3, v0, v1, v2", ["%a", "%b", "%c"]),
    ("V_XAD_U32_e64", "v_xad_u32 v3, v0, v1, v2", ["%a", "%b", "%c"]),
    ("V_BFI_B32_e64", "v_bfi_b32 v3, v0, v1, v2", ["%a", "%b", "%c"]),
    ("V_MBCNT_LO_U32_B32_e64", "v_mbcnt_lo_u32_b32 v3, s0, v1", ["%sa", "%b"]),
    ("V_MBCNT_HI_U32_B32_e64", "v_mbcnt_hi_u32_b32 v3, s0, v1", ["%sa", "%b"]),
    ("DS_BPERMUTE_B32", "ds_bpermute_b32 v3, v0, v1", ["%a", "%b", "0"]),
    ("DS_BPERMUTE_B32", "ds_bpermute_b32 v3, v0, v1 offset:20", ["%a", "%b", "20"]),
    ("DS_PERMUTE_B32", "ds_permute_b32 v3, v0, v1", ["%a", "%b", "0"]),
    ("DS_PERMUTE_B32", "ds_permute_b32 v3, v0, v1 offset:8", ["%a", "%b", "8"]),
    ("DS_SWIZZLE_B32", "ds_swizzle_b32 v3, v0 offset:0x801b", ["%a", str(0x801B), "0"]),
    ("DS_SWIZZLE_B32", "ds_swizzle_b32 v3, v0 offset:0x041f", ["%a", str(0x041F), "0"]),
]
SCALAR_RESULT = [
    ("V_READLANE_B32", "v_readlane_b32 s3, v0, s1", ["%a", "%sb"]),
    ("V_READFIRSTLANE_B32", "v_readfirstlane_b32 s3, v0", ["%a"]),
    ("S_AND_B32", "s_and_b32 s3, s0, s1", ["%sa", "%sb"]),
    ("S_OR_B32", "s_or_b32 s3, s0, s1", ["%sa", "%sb"]),
    ("S_XOR_B32", "s_xor_b32 s3, s0, s1", ["%sa", "%sb"]),
    ("S_ANDN2_B32", "s_andn2_b32 s3, s0, s1", ["%sa", "%sb"]),
    ("S_LSHL_B32", "s_lshl_b32 s3, s0, s1", ["%sa", "%sb"]),
    ("S_LSHR_B32", "s_lshr_b32 s3, s0, s1", ["%sa", "%sb"]),
    ("S_MIN_U32", "s_min_u32 s3, s0, s1", ["%sa", "%sb"]),
    ("S_MAX_U32", "s_max_u32 s3, s0, s1", ["%sa", "%sb"]),
    ("S_NOT_B32", "s_not_b32 s3, s0", ["%sa"]),
]


@pytest.fixture(scope="module")
def sems():
    # (the records' semantics and, for the instructions the select hooks emit, mir_semantics.py's)
    return selection_semantics(load_target(ROOT / "targets" / "amdgpu"))


def _cases(wave: int, seed: int):
    rng = np.random.default_rng(seed)
    v = {k: rng.integers(0, 1 << 32, wave, dtype=np.uint64) for k in range(3)}
    v[1][: wave // 2] = rng.integers(0, 64, wave // 2)  # small values too: shifts, addresses, lanes
    s = {k: int(rng.integers(0, 1 << 32)) for k in range(2)}
    s[1] = int(rng.integers(0, 40)) if seed % 2 else s[1]
    exec_mask = rng.random(wave) < 0.7
    exec_mask[int(rng.integers(0, wave))] = True
    return v, s, exec_mask


def _ours(sems, name, operands, v, s, exec_mask, wave, scalar):
    lanes = np.arange(wave, dtype=np.int64)
    wr = WaveRun(sems, wave, lanes, np.ones(wave, dtype=bool))
    for k, reg in enumerate(("a", "b", "c")):
        wr.set_reg(reg, "vector", v[k].copy(), np.ones(wave, dtype=bool))
    wr.set_uniform("sa", s[0])
    wr.set_uniform("sb", s[1])
    old = np.full(wave, 0x5A5A5A5A, dtype=np.uint64)
    wr.set_reg("d", "vector", old.copy(), np.ones(wave, dtype=bool))
    wr.exec = exec_mask.copy()
    rc = "SReg_32" if scalar else "VGPR_32"
    wr.execute(MInstr(name, [("%d", rc, "scalar" if scalar else "vector")], operands))
    return wr.regs["d"][1]


@pytest.mark.parametrize("wave", [32, 64])
@pytest.mark.parametrize("name,asm,operands", VECTOR, ids=[f"{c[0]}:{c[1].split(' ', 1)[1]}" for c in VECTOR])
def test_vector_semantics_match_the_wave_model(sems, name, asm, operands, wave):
    for seed in range(4):
        v, s, exec_mask = _cases(wave, seed)
        st = run_asm(asm, wave=wave, exec_mask=exec_mask, vgprs={0: v[0], 1: v[1], 2: v[2], 3: [0x5A5A5A5A] * wave},
                     sgprs={0: s[0], 1: s[1]})
        want = st.vget(3)[0].astype(np.uint64)
        got = _ours(sems, name, operands, v, s, exec_mask, wave, False)
        assert (got == want).all(), (seed, np.flatnonzero(got != want)[:4])


@pytest.mark.parametrize("wave", [32, 64])
@pytest.mark.parametrize("name,asm,operands", SCALAR_RESULT, ids=[c[0] for c in SCALAR_RESULT])
def test_scalar_results_match_the_wave_model(sems, name, asm, operands, wave):
    for seed in range(4):
        v, s, exec_mask = _cases(wave, seed)
        st = run_asm(asm, wave=wave, exec_mask=exec_mask, vgprs={0: v[0], 1: v[1]}, sgprs={0: s[0], 1: s[1]})
        want = int(st.sget(3)[0])
        got = _ours(sems, name, operands, v, s, exec_mask, wave, True)
        assert (got == want).all(), (seed, hex(int(got[0])), hex(want))


def test_every_instruction_of_the_subset_has_semantics(sems):
    # what the selection can produce runs; nothing is left without a meaning
    missing = sorted(n for n in sems.insts if sems.get(n) is None)
    assert missing == []
