"""Checks of instruction semantics (``tdgen.model.semantics``) at spec load.

For each resolved instruction with semantics: the unit is ``lane`` or ``wave``; every
operation is known with its arity; every ``Operand`` names an operand of the
instruction, written ones a result and read ones an input; an ``Implicit`` register
read is among the instruction's ``implicit_uses`` (``EXEC`` of a lane instruction
excepted: the exec mask is part of the lane unit) and one written among its
``implicit_defs``; every result and implicit def is written; widths agree (operand
widths from the register class size or the operand kind's type); a wave instruction
reads no vector-file operand and no per-lane primitive, and a value written to a scalar
result of a lane instruction is wave-uniform (or a 1-bit lane-mask bit); memory spaces
are known. Problems are reported at the ``Semantics`` record, in the usual spec error
format (``path:line:col: record 'R' field 'semantics': expected X, found Y``).
"""

from __future__ import annotations

from typing import Any

from ..errors import expected
from ..model.semantics import (
    CROSS_LANE_OPS,
    FIXED_WIDTHS,
    IMPLICIT_WIDTHS,
    OPS,
    SPACES,
    UNIFORM_OPS,
    UNITS,
    Apply,
    Branch,
    Implicit,
    Imm,
    Operand,
    Store,
    Write,
    instruction_semantics,
)

__all__ = ["check_instruction_semantics", "operand_width"]


def operand_width(target: Any, kind: str) -> int | None:
    """Bits of an operand of register class or operand kind ``kind``."""
    rc = target.register_classes_by_name.get(kind)
    if rc is not None:
        return int(rc.size or 0)
    ok = target.operand_kinds.get(kind)
    if ok is not None:
        return getattr(ok.vt, "bits", None) or None
    return None


class _Ctx:
    def __init__(self, checker: Any, inst: Any, sem: Any):
        self.c, self.inst, self.sem = checker, inst, sem
        self.span = sem.span
        self.ops = {o.name: o for o in inst.operands}
        self.outs = {o.name for o in inst.outs}
        self.files = {}
        for o in inst.operands:
            rc = checker.t.register_classes_by_name.get(o.kind)
            self.files[o.name] = rc.file if rc is not None else "imm"
        self.ok = True

    def err(self, what: str, found: str) -> None:
        self.ok = False
        self.c.err(self.span, expected(what, found), self.inst.name, "semantics")

    def width(self, name: str) -> int | None:
        return operand_width(self.c.t, self.ops[name].kind)

    # (width or None for a context-width immediate, uniform?)
    def expr(self, e: Any) -> tuple[int | None, bool]:
        if isinstance(e, Operand):
            if e.name not in self.ops:
                self.err(f"an operand of {self.inst.name} ({', '.join(sorted(self.ops)) or 'none'})", f"'${e.name}'")
                return None, True
            if e.name in self.outs:
                self.err(f"an input operand of {self.inst.name}", f"result '${e.name}' read")
            uni = self.files[e.name] != "vector"
            if self.sem.unit == "wave" and not uni:
                self.err("only scalar operands read by a wave (scalar) instruction", f"vector operand '${e.name}'")
            return self.width(e.name), uni
        if isinstance(e, Implicit):
            if e.reg not in IMPLICIT_WIDTHS:
                self.err("an implicit register SCC, VCC or EXEC", f"'{e.reg}'")
                return None, True
            if e.reg not in self.inst.implicit_uses and not (e.reg == "EXEC" and self.sem.unit == "lane"):
                self.err(f"a register in implicit_uses of {self.inst.name} ({', '.join(self.inst.implicit_uses) or 'none'})",
                         f"'{e.reg}' read")
            return IMPLICIT_WIDTHS[e.reg], True
        if isinstance(e, Imm):
            return e.bits, True
        if not isinstance(e, Apply):
            self.err("a semantics expression (Operand, Implicit, Imm, Apply)", type(e).__name__)
            return None, True
        spec = OPS.get(e.op)
        if spec is None:
            self.err("a semantics operation (tdgen.model.semantics.OPS)", f"'{e.op}'")
            return None, True
        arity, rule = spec
        if len(e.args) != arity:
            self.err(f"{arity} operands of '{e.op}'", str(len(e.args)))
            return None, True
        kids = [self.expr(a) for a in e.args]
        uni = all(u for _w, u in kids)
        if e.op in CROSS_LANE_OPS:
            if self.sem.unit == "wave":
                self.err("no cross-lane primitive in a wave (scalar) instruction", f"'{e.op}'")
            uni = e.op in UNIFORM_OPS
        ws = [w for w, _u in kids]
        return self.rule(e, rule, ws), uni

    def agree(self, e: Apply, ws: list) -> int | None:
        known = {w for w in ws if w is not None}
        if len(known) > 1:
            self.err(f"operands of '{e.op}' of one width", "widths " + ", ".join(str(w) for w in ws))
        return next(iter(known)) if known else None

    def rule(self, e: Apply, rule: str, ws: list) -> int | None:
        if rule == "same":
            w = self.agree(e, ws)
            if e.op == "sext_from" and not isinstance(e.attr("bits"), int):
                self.err("a 'bits' attribute on sext_from", "none")
            return w
        if rule == "shift":
            return ws[0]
        if rule == "cmp":
            self.agree(e, ws)
            return 1
        if rule == "select":
            if ws[0] not in (None, 1):
                self.err("a 1-bit condition of 'select'", f"{ws[0]} bits")
            return self.agree(e, ws[1:])
        if rule == "bfe":
            return ws[0]
        if rule == "ext":
            bits = e.attr("bits")
            if not isinstance(bits, int) or bits <= 0:
                self.err(f"a positive 'bits' attribute on '{e.op}'", repr(bits))
                return None
            if e.op == "load":
                if e.attr("space") not in SPACES:
                    self.err(f"a memory space ({', '.join(SPACES)})", repr(e.attr("space")))
                return bits
            w = ws[0]
            if w is not None and ((e.op == "trunc" and bits > w) or (e.op != "trunc" and bits < w)):
                self.err(f"'{e.op}' from {w} bits to a {'narrower' if e.op == 'trunc' else 'wider'} width", f"{bits}")
            return bits
        if rule == "lanes":
            return ws[0]
        if rule == "lanes2":
            return ws[1]
        return FIXED_WIDTHS[e.op]


def check_instruction_semantics(checker: Any, inst: Any) -> None:
    """Check the semantics of resolved instruction ``inst`` (none: nothing to check)."""
    sem = instruction_semantics(inst)
    if sem is None:
        return
    cx = _Ctx(checker, inst, sem)
    if sem.unit not in UNITS:
        cx.err("unit 'lane' or 'wave'", repr(sem.unit))
        return
    written: set[str] = set()
    for eff in sem.effects:
        if isinstance(eff, Store):
            if eff.space not in SPACES:
                cx.err(f"a memory space ({', '.join(SPACES)})", repr(eff.space))
            cx.expr(eff.addr)
            cx.expr(eff.value)
            continue
        if isinstance(eff, Branch):
            if eff.target is not None:
                if not isinstance(eff.target, Operand) or eff.target.name not in cx.ops or eff.target.name in cx.outs:
                    cx.err(f"a block operand of {inst.name} as the branch target", repr(eff.target))
            if eff.cond is not None:
                w, uni = cx.expr(eff.cond)
                if w not in (None, 1):
                    cx.err("a 1-bit branch condition", f"{w} bits")
                if not uni:
                    cx.err("a wave-uniform branch condition", "a lane-varying value")
            continue
        if not isinstance(eff, Write):
            cx.err("an effect (Write, Store or Branch)", type(eff).__name__)
            continue
        w, uni = cx.expr(eff.value)
        d = eff.dst
        if isinstance(d, Implicit):
            if d.reg not in IMPLICIT_WIDTHS:
                cx.err("an implicit register SCC, VCC or EXEC", f"'{d.reg}'")
                continue
            if d.reg not in inst.implicit_defs:
                cx.err(f"a register in implicit_defs of {inst.name} ({', '.join(inst.implicit_defs) or 'none'})",
                       f"'{d.reg}' written")
            name, dw, file = d.reg, IMPLICIT_WIDTHS[d.reg], "scalar"
        elif isinstance(d, Operand):
            if d.name not in cx.outs:
                cx.err(f"a result operand of {inst.name} ({', '.join(sorted(cx.outs)) or 'none'})", f"'${d.name}' written")
                continue
            name, dw, file = d.name, cx.width(d.name), cx.files[d.name]
        else:
            cx.err("a result operand or implicit register as the destination", type(d).__name__)
            continue
        if name in written:
            cx.err(f"one write of '{name}'", "two")
        written.add(name)
        lane_mask = sem.unit == "lane" and file == "scalar" and w == 1 and dw is not None and dw > 1
        if w is not None and dw is not None and w != dw and not lane_mask:
            cx.err(f"a {dw}-bit value for '{name}'", f"{w} bits")
        if sem.unit == "lane" and file == "scalar" and not uni and not lane_mask:
            cx.err(f"a wave-uniform value (or a 1-bit lane-mask bit) for scalar '{name}'", "a lane-varying value")
    for o in inst.outs:
        if o.name not in written:
            cx.err(f"a write of result '${o.name}'", "none")
    for r in inst.implicit_defs:
        if r in IMPLICIT_WIDTHS and r not in written:
            cx.err(f"a write of implicit def '{r}'", "none")
