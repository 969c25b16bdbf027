"""The llc oracle of the tests: run llc on IR, read its MIR output, compare its instruction choice with ours.

- ``run_llc`` runs ``llc-19 -mtriple=amdgcn -mcpu=gfx900 -stop-after=<pass>`` (by default
  ``amdgpu-isel``: the DAG selector's own choice, before SIFixSGPRCopies moves SALU users
  of VGPR values to the VALU) and ``read_mir`` parses llc's ``-stop-after=...`` output
  into per-function instruction lists (opcode, destination register class);
  ``opcode_multiset`` reduces one to the multiset of "modeled" opcodes used by the
  differential test against llc.
- Which opcodes count as modeled: ``modeled_opcodes(target)`` -- every instruction named
  in a result DAG of the target's selection patterns whose name starts with ``S_`` or
  ``V_`` (for amdgpu: the 32-bit SALU/VALU ALU ops, VOP3 three-operand forms, bit counts,
  min/max, bit-field extracts ...), except the moves S_MOV_B32/V_MOV_B32_e32. Copies,
  constant materialization, compares feeding branches (S_CMP/V_CMP), loads/stores,
  control-flow pseudos (SI_IF, SI_ELSE, SI_END_CF, S_CBRANCH), REG_SEQUENCE and
  IMPLICIT_DEF are not modeled and are ignored by the comparison.
- ``compare_with_llc`` selects IR with our pipeline and with llc and compares the two
  modeled opcode multisets per function (``Agreement``).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Final

__all__ = ["MirInstr", "MirFunction", "read_mir", "opcode_multiset", "run_llc", "modeled_opcodes", "Agreement",
           "compare_with_llc"]


@dataclass(frozen=True)
class MirInstr:
    """One machine instruction as read from llc's MIR: opcode and result register class."""

    opcode: str
    regclass: str | None  # of the first def, when it is a virtual register with a class
    block: str
    text: str


@dataclass(frozen=True)
class MirFunction:
    name: str
    instrs: tuple[MirInstr, ...]

    def opcodes(self) -> list[str]:
        return [i.opcode for i in self.instrs]


# (the expressions are compiled when read_mir first runs: printing needs none of them)
_NAME: Final = r"^name:\s+'?\"?([^'\"\s]+)"
_BLOCK: Final = r"^\s+(bb\.\d+[^:]*):"
# defs: "%12:sreg_32 = ", "%4:sgpr_64(p4) = ", "$vgpr0 = ", "%1:vgpr_32, %2:sreg_64_xexec = "
# (a def after the first may carry its own flags: "%21:vgpr_32, dead %23:sreg_64_xexec = ...")
_DEFS: Final = (r"^((?:[%$][\w.]+(?::[\w]+)?(?:\([^)]*\))?\s*,\s*(?:(?:dead|renamable|undef|early-clobber)\s+)*)*"
                r"[%$][\w.]+(?::[\w]+)?(?:\([^)]*\))?)\s*=\s*")
_FLAGS: Final = {"nuw", "nsw", "exact", "nofpexcept", "early-clobber", "disjoint", "contract",
                 "afn", "reassoc", "nnan", "ninf", "nsz", "arcp", "fast", "dead", "renamable", "undef"}
_OPC: Final = r"^([A-Z][A-Za-z0-9_]*)\b"


def read_mir(text: str) -> list[MirFunction]:
    """Functions of a MIR document stream (``---`` separated), in order."""
    name_re, block_re, defs_re, opc_re = (re.compile(x) for x in (_NAME, _BLOCK, _DEFS, _OPC))
    funcs: list[MirFunction] = []
    name: str | None = None
    in_body = False
    block = ""
    instrs: list[MirInstr] = []

    def flush():
        nonlocal name, instrs
        if name is not None:
            funcs.append(MirFunction(name, tuple(instrs)))
        name, instrs = None, []

    for raw in text.splitlines():
        if raw.startswith("---"):
            flush()
            in_body = False
            continue
        if raw.startswith("..."):
            flush()
            in_body = False
            continue
        m = name_re.match(raw)
        if m and not raw.startswith(" "):
            name = m.group(1)
            continue
        if raw.startswith("body:"):
            in_body = True
            continue
        if not in_body:
            continue
        m = block_re.match(raw)
        if m:
            block = m.group(1)
            continue
        line = raw.strip()
        if not line or line.startswith(("successors:", "liveins:", ";", "frameInfo")):
            continue
        regclass = None
        m = defs_re.match(line)
        if m:
            first = m.group(1).split(",")[0].strip()
            if ":" in first:
                regclass = first.split(":", 1)[1].split("(", 1)[0]
            line = line[m.end():]
        words = line.split(" ")
        while words and words[0] in _FLAGS:
            words = words[1:]
        rest = " ".join(words)
        # "early-clobber %1:cls = OPC": flags may also precede the defs
        m = defs_re.match(rest)
        if m:
            first = m.group(1).split(",")[0].strip()
            if ":" in first:
                regclass = first.split(":", 1)[1].split("(", 1)[0]
            rest = rest[m.end():]
            words = rest.split(" ")
            while words and words[0] in _FLAGS:
                words = words[1:]
            rest = " ".join(words)
        m = opc_re.match(rest)
        if not m:
            continue
        instrs.append(MirInstr(m.group(1), regclass, block, raw.strip()))
    flush()
    return funcs


def opcode_multiset(opcodes, modeled) -> Counter:
    """The multiset of ``opcodes`` restricted to the ``modeled`` set."""
    return Counter(o for o in opcodes if o in modeled)


def run_llc(llc: str, ir_text: str, *, stop_after: str = "amdgpu-isel", mcpu: str = "gfx900",
            timeout: float = 120.0) -> list[MirFunction]:
    """Run ``llc -mtriple=amdgcn -mcpu=<mcpu> -stop-after=<pass>`` on IR text and read its MIR.

    Raises ``RuntimeError`` with llc's stderr when llc rejects the input."""
    import subprocess

    proc = subprocess.run([llc, "-mtriple=amdgcn", f"-mcpu={mcpu}", f"-stop-after={stop_after}", "-o", "-"],
                          input=ir_text, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"llc failed ({proc.returncode}): {proc.stderr.strip()[:2000]}")
    return read_mir(proc.stdout)


# constants' moves; and the 64-bit SALU logic, which llc also selects for the lane masks of
# i1 values (wave64) -- a use the amdgpu target does not model yet (targets/amdgpu/i64.py)
_NOT_COMPARED = frozenset({"S_MOV_B32", "V_MOV_B32_e32", "S_AND_B64", "S_OR_B64", "S_XOR_B64"})


def modeled_opcodes(target) -> frozenset[str]:
    """The opcodes the differential test compares: S_/V_ roots of the target's patterns
    (every instruction in a pattern result DAG whose name starts with ``S_`` or ``V_``)
    and the S_/V_ instructions its custom selection steps (``CustomSelect.emits``) produce."""
    from tdgen.dag import Dag

    out = set()
    for sp in target.selection_patterns():
        for n in sp.dst.walk():
            if isinstance(n, Dag) and n.op.startswith(("S_", "V_")) and n.op not in _NOT_COMPARED:
                out.add(n.op)
    for cs in getattr(target, "custom_selects", ()):
        out.update(op for op in cs.emits if op.startswith(("S_", "V_")))
    return frozenset(out)


@dataclass(frozen=True)
class Agreement:
    """Per-function comparison of modeled opcode multisets (ours vs llc's)."""

    function: str
    ours: tuple[tuple[str, int], ...]
    llc: tuple[tuple[str, int], ...]
    # whether every node of the function was selected (a node nothing selects is a
    # "cannot select" error; ``ours`` then holds what the other nodes selected to)
    selected: bool = True

    @property
    def equal(self) -> bool:
        return self.ours == self.llc

    def diff(self) -> str:
        o, l_ = Counter(dict(self.ours)), Counter(dict(self.llc))
        extra = o - l_
        missing = l_ - o
        return (f"@{self.function}: we have extra {dict(sorted(extra.items()))}, "
                f"llc has extra {dict(sorted(missing.items()))}")


def compare_with_llc(ir_text: str, target, llc: str, *, path: str = "<generated>",
                     stop_after: str = "amdgpu-isel", modeled=None) -> list[Agreement]:
    """Select ``ir_text`` with ``target`` and with llc; compare modeled opcode multisets."""
    from patterns.uniformity.analysis import analyze
    from patterns.ir import parse_module
    from patterns.pipeline import select_function
    from patterns.select.matcher import build_table
    from tdgen.errors import Diagnostics

    modeled = modeled if modeled is not None else modeled_opcodes(target)
    theirs = {f.name: f for f in run_llc(llc, ir_text, stop_after=stop_after)}
    from patterns.ir.intrinsic_immargs import target_immargs

    module = parse_module(ir_text, path, target_immargs(target))
    table = build_table(target)
    out = []
    for fn in module.functions:
        if fn.is_declaration:
            continue
        ua = analyze(fn, target, llvm19_compat=True)
        diags = Diagnostics()
        sf, _ = select_function(fn, target, ua, table, diags, stop_after=stop_after)
        ours = opcode_multiset((mi.opcode for mi in sf.instrs()), modeled)
        llcm = opcode_multiset(theirs[fn.name].opcodes() if fn.name in theirs else (), modeled)
        out.append(Agreement(fn.name, tuple(sorted(ours.items())), tuple(sorted(llcm.items())), not diags))
    return out
