"""The selection loop: ``FnSelector`` walks a function's DAG nodes and makes their machine instructions.

Stage job: given one function's DAGs (``patterns.dag.nodes.FunctionDAGs``) and the target's
matcher table, walk each block's nodes in SelectionDAGISel's order (users before
operands), hand each live node to its opcode's custom steps (``patterns.select.custom``),
compiled selector (``patterns.select.selgen.compile_selector``) and the target's own
Select step (``TargetHooks.select``); a node none of them selects is "cannot select"
(no generic fallback), except for the target-independent instructions LLVM makes
itself (``COPY`` of a CopyToReg or FREEZE, ``IMPLICIT_DEF`` of an UNDEF).
``patterns.select.isel`` is the driver around it (the per-function and per-module
selection, the target view and the cached bundle); this module is the per-node hot
path, kept in one compiled module (``patterns.native``) so that the loop and the generic
emitters read the selector's state and the machine instructions
(``patterns.select.mir.MachineInstr``) as native fields. The helpers the generated
selectors call are here too (``SELECTOR_NAMES``).
"""

from __future__ import annotations

import operator
from typing import Any, Final

from tdgen.dag import Leaf
from tdgen.errors import Diagnostics, SpecError, TdgenError
from tdgen.hooks import target_hooks

from patterns.dag.nodes import SDNode
from patterns.select import selgen
from patterns.select.custom import CUR, Decline, TargetConstant, checked_custom, custom_steps, model_error
from patterns.select.explain import cannot_select
from patterns.select.mir import MachineInstr
from patterns.select.xform import apply_xform

__all__ = ["FnSelector", "new_machine_instr", "release", "SELECTOR_NAMES"]


def new_machine_instr(opcode: object, dst: object, regclass: object, file: object, operands: object, ir: object,
                      node: object, pattern: object, order: int, more_defs: object) -> MachineInstr:
    """``MachineInstr(...)`` with every field given (what the generated selectors call)."""
    return MachineInstr(opcode, dst, regclass, file, operands, ir, node, pattern, order, more_defs)


class FnSelector:
    """The selector of one function: the matcher table's compiled selectors by root
    opcode, the virtual registers given so far (``vreg_of``; numbered after the
    function's cross-block registers), the result plans of the patterns. With ``fdags``
    None, it only compiles plans (``patterns.select.isel.IselBundle``)."""

    t: Any
    table: Any
    fdags: Any
    insts: Any
    rcs: Any
    next_vreg: int
    vreg_of: dict[SDNode, str]
    scalar_rc: str | None
    vector_rc: str | None
    _plans: dict
    _selectors: dict
    custom: dict
    _dispatch: dict[str, tuple]
    hooks: Any
    select_hooks: Any
    _block_index: Any
    dag: Any
    liveins: dict[str, str]
    stop_after: str | None
    target_state: dict

    def __init__(self, target: Any, table: Any, fdags: Any) -> None:
        self.t = target
        self.table = table
        self.fdags = fdags
        self.insts = target.instructions
        self.rcs = target.register_classes_by_name
        self.next_vreg = len(fdags.vregs) if fdags is not None else 0
        self.vreg_of = {}  # node -> its result register (nodes hash by identity)
        self.scalar_rc, self.vector_rc = _default_classes(target)
        emit_cache = getattr(table, "emit_cache", None)
        self._plans, self._selectors = emit_cache(target) if emit_cache is not None else ({}, {})
        self.custom = custom_steps(target) if fdags is not None else {}
        self._dispatch = {}
        self.hooks = target_hooks(target) if fdags is not None else None
        self.select_hooks = self.hooks.select if self.hooks is not None else {}
        self._block_index = None
        self.dag = None  # (the block's DAG being selected)
        self.liveins = {}  # live-in physical register -> its class (MIR ``liveins``)
        # the llc pass the machine code is to match (``-stop-after``): "amdgpu-isel" skips
        # the target's machine passes that run after the DAG selector (SIFixSGPRCopies)
        self.stop_after = None
        # the target's own per-function scratch (its Select steps and machine passes
        # share it: pending SI_END_CFs, scaled address offsets ...), by key
        self.target_state = {}
        # IR phis whose only use a target's Select step folded into its own instruction
        # (AMDGPU's SI_ELSE replaces the branch on StructurizeCFG's else phi): no PHI is
        # made for them, as llc makes none for a phi without uses
        self.dead_phis: set = set()

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

    def _dispatch_for(self, opc: str) -> tuple[Any, Any, bool, int, Any]:
        """What selecting a node of opcode ``opc`` involves, worked out once per opcode:
        (custom steps or None, the table's matcher or None, whether a node nothing
        selects is an error, which target-independent instruction it gets otherwise:
        ``_GLUE_NONE`` (none: the node has no instruction of its own after ISel) or one
        of the emitters of the few instructions LLVM itself makes for a node without a
        pattern: ``COPY`` for CopyToReg and FREEZE, ``IMPLICIT_DEF`` for UNDEF), and the
        target's own Select step of the opcode (``TargetHooks.select``) or None."""
        fn = self._selectors.get(opc, _UNCOMPILED)
        if fn is _UNCOMPILED:
            fn = self._selectors[opc] = selgen.compile_selector(self.table, opc, self.plan, SELECTOR_NAMES)
        gk = _GLUE_OF.get(opc, _GLUE_MUST)
        d = (self.custom.get(opc), fn, gk == _GLUE_MUST, gk, self.select_hooks.get(opc))
        self._dispatch[opc] = d
        return d

    def select_dag(self, dag: Any, diags: Diagnostics) -> list[MachineInstr]:
        out: list[MachineInstr] = []
        roots = set(dag.roots)
        dispatch = self._dispatch
        nodes: list[SDNode] = dag.nodes
        n: SDNode
        d: tuple[Any, Any, bool, int, Any]
        gk: int
        must: bool
        self.dag = dag
        for k in range(len(nodes) - 1, -1, -1):
            n = nodes[k]
            if n.uses <= 0 and n not in roots:
                continue
            opc = n.opcode
            d = dispatch[opc] if opc in dispatch else self._dispatch_for(opc)
            steps, fn, must, gk, hook = d
            if steps is not None and self.try_custom(n, steps, diags, out):
                continue
            if fn is not None and fn(n, self, out):
                continue
            if must:
                if _preloaded_read(n):
                    self.preloaded_copy(n, out)
                elif hook is None or not self.run_hook(hook, n, out, diags):
                    diags.add(cannot_select(n, self.table, dag.block))
                continue
            if gk == _GLUE_COPY_TO_REG:
                _glue_copy_to_reg(self, n, out)
            elif gk != _GLUE_NONE:
                self.generic(n, gk, out)
        out.sort(key=_ORDER_KEY)
        return out

    def select_detached(self, n: SDNode, out: list[MachineInstr], diags: Diagnostics, block: Any = None) -> None:
        """Select a node made outside the block DAGs (a phi's constant incoming value,
        which llc materializes in the predecessor: a CopyToReg of the constant there)
        with the same steps as a node of a DAG; "cannot select" is reported at ``block``."""
        opc = n.opcode
        d = self._dispatch[opc] if opc in self._dispatch else self._dispatch_for(opc)
        steps, fn, must, gk, hook = d
        if steps is not None and self.try_custom(n, steps, diags, out):
            return
        if fn is not None and fn(n, self, out):
            return
        if must:
            if hook is None or not self.run_hook(hook, n, out, diags):
                diags.add(cannot_select(n, self.table, block))
            return
        if gk != _GLUE_NONE and gk != _GLUE_COPY_TO_REG:
            self.generic(n, gk, out)

    def try_custom(self, n: SDNode, steps, diags: Diagnostics, out: list[MachineInstr]) -> bool:
        for cs, fn in steps:
            # (run_custom, written out for the usual answer: the step declines)
            if n.vt != cs.vt:
                continue
            try:
                res = fn(n, CUR)
            except Exception as e:  # noqa: BLE001 - a bug in the spec's model, reported at the record
                res = model_error(cs, n, "a model that runs", f"{type(e).__name__}: {e}")
            else:
                if res is None or isinstance(res, Decline):
                    continue
                res = checked_custom(cs, n, res, self.t)
            if isinstance(res, SpecError):
                diags.add(res)
                return True
            self.emit_custom(n, cs, res, out)
            return True
        return False

    def emit_custom(self, n: SDNode, cs: Any, res: Any, out: list[MachineInstr]) -> None:
        """Replace ``n`` by ``res`` (ReplaceNode): the values it reads gain a user, ``n``'s
        operands lose theirs (an inner node left without users is dead)."""
        for o in res.operands:
            if isinstance(o, SDNode) and o is not n:
                o.uses += 1
        for o in n.ops:
            release(o)
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
        its plan: what the code ``selgen.compile_selector`` generates does, in the same order."""
        for v in env.values():
            if v is not n:
                v.uses += 1
        for o in n.ops:
            release(o)
        self._emit_dst(self.plan(p), n, env, out, p, True)

    def plan(self, p):
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
        name, see ``xform.apply_xform``)."""
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
            rc = self._class_for(cast, "scalar") or self.scalar_rc
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
        return (self.vector_rc, "vector") if div else (self.scalar_rc, "scalar")

    def _emit_dst(self, plan, root: SDNode, env, out, p, top=False) -> str:
        tag = plan[0]
        if tag == "lit":
            return plan[1]
        if tag == "var":
            return self.operand(env, plan[1], plan[2])
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
            dst = self.vreg(root) if top else f"%{self.fresh()}"
            out.append(MachineInstr("COPY", dst, rc, file, [f"{src}.{idx}"], root.ir_name(), root.id, p.record,
                                    root.id * 64 + (32 if top else 0) + len(out) % 32))
            return dst
        _tag, op, rc, file, has_out, kids, more = plan
        emit = self._emit_dst
        ops = [emit(k, root, env, out, p) for k in kids]
        res: str | None = None
        if has_out:
            res = self.vreg(root) if top else f"%{self.fresh()}"
        more_defs = tuple((f"%{self.fresh()}", m) for m in more)
        out.append(MachineInstr(op, res, rc, file, ops, root.ir_name(), root.id, p.record,
                                root.id * 64 + (32 if top else 0) + len(out) % 32, more_defs))
        return res or ""

    def operand(self, env: Any, name: str, is_register: bool) -> str:
        """The text of the bound value ``name`` as an operand of a result instruction: a
        constant bound to an immediate (non-register) operand is folded."""
        v = env.get(name)
        if v is None:
            return f"${name}"
        return reg_operand(self, v) if is_register else any_operand(self, v)

    def fresh(self) -> int:
        v = self.next_vreg
        self.next_vreg += 1
        return v

    # -- the target-independent instructions and the target's Select steps ------
    def class_of(self, vt: str, divergent: bool) -> tuple[str | None, str]:
        """The register class (and file) of a value of type ``vt``: the target's
        (``TargetHooks.register_class_for``), else the first class of the file its
        divergence picks that holds the type, else the file's 32-bit class."""
        hook = self.hooks.register_class_for if self.hooks is not None else None
        if hook is not None:
            got = hook(vt, divergent)
            if got is not None:
                return got[0], got[1]
        file = "vector" if divergent else "scalar"
        rc = self._class_for(vt, file)
        if rc is None:
            rc = self.vector_rc if divergent else self.scalar_rc
        return rc, file

    def generic(self, n: SDNode, gk: int, out: list[MachineInstr]) -> None:
        """``IMPLICIT_DEF`` for an UNDEF, ``COPY`` of its operand for a FREEZE
        (SelectionDAGISel::Select_FREEZE)."""
        rc, file = self.class_of(n.vt, n.divergent)
        if gk == _GLUE_UNDEF:
            out.append(MachineInstr("IMPLICIT_DEF", self.vreg(n), rc, file, [], _ir_text(n.ir), n.id, None,
                                    n.id * 64 + 33, ()))
            return
        ops = _glue_operands(self, n)
        out.append(MachineInstr("COPY", self.vreg(n), rc, file, ops[:1], _ir_text(n.ir), n.id, None,
                                n.id * 64 + 33, ()))

    def preloaded_copy(self, n: SDNode, out: list[MachineInstr]) -> None:
        """An operand-less intrinsic the target reads from a preloaded register (the
        workitem ids): llc lowers it to a CopyFromReg of the live-in register, a
        ``COPY`` of it. The register is the target's (``TargetHooks.preloaded``);
        without one the operand names the intrinsic (``$llvm.x.y``)."""
        pre = self.hooks.preloaded.get(n.intrinsic) if self.hooks is not None else None
        rc, file = self.class_of(n.vt, n.divergent)
        if pre is not None:
            src = f"${pre[0]}"
            self.liveins.setdefault(src, pre[1])
        else:
            src = f"${n.intrinsic}"
        out.append(MachineInstr("COPY", self.vreg(n), rc, file, [src], _ir_text(n.ir), n.id, None,
                                n.id * 64 + 33, ()))

    def run_hook(self, hook, n: SDNode, out: list[MachineInstr], diags: Diagnostics) -> bool:
        """The target's Select step for ``n`` (``TargetHooks.select``): it appends the
        machine instructions replacing ``n`` and says whether it selected the node; an
        error it raises (a construct it does not model) is reported at the node."""
        try:
            return bool(hook(n, self, out))
        except TdgenError as e:
            diags.add(e)
            return True

    def is_terminator(self, opcode: str) -> bool:
        """Whether the target's instruction ``opcode`` ends a block (isTerminator)."""
        inst = self.insts.get(opcode)
        if inst is None:
            return False
        t = getattr(inst, "terminator", None)
        if t is None:
            f = getattr(inst, "field", None)
            t = bool(f("isTerminator", 0)) if f is not None else False
        return bool(t)

    def block_index(self, block: Any) -> int:
        """The machine block number of IR block ``block`` (source order)."""
        bi = self._block_index
        if bi is None:
            bi = self._block_index = {id(d.block): k for k, d in enumerate(self.fdags.dags)}
        return bi[id(block)]

    def instr(self, opcode: str, dst: str | None, rc: str | None, operands: list, n: SDNode, pattern: object = None,
              more_defs: tuple = (), implicit: tuple = (), sub: int = 0) -> MachineInstr:
        """A machine instruction made by a target's Select step for node ``n``, ordered
        with the node's other instructions (``sub``: its place among them)."""
        mi = MachineInstr(opcode, dst, rc, self._file(rc), operands, _ir_text(n.ir), n.id, pattern,
                          n.id * 64 + 32 + sub, more_defs)
        if implicit:
            mi.implicit = implicit
        return mi


def _ir_text(ir: Any) -> str | None:
    """``%name`` of the IR value a node computes, or None (no value, or a value without a
    name: a constant)."""
    if ir is None:
        return None
    try:  # (getattr(ir, "name", None))
        name = ir.name
    except AttributeError:
        return None
    return None if name is None else f"%{name}"


def _glue_operands(sel: FnSelector, n: SDNode) -> list[str]:
    """The operands of ``n``'s generic instruction as text (``FnSelector.operand_text``:
    a constant without users as its value); a node's register is numbered even when
    it is not printed."""
    ops: list[str] = []
    o: SDNode
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
    return ops


def _glue_copy_to_reg(sel: FnSelector, n: SDNode, out: list[MachineInstr]) -> None:
    """A CopyToReg: ``COPY`` of the value into its virtual register, of the class the
    value's type and divergence give."""
    ops = _glue_operands(sel, n)
    ir = _ir_text(n.ir)
    i = n.id
    src = n.ops[0] if n.ops else None
    div = src.divergent if src is not None else n.divergent
    rc, file = sel.class_of(src.vt if src is not None else "i32", div)
    out.append(MachineInstr("COPY", f"%{n.reg}", rc, file, ops, ir, i, None, i * 64 + 33, ()))


# --- what the generated selectors (patterns.select.selgen.compile_selector) call ----------
# Written out in the selectors, these read a node's fields from interpreted code, each
# read a descriptor call into the native object; called, they read them natively.


def node_ir_name(n: SDNode) -> str | None:
    """``%name`` of the IR value node ``n`` computes, or None."""
    return _ir_text(n.ir)


def reg_operand(sel: FnSelector, n: SDNode) -> str:
    """``n`` as a register operand (``FnSelector.operand`` with ``reg_operand``): a
    CopyFromReg's own register, else ``n``'s register, numbered when first asked."""
    if n.opcode == "ISD::CopyFromReg":
        return f"%{n.reg}"
    vo = sel.vreg_of
    r = vo.get(n)
    if r is None:
        r = vo[n] = f"%{sel.next_vreg}"
        sel.next_vreg += 1
    return r


def any_operand(sel: FnSelector, n: SDNode) -> str:
    """``n`` as an operand that may be an immediate (``FnSelector.operand``): a constant
    is folded (it loses this user; left without users, it releases its operands)."""
    opc = n.opcode
    if opc == "ISD::Constant" or opc == "ISD::TargetConstant":
        u = n.uses - 1
        n.uses = u
        if u == 0:
            for o in n.ops:
                release(o)
        return str(n.value)
    return reg_operand(sel, n)


def fresh_reg(sel: FnSelector) -> str:
    """A new virtual register (``FnSelector.fresh``), as operand text."""
    r = sel.next_vreg
    sel.next_vreg = r + 1
    return f"%{r}"


def drop_use(o: SDNode) -> None:
    """``o`` loses a user; left without users, it releases its operands."""
    u = o.uses - 1
    o.uses = u
    if u == 0:
        for x in o.ops:
            release(x)


def drop_uses(ops: list[SDNode], start: int) -> None:
    """``drop_use`` of each of ``ops`` from index ``start`` on, in order."""
    for k in range(start, len(ops)):
        drop_use(ops[k])


# which target-independent instruction a node nothing else selects gets (FnSelector._dispatch_for)
_GLUE_MUST: Final = -1  # none: the node must be selected (by a pattern, custom step or Select hook)
_GLUE_NONE: Final = 0  # none: the node has no instruction of its own after ISel
_GLUE_COPY_TO_REG: Final = 3  # _glue_copy_to_reg
_GLUE_UNDEF: Final = 4  # IMPLICIT_DEF
_GLUE_FREEZE: Final = 5  # COPY (SelectionDAGISel::Select_FREEZE)
_GLUE_OF: Final = {"ISD::EntryToken": _GLUE_NONE, "ISD::CopyFromReg": _GLUE_NONE, "ISD::TokenFactor": _GLUE_NONE,
                   "ISD::Register": _GLUE_NONE, "ISD::TargetConstant": _GLUE_NONE, "ISD::VALUETYPE": _GLUE_NONE,
                   "ISD::CopyToReg": _GLUE_COPY_TO_REG, "ISD::UNDEF": _GLUE_UNDEF, "ISD::FREEZE": _GLUE_FREEZE}


_ORDER_KEY: Final = operator.attrgetter("order")


_UNCOMPILED: Final = object()


def _preloaded_read(n: SDNode) -> bool:
    """An operand-less intrinsic the target names as a source of divergence or always
    uniform (workitem ids, ...) reads a preloaded register: llc lowers it to a copy."""
    return n.opcode == "ISD::INTRINSIC_WO_CHAIN" and len(n.ops) == 1


def release(n: SDNode) -> None:
    n.uses -= 1
    if n.uses == 0:
        for o in n.ops:
            release(o)


def _release_if_dead(n: SDNode) -> None:
    if n.uses == 0:
        for o in n.ops:
            release(o)


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


def _generic_instructions():
    """Target.td's instructions (tdgen.builtins, imported when first needed: a cached
    selector needs no plan compiled, and the spec model stays unimported)."""
    from tdgen.builtins import GENERIC_INSTRUCTIONS

    return GENERIC_INSTRUCTIONS


# the names the code of the generated selectors reads (this module's helpers; see
# patterns.select.selgen)
SELECTOR_NAMES: Final = {"_mi": new_machine_instr, "_release": release, "_xf": apply_xform, "_irn": node_ir_name,
                         "_reg": reg_operand, "_any": any_operand, "_fresh": fresh_reg, "_drop_use": drop_use,
                         "_drop_uses": drop_uses}
