"""``tdgen shuffle MODE``: evaluate one warp shuffle on every lane and print the per-lane result.

By default the reference semantics (CUDA ``__shfl*_sync`` = NVVM ``shfl.sync`` with clang's
``c``); ``--lowered`` runs the general ds_bpermute lowering in the wave model, ``--choose``
the cheapest sequence proven for this constant operand (value only), ``--hip`` HIP's index
formulas. JSON: ``{"wave": N, "result": [int|null per lane], "pred": [bool|null per lane], ...}``
(null where CUDA leaves the result undefined, or where a lowered sequence writes nothing; a
lowered predicate register holding neither 0 nor 1 shows as that integer, never as a bool).
"""

from __future__ import annotations

import json
import re
import sys

import numpy as np

from ..errors import UsageError, expected
from ..hw import WaveModel

MODE_WORDS = "idx (shfl), up, down or bfly (xor)"


def wave_model(target: str) -> WaveModel:
    """The target's ``WaveModel`` (``load_target(name).wave``). Loading checks the wave
    facts (``tdgen.check``: sizes from 32 and 64, default among them, wave64 bpermute
    scope 'full' or 'half'), so a bad one arrives here as the spec's errors (exit 2), as
    does an unknown target name (a usage error)."""
    from ..spec import load_target

    return load_target(target).wave


def check_wave_size(target: str, wave: int) -> None:
    model = wave_model(target)
    if wave not in model.sizes:
        sizes = " or ".join(str(s) for s in sorted(model.sizes))
        raise UsageError(None, expected(f"a wave size of target '{target}' ({sizes})", repr(str(wave))),
                         field="--wave")


def parse_int(text: str, field: str, lo: int, hi: int, what: str) -> int:
    try:
        t = text.strip()
        if not re.fullmatch(r"-?(0[xX][0-9a-fA-F]+|[0-9]+)", t):
            raise ValueError(t)
        neg = t.startswith("-")
        body = t[1:] if neg else t
        v = int(body, 16) if body[:2].lower() == "0x" else int(body, 10)
        v = -v if neg else v
    except ValueError:
        raise UsageError(None, expected(what, repr(text)), field=field) from None
    if not lo <= v <= hi:
        raise UsageError(None, expected(what, repr(text)), field=field)
    return v


def parse_hex_mask(text: str, field: str, wave: int) -> int:
    t = text.strip().lower()
    body = t[2:] if t.startswith("0x") else t
    what = f"a hexadecimal lane mask of at most {wave} bits"
    try:
        if not re.fullmatch(r"[0-9a-f]+", body):
            raise ValueError(body)
        v = int(body, 16)
    except ValueError:
        raise UsageError(None, expected(what, repr(text)), field=field) from None
    if body == "" or v >> wave:
        raise UsageError(None, expected(what, repr(text)), field=field)
    return v


def add_target_args(parser) -> None:
    parser.add_argument("--target", "-t", default="amdgpu",
                        help="target name or spec path whose WaveModel applies (default amdgpu)")
    parser.add_argument("--bpermute-wave64", default=None, metavar="full|half",
                        help="override the target's wave64 ds_bpermute scope")


def bpermute_scope(args) -> str:
    if args.bpermute_wave64 is not None:
        if args.bpermute_wave64 not in ("full", "half"):
            raise UsageError(None, expected("'full' or 'half'", repr(args.bpermute_wave64)), field="--bpermute-wave64")
        return args.bpermute_wave64
    return wave_model(args.target).bpermute_wave64


def parse_wave(text: str | None, default: int) -> int:
    if text is None:
        return default
    if text.strip() not in ("32", "64"):
        raise UsageError(None, expected("32 or 64", repr(text)), field="--wave")
    return int(text)


def configure(parser):
    parser.add_argument("mode", metavar="MODE", help=MODE_WORDS)
    parser.add_argument("--operand", required=True, help="srcLane / delta / laneMask (b); decimal or 0x hex")
    parser.add_argument("--width", default=None, help="segment width, a power of two up to the wave (default: wave)")
    parser.add_argument("--c", dest="c", default=None,
                        help="NVVM level: the raw c operand of shfl.sync (segment mask in bits [12:8], clamp in "
                             "[4:0]; [13:8]/[5:0] in wave64) instead of --width")
    parser.add_argument("--wave", default=None, help="32 or 64 (default: the target's default size)")
    parser.add_argument("--exec", dest="exec_mask", default=None, help="exec mask in hex (default: all lanes)")
    parser.add_argument("--mask", default=None, help="membermask in hex (default: all lanes)")
    parser.add_argument("--values", default=None,
                        help="v0,v1,...: one value per lane (default lane i holds i + 100); write --values=-1,... "
                             "when the list starts with a minus sign")
    parser.add_argument("--bits", default="32", help="32 or 64-bit values (64: two 32-bit shuffles)")
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--lowered", action="store_true", help="run the ds_bpermute lowering in the wave model")
    how.add_argument("--choose", action="store_true", help="run the cheapest proven sequence for this operand")
    how.add_argument("--hip", action="store_true", help="run HIP's index formulas in the wave model")
    parser.add_argument("--format", default="text", help="json or text (json: schemas/shuffle.schema.json)")
    add_target_args(parser)


def _check_args(args):
    from patterns.wave import shuffle as ref

    mode = ref.ALIASES.get(args.mode.strip().lower())
    if mode is None:
        raise UsageError(None, expected(MODE_WORDS, repr(args.mode)), field="MODE")
    if args.format not in ("json", "text"):
        raise UsageError(None, expected("json or text", repr(args.format)), field="--format")
    wave = parse_wave(args.wave, wave_model(args.target).default_size)
    check_wave_size(args.target, wave)
    bits = parse_int(args.bits, "--bits", 32, 64, "32 or 64")
    if bits not in (32, 64):
        raise UsageError(None, expected("32 or 64", repr(args.bits)), field="--bits")
    operand = parse_int(args.operand, "--operand", -(1 << 31), (1 << 32) - 1, "a 32-bit integer")
    width = wave if args.width is None else parse_int(args.width, "--width", 1, wave,
                                                      f"a power of two 1..{wave}")
    if width & (width - 1):
        raise UsageError(None, expected(f"a power of two 1..{wave}", repr(args.width)), field="--width")
    c = None
    if args.c is not None:
        if args.width is not None:
            raise UsageError(None, expected("either --width (CUDA level) or --c (NVVM level)", "both"), field="--c")
        if args.choose or args.hip:
            raise UsageError(None, expected("--c only with the reference or --lowered", "--choose" if args.choose
                                            else "--hip"), field="--c")
        c = parse_int(args.c, "--c", 0, (1 << 32) - 1, "a 32-bit unsigned integer")
    full = (1 << wave) - 1
    exec_mask = full if args.exec_mask is None else parse_hex_mask(args.exec_mask, "--exec", wave)
    member = full if args.mask is None else parse_hex_mask(args.mask, "--mask", wave)
    if args.values is None:
        values = [i + 100 for i in range(wave)]
    else:
        parts = [p for p in args.values.split(",")]
        if len(parts) != wave:
            raise UsageError(None, expected(f"{wave} comma-separated values (one per lane)", f"{len(parts)}"),
                             field="--values")
        lo = -(1 << (bits - 1))
        values = [parse_int(p, "--values", lo, (1 << bits) - 1, f"a {bits}-bit integer") & ((1 << bits) - 1)
                  for p in parts]
    scope = bpermute_scope(args)
    return mode, wave, bits, operand & 0xFFFFFFFF, width, exec_mask, member, values, scope, c


def evaluate(mode, wave, bits, operand, width, exec_mask, member, values, scope, how: str, c=None) -> dict:
    """The per-lane outcome as a JSON-ready dict (``how``: reference|lowered|choose|hip)."""
    from patterns.wave import shuffle as ref
    from patterns.wave import lowering as sl
    from patterns.wave.choice import choose

    ex = ref.lanes_of(exec_mask, wave)
    mem = ref.lanes_of(member, wave)
    vals = np.array([values], dtype=np.uint64)
    ops = np.array([operand], dtype=np.int64)
    if c is not None:
        width = None
    out: dict = {"wave": wave, "mode": mode, "cuda": ref.CUDA_NAMES[mode] if c is None else None,
                 "nvvm": ref.NVVM_NAMES[mode], "operand": operand, "width": width,
                 "c": ref.clang_c(mode, width, wave) if c is None else c, "exec": f"0x{exec_mask:0{wave // 4}x}",
                 "mask": f"0x{member:0{wave // 4}x}", "bits": bits, "semantics": how}
    if how == "reference":
        if c is not None:
            res = ref.nvvm_shfl(mode, vals, ops, np.array([c]), mem, ex, wave)
        else:
            res = ref.cuda_shfl(mode, vals, ops, width, mem, ex, wave)
        out["result"], out["pred"] = ref.to_json_lists(res, 0, bits)
        return out
    if how == "choose":
        choice = choose(mode, operand, width, wave, scope, bits=bits)
        low = choice.lowering
        out["choice"] = {"kind": low.kind, "cost": choice.cost, "note": low.note,
                         "considered": [{"kind": k, "cost": c, "verdict": v} for k, c, v in choice.considered],
                         "proof": {"cases": choice.proof.cases, "lanes_compared": choice.proof.value_checked}}
    elif how == "hip":
        low = sl.lower_hip(mode, width, wave, bits=bits, bpermute_wave64=scope)
    elif c is not None:
        low = sl.lower(mode, wave, c, bits=bits, bpermute_wave64=scope)
    else:
        low = sl.lower_cuda(mode, width, wave, bits=bits, bpermute_wave64=scope)
    lo = vals & np.uint64(0xFFFFFFFF)
    hi = vals >> np.uint64(32)
    st = sl.run_lowering(low, lo, hi, ops, ex)
    r_lo = st.vget(sl.V_RES_LO)[0].astype(np.uint64)
    r_hi = st.vget(sl.V_RES_HI)[0].astype(np.uint64)
    r_p = st.vget(sl.V_PRED)[0]
    active = ex[0]
    res = []
    for i in range(wave):
        if not active[i]:
            res.append(None)
        elif bits == 64:
            res.append(int(r_lo[i]) | (int(r_hi[i]) << 32))
        else:
            res.append(int(r_lo[i]))
    out["result"] = res
    # a predicate register must hold 0 or 1; anything else (a broken lowering) shows as its integer
    out["pred"] = [(bool(r_p[i]) if int(r_p[i]) in (0, 1) else int(r_p[i])) if active[i] and low.has_pred
                   else None for i in range(wave)]
    out["lowering"] = {"kind": low.kind, "cost": low.cost, "bpermute_wave64": scope,
                       "asm": low.asm.splitlines()}
    return out


def render_text(out: dict) -> str:
    name = f"{out['cuda']} ({out['nvvm']})" if out["cuda"] else out["nvvm"]
    lines = [f"{name} wave{out['wave']} operand={out['operand']} width={out['width']} c=0x{out['c']:x} "
             f"exec={out['exec']} mask={out['mask']} [{out['semantics']}]"]
    if "choice" in out:
        ch = out["choice"]
        lines.append(f"choice: {ch['kind']} cost {ch['cost']} ({ch['note']}); proven on {ch['proof']['cases']} "
                     f"exec/member mask cases")
        for c in ch["considered"]:
            lines.append(f"  candidate {c['kind']:<9} cost {c['cost']:>2}: {c['verdict']}")
    if "lowering" in out:
        lines.append(f"lowering: {out['lowering']['kind']} cost {out['lowering']['cost']}")
        lines += ["  " + a for a in out["lowering"]["asm"]]
    lines.append("lane  result        pred")
    for i, (r, p) in enumerate(zip(out["result"], out["pred"])):
        rs = "undef" if r is None else str(r)
        ps = "-" if p is None else ("true" if p else "false")
        lines.append(f"{i:>4}  {rs:<12}  {ps}")
    return "\n".join(lines) + "\n"


def run(args) -> int:
    mode, wave, bits, operand, width, exec_mask, member, values, scope, c = _check_args(args)
    how = "lowered" if args.lowered else "choose" if args.choose else "hip" if args.hip else "reference"
    out = evaluate(mode, wave, bits, operand, width, exec_mask, member, values, scope, how, c)
    if args.format == "json":
        sys.stdout.write(json.dumps(out, sort_keys=True) + "\n")
    else:
        sys.stdout.write(render_text(out))
    return 0
