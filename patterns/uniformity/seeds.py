"""Where divergence starts: the target's uniformity facts asked per value.

``SeedModel`` answers, from a target's ``UniformityModel`` (tdgen/hw.py) and its
intrinsics' divergence classes, the questions the analysis seeds its worklist with:
which instructions are sources of divergence (workitem ids, atomics, private/flat loads,
calls, inline asm with vector outputs, intrinsics by rule) or always uniform
(readfirstlane, ballot, scalar outputs of inline asm, ...), which arguments arrive in
scalar registers, and which functions run a single lane. Only the opcodes in
``SEED_OPCODES`` can be seeds; every other instruction follows its operands.
Compiled (patterns/native/__init__.py).
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Any, Final

from tdgen.hw import DivergenceKind, UniformityModel

from patterns.ir.function import Instruction
from patterns.uniformity.rules import default_model, first_rule

# the opcodes ``SeedModel.classify`` can answer for (every other instruction follows its
# operands)
SEED_OPCODES: Final = frozenset({"load", "atomicrmw", "cmpxchg", "call", "invoke", "callbr", "extractvalue"})


def _asm_outputs(constraints: str) -> list[str]:
    outs = []
    for part in constraints.split(","):
        part = part.strip()
        if part.startswith("="):
            outs.append(part)
    return outs


class SeedModel:
    """Target facts as the analysis asks them.

    ``target``: a tdgen Target or ``DivergenceFacts`` (``.uniformity`` and
    ``.intrinsic_divergence``), a bare ``UniformityModel``, or None for amdgpu."""

    def __init__(self, target: Any) -> None:
        if target is None:
            target = default_model()
        if isinstance(target, UniformityModel):
            self.m = target
            self._intrinsic = None
        else:
            self.m = target.uniformity
            self._intrinsic = getattr(target, "intrinsic_divergence", None)
        self._cache: dict[str, tuple[DivergenceKind, str]] = {}

    def intrinsic(self, name: str) -> tuple[DivergenceKind, str]:
        hit = self._cache.get(name)
        if hit is not None:
            return hit
        rule = first_rule(self.m, name)
        if self._intrinsic is not None:
            kind = self._intrinsic(name)
        else:
            kind = rule.kind if rule is not None else DivergenceKind.FOLLOWS_OPERANDS
        note = rule.note if rule is not None and rule.kind == kind else ""
        self._cache[name] = (kind, note)
        return kind, note

    def is_intrinsic(self, name: str | None) -> bool:
        return name is not None and name.startswith(self.m.intrinsic_prefix)

    def single_lane(self, fn: Any) -> bool:
        wanted = self.m.single_lane_function_attrs
        if not wanted:
            return False
        return any(a.replace('"', "").replace(" ", "") in wanted for a in fn.attrs)

    def arg_uniform(self, fn: Any, arg: Any) -> bool:
        cc = fn.cc
        m = self.m
        if cc in m.uniform_arg_ccs:
            return True
        # attribute names, without arguments: 'byval(i32)' -> 'byval'
        attrs = {a.split("(", 1)[0] for a in arg.attrs}
        if cc in m.shader_ccs:
            return any(a in attrs for a in m.shader_uniform_arg_attrs)
        return any(a in attrs for a in m.default_uniform_arg_attrs)

    def asm_divergent(self, inst: Any, index: int | None = None) -> bool:
        asm = inst.inline_asm
        outs = _asm_outputs(asm.constraints)
        if index is not None:
            if index >= len(outs):
                return True
            outs = [outs[index]]
        return any(not self.m.asm_output_uniform(o) for o in outs)

    def classify(self, inst: Any) -> tuple[str, str] | None:
        """('source'|'uniform', why) for a seed, None when it follows its operands."""
        op = inst.opcode
        m = self.m
        if op == "load":
            if inst.addrspace in m.divergent_load_address_spaces:
                return "source", f"load from address space {inst.addrspace}"
            return None
        if op in ("atomicrmw", "cmpxchg"):
            if m.atomics_divergent:
                return "source", f"{op} result (lanes are serialised)"
            return None
        if op == "callbr":
            # LLVM 19 tests inline asm for divergence (source, or always uniform) only on a
            # ``call``; a callbr (whose callee the verifier requires to be inline asm) is
            # neither a source nor uniform by rule: it follows its operands, and as a
            # terminator with a divergent operand it is a divergent branch.
            return None
        if op in ("call", "invoke"):
            if op == "call" and getattr(inst, "inline_asm", None) is not None:
                if self.asm_divergent(inst):
                    return "source", "inline asm with a non-scalar output"
                return "uniform", "inline asm with only scalar outputs"
            callee = inst.callee
            if self.is_intrinsic(callee) and op == "call":
                kind, note = self.intrinsic(callee)
                if kind is DivergenceKind.SOURCE:
                    return "source", f"@{callee}" + (f" ({note})" if note else "")
                if kind is DivergenceKind.ALWAYS_UNIFORM:
                    return "uniform", f"@{callee}" + (f" ({note})" if note else "")
                return None
            if m.calls_divergent:
                return "source", f"call to @{callee}" if callee else "indirect call"
            return None
        if op == "extractvalue":
            agg = inst.operands[0] if inst.operands else None
            idx = getattr(inst, "indices", None)
            if agg is not None and isinstance(agg, Instruction) and agg.opcode == "call" and idx:
                if getattr(agg, "inline_asm", None) is not None:
                    if len(idx) == 1 and not self.asm_divergent(agg, idx[0]):
                        return "uniform", "scalar output of inline asm"
                    return None
                callee = agg.callee
                if callee is not None:
                    for glob, field in m.uniform_extracts:
                        if len(idx) == 1 and idx[0] == field and fnmatchcase(callee, glob):
                            return "uniform", f"field {field} of @{callee} (exec mask)"
        return None
