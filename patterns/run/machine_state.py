"""One wave executing machine instructions: virtual registers, the exec mask, and each instruction's effect.

``MInstr`` (``patterns.run.machine_types``) is a machine instruction as the machine interpreter runs it, made from tdgen's
selection (``patterns.select.mir.MachineInstr``, ``patterns.run.machine``) or from
llc's MIR (``patterns.run.mir_reader``): opcode, defs ``(register, register class,
file)``, operands as text (``%5``, ``%5.sub0``, ``7``, ``$exec``, ``%subreg.sub0``,
``%bb.2``), the IR value it stands for and where it was read from.

``WaveRun`` holds one wave's registers: a virtual register is ``(file, values,
defined)`` -- ``values`` a ``uint64`` per lane, ``defined`` a bool per lane (a vector
register written under an exec mask is defined on those lanes only; a scalar register
is one value for the wave). ``execute`` runs one instruction:

- a target instruction with semantics (``tdgen.model.semantics``, compiled by
  ``patterns.run.semantics_eval``), its operands bound by position to the
  instruction's ``outs``/``ins``;
- the generic instructions with a defined meaning: ``COPY`` (between files: a scalar
  source broadcast; a vector source into a scalar register must hold one value on the
  active lanes -- the readfirstlane the copy stands for), ``PHI`` (per lane, the value
  from the block the lane came from), ``IMPLICIT_DEF`` (an undefined value: this model
  reads it as 0 on every lane), ``REG_SEQUENCE`` (the parts, low first), and a ``COPY``
  of a preloaded value (``$llvm.<...>.workitem.id.x`` ...: the work-item id);
- anything else is ``NotModeled``.

Illegal states are ``IllegalState`` errors naming the instruction: a vector register read
by a scalar (wave) instruction, a lane-varying value written to a scalar register, a
read of an undefined register (or of a vector register on an active lane it was never
written on), a PHI without an incoming value for a lane's predecessor.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from patterns.run.machine_types import IllegalState, MInstr, NotModeledInstr
from patterns.run.semantics_eval import compile_semantics, mask_of
from tdgen.model.semantics import Implicit, Operand, instruction_semantics

__all__ = ["MInstr", "WaveRun", "IllegalState", "NotModeledInstr", "TargetSemantics"]

U64 = np.uint64
SPACES = {"global": 1, "lds": 3, "kernarg": 4, "private": 5, "flat": 0}


class TargetSemantics:
    """A target's instructions as the interpreter runs them: for each instruction name
    with semantics, its compiled semantics and operand names/widths/files. ``extra``:
    instructions that are not the target's records but have semantics for reading
    another compiler's output (``patterns.run.mir_run``): name -> (outs, ins, Semantics),
    operands as (name, register class or operand kind; ``brtarget`` a block)."""

    def __init__(self, target: Any, extra: dict | None = None):
        self.target = target
        self.extra = extra or {}
        wave = getattr(target, "wave", None)
        self.bpermute_wave64 = getattr(wave, "bpermute_wave64", "full") or "full"
        self._cache: dict[str, Any] = {}
        self.insts = target.instructions

    def rc_file(self, rc: str | None) -> str | None:
        if rc is None:
            return None
        r = self.target.register_classes_by_name.get(rc)
        if r is None:
            for c in self.target.register_classes:
                if c.name.lower() == rc.lower():
                    return c.file
            from patterns.run.mir_reader import class_file

            return class_file(rc)  # an LLVM class name of llc's MIR
        return r.file

    def rc_bits(self, rc: str | None) -> int:
        r = self.target.register_classes_by_name.get(rc) if rc else None
        if r is None and rc:
            for c in self.target.register_classes:
                if c.name.lower() == rc.lower():
                    return int(c.size or 32)
            from patterns.run.mir_reader import class_bits

            return min(class_bits(rc), 64)
        return int(r.size or 32) if r is not None else 32

    def get(self, opcode: str):
        """(run, outs, ins, unit, widths, files) of ``opcode``, or None without semantics."""
        if opcode in self._cache:
            return self._cache[opcode]
        inst = self.insts.get(opcode)
        entry = None
        if opcode in self.extra and (inst is None or instruction_semantics(inst) is None):
            from tdgen.check.semantics import operand_width

            outs, ins, sem = self.extra[opcode]
            ops = list(outs) + list(ins)
            widths = {n: (operand_width(self.target, k) or 32) if k != "brtarget" else 0 for n, k in ops}
            files = {n: (self.rc_file(k) or ("block" if k == "brtarget" else "imm")) for n, k in ops}
            entry = (compile_semantics(sem, widths), [n for n, _k in outs], [n for n, _k in ins], sem.unit, widths,
                     files)
        elif inst is not None:
            sem = instruction_semantics(inst)
            if sem is not None:
                from tdgen.check.semantics import operand_width

                widths = {o.name: operand_width(self.target, o.kind) or 32 for o in inst.operands}
                files = {o.name: self.rc_file(o.kind) or "imm" for o in inst.operands}
                entry = (compile_semantics(sem, widths), [o.name for o in inst.outs], [o.name for o in inst.ins],
                         sem.unit, widths, files)
        self._cache[opcode] = entry
        return entry


_PRELOADED = re.compile(r"^\$llvm\.[\w.]*\.(workitem\.id|tid|workgroup\.id|ctaid)\.([xyz])$")
_REG = re.compile(r"^%(\w+(?:#\d+)?)(?:\.(sub\d+))?$")


class WaveRun:
    """The registers of one wave of ``wave`` lanes (``local``: each lane's work-item id in
    its group, ``valid``: lanes that exist), running instructions of ``sems``."""

    def __init__(self, sems: TargetSemantics, wave: int, local: np.ndarray, valid: np.ndarray, memory: Any = None,
                 group: int = 0):
        self.sems = sems
        self.wave = wave
        self.local = local
        self.valid = valid
        self.exec = valid.copy()
        self.memory = memory
        self.group = group
        self.regs: dict[str, tuple[str, np.ndarray, np.ndarray]] = {}
        self.scc = None  # (values, defined)
        self.vcc = None
        self.came_from = np.full(wave, -1, dtype=np.int64)
        self.bpermute_wave64 = sems.bpermute_wave64
        self.cur: MInstr | None = None
        self.trace_values: list[tuple[MInstr, str, np.ndarray, np.ndarray, str]] = []
        self.keep_values = False
        self.generic_ir = False  # run the generic instructions by their IR meaning (machine_generic)
        self.generic_count = 0
        self.branch: tuple | None = None  # set by an instruction that branches (patterns.run.mir_run)
        self.physical: dict[str, tuple] = {}  # physical registers live into the entry (llc's MIR)
        # 32-bit parts a scalar load left undefined: register (or chunk) -> (bit mask, what was read)
        self.undef_parts: dict[str, tuple[int, str]] = {}
        self.partial_load = False  # (set by semantics_eval while a load written as it is runs)
        self.load_undef: tuple[int, str] | None = None
        self.unit = "lane"

    # ------------------------------------------------------------------ registers
    def set_reg(self, name: str, file: str, values: np.ndarray, defined: np.ndarray) -> None:
        self.regs[name] = (file, values, defined)
        if self.undef_parts:
            self.undef_parts.pop(name, None)

    def set_uniform(self, name: str, value: int) -> None:
        if self.undef_parts:
            self.undef_parts.pop(name, None)
        self.regs[name] = ("scalar", np.full(self.wave, U64(value & 0xFFFFFFFFFFFFFFFF), dtype=U64),
                           np.ones(self.wave, dtype=bool))

    def read(self, text: str, for_scalar: bool = False, whole: bool = False) -> tuple[np.ndarray, bool, str]:
        """(values, uniform, file) of operand text ``text`` (``whole``: a register as it
        is, undefined parts included -- a COPY's source)."""
        m = _REG.match(text)
        if m is None:
            try:
                v = int(text, 0)
            except ValueError:
                return self.read_special(text)
            return np.full(self.wave, U64(v & 0xFFFFFFFFFFFFFFFF), dtype=U64), True, "imm"
        name, sub = m.group(1), m.group(2)
        r = self.regs.get(name)
        if r is None:
            raise IllegalState(f"read of undefined register %{name}", self.cur)
        file, vals, dfn = r
        if file == "vector":
            need = self.exec
            bad = need & ~dfn
            if bad.any():
                lane = int(np.flatnonzero(bad)[0])
                raise IllegalState(f"read of undefined register %{name} on active lane {lane}", self.cur, lane)
            if for_scalar:
                raise IllegalState(f"vector register %{name} read by scalar instruction {self.cur.opcode}", self.cur)
        elif not dfn.all():
            raise IllegalState(f"read of undefined register %{name}", self.cur)
        if self.undef_parts and not (whole and sub is None):
            self._check_parts(name, sub)
        if sub is not None:
            k = int(sub[3:])
            if k >= 2:  # bits 64c.. of a register wider than 64 bits: its chunk "#c"
                hi = self.regs.get(f"{name}#{k // 2}")
                if hi is None:
                    raise IllegalState(f"read of undefined register %{name}.{sub}", self.cur)
                vals, k = hi[1], k % 2
            vals = (vals >> U64(32 * k)) & U64(0xFFFFFFFF)
        return vals, file != "vector", file

    def _check_parts(self, name: str, sub: str | None) -> None:
        """A read of a part of register ``name`` that a scalar load left undefined is an
        illegal state (the machine reads whatever the memory held)."""
        key, bits = name, 0b11
        if sub is not None:
            k = int(sub[3:])
            key, bits = (name if k < 2 else f"{name}#{k // 2}"), 1 << (k % 2)
        got = self.undef_parts.get(key)
        if got is not None and got[0] & bits:
            what = f"%{name}.{sub}" if sub is not None else f"%{name}"
            raise IllegalState(f"read of {what}, which holds {got[1]}", self.cur)

    def read_special(self, text: str) -> tuple[np.ndarray, bool, str]:
        got = self.physical.get(text)
        if got is not None:
            return got
        m = _PRELOADED.match(text)
        if m is not None:
            if m.group(1) in ("workgroup.id", "ctaid"):  # the work-group's id: one value for the wave
                g = self.group if m.group(2) == "x" else 0
                return np.full(self.wave, U64(g), dtype=U64), True, "scalar"
            ids = self.local.astype(U64) if m.group(2) == "x" else np.zeros(self.wave, dtype=U64)
            return ids, False, "vector"
        low = text.lower()
        if low == "$exec":
            return np.full(self.wave, U64(self.mask_int(self.exec)), dtype=U64), True, "scalar"
        if low in ("$scc", "$vcc"):
            v = self.implicit(low[1:].upper())
            return v[0], True, "scalar"
        raise NotModeledInstr(f"operand '{text}'", self.cur)

    def mask_int(self, bits: np.ndarray) -> int:
        word = 0
        for k in np.flatnonzero(bits):
            word |= 1 << int(k)
        return word

    def mask_bits(self, word: int) -> np.ndarray:
        return ((U64(word) >> np.arange(self.wave, dtype=U64)) & U64(1)).astype(bool)

    # ------------------------------------------------------------------ semantics ctx
    def operand(self, name: str):
        return self._ops[name]

    def implicit(self, reg: str):
        if reg == "EXEC":
            return np.full(self.wave, U64(self.mask_int(self.exec)), dtype=U64), True
        r = self.scc if reg == "SCC" else self.vcc
        if r is None:
            raise IllegalState(f"read of undefined {reg}", self.cur)
        return np.full(self.wave, U64(r), dtype=U64), True

    def illegal(self, message: str):
        raise IllegalState(message, self.cur)

    def load(self, space: str, addr: np.ndarray, bits: int, active: np.ndarray) -> np.ndarray:
        if self.memory is None:
            raise NotModeledInstr("a load without a memory", self.cur)
        from patterns.run.memory import from_bytes

        data, init = self.memory.load(SPACES[space], addr, bits // 8, active, self.group, self.local)
        bad = active & ~init.all(axis=1)
        if bad.any():
            lane = int(np.flatnonzero(bad)[0])
            if self.partial_load and self.unit == "wave" and bits % 32 == 0:
                # a scalar load reads whole dwords; an uninitialised one is an undefined
                # part of the result, an error only where it is read (llc widens kernel
                # argument loads over the segment's padding)
                parts = init[active].reshape(-1, bits // 32, 4).all(axis=2).all(axis=0)
                mask = sum(1 << j for j in range(bits // 32) if not parts[j])
                # (parts[j]: dword j initialised on every active lane)
                first = int(np.flatnonzero(~parts)[0])
                self.load_undef = (mask, f"uninitialised {space} memory at 0x{int(addr[lane]) + 4 * first:x} "
                                         f"(loaded by {self.cur.text() if self.cur is not None else 'a load'})")
                return from_bytes(np.where(init, data, 0).astype(np.uint8))
            raise IllegalState(f"load of uninitialised {space} memory at 0x{int(addr[lane]):x}", self.cur, lane)
        return from_bytes(data)

    # ------------------------------------------------------------------ execution
    def execute(self, mi: MInstr, block_index: int = -1) -> None:
        self.cur = mi
        op = mi.opcode
        entry = self.sems.get(op)
        if entry is not None:
            self._run_semantics(mi, entry)
        elif op == "COPY":
            self._copy(mi)
        elif op == "PHI":
            raise AssertionError("PHIs run per block (run_phis)")
        elif op == "IMPLICIT_DEF":
            for d, rc, file in mi.defs:
                self.set_reg(d[1:], file or "scalar", np.zeros(self.wave, dtype=U64), np.ones(self.wave, dtype=bool))
        elif op == "REG_SEQUENCE":
            self._reg_sequence(mi)
        elif self.generic_ir and "node" in mi.extra:
            from patterns.run.machine_generic import run_generic

            run_generic(self, mi)
        else:
            raise NotModeledInstr(f"instruction {op} (no semantics)", mi)
        if self.keep_values:
            for d, _rc, file in mi.defs:
                r = self.regs.get(d[1:])
                if r is not None:
                    self.trace_values.append((mi, d, r[1].copy(), self.exec.copy(), r[0]))

    def _run_semantics(self, mi: MInstr, entry) -> None:
        run, outs, ins, unit, widths, files = entry
        if len(mi.operands) < len([n for n in ins if "#" not in n]) or len(mi.defs) < len([o for o in outs if "#" not in o]):
            raise NotModeledInstr(f"{mi.opcode} with {len(mi.defs)} defs and {len(mi.operands)} operands "
                                  f"(the spec has {len(outs)} and {len(ins)})", mi)
        ops = {}
        blocks = {}
        texts = dict(zip([n for n in ins if "#" not in n], mi.operands))
        for name in ins:
            if "#" in name:  # 64-bit chunk c of a wider operand
                base, chunk = name.split("#", 1)
                texts[name] = f"{texts[base]}#{chunk}"
        for name, text in texts.items():
            if files.get(name) == "block":
                blocks[name] = text
                continue
            ops[name] = self.read(text, for_scalar=(unit == "wave" and files.get(name) != "imm"))
        self._ops = ops
        self.unit = unit
        writes, stores = run(self)
        new_exec: list = []
        defs = {name: d for name, d in zip(outs, mi.defs)}
        for dst, vals, uni, vw, undef in writes:
            if isinstance(dst, Implicit):
                if dst.reg == "SCC":
                    self.scc = int(vals[0]) if unit == "wave" else self._uniform_value(vals, uni, "SCC")
                elif dst.reg == "VCC":
                    self.vcc = self.mask_int((vals != 0) & self.exec) if vw == 1 else int(vals[0])
                elif unit == "wave":  # EXEC
                    new_exec.append(self.mask_bits(int(vals[0])) & self.valid)
                else:
                    raise NotModeledInstr(f"a lane instruction writing {dst.reg}", mi)
                continue
            if "#" in dst.name:  # 64-bit chunk c of a result wider than 64 bits
                base, chunk = dst.name.split("#", 1)
                reg, rc, file = defs[base]
                reg = f"{reg}#{chunk}"
            else:
                reg, rc, file = defs[dst.name]
            file = file or files.get(dst.name) or "vector"
            bits = widths.get(dst.name, 32)
            self._write(reg[1:], file, vals, uni, vw, bits, unit)
            if undef is not None:
                self.undef_parts[reg[1:]] = undef
        for space, addr, vals, bits in stores:
            self._store(space, addr, vals, bits)
        if new_exec:
            self.exec = new_exec[-1]
        br = getattr(run, "branch", None)
        if br is not None:
            got = br(self)
            if got is not None:
                self.branch = ("end", None) if got[0] == "end" else ("to", blocks.get(got[1]))

    def _uniform_value(self, vals: np.ndarray, uni: bool, what: str) -> int:
        act = self.exec
        if not uni:
            v = vals[act]
            if len(v) and (v != v[0]).any():
                lane = int(np.flatnonzero(act)[int(np.flatnonzero(v != v[0])[0])])
                raise IllegalState(f"lane-varying value written to scalar {what}", self.cur, lane)
        return int(vals[int(np.argmax(act))]) if act.any() else int(vals[0])

    def _write(self, name: str, file: str, vals: np.ndarray, uni: bool, vw: int, bits: int, unit: str) -> None:
        m = mask_of(bits)
        if name in ("vcc", "exec", "scc"):  # a physical register of llc's MIR
            v = self._uniform_value(vals, uni, f"${name}")
            if name == "vcc":
                self.vcc = v
            elif name == "scc":
                self.scc = v & 1
            else:
                self.exec = self.mask_bits(v) & self.valid
            return
        if file == "vector":
            old = self.regs.get(name)
            if old is not None and old[0] == "vector":
                v = np.where(self.exec, vals & m, old[1])
                d = old[2] | self.exec
            else:
                v = np.where(self.exec, vals & m, U64(0))
                d = self.exec.copy()
            self.set_reg(name, "vector", v, d)
            return
        if unit == "lane" and vw == 1 and bits > 1:  # a lane mask: each active lane's bit
            word = self.mask_int((vals != 0) & self.exec)
            self.set_uniform(name, word)
            return
        self.set_uniform(name, self._uniform_value(vals, uni, f"register %{name}") & int(m))

    def _store(self, space: str, addr: np.ndarray, vals: np.ndarray, bits: int) -> None:
        if self.memory is None:
            raise NotModeledInstr("a store without a memory", self.cur)
        from patterns.run.memory import to_bytes

        typ = self.cur.extra.get("store_type") if self.cur is not None else None
        if typ is not None and typ[0] == "i" and typ[1:].isdigit() and int(typ[1:]) != bits:
            raise NotModeledInstr(f"a {bits}-bit piece of an {typ} store (stores compare per IR store)", self.cur)
        self.memory.store(SPACES[space], addr, to_bytes(vals, bits // 8), self.exec.copy(), self.group, self.local,
                          typ or f"i{bits}", origin=f"{self.cur.text()}  ({self.cur.where})")

    def _copy(self, mi: MInstr) -> None:
        (d, rc, file), = mi.defs[:1]
        src = mi.operands[0]
        vals, uni, sfile = self.read(src, whole=True)
        for c in range(1, 4):  # the chunks of a register wider than 64 bits
            part = self.regs.get(f"{src[1:]}#{c}") if src.startswith("%") else None
            if part is not None:
                self.regs[f"{d[1:]}#{c}"] = part
                undef = self.undef_parts.get(f"{src[1:]}#{c}")
                if undef is not None:
                    self.undef_parts[f"{d[1:]}#{c}"] = undef
        file = file or self.sems.rc_file(rc) or sfile
        bits = self.sems.rc_bits(rc) if rc else 64
        if sfile == "vector" and file == "scalar":
            self.set_uniform(d[1:], self._uniform_value(vals, False, f"register {d} (COPY from {src})"))
        else:
            self._write(d[1:], file, vals, uni, bits, bits, "lane")
        undef = self.undef_parts.get(src[1:]) if self.undef_parts and src.startswith("%") else None
        if undef is not None:
            self.undef_parts[d[1:]] = undef

    def _reg_sequence(self, mi: MInstr) -> None:
        (d, rc, file), = mi.defs[:1]
        chunks: dict[int, np.ndarray] = {}
        uni_all = True
        vfile = False
        ops = mi.operands
        for k in range(0, len(ops) - 1, 2):
            part = ops[k + 1]
            idx = int(part.rsplit(".", 1)[-1].replace("sub", ""))
            vals, uni, sfile = self.read(ops[k])
            uni_all &= uni
            vfile |= sfile == "vector"
            acc = chunks.setdefault(idx // 2, np.zeros(self.wave, dtype=U64))
            acc |= (vals & U64(0xFFFFFFFF)) << U64(32 * (idx % 2))
        file = file or ("vector" if vfile else "scalar")
        for c, acc in sorted(chunks.items()):
            name = d[1:] if c == 0 else f"{d[1:]}#{c}"
            self._write(name, file, acc, uni_all, 64, 64, "lane")

    def phi_copies(self, phis: list[MInstr], block_of: dict[str, int], pred: int) -> list:
        """The copies PHI elimination puts at the end of block ``pred`` (before its
        terminators) for the PHIs of one successor of llc's MIR: each PHI's register gets
        the incoming value of ``pred`` -- a scalar register whole, a vector one on the
        lanes active here (the other lanes keep what the register held: its copies from
        the other predecessors). Returned, then written together (``commit_phis``)."""
        out = []
        for mi in phis:
            self.cur = mi
            (d, rc, file), = mi.defs[:1]
            inc = [mi.operands[k] for k in range(0, len(mi.operands) - 1, 2)
                   if block_of.get(mi.operands[k + 1], -2) == pred]
            if not inc:
                out.append((mi, None))
                continue
            file = file or self.sems.rc_file(rc) or "vector"
            src = self.regs.get(inc[0][1:].split(".")[0]) if inc[0].startswith("%") else None
            if file != "vector":
                out.append((mi, src))
                continue
            old = self.regs.get(d[1:])
            vals = old[1] if old is not None else np.zeros(self.wave, dtype=U64)
            dfn = old[2] if old is not None else np.zeros(self.wave, dtype=bool)
            if src is not None:
                vals = np.where(self.exec, src[1], vals)
                dfn = np.where(self.exec, src[2], dfn)
            out.append((mi, ("vector", vals, dfn)))
        return out

    def commit_phis(self, copies: list) -> None:
        """Write the PHI copies made at the end of a block (``phi_copies``)."""
        for mi, r in copies:
            if r is not None:
                self.regs[mi.defs[0][0][1:]] = r

    def check_phis(self, phis: list[MInstr], block_of: dict[str, int], pred: int) -> None:
        """Every PHI of a block has an incoming value for ``pred``, the block the wave came from."""
        for mi in phis:
            if not any(block_of.get(mi.operands[k + 1], -2) == pred for k in range(0, len(mi.operands) - 1, 2)):
                raise IllegalState(f"PHI {mi.defs[0][0]} has no incoming value for predecessor bb.{pred}", mi)

    def run_phis(self, phis: list[MInstr], block_of: dict[str, int]) -> None:
        """Every PHI of a block at once (they read the registers from before the block)."""
        new = []
        for mi in phis:
            self.cur = mi
            (d, rc, file), = mi.defs[:1]
            vals = np.zeros(self.wave, dtype=U64)
            got = np.zeros(self.wave, dtype=bool)
            preds = {}
            for k in range(0, len(mi.operands) - 1, 2):
                preds[block_of.get(mi.operands[k + 1], -2)] = mi.operands[k]
            for lane in np.flatnonzero(self.exec):
                pb = int(self.came_from[lane])
                if pb not in preds:
                    raise IllegalState(f"PHI {d} has no incoming value for predecessor bb.{pb} (lane {int(lane)})",
                                       mi, int(lane))
            for pb, text in preds.items():
                lanes = self.exec & (self.came_from == pb)
                if not lanes.any():
                    continue
                if text in ("undef", "poison"):
                    got |= lanes
                    continue
                saved = self.exec
                self.exec = lanes
                try:
                    v, _u, _f = self.read(text)
                finally:
                    self.exec = saved
                vals = np.where(lanes, v, vals)
                got |= lanes
            new.append((mi, d, file or self.sems.rc_file(rc) or "vector", vals, self.sems.rc_bits(rc)))
        for mi, d, file, vals, bits in new:
            self.cur = mi
            if file == "scalar":
                self._write(d[1:], "scalar", vals, False, bits, bits, "lane")
            else:
                self._write(d[1:], "vector", vals, False, bits, bits, "lane")
            if self.keep_values:
                r = self.regs[d[1:]]
                self.trace_values.append((mi, d, r[1].copy(), self.exec.copy(), r[0]))
