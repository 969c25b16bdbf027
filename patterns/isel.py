"""Instruction selection driver: DAG nodes -> machine instructions with register classes.

Per function: run the uniformity analysis, build each block's SelectionDAG
(``patterns.sdag.build_function_dags``, which also applies ``patterns.combine``), then
select each block in LLVM's order -- SelectionDAGISel walks the node list from the end (users before operands):
each live node is matched against the table (``patterns.matcher``) rows for its opcode;
the first pattern that passes all checks emits its result DAG. Nodes a pattern covered
lose their user; a covered node that still has other users is selected on its own later,
a node left without users is dead and skipped. Each root opcode gets one compiled
selector (``_compile_selector``): the table's matcher for that opcode with, where a
pattern matches, the code that emits its result DAG written in (``_FnSelector.emit``
interprets the same result plans; the tests compare the two).

``IselView`` is what selection reads from a target, as plain records, and ``IselBundle``
that view with the matcher table, result plans and compiled selectors: what ``tdgen
isel``/``explain`` load from the on-disk target cache in one entry (no spec model
imported, no code compiled).

Before the table, a node whose opcode a ``CustomSelect`` of the target names (and whose
type is the step's ``vt``) goes to that step's model -- the C++ ``Select`` switch case
(AMDGPU's ``SelectS_BFE``) that runs before ``SelectCode``: it either replaces the node
with one machine instruction (its operands lose this user, as with a pattern) or
declines, and the table is tried. A model producing an undeclared instruction, a
scalar-class result for a divergent node, or raising, is a ``SpecError`` naming the
record and its ``model`` field.

An SDNodeXForm in a result DAG (``(NegateImm $c)``, or an ImmLeaf's ``xform`` the matcher
table wrote in, ``patterns.patsrc.promote_xforms``) turns the bound constant into the
immediate it computes (``patterns.matcher.apply_xform``).

A result DAG may use Target.td's instructions: they become what LLVM's InstrEmitter
makes of them (``REG_SEQUENCE`` and ``IMPLICIT_DEF`` stay, ``EXTRACT_SUBREG`` and
``COPY_TO_REGCLASS`` become ``COPY``), and an operand whose register class does not fit
the instruction operand's class gets a ``COPY`` into that class in between.

Bookkeeping nodes (EntryToken, CopyFromReg, CopyToReg, branches, loads, stores,
compares, selects, casts, constants) are selected by the target's patterns when it has
patterns rooted at their opcode; otherwise they become generic pseudo instructions
(``COPY``, ``LOAD``, ``STORE``, ``BRCOND``, ``SETCC``, ``MOV_IMM`` ...) so the output stays
complete without the target having to model memory or control flow. Every other opcode
must be matched: otherwise a ``VerifyError`` "cannot select" names the node, its type
and divergence, and the patterns that came closest.
"""

from __future__ import annotations

import operator

from tdgen.dag import Leaf
from tdgen.errors import Diagnostics, SpecError, VerifyError, expected

from .matcher import MatcherTable, apply_xform, build_table
from .sdag import GLUE_OPCODES, SDNode, build_function_dags

__all__ = ["MachineInstr", "SelectedBlock", "SelectedFunction", "select_module", "select_function",
           "divergence_path", "closest_patterns", "custom_steps", "run_custom", "MachineNode", "Decline"]


class _Fields:
    """``__repr__``/``__eq__`` over ``__slots__``, as a dataclass has them (plain classes:
    no dataclass is made at import time, and ``MachineInstr`` keeps a field lazy)."""

    __slots__ = ()

    def _values(self) -> tuple:
        return tuple(getattr(self, f) for f in self._FIELDS)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(" + ", ".join(f"{f}={getattr(self, f)!r}" for f in self._FIELDS) + ")"

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    __hash__ = None  # (mutable, as a dataclass with eq is)


class MachineInstr(_Fields):
    """One selected machine instruction: ``opcode``, result register ``dst`` of class
    ``regclass`` in register file ``file`` ("scalar" | "vector" | None), ``operands``
    (text), the IR value ``ir`` it came from (``%name``), the DAG node ``node`` (``t12``),
    the pattern record, its sort key within the block, and ``more_defs``: results after
    the first (V_MAD_U64_U32's carry-out) as (vreg, register class) pairs. ``node`` may
    be given as the node's id (an int), spelled ``t<id>`` when read."""

    __slots__ = ("opcode", "dst", "regclass", "file", "operands", "ir", "_node", "pattern", "order", "more_defs")
    _FIELDS = ("opcode", "dst", "regclass", "file", "operands", "ir", "node", "pattern", "order", "more_defs")

    def __init__(self, opcode: str, dst: str | None, regclass: str | None, file: str | None, operands: list[str],
                 ir: str | None, node, pattern: str | None = None, order: int = 0,
                 more_defs: tuple[tuple[str, str | None], ...] = ()):
        self.opcode = opcode
        self.dst = dst
        self.regclass = regclass
        self.file = file
        self.operands = operands
        self.ir = ir
        self._node = node
        self.pattern = pattern
        self.order = order
        self.more_defs = more_defs

    @property
    def node(self) -> str:
        n = self._node
        return f"t{n}" if n.__class__ is int else n

    @node.setter
    def node(self, value) -> None:
        self._node = value

    def mir_text(self) -> str:
        from .mir import mir_line

        return mir_line(self, "")

    def as_json(self) -> dict:
        out = {"opcode": self.opcode, "dst": self.dst, "regclass": self.regclass, "file": self.file,
               "operands": self.operands, "ir": self.ir, "node": self.node, "pattern": self.pattern}
        if self.more_defs:
            out["more_defs"] = [{"dst": d, "regclass": rc} for d, rc in self.more_defs]
        return out


class SelectedBlock(_Fields):
    __slots__ = ("name", "instrs")
    _FIELDS = __slots__

    def __init__(self, name: str, instrs: list[MachineInstr] | None = None):
        self.name = name
        self.instrs = [] if instrs is None else instrs


class SelectedFunction(_Fields):
    __slots__ = ("name", "blocks")
    _FIELDS = __slots__

    def __init__(self, name: str, blocks: list[SelectedBlock]):
        self.name = name
        self.blocks = blocks

    def instrs(self):
        for b in self.blocks:
            yield from b.instrs


# ---------------------------------------------------------------------------------------
# Custom selection steps (CustomSelect records): C++ Select cases tried before the table


class _Value(_Fields):
    """A small immutable value (equal by value, hashable)."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(self._values())


class MachineNode(_Value):
    """What a custom step returns to replace the node: ``opcode`` with ``operands`` (DAG
    nodes, or ``TargetConstant`` immediates)."""

    __slots__ = ("opcode", "operands")
    _FIELDS = __slots__

    def __init__(self, opcode: str, operands: tuple):
        self.opcode = opcode
        self.operands = operands


class TargetConstant(_Value):
    __slots__ = ("value",)
    _FIELDS = __slots__

    def __init__(self, value: int):
        self.value = value


class Decline(_Value):
    """The step leaves the node to the table (``SelectCode(N)``), saying why."""

    __slots__ = ("reason",)
    _FIELDS = __slots__

    def __init__(self, reason: str):
        self.reason = reason


class CurDAG:
    """The helpers a ``CustomSelect`` model gets as ``cur`` (named after the C++
    ``CurDAG``): build the replacement, read constants and value-type operands."""

    __slots__ = ()

    @staticmethod
    def machine_node(opcode: str, *operands) -> MachineNode:
        return MachineNode(opcode, operands)

    @staticmethod
    def target_constant(value: int) -> TargetConstant:
        return TargetConstant(int(value))

    @staticmethod
    def decline(reason: str) -> Decline:
        return Decline(reason)

    @staticmethod
    def const(n) -> int | None:
        """A ConstantSDNode's getZExtValue (32-bit), or None for any other node."""
        if n.opcode == "ISD::Constant" and isinstance(n.value, int):
            return n.value & 0xFFFFFFFF
        return None

    @staticmethod
    def vt_bits(n) -> int:
        """The width of a value-type operand (``cast<VTSDNode>(Op)->getVT().getSizeInBits()``)."""
        from tdgen.types import VALUE_TYPES

        return VALUE_TYPES[n.vt].bits

    @staticmethod
    def is_mask_32(v: int) -> bool:
        """isMask_32: a non-empty run of ones starting at bit 0."""
        v &= 0xFFFFFFFF
        return v != 0 and (v & (v + 1)) == 0

    @staticmethod
    def popcount(v: int) -> int:
        return bin(v & 0xFFFFFFFF).count("1")


_CUR = CurDAG()
_STEPS: dict[int, tuple[object, dict]] = {}
_MODELS: dict[tuple[str, str], object] = {}


def _model_fn(cs):
    key = (cs.name, cs.model)
    fn = _MODELS.get(key)
    if fn is None:
        ns: dict = {"__name__": f"customselect_{cs.name}"}
        try:
            exec(compile(cs.model, f"<{cs.name}.model>", "exec"), ns)  # noqa: S102 - the target's model source
            fn = ns["select"]
        except Exception as e:  # noqa: BLE001 - tdgen.check reports these at load; a hand-built target may not be checked
            raise SpecError(cs.span, expected("Python source defining select(N, cur)", f"{type(e).__name__}: {e}"),
                            record=cs.name, field="model") from None
        _MODELS[key] = fn
    return fn


def custom_steps(target) -> dict[str, list]:
    """The target's custom steps by ISD opcode of the root: ``{opcode: [(record, fn)]}``,
    in declaration order (cached per target object)."""
    hit = _STEPS.get(id(target))
    if hit is not None and hit[0] is target:
        return hit[1]
    out: dict[str, list] = {}
    for cs in getattr(target, "custom_selects", ()):
        fn = _model_fn(cs)
        for name in cs.opcodes:
            out.setdefault(target.sdnodes[name].opcode, []).append((cs, fn))
    _STEPS[id(target)] = (target, out)
    return out


def _model_error(cs, n: SDNode, what: str, found: str) -> SpecError:
    ir = n.ir_name()
    span = getattr(n.ir, "span", None)
    where = (f"{ir} at {span}, " if span is not None else f"{ir}, ") if ir else ""
    return SpecError(cs.span, expected(f"{what} (selecting {where}{n.label()})", found), record=cs.name, field="model")


def run_custom(cs, fn, n: SDNode, target):
    """Run one step on ``n``: a checked ``MachineNode``, a ``Decline``, or a ``SpecError``
    (returned, not raised, so the caller collects it)."""
    if n.vt != cs.vt:
        return Decline(f"root type {n.vt} is not {cs.vt}")
    try:
        res = fn(n, _CUR)
    except Exception as e:  # noqa: BLE001 - a bug in the spec's model, reported at the record
        return _model_error(cs, n, "a model that runs", f"{type(e).__name__}: {e}")
    if res is None:
        return Decline("no shape the step handles")
    if isinstance(res, Decline):
        return res
    return _checked_custom(cs, n, res, target)


def _checked_custom(cs, n: SDNode, res, target):
    """``run_custom``'s checks of what a model returned (neither None nor a Decline)."""
    if not isinstance(res, MachineNode):
        return _model_error(cs, n, "cur.machine_node(...), cur.decline(...) or None", type(res).__name__)
    if res.opcode not in cs.emits:
        return _model_error(cs, n, f"an instruction listed in emits ({', '.join(cs.emits)})", repr(res.opcode))
    inst = target.instructions[res.opcode]
    for o in res.operands:
        if not isinstance(o, (SDNode, TargetConstant)):
            return _model_error(cs, n, "operands that are DAG nodes or cur.target_constant(...)", type(o).__name__)
    rc = target.register_classes_by_name.get(inst.outs[0].kind)
    if n.divergent and rc is not None and rc.file == "scalar":
        return _model_error(cs, n, "a vector-register result for a divergent node",
                            f"{res.opcode} writing scalar class {rc.name}")
    return res


def _custom_text(res: MachineNode) -> str:
    ops = ", ".join(str(o.value) if isinstance(o, TargetConstant) else o.name for o in res.operands)
    return f"{res.opcode} {ops}"


def explain_custom(target, n: SDNode) -> tuple[list[str], bool]:
    """``tdgen explain`` lines for the custom steps tried on ``n`` (before the table) and
    whether one of them selected it."""
    lines = []
    for cs, fn in custom_steps(target).get(n.opcode, ()):
        head = f"  [custom] {cs.name} (C++ Select case, tried before the table)"
        res = run_custom(cs, fn, n, target)
        if isinstance(res, MachineNode):
            lines.append(f"{head}: SELECTED {_custom_text(res)}")
            return lines, True
        if isinstance(res, Decline):
            lines.append(f"{head}: declined ({res.reason}); the table is tried")
        else:
            lines.append(f"{head}: error: {res.message}")
    return lines, False


class _FnSelector:
    def __init__(self, target, table: MatcherTable, fdags):
        self.t = target
        self.table = table
        self.fdags = fdags
        self.insts = target.instructions
        self.rcs = target.register_classes_by_name
        self.next_vreg = len(fdags.vregs)
        self.vreg_of: dict[SDNode, str] = {}  # node -> its result register (nodes hash by identity)
        self._scalar_rc, self._vector_rc = _default_classes(target)
        emit_cache = getattr(table, "emit_cache", None)
        self._plans, self._selectors = emit_cache(target) if emit_cache is not None else ({}, {})
        self.custom = custom_steps(target)
        self._dispatch: dict[str, tuple] = {}

    def vreg(self, n: SDNode) -> str:
        if n.opcode == "ISD::CopyFromReg":
            return f"%{n.reg}"
        r = self.vreg_of.get(n)
        if r is None:
            r = self.vreg_of[n] = f"%{self.next_vreg}"
            self.next_vreg += 1
        return r

    def operand_text(self, n: SDNode) -> str:
        if n.opcode in ("ISD::Constant", "ISD::TargetConstant") and n.uses <= 0:
            return str(n.value)
        return self.vreg(n)

    def _dispatch_for(self, opc: str) -> tuple:
        """What selecting a node of opcode ``opc`` involves, worked out once per opcode:
        (custom steps or None, the table's matcher or None, whether a node the table does
        not match is an error (else it becomes a generic instruction), whether that
        generic instruction is nothing at all)."""
        fn = self._selectors.get(opc, _UNCOMPILED)
        if fn is _UNCOMPILED:
            fn = self._selectors[opc] = _compile_selector(self.table, opc, self._plan)
        if fn is not None:
            must = opc not in GLUE_OPCODES
        else:
            must = opc not in GLUE_OPCODES and opc not in ("ISD::EntryToken", "ISD::TargetConstant")
        glue = None if opc in _NO_GLUE else _GLUE_OF.get(opc, _FnSelector.glue)
        d = (self.custom.get(opc), fn, must, glue)
        if d == (None, None, False, None):
            d = _NOTHING  # (nothing to try, nothing to emit)
        self._dispatch[opc] = d
        return d

    def select_dag(self, dag, diags: Diagnostics) -> list[MachineInstr]:
        out: list[MachineInstr] = []
        roots = set(dag.roots)
        dispatch = self._dispatch
        for n in reversed(dag.nodes):
            if n.uses <= 0 and n not in roots:
                continue
            try:
                d = dispatch[n.opcode]
            except KeyError:
                d = self._dispatch_for(n.opcode)
            if d is _NOTHING:
                continue
            steps, fn, must, glue = d  # (glue: the generic instruction's emitter, or None)
            if steps is not None and self.try_custom(n, steps, diags, out):
                continue
            if fn is not None and fn(n, self, out):
                continue
            if must and not _preloaded_read(n):
                diags.add(cannot_select(n, self.table))
                continue
            if glue is not None:
                glue(self, n, out)
        out.sort(key=_ORDER_KEY)
        return out

    def try_custom(self, n: SDNode, steps, diags: Diagnostics, out: list[MachineInstr]) -> bool:
        for cs, fn in steps:
            # (run_custom, written out for the usual answer: the step declines)
            if n.vt != cs.vt:
                continue
            try:
                res = fn(n, _CUR)
            except Exception as e:  # noqa: BLE001 - a bug in the spec's model, reported at the record
                res = _model_error(cs, n, "a model that runs", f"{type(e).__name__}: {e}")
            else:
                if res is None or isinstance(res, Decline):
                    continue
                res = _checked_custom(cs, n, res, self.t)
            if isinstance(res, SpecError):
                diags.add(res)
                return True
            self.emit_custom(n, cs, res, out)
            return True
        return False

    def emit_custom(self, n: SDNode, cs, res: MachineNode, out: list[MachineInstr]) -> None:
        """Replace ``n`` by ``res`` (ReplaceNode): the values it reads gain a user, ``n``'s
        operands lose theirs (an inner node left without users is dead)."""
        for o in res.operands:
            if isinstance(o, SDNode) and o is not n:
                o.uses += 1
        for o in n.ops:
            _release(o)
        ops = []
        for o in res.operands:
            if isinstance(o, TargetConstant):
                ops.append(str(o.value))
            elif o.opcode == "ISD::CopyFromReg":
                ops.append(f"%{o.reg}")
            else:
                ops.append(self.vreg(o))
        inst = self.insts[res.opcode]
        rc = inst.outs[0].kind
        file = getattr(self.rcs.get(rc), "file", None)
        out.append(MachineInstr(res.opcode, self.vreg(n), rc, file, ops, n.ir_name(), n.id, cs.name,
                                n.id * 64 + 32 + len(out) % 32))

    # -- emission --------------------------------------------------------------
    def emit(self, n: SDNode, p, env: dict, out: list[MachineInstr]) -> None:
        """Replace ``n`` by the result DAG of ``p`` (bound values ``env``), interpreting
        its plan: what the code ``_compile_selector`` generates does, in the same order."""
        for v in env.values():
            if v is not n:
                v.uses += 1
        for o in n.ops:
            _release(o)
        self._emit_dst(self._plan(p), n, env, out, p, True)

    def _plan(self, p):
        """The result DAG of ``p`` compiled once into a nested tuple plan."""
        plan = self._plans.get(id(p))
        if plan is None:
            plan = self._compile(p.dst, None, getattr(p, "xforms", None))
            self._plans[id(p)] = plan
        return plan

    def _compile(self, d, opkind, xf=None, cast=None):
        """A result DAG as a nested plan: ``("lit", text)``, ``("var", name, is_register)``,
        ``("inst", opcode, rc, file, has_out, kids, more_rcs)`` for an instruction (the
        Target.td ones included, see ``_compile_generic``), ``("xform", spec, kid)`` for an
        SDNodeXForm applied to a bound constant (``xf``: the pattern's SDNodeXForms by
        name, see ``matcher.apply_xform``)."""
        if isinstance(d, Leaf):
            if d.kind == "int":
                return ("lit", str(d.value))
            if d.name is not None:
                kind = d.type if d.type is not None else opkind
                return ("var", d.name, kind is not None and kind in self.rcs)
            return ("lit", str(d.value if d.value is not None else d.render()))
        if xf and d.op in xf and len(d.args) == 1:
            return ("xform", xf[d.op], self._compile(d.args[0], None, xf))
        if d.cast_type is not None and len(d.args) == 1:
            return self._compile(d.args[0], opkind, xf, d.cast_type)
        inst = self.insts.get(d.op)
        if inst is None and d.op in _generic_instructions():
            return self._compile_generic(d, cast, xf)
        ins = inst.ins if inst is not None else ()
        kids = tuple(self._constrain(self._compile(a, ins[i].kind if i < len(ins) else None, xf),
                                     ins[i].kind if i < len(ins) else None)
                     for i, a in enumerate(d.args))
        rc = inst.outs[0].kind if inst is not None and inst.outs else None
        file = getattr(self.rcs.get(rc), "file", None) if rc else None
        has_out = inst is None or bool(inst.outs)
        more = tuple(o.kind for o in inst.outs[1:]) if inst is not None else ()
        return ("inst", d.op, rc, file, has_out, kids, more)

    def _constrain(self, kid, kind):
        """As InstrEmitter does for an operand whose register class does not fit the
        operand's (the sreg_64 REG_SEQUENCE feeding V_MAD_U64_U32's VReg_64 addend): a
        ``COPY`` into the operand's class in between."""
        if kid[0] != "inst" or kind not in self.rcs or kid[2] not in self.rcs or kid[2] == kind:
            return kid
        if set(self.rcs[kid[2]].registers) <= set(self.rcs[kind].registers):
            return kid
        return ("inst", "COPY", kind, self._file(kind), True, (kid,), ())

    def _compile_generic(self, d, cast, xf=None):
        """Target.td instructions as LLVM's InstrEmitter leaves them after isel:
        ``REG_SEQUENCE`` keeps its operands with ``%subreg.<index>`` markers and defines a
        register of its class; ``EXTRACT_SUBREG v, idx`` becomes ``COPY v.idx`` into the
        class of that sub-register; ``COPY_TO_REGCLASS v, RC`` a ``COPY`` into RC;
        ``IMPLICIT_DEF`` a register of the scalar class of its type (it has no divergent
        operand; llc-19 gives ``(i32 (IMPLICIT_DEF))`` an sreg_32)."""
        op = d.op
        if op == "IMPLICIT_DEF":
            rc = self._class_for(cast, "scalar") or self._scalar_rc
            return ("inst", op, rc, self._file(rc), True, (), ())
        if op == "REG_SEQUENCE":
            rc = str(d.args[0].value)
            kids = []
            for k in range(1, len(d.args), 2):
                kids.append(self._compile(d.args[k], rc, xf))
                kids.append(("lit", f"%subreg.{d.args[k + 1].value}"))
            return ("inst", op, rc, self._file(rc), True, tuple(kids), ())
        if op == "COPY_TO_REGCLASS":
            rc = str(d.args[1].value)
            return ("inst", "COPY", rc, self._file(rc), True, (self._compile(d.args[0], rc, xf),), ())
        # EXTRACT_SUBREG
        idx = str(d.args[1].value)
        inner = self._compile(d.args[0], None, xf)
        outer = inner[2] if inner[0] == "inst" else None
        rc = self._sub_class(outer, idx) if outer else None
        return ("sub", idx, rc, self._file(rc), inner)

    def _file(self, rc):
        return getattr(self.rcs.get(rc), "file", None) if rc else None

    def _class_for(self, vt, file):
        """The first register class of ``file`` holding values of type ``vt``."""
        for rc in self.t.register_classes:
            if rc.file == file and any(getattr(t, "name", None) == vt for t in rc.types):
                return rc.name
        return None

    def _sub_class(self, rc_name, idx):
        """The class of sub-register ``idx`` of class ``rc_name`` (VReg_64, sub0 ->
        VGPR_32): the first class holding every register's component at that index."""
        rc = self.rcs.get(rc_name)
        if rc is None or idx not in rc.subreg_indices:
            return None
        k = rc.subreg_indices.index(idx)
        parts = {regs[k] for regs in rc.subregs}
        for c in self.t.register_classes:
            if parts <= set(c.registers):
                return c.name
        return None

    def sub_copy_class(self, rc, operand: str, env) -> tuple[str | None, str | None]:
        """Class and file of ``COPY x.idx`` when ``x`` is a bound value (its class is not
        known from the plan): the default 32-bit class of the file its divergence picks."""
        if rc is not None:
            return rc, self._file(rc)
        v = next((n for n in env.values() if self.vreg_of.get(n) == operand), None)
        div = v is not None and v.divergent
        return (self._vector_rc, "vector") if div else (self._scalar_rc, "scalar")

    def _emit_dst(self, plan, root: SDNode, env, out, p, top=False) -> str:
        tag = plan[0]
        if tag == "lit":
            return plan[1]
        if tag == "var":
            v = env.get(plan[1])
            if v is None:
                return f"${plan[1]}"
            if not plan[2] and (v.opcode == "ISD::Constant" or v.opcode == "ISD::TargetConstant"):
                # bound to an immediate operand: fold the constant
                v.uses -= 1
                _release_if_dead(v)
                return str(v.value)
            if v.opcode == "ISD::CopyFromReg":
                return f"%{v.reg}"
            r = self.vreg_of.get(v)
            return r if r is not None else self.vreg(v)
        if tag == "xform":
            kid = plan[2]
            v = env.get(kid[1]) if kid[0] == "var" else None
            if v is None:  # (tdgen.check: an SDNodeXForm takes a bound constant)
                return self._emit_dst(kid, root, env, out, p)
            # the constant becomes the transformed immediate (EmitNodeXForm)
            v.uses -= 1
            _release_if_dead(v)
            return str(apply_xform(plan[1], v))
        if tag == "sub":
            _tag, idx, rc, file, inner = plan
            src = self._emit_dst(inner, root, env, out, p)
            rc, file = self.sub_copy_class(rc, src, env)
            dst = self.vreg(root) if top else f"%{self._fresh()}"
            out.append(MachineInstr("COPY", dst, rc, file, [f"{src}.{idx}"], root.ir_name(), root.id, p.record,
                                    root.id * 64 + (32 if top else 0) + len(out) % 32))
            return dst
        _tag, op, rc, file, has_out, kids, more = plan
        emit = self._emit_dst
        ops = [emit(k, root, env, out, p) for k in kids]
        if has_out:
            dst = self.vreg(root) if top else f"%{self._fresh()}"
        else:
            dst = None
        more_defs = tuple((f"%{self._fresh()}", m) for m in more)
        out.append(MachineInstr(op, dst, rc, file, ops, root.ir_name(), root.id, p.record,
                                root.id * 64 + (32 if top else 0) + len(out) % 32, more_defs))
        return dst or ""

    def operand(self, env, name: str, reg_operand: bool) -> str:
        """The text of the bound value ``name`` as an operand of a result instruction: a
        constant bound to an immediate (non-register) operand is folded."""
        v = env.get(name)
        if v is None:
            return f"${name}"
        if not reg_operand and (v.opcode == "ISD::Constant" or v.opcode == "ISD::TargetConstant"):
            v.uses -= 1
            _release_if_dead(v)
            return str(v.value)
        if v.opcode == "ISD::CopyFromReg":
            return f"%{v.reg}"
        r = self.vreg_of.get(v)
        return r if r is not None else self.vreg(v)

    def _fresh(self) -> int:
        v = self.next_vreg
        self.next_vreg += 1
        return v

    def glue(self, n: SDNode, out: list[MachineInstr]) -> None:
        opc = n.opcode
        if opc in _NO_GLUE:
            return
        ops = []
        vo = self.vreg_of
        for o in n.ops:  # (operand_text; the registers are numbered even when not printed)
            oc = o.opcode
            if oc == "ISD::CopyFromReg":
                ops.append(f"%{o.reg}")
            elif (oc == "ISD::Constant" or oc == "ISD::TargetConstant") and o.uses <= 0:
                ops.append(str(o.value))
            else:
                r = vo.get(o)
                if r is None:
                    r = vo[o] = f"%{self.next_vreg}"
                    self.next_vreg += 1
                ops.append(r)
        m = _new(MachineInstr)  # (MachineInstr(...) written out)
        ir = n.ir
        if ir is not None:
            try:  # (getattr(ir, "name", None))
                ir = ir.name
            except AttributeError:
                ir = None
            if ir is not None:
                ir = f"%{ir}"
        m.ir = ir
        m._node = i = n.id
        m.pattern = None
        m.order = i * 64 + 33
        m.more_defs = ()
        if opc == "ISD::CopyToReg":
            m.opcode = "COPY"
            m.dst = f"%{n.reg}"
            m.regclass = self._vector_rc if ops and n.ops[0].divergent else self._scalar_rc
            m.file = "vector" if n.divergent else "scalar"
            m.operands = ops
            out.append(m)
            return
        if opc == "ISD::INTRINSIC_WO_CHAIN":
            ops = [f"${n.intrinsic}"]
        elif opc == "ISD::Constant":
            ops = [str(n.value)]
        m.opcode = _GLUE_NAMES.get(opc, opc)
        m.operands = ops
        vt = n.vt
        if vt != "ch" and vt != "isVoid":
            dst = vo.get(n)  # (self.vreg(n))
            m.dst = dst if dst is not None else self.vreg(n)
            if n.divergent:
                m.regclass, m.file = self._vector_rc, "vector"
            else:
                m.regclass, m.file = self._scalar_rc, "scalar"
        else:
            m.dst = m.regclass = m.file = None
        out.append(m)


def _glue_constant(sel: _FnSelector, n: SDNode, out: list[MachineInstr]) -> None:
    """``_FnSelector.glue`` for an ISD::Constant (no operands): ``MOV_IMM <value>``."""
    m = _new(MachineInstr)
    ir = n.ir
    if ir is not None:
        try:  # (getattr(ir, "name", None))
            ir = ir.name
        except AttributeError:
            ir = None
        if ir is not None:
            ir = f"%{ir}"
    m.ir = ir
    m._node = i = n.id
    m.pattern = None
    m.order = i * 64 + 33
    m.more_defs = ()
    ops = []
    vo = sel.vreg_of
    for o in n.ops:  # (none, as a rule; numbered as glue numbers them)
        oc = o.opcode
        if oc != "ISD::CopyFromReg" and not ((oc == "ISD::Constant" or oc == "ISD::TargetConstant") and o.uses <= 0):
            if vo.get(o) is None:
                vo[o] = f"%{sel.next_vreg}"
                sel.next_vreg += 1
    ops = [str(n.value)]
    m.opcode = "MOV_IMM"
    m.operands = ops
    vt = n.vt
    if vt != "ch" and vt != "isVoid":
        dst = vo.get(n)
        if dst is None:
            dst = vo[n] = f"%{sel.next_vreg}"
            sel.next_vreg += 1
        m.dst = dst
        if n.divergent:
            m.regclass, m.file = sel._vector_rc, "vector"
        else:
            m.regclass, m.file = sel._scalar_rc, "scalar"
    else:
        m.dst = m.regclass = m.file = None
    out.append(m)


def _glue_copy_to_reg(sel: _FnSelector, n: SDNode, out: list[MachineInstr]) -> None:
    """``_FnSelector.glue`` for an ISD::CopyToReg: ``COPY`` into the value's register."""
    ops = []
    vo = sel.vreg_of
    for o in n.ops:
        oc = o.opcode
        if oc == "ISD::CopyFromReg":
            ops.append(f"%{o.reg}")
        elif (oc == "ISD::Constant" or oc == "ISD::TargetConstant") and o.uses <= 0:
            ops.append(str(o.value))
        else:
            r = vo.get(o)
            if r is None:
                r = vo[o] = f"%{sel.next_vreg}"
                sel.next_vreg += 1
            ops.append(r)
    m = _new(MachineInstr)
    ir = n.ir
    if ir is not None:
        try:  # (getattr(ir, "name", None))
            ir = ir.name
        except AttributeError:
            ir = None
        if ir is not None:
            ir = f"%{ir}"
    m.ir = ir
    m._node = i = n.id
    m.pattern = None
    m.order = i * 64 + 33
    m.more_defs = ()
    m.opcode = "COPY"
    m.dst = f"%{n.reg}"
    m.regclass = sel._vector_rc if ops and n.ops[0].divergent else sel._scalar_rc
    m.file = "vector" if n.divergent else "scalar"
    m.operands = ops
    out.append(m)


_new = object.__new__
_NOTHING = object()  # a _FnSelector._dispatch entry: nodes of that opcode are skipped
# generic instructions written out for their opcode (the rest: _FnSelector.glue)
_GLUE_OF = {"ISD::Constant": _glue_constant, "ISD::CopyToReg": _glue_copy_to_reg}

# opcodes whose generic instruction is nothing (glue emits no instruction for them)
_NO_GLUE = frozenset({"ISD::EntryToken", "ISD::CopyFromReg", "ISD::TokenFactor", "ISD::Register",
                      "ISD::TargetConstant"})

_GLUE_NAMES = {
    "ISD::CopyToReg": "COPY", "ISD::LOAD": "LOAD", "ISD::STORE": "STORE", "ISD::BR": "BR",
    "ISD::BRCOND": "BRCOND", "ISD::RET": "RET", "ISD::SETCC": "SETCC", "ISD::SELECT": "SELECT",
    "ISD::Constant": "MOV_IMM", "ISD::PTRADD": "PTRADD", "ISD::UNDEF": "IMPLICIT_DEF",
    "ISD::ZERO_EXTEND": "ZEXT", "ISD::SIGN_EXTEND": "SEXT", "ISD::TRUNCATE": "TRUNC",
    "ISD::CALL": "CALL", "ISD::BITCAST": "COPY", "ISD::FREEZE": "COPY",
    "ISD::INTRINSIC_WO_CHAIN": "COPY",
}


_ORDER_KEY = operator.attrgetter("order")


_UNCOMPILED = object()


def _compile_selector(table: MatcherTable, opcode: str, plan_of):
    """The selector of the nodes of root opcode ``opcode``, or None when no pattern is
    rooted there: ``fn(node, selector, out) -> bool``, the table's compiled matcher
    (``patterns.matcher._compile_switch``) with, where each pattern matches, the code
    replacing the node by its result DAG (``plan_of(pattern)``) written in: the bound
    values gain a user, the node's operands lose one, then the instructions of the plan
    are appended to ``out`` -- what ``_FnSelector.emit`` does with ``_emit_dst``, in the
    same order (operands left to right, depth first, then the instruction's own result
    register), so register numbering is identical; ``tests/test_matcher_tblgen``
    compares the two."""
    pats = table.by_opcode.get(opcode)
    if not pats:
        return None
    from .matcher import _compile_switch

    def hit(k, p, slots, ns):
        ns["MI"] = MachineInstr
        ns["_new"] = object.__new__
        ns["_release"] = _release
        ns["_xf"] = apply_xform
        lines = _use_count_lines(p, slots)
        lines += ["irn = n0.ir", "if irn is not None:", "    try:", "        irn = irn.name",
                  "    except AttributeError:", "        irn = None",
                  "    if irn is not None:", "        irn = f'%{irn}'",
                  "tn = n0.id", "base = tn * 64", "vo = sel.vreg_of"]
        _emit_source(plan_of(p), True, lines, [0], slots, repr(p.record), opcode == "ISD::CopyFromReg")
        lines.append("return True")
        return lines

    return _compile_switch(pats, table._bindings, hit)


def _use_count_lines(p, slots: dict) -> list[str]:
    """The lines of ``_FnSelector.emit``'s use counting for pattern ``p`` (bound names
    ``slots``): every bound value gains a user (once per name), then each operand of the
    root loses one, a node left without users releasing its operands. A bound value that
    is the root's own operand ``i`` gains and loses one: neither is written (its count
    is at least 1 until then, as that operand is one of its uses, so no release is
    missed or added) -- the operands of a two-operand root bound as they are cost no
    count at all."""
    gain: dict = {}
    for _name, s in sorted(slots.items()):
        if s != 0:
            gain[s] = gain.get(s, 0) + 1
    direct = {}  # root operand index -> the slot loaded from it
    for chk in p.checks:
        if chk[0] == "child" and chk[1] == 0:
            direct[chk[2]] = chk[3]
    kept = set()
    for i, s in sorted(direct.items()):
        if gain.get(s):
            gain[s] -= 1
            kept.add(i)
    lines = []
    for _name, s in sorted(slots.items()):
        if s != 0 and gain.get(s):
            gain[s] -= 1
            lines.append(f"n{s}.uses += 1")
    if not kept:
        return lines + ["for o in n0.ops:", "    u = o.uses - 1", "    o.uses = u", "    if u == 0:",
                        "        for x in o.ops:", "            _release(x)"]
    top = max(direct) + 1  # (the matcher checked the root has operand top - 1)
    lines.append("ops0 = n0.ops")
    for i in range(top):
        if i not in kept:
            lines += [f"o = ops0[{i}]", "u = o.uses - 1", "o.uses = u", "if u == 0:",
                      "    for x in o.ops:", "        _release(x)"]
    lines += [f"if len(ops0) > {top}:", f"    for o in ops0[{top}:]:", "        u = o.uses - 1", "        o.uses = u",
              "        if u == 0:", "            for x in o.ops:", "                _release(x)"]
    return lines


def _interpreted_selector(table: MatcherTable, opcode: str, plan_of):
    """``_compile_selector`` done the slow way, the reference the tests compare it with:
    ``table.matcher_for`` picks the pattern, ``_FnSelector.emit`` interprets its plan."""
    match = table.matcher_for(opcode)
    if match is None:
        return None

    def select(n, sel, out):
        hit = match(n)
        if hit is None:
            return False
        sel.emit(n, hit[0], hit[1], out)
        return True

    return select


def _emit_source(pl, top: bool, lines: list, count: list, slots: dict, rec: str, root_copy: bool = False) -> str:
    """Append the lines computing plan ``pl`` to ``lines``; the expression of its value.
    A bound value is the matcher's variable ``n<slot>`` (``slots``: name -> slot);
    ``rec`` is the pattern's record name as Python source; ``root_copy``: the root is a
    CopyFromReg (its register is its own). ``_FnSelector.vreg`` is written out: a node
    gets the next register number the first time it is asked for. (A module function,
    not a closure calling itself, so compiling leaves no reference cycle behind.)"""
    tag = pl[0]
    if tag == "lit":
        return repr(pl[1])
    if tag == "var":
        # sel.operand(env, name, is_register) written out
        s = slots.get(pl[1])
        if s is None:
            return repr("$" + pl[1])
        count[0] += 1
        v, x = f"v{count[0]}", f"n{s}"
        if not pl[2]:
            lines.append(f"if {x}.opcode == 'ISD::Constant' or {x}.opcode == 'ISD::TargetConstant':")
            lines.append(f"    {x}.uses -= 1")
            lines.append(f"    if {x}.uses == 0:")
            lines.append(f"        for o in {x}.ops:")
            lines.append("            _release(o)")
            lines.append(f"    {v} = str({x}.value)")
            lines.append(f"elif {x}.opcode == 'ISD::CopyFromReg':")
        else:
            lines.append(f"if {x}.opcode == 'ISD::CopyFromReg':")
        lines.append(f"    {v} = f'%{{{x}.reg}}'")
        lines.append("else:")
        lines.append(f"    {v} = vo.get({x})")
        lines.append(f"    if {v} is None:")
        lines.append(f"        {v} = vo[{x}] = f'%{{sel.next_vreg}}'")
        lines.append("        sel.next_vreg += 1")
        return v
    if tag == "xform":
        # the bound constant becomes the transformed immediate (see _FnSelector._emit_dst)
        kid = pl[2]
        s = slots.get(kid[1]) if kid[0] == "var" else None
        if s is None:
            return _emit_source(kid, False, lines, count, slots, rec, root_copy)
        count[0] += 1
        v, x = f"v{count[0]}", f"n{s}"
        lines.append(f"{x}.uses -= 1")
        lines.append(f"if {x}.uses == 0:")
        lines.append(f"    for o in {x}.ops:")
        lines.append("        _release(o)")
        lines.append(f"{v} = str(_xf({pl[1]!r}, {x}))")
        return v
    if tag == "sub":
        _tag, idx, rc, file, inner = pl
        src = _emit_source(inner, False, lines, count, slots, rec, root_copy)
        count[0] += 1
        d = f"d{count[0]}"
        env = "{" + ", ".join(f"{name!r}: n{s}" for name, s in sorted(slots.items())) + "}"
        lines.append(f"rc{count[0]}, f{count[0]} = sel.sub_copy_class({rc!r}, {src}, {env})")
        if top:
            _root_vreg(d, lines, root_copy)
        else:
            lines.append(f"{d} = f'%{{sel._fresh()}}'")
        _append_mi(lines, "'COPY'", d, f"rc{count[0]}", f"f{count[0]}", f"[{src} + {'.' + idx!r}]", rec,
                   f"base + {32 if top else 0} + len(out) % 32", "()")
        return d
    _tag, op, rc, file, has_out, kids, more = pl
    args = [_emit_source(k, False, lines, count, slots, rec, root_copy) for k in kids]
    count[0] += 1
    d = f"d{count[0]}"
    if not has_out:
        lines.append(f"{d} = None")
    elif top:
        _root_vreg(d, lines, root_copy)
    else:  # sel._fresh()
        lines.append(f"{d} = f'%{{sel.next_vreg}}'")
        lines.append("sel.next_vreg += 1")
    more_defs = "(" + "".join(f"(f'%{{sel._fresh()}}', {m!r}), " for m in more) + ")"
    _append_mi(lines, repr(op), d, repr(rc), repr(file), f"[{', '.join(args)}]", rec,
               f"base + {32 if top else 0} + len(out) % 32", more_defs)
    return f"({d} or '')"


def _append_mi(lines: list, op: str, dst: str, rc: str, file: str, operands: str, rec: str, order: str,
               more_defs: str) -> None:
    """``out.append(MachineInstr(op, dst, rc, file, operands, irn, tn, rec, order, more_defs))``
    written out (each argument a Python expression; evaluated in this order)."""
    lines += ["m = _new(MI)", f"m.opcode = {op}", f"m.dst = {dst}", f"m.regclass = {rc}", f"m.file = {file}",
              f"m.operands = {operands}", "m.ir = irn", "m._node = tn", f"m.pattern = {rec}", f"m.order = {order}",
              f"m.more_defs = {more_defs}", "out.append(m)"]


def _root_vreg(d: str, lines: list, root_copy: bool) -> None:
    """``d = sel.vreg(n0)`` written out."""
    if root_copy:
        lines.append(f"{d} = f'%{{n0.reg}}'")
        return
    lines.append(f"{d} = vo.get(n0)")
    lines.append(f"if {d} is None:")
    lines.append(f"    {d} = vo[n0] = f'%{{sel.next_vreg}}'")
    lines.append("    sel.next_vreg += 1")


def _preloaded_read(n: SDNode) -> bool:
    """An operand-less intrinsic the target names as a source of divergence or always
    uniform (workitem ids, ...) reads a preloaded register: llc lowers it to a copy."""
    return n.opcode == "ISD::INTRINSIC_WO_CHAIN" and len(n.ops) == 1


def _release(n: SDNode) -> None:
    n.uses -= 1
    if n.uses == 0:
        for o in n.ops:
            _release(o)


def _release_if_dead(n: SDNode) -> None:
    if n.uses == 0:
        for o in n.ops:
            _release(o)


def _default_classes(target) -> tuple[str | None, str | None]:
    s = v = None
    for rc in target.register_classes:
        bits = [getattr(t, "bits", 0) for t in rc.types]
        if 32 in bits:
            if rc.file == "scalar" and s is None:
                s = rc.name
            if rc.file == "vector" and v is None:
                v = rc.name
    return s, v


def divergence_path(n: SDNode) -> list[str]:
    """Why ``n`` is divergent: the chain of operands back to a source of divergence."""
    steps = []
    cur = n
    seen = 0
    while cur is not None and seen < 64:
        seen += 1
        if cur.source == "divergent":
            ir = cur.ir_name() or cur.intrinsic or cur.name
            if cur.opcode == "ISD::CopyFromReg":
                steps.append(f"{cur.name} <- {ir} (divergent per the uniformity analysis)")
            else:
                steps.append(f"{cur.name} <- {ir} (source of divergence)")
            break
        nxt = next((o for o in cur.ops if o.divergent), None)
        if nxt is None:
            break
        if cur is not n:
            steps.append(cur.name)
        cur = nxt
    return steps


def describe_failure(table: MatcherTable, p, n: SDNode) -> tuple[bool, int, str]:
    ok, i, slots = table.run(p, n)
    if ok:
        return True, i, "matched"
    chk = p.checks[i]
    kind = chk[0]
    bad = slots[chk[1]]
    if kind == "pred":
        pr = chk[2]
        if pr.kind == "uniform":
            why = f"{pr.name} predicate failed: {bad.name} is divergent"
            path = divergence_path(bad)
            if path:
                why += ", via operand " + " <- ".join(s.split(" <- ")[0] for s in path[:-1]) + \
                    (" <- " if path[:-1] else "") + path[-1].split(" (")[0] if len(path) > 1 else ", via " + path[0].split(" (")[0]
            return False, i, why
        if pr.kind == "divergent":
            return False, i, f"{pr.name} predicate failed: {bad.name} is uniform"
        if pr.kind in ("imm", "nodeimm") and isinstance(bad.value, int):
            return False, i, f"{pr.name} predicate failed on {bad.name}, the constant {bad.value}"
        return False, i, f"{pr.name} predicate failed on {bad.name}"
    if kind == "opcode":
        return False, i, f"check '{chk[3]}' failed: {bad.name} is {bad.opcode}"
    if kind == "type":
        return False, i, f"check '{chk[3]}' failed: {bad.name} has type {bad.vt}"
    if kind == "int":
        return False, i, f"check '{chk[3]}' failed: {bad.name} is {bad.opcode}" + (
            f"<{bad.value}>" if bad.value is not None else "")
    if kind == "child":
        return False, i, f"check '{chk[4]}' failed: {bad.name} has {len(bad.ops)} operands"
    return False, i, f"check '{chk[-1]}' failed"


def closest_patterns(table: MatcherTable, n: SDNode, k: int = 3) -> list[tuple[object, str]]:
    scored = []
    for p in table.candidates(n.opcode):
        ok, i, why = describe_failure(table, p, n)
        scored.append((-(i / max(1, len(p.checks))), p.index, p, why))
    scored.sort(key=lambda x: (x[0], x[1]))
    return [(p, why) for _s, _i, p, why in scored[:k]]


def _where(p) -> str:
    return f" at {p.span}" if p.span is not None else ""


def cannot_select(n: SDNode, table: MatcherTable) -> VerifyError:
    """``path:line:col: record '%v': expected a pattern for <node>, found none; closest: ...``"""
    span = getattr(n.ir, "span", None)
    div = "divergent" if n.divergent else "uniform"
    close = closest_patterns(table, n)
    if close:
        found = "none matches; closest: " + "; ".join(
            f"{p.record}{_where(p)} {p.src_text()} ({why})" for p, why in close)
    else:
        found = f"no pattern rooted at {n.opcode}"
    return VerifyError(span, expected(f"a pattern selecting {n.name}: {n.vt} {n.opcode} [{div}]", found),
                       record=n.ir_name())


def select_function(fn, target, ua, table: MatcherTable | None = None, diags: Diagnostics | None = None):
    """Select ``fn``; ``ua``: its uniformity analysis, or None (made where needed, see
    ``build_function_dags``)."""
    table = table or build_table(target)
    own = diags is None
    if diags is None:
        diags = Diagnostics()
    fdags = build_function_dags(fn, target, ua)
    sel = _FnSelector(target, table, fdags)
    blocks = []
    for bi, dag in enumerate(fdags.dags):
        instrs = sel.select_dag(dag, diags)
        phis = []
        for phi, reg, div, inc in (fdags.phis[bi] if fdags.phis else ()):
            rc = sel._vector_rc if div else sel._scalar_rc
            ops = [x for text, b in inc for x in (text, f"%bb.{b}")]
            phis.append(MachineInstr("PHI", f"%{reg}", rc, "vector" if div else "scalar", ops,
                                     f"%{phi.name}", "phi"))
        blocks.append(SelectedBlock(dag.block.name, phis + instrs))
    if own:
        diags.check()
    return SelectedFunction(fn.name, blocks), fdags


def select_module(module, target, table: MatcherTable | None = None, *,
                  keep: list | None = None) -> list[SelectedFunction]:
    """Select every defined function; all cannot-select errors are reported together.
    ``keep``: a list that gets each function's DAGs (``FunctionDAGs``) instead of their
    being freed here (``tdgen isel`` keeps them until the process exits without tearing
    down the heap: freeing a 50k-instruction kernel's DAG node by node costs ~35 ms)."""
    import gc

    table = table or build_table(target)
    diags = Diagnostics()
    out = []
    enabled = gc.isenabled()
    gc.disable()  # the DAGs are acyclic garbage-free graphs: collection passes only cost time
    try:
        for fn in module.functions:
            if fn.is_declaration:
                continue
            # (no analysis given: the IR passes make it where they read it, and for
            # the IR they leave, which is the one selection reads)
            sf, fdags = select_function(fn, target, None, table, diags)
            out.append(sf)
            if keep is not None:
                keep.append(fdags)
    finally:
        if enabled:
            gc.enable()
    diags.check()
    return out


def _generic_instructions():
    """Target.td's instructions (tdgen.builtins, imported when first needed: a cached
    selector needs no plan compiled, and the spec model stays unimported)."""
    from tdgen.builtins import GENERIC_INSTRUCTIONS

    return GENERIC_INSTRUCTIONS


# ---------------------------------------------------------------------------------------
# The target as selection sees it, for the on-disk cache


class _Rec:
    """A plain record of the few fields selection reads from one spec record."""

    def __init__(self, **fields):
        self.__dict__.update(fields)

    def __repr__(self) -> str:
        return "_Rec(" + ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items()) + ")"


class IselView:
    """What instruction selection reads from a ``Target`` (the uniformity analysis, the
    DAG builder and its IR passes, the combines, the selector, ``tdgen explain``), as
    plain records: small to unpickle, and loading it imports no spec model (the CLI
    caches it, see ``isel_bundle``). Every attribute is the target's own value or a
    record with the same fields: intrinsics by IR name (``divergence``, ``properties``
    as strings: LICM's speculation rules read them), lowerings
    (``intrinsic.ir_name``, ``node.name``/``opcode``, ``operand_map``), SDNodes by name
    (``opcode``), instructions by name (``ins``/``outs`` operand kinds), register
    classes, custom selection steps. Anything else is read from the full target, loaded
    (through the target cache) on first such use."""

    def __init__(self, target, source=None):
        from .divergence import DivergenceFacts

        self.name = target.name
        self.spec_path = getattr(target, "spec_path", "")
        self.uniformity = target.uniformity
        self._facts = DivergenceFacts.of(target)
        self._source = source  # how to load the target again (a spec folder), after unpickling
        self._full = target
        self.intrinsics_by_ir_name = {k: _Rec(ir_name=i.ir_name, divergence=i.divergence,
                                              properties=tuple(str(p) for p in i.properties))
                                      for k, i in target.intrinsics_by_ir_name.items()}
        self.sdnodes = {k: _Rec(name=n.name, opcode=n.opcode) for k, n in target.sdnodes.items()}
        lows = []
        for low in getattr(target, "lowerings", ()) or ():
            from .sdag import _lowering_ir_name, _lowering_node, _lowering_opcode

            m = getattr(low, "operand_map", None)
            if m is None:
                m = getattr(low, "operands", None)
            lows.append(_Rec(intrinsic=_Rec(ir_name=_lowering_ir_name(target, low)),
                             node=_Rec(name=_lowering_node(low), opcode=_lowering_opcode(target, low)),
                             operand_map=m))
        self.lowerings = tuple(lows)
        self.instructions = {k: _Rec(ins=tuple(_Rec(kind=o.kind) for o in i.ins),
                                     outs=tuple(_Rec(kind=o.kind) for o in i.outs))
                             for k, i in target.instructions.items()}
        self.register_classes = tuple(
            _Rec(name=rc.name, file=rc.file, types=tuple(_Rec(name=getattr(t, "name", None), bits=getattr(t, "bits", 0))
                                                         for t in rc.types),
                 registers=rc.registers, subreg_indices=rc.subreg_indices, subregs=rc.subregs)
            for rc in target.register_classes)
        self.register_classes_by_name = {rc.name: rc for rc in self.register_classes}
        self.custom_selects = tuple(_Rec(name=cs.name, opcodes=cs.opcodes, emits=cs.emits, model=cs.model, vt=cs.vt,
                                         span=cs.span) for cs in getattr(target, "custom_selects", ()))

    def intrinsic_divergence(self, ir_name: str):
        return self._facts.intrinsic_divergence(ir_name)

    def full_target(self):
        """The target this view was made of (loaded on first use)."""
        full = self.__dict__.get("_full")
        if full is None:
            from tdgen.target_cache import load_target

            full = self.__dict__["_full"] = load_target(self._source)
        return full

    def __getattr__(self, name: str):
        if name.startswith("__") or name in ("_full", "_source", "_facts"):
            raise AttributeError(name)
        return getattr(self.full_target(), name)

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k != "_full"}

    def __setstate__(self, state):
        self.__dict__.update(state)


class IselBundle:
    """What ``tdgen isel``/``explain`` load from the target cache in one entry: the
    target's ``IselView``, its matcher table, each pattern's result plan (by table
    index) and the compiled code of every root opcode's selector (``_compile_selector``,
    marshalled, by a digest of its generated source: ``patterns.matcher.compile_source``
    uses an entry only for exactly the source it was compiled from)."""

    def __init__(self, target, source=None):
        import marshal

        from .matcher import build_table, recorded_sources

        view = IselView(target, source)
        table = build_table(target)
        sel = _FnSelector.__new__(_FnSelector)
        sel.t, sel.insts, sel.rcs, sel._plans = view, view.instructions, view.register_classes_by_name, {}
        sel._scalar_rc, sel._vector_rc = _default_classes(view)
        plans = tuple(sel._plan(p) for p in table.patterns)
        with recorded_sources() as made:
            for opc in sorted(table.by_opcode):
                _compile_selector(table, opc, sel._plan)
        self.view = view
        self.table = table
        self.plans = plans
        self.code = {digest: marshal.dumps(code) for digest, code in made}

    def install(self):
        """Make this process use the bundle: ``build_table(view)`` returns its table, the
        selectors find their plans and code. Returns the view."""
        from .matcher import adopt_table, store_code

        view, table = self.view, self.table
        adopt_table(view, table)
        plans, _sel = table.emit_cache(view)
        for p, plan in zip(table.patterns, self.plans):
            plans[id(p)] = plan
        store_code(self.code)
        return view
