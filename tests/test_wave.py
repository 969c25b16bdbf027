"""Wavefront model: instruction semantics, DS permutes, swizzle/DPP, errors, LLVM oracles."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llvm_tools import require
from patterns.wave.asm import encode_swizzle_macro
from patterns.wave.assembler import assemble, run_asm
from patterns.wave.execute import swizzle_source_lanes
from patterns.wave.state import WaveState
from tdgen.errors import ParseError, TdgenError

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "wave"


def lanes(st_: WaveState, r: int) -> list[int]:
    return [int(x) for x in st_.vget(r)[0]]


def mask(bits: list[int], wave: int) -> np.ndarray:
    m = np.zeros(wave, dtype=bool)
    m[bits] = True
    return m


# --- lane id, VALU, SALU, lane ops -------------------------------------------------------

@pytest.mark.parametrize("wave", [32, 64])
def test_mbcnt_gives_lane_id_and_counts_mask_bits(wave):
    text = "v_mbcnt_lo_u32_b32 v1, -1, 0\n"
    if wave == 64:
        text += "v_mbcnt_hi_u32_b32 v1, -1, v1\n"
    text += "s_mov_b32 s0, 0x0000f00f\nv_mbcnt_lo_u32_b32 v2, s0, 7\n"  # (no literal in GFX9's VOP3)
    s = run_asm(text, wave=wave)
    assert lanes(s, 1) == list(range(wave))
    # popcount of 0xf00f below each lane (lanes >= 32 count all 8 bits) plus 7
    want = [bin(0xF00F & ((1 << min(i, 32)) - 1)).count("1") + 7 for i in range(wave)]
    assert lanes(s, 2) == want


def test_valu_writes_only_active_lanes_and_wraps_32_bits():
    ex = mask([0, 2], 64)
    s = run_asm("v_add_u32 v1, -1, v0\nv_sub_u32 v2, 0, v0\nv_ashrrev_i32 v3, 1, v2", wave=64, exec_mask=ex,
                vgprs={0: np.arange(64) + 1, 1: np.full(64, 9), 2: np.full(64, 9), 3: np.full(64, 9)})
    assert lanes(s, 1)[:4] == [0, 9, 2, 9]
    assert lanes(s, 2)[:3] == [0xFFFFFFFF, 9, 0xFFFFFFFD]
    assert lanes(s, 3)[:3] == [0xFFFFFFFF, 9, 0xFFFFFFFE]


def test_compare_writes_zero_for_inactive_lanes_and_cndmask_selects():
    ex = mask(list(range(8)), 32)
    s = run_asm("v_mbcnt_lo_u32_b32 v1, -1, 0\nv_cmp_lt_u32 vcc_lo, v1, 4\ns_mov_b32 exec_lo, -1\n"
                "v_cndmask_b32 v2, 10, 20, vcc_lo", wave=32, exec_mask=ex)
    assert lanes(s, 2) == [20] * 4 + [10] * 28
    assert WaveState.mask_to_int(s.vcc[0]) == 0xF


def test_saveexec_restores_exec():
    s = run_asm("v_mbcnt_lo_u32_b32 v1, -1, 0\nv_mbcnt_hi_u32_b32 v1, -1, v1\n"
                "v_cmp_ge_u32 vcc, v1, 60\ns_and_saveexec_b64 s[2:3], vcc\nv_mov_b32 v2, 5\n"
                "s_mov_b64 exec, s[2:3]", wave=64)
    assert lanes(s, 2) == [0] * 60 + [5] * 4
    assert s.exec.all()
    assert int(s.sget(2)[0]) == 0xFFFFFFFF and int(s.sget(3)[0]) == 0xFFFFFFFF


def test_readlane_readfirstlane_writelane_ignore_exec():
    ex = mask([5, 9], 64)
    s = run_asm("v_readlane_b32 s1, v0, 3\nv_readfirstlane_b32 s2, v0\nv_writelane_b32 v1, s1, 40", wave=64,
                exec_mask=ex, vgprs={0: np.arange(64) + 100})
    assert int(s.sget(1)[0]) == 103
    assert int(s.sget(2)[0]) == 105
    assert lanes(s, 1)[40] == 103 and lanes(s, 1)[5] == 0
    empty = run_asm("v_readfirstlane_b32 s2, v0", wave=32, exec_mask=np.zeros(32, bool),
                    vgprs={0: np.arange(32) + 7})
    assert int(empty.sget(2)[0]) == 7  # empty exec reads lane 0


# --- ds_bpermute / ds_permute -------------------------------------------------------------

def test_bpermute_8_lane_example_addresses_8_and_9_both_read_lane_2():
    # 8 active lanes; byte addresses: only bits [7:2] count, so 8 and 9 both name lane 2
    addr = [0, 28, 8, 9, 4, 12, 16, 20] + [0] * 24
    s = run_asm("ds_bpermute_b32 v2, v1, v0", wave=32, exec_mask=mask(list(range(8)), 32),
                vgprs={0: np.arange(32) * 10, 1: addr, 2: np.full(32, 777)})
    got = lanes(s, 2)
    assert got[:8] == [0, 70, 20, 20, 10, 30, 40, 50]
    assert got[8:] == [777] * 24  # inactive lanes are not written


def test_bpermute_offset_and_inactive_source_reads_zero():
    ex = mask([0, 1, 2, 3], 64)
    s = run_asm("ds_bpermute_b32 v2, v1, v0 offset:4", wave=64, exec_mask=ex,
                vgprs={0: np.arange(64) + 100, 1: [0, 4, 8, 12] + [0] * 60})
    # lane 3 reads lane 4, which is inactive -> 0
    assert lanes(s, 2)[:4] == [101, 102, 103, 0]


def test_bpermute_wave64_full_versus_half():
    addr = [((i + 32) % 64) * 4 for i in range(64)]  # every lane reads the other half
    vals = np.arange(64) + 1000
    full = run_asm("ds_bpermute_b32 v2, v1, v0", wave=64, vgprs={0: vals, 1: addr}, bpermute_wave64="full")
    half = run_asm("ds_bpermute_b32 v2, v1, v0", wave=64, vgprs={0: vals, 1: addr}, bpermute_wave64="half")
    assert lanes(full, 2) == [1000 + (i + 32) % 64 for i in range(64)]
    assert lanes(half, 2) == [1000 + i for i in range(64)]  # index bits [6:2] stay within the half


def test_forward_permute_conflict_highest_lane_wins_and_unwritten_slots_read_zero():
    # lanes 1, 2 and 5 all write slot 3; nobody writes slot 0
    index = [6, 3, 3, 1, 2, 3, 4, 7]
    s = run_asm("ds_permute_b32 v2, v1, v0", wave=32, exec_mask=mask(list(range(8)), 32),
                vgprs={0: np.arange(32) + 100, 1: [i * 4 for i in index] + [0] * 24})
    got = lanes(s, 2)[:8]
    assert got[3] == 105  # lane 5 > lane 2 > lane 1
    assert got[0] == 0 and got[5] == 0  # slots nobody wrote
    assert got[6] == 100 and got[1] == 103 and got[2] == 104 and got[4] == 106 and got[7] == 107


def _perm_asm():
    return "ds_permute_b32 v2, v1, v0\ns_waitcnt lgkmcnt(0)\nds_bpermute_b32 v3, v1, v2\ns_waitcnt lgkmcnt(0)\n"


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([32, 64]), st.data())
def test_permute_then_bpermute_with_same_indices_is_identity(wave, data):
    perm = data.draw(st.permutations(list(range(wave))))
    vals = data.draw(st.lists(st.integers(0, 2**32 - 1), min_size=wave, max_size=wave))
    s = run_asm(_perm_asm(), wave=wave, vgprs={0: vals, 1: [p * 4 for p in perm]})
    # forward permute scatters v0 to perm; backward permute gathers it back
    assert lanes(s, 2) == [vals[perm.index(i)] for i in range(wave)]
    assert lanes(s, 3) == vals


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([32, 64]), st.data())
def test_bpermute_by_permutation_then_by_inverse_is_identity(wave, data):
    perm = data.draw(st.permutations(list(range(wave))))
    inv = [0] * wave
    for i, p in enumerate(perm):
        inv[p] = i
    vals = data.draw(st.lists(st.integers(0, 2**32 - 1), min_size=wave, max_size=wave))
    s = run_asm("ds_bpermute_b32 v3, v1, v0\nds_bpermute_b32 v4, v2, v3\n", wave=wave,
                vgprs={0: vals, 1: [p * 4 for p in perm], 2: [q * 4 for q in inv]})
    assert lanes(s, 3) == [vals[perm[i]] for i in range(wave)]
    assert lanes(s, 4) == [vals[perm[inv[i]]] for i in range(wave)] == vals


# --- ds_swizzle and DPP ------------------------------------------------------------------

def test_swizzle_bitmask_and_quad_perm_within_32_lane_groups():
    assert list(swizzle_source_lanes(0x041F, 64)[:4]) == [1, 0, 3, 2]  # xor 1
    assert list(swizzle_source_lanes(0x801B, 32)[:8]) == [3, 2, 1, 0, 7, 6, 5, 4]
    bcast = swizzle_source_lanes(encode_swizzle_macro("BROADCAST", (8, 5)), 64)
    assert list(bcast[:16]) == [5] * 8 + [13] * 8 and bcast[40] == 45
    ex = mask([0, 1, 2], 32)
    s = run_asm("ds_swizzle_b32 v2, v0 offset:swizzle(QUAD_PERM,3,2,1,0)", wave=32, exec_mask=ex,
                vgprs={0: np.arange(32) + 100})
    assert lanes(s, 2)[:4] == [0, 102, 101, 0]  # lane 0 reads inactive lane 3 -> 0; lane 3 inactive


def test_dpp_row_shr_keeps_old_value_without_bound_ctrl_and_zeroes_with_it():
    vals = np.arange(64) + 100
    keep = run_asm("v_mov_b32 v2, v0\nv_mov_b32_dpp v2, v0 row_shr:3 row_mask:0xf bank_mask:0xf", wave=64,
                   vgprs={0: vals})
    zero = run_asm("v_mov_b32_dpp v2, v0 row_shr:3 bound_ctrl:0", wave=64, vgprs={0: vals, 2: np.full(64, 5)})
    assert lanes(keep, 2)[:6] == [100, 101, 102, 100, 101, 102]
    assert lanes(keep, 2)[16:20] == [116, 117, 118, 116]
    assert lanes(zero, 2)[:4] == [0, 0, 0, 100]
    masked = run_asm("v_mov_b32_dpp v2, v0 row_mirror row_mask:0x1", wave=64, vgprs={0: vals, 2: np.full(64, 5)})
    assert lanes(masked, 2)[:2] == [115, 114] and lanes(masked, 2)[16] == 5


def test_permlane64_swaps_halves():
    s = run_asm("v_permlane64_b32 v1, v0", wave=64, vgprs={0: np.arange(64)})
    assert lanes(s, 1) == list(range(32, 64)) + list(range(32))


def _llvm_swizzle_lane_map(text: str, wave: int) -> np.ndarray:
    """Interpret LLVM's printed ``offset:...`` form of a ds_swizzle (the oracle's decoding)."""
    m = re.fullmatch(r"swizzle\((\w+)((?:,[^,)]+)*)\)", text)
    if m is None:
        return swizzle_source_lanes(int(text, 0), wave)
    args = tuple(a.strip('"') if a.startswith('"') else int(a) for a in m.group(2).split(",")[1:])
    return swizzle_source_lanes(encode_swizzle_macro(m.group(1), args), wave)


def test_swizzle_offset_decoding_matches_llc(tmp_path):
    llc = require("llc-19")
    offsets = [0x8000, 0x801B, 0x80E4, 0x8055, 0x041F, 0x081F, 0x0C1F, 0x001F, 0x03FF, 0x0018, 0x00B8, 0x140A,
               0x7FFF, 0x0000, 0x1234, 0x3C1F, 0x101F]
    body = []
    for k, off in enumerate(offsets):
        body.append(f"  %r{k} = call i32 @llvm.amdgcn.ds.swizzle(i32 %src, i32 {off})\n"
                    f"  store volatile i32 %r{k}, ptr addrspace(1) %out\n")
    ll = ("declare i32 @llvm.amdgcn.ds.swizzle(i32, i32)\n"
          "define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %src) {\n" + "".join(body) + "  ret void\n}\n")
    src = tmp_path / "swz.ll"
    src.write_text(ll)
    asm = subprocess.run([llc, "-mtriple=amdgcn", "-mcpu=gfx900", str(src), "-o", "-"], check=True,
                         capture_output=True, text=True).stdout
    # offset 0 is printed without an offset field
    printed = [m or "0" for m in re.findall(r"ds_swizzle_b32 \S+, \S+(?: offset:(\S+))?\n", asm)]
    assert len(printed) == len(offsets)
    for off, text in zip(offsets, printed):
        assert np.array_equal(_llvm_swizzle_lane_map(text, 64), swizzle_source_lanes(off, 64)), (hex(off), text)


def test_lowered_and_golden_programs_assemble_with_llvm_mc(tmp_path):
    mc = require("llvm-mc-19")
    from patterns.wave import choice
    from patterns.wave import lowering as sl

    jobs = []
    for mode in ("idx", "up", "down", "bfly"):
        jobs.append(("gfx900", "+wavefrontsize64", sl.lower(mode, 64, None, bits=64).asm))
        jobs.append(("gfx900", "+wavefrontsize64", sl.lower_cuda(mode, 16, 64, bits=64).asm))
        jobs.append(("gfx1100", "+wavefrontsize64", sl.lower(mode, 64, None, bits=64, bpermute_wave64="half").asm))
        jobs.append(("gfx1100", "+wavefrontsize32", sl.lower(mode, 32, None, bits=64).asm))
        jobs.append(("gfx1100", "+wavefrontsize32", sl.lower_hip(mode, 8, 32).asm))
        jobs.append(("gfx900", "+wavefrontsize64", sl.lower_constant(mode, 5, 16, 64).asm))
        jobs.append(("gfx1100", "+wavefrontsize64", sl.lower_constant(mode, 37, 64, 64, bpermute_wave64="half").asm))
        jobs.append(("gfx1100", "+wavefrontsize32", sl.lower_constant(mode, 3, 8, 32).asm))
    for ch in (choice.choose("up", 3, 16, 64), choice.choose("bfly", 16, 32, 64), choice.choose("bfly", 1, 32, 64)):
        jobs.append(("gfx900", "+wavefrontsize64", ch.lowering.asm))
    jobs.append(("gfx1100", "+wavefrontsize32", (GOLDEN / "pass" / "wave32_saveexec.s").read_text()))
    jobs.append(("gfx1100", "+wavefrontsize64", (GOLDEN / "pass" / "all_instruction_kinds.s").read_text()))
    for cpu, attr, text in jobs:
        f = tmp_path / "x.s"
        f.write_text(text)
        r = subprocess.run([mc, "-arch=amdgcn", f"-mcpu={cpu}", f"-mattr={attr}", str(f), "-o", "/dev/null"],
                           capture_output=True, text=True)
        assert r.returncode == 0 and "error" not in r.stderr, (cpu, attr, r.stderr, text)


# --- text errors ---------------------------------------------------------------------------

FAIL = sorted((GOLDEN / "fail").glob("*.s"))
PASS = sorted((GOLDEN / "pass").glob("*.s"))


@pytest.mark.parametrize("path", FAIL, ids=[p.name for p in FAIL])
def test_golden_fail(path):
    rel = path.relative_to(ROOT).as_posix()
    with pytest.raises(TdgenError) as e:
        assemble(path.read_text(), rel, 32 if "wave32" in path.name else 64)
    assert e.value.format() + "\n" == path.with_suffix(".err").read_text()


@pytest.mark.parametrize("path", PASS, ids=[p.name for p in PASS])
def test_golden_pass(path):
    wave = 32 if "wave32" in path.name else 64
    code = assemble(path.read_text(), path.name, wave)
    n_instr = sum(1 for ln in path.read_text().splitlines() if re.sub(r"(;|//|#).*", "", ln).strip())
    assert len(code.ops) == n_instr
    code.execute(WaveState(wave, 2))


def test_golden_corpus_is_not_empty():
    assert len(FAIL) >= 10 and len(PASS) >= 2


def test_parse_error_kinds_and_positions():
    with pytest.raises(TdgenError) as e:  # two errors on one line: an ErrorList of ParseErrors
        assemble("v_mov_b32 v1, v2\n  ds_bpermute_b32 v0, v1 v2\n")
    assert e.value.format() == ("<asm>:2:3: expected 3 operands for ds_bpermute_b32, found 2\n"
                                "<asm>:2:26: expected one of the modifiers offset of ds_bpermute_b32, found 'v2'")
    assert all(isinstance(x, ParseError) for x in e.value.errors)
    with pytest.raises(ParseError) as e:
        assemble("v_mov_b32 v1, @\n")
    assert e.value.format() == "<asm>:1:15: expected an instruction, operand or modifier, found '@'"


def test_swizzle_macro_encoder_and_printer_match_llvm_mc(tmp_path):
    """llvm-mc-19 encodes every offset:swizzle(...) macro; the DS word's low 16 bits are the offset."""
    import random

    from patterns.wave.asm import swizzle_offset_text

    mc = require("llvm-mc-19")
    rnd = random.Random(7)
    macros = [("SWAP", (n,)) for n in (1, 2, 4, 8, 16)] + [("REVERSE", (n,)) for n in (2, 4, 8, 16, 32)]
    macros += [("BROADCAST", (n, k)) for n in (2, 4, 8, 16, 32) for k in sorted({0, n // 2, n - 1})]
    macros += [("BITMASK_PERM", ("".join(rnd.choice("01pi") for _ in range(5)),)) for _ in range(40)]
    macros += [("QUAD_PERM", tuple(rnd.randrange(4) for _ in range(4))) for _ in range(20)]
    ours = [encode_swizzle_macro(m, a) for m, a in macros]
    lines = [f"ds_swizzle_b32 v2, v0 offset:swizzle({m}," + ",".join(f'"{x}"' if isinstance(x, str) else str(x)
                                                                      for x in a) + ")" for m, a in macros]
    # our own printed form of each offset must assemble back to the same offset
    lines += [f"ds_swizzle_b32 v2, v0 offset:{swizzle_offset_text(off)}" for off in ours]
    src = tmp_path / "swz.s"
    src.write_text("\n".join(lines) + "\n")
    out = subprocess.run([mc, "-arch=amdgcn", "-mcpu=gfx900", "-show-encoding", str(src)], check=True,
                         capture_output=True, text=True).stdout
    enc = [int(b1, 16) | (int(b2, 16) << 8) for b1, b2 in re.findall(r"encoding: \[(0x[0-9a-f]+),(0x[0-9a-f]+),", out)]
    assert enc == ours + ours


def test_printed_swizzle_offsets_keep_their_lane_map():
    from patterns.wave.asm import swizzle_offset_text

    for off in list(range(0, 0x8000, 13)) + list(range(0x8000, 0x8100)):
        text = swizzle_offset_text(off)
        m = re.fullmatch(r'swizzle\((\w+),(.*)\)', text)
        args = tuple(a.strip('"') if a.startswith('"') else int(a) for a in m.group(2).split(","))
        back = encode_swizzle_macro(m.group(1), args)
        assert np.array_equal(swizzle_source_lanes(back, 64), swizzle_source_lanes(off, 64)), (hex(off), text)
