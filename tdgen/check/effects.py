"""Checks of memory effects: an instruction's mayLoad / mayStore / hasSideEffects against its patterns.

Where llvm-tblgen-19 rejects them ("Pattern doesn't match mayLoad = 0"): what the
patterns selecting an instruction imply (SDNP properties of nodes, memory properties of
intrinsics, fragments expanded) against the flags it sets explicitly.
``intrinsic_effects`` gives an intrinsic's (reads, writes, side effects).
"""

from __future__ import annotations

from ..dag import Dag, Node
from ..errors import TdgenError, expected
from ..model.intrinsics import Intrinsic
from ..model.invalid import depends_on_invalid
from ..model.record import is_invalid, parse_field
from ..model.resolved import ResolvedInstruction
from .base import CheckerBase


class EffectChecks(CheckerBase):
    """Checks of explicit memory-effect flags against the patterns."""

    # ------------------------------------------------------- memory effects
    def pattern_effects(self, node: Node, seen: frozenset[str] = frozenset()) -> dict[str, str]:
        """What matching ``node`` implies, as llvm-tblgen infers it: ``mayLoad`` /
        ``mayStore`` / ``hasSideEffects`` -> the operator that implies it. SDNodes by
        SDNPMayLoad/SDNPMayStore/SDNPSideEffect; intrinsics by their memory
        properties (reads -> mayLoad, writes -> mayStore, no memory property or
        IntrHasSideEffects -> hasSideEffects); fragments expanded."""
        out: dict[str, str] = {}
        for n in node.walk():
            if not isinstance(n, Dag) or n.cast_type is not None:
                continue
            key = n.op
            frag = self.t.patfrags.get(key)
            if frag is not None and key not in seen:
                try:
                    body = frag.dag
                except TdgenError:
                    continue
                for k, v in self.pattern_effects(body, seen | {key}).items():
                    out.setdefault(k, v)
                continue
            node_ = self.t.sdnodes.get(key)
            intr = self.t.intrinsics_by_name.get(key)
            found: list[str] = []
            if node_ is not None:
                found = [f for f, prop in _NODE_EFFECTS if prop in node_.properties]
                why = lambda f: f"'{key}' ({dict(_NODE_EFFECTS)[f]})"  # noqa: E731
            elif intr is not None:
                found = [f for f, on in zip(("mayLoad", "mayStore", "hasSideEffects"), intrinsic_effects(intr)) if on]
                why = lambda f: f"'{key}' ({_INTR_EFFECT_WHY[f]})"  # noqa: E731
            for f in found:
                out.setdefault(f, why(f))
        return out

    def check_effects(self, insts: dict[str, ResolvedInstruction]) -> None:
        """Explicit mayLoad/mayStore/hasSideEffects must agree with the patterns
        selecting the instruction, where llvm-tblgen-19 -gen-dag-isel rejects them
        ("Pattern doesn't match mayLoad = 0"): an effect of the pattern the flag
        denies; ``mayStore = 1`` with a pattern that does not store. Checked for the
        instruction's own patterns, and for single-instruction ``Pat`` s while
        tblgen still verifies against them (all three flags set, or the first such
        ``Pat`` of an instruction without patterns of its own)."""
        inferred: set[str] = set()
        jobs: list[tuple[ResolvedInstruction, Node, str, str]] = []
        for inst in insts.values():
            if self.tolerant and depends_on_invalid(inst.declared_by):
                continue
            for p in inst.patterns:
                if not p.uses_null_frag():
                    jobs.append((inst, p.args[-1] if p.op == "set" and p.args else p, inst.name, "pattern"))
            if inst.patterns:
                inferred.add(inst.name)
        for k, pat in enumerate(self.t.patterns):
            if self.tolerant and is_invalid(pat):
                continue
            try:
                src = parse_field(pat, "src", pat.src, record_name=pat.name or f"anonymous_{k}")
                dst = parse_field(pat, "dst", pat.dst, record_name=pat.name or f"anonymous_{k}")
            except TdgenError:
                continue
            used = [n.op for n in dst.walk() if isinstance(n, Dag) and n.op in insts]
            if len(used) != 1 or (isinstance(src, Dag) and src.uses_null_frag()):
                continue
            inst = insts[used[0]]
            flags = [inst.field(f) for f in ("mayLoad", "mayStore", "hasSideEffects")]
            if any(v is None for v in flags):
                if inst.name in inferred:
                    continue
                inferred.add(inst.name)
            jobs.append((inst, src, pat.name or f"anonymous_{k}", "src"))
        for inst, src, record, field in jobs:
            eff = self.pattern_effects(src)
            for flag in ("mayLoad", "mayStore", "hasSideEffects"):
                v = inst.field(flag)
                if v is None:
                    continue
                if not v and flag in eff:
                    self.err(
                        src.span,
                        expected(f"a pattern without {_EFFECT_NOUN[flag]} ({inst.name} sets {flag} = 0)", eff[flag]),
                        record,
                        field,
                    )
                elif v and flag == "mayStore" and flag not in eff:
                    self.err(
                        src.span,
                        expected(f"a pattern that may store ({inst.name} sets mayStore = 1)", "none that stores"),
                        record,
                        field,
                    )


_NODE_EFFECTS = (("mayLoad", "SDNPMayLoad"), ("mayStore", "SDNPMayStore"), ("hasSideEffects", "SDNPSideEffect"))
_INTR_EFFECT_WHY = {
    "mayLoad": "an intrinsic that may read memory",
    "mayStore": "an intrinsic that may write memory",
    "hasSideEffects": "an intrinsic with side effects",
}
_EFFECT_NOUN = {"mayLoad": "loads", "mayStore": "stores", "hasSideEffects": "side effects"}
_MEMORY_PROPS = frozenset({
    "IntrNoMem", "IntrReadMem", "IntrWriteMem", "IntrArgMemOnly", "IntrInaccessibleMemOnly",
    "IntrInaccessibleMemOrArgMemOnly",
})


def intrinsic_effects(intr: Intrinsic) -> tuple[bool, bool, bool]:
    """(reads memory, writes memory, has side effects) of an intrinsic, as
    llvm-tblgen derives them from its properties: memory is unknown (read, write and
    side effects) unless a memory property narrows it."""
    names = {p.name for p in intr.properties}
    if "IntrNoMem" in names:
        reads = writes = False
    else:
        reads = "IntrWriteMem" not in names
        writes = "IntrReadMem" not in names
    side = not (names & _MEMORY_PROPS) or "IntrHasSideEffects" in names
    return reads, writes, side
