"""A reader of LLVM's MIR text (``llc -stop-after=finalize-isel``) into machine functions the machine interpreter runs.

``read_mir(text, path)`` -> ``[MIRFunction]``: per function its ``name``, the physical
registers live into the entry and the virtual registers they are copied to
(``liveins``), the target's argument registers (``argument_info``: the
``machineFunctionInfo.argumentInfo`` entries, ``kernargSegmentPtr: { reg: '$sgpr2_sgpr3' }``),
and its blocks (``MIRBlock``: number, name, successors, instructions as
``patterns.run.machine_types.MInstr``). What is read of an instruction:

- its defs (``%3:vgpr_32``, ``early-clobber``/``dead``/``undef``/``renamable`` flags,
  an LLT in parentheses dropped), the instruction flags before the opcode (``nuw``,
  ``nsw``, ``exact``, ``nofpexcept`` ...: ignored, they do not change what runs);
- its explicit operands, each one of: a virtual register (``%7``, ``%7.sub1``, ``killed``
  and the other flags dropped, ``:class`` and ``(s32)`` dropped), an immediate, a block
  ``%bb.N``, a sub-register index ``%subreg.sub0``, a physical register ``$sgpr2_sgpr3``;
  the implicit ones (``implicit $exec``, ``implicit-def dead $scc``) are kept apart
  (``MInstr.extra["implicit"]``);
- its memory operands (``:: (store (s32) into %ir.g, addrspace 1)``): the IR value named
  (``extra["ir_pointer"]``) and the access size.

Anything else -- a global address, ``target-flags``, a frame index, a constant-pool
entry, ``%ir`` operands, a metadata operand -- is a ``ParseError`` at ``path:line:col``
(``expected ..., found ...``), as is a malformed line; every error of the file is
reported together. Register files come from the class name's prefix (``vgpr``/``vreg``/
``av`` vector, ``sgpr``/``sreg`` scalar) and widths from its ``_32``/``_64`` suffix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from patterns.run.machine_types import MInstr
from tdgen.errors import Diagnostics, ParseError, Span, expected

__all__ = ["MIRFunction", "MIRBlock", "read_mir", "class_file", "class_bits"]


@dataclass
class MIRBlock:
    number: int
    name: str
    succs: list[int] = field(default_factory=list)
    instrs: list[MInstr] = field(default_factory=list)
    line: int = 0

    @property
    def label(self) -> str:
        return f"bb.{self.number}" + (f".{self.name}" if self.name else "")


@dataclass
class MIRFunction:
    name: str
    blocks: list[MIRBlock]
    liveins: dict[str, str]
    argument_info: dict[str, str]
    path: str = ""
    line: int = 0


_OPERAND_FLAGS = ("killed", "undef", "dead", "renamable", "internal", "debug-use", "early-clobber", "implicit-def",
                  "implicit")
_DEF_FLAGS = ("early-clobber", "dead", "undef", "renamable", "internal")
_INSTR_FLAGS = frozenset({"nuw", "nsw", "exact", "nofpexcept", "disjoint", "nneg", "frame-setup", "frame-destroy",
                          "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc", "unpredictable", "samesign"})
_VREG = re.compile(r"^%(\d+)(\.sub\d+)?(?::[\w]+)?(?:\([\w<> ]+\))?$")
_VREG_DEF = re.compile(r"^%(\d+)(?::([\w]+))?(?:\([\w<> ]+\))?$")
_PHYS = re.compile(r"^\$[\w]+$")
_IMM = re.compile(r"^-?\d+$")
_BB = re.compile(r"^%bb\.(\d+)$")
_SUBREG = re.compile(r"^%subreg\.\w+$")
_OPCODE = re.compile(r"^[A-Z][A-Z0-9_a-z]*$")
_BLOCK = re.compile(r"^  bb\.(\d+)(?:\.([\w.$-]+))?(?: \(.*\))?:\s*$")


def class_file(rc: str | None) -> str | None:
    if rc is None:
        return None
    r = rc.lower()
    if r.startswith(("vgpr", "vreg", "av_", "agpr", "areg")):
        return "vector"
    if r.startswith(("sgpr", "sreg", "ccr_sgpr", "sgpr_null")):
        return "scalar"
    return None


def class_bits(rc: str | None) -> int:
    m = re.search(r"_(\d+)", rc or "")
    return int(m.group(1)) if m else 32


def _split_top(text: str, sep: str = ",") -> list[tuple[str, int]]:
    """``text`` split at top-level ``sep`` (not inside parentheses/braces), with each
    part's offset."""
    out, depth, start = [], 0, 0
    for k, ch in enumerate(text):
        if ch in "({[<":
            depth += 1
        elif ch in ")}]>":
            depth -= 1
        elif ch == sep and depth == 0:
            out.append((text[start:k], start))
            start = k + 1
    out.append((text[start:], start))
    return [(p.strip(), off + (len(p) - len(p.lstrip()))) for p, off in out]


def _find_top(text: str, needle: str) -> int:
    depth = 0
    for k in range(len(text)):
        ch = text[k]
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        elif depth == 0 and text.startswith(needle, k):
            return k
    return -1


class _Reader:
    def __init__(self, text: str, path: str):
        self.lines = text.splitlines()
        self.path = path
        self.diags = Diagnostics()

    def err(self, line: int, col: int, what: str, found: str) -> None:
        self.diags.add(ParseError(Span(self.path, line, col), expected(what, found)))

    def read(self) -> list[MIRFunction]:
        out: list[MIRFunction] = []
        k = 0
        n = len(self.lines)
        while k < n:
            line = self.lines[k]
            if line.startswith("---") and not line.startswith("--- |"):
                k, fn = self.function(k + 1)
                if fn is not None:
                    out.append(fn)
                continue
            k += 1
        if not out and not self.diags.errors:
            self.err(1, 1, "a machine function document ('---' then 'name:')", "none")
        self.diags.check()
        return out

    def function(self, k: int) -> tuple[int, MIRFunction | None]:
        n = len(self.lines)
        name, start = None, k
        liveins: dict[str, str] = {}
        args: dict[str, str] = {}
        section = None
        blocks: list[MIRBlock] = []
        while k < n:
            line = self.lines[k]
            if line.startswith("...") or line.startswith("---"):
                break
            if line and not line.startswith(" "):
                key = line.split(":", 1)[0]
                section = key
                if key == "name":
                    name = line.split(":", 1)[1].strip()
                if key == "body":
                    k = self.body(k + 1, blocks)
                    continue
            elif section == "liveins":
                m = re.match(r"^\s*- \{ reg: '(\$[\w]+)'(?:, virtual-reg: '(%\d+)')? \}", line)
                if m and m.group(2):
                    liveins[m.group(1)] = m.group(2)
            elif section == "machineFunctionInfo":
                m = re.match(r"^    (\w+):\s*\{ reg: '(\$[\w]+)'", line)
                if m:
                    args[m.group(1)] = m.group(2)
            k += 1
        if name is None:
            self.err(start + 1, 1, "'name:' in the machine function document", "none")
            return k, None
        return k, MIRFunction(name, blocks, liveins, args, self.path, start + 1)

    def body(self, k: int, blocks: list[MIRBlock]) -> int:
        n = len(self.lines)
        cur: MIRBlock | None = None
        while k < n:
            line = self.lines[k]
            if line.startswith("...") or line.startswith("---") or (line and not line.startswith(" ")):
                return k
            lno = k + 1
            k += 1
            if not line.strip() or line.strip().startswith(";"):
                continue
            m = _BLOCK.match(line)
            if m:
                cur = MIRBlock(int(m.group(1)), m.group(2) or "", line=lno)
                if cur.number != len(blocks):
                    self.err(lno, 3, f"block bb.{len(blocks)} (blocks in order)", f"bb.{cur.number}")
                blocks.append(cur)
                continue
            if cur is None:
                self.err(lno, 1, "a block label 'bb.N:'", repr(line.strip()[:40]))
                continue
            s = line.strip()
            col0 = len(line) - len(line.lstrip()) + 1
            if s.startswith("successors:"):
                for part, off in _split_top(s[len("successors:"):]):
                    mb = re.match(r"^%bb\.(\d+)", part)
                    if mb:
                        cur.succs.append(int(mb.group(1)))
                continue
            if s.startswith("liveins:"):
                continue
            mi = self.instr(s, lno, col0, cur)
            if mi is not None:
                cur.instrs.append(mi)
        return k

    def instr(self, s: str, lno: int, col0: int, blk: MIRBlock) -> MInstr | None:
        mem = ""
        cut = _find_top(s, " :: ")
        if cut >= 0:
            mem = s[cut + 4:]
            s = s[:cut]
        dl = _find_top(s, ", debug-location")
        if dl >= 0:
            s = s[:dl]
        defs: list[tuple[str, str | None, str | None]] = []
        eq = _find_top(s, " = ")
        rhs, rhs_col = s, col0
        if eq >= 0:
            for part, off in _split_top(s[:eq]):
                toks = part.split()
                while toks and toks[0] in _DEF_FLAGS:
                    toks = toks[1:]
                reg = toks[0] if toks else ""
                m = _VREG_DEF.match(reg)
                if len(toks) == 1 and reg in ("$vcc", "$exec", "$scc"):
                    defs.append((reg, None, "scalar"))
                    continue
                if m is None or len(toks) != 1:
                    if _PHYS.match(reg or "-"):
                        self.err(lno, col0 + off, "a virtual register or $vcc/$exec/$scc definition",
                                 f"physical register {reg}")
                    else:
                        self.err(lno, col0 + off, "a virtual register definition '%N:class'", repr(part))
                    return None
                rc = m.group(2)
                defs.append((f"%{m.group(1)}", rc, class_file(rc)))
            rhs = s[eq + 3:]
            rhs_col = col0 + eq + 3
        toks = rhs.split(" ", 1)
        pos = rhs_col
        while toks and toks[0] in _INSTR_FLAGS:
            pos += len(toks[0]) + 1
            rhs = toks[1] if len(toks) > 1 else ""
            toks = rhs.split(" ", 1)
        opcode = toks[0] if toks else ""
        if not _OPCODE.match(opcode):
            self.err(lno, pos, "an instruction opcode", repr(opcode))
            return None
        rest = toks[1] if len(toks) > 1 else ""
        ops: list[str] = []
        implicit: list[str] = []
        if rest.strip():
            base = pos + len(opcode) + 1
            for part, off in _split_top(rest):
                words = part.split()
                is_implicit = bool(words) and words[0] in ("implicit", "implicit-def")
                while words and words[0] in _OPERAND_FLAGS:
                    words = words[1:]
                if len(words) != 1:
                    self.err(lno, base + off, "an operand", repr(part))
                    return None
                w = words[0]
                if is_implicit:
                    implicit.append(w)
                    continue
                m = _VREG.match(w)
                if m is not None:
                    ops.append(f"%{m.group(1)}{m.group(2) or ''}")
                elif _IMM.match(w) or _BB.match(w) or _SUBREG.match(w) or _PHYS.match(w):
                    ops.append(w)
                else:
                    self.err(lno, base + off, "a register, immediate, block or sub-register index operand "
                             "(the operands the machine interpreter models)", repr(w))
                    return None
        mi = MInstr(opcode, defs, ops, None, f"{self.path}:{lno}:{col0}")
        mi.extra["implicit"] = implicit
        if mem:
            mm = re.search(r"%ir\.([\w.$-]+)", mem)
            if mm:
                mi.extra["ir_pointer"] = mm.group(1)
            ms = re.search(r"\((?:s|p\d+:?)(\d+)\)", mem)
            if ms:
                mi.extra["mem_bits"] = int(ms.group(1))
        return mi


def read_mir(text: str, path: str = "<mir>") -> list[MIRFunction]:
    """The machine functions of MIR ``text`` (module docstring); ParseErrors together."""
    return _Reader(text, path).read()
