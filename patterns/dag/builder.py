"""SelectionDAGBuilder: the SelectionDAG of each basic block of a function, built from IR as
LLVM's SelectionDAGBuilder makes it (``DAGBuilder``; ``build_dags`` builds every block, in
reverse post-order, and combines each as soon as it is built when given a combiner).

- every IR instruction of the block becomes an ISD-style node (``ISD::ADD``, ``ISD::SETCC``,
  ``ISD::Constant``, ``ISD::LOAD``, ``ISD::INTRINSIC_WO_CHAIN`` ...; ``patterns.dag.isd``);
  values defined in another block, phis and function arguments enter through
  ``ISD::CopyFromReg`` of the value's virtual register; values used in another block (or
  by a phi) leave through ``ISD::CopyToReg``. Calls: ``patterns.dag.calls``; floating
  point, vector elements, atomics and fences: ``patterns.dag.buildext``. A load, store or
  atomic carries its memory operand (``SDNode.mem``, ``patterns.dag.memops``).
- the divergence bit of a node is computed as ``SelectionDAG::createOperands`` does: the
  OR of its non-chain operands' bits, OR'ed with "source of divergence" (a CopyFromReg of a
  vreg whose IR value the uniformity analysis calls divergent; an intrinsic the target
  names as a source), and cleared for always-uniform nodes (constants, intrinsics the
  target calls always uniform).

The IR is first prepared as llc's IR prepasses leave it (``patterns.dag.prepare``: EarlyCSE,
dead-code removal with llc's survivors, Sink). A value the combines of an earlier block
fold to a constant or to another value, or find uniform, is seen that way by the blocks
that read it, and a phi divergent only through its incoming values is recomputed from
them. The CopyFromRegs of a value carry its known leading zeros and sign bits recorded
where it was computed (``patterns.dag.liveout``: LiveOutRegInfo, seen by llc's combines as
an AssertZext / AssertSext); a value with all 32 bits known zero is read as the constant 0
instead (RegsForValue::getCopyFromRegs), and the binary ops built on it get
SelectionDAG::getNode's folds (``get_node_folds``: ``x ^ 0`` is ``x`` before any combine
runs). A block's nodes are made directly (``make_node``; helpers made once per function,
``block_builder``), and its map of constant nodes is kept for the combines
(``take_constants``)."""

from __future__ import annotations

from typing import Any, Final

from patterns.dag.buildext import other_node, OTHER_OPCODES
from patterns.dag.calls import CallLowering
from patterns.dag.combine.context import DAGTarget
from patterns.dag.combine.driver import dag_target
from patterns.dag.cse import value_kind, KINDS
from patterns.dag.isd import CONDCODES, const_int, ISD_OF_BINOP, ISD_OF_CAST, vt_of
from patterns.dag.liveout import const_sign_bits, phi_lz, phi_sb, record_exports
from patterns.dag.memops import mem_operand, module_layout
from patterns.dag.nodes import FunctionDAGs, get_node_folds, make_node, new_node, SDNode, SelectionDAG
from patterns.support.intops import wrap_vt
from patterns.dag.prepare import prepare, prepare_plain
from patterns.ir.function import Instruction
from tdgen.errors import expected, VerifyError
from tdgen.hooks import target_hooks


_MISSING: Final[Any] = object()
_EMPTY: Final[frozenset] = frozenset()


class DAGBuilder:
    """The DAGs of one function's blocks: the prepasses' answers (run when made), the
    virtual registers, the recorded live-out counts, and the block builder."""

    def __init__(self, fn, target, ua, dce: str = "aggressive"):
        self.fn = fn
        self.target = target
        self.ua = ua
        self.vreg: dict[object, str] = {}
        self.calls = CallLowering(target)  # (the nodes of calls)
        self._vt_cache: dict = {}
        self._const_keys: dict = {}  # id(type) -> (type, {constant text: (value, vt) or None})
        # known leading zeros of each exported i32 value, recorded after its block is
        # combined (as the exporting node: counted on first use, the block is finished),
        # and of each i32 phi (the minimum over its incoming values): llc's
        # FunctionLoweringInfo LiveOutRegInfo / ComputePHILiveOutRegInfo. Per function.
        self.live_lz: dict = {}
        # and their sign bits (ComputeNumSignBits), the same way
        self.live_sb: dict = {}
        self.track_lz = False  # set by build_dags when it combines
        self.dag_target: DAGTarget | None = None  # (then: the target's, for the counts)
        if dce == "aggressive":
            prep = prepare(fn)
        else:
            prep = prepare_plain(fn, dce)
        self.rep = prep.rep
        self.live = prep.live
        # the block each live instruction is selected in, after llc's IR Sink pass
        self.placed = prep.placed
        self.moved = prep.moved  # instruction -> its block, for the instructions Sink moved
        self.used_outside = prep.used_outside
        # llc reads a value defined in a cycle with a divergent exit, outside that cycle,
        # through an LCSSA phi that the analysis calls divergent (temporal divergence)
        self.temporal: dict = {}
        for ci, c in enumerate(getattr(ua, "cycles_with_divergent_exit", ())):
            for b in c.block_set:
                self.temporal[b] = self.temporal.get(b, frozenset()) | {ci}
        # per block: its live phis, in order, as ``build`` met them (block_builder)
        self.block_phis: dict = {}

    def is_divergent(self, v) -> bool:
        return bool(self.ua.is_divergent(v))

    def phi_divergent(self, phi) -> bool:
        """The phi's register file: the analysis's verdict (FunctionLoweringInfo makes a
        vector register for a value the uniformity analysis calls divergent)."""
        return bool(self.ua.is_divergent(phi))

    def reg_of(self, v) -> str:
        r: Any
        r = self.vreg.get(v)
        if r is None:
            r = str(len(self.vreg))
            self.vreg[v] = r
        return r

    def build_block(self, block) -> SelectionDAG:
        """The SelectionDAG of ``block`` (see ``block_builder``)."""
        return self.block_builder()(block)

    def block_builder(self):
        """A function building the SelectionDAG of a block of this function, ``build(block)``
        (the helpers it uses are made once for all the function's blocks; nothing made
        here refers to the builder's function objects, so no reference cycle is left).

        Nodes are made inline (``make_node`` written out: every slot set, in ``make_node``'s order;
        tests/test_sdag_prepass.py checks every node of built blocks has every slot). The
        common operands are resolved without a call: a value computed earlier in the
        block, an integer constant whose (value, type) was seen before."""
        # the block being built (closure cells, set by ``build``; typed, so the compiled
        # build calls the dictionaries' and lists' methods directly)
        block: Any = None
        nodes: list = []
        local: dict = {}
        consts: dict = {}

        rep: dict = self.rep
        live_lz: dict = self.live_lz
        live_sb: dict = self.live_sb
        kinds: dict = KINDS
        vt_cache: dict = self._vt_cache
        calls = self.calls
        const_keys: dict = self._const_keys
        vregs: dict = self.vreg
        ua_div = self.ua.is_divergent
        temporal: dict = self.temporal  # (empty unless a cycle has a divergent exit)
        moved: dict = self.moved
        empty = frozenset()
        new = new_node
        Node = SDNode
        missing = _MISSING

        def vt_of_cached(ty) -> str:
            hit: Any
            hit = vt_cache.get(id(ty))
            if hit is None:
                hit = vt_cache[id(ty)] = (ty, vt_of(ty))  # (the type kept alive with its id)
            return hit[1]

        def const(value: int, vt: str) -> SDNode:
            n: Any
            value = wrap_vt(value, vt)
            key = (value, vt)
            n = consts.get(key)
            if n is None:
                n = const_node(key)
            return n

        def const_node(key) -> SDNode:
            """A new ISD::Constant node of ``key`` = (value, vt), entered in ``consts``."""
            n: SDNode = new(Node)
            n.id = len(nodes)
            n.opcode = "ISD::Constant"
            n.vt = key[1]
            n.ops = []
            n.divergent = False
            n.value = key[0]
            n.cc = None
            n.ir = None
            n.uses = 0
            n.source = "uniform"
            n.chain = None
            n.intrinsic = None
            n.reg = None
            n.block = block
            n.target_op = None
            n.mark = 0
            n.users = None
            n.wlix = -1
            n.kbc = None
            n.klz = 0
            n.ksb = 1
            n.mem = None
            nodes.append(n)
            consts[key] = n
            return n

        def constant(v) -> SDNode:
            """The node of IR constant ``v``: its (value, vt) is cached per type and text
            (each use is a new object); a constant is never a CSE representative, a local
            value."""
            n: Any
            by_text: Any
            t = v.type
            by_text = const_keys.get(id(t))
            if by_text is None:
                by_text = const_keys[id(t)] = (t, {})  # (the type kept alive with its id)
            by_text = by_text[1]
            key: Any = by_text.get(v.text, missing)
            if key is missing:
                c = const_int(v)
                vt = vt_of_cached(t)
                key = by_text[v.text] = None if c is None else (wrap_vt(c, vt), vt)
            if key is None:
                n = SDNode(len(nodes), "ISD::UNDEF" if v.text in ("undef", "poison") else "ISD::Constant",
                           vt_of_cached(t), (), None, None, v, None, None, block)
                n.source = "uniform"
                nodes.append(n)
                return n
            n = consts.get(key)
            if n is None:
                n = const_node(key)
            return n

        def far(v, k) -> SDNode:
            """The node of value ``v`` (of kind ``k``, CSE representative already taken)
            that is not computed in this block (yet): a CopyFromReg."""
            if k == "I" or k == "A":
                t = v.type
                vt = vt_cache.get(id(t))
                vt = vt_of_cached(t) if vt is None else vt[1]
                reg = vregs.get(v)
                if reg is None:
                    reg = vregs[v] = str(len(vregs))
                klz = live_lz.get(v, 0)
                if type(klz) is not int and klz.opcode == "ISD::Constant":
                    c = klz.value
                    klz = live_lz[v] = 32 - (c & 0xFFFFFFFF).bit_length() if type(c) is int else 0
                if klz == 32:
                    # every bit known zero: RegsForValue::getCopyFromRegs reads the constant 0
                    # (the CopyFromReg it makes is left unused)
                    n = local[v] = const(0, vt)
                    return n
                n = new(Node)  # (make_node written out)
                n.id = len(nodes)
                n.opcode = "ISD::CopyFromReg"
                n.vt = vt
                n.ops = []
                n.value = None
                n.cc = None
                n.ir = v
                n.uses = 0
                n.chain = None
                n.intrinsic = None
                n.reg = reg
                n.block = block
                n.target_op = None
                n.mark = 0
                n.users = None
                n.wlix = -1
                n.kbc = None
                nodes.append(n)
                n.klz = klz
                ksb = live_sb.get(v, 1)
                if type(ksb) is not int and ksb.opcode == "ISD::Constant":
                    ksb = live_sb[v] = const_sign_bits(ksb.value)
                n.ksb = ksb
                n.mem = None
                div = bool(ua_div(v))  # (SITargetLowering::isSDNodeSourceOfDivergence)
                if not div and temporal and k == "I":
                    # (read outside a cycle with a divergent exit: temporal divergence)
                    inner = temporal.get(moved.get(v) or v.block)
                    if inner:
                        div = not inner <= temporal.get(block, empty)
                n.source = "divergent" if div else "uniform"
                n.divergent = div
                if k == "A" and arg_reg is not None:
                    wide = arg_reg(vt, cc_name, False)
                    if wide is not None and wide != vt:
                        # the calling convention's register type (CCPromoteToType): the
                        # argument is the truncation of its register (LowerFormalArguments)
                        n.vt = wide
                        n = mk("ISD::TRUNCATE", vt, (n,), v)
                        n.divergent = div
                local[v] = n
                return n
            if k == "C":
                c = const_int(v)
                vt = vt_of(v.type)
                if c is None:
                    n = SDNode(len(nodes), "ISD::UNDEF" if v.text in ("undef", "poison") else "ISD::Constant", vt, (),
                               None, None, v, None, None, block)
                    n.source = "uniform"
                    nodes.append(n)
                    return n
                return const(c, vt)
            # globals, inline asm, metadata: an opaque uniform value
            n = SDNode(len(nodes), "ISD::Register", "i64", (), None, None, v, None, None, block)
            n.source = "uniform"
            nodes.append(n)
            local[v] = n
            return n

        def get(v) -> SDNode:
            n: Any
            # (no closure here refers to itself: a reference cycle would keep the block's
            # nodes alive until the cyclic collector runs)
            k = kinds.get(type(v))
            if k is None:
                k = value_kind(type(v))
            if k == "C":
                return constant(v)
            v = rep.get(v, v)
            n = local.get(v)
            if n is not None:
                return n
            return far(v, k)

        def mk(opcode, vt, ops, ir, cc=None) -> SDNode:
            n = make_node(len(nodes), opcode, vt, list(ops), ir, block)
            n.cc = cc
            for o in ops:
                o.uses += 1
            nodes.append(n)
            return n

        used_outside: set = self.used_outside
        binops: dict = ISD_OF_BINOP
        # the memory operands' target flags (TargetHooks.mem_flags) and data layout
        mem_flags = target_hooks(self.target).mem_flags
        # the calling convention's register types of small arguments and return values
        arg_reg = target_hooks(self.target).argument_register_type
        cc_name = getattr(self.fn, "cc", None) or ""
        layout = module_layout(self.fn, self.target)

        placed: dict = self.placed
        block_phis: dict = self.block_phis

        def build(blk) -> SelectionDAG:
            n: Any
            x: Any
            y: Any
            ins: Instruction
            operands: list
            a: SDNode | None
            b: SDNode | None
            nonlocal block, nodes, local, consts
            block = blk
            dag = SelectionDAG(blk)
            nodes = dag.nodes
            droots = dag.roots
            local = {}
            consts = {}
            # (nodes are made here directly, as SelectionDAG.node makes them: the next id,
            # operands gaining a user, appended in creation order)
            chain = make_node(0, "ISD::EntryToken", "ch", [], None, blk)
            chain.source = "uniform"
            nodes.append(chain)
            last_t: Any = None  # (the type of the previous binary op and its vt)
            last_vt = ""
            phis = None  # (the block's live phis, listed in block_phis when it has any)
            block_phis.pop(blk, None)
            block_insts: list = placed[blk]
            for ins in block_insts:
                op = ins.opcode
                isd = binops.get(op)
                if isd is not None:
                    # the common case, written out: an operand computed earlier in this
                    # block or an integer constant seen before is found without a call,
                    # the node is made inline (make_node) and its divergence is the OR of its
                    # operands'
                    operands = ins.operands
                    x = operands[0]
                    k = kinds.get(type(x))
                    if k == "I":
                        x = rep.get(x, x)
                        a = local.get(x)
                        if a is None:
                            a = far(x, k)
                    elif k == "C":
                        ck = const_keys.get(id(x.type))
                        ck = ck[1].get(x.text) if ck is not None else None
                        a = consts.get(ck) if ck is not None else None
                        if a is None:
                            a = constant(x)
                    else:
                        a = get(x)
                    y = operands[1]
                    k = kinds.get(type(y))
                    if k == "I":
                        y = rep.get(y, y)
                        b = local.get(y)
                        if b is None:
                            b = far(y, k)
                    elif k == "C":
                        ck = const_keys.get(id(y.type))
                        ck = ck[1].get(y.text) if ck is not None else None
                        b = consts.get(ck) if ck is not None else None
                        if b is None:
                            b = constant(y)
                    else:
                        b = get(y)
                    t = ins.type
                    if t is not last_t:
                        vt = vt_cache.get(id(t))
                        last_vt = vt_of_cached(t) if vt is None else vt[1]
                        last_t = t
                    n = None
                    if a.opcode == "ISD::Constant" or (b.opcode == "ISD::Constant" and b.value == 0):
                        # (a constant left operand, moved right when the op is commutative;
                        # a CopyFromReg known zero read as the constant 0, see far)
                        n, a, b = get_node_folds(isd, last_vt, a, b, const)
                    if n is None:
                        m: SDNode = new(Node)  # (make_node written out)
                        m.id = len(nodes)
                        m.opcode = isd
                        m.vt = last_vt
                        m.ops = [a, b]
                        m.divergent = True if a.divergent or b.divergent else False
                        m.value = None
                        m.cc = None
                        m.ir = ins
                        m.uses = 0
                        m.source = None
                        m.chain = None
                        m.intrinsic = None
                        m.reg = None
                        m.block = blk
                        m.target_op = None
                        m.mark = 0
                        m.users = None
                        m.wlix = -1
                        m.kbc = None
                        m.klz = 0
                        m.ksb = 1
                        m.mem = None
                        n = m
                        a.uses += 1
                        b.uses += 1
                        nodes.append(n)
                elif op == "phi":
                    if phis is None:
                        phis = block_phis[blk] = [ins]
                    else:
                        phis.append(ins)
                    n = make_node(len(nodes), "ISD::CopyFromReg", vt_of_cached(ins.type), [], ins, block)
                    n.reg = self.reg_of(ins)
                    nodes.append(n)
                    if self.track_lz:
                        dtg = self.dag_target
                        assert dtg is not None  # (set with track_lz)
                        n.klz = live_lz[ins] = phi_lz(ins, live_lz, rep, vt_cache, dtg)
                        n.ksb = live_sb[ins] = phi_sb(ins, live_sb, rep, vt_cache, dtg)
                    div = self.phi_divergent(ins)
                    n.source = "divergent" if div else "uniform"
                    n.divergent = div
                    # (every bit known zero: its uses read the constant 0, as in far)
                    local[ins] = n if n.klz != 32 else const(0, n.vt)
                    continue
                elif op == "br":
                    operands = ins.operands
                    if operands and len(operands) >= 3 or (operands and vt_of_cached(getattr(operands[0], "type", None)) == "i1"):
                        c = get(operands[0])
                        n = make_node(len(nodes), "ISD::BRCOND", "ch", [c], ins, blk)
                        c.uses += 1
                        n.divergent = c.divergent
                    else:
                        n = make_node(len(nodes), "ISD::BR", "ch", [], ins, blk)
                    nodes.append(n)
                    n.chain = chain
                    droots.append(n)
                    continue
                else:
                    if op == "icmp":
                        a, b = get(ins.operands[0]), get(ins.operands[1])
                        n = mk("ISD::SETCC", vt_of_cached(ins.type), (a, b), ins, CONDCODES.get(ins.predicate, ins.predicate))
                    elif op == "select":
                        c, a, b = (get(x) for x in ins.operands[:3])
                        n = mk("ISD::VSELECT" if c.vt[0] == "v" else "ISD::SELECT", vt_of_cached(ins.type), (c, a, b), ins)
                    elif op in ISD_OF_CAST:
                        a = get(ins.operands[0])
                        if op == "freeze" or (op == "bitcast" and a.vt == vt_of_cached(ins.type)):
                            local[ins] = a
                            if ins in used_outside:
                                self._copy_out(dag, ins, a)
                            continue
                        n = mk(ISD_OF_CAST[op], vt_of_cached(ins.type), (a,), ins)
                    elif op == "getelementptr":
                        ops = tuple(get(x) for x in ins.operands)
                        n = mk("ISD::PTRADD", vt_of_cached(ins.type), ops, ins)
                    elif op == "load":
                        p = get(ins.operands[0])
                        n = mk("ISD::LOAD", vt_of_cached(ins.type), (p,), ins)
                        n.mem = mem_operand(ins, n.vt, mem_flags, layout)
                        n.chain = chain
                        chain = n
                        div = self.is_divergent(ins)
                        # The IR-level answer covers address-space rules (private/flat loads).
                        n.source = "divergent" if div else None
                    elif op == "store":
                        v, p = get(ins.operands[0]), get(ins.operands[1])
                        n = mk("ISD::STORE", "ch", (v, p), ins)
                        n.mem = mem_operand(ins, v.vt, mem_flags, layout)
                        n.chain = chain
                        chain = n
                        droots.append(n)
                    elif op == "call":
                        n = calls.node(dag, ins, get)
                        if n is not None and ins.type is not None and vt_of_cached(ins.type) == "isVoid":
                            n.chain = chain
                            chain = n
                            droots.append(n)
                    elif op == "ret":
                        ops = tuple(get(x) for x in ins.operands)
                        if arg_reg is not None and ops:
                            wide = arg_reg(ops[0].vt, cc_name, True)
                            if wide is not None and wide != ops[0].vt:  # (visitRet: getCopyToParts, ANY_EXTEND)
                                ops = (mk("ISD::ANY_EXTEND", wide, ops[:1], ins),) + ops[1:]
                        n = mk("ISD::RET", "ch", ops, ins)
                        n.chain = chain
                        droots.append(n)
                    elif op in ("unreachable", "switch"):
                        ops = tuple(get(x) for x in ins.operands[:1])
                        n = mk("ISD::BR", "ch", ops, ins)
                        droots.append(n)
                    else:
                        # floating point, vectors, atomics, fences (patterns.dag.buildext)
                        got = other_node(ins, get, mk, vt_of_cached, ua_div) if op in OTHER_OPCODES else None
                        if got is None:
                            raise VerifyError(ins.span, expected(
                                "an instruction the SelectionDAG builder supports (binary ops, icmp, fcmp, select, "
                                "casts, getelementptr, load, store, atomicrmw, fence, extractelement, "
                                "insertelement, call, br, ret, phi)", f"'{op}'"),
                                record=f"%{ins.name}" if ins.name else None)
                        n, chained = got
                        if chained is None:  # (a cast to the same width: the operand itself)
                            local[ins] = n
                            if ins in used_outside:
                                self._copy_out(dag, ins, n)
                            continue
                        if op == "atomicrmw":
                            n.mem = mem_operand(ins, n.vt, mem_flags, layout)
                        if chained:
                            n.chain = chain
                            chain = n
                            # (an atomic read-modify-write writes memory: a root even when
                            # nothing reads its result, as a store is)
                            if vt_of_cached(ins.type) == "isVoid" or not ins.name or op == "atomicrmw":
                                droots.append(n)
                    if n is None:
                        continue
                    src = n.source  # (a source's own bit, else the OR of the operands')
                    if src == "divergent":
                        n.divergent = True
                    elif src == "uniform":
                        n.divergent = False
                    else:
                        d = False
                        for o in n.ops:
                            if o.divergent:
                                d = True
                                break
                        n.divergent = d
                if ins.name is not None:
                    local[ins] = n
                    if ins in used_outside:  # (_copy_out)
                        reg = vregs.get(ins)
                        if reg is None:
                            reg = vregs[ins] = str(len(vregs))
                        cp: SDNode = new(Node)  # (make_node written out)
                        cp.id = len(nodes)
                        cp.opcode = "ISD::CopyToReg"
                        cp.vt = "ch"
                        cp.ops = [n]
                        cp.divergent = n.divergent
                        cp.value = None
                        cp.cc = None
                        cp.ir = ins
                        cp.uses = 0
                        cp.source = None
                        cp.chain = None
                        cp.intrinsic = None
                        cp.reg = reg
                        cp.block = blk
                        cp.target_op = None
                        cp.mark = 0
                        cp.users = None
                        cp.wlix = -1
                        cp.kbc = None
                        cp.klz = 0
                        cp.ksb = 1
                        cp.mem = None
                        n.uses += 1
                        nodes.append(cp)
                        droots.append(cp)
            dag.constants = (len(nodes), consts)
            return dag

        return build

    def _copy_out(self, dag, ins, n):
        c = dag.node("ISD::CopyToReg", "ch", (n,), ir=ins, reg=self.reg_of(ins))
        c.divergent = n.divergent
        dag.roots.append(c)

def build_dags(b: DAGBuilder, combine=None) -> FunctionDAGs:
    """The DAGs of every block of ``b``'s function (source block order). Blocks are built in
    reverse post-order so a value's block is combined before the blocks that read it:
    ``combine(dag, target)`` (``patterns.dag.combine.driver.run``), when given, runs on each
    block as soon as it is built, and then the counts of the values the block exports are
    recorded (``patterns.dag.liveout.record_exports``) for the blocks that read them."""
    v: Any
    from patterns.ir.cfg import reverse_post_order

    fn = b.fn
    target = b.target
    b.track_lz = combine is not None
    if combine is not None:
        b.dag_target = dag_target(target)
    live_lz = b.live_lz
    live_sb = b.live_sb
    built: dict = {}
    order = reverse_post_order(fn)
    seen = set(order)
    order += [blk for blk in fn.blocks if blk not in seen]
    build = b.block_builder()
    kinds = KINDS
    for blk in order:
        dag = build(blk)
        if combine is not None:
            combine(dag, target)
            record_exports(dag, live_lz, live_sb)
        built[blk] = dag
    dags = [built[blk] for blk in fn.blocks]
    index = {blk: i for i, blk in enumerate(fn.blocks)}
    phis = []
    block_phis = b.block_phis
    rep, vregs = b.rep, b.vreg
    for blk in fn.blocks:
        row = []
        for ins in block_phis.get(blk, ()):  # (the live phis of blk, in order)
            inc = []
            for v, pb in ins.incoming:
                v = rep.get(v, v)
                k = kinds.get(type(v)) or value_kind(type(v))
                if k == "I" or k == "A":
                    reg = vregs.get(v)  # (b.reg_of(v))
                    if reg is None:
                        reg = vregs[v] = str(len(vregs))
                    text = f"%{reg}"
                else:
                    text = getattr(v, "text", _MISSING)
                    if text is _MISSING:
                        text = str(v)
                inc.append((text, index.get(pb, -1)))
            row.append((ins, b.reg_of(ins), b.phi_divergent(ins), inc))
        phis.append(row)
    return FunctionDAGs(fn, dags, b.vreg, phis, b.ua)
