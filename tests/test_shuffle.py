"""Shuffle reference semantics, lowerings, proof and the shuffle / verify-shuffles commands."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from patterns.wave import shuffle as ref
from patterns.wave import choice, proof
from patterns.wave import lowering as sl
from testkit import shuffle_ir
from tdgen.cli import main
from tdgen.spec import list_targets

ROOT = Path(__file__).resolve().parent.parent
FULL = {32: (1 << 32) - 1, 64: (1 << 64) - 1}


def cuda(mode, operand, width, wave=32, values=None, exec_mask=None, member=None):
    """One case of the reference: (values or None per lane, preds or None per lane)."""
    values = list(range(100, 100 + wave)) if values is None else values
    ex = ref.lanes_of(FULL[wave] if exec_mask is None else exec_mask, wave)
    mem = ref.lanes_of(FULL[wave] if member is None else member, wave)
    res = ref.cuda_shfl(mode, np.array([values], dtype=np.uint64), np.array([operand]), width, mem, ex, wave)
    return ref.to_json_lists(res, 0, 64)


def lowered(mode, operand, width, wave=32, values=None, exec_mask=None, scope="full"):
    """The general ds_bpermute lowering run in the wave model: values on active lanes."""
    values = list(range(100, 100 + wave)) if values is None else values
    ex = ref.lanes_of(FULL[wave] if exec_mask is None else exec_mask, wave)
    low = sl.lower_cuda(mode, width, wave, bpermute_wave64=scope)
    s = sl.run_lowering(low, np.array([values], dtype=np.uint64), 0, np.array([operand]), ex)
    return [int(v) if ex[0, i] else None for i, v in enumerate(s.vget(sl.V_RES_LO)[0])], \
        [bool(p) if ex[0, i] else None for i, p in enumerate(s.vget(sl.V_PRED)[0])]


BOTH = pytest.mark.parametrize("wave,scope", [(32, "full"), (64, "full"), (64, "half")])


# --- worked examples of the porting guide (reference and lowered) --------------------------

@BOTH
def test_broadcast_lane_3_width_16(wave, scope):
    want = [100 + (i // 16) * 16 + 3 for i in range(wave)]
    assert cuda("idx", 3, 16, wave)[0] == want
    assert lowered("idx", 3, 16, wave, scope=scope)[0] == want


@BOTH
def test_shfl_up_by_3_leaves_lowest_3_lanes_of_each_segment_unchanged(wave, scope):
    want = [100 + (i if i % 16 < 3 else i - 3) for i in range(wave)]
    vals, preds = cuda("up", 3, 16, wave)
    assert vals == want
    assert preds == [i % 16 >= 3 for i in range(wave)]
    assert lowered("up", 3, 16, wave, scope=scope) == (want, preds)


@BOTH
def test_shfl_down_tree_reduction_leaves_sum_in_lane_0(wave, scope):
    vals = [(i * 7 + 3) % 50 for i in range(wave)]
    ref_vals, low_vals = list(vals), list(vals)
    off = wave // 2
    while off:
        got = cuda("down", off, wave, wave, values=ref_vals)[0]
        ref_vals = [a + b for a, b in zip(ref_vals, got)]
        got_l = lowered("down", off, wave, wave, values=low_vals, scope=scope)[0]
        low_vals = [(a + b) & 0xFFFFFFFF for a, b in zip(low_vals, got_l)]
        off //= 2
    assert ref_vals[0] == sum(vals) == low_vals[0]


@BOTH
def test_xor_lane_mask_3(wave, scope):
    for vals in (cuda("bfly", 3, wave, wave)[0], lowered("bfly", 3, wave, wave, scope=scope)[0]):
        assert vals[0] == 103 and vals[1] == 102 and vals[2] == 101 and vals[3] == 100
        assert vals == [100 + (i ^ 3) for i in range(wave)]


# --- reference semantics against an independent per-lane reading of the PTX pseudo-code ---

def ptx_lane(mode, lane, b, c, member, exec_mask, values):
    """Plain per-lane transcription of PTX shfl.sync (wave32): (value or None, pred or None)."""
    if not (exec_mask >> lane) & 1 or not (member >> lane) & 1:
        return None, None
    bval, cval, segmask = b & 0x1F, c & 0x1F, (c >> 8) & 0x1F
    max_lane = (lane & segmask) | (cval & ~segmask & 0x1F)
    min_lane = lane & segmask
    if mode == "up":
        j = lane - bval
        pval = j >= max_lane
    elif mode == "down":
        j = lane + bval
        pval = j <= max_lane
    elif mode == "bfly":
        j = lane ^ bval
        pval = j <= max_lane
    else:
        j = min_lane | (bval & ~segmask & 0x1F)
        pval = j <= max_lane
    if not pval:
        j = lane
    ok = (exec_mask >> j) & 1 and (member >> j) & 1
    return (values[j] if ok else None), pval


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(ref.MODES), st.integers(0, 2**32 - 1), st.integers(0, 0x1FFF),
       st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1))
def test_nvvm_reference_matches_ptx_pseudocode(mode, b, c, member, exec_mask):
    values = [(i * 2654435761) & 0xFFFFFFFF for i in range(32)]
    res = ref.nvvm_shfl(mode, np.array([values], dtype=np.uint64), np.array([b]), np.array([c]),
                        ref.lanes_of(member, 32), ref.lanes_of(exec_mask, 32), 32)
    got = ref.to_json_lists(res, 0, 32)
    want = [ptx_lane(mode, i, b, c, member, exec_mask, values) for i in range(32)]
    assert got == ([w[0] for w in want], [w[1] for w in want])


def test_clang_c_operand_from_width():
    # clang: ((warpSize - width) << 8) | 0x1f, and 0 instead of 0x1f for shfl_up
    assert ref.clang_c("idx", 32, 32) == 0x1F and ref.clang_c("idx", 16, 32) == 0x101F
    assert ref.clang_c("up", 16, 32) == 0x1000 and ref.clang_c("down", 8, 32) == 0x181F
    assert ref.clang_c("bfly", 1, 32) == 0x1F1F


def test_cuda_documented_behaviours():
    # srcLane outside [0, width-1] reads srcLane modulo width (within the segment)
    assert cuda("idx", 19, 16)[0] == cuda("idx", 3, 16)[0]
    assert cuda("idx", -1, 8)[0][:8] == [107] * 8
    # xor may read an earlier segment but returns its own value for a later one
    vals, preds = cuda("bfly", 8, 8)
    assert vals[8] == 100 and preds[8] is True  # lane 8 reads lane 0 (earlier segment)
    assert vals[0] == 100 and preds[0] is False  # lane 0 would read lane 8 (later): unchanged
    # out-of-range delta: only b[4:0] counts (delta 33 acts as 1, delta 32 as 0)
    assert cuda("down", 33, 32)[0] == cuda("down", 1, 32)[0]
    assert cuda("up", 32, 32) == ([100 + i for i in range(32)], [True] * 32)


def test_undefined_results_are_reported_as_none():
    # lane 5 is not in mask: undefined behaviour for that lane; lanes reading lane 5 get undefined
    vals, preds = cuda("idx", 5, 32, member=FULL[32] & ~(1 << 5))
    assert vals == [None] * 32
    assert preds[5] is None and preds[0] is True
    # an inactive source lane: undefined value, defined predicate
    vals, preds = cuda("down", 1, 32, exec_mask=0b1011)
    assert vals[:4] == [101, None, None, None] and preds[:4] == [True, True, None, True]


def test_64_bit_values_are_two_32_bit_shuffles():
    wave = 64
    vals = [(i << 40) | (0xFFFFFFFF - i) for i in range(wave)]
    want = cuda("bfly", 5, 16, wave, values=vals)[0]
    low = sl.lower_cuda("bfly", 16, wave, bits=64)
    arr = np.array([vals], dtype=np.uint64)
    s = sl.run_lowering(low, arr & np.uint64(0xFFFFFFFF), arr >> np.uint64(32), np.array([5]),
                        np.ones((1, wave), bool))
    got = [int(lo) | (int(hi) << 32) for lo, hi in zip(s.vget(sl.V_RES_LO)[0], s.vget(sl.V_RES_HI)[0])]
    assert got == want


# --- HIP formulas --------------------------------------------------------------------------

@pytest.mark.parametrize("wave", [32, 64])
def test_hip_agrees_with_cuda_for_in_range_operands(wave):
    full = np.ones((1, wave), bool)
    for mode in ref.MODES:
        for w in ref.widths(wave):
            for b in range(wave if mode != "idx" else w):
                if mode in ("up", "down") and b >= w:
                    continue
                want = ref.cuda_shfl(mode, np.arange(wave, dtype=np.uint64)[None], np.array([b]), w, full, full, wave)
                got = ref.hip_shfl(mode, np.arange(wave, dtype=np.uint64)[None], np.array([b]), w, full, wave)
                assert np.array_equal(want.value, got.value), (mode, w, b)


def test_hip_differs_from_cuda_for_out_of_range_delta():
    full = np.ones((1, 32), bool)
    vals = np.arange(32, dtype=np.uint64)[None] + 100
    cuda_r = ref.cuda_shfl("down", vals, np.array([33]), 32, full, full, 32)
    hip_r = ref.hip_shfl("down", vals, np.array([33]), 32, full, 32)
    assert int(cuda_r.value[0, 0]) == 101  # PTX uses b[4:0] = 1
    assert int(hip_r.value[0, 0]) == 100  # HIP: 0 + 33 >= 32, keeps its own value


# --- proof ---------------------------------------------------------------------------------

def test_exec_mask_set_covers_every_pair_of_lanes():
    for wave in (32, 64):
        masks = [e for e, m in proof.mask_pairs(wave) if e == m]
        for a in range(wave):
            for b in range(a + 1, wave):
                combos = {((m >> a) & 1, (m >> b) & 1) for m in masks}
                assert combos == {(0, 0), (0, 1), (1, 0), (1, 1)}, (a, b)


@pytest.mark.parametrize("wave,scope", [(32, "full"), (64, "full"), (64, "half")])
def test_verify_full_enumeration_passes(wave, scope):
    rep = proof.verify(wave, bpermute_wave64=scope, bits=(32,))
    t = rep.by_bits[32]
    assert t.failures == 0 and rep.first is None
    assert t.cases == 4 * len(proof.operands(wave)) * len(ref.widths(wave)) * len(proof.mask_pairs(wave))
    assert t.value_checked > 0 and t.pred_checked > 0 and t.undefined_source > 0 and t.undefined_not_member > 0


def test_verify_nvvm_runtime_c_passes():
    t = proof.verify_nvvm_c(32)
    assert t.failures == 0 and t.value_checked > 0


def _broken(low: sl.Lowering, drop: str) -> sl.Lowering:
    asm = "\n".join(ln for ln in low.asm.splitlines() if not ln.startswith(drop)) + "\n"
    return sl.Lowering(low.mode, low.wave, low.c, low.bits, low.bpermute_wave64, "broken", asm)


@pytest.mark.parametrize("mode,drop", [("up", "v_cndmask_b32 v14"), ("idx", "v_and_b32 v11"),
                                       ("bfly", "v_cndmask_b32 v5"), ("down", "v_mbcnt_hi")])
def test_verifier_catches_broken_lowerings(mode, drop):
    wave = 64
    ops, execs, members, ints = proof.grid(wave, proof.operands(wave), proof.mask_pairs(wave))
    low = _broken(sl.lower_cuda(mode, 16, wave), drop)
    c = np.full(len(ops), ref.clang_c(mode, 16, wave), dtype=np.int64)
    t = proof.check_batch(low, ops, execs, members, c, 16, ints)
    assert t.failures > 0 and t.first is not None
    assert "expected" in t.first.describe()


def test_half_wave_target_needs_the_cross_half_path():
    # the full-wave sequence run on a half-scope target is wrong for width 64
    low = sl.lower_cuda("idx", 64, 64, bpermute_wave64="full")
    low = sl.Lowering(low.mode, 64, low.c, 32, "half", "bpermute", low.asm)
    ops, execs, members, ints = proof.grid(64, [40], proof.mask_pairs(64))
    t = proof.check_batch(low, ops, execs, members, np.full(len(ops), low.c), 64, ints)
    assert t.failures > 0


# --- constant operands ---------------------------------------------------------------------

@pytest.mark.parametrize("mode,b,w,wave,kind", [
    ("bfly", 1, 32, 32, "dpp"), ("up", 3, 16, 64, "dpp"), ("down", 2, 16, 64, "dpp"),
    ("bfly", 16, 32, 32, "swizzle"), ("idx", 3, 8, 64, "swizzle"), ("idx", 0, 1, 32, "copy"),
    ("bfly", 32, 64, 64, "bpermute"), ("idx", 40, 64, 64, "readlane"),
])
def test_choose_cheapest_proven_sequence(mode, b, w, wave, kind):
    ch = choice.choose(mode, b, w, wave)
    assert ch.lowering.kind == kind
    assert ch.proof.failures == 0
    costs = {k: c for k, c, v in ch.considered if v == "proven"}
    assert ch.cost == min(costs.values())


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(ref.MODES), st.integers(0, 31), st.sampled_from([1, 2, 4, 8, 16, 32]),
       st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1))
def test_chosen_sequence_matches_reference_on_random_masks(mode, b, w, exec_mask, member):
    ch = choice.choose(mode, b, w, 32)
    ops, execs, members, ints = proof.grid(32, [b], ((exec_mask, member), (exec_mask, exec_mask)))
    t = proof.check_batch(ch.lowering, ops, execs, members, np.full(len(ops), ref.clang_c(mode, w, 32)), w, ints)
    assert t.failures == 0, t.first.describe() if t.first else ""


# --- commands ------------------------------------------------------------------------------

def run_cli(argv, capsys):
    rc = main(argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_shuffle_json_reference_and_lowered_agree(capsys):
    rc, out, _ = run_cli(["shuffle", "xor", "--operand", "3", "--width", "64", "--wave", "64", "--format", "json"],
                         capsys)
    doc = json.loads(out)
    assert rc == 0 and doc["wave"] == 64 and len(doc["result"]) == 64 and len(doc["pred"]) == 64
    assert doc["result"][:4] == [103, 102, 101, 100] and all(p is True for p in doc["pred"])
    rc, out2, _ = run_cli(["shuffle", "bfly", "--operand", "3", "--wave", "64", "--lowered", "--format", "json"],
                          capsys)
    low = json.loads(out2)
    assert rc == 0 and low["result"] == doc["result"] and low["pred"] == doc["pred"]
    assert low["lowering"]["asm"][-1] == "s_waitcnt lgkmcnt(0)"


def test_shuffle_json_exec_values_and_null(capsys):
    vals = ",".join(str(i * 3) for i in range(32))
    rc, out, _ = run_cli(["shuffle", "down", "--operand", "1", "--wave", "32", "--exec", "0x0000000b",
                          "--values", vals, "--format", "json"], capsys)
    doc = json.loads(out)
    assert rc == 0
    assert doc["result"][:4] == [3, None, None, None] and doc["result"][4:] == [None] * 28
    assert doc["pred"][:4] == [True, True, None, True]


def test_shuffle_choose_reports_choice_and_cost(capsys):
    rc, out, _ = run_cli(["shuffle", "up", "--operand", "3", "--width", "16", "--wave", "64", "--choose",
                          "--format", "json"], capsys)
    doc = json.loads(out)
    assert rc == 0 and doc["choice"]["kind"] == "dpp" and doc["choice"]["cost"] == 4  # mov + s_nop 1 (2 wait states) + dpp
    assert doc["result"] == [100 + (i if i % 16 < 3 else i - 3) for i in range(64)]


@pytest.mark.parametrize("argv,msg", [
    (["shuffle", "rot", "--operand", "1"], "field 'MODE': expected idx (shfl), up, down or bfly (xor), found 'rot'"),
    (["shuffle", "up", "--operand", "1", "--width", "12", "--wave", "32"],
     "field '--width': expected a power of two 1..32, found '12'"),
    (["shuffle", "up", "--operand", "x1"], "field '--operand': expected a 32-bit integer, found 'x1'"),
    (["shuffle", "up", "--operand", "1", "--wave", "48"], "field '--wave': expected 32 or 64, found '48'"),
    (["shuffle", "up", "--operand", "1", "--wave", "32", "--exec", "0x1ffffffff"],
     "field '--exec': expected a hexadecimal lane mask of at most 32 bits, found '0x1ffffffff'"),
    (["shuffle", "up", "--operand", "1", "--wave", "32", "--values", "1,2,3"],
     "field '--values': expected 32 comma-separated values (one per lane), found 3"),
    (["shuffle", "up", "--operand", "1", "--format", "yaml"], "field '--format': expected json or text, found 'yaml'"),
    (["shuffle", "up", "--operand", "1", "--width", "128", "--wave", "64"],
     "field '--width': expected a power of two 1..64, found '128'"),
    (["shuffle", "up", "--operand", "1", "--width", "0"], "field '--width': expected a power of two 1..64, found '0'"),
    (["shuffle", "up", "--operand", "1", "--exec", "zz"],
     "field '--exec': expected a hexadecimal lane mask of at most 64 bits, found 'zz'"),
    (["shuffle", "up", "--operand", "1", "--mask", "0x"],
     "field '--mask': expected a hexadecimal lane mask of at most 64 bits, found '0x'"),
    (["shuffle", "up", "--operand", "1", "--wave", "32", "--values", ",".join(["7"] * 31 + ["seven"])],
     "field '--values': expected a 32-bit integer, found 'seven'"),
    (["shuffle", "up", "--operand", "1", "--wave", "32", "--values", ",".join(["4294967296"] * 32)],
     "field '--values': expected a 32-bit integer, found '4294967296'"),
    (["shuffle", "up", "--operand", "1", "--wave", "32", "--values=" + ",".join(["-2147483649"] * 32)],
     "field '--values': expected a 32-bit integer, found '-2147483649'"),
    (["shuffle", "up", "--operand", "4294967296"], "field '--operand': expected a 32-bit integer, found '4294967296'"),
    (["shuffle", "up", "--operand", "1", "--bits", "16"], "field '--bits': expected 32 or 64, found '16'"),
    (["shuffle", "up", "--operand", "1", "--bpermute-wave64", "quarter"],
     "field '--bpermute-wave64': expected 'full' or 'half', found 'quarter'"),
    (["shuffle", "up", "--operand", "1", "--c", "0x1f", "--choose"],
     "field '--c': expected --c only with the reference or --lowered, found --choose"),
    (["shuffle", "up", "--operand", "1", "--target", "nosuch"],
     f"expected a target name ({', '.join(list_targets())}) or a spec file, found 'nosuch'"),
    (["verify-shuffles", "--wave", "16"], "field '--wave': expected 32 or 64, found '16'"),
    (["verify-shuffles", "--bpermute-wave64", "x"], "field '--bpermute-wave64': expected 'full' or 'half', found 'x'"),
    (["verify-shuffles", "--lowering", "magic"], "field '--lowering': expected bpermute or hip, found 'magic'"),
])
def test_bad_arguments_exit_2_with_one_message(argv, msg, capsys):
    rc, out, err = run_cli(argv, capsys)
    assert rc == 2 and out == "" and err == msg + "\n"


def _run_json(command: str, capsys) -> dict:
    """Run a printed ``tdgen shuffle ...`` command line through the CLI, as JSON."""
    argv = command.split()
    assert argv[0] == "tdgen"
    rc, out, err = run_cli(argv[1:] + ["--format", "json"], capsys)
    assert rc == 0 and err == ""
    return json.loads(out)


def _lane_field(doc: dict, ce: dict) -> str:
    """The part of a reproduced lane result the counterexample compared, as it prints it."""
    lane = ce["lane"]
    if ce["what"] == "pred":
        p = doc["pred"][lane]
        return ("true" if p else "false") if isinstance(p, bool) else hex(p)
    v = doc["result"][lane]
    return hex(v >> 32 if ce["what"] == "value (high half)" else v & 0xFFFFFFFF)


def test_verify_shuffles_cli_ok_and_hip_counterexample_reproduces(capsys):
    rc, out, _ = run_cli(["verify-shuffles", "--wave", "32"], capsys)
    assert rc == 0 and "0 mismatching lanes" in out and out.rstrip().endswith("is defined")
    assert "time" not in out  # wall times only on request (output stays byte-identical)
    rc, out, _ = run_cli(["verify-shuffles", "--wave", "32", "--time"], capsys)
    assert rc == 0 and re.search(r"^  time \d+\.\d{3} s$", out, re.M)
    rc, out, _ = run_cli(["verify-shuffles", "--wave", "32", "--lowering", "hip"], capsys)
    assert rc == 1
    ce_line, low_line, ref_line = out.rstrip().splitlines()[-3:]
    assert ce_line.startswith("counterexample (hip lowering, wave32, 32-bit): mode=") and "expected 0x" in ce_line
    assert low_line.split(": ", 1)[1].endswith(" --hip") and "--hip" not in ref_line
    rc, out, _ = run_cli(["verify-shuffles", "--wave", "32", "--lowering", "hip", "--format", "json"], capsys)
    doc = json.loads(out)
    ce = doc["counterexample"]
    assert rc == 1 and doc["ok"] is False and ce["text"] == ce_line
    # the printed commands rerun exactly this case: HIP gives 'got', the reference 'expected'
    assert _lane_field(_run_json(ce["reproduce"], capsys), ce) == ce["got"]
    assert _lane_field(_run_json(ce["reference"], capsys), ce) == ce["expected"]


CE_LINE = re.compile(r"counterexample \(bpermute lowering, wave64, (32|64)-bit\): mode=down width=8 c=0x383f "
                     r"operand=\d+ exec=0x[0-9a-f]{16} mask=0x[0-9a-f]{16} lane (\d+) \(reference source lane \d+, "
                     r"which holds 0x[0-9a-f]+\): (.+) expected (\S+), got (\S+)")


@pytest.mark.parametrize("drop,bits,what", [
    ("v_cndmask_b32 v14", "32", "value"),  # no select: out-of-range sources are read
    ("v_cndmask_b32 v5", "32", "pred"),  # predicate never written
    ("ds_bpermute_b32 v4", "64", "value (high half)"),  # high half never permuted
])
def test_verify_shuffles_exits_1_on_an_injected_wrong_lowering(drop, bits, what, monkeypatch, capsys):
    real = sl.lower_cuda

    def wrong(mode, width, wave, **kw):
        low = real(mode, width, wave, **kw)
        if (mode, width) != ("down", 8):
            return low
        asm = "\n".join(ln for ln in low.asm.splitlines() if not ln.startswith(drop)) + "\n"
        assert asm != low.asm or (low.bits == 32 and " v4" in drop)  # v4 exists in 64-bit sequences only
        return sl.Lowering(low.mode, low.wave, low.c, low.bits, low.bpermute_wave64, low.kind, asm)

    monkeypatch.setattr(sl, "lower_cuda", wrong)
    rc, out, err = run_cli(["verify-shuffles", "--wave", "64"], capsys)
    assert rc == 1 and err == ""
    ce_line, low_line, ref_line = out.rstrip().splitlines()[-3:]
    m = CE_LINE.fullmatch(ce_line)
    assert m is not None, ce_line
    assert (m.group(1), m.group(3)) == (bits, what) and m.group(4) != m.group(5)
    assert "OK:" not in out
    assert int(re.search(rf"  {bits}-bit: .* (\d+) mismatching lanes", out).group(1)) > 0
    ce = {"lane": int(m.group(2)), "what": what}
    # rerunning the printed commands (the same wrong lowering is still in place) shows got / expected
    assert _lane_field(_run_json(low_line.split(": ", 1)[1], capsys), ce) == m.group(5)
    assert _lane_field(_run_json(ref_line.split(": ", 1)[1].strip(), capsys), ce) == m.group(4)


def test_output_is_byte_identical_across_runs_and_hash_seeds():
    commands = [(["verify-shuffles", "--wave", "32"], 0),
                (["verify-shuffles", "--wave", "32", "--lowering", "hip", "--format", "json"], 1),
                (["shuffle", "idx", "--operand", "3", "--width", "16", "--wave", "64", "--choose", "--format", "json"], 0)]
    outs = []
    for seed in ("0", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        run = []
        for argv, rc in commands:
            r = subprocess.run([sys.executable, "-m", "tdgen", *argv], cwd=ROOT, env=env, capture_output=True, text=True)
            assert r.returncode == rc and r.stderr == "", r.stderr
            run.append(r.stdout)
        outs.append(run)
    assert outs[0] == outs[1]


@settings(max_examples=80, deadline=None)
@given(st.sampled_from([(32, "full"), (64, "full"), (64, "half")]), st.sampled_from(ref.MODES), st.data())
def test_lowering_with_per_lane_operands_and_random_masks(wave_scope, mode, data):
    """b may differ per lane in PTX; random exec/member masks outside the representative set."""
    wave, scope = wave_scope
    w = data.draw(st.sampled_from(ref.widths(wave)))
    b = np.array([data.draw(st.lists(st.integers(0, 2**32 - 1), min_size=wave, max_size=wave))], dtype=np.int64)
    e, m = data.draw(st.integers(0, 2**wave - 1)), data.draw(st.integers(0, 2**wave - 1))
    ex, mem = ref.lanes_of(e, wave), ref.lanes_of(m, wave)
    low = sl.lower_cuda(mode, w, wave, bits=64, bpermute_wave64=scope)
    t = proof.check_batch(low, b, ex, mem, np.array([ref.clang_c(mode, w, wave)]), w, [(e, m)])
    assert t.failures == 0, t.first.describe() if t.first else ""


def test_nvvm_level_c_operand_cli(capsys):
    rc, out, _ = run_cli(["shuffle", "down", "--operand", "2", "--c", "0x1c03", "--wave", "32", "--format", "json"],
                         capsys)
    doc = json.loads(out)
    # segments of 4 lanes (segmask 0x1c), clamp 3: lanes 0,1 of each segment read +2, lanes 2,3 keep theirs
    assert rc == 0 and doc["width"] is None and doc["nvvm"] == "llvm.nvvm.shfl.sync.down.i32"
    assert doc["result"][:8] == [102, 103, 102, 103, 106, 107, 106, 107]
    assert doc["pred"][:4] == [True, True, False, False]
    rc, out2, _ = run_cli(["shuffle", "down", "--operand", "2", "--c", "0x1c03", "--wave", "32", "--lowered",
                           "--format", "json"], capsys)
    low = json.loads(out2)
    assert (low["result"], low["pred"]) == (doc["result"], doc["pred"])
    rc, _, err = run_cli(["shuffle", "down", "--operand", "2", "--c", "3", "--width", "4"], capsys)
    assert rc == 2 and err == "field '--c': expected either --width (CUDA level) or --c (NVVM level), found both\n"


# --- LLVM as oracle for the model: run llc-19's own code for the PTX formula ---------------

def _ptx_function_ll(mode: str, width: int, wave: int) -> str:
    """A callable IR function (var in v0, b in v1) returning {value, pred} for shfl.sync.<mode>."""
    return "\n".join([
        f"define {{i32, i32}} @f_{mode}_{width}(i32 %var, i32 %b) {{", *shuffle_ir.lane_id_ir(wave),
        *shuffle_ir.ptx_index_ir(mode, width, wave), "  %addr = shl i32 %jj, 2",
        "  %r = call i32 @llvm.amdgcn.ds.bpermute(i32 %addr, i32 %var)", "  %pz = zext i1 %p to i32",
        "  %s0 = insertvalue {i32, i32} poison, i32 %r, 0", "  %s1 = insertvalue {i32, i32} %s0, i32 %pz, 1",
        "  ret {i32, i32} %s1", "}", ""])


def _llc_bodies(ll: str, cpu: str, attr: str, tmp_path) -> dict[str, str]:
    from llvm_tools import require

    llc = require("llc-19")
    src = tmp_path / "f.ll"
    src.write_text(shuffle_ir.IR_DECLS + ll)
    asm = subprocess.run([llc, "-mtriple=amdgcn", f"-mcpu={cpu}", f"-mattr={attr}", str(src), "-o", "-"],
                         check=True, capture_output=True, text=True).stdout
    bodies: dict[str, str] = {}
    name = None
    for line in asm.splitlines():
        if line.startswith("f_") and line.split(":")[0].startswith("f_"):
            name = line.split(":")[0]
            bodies[name] = ""
        elif name and line.startswith("\t") and not line.startswith("\t."):
            ins = line.strip()
            if ins.startswith("s_setpc_b64"):  # the return
                name = None
                continue
            bodies[name] += ins + "\n"
    return bodies


@pytest.mark.parametrize("wave,cpu", [(64, "gfx900"), (32, "gfx1030")])
def test_llc_compiled_ptx_formula_runs_in_wave_model_like_the_reference(wave, cpu, tmp_path):
    from patterns.wave.assembler import assemble
    from patterns.wave.state import WaveState

    attr = "+wavefrontsize64" if wave == 64 else "+wavefrontsize32"
    ll = "".join(_ptx_function_ll(m, w, wave) for m in ref.MODES for w in ref.widths(wave))
    bodies = _llc_bodies(ll, cpu, attr, tmp_path)
    assert len(bodies) == 4 * len(ref.widths(wave))
    ops, execs, members, ints = proof.grid(wave, proof.operands(wave), [p for p in proof.mask_pairs(wave) if p[0] == p[1]])
    lo, _ = proof.case_values(len(ops), wave)
    for m in ref.MODES:
        for w in ref.widths(wave):
            code = assemble(bodies[f"f_{m}_{w}"], f"llc:f_{m}_{w}", wave)  # LLVM's text, as printed
            st_ = WaveState(wave, len(ops), exec_mask=execs)
            st_.v[0] = lo.copy()
            st_.v[1] = np.broadcast_to((ops & 0xFFFFFFFF).astype(np.uint32)[:, None], (len(ops), wave)).copy()
            code.execute(st_)
            want = ref.cuda_shfl(m, lo.astype(np.uint64), ops, w, members, execs, wave)
            assert np.array_equal(np.where(want.defined, st_.vget(0), 0), np.where(want.defined, want.value, 0)), (m, w)
            assert np.array_equal(st_.vget(1)[want.pred_defined], want.pred[want.pred_defined].astype(np.uint32)), (m, w)


def test_verify_shuffles_constant_and_nvvm_c_json(capsys):
    rc, out, _ = run_cli(["verify-shuffles", "--wave", "32", "--constant", "--nvvm-c", "--format", "json"], capsys)
    doc = json.loads(out)
    assert rc == 0 and doc["ok"] is True
    run = doc["runs"][0]
    assert run["constant"]["choices"] == 4 * 32 * 6
    assert sum(run["constant"]["chosen"].values()) == run["constant"]["choices"]
    assert run["constant"]["total_cost"] < run["constant"]["bpermute_cost"]
    assert run["nvvm_c"]["mismatching_lanes"] == 0 and run["nvvm_c"]["value_lanes_compared"] > 0


# --- target wave facts reach the commands; spec errors surface (exit 2) ------------------

def _spec(tmp_path, body: str) -> str:
    d = tmp_path / "t"
    d.mkdir()
    (d / "spec.py").write_text("from tdgen.model import Target\nfrom tdgen.hw import WaveModel\n\n" + body)
    return str(d)


def test_bad_wave_facts_of_a_target_are_spec_errors(tmp_path, capsys):
    target = _spec(tmp_path, 'TARGET = Target(name="tiny", namespace="Tiny", target_prefix="tiny",\n'
                             '                wave=WaveModel(sizes=(16, 64), default_size=48, bpermute_wave64="quarter"))\n')
    for argv in (["shuffle", "idx", "--operand", "1"], ["verify-shuffles"]):
        rc, out, err = run_cli(argv + ["--target", target], capsys)
        where = f"{Path(target).as_posix()}/spec.py:5:22: record 'tiny' field 'wave."
        assert rc == 2 and out == "" and err.splitlines() == [
            where + "bpermute_wave64': expected 'full' or 'half', found 'quarter'",
            where + "sizes': expected a non-empty tuple of wave sizes from 32 and 64, found (16, 64)",
            where + "default_size': expected one of the sizes (64), found 48"], err


def test_a_broken_spec_is_not_replaced_by_defaults(tmp_path, capsys):
    target = _spec(tmp_path, 'TARGET = Target(name="t", namespace="T", target_prefix="t")\nx = 1 / 0\n')
    rc, out, err = run_cli(["shuffle", "idx", "--operand", "1", "--target", target], capsys)
    assert rc == 2 and out == ""
    assert err.endswith("spec.py:5:5: expected a spec module that runs, found ZeroDivisionError: division by zero\n")


def test_target_wave_facts_choose_default_wave_and_scope(tmp_path, capsys):
    target = _spec(tmp_path, 'TARGET = Target(name="w32", namespace="W", target_prefix="w",\n'
                             '                wave=WaveModel(sizes=(32,), default_size=32, bpermute_wave64="half"))\n')
    rc, out, _ = run_cli(["shuffle", "idx", "--operand", "1", "--target", target, "--format", "json"], capsys)
    assert rc == 0 and json.loads(out)["wave"] == 32
    rc, out, err = run_cli(["shuffle", "idx", "--operand", "1", "--wave", "64", "--target", target], capsys)
    assert rc == 2 and err == "field '--wave': expected a wave size of target '" + target + "' (32), found '64'\n"
    rc, out, _ = run_cli(["verify-shuffles", "--target", target, "--format", "json"], capsys)
    assert rc == 0 and [r["wave"] for r in json.loads(out)["runs"]] == [32]
    # the shipped dslike target says wave64 ds_bpermute is per half; amdgpu (GFX9) the full wave
    for name, scope in (("dslike", "half"), ("amdgpu", "full")):
        rc, out, _ = run_cli(["shuffle", "idx", "--operand", "40", "--wave", "64", "--lowered", "--target", name,
                              "--format", "json"], capsys)
        doc = json.loads(out)
        assert rc == 0 and doc["lowering"]["bpermute_wave64"] == scope and doc["result"] == [140] * 64
        assert any(a.startswith("v_permlane64_b32") for a in doc["lowering"]["asm"]) == (scope == "half")


# --- 64-bit constant choices; verification values --------------------------------------

@pytest.mark.parametrize("mode,b,w,kind", [("up", 3, 16, "dpp"), ("idx", 3, 8, "swizzle"), ("idx", 40, 64, "readlane"),
                                           ("bfly", 32, 64, "bpermute")])
def test_choose_64_bit_moves_both_halves_and_is_proven(mode, b, w, kind, capsys):
    ch = choice.choose(mode, b, w, 64, bits=64)
    assert ch.lowering.bits == 64 and ch.lowering.kind == kind and ch.proof.failures == 0
    assert ch.proof.value_checked > 0
    # the same move without its high half fails the 64-bit proof
    half_only = choice.choose(mode, b, w, 64).lowering
    t = choice.prove(sl.Lowering(mode, 64, half_only.c, 64, "full", kind, half_only.asm, False), b, w)
    assert t.failures > 0 and t.first.what == "value (high half)"
    vals = ",".join(str((i << 33) | (1000 + i)) for i in range(64))
    argv = ["shuffle", mode, "--operand", str(b), "--width", str(w), "--wave", "64", "--bits", "64",
            "--values", vals, "--format", "json"]
    rc, out, _ = run_cli(argv + ["--choose"], capsys)
    got = json.loads(out)
    rc2, out2, _ = run_cli(argv, capsys)
    assert rc == rc2 == 0 and got["result"] == json.loads(out2)["result"]
    assert got["choice"]["cost"] == ch.cost == got["lowering"]["cost"]


def test_verification_values_expose_wrong_lane_half_zero_and_truncation():
    for wave in (32, 64):
        lo, hi = (v.tolist() for v in proof.lane_values(wave))
        every = lo + hi
        assert len(set(every)) == 2 * wave and 0 not in every and sl.SENTINEL not in every
        assert max(every) >= 1 << 31  # high bits are used


def test_shuffle_text_output_and_mask_flag(capsys):
    rc, out, _ = run_cli(["shuffle", "up", "--operand", "1", "--width", "4", "--wave", "32", "--mask", "0xfffffffd",
                          "--exec", "0x7fffffff"], capsys)
    lines = out.splitlines()
    assert rc == 0 and lines[0] == ("__shfl_up_sync (llvm.nvvm.shfl.sync.up.i32) wave32 operand=1 width=4 c=0x1c00 "
                                    "exec=0x7fffffff mask=0xfffffffd [reference]")
    # lane 1 is not in mask (undefined, no predicate); lane 2 reads lane 1 (undefined value, predicate true);
    # lane 31 is inactive
    assert [ln.split() for ln in lines[1:6]] == [["lane", "result", "pred"], ["0", "100", "false"],
                                                 ["1", "undef", "-"], ["2", "undef", "true"], ["3", "102", "true"]]
    assert lines[-1].split() == ["31", "undef", "-"] and len(lines) == 2 + 32


def test_bpermute_wave64_flag_overrides_the_target(capsys):
    argv = ["shuffle", "idx", "--operand", "40", "--wave", "64", "--lowered", "--format", "json", "--target", "amdgpu"]
    for scope, crosses in (("half", True), ("full", False)):
        rc, out, _ = run_cli(argv + ["--bpermute-wave64", scope], capsys)
        doc = json.loads(out)
        assert rc == 0 and doc["lowering"]["bpermute_wave64"] == scope and doc["result"] == [140] * 64
        assert any(a.startswith("v_permlane64_b32") for a in doc["lowering"]["asm"]) == crosses


@pytest.mark.parametrize("argv,msg", [
    (["shuffle", "idx"], "tdgen shuffle: error: the following arguments are required: --operand"),
    (["shuffle", "idx", "--operand", "1", "--lowered", "--hip"],
     "tdgen shuffle: error: argument --hip: not allowed with argument --lowered"),
])
def test_missing_or_conflicting_flags_exit_2_without_traceback(argv, msg, capsys):
    with pytest.raises(SystemExit) as e:
        main(argv)
    err = capsys.readouterr().err
    lines = err.rstrip().splitlines()
    assert e.value.code == 2 and "Traceback" not in err
    assert lines == [f"{msg} (see 'tdgen shuffle --help')"]
