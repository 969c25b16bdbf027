"""``tdgen verify-shuffles``: prove the shuffle lowerings equal to the reference on every lane.

Enumerates every mode x operand (all lanes plus out-of-range values) x width (every power
of two up to the wave) x representative exec/member masks, for 32- and 64-bit values,
runs each lowered sequence once over the whole batch in the wave model and compares it
with ``patterns.wave.shuffle`` wherever CUDA defines the result (value and predicate), and
checks that inactive lanes are not written. Prints the counts; otherwise exit 1 with the
first counterexample (mode, width/c, operand, exec and member masks, bits, lane, source
lane, expected, got) and two ``tdgen shuffle`` commands, with the exact per-lane values
the verifier used, that rerun that case with the lowering and with the reference.
The output is byte-identical between runs (wall times only with ``--time``; the 2 s goal
is shown by ``bench/shuffles.py``). ``--nvvm-c`` adds the runtime-``c`` lowering over
every segment mask; ``--constant`` proves the cheapest-sequence choice for every constant
operand.
"""

from __future__ import annotations

import json
import sys
import time

from ..errors import UsageError, expected
from .progress import progress_bar
from .shuffle import add_target_args, bpermute_scope, check_wave_size, parse_wave, wave_model


def configure(parser):
    parser.add_argument("--wave", default=None, help="32 or 64 (default: every wave size of the target)")
    parser.add_argument("--lowering", default="bpermute",
                        help="bpermute (ours, default) or hip (HIP's index formulas, for comparison)")
    parser.add_argument("--nvvm-c", action="store_true", help="also verify the runtime-c lowering (every segmask)")
    parser.add_argument("--constant", action="store_true",
                        help="also prove the cheapest sequence for every constant operand 0..wave-1 and width")
    parser.add_argument("--format", default="text", help="text or json (json: schemas/verify-shuffles.schema.json)")
    parser.add_argument("--time", action="store_true", help="also print the wall time of each wave size")
    add_target_args(parser)


def _tally_json(t) -> dict:
    return {"cases": t.cases, "lanes": t.lanes, "sequences": t.sequences, "value_lanes_compared": t.value_checked,
            "pred_lanes_compared": t.pred_checked, "undefined_lane_not_in_mask": t.undefined_not_member,
            "undefined_source_lane": t.undefined_source, "inactive_lanes_checked_unwritten": t.inactive_checked,
            "mismatching_lanes": t.failures}


def run(args) -> int:
    from patterns.wave.choice import prove_constant_choices
    from patterns.wave.proof import nvvm_c_values, verify

    if args.lowering not in ("bpermute", "hip"):
        raise UsageError(None, expected("bpermute or hip", repr(args.lowering)), field="--lowering")
    if args.format not in ("text", "json"):
        raise UsageError(None, expected("text or json", repr(args.format)), field="--format")
    if args.wave is None:
        waves = tuple(sorted(wave_model(args.target).sizes))
    else:
        waves = (parse_wave(args.wave, 64),)
        check_wave_size(args.target, waves[0])
    scope = bpermute_scope(args)
    out = sys.stdout
    report_json: list[dict] = []
    first = None
    with progress_bar("verify-shuffles", len(waves)) as step:
        for wave in waves:
            t0 = time.perf_counter()
            rep = verify(wave, bpermute_wave64=scope, kind=args.lowering, nvvm_c=args.nvvm_c)
            entry: dict = {"wave": wave, "bpermute_wave64": scope, "lowering": args.lowering,
                           "modes": 4, "operands": rep.n_operands, "widths": list(rep.widths),
                           "mask_pairs": rep.n_mask_pairs,
                           "bits": {str(b): _tally_json(t) for b, t in sorted(rep.by_bits.items())}}
            if rep.nvvm is not None:
                entry["nvvm_c"] = _tally_json(rep.nvvm)
            if args.constant and rep.first is None:
                entry["constant"] = prove_constant_choices(wave, scope).as_json()
            dt = time.perf_counter() - t0
            if args.time:
                entry["seconds"] = round(dt, 3)
            report_json.append(entry)
            if args.format == "text":
                out.write(f"wave{wave} (ds_bpermute wave64 scope: {scope}), {args.lowering} lowering: "
                          f"4 modes x {rep.n_operands} operands x {len(rep.widths)} widths "
                          f"({','.join(str(w) for w in rep.widths)}) x {rep.n_mask_pairs} exec/member masks\n")
                for b, t in sorted(rep.by_bits.items()):
                    out.write(f"  {b}-bit: {t.cases} cases, {t.lanes} lanes: {t.value_checked} values and "
                              f"{t.pred_checked} predicates compared; undefined (excluded): {t.undefined_not_member} "
                              f"lanes not in mask, {t.undefined_source} with an inactive/non-member source lane; "
                              f"{t.inactive_checked} inactive lanes checked unwritten; {t.failures} mismatching lanes\n")
                if rep.nvvm is not None:
                    t = rep.nvvm
                    out.write(f"  runtime c ({len(nvvm_c_values(wave))} segmask/clamp values): {t.cases} cases: "
                              f"{t.value_checked} values and {t.pred_checked} predicates compared; "
                              f"{t.failures} mismatching lanes\n")
                if "constant" in entry:
                    c = entry["constant"]
                    kinds = ", ".join(f"{k} {n}" for k, n in sorted(c["chosen"].items()))
                    out.write(f"  constant operands: {c['choices']} choices proven ({kinds}); total cost {c['total_cost']} "
                              f"vs {c['bpermute_cost']} with ds_bpermute everywhere\n")
                if args.time:
                    out.write(f"  time {dt:.3f} s\n")
            step()
            if rep.first is not None and first is None:
                first = rep.first
                break
    if args.format == "json":
        doc = {"runs": report_json, "ok": first is None}
        if first is not None:
            doc["counterexample"] = first.as_json()
        out.write(json.dumps(doc, sort_keys=True) + "\n")
    elif first is not None:
        out.write(first.describe() + "\n")
        out.write(f"  this case with the lowering: {first.reproduce()}\n")
        out.write(f"  and with the reference:      {first.reproduce(reference=True)}\n")
    else:
        out.write("OK: lowered == reference on every lane where the result is defined\n")
    return 1 if first is not None else 0
