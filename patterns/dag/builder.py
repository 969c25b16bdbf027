"""The mini SelectionDAG: nodes with value types and divergence bits, built per block from IR.

One ``SelectionDAG`` per basic block, as LLVM's SelectionDAGBuilder makes it:

- every IR instruction of the block becomes an ISD-style node (``ISD::ADD``, ``ISD::SETCC``,
  ``ISD::Constant``, ``ISD::LOAD``, ``ISD::INTRINSIC_WO_CHAIN`` ...); values defined in
  another block, phis and function arguments enter through ``ISD::CopyFromReg`` of the
  value's virtual register; values used in another block (or by a phi) leave through
  ``ISD::CopyToReg``. Calls of intrinsics the target lowers (``Target.lowerings``) become
  the target SDNode directly -- the mapping the generated ``LowerINTRINSIC_WO_CHAIN``
  encodes -- and the generic math intrinsics become their ISD nodes (``llvm.ctpop`` ->
  ``ISD::CTPOP`` ...).
- the divergence bit of a node is computed as ``SelectionDAG::createOperands`` does: the
  OR of its non-chain operands' bits, OR'ed with "source of divergence" (a CopyFromReg of a
  vreg whose IR value the uniformity analysis calls divergent; an intrinsic the target
  names as a source), and cleared for always-uniform nodes (constants, intrinsics the
  target calls always uniform).

Before building, the IR is prepared as llc's IR passes leave it where that changes what
the DAG sees: when combining, ``build_function_dags`` first has ``patterns.llc.irpasses``
rewrite the function in place as the llc IR passes it models leave it; then common subexpressions in dominating positions are merged (EarlyCSE,
``common_subexpressions``), instructions whose results nothing with a side effect uses
are dropped (``live_instructions``) except the dead ones llc has not deleted yet when
Sink runs (``_llc_survivors``: EarlyCSE erases only what is dead when its walk reaches it;
their uses pin and export values, and a dead value another block reads is selected), and
pure instructions are moved to the block where their uses are, as llc's Sink pass does
(``sink_placement``). Blocks are built and combined in reverse post-order;
a value the combines fold to a constant or to another value, or find uniform, is seen
that way by the blocks that read it (llc's InstSimplify runs before its uniformity
analysis), and a phi divergent only through its incoming values is recomputed from them.
The known leading zero bits of each exported i32 value, computed after its block's
combines, are recorded per function (``_Builder.live_lz``; the exporting node is kept
and counted when a rule first asks) and carried by the CopyFromRegs that read it
(``SDNode.klz``, see ``patterns.dag.combine._known_lz``), a phi taking the minimum over its incoming
values (0 for a value not built yet, e.g. over a back edge): llc's FunctionLoweringInfo
LiveOutRegInfo / ComputePHILiveOutRegInfo, seen by its combines as an AssertZext. Their
sign bits (SelectionDAG::ComputeNumSignBits at the export) are recorded the same way
(``_Builder.live_sb``, ``SDNode.ksb``): a value with no known leading zero but more than
one sign bit is read through an AssertSext, which ComputeNumSignBits answers (the phi
taking the minimum again). A value with all 32 bits known zero is read as the constant 0 instead (RegsForValue::
getCopyFromRegs), and the binary ops built on it get SelectionDAG::getNode's folds
(``_get_node_folds``: ``x ^ 0`` is ``x`` before any combine runs).

Nodes are kept in creation order, which is a topological order (operands first); the
selector walks them backwards. Node ids ``t0, t1, ...`` are per block and stable.

The builder runs those three prepasses fused (``_prepare``; the separate functions are
the reference the tests compare it with, and serve the other ``dce`` modes): one
dominator-tree numbering, one walk over the instructions for CSE, one marking walk from
the side effects that also records the uses Sink needs, and Sink sweeps that evaluate only
values with no user in their own block. Few passes and few function-sized maps keep the
cost per instruction close to flat as kernels grow past the CPU caches. Operands are told
apart by their class (cached per class) before any dictionary lookup, so constants are
never hashed; a constant operand's value is looked up by its text per type. The IR
passes and the prepasses share one dominator tree (``shared_dominators``). A block's
nodes are made directly (``_mk``; helpers made once per function, ``block_builder``),
and its map of constant nodes is kept for the combines (``take_constants``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

# (``reversed`` through a name mypyc does not know: mypyc 2.4 stops with an internal
# error on ``for x in reversed(lst)`` over an untyped list in a compiled build)
_rev: Final[Any] = reversed

from tdgen.errors import ParseError, VerifyError, expected

from patterns.ir.function import Function, Instruction

__all__ = ["SDNode", "SelectionDAG", "build_function_dags", "ISD_OF_BINOP", "CONDCODES", "vt_of"]

# IR binary opcode -> ISD opcode
ISD_OF_BINOP: Final = {
    "add": "ISD::ADD", "sub": "ISD::SUB", "mul": "ISD::MUL", "and": "ISD::AND",
    "or": "ISD::OR", "xor": "ISD::XOR", "shl": "ISD::SHL", "lshr": "ISD::SRL",
    "ashr": "ISD::SRA", "udiv": "ISD::UDIV", "sdiv": "ISD::SDIV", "urem": "ISD::UREM",
    "srem": "ISD::SREM",
}
ISD_OF_CAST: Final = {"zext": "ISD::ZERO_EXTEND", "sext": "ISD::SIGN_EXTEND", "trunc": "ISD::TRUNCATE",
                      "bitcast": "ISD::BITCAST", "freeze": "ISD::FREEZE"}
CONDCODES: Final = {"eq": "SETEQ", "ne": "SETNE", "slt": "SETLT", "sle": "SETLE", "sgt": "SETGT",
                    "sge": "SETGE", "ult": "SETULT", "ule": "SETULE", "ugt": "SETUGT", "uge": "SETUGE"}
# Generic LLVM intrinsics that become plain ISD nodes (name prefix -> opcode).
ISD_OF_INTRINSIC: Final = {
    "llvm.ctpop": "ISD::CTPOP", "llvm.bitreverse": "ISD::BITREVERSE", "llvm.bswap": "ISD::BSWAP",
    "llvm.smin": "ISD::SMIN", "llvm.smax": "ISD::SMAX", "llvm.umin": "ISD::UMIN",
    "llvm.umax": "ISD::UMAX", "llvm.abs": "ISD::ABS",
    "llvm.ctlz": "ISD::CTLZ", "llvm.cttz": "ISD::CTTZ",
}
COMMUTATIVE: Final = frozenset({"ISD::ADD", "ISD::MUL", "ISD::AND", "ISD::OR", "ISD::XOR",
                                "ISD::SMIN", "ISD::SMAX", "ISD::UMIN", "ISD::UMAX"})

GLUE_OPCODES: Final = frozenset({"ISD::EntryToken", "ISD::CopyFromReg", "ISD::CopyToReg", "ISD::TokenFactor",
                                 "ISD::Register", "ISD::BR", "ISD::BRCOND", "ISD::RET", "ISD::PHI_USE",
                                 "ISD::LOAD", "ISD::STORE", "ISD::Constant", "ISD::PTRADD", "ISD::SETCC",
                                 "ISD::BITCAST", "ISD::FREEZE", "ISD::UNDEF", "ISD::ZERO_EXTEND",
                                 "ISD::SIGN_EXTEND", "ISD::TRUNCATE", "ISD::SELECT", "ISD::CALL",
                                 "ISD::VALUETYPE"})


def vt_of(ty) -> str:
    """LLVM MVT name of an IR type (``i32``, ``i1``, ``f32``, ``v2i32``, ``iPTR``)."""
    cls = type(ty).__name__
    if cls == "IntType":
        return f"i{ty.bits}"
    if cls == "PtrType":
        return "i64" if getattr(ty, "addrspace", 0) in (0, 1, 4) else "i32"
    if cls == "FloatType":
        return {"half": "f16", "bfloat": "bf16", "float": "f32", "double": "f64"}.get(ty.name, ty.name)
    if cls == "VectorType":
        return f"v{ty.count}{vt_of(ty.elem)}"
    if cls == "VoidType":
        return "isVoid"
    return str(ty)


class SDNode:
    """A DAG node. One result (``vt``); chain operands are kept apart in ``chain``."""

    __slots__ = ("id", "opcode", "vt", "ops", "divergent", "value", "cc", "ir", "uses",
                 "source", "chain", "intrinsic", "reg", "block", "target_op",
                 "mark", "users", "wlix", "kbc", "klz", "ksb")
    # (the fields the hot code reads, typed: a compiled build reads them natively)
    id: int
    opcode: str
    vt: str
    ops: list[SDNode]
    divergent: bool
    uses: int
    mark: int
    wlix: int
    kbc: dict | None

    def __init__(self, id, opcode, vt, ops=(), value=None, cc=None, ir=None, intrinsic=None,
                 reg=None, block=None, target_op=None):
        # (``_mk`` below sets the same fields for the DAG builder: keep the two in step;
        # tests/test_sdag_prepass.py compares them)
        self.id = id
        self.opcode = opcode
        self.vt = vt
        self.ops = list(ops)
        self.divergent = False
        self.value = value        # ISD::Constant value
        self.cc = cc              # ISD::SETCC condition code (SETLT ...)
        self.ir = ir              # the IR value this node computes (or None)
        self.uses = 0             # number of non-chain users
        self.source = None        # why divergent when it is a source: text
        self.chain = None         # chain predecessor (ordering only, not a divergence input)
        self.intrinsic = intrinsic
        self.reg = reg            # vreg name for CopyFromReg/CopyToReg
        self.block = block
        self.target_op = target_op  # TableGen SDNode name for target nodes
        # scratch fields of patterns.dag.combine while it runs on the block: DFS mark of the
        # re-sort, users (user -> number of uses), worklist index, known-bits memo
        self.mark = 0
        self.users = None
        self.wlix = -1
        self.kbc = None
        # known leading zero bits of a CopyFromReg's value, from the block that computed
        # it (llc's FunctionLoweringInfo::LiveOutRegInfo, an AssertZext on the copy): an
        # int, or the exporting node of that (finished) block until first asked
        self.klz = 0
        # and its sign bits, the same way (an AssertSext on the copy when klz is 0)
        self.ksb = 1

    @property
    def name(self) -> str:
        return f"t{self.id}"

    def label(self) -> str:
        """Short description for messages: ``t12: i32 = ISD::XOR t9, t10 [divergent]``."""
        extra = ""
        if self.opcode == "ISD::Constant":
            extra = f"<{self.value}>"
        elif self.opcode == "ISD::VALUETYPE":
            return f"{self.name}: OtherVT = ISD::VALUETYPE<{self.vt}> [uniform]"
        elif self.opcode == "ISD::SETCC":
            extra = f" {self.cc}"
        elif self.reg is not None:
            extra = f" %{self.reg}"
        ops = ", ".join(o.name for o in self.ops)
        div = "divergent" if self.divergent else "uniform"
        return f"{self.name}: {self.vt} = {self.opcode}{extra} {ops}".rstrip() + f" [{div}]"

    def ir_name(self) -> str | None:
        v = self.ir
        if v is None:
            return None
        n = getattr(v, "name", None)
        return f"%{n}" if n is not None else None

    def __repr__(self) -> str:
        return f"<{self.label()}>"


# SDNode's fields (its ``__slots__``; a compiled build's native class has no such attribute)
NODE_FIELDS: Final = ("id", "opcode", "vt", "ops", "divergent", "value", "cc", "ir", "uses",
                      "source", "chain", "intrinsic", "reg", "block", "target_op",
                      "mark", "users", "wlix", "kbc", "klz", "ksb")


def _blank_native(cls) -> SDNode:
    return SDNode(0, "", "")


# A node whose every field the caller sets: made without running ``__init__`` as plain
# Python; a compiled build's SDNode is a native class, which ``object.__new__`` cannot
# make, and constructing one there costs less than the call it saves.
_new_node: Final[Any] = object.__new__ if SDNode.__new__ is object.__new__ else _blank_native


def _mk(id, opcode, vt, ops, ir, block) -> SDNode:
    """``SDNode(id, opcode, vt, ops, ir=ir, block=block)`` for the DAG builder, which
    passes a new list ``ops`` (kept, not copied) and sets any other field itself."""
    n: SDNode = _new_node(SDNode)
    n.id = id
    n.opcode = opcode
    n.vt = vt
    n.ops = ops
    n.divergent = False
    n.value = None
    n.cc = None
    n.ir = ir
    n.uses = 0
    n.source = None
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
    return n


def value_type_node(block, vt: str) -> SDNode:
    """LLVM's VTSDNode: an operand that is a value type, not a value (the width of
    ``sign_extend_inreg``). ``vt`` holds the type it carries (VTSDNode::getVT), which is
    what a value-type leaf of a source pattern checks; it is a uniform constant."""
    n = SDNode(-1, "ISD::VALUETYPE", vt, (), block=block)
    n.source = "uniform"
    return n


class SelectionDAG:
    """The nodes of one basic block in creation (topological) order."""

    def __init__(self, block):
        self.block = block
        self.nodes: list[SDNode] = []
        self.roots: list[SDNode] = []  # CopyToReg / STORE / branch / RET: selected even when unused
        # the builder's map (value, vt) -> the block's ISD::Constant node of that integer
        # value, for the combines (take_constants): (node count then, map), or None
        self.constants: tuple | None = None

    def take_constants(self) -> dict | None:
        """The ``(value, vt) -> ISD::Constant node`` map of every integer constant node,
        as the builder left it (``patterns.dag.combine`` takes it instead of scanning the
        nodes), once: None afterwards, when the DAG was not made by the builder, or when
        nodes were added since."""
        c = self.constants
        self.constants = None
        return c[1] if c is not None and c[0] == len(self.nodes) else None

    def node(self, opcode, vt, ops=(), value=None, cc=None, ir=None, intrinsic=None, reg=None,
             target_op=None) -> SDNode:
        nodes = self.nodes
        n = _mk(len(nodes), opcode, vt, list(ops), ir, self.block)  # (SDNode(...), without its defaults)
        n.value = value
        n.cc = cc
        n.intrinsic = intrinsic
        n.reg = reg
        n.target_op = target_op
        for o in n.ops:
            o.uses += 1
        nodes.append(n)
        return n

    def recompute_divergence(self, n: SDNode) -> None:
        n.divergent = n.source is not None and n.source != "uniform" or (
            n.source is None and any(o.divergent for o in n.ops))


def _is_const(v) -> bool:
    return type(v).__name__ == "Constant"


def _const_int(v) -> int | None:
    t = getattr(v, "text", None)
    if t is None:
        return None
    if t == "true":
        return -1 if vt_of(v.type) == "i1" else 1
    if t in ("false", "null", "zeroinitializer"):
        return 0
    try:
        return int(t, 0)
    except ValueError:
        return None


_INT_BITS: Final[dict] = {}


_GETNODE_FOLD: Final = {
    "ISD::ADD": lambda a, b: a + b, "ISD::SUB": lambda a, b: a - b, "ISD::MUL": lambda a, b: a * b,
    "ISD::AND": lambda a, b: a & b, "ISD::OR": lambda a, b: a | b, "ISD::XOR": lambda a, b: a ^ b,
    "ISD::SHL": lambda a, b: a << b, "ISD::SRL": lambda a, b: (a & 0xFFFFFFFF) >> b, "ISD::SRA": lambda a, b: a >> b,
}


def _get_node_folds(isd: str, vt, a, b, const):
    """The folds SelectionDAG::getNode makes while the builder makes ``isd a, b`` with a
    constant left operand or a constant 0 right one (FoldConstantArithmetic, a constant
    moved to the right of a commutative op, ``x +|-|'|'|^ 0``, ``x & 0``, shifts of and
    by 0): (the existing or constant node it returns or None, the operands for a new
    node)."""
    ac = a.opcode == "ISD::Constant" and type(a.value) is int
    bc = b.opcode == "ISD::Constant" and type(b.value) is int
    if ac and bc:
        f = _GETNODE_FOLD.get(isd)
        if f is not None and vt == "i32" and (isd not in _SHIFT_OPS or 0 <= b.value & 0xFFFFFFFF < 32):
            return const(f(a.value, b.value & 0xFFFFFFFF if isd in _SHIFT_OPS else b.value), vt), a, b
        return None, a, b
    if ac and isd in COMMUTATIVE:
        a, b, ac, bc = b, a, False, True
    if bc and b.value == 0:
        if isd == "ISD::AND":
            return b, a, b
        if isd in ("ISD::ADD", "ISD::SUB", "ISD::OR", "ISD::XOR") or isd in _SHIFT_OPS:
            return a, a, b
    elif ac and a.value == 0 and isd in _SHIFT_OPS:
        return a, a, b
    return None, a, b


_SHIFT_OPS: Final = frozenset({"ISD::SHL", "ISD::SRL", "ISD::SRA"})


def _wrap(value: int, vt: str) -> int:
    """Sign-normalize ``value`` to the width of ``vt`` (as APInt::getSExtValue prints)."""
    bits = _INT_BITS.get(vt)
    if bits is not None:  # an integer type seen before (the width cached)
        value &= (1 << bits) - 1
        if value >> (bits - 1):
            value -= 1 << bits
        return value
    if vt.startswith("i") and vt[1:].isdigit() and int(vt[1:]) > 0:
        _INT_BITS[vt] = int(vt[1:])
        return _wrap(value, vt)
    if vt.startswith("i") and vt[1:].isdigit():
        bits = int(vt[1:])
        value &= (1 << bits) - 1
        if value >> (bits - 1):
            value -= 1 << bits
    return value


_SIDE_EFFECTS: Final = frozenset({"store", "br", "ret", "switch", "unreachable", "atomicrmw", "cmpxchg", "fence"})


_CSE_OPS: Final = frozenset(ISD_OF_BINOP) | {"icmp", "select", "zext", "sext", "trunc", "getelementptr", "freeze"}
_COMMUTATIVE_IR: Final = frozenset({"add", "mul", "and", "or", "xor"})


def _class_is(cls, name: str, cache: dict) -> bool:
    """``type(v).__name__ == name`` with the answer cached per class (the IR classes are few)."""
    hit: Any
    hit = cache.get(cls)
    if hit is None:
        hit = cache[cls] = cls.__name__ == name
    return hit


_CONSTANT_CLASS: Final[dict] = {}  # IR class -> is it the Constant class (see _class_is)


def _cse_key(v, rep, is_const: dict, type_text: dict):
    """EarlyCSE's key of operand ``v``: ``(0, text, type text)`` for a constant, else
    ``(1, id of its representative, "")`` (only instructions have representatives). The
    class test is cached in ``is_const``, a type's text per type object in ``type_text``."""
    c: Any
    cls = type(v)
    c = is_const.get(cls)
    if c is None:
        c = _class_is(cls, "Constant", is_const)
    if c:
        t = v.type
        tt = type_text.get(id(t))
        if tt is None:
            tt = type_text[id(t)] = (t, str(t))
        return (0, v.text, tt[1])
    return (1, id(rep.get(v, v)), "")


# [(function, its CFG as _cfg_shape saw it, its idom)] while build_function_dags runs
_SHARED_IDOM: Final[list] = []


def _cfg_shape(fn: Function) -> list:
    """The blocks' successor lists, copied: equal while the CFG is unchanged."""
    return [tuple(b.successors) for b in fn.blocks]


class shared_dominators:
    """``with shared_dominators(fn):`` -- inside, ``immediate_dominators(fn)`` returns the
    one built on entry as long as the CFG is unchanged (the IR passes and the prepasses
    of ``build_function_dags`` ask for it in turn)."""

    def __init__(self, fn):
        self.fn = fn

    def __enter__(self):
        fn = self.fn
        if fn.blocks:
            _SHARED_IDOM.append((fn, _cfg_shape(fn), immediate_dominators(fn)))
            self.pushed = True
        else:
            self.pushed = False
        return self

    def __exit__(self, *exc) -> None:
        if self.pushed:
            _SHARED_IDOM.pop()


def immediate_dominators(fn: Function) -> dict:
    """Block -> immediate dominator for the blocks reachable from the entry (the entry
    maps to itself), from the dominator tree the uniformity analysis uses. While
    ``build_function_dags`` works on ``fn`` (the IR passes of ``patterns.llc.irpasses`` ask
    for it too), the one it built is returned as long as the CFG is the same, so the
    tree is built once. Callers must not change the dictionary."""
    shared = _SHARED_IDOM
    if shared and shared[-1][0] is fn and shared[-1][1] == _cfg_shape(fn):
        return shared[-1][2]
    from patterns.ir.cycles import DomTree

    entry = fn.blocks[0]
    tree = DomTree(entry, lambda b: b.successors)
    idom: dict = {entry: entry}
    for b in fn.blocks:
        p = tree.parent(b)
        if p is not None:
            idom[b] = p
    return idom


def common_subexpressions(fn, idom: dict | None = None) -> dict:
    """EarlyCSE as llc runs it: an instruction equal to one in a dominating position (same
    opcode, type, predicate and operands, commutative operands in either order) is
    replaced by it. Returns instruction -> its representative."""
    kx: Any
    ky: Any
    okeys: Any
    hit: Any
    if not fn.blocks:
        return {}
    if idom is None:
        idom = immediate_dominators(fn)
    children: dict = {}
    for b in fn.blocks:  # source order keeps the walk deterministic
        p = idom.get(b)
        if p is not None and p is not b:
            children.setdefault(p, []).append(b)
    rep: dict = {}
    table: dict = {}
    undo: list = []
    # Operand keys from _cse_key; in an instruction's key its type is replaced by the id of
    # the first equal type seen (so key equality is type equality without hashing a
    # dataclass per instruction).
    is_const = _CONSTANT_CLASS
    type_text: dict = {}
    type_canon: dict = {}
    canon: dict = {}
    cse_ops = _CSE_OPS
    commutative = _COMMUTATIVE_IR
    # iterative preorder walk with scoped table: ("enter", block) / ("leave", marker)
    work = [("enter", fn.blocks[0])]
    while work:
        kind, item = work.pop()
        if kind == "leave":
            while len(undo) > item:
                table.pop(undo.pop(), None)
            continue
        b = item
        work.append(("leave", len(undo)))
        for ins in b.instructions:
            opc = ins.opcode
            if opc not in cse_ops or ins.name is None:
                continue
            operands = ins.operands
            if len(operands) == 2:
                # two operands (most instructions): both keys at once, without a list
                x, y = operands
                if is_const.get(type(x)) is False:
                    kx = (1, id(rep.get(x, x)), "")
                else:
                    kx = _cse_key(x, rep, is_const, type_text)
                if is_const.get(type(y)) is False:
                    ky = (1, id(rep.get(y, y)), "")
                else:
                    ky = _cse_key(y, rep, is_const, type_text)
                if opc in commutative and ky < kx:
                    kx, ky = ky, kx
                okeys = (kx, ky)
            else:
                ops = [_cse_key(v, rep, is_const, type_text) for v in operands]
                if opc in commutative and ops[1] < ops[0]:
                    ops[0], ops[1] = ops[1], ops[0]
                okeys = tuple(ops)
            t = ins.type
            tc = type_canon.get(id(t))
            if tc is None:
                tc = type_canon[id(t)] = (t, id(canon.setdefault(t, t)))
            key = (opc, tc[1], ins.predicate, okeys, ins.flags)
            hit = table.get(key)
            if hit is not None:
                if not ins.cgp_copy:  # (see irpasses.sink_extract_bits)
                    rep[ins] = hit
            else:
                table[key] = ins
                undo.append(key)
        for c in _rev(children.get(b, [])):
            work.append(("enter", c))
    return rep


def live_instructions(fn, mode: str = "trivial", rep: dict | None = None) -> set:
    """Instructions that survive llc's IR-level dead-code removal.

    ``"aggressive"`` (what the DAG builder uses): only what a side effect (store, branch,
    return, call, volatile load) transitively needs, dead phi cycles included -- llc's
    EarlyCSE deletes unused instructions and LSR deletes dead loop phis, and none of
    them reaches instruction selection. ``"trivial"``: repeatedly drop instructions
    without users and without side effects (dead phi cycles stay). ``"all"``: keep
    everything. ``rep`` maps CSE'd instructions to their representatives."""
    insts = [i for b in fn.blocks for i in b.instructions]
    if mode == "all":
        return set(insts)
    users: dict = dict.fromkeys(insts, 0)

    rep = rep or {}

    def ops_of(i):
        v: Any
        if i.opcode == "phi":
            return [rep.get(v, v) for v, _b in i.incoming]
        return [rep.get(v, v) for v in i.operands]

    if mode == "aggressive":
        # Only instructions of ``fn`` can be in ``users`` (and only they are keys of
        # ``rep``): other operands (constants, arguments) are skipped by their class.
        inst_classes = {type(i) for i in insts}
        live = set()
        side, maybe = _SIDE_EFFECTS, ("call", "load")  # (_has_side_effect answers False for the rest)
        work = [i for i in insts if i.opcode in side or i.opcode in maybe and _has_side_effect(i)]
        while work:
            i = work.pop()
            if i in live:
                continue
            live.add(i)
            for v in (i.operands if i.opcode != "phi" else [v for v, _b in i.incoming]):
                if type(v) in inst_classes:
                    v = rep.get(v, v)
                    if v in users and v not in live:
                        work.append(v)
        return live

    for i in insts:
        for v in ops_of(i):
            if v in users:
                users[v] += 1
    live = set(insts)
    work = [i for i in insts if users[i] == 0 and not _has_side_effect(i)]
    while work:
        i = work.pop()
        if i not in live:
            continue
        live.discard(i)
        for v in ops_of(i):
            if v in users and v in live:
                users[v] -= 1
                if users[v] == 0 and not _has_side_effect(v):
                    work.append(v)
    return live


def _has_side_effect(i) -> bool:
    if i.opcode in _SIDE_EFFECTS:
        return True
    if i.opcode == "call":
        callee = i.callee or ""
        if not callee.startswith("llvm."):
            return True
        return str(i.type) == "void"
    if i.opcode == "load" and getattr(i, "volatile", False):
        return True
    return False


_SINKABLE: Final = frozenset(ISD_OF_BINOP) | frozenset(ISD_OF_CAST) | {"icmp", "select", "getelementptr"}


def _sinkable_call(ins) -> bool:
    """A call Sink may move: one of the integer intrinsics without memory effects that
    are not convergent (patterns.llc.irpasses._PURE_INTRINSICS: ctpop, ctlz, umin ...)."""
    from patterns.ir.effects import pure_intrinsic

    return pure_intrinsic(ins) is not None


def sink_placement(fn, live: set, rep: dict | None = None) -> dict:
    """See ``_sink``: block -> its instructions in order."""
    return _sink(fn, live, rep)[0]


class _SinkTree:
    """What Sink's choice of a target block reads, shared by ``_sink`` and ``_prepare``:
    the dominator tree (``idom``; ``pre``/``post``, the DFS intervals of the reachable
    blocks in it, a dominating b iff b's interval nests in a's; ``depth``), each block's
    innermost natural loop (``loop_of``: back edge t -> h with h dominating t; the
    header of the smallest body holding the block) and ``through``: the blocks
    CodeGenPrepare deletes before Sink runs (nothing but an unconditional branch), so
    that a phi use through one counts in its predecessor. Modeled for a block with one
    predecessor that is not also a predecessor of the successor (no phi conflict), not
    the entry, not a loop preheader (CodeGenPrepare keeps those when deleting them makes
    a critical edge)."""

    __slots__ = ("idom", "pre", "post", "depth", "loop_of", "through", "bodies")

    def __init__(self, idom: dict, pre: dict, post: dict, depth: dict, blocks: list) -> None:
        self.idom, self.pre, self.post, self.depth = idom, pre, post, depth
        bodies: dict = {}
        for b in blocks:
            if b not in pre:
                continue
            for h in b.successors:
                if h in pre and pre[h] <= pre[b] and post[b] <= post[h]:
                    body = bodies.get(h)
                    if body is None:
                        body = bodies[h] = {h}
                    stack = [b]
                    while stack:
                        x = stack.pop()
                        if x in body:
                            continue
                        body.add(x)
                        stack.extend(p for p in x.predecessors if p in pre)
        self.bodies = bodies  # loop header -> the blocks of its natural loop
        loop_of: dict = {}
        self.loop_of = loop_of
        for h in sorted(bodies, key=lambda h: len(bodies[h]), reverse=True):
            for x in bodies[h]:
                loop_of[x] = h  # smaller bodies overwrite: innermost wins
        through: dict = {}
        self.through = through
        for b in blocks[1:]:
            insts = b.instructions
            if len(insts) != 1 or insts[0].opcode != "br" or len(b.successors) != 1:
                continue
            d = b.successors[0]
            preds = list(dict.fromkeys(b.predecessors))
            if d is b or len(preds) != 1 or preds[0] in d.predecessors:
                continue
            if d in bodies and len(preds[0].successors) != 1:
                continue
            through[b] = preds[0]

    def dominates(self, a, b) -> bool:
        pre, post = self.pre, self.post
        return pre[a] <= pre[b] and post[b] <= post[a]

    def nca(self, a, b):
        """The nearest common dominator of two reachable blocks."""
        pre, post, depth, idom = self.pre, self.post, self.depth, self.idom
        if pre[a] <= pre[b] and post[b] <= post[a]:
            return a
        if pre[b] <= pre[a] and post[a] <= post[b]:
            return b
        while depth[a] > depth[b]:
            a = idom[a]
        while depth[b] > depth[a]:
            b = idom[b]
        while a is not b:
            a, b = idom[a], idom[b]
        return a

    def acceptable(self, bb, succ) -> bool:
        """Sink's IsAcceptableTarget for a block dominated by ``bb``: its unique
        successor, or a block it dominates in the same loop."""
        preds = succ.predecessors
        if not (len(set(preds)) == 1 and preds[0] is bb):
            if not self.dominates(bb, succ):
                return False
            loop_of = self.loop_of
            if loop_of.get(succ) is not None and loop_of.get(succ) is not loop_of.get(bb):
                return False
        return True

    def target(self, bb, user_blocks, phi_blocks):
        """Where Sink moves an instruction of ``bb`` whose users sit in ``user_blocks``
        (non-phi uses) and ``phi_blocks`` (the incoming blocks of its phi uses), or None:
        the nearest common dominator of those blocks, visited in any order -- it only
        climbs, so once ``bb`` does not dominate it, it never will -- then up the
        dominator tree until acceptable."""
        pre, post = self.pre, self.post
        to = tp = tq = None  # (the candidate and its dominator-tree interval)
        bp = bq = None
        for group in (user_blocks, phi_blocks):
            for ub in group:
                if ub is bb:
                    # the common dominator of bb and anything is bb or above it, which
                    # either ends as bb or fails the dominance test: no move
                    return None
                p = pre.get(ub)
                if p is None:
                    continue
                q = post[ub]
                if to is None:
                    to, tp, tq = ub, p, q
                    bp, bq = pre[bb], post[bb]
                elif tp <= p and q <= tq:  # (self.nca written out where one dominates the other)
                    pass
                elif p <= tp and tq <= q:
                    to, tp, tq = ub, p, q
                else:
                    to = self.nca(to, ub)
                    tp, tq = pre[to], post[to]
                if not (bp <= tp and tq <= bq):  # (self.dominates(bb, to))
                    return None
        if to is None:
            return None
        idom = self.idom
        while to is not bb and not self.acceptable(bb, to):
            to = idom[to]
        return None if to is bb else to


def _sink(fn, live: set, rep: dict | None = None, idom: dict | None = None, *,
          incremental: bool = True) -> tuple[dict, dict]:
    """Where llc's IR "Code sinking" pass (Sink.cpp, run late in llc's IR pipeline) leaves
    each live instruction: block -> its instructions in order.

    The pass, as LLVM 19 runs it: repeat until nothing moves: for every block in function
    order, walk its instructions bottom-up; an instruction free of side effects (here the
    pure ALU ops, compares, selects, casts, GEPs and calls of the integer intrinsics
    without memory effects -- loads and other calls are not moved)
    goes to the nearest common dominator of its uses (a phi use counts in the incoming
    block) when that block is dominated by the instruction's block; a candidate that is
    not the block's own unique successor must be dominated by it and must not lie in
    another loop (else its immediate dominator is tried, up to the instruction's block).
    A moved instruction is put at the top of the target block (after the phis). This
    changes what one block's DAG sees: e.g. an add whose only user sits after a loop is
    selected next to that user (and may fold into v_add3_u32 there).

    Returns (block -> instructions, instruction -> block). ``idom`` is
    ``immediate_dominators(fn)`` when the caller has it. ``incremental=False``
    re-evaluates every instruction in every sweep (the literal pass; same answer, slower:
    the tests compare the two)."""
    v: Any
    rep = rep or {}
    blocks = list(fn.blocks)
    place = {b: [i for i in b.instructions if i in live] for b in blocks}
    if len(blocks) < 2:
        return place, {i: b for b in blocks for i in place[b]}
    entry = blocks[0]
    if idom is None:
        idom = immediate_dominators(fn)
    reach = set(idom)
    depth: dict = {}
    depth[entry] = 0
    for b in blocks:  # idom chain lengths (memoized: each block's depth is its idom's + 1)
        if b not in reach or b in depth:
            continue
        chain: list = []
        x = b
        while x not in depth:
            chain.append(x)
            x = idom[x]
        d = depth[x]
        for y in chain[::-1]:
            d += 1
            depth[y] = d

    kids: dict = {}
    for b in blocks:
        if b in reach and b is not entry:
            kids.setdefault(idom[b], []).append(b)
    pre: dict = {}
    post: dict = {}
    clock = 0
    work = [(entry, False)]
    while work:  # dominator-tree DFS numbering: a dominates b iff b's interval nests in a's
        x, done = work.pop()
        if done:
            post[x] = clock
            clock += 1
            continue
        pre[x] = clock
        clock += 1
        work.append((x, True))
        work.extend((k, False) for k in kids.get(x, ()))

    tree = _SinkTree(idom, pre, post, depth, blocks)
    through = tree.through
    home = {i: b for b in blocks for i in place[b]}
    # users of each placed instruction: the instructions using it (``iusers``) and the
    # incoming blocks of the phis using it (``pusers``). Only instructions are keys of
    # ``rep``: other operands (constants, arguments) are skipped by their class.
    inst_classes = {type(i) for i in home}
    iusers: dict = {}
    pusers: dict = {}
    for b in blocks:
        for u in place[b]:
            if u.opcode == "phi":
                for v, pb in u.incoming:
                    if type(v) not in inst_classes:
                        continue
                    v = rep.get(v, v)
                    if v in home:
                        while pb in through:
                            pb = through[pb]
                        us = pusers.get(v)
                        if us is None:
                            pusers[v] = [pb]
                        else:
                            us.append(pb)
            else:
                for v in u.operands:
                    if type(v) not in inst_classes:
                        continue
                    v = rep.get(v, v)
                    us = iusers.get(v)
                    if us is None:
                        if v in home:
                            iusers[v] = [u]
                    else:
                        us.append(u)

    def target(ins):
        return tree.target(home[ins], (home[u] for u in iusers.get(ins, ())), pusers.get(ins, ()))

    # The sweeps repeat until nothing moves. ``target(ins)`` depends only on where ``ins``
    # and its users are, so a sweep re-evaluates just the instructions whose own place or
    # a user's place changed since their last evaluation (``dirty``); the others would
    # stay put again. Sweep order is unchanged, so the result is the same as re-evaluating
    # everything.
    dirty = set(home)
    sinkable = _SINKABLE
    changed = True
    while changed:
        changed = False
        for b in blocks:
            if b not in reach:
                continue
            for ins in _rev(list(place[b])):
                if ins not in dirty and incremental:
                    continue
                dirty.discard(ins)
                if (ins.opcode not in sinkable and (ins.opcode != "call" or not _sinkable_call(ins))) \
                        or ins in rep:
                    continue
                us = iusers.get(ins)
                if us is not None and home[us[0]] is b:
                    continue  # a user in its own block: target() answers None
                to = target(ins)
                if to is None:
                    continue
                place[b].remove(ins)
                lst = place[to]
                k = 0
                while k < len(lst) and lst[k].opcode == "phi":
                    k += 1
                lst.insert(k, ins)
                home[ins] = to
                dirty.add(ins)
                for v in ins.operands:  # their users' places changed
                    if type(v) in inst_classes:
                        dirty.add(rep.get(v, v))
                changed = True
    return place, home



class _Prepared:
    """What the function-wide prepasses leave for the block builder (see ``_prepare``)."""

    __slots__ = ("rep", "live", "placed", "moved", "used_outside")

    def __init__(self, rep, live, placed, moved, used_outside):
        self.rep = rep                    # CSE'd instruction -> its representative
        self.live = live                  # instructions that survive dead-code removal
        self.placed = placed              # block -> its live instructions in order, after Sink
        self.moved = moved                # instruction Sink moved -> its new block
        self.used_outside = used_outside  # values read outside their final block or by a phi


_MISSING: Final[Any] = object()
_EMPTY: Final[frozenset] = frozenset()
_KINDS: Final[dict] = {}  # IR value class -> "I" instruction, "A" argument, "C" constant, "O" other


def _kind(cls) -> str:
    k = _KINDS.get(cls)
    if k is None:
        k = _KINDS[cls] = {"Instruction": "I", "Argument": "A", "Constant": "C"}.get(cls.__name__, "O")
    return k


def _cse_operand_key(v, rep: dict, type_text: dict):
    """An operand's part of a CSE key (``_prepare``): an instruction's representative or
    an argument itself (both compare by identity), ``(text, type text)`` for a constant,
    the ``id`` of anything else (globals compare by identity, as in ``_cse_key``)."""
    k = _KINDS.get(type(v)) or _kind(type(v))
    if k == "I":
        return rep.get(v, v)
    if k == "A":
        return v
    if k == "C":
        t = v.type
        tt = type_text.get(id(t))
        if tt is None:
            tt = type_text[id(t)] = (t, str(t))
        return (v.text, tt[1])
    return id(v)


def _cse_swapped(x, y) -> bool:
    """Whether the operand keys ``x, y`` of a commutative instruction go in the other
    order: constants first (by text), then everything else by identity. Any fixed order
    does; EarlyCSE only needs ``a op b`` and ``b op a`` to get one key."""
    tx = type(x) is tuple
    ty = type(y) is tuple
    if tx or ty:
        return y < x if tx and ty else ty
    return (x if type(x) is int else id(x)) > (y if type(y) is int else id(y))


def _prepare(fn: Function) -> _Prepared:
    """EarlyCSE, aggressive dead-code removal and Sink in one go: the answers of
    ``common_subexpressions``, ``live_instructions(fn, "aggressive", rep)`` and ``_sink``
    (tests/test_sdag_prepass.py compares them), plus the values used outside their block.

    Those functions each walk every instruction and keep function-sized maps; at 50k
    instructions the maps and the instructions no longer fit the CPU caches, and every
    extra walk costs more per instruction than on a small kernel. Here:

    - one dominator-tree numbering serves the CSE walk (its preorder) and Sink's
      dominance tests. The CSE table is not scoped: an entry counts only when its block
      dominates the current one (in preorder, every block between an entry's block and
      the current one lies in the entry's subtree, so a dominating entry is never
      replaced and a non-dominating one is one a scoped table would have dropped);
    - the CSE walk collects the roots of dead-code removal, and the marking walk from
      them, which meets every live use once, records what Sink needs: per value the
      number of users in its own block (``local``), its other users (``iusers``, one
      entry per use) and the blocks of its phi uses (``pusers``; a phi use counted in the
      value's own block pins it for good);
    - a Sink sweep evaluates only candidates -- sinkable values with no user in their
      own block and not pinned -- since ``target`` answers None for every other value.
      Candidates are kept per block and visited bottom-up as the pass walks the block.
      A move updates its operands' counts; an operand whose answer may have changed
      becomes a candidate again (exactly those ``_sink`` marks dirty and can move);
    - only moved instructions get an entry (``moved``), and a block's list is copied
      only when something leaves or enters it or it holds dead instructions.

    An instruction's block is read from ``ins.block``, which the IR keeps equal to the
    block whose list holds it (passes that move instructions update both)."""
    hit: Instruction | None
    ins: Instruction
    i: Instruction
    w: Instruction
    v: Any
    x: Any
    y: Any
    key: Any
    blocks = fn.blocks
    rep: dict = {}
    live: set = set()
    if not blocks:
        return _Prepared(rep, live, {}, {}, set())
    entry = blocks[0]
    idom = immediate_dominators(fn)
    kids: dict = {}
    for b in blocks:  # in source order: the CSE walk visits children in it
        p = idom.get(b)
        if p is not None and p is not b:
            lst = kids.get(p)
            if lst is None:
                kids[p] = [b]
            else:
                lst.append(b)
    # dominator-tree DFS: preorder, intervals (a dominates b iff b's nests in a's), depths
    pre: dict = {}
    post: dict = {}
    depth: dict = {entry: 0}
    preorder = []
    clock = 0
    work: list = [(entry, False)]
    while work:
        x, done = work.pop()
        if done:
            post[x] = clock
            clock += 1
            continue
        pre[x] = clock
        clock += 1
        preorder.append(x)
        work.append((x, True))
        ks = kids.get(x)
        if ks:
            d = depth[x] + 1
            for k in _rev(ks):
                depth[k] = d
                work.append((k, False))

    # -- EarlyCSE and the roots of dead-code removal. An instruction's key is one flat
    # tuple (opcode, type, predicate, operand keys..., flags); its length tells the
    # operand count apart. Operand keys as in _cse_operand_key; the operands of a
    # commutative instruction are ordered as _cse_swapped orders them (two objects by
    # identity, written out for the common case).
    kinds = _KINDS
    table: dict = {}
    type_canon: dict = {}
    canon: dict = {}
    type_text: dict = {}
    cse_ops = _CSE_OPS
    commutative = _COMMUTATIVE_IR
    side = _SIDE_EFFECTS
    roots = []
    last_t = tcid = None  # (the type of the previous instruction and its canonical id)
    for b in preorder:
        insts: list = b.instructions
        for ins in insts:
            opc = ins.opcode
            if opc not in cse_ops or ins.name is None:
                if opc in side or (opc == "call" or opc == "load") and _has_side_effect(ins):
                    roots.append(ins)
                continue
            t = ins.type
            if t is not last_t:
                tc = type_canon.get(id(t))
                if tc is None:
                    tc = type_canon[id(t)] = (t, id(canon.setdefault(t, t)))
                last_t, tcid = t, tc[1]
            operands = ins.operands
            if len(operands) == 2:
                x, y = operands
                kx = kinds.get(type(x))
                if kx == "I":
                    x = rep.get(x, x)
                elif kx != "A":
                    x = _cse_operand_key(x, rep, type_text)
                    kx = None
                ky = kinds.get(type(y))
                if ky == "I":
                    y = rep.get(y, y)
                elif ky == "C" and kx is not None:
                    # (_cse_operand_key and _cse_swapped written out for the common
                    # ``x op constant``: a constant goes first)
                    ct = y.type
                    tt = type_text.get(id(ct))
                    if tt is None:
                        tt = type_text[id(ct)] = (ct, str(ct))
                    y = (y.text, tt[1])
                    if opc in commutative:
                        key = (opc, tcid, ins.predicate, y, x, ins.flags)
                    else:
                        key = (opc, tcid, ins.predicate, x, y, ins.flags)
                    hit = table.get(key)
                    if hit is not None:
                        hb = hit.block
                        if hb is b or pre[hb] <= pre[b] and post[b] <= post[hb]:
                            if not ins.cgp_copy:  # (see irpasses.sink_extract_bits)
                                rep[ins] = hit
                            continue
                    table[key] = ins
                    continue
                elif ky != "A":
                    y = _cse_operand_key(y, rep, type_text)
                    ky = None
                if opc in commutative and (id(x) > id(y) if kx is not None and ky is not None
                                           else _cse_swapped(x, y)):
                    key = (opc, tcid, ins.predicate, y, x, ins.flags)
                else:
                    key = (opc, tcid, ins.predicate, x, y, ins.flags)
            else:
                ks = [_cse_operand_key(v, rep, type_text) for v in operands]
                if opc in commutative and len(ks) >= 2 and _cse_swapped(ks[0], ks[1]):
                    ks[0], ks[1] = ks[1], ks[0]
                key = (opc, tcid, ins.predicate, *ks, ins.flags)
            hit = table.get(key)
            if hit is not None:
                hb = hit.block
                if hb is b or pre[hb] <= pre[b] and post[b] <= post[hb]:
                    if not ins.cgp_copy:
                        rep[ins] = hit
                    continue
            table[key] = ins
    for b in blocks:  # side effects in unreachable blocks are roots too
        if b not in pre:
            for ins in b.instructions:
                opc = ins.opcode
                if opc in side or (opc == "call" or opc == "load") and _has_side_effect(ins):
                    roots.append(ins)

    # -- natural loops and the blocks CodeGenPrepare folds away (as in _sink)
    tree = _SinkTree(idom, pre, post, depth, blocks)
    through = tree.through

    # -- dead-code removal (marking from the roots), recording the uses Sink needs
    local: dict = {}     # value -> number of non-phi uses in its own block
    iusers: dict = {}    # value -> the other non-phi users, one entry per use
    pusers: dict = {}    # value -> blocks its phi uses count in (not its own block)
    pinned: set = set()  # values with a phi use counted in their own block
    phi_args: set = set()
    stack = roots
    pop, push = stack.pop, stack.append
    while stack:
        i = pop()
        if i in live:
            continue
        live.add(i)
        if i.opcode == "phi":
            inc: list = i.incoming
            for v, pb in inc:
                k = kinds.get(type(v)) or _kind(type(v))
                if k != "I":
                    if k == "A":
                        phi_args.add(v)
                    continue
                w = rep.get(v, v)
                while pb in through:
                    pb = through[pb]
                if pb is w.block:
                    pinned.add(w)
                else:
                    lst = pusers.get(w)
                    if lst is None:
                        pusers[w] = [pb]
                    else:
                        lst.append(pb)
                if w not in live:
                    push(w)
            continue
        bi = i.block
        ic = type(i)  # (an operand of the same class is an instruction too)
        iops: list = i.operands
        for v in iops:
            if type(v) is not ic:
                k = kinds.get(type(v))
                if k != "I" and (k is not None or _kind(type(v)) != "I"):
                    continue
            w = rep.get(v, v)
            if w.block is bi:
                local[w] = local.get(w, 0) + 1
            else:
                lst = iusers.get(w)
                if lst is None:
                    iusers[w] = [i]
                else:
                    lst.append(i)
            if w not in live:
                push(w)

    # -- dead instructions llc has not deleted by the time Sink runs: their uses count
    ndead = sum(len(b.instructions) for b in blocks) - len(live)
    survivors = None
    if ndead > len(rep):  # (dead instructions other than the CSE'd ones)
        survivors = _llc_survivors(blocks, live, rep, kids, tree)
        if survivors:
            _record_survivor_uses(blocks, survivors, rep, through, local, iusers, pusers, pinned, phi_args)
            live.update(survivors)
            ndead -= len(survivors)

    # -- the blocks' instruction lists: shared with the IR until something changes them
    place: dict = {}
    if ndead:
        # dead instructions are the CSE'd ones (never marked: their uses read the
        # representative) unless the count says there are others
        for b in ({x.block for x in rep} if ndead == len(rep) else blocks):
            place[b] = [i for i in b.instructions if i in live]
    moved: dict = {}
    if len(blocks) >= 2:
        _sink_candidates(blocks, rep, local, iusers, pusers, pinned, place, moved, tree)
    used_outside = set(phi_args)
    used_outside.update(pinned)
    used_outside.update(pusers)
    for v, us in iusers.items():
        if us:
            used_outside.add(v)
    if survivors:
        _drop_unselected(survivors, used_outside, rep, live, place, moved)
    placed = {b: place.get(b, b.instructions) for b in blocks}
    return _Prepared(rep, live, placed, moved, used_outside)


def _llvm_dom_preorder(blocks, kids: dict) -> list:
    """The dominator tree's blocks in the preorder LLVM's passes walk it (EarlyCSE): a
    node's children in the order a depth-first walk of the CFG from the entry, taking
    successors in order, first reaches them (the order DominatorTree construction
    attaches them in)."""
    from patterns.ir.cfg import dom_tree_numbering

    num = {b: i for i, b in enumerate(dom_tree_numbering(blocks[0]))}
    out = []
    stack = [blocks[0]]
    while stack:
        b = stack.pop()
        out.append(b)
        ks = kids.get(b)
        if ks:
            stack.extend(sorted(ks, key=num.__getitem__, reverse=True))
    return out


def llc_survivors(fn, live: set, rep: dict, idom) -> set:
    """``_llc_survivors`` from scratch: the dead instructions (not in ``live``, the
    aggressive dead-code removal's answer on top of ``rep``) llc still has at Sink."""
    kids: dict = {}
    for b in fn.blocks:
        p = idom.get(b)
        if p is not None and p is not b:
            kids.setdefault(p, []).append(b)
    pre: dict = {}
    post: dict = {}
    depth = {fn.blocks[0]: 0}
    clock = 0
    work = [(fn.blocks[0], False)]
    while work:
        x, done = work.pop()
        if done:
            post[x] = clock
        else:
            pre[x] = clock
            work.append((x, True))
            for k in _rev(kids.get(x, ())):
                depth[k] = depth[x] + 1
                work.append((k, False))
        clock += 1
    return _llc_survivors(fn.blocks, live, rep, kids, _SinkTree(idom, pre, post, depth, fn.blocks))


def _llc_survivors(blocks, live: set, rep: dict, kids: dict, tree: "_SinkTree") -> set:
    """The dead instructions (not in ``live``) llc still has when its Sink pass runs.

    llc deletes dead code only as its passes meet it: each of its three EarlyCSE runs
    walks the dominator tree in preorder (``_llvm_dom_preorder``) and erases an
    instruction that has no users when the walk reaches it (isInstructionTriviallyDead),
    or that it replaces; the operands of an erased instruction, visited before it, are
    not looked at again in that run, so a dead chain loses one instruction per run from
    its end. Between the second and third run LICM's sinkRegion erases every trivially
    dead instruction of a loop (its blocks children first, each bottom-up, a subloop's
    blocks with the subloop: innermost loops first), and after the third CodeGenPrepare
    erases a dead ``lshr``/``ashr`` by a constant (OptimizeExtractBits nukes a shift
    left without uses). The walks run on the IR as the modeled passes leave it
    (``patterns.llc.irpasses``), taken as the state before llc's first EarlyCSE: a
    replaced instruction (it no longer has users there; or a key of ``rep``) is
    erased when the first run reaches it, as EarlyCSE erases what it simplifies or
    CSEs. Users are counted among the dead instructions only (a live instruction reads
    only live values). Not modeled: when the passes between the runs (NaryReassociate,
    LSR, mul24) made an instruction dead, and LCSSA phis (CodeGenPrepare folds them)."""
    v: Any
    by_block: dict = {}
    dead = []
    for b in blocks:
        ds = [i for i in b.instructions if i not in live]
        if ds:
            by_block[b] = ds
            dead.extend(ds)
    cnt = dict.fromkeys(dead, 0)
    ops: dict = {}  # dead instruction -> its operands that are dead instructions (read through rep)
    for u in dead:
        lst = []
        for v in u.operands:  # (a phi's incoming values are its operands)
            v = rep.get(v, v) if type(v) is type(u) else v
            if v in cnt:
                cnt[v] += 1
                lst.append(v)
        ops[u] = lst
    gone: set = set()

    def erase(i) -> None:
        gone.add(i)
        for v in ops[i]:
            cnt[v] -= 1

    order = _llvm_dom_preorder(blocks, kids)
    walk = [i for b in order for i in by_block.get(b, ())]
    for i in walk:  # first EarlyCSE run
        if i in rep or not cnt[i]:
            erase(i)
    for i in walk:  # second
        if i not in gone and not cnt[i]:
            erase(i)
    bodies = tree.bodies
    if bodies:  # LICM's sinkRegion, innermost loops first
        loop_of = tree.loop_of
        pos = {b: k for k, b in enumerate(order)}
        for h in sorted(bodies, key=lambda h: (len(bodies[h]), pos.get(h, 0))):
            body = bodies[h]
            bfs = [h]
            for b in bfs:
                bfs.extend(k for k in kids.get(b, ()) if k in body)
            for b in _rev(bfs):
                if loop_of.get(b) is not h:
                    continue  # (a subloop's block: done with the subloop)
                for i in _rev(by_block.get(b, ())):
                    if i not in gone and not cnt[i]:
                        erase(i)
    for i in walk:  # third
        if i not in gone and not cnt[i]:
            erase(i)
    for i in dead:  # CodeGenPrepare (blocks in function order)
        if (i.opcode == "lshr" or i.opcode == "ashr") and i not in gone and not cnt[i] \
                and _const_int(i.operands[1]) is not None:
            erase(i)
    return {i for i in dead if i not in gone}


def _record_survivor_uses(blocks, survivors: set, rep, through, local, iusers, pusers, pinned, phi_args) -> None:
    """The uses of ``_llc_survivors``'s instructions, recorded as ``_prepare``'s marking
    walk records the live ones (Sink counts every user; FunctionLoweringInfo exports a
    value any instruction of another block, or any phi, reads)."""
    v: Any
    for i in [i for b in blocks for i in b.instructions if i in survivors]:
        if i.opcode == "phi":
            for v, pb in i.incoming:
                k = _KINDS.get(type(v)) or _kind(type(v))
                if k != "I":
                    if k == "A":
                        phi_args.add(v)
                    continue
                v = rep.get(v, v)
                while pb in through:
                    pb = through[pb]
                if pb is v.block:
                    pinned.add(v)
                else:
                    pusers.setdefault(v, []).append(pb)
            continue
        bi = i.block
        for v in i.operands:
            if (_KINDS.get(type(v)) or _kind(type(v))) != "I":
                continue
            v = rep.get(v, v)
            if v.block is bi:
                local[v] = local.get(v, 0) + 1
            else:
                iusers.setdefault(v, []).append(i)


def _drop_unselected(survivors: set, used_outside: set, rep, live: set, place: dict, moved: dict) -> None:
    """Leave in ``live`` and the block lists only the survivors SelectionDAG keeps: those
    read outside their block (their CopyToReg is a root) and what they read in their own
    block, transitively; the others make nodes nothing uses, which the DAG drops."""
    v: Any
    need = set()
    work = [i for i in survivors if i in used_outside]
    while work:
        i = work.pop()
        if i in need:
            continue
        need.add(i)
        if i.opcode == "phi":
            continue
        bi = moved.get(i) or i.block
        for v in i.operands:
            if (_KINDS.get(type(v)) or _kind(type(v))) != "I":
                continue
            v = rep.get(v, v)
            if v in survivors and v not in need and (moved.get(v) or v.block) is bi:
                work.append(v)
    drop = survivors - need
    if not drop:
        return
    live.difference_update(drop)
    for b in {moved.get(i) or i.block for i in drop}:
        lst = place.get(b)
        if lst is None:
            lst = b.instructions
        place[b] = [i for i in lst if i not in drop]


def _sink_candidates(blocks, rep, local, iusers, pusers, pinned, place, moved, tree: "_SinkTree") -> None:
    """The sweeps of ``_prepare``'s Sink (``_sink``'s pass, evaluating candidates only);
    updates ``place`` (copying a block's list before changing it), ``moved`` and the use
    records."""
    kinds = _KINDS
    sinkable = _SINKABLE
    pre = tree.pre
    cand: dict = {}
    for d in (iusers, pusers):
        for v in d:
            if v in pinned or local.get(v) or (v.opcode not in sinkable
                                                 and (v.opcode != "call" or not _sinkable_call(v))):
                continue
            b = v.block
            if b not in pre:
                continue
            cs = cand.get(b)
            if cs is None:
                cand[b] = {v}
            else:
                cs.add(v)
    if not cand:
        return

    def target(ins, bb):
        return tree.target(bb, (moved.get(u) or u.block for u in iusers.get(ins, ())), pusers.get(ins, ()))

    def own(b) -> list:
        c: Any
        v: Any
        lst = place.get(b)
        if lst is None or lst is b.instructions:
            lst = place[b] = list(b.instructions)
        return lst

    changed = True
    while changed:
        changed = False
        for b in blocks:
            cs = cand.get(b)
            if not cs:
                continue
            lst = place.get(b)
            for ins in _rev(b.instructions if lst is None else list(lst)):
                if ins not in cs:
                    continue
                cs.discard(ins)
                to = target(ins, b)
                if to is None:
                    continue
                changed = True
                own(b).remove(ins)
                dst = own(to)
                k = 0
                while k < len(dst) and dst[k].opcode == "phi":
                    k += 1
                dst.insert(k, ins)
                moved[ins] = to
                # its users in ``to`` are now local ones
                us = iusers.get(ins)
                n = 0
                if us:
                    keep = [u for u in us if (moved.get(u) or u.block) is not to]
                    n = len(us) - len(keep)
                    iusers[ins] = keep
                local[ins] = n
                ps = pusers.get(ins)
                if ps and to in ps:
                    pinned.add(ins)
                elif not n:
                    c = cand.get(to)
                    if c is None:
                        cand[to] = {ins}
                    else:
                        c.add(ins)
                # its operands lost a user in ``b``; their answers may change
                for v in ins.operands:
                    if kinds.get(type(v)) != "I":
                        continue
                    v = rep.get(v, v)
                    hv = moved.get(v) or v.block
                    if hv is b:
                        n = local[v] - 1
                        local[v] = n
                        us = iusers.get(v)
                        if us is None:
                            iusers[v] = [ins]
                        else:
                            us.append(ins)
                        if n:
                            continue
                    elif local.get(v):
                        continue
                    if v in pinned or hv not in pre or (v.opcode not in sinkable
                                                        and (v.opcode != "call" or not _sinkable_call(v))):
                        continue
                    c = cand.get(hv)
                    if c is None:
                        cand[hv] = {v}
                    else:
                        c.add(v)


def _prepare_plain(fn, dce: str = "aggressive") -> _Prepared:
    """``_prepare`` from the separate passes (``common_subexpressions``,
    ``live_instructions(fn, dce, rep)``, ``_sink``): any ``dce`` mode, and the reference
    the tests compare ``_prepare`` with."""
    v: Any
    idom = immediate_dominators(fn) if fn.blocks else None
    rep = common_subexpressions(fn, idom)
    live = live_instructions(fn, dce, rep)
    survivors = None
    if dce == "aggressive" and fn.blocks:
        survivors = llc_survivors(fn, live, rep, idom)
        live = live | survivors
    placed, home = _sink(fn, live, rep, idom)
    used_outside: set = set()
    for b in fn.blocks:
        for ins in placed[b]:
            if ins.opcode == "phi":
                for v, _blk in ins.incoming:
                    k = _kind(type(v))
                    if k == "I":
                        used_outside.add(rep.get(v, v))
                    elif k == "A":
                        used_outside.add(v)
                continue
            for v in ins.operands:
                if _kind(type(v)) == "I":
                    v = rep.get(v, v)
                    if home.get(v, v.block) is not b:
                        used_outside.add(v)
    moved = {i: b for i, b in home.items() if b is not i.block}
    if survivors:
        _drop_unselected(survivors, used_outside, rep, live, placed, moved)
    return _Prepared(rep, live, placed, moved, used_outside)


class _Builder:
    def __init__(self, fn, target, ua, dce: str = "aggressive"):
        self.fn = fn
        self.target = target
        self.ua = ua
        self.vreg: dict[object, str] = {}
        self._intr_cache: dict[str, tuple] = {}
        self._decl_cache: dict[str, str] = {}
        self._vt_cache: dict = {}
        self._const_keys: dict = {}  # id(type) -> (type, {constant text: (value, vt) or None})
        # known leading zeros of each exported i32 value, recorded after its block is
        # combined (as the exporting node: counted on first use, the block is finished),
        # and of each i32 phi (the minimum over its incoming values): llc's
        # FunctionLoweringInfo LiveOutRegInfo / ComputePHILiveOutRegInfo. Per function.
        self.live_lz: dict = {}
        # and their sign bits (ComputeNumSignBits), the same way
        self.live_sb: dict = {}
        self.track_lz = False  # set by build_function_dags when it combines
        if dce == "aggressive":
            prep = _prepare(fn)
        else:
            prep = _prepare_plain(fn, dce)
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

    def _temporal(self, v, block) -> bool:
        inner = self.temporal.get(self.moved.get(v) or v.block)
        if not inner:
            return False
        return not inner <= self.temporal.get(block, _EMPTY)  # (a cycle of v's not holding block)

    def reg_of(self, v) -> str:
        r: Any
        r = self.vreg.get(v)
        if r is None:
            r = str(len(self.vreg))
            self.vreg[v] = r
        return r

    def declared_name(self, callee: str) -> str:
        """The target's name for an intrinsic call: overloaded intrinsics are called with a
        type suffix (``llvm.amdgcn.sffbh.i32``) but declared without it."""
        got = self._decl_cache.get(callee)
        if got is None:
            known = getattr(self.target, "intrinsics_by_ir_name", None) or {}
            got = callee
            parts = callee.split(".")
            for k in range(len(parts), 1, -1):
                cand = ".".join(parts[:k])
                if cand in known:
                    got = cand
                    break
            self._decl_cache[callee] = got
        return got

    def intrinsic_info(self, name: str):
        """(isd opcode or target node, divergence kind name) for an intrinsic."""
        name = self.declared_name(name)
        got = self._intr_cache.get(name)
        if got is not None:
            return got
        t = self.target
        lowered = None
        for low in getattr(t, "lowerings", ()) or ():
            ir = _lowering_ir_name(t, low)
            if ir == name:
                lowered = low
                break
        k = t.intrinsic_divergence(name)
        kind = getattr(k, "value", str(k))
        got = (lowered, kind)
        self._intr_cache[name] = got
        return got

    def build_block(self, block) -> SelectionDAG:
        """The SelectionDAG of ``block`` (see ``block_builder``)."""
        return self.block_builder()(block)

    def block_builder(self):
        """A function building the SelectionDAG of a block of this function, ``build(block)``
        (the helpers it uses are made once for all the function's blocks; nothing made
        here refers to the builder's function objects, so no reference cycle is left).

        Nodes are made inline (``_mk`` written out: every slot set, in ``_mk``'s order;
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
        kinds: dict = _KINDS
        vt_cache: dict = self._vt_cache
        const_keys: dict = self._const_keys
        vregs: dict = self.vreg
        ua_div = self.ua.is_divergent
        temporal: dict = self.temporal  # (empty unless a cycle has a divergent exit)
        moved: dict = self.moved
        empty = frozenset()
        new = _new_node
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
            value = _wrap(value, vt)
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
                c = _const_int(v)
                vt = vt_of_cached(t)
                key = by_text[v.text] = None if c is None else (_wrap(c, vt), vt)
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
                n = new(Node)  # (_mk written out)
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
                    ksb = live_sb[v] = _const_sign_bits(ksb.value)
                n.ksb = ksb
                div = bool(ua_div(v))  # (SITargetLowering::isSDNodeSourceOfDivergence)
                if not div and temporal and k == "I":
                    # (self._temporal: read outside a cycle with a divergent exit)
                    inner = temporal.get(moved.get(v) or v.block)
                    if inner:
                        div = not inner <= temporal.get(block, empty)
                n.source = "divergent" if div else "uniform"
                n.divergent = div
                local[v] = n
                return n
            if k == "C":
                c = _const_int(v)
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
                k = _kind(type(v))
            if k == "C":
                return constant(v)
            v = rep.get(v, v)
            n = local.get(v)
            if n is not None:
                return n
            return far(v, k)

        def mk(opcode, vt, ops, ir, cc=None) -> SDNode:
            n = _mk(len(nodes), opcode, vt, list(ops), ir, block)
            n.cc = cc
            for o in ops:
                o.uses += 1
            nodes.append(n)
            return n

        used_outside: set = self.used_outside
        binops: dict = ISD_OF_BINOP

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
            chain = _mk(0, "ISD::EntryToken", "ch", [], None, blk)
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
                    # the node is made inline (_mk) and its divergence is the OR of its
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
                        n, a, b = _get_node_folds(isd, last_vt, a, b, const)
                    if n is None:
                        m: SDNode = new(Node)  # (_mk written out)
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
                        n = m
                        a.uses += 1
                        b.uses += 1
                        nodes.append(n)
                elif op == "phi":
                    if phis is None:
                        phis = block_phis[blk] = [ins]
                    else:
                        phis.append(ins)
                    n = _mk(len(nodes), "ISD::CopyFromReg", vt_of_cached(ins.type), [], ins, block)
                    n.reg = self.reg_of(ins)
                    nodes.append(n)
                    if self.track_lz:
                        n.klz = live_lz[ins] = self._phi_lz(ins)
                        n.ksb = live_sb[ins] = self._phi_sb(ins)
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
                        n = _mk(len(nodes), "ISD::BRCOND", "ch", [c], ins, blk)
                        c.uses += 1
                        n.divergent = c.divergent
                    else:
                        n = _mk(len(nodes), "ISD::BR", "ch", [], ins, blk)
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
                        n = mk("ISD::SELECT", vt_of_cached(ins.type), (c, a, b), ins)
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
                        n.chain = chain
                        chain = n
                        div = self.is_divergent(ins)
                        # The IR-level answer covers address-space rules (private/flat loads).
                        n.source = "divergent" if div else None
                    elif op == "store":
                        v, p = get(ins.operands[0]), get(ins.operands[1])
                        n = mk("ISD::STORE", "ch", (v, p), ins)
                        n.chain = chain
                        chain = n
                        droots.append(n)
                    elif op == "call":
                        n = self._call(dag, ins, get, const)
                        if n is not None and ins.type is not None and vt_of_cached(ins.type) == "isVoid":
                            n.chain = chain
                            chain = n
                            droots.append(n)
                    elif op == "ret":
                        ops = tuple(get(x) for x in ins.operands)
                        n = mk("ISD::RET", "ch", ops, ins)
                        n.chain = chain
                        droots.append(n)
                    elif op in ("unreachable", "switch"):
                        ops = tuple(get(x) for x in ins.operands[:1])
                        n = mk("ISD::BR", "ch", ops, ins)
                        droots.append(n)
                    else:
                        raise VerifyError(ins.span, expected(
                            "an instruction the SelectionDAG builder supports (binary ops, icmp, select, casts, "
                            "getelementptr, load, store, call, br, ret, phi)", f"'{op}'"), record=f"%{ins.name}" if ins.name else None)
                    if n is None:
                        continue
                    src = n.source  # (_set_divergence, inline)
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
                        cp: SDNode = new(Node)  # (_mk written out)
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
                        n.uses += 1
                        nodes.append(cp)
                        droots.append(cp)
            dag.constants = (len(nodes), consts)
            return dag

        return build

    def _phi_lz(self, phi) -> int:
        """Known leading zeros of an i32 phi: the minimum over its incoming values, a
        constant's own, a value's recorded one, 0 for a value not recorded yet (a back
        edge, an argument) or undef (ComputePHILiveOutRegInfo gives up on those)."""
        return self._phi_live(phi, self.live_lz, 0, _const_lead_zeros, _combine_known_lz)

    def _phi_sb(self, phi) -> int:
        """Sign bits of an i32 phi, the same way (1 where nothing is known)."""
        return self._phi_live(phi, self.live_sb, 1, _const_sign_bits, _combine_live_sign_bits)

    def _phi_live(self, phi, live: dict, nothing: int, of_const, resolver) -> int:
        """The minimum over an i32 phi's incoming values of a count recorded per value in
        ``live`` (an int, or the exporting node until ``resolver()`` counts it), a
        constant's by ``of_const``; ``nothing`` for another type, undef, or as soon as
        the minimum reaches it."""
        v: Any
        t = phi.type
        vt = self._vt_cache.get(id(t))
        if (vt_of(t) if vt is None else vt[1]) != "i32":
            return nothing
        best = 32
        rep = self.rep
        for v, _blk in phi.incoming:
            if _is_const(v):
                c = _const_int(v)
                if c is None:
                    return nothing
                k = of_const(c)
            else:
                v = rep.get(v, v)
                k = live.get(v, nothing)
                if type(k) is not int:
                    k = live[v] = resolver()(k)
            if k < best:
                best = k
                if best <= nothing:
                    return nothing
        return best

    def _copy_out(self, dag, ins, n):
        c = dag.node("ISD::CopyToReg", "ch", (n,), ir=ins, reg=self.reg_of(ins))
        c.divergent = n.divergent
        dag.roots.append(c)

    def _set_divergence(self, n: SDNode) -> None:
        if n.source == "divergent":
            n.divergent = True
        elif n.source == "uniform":
            n.divergent = False
        else:
            n.divergent = any(o.divergent for o in n.ops)

    def _call(self, dag, ins, get, const):
        callee = ins.callee or ""
        if not callee.startswith("llvm."):
            ops = tuple(get(x) for x in ins.operands)
            n = dag.node("ISD::CALL", vt_of(ins.type), ops, ir=ins)
            n.source = "divergent"
            return n
        lowered, kind = self.intrinsic_info(callee)
        args = list(ins.operands)
        vt = vt_of(ins.type)
        if lowered is not None:
            mapping = _lowering_operands(lowered, len(args))
            ops = tuple(get(args[i]) for i in mapping)
            n = dag.node(_lowering_opcode(self.target, lowered), vt, ops, ir=ins,
                         intrinsic=callee, target_op=_lowering_node(lowered))
        else:
            base = ".".join(callee.split(".")[:2])
            isd = ISD_OF_INTRINSIC.get(base)
            if isd is not None:
                if isd in ("ISD::CTLZ", "ISD::CTTZ"):
                    zero_poison = len(args) > 1 and _const_int(args[1]) not in (None, 0)
                    if zero_poison:
                        isd += "_ZERO_UNDEF"
                    args = args[:1]
                elif isd == "ISD::ABS":
                    args = args[:1]
                ops = tuple(get(a) for a in args)
                if len(ops) == 2 and isd in COMMUTATIVE and ops[0].opcode == "ISD::Constant" \
                        and ops[1].opcode != "ISD::Constant":
                    ops = (ops[1], ops[0])  # (getNode: a constant to the right of min/max)
                n = dag.node(isd, vt, ops, ir=ins, intrinsic=callee)
            else:
                has_chain = vt == "isVoid"
                opc = "ISD::INTRINSIC_VOID" if has_chain else "ISD::INTRINSIC_WO_CHAIN"
                idn = dag.node("ISD::TargetConstant", "i32", value=self.declared_name(callee))
                idn.source = "uniform"
                n = dag.node(opc, vt, (idn,) + tuple(get(a) for a in args), ir=ins, intrinsic=callee)
        if kind == "source":
            n.source = "divergent"
        elif kind == "uniform":
            n.source = "uniform"
        return n


def _combine_known_lz():
    """``patterns.dag.combine._known_lz`` (imported on first use: combine imports this module)."""
    global _KNOWN_LZ
    if _KNOWN_LZ is None:
        from patterns.dag.combine import _known_lz

        _KNOWN_LZ = _known_lz
    return _KNOWN_LZ


_KNOWN_LZ = None


def _combine_live_sign_bits():
    """``patterns.dag.combine.live_sign_bits`` (imported on first use, as ``_combine_known_lz``)."""
    global _LIVE_SB
    if _LIVE_SB is None:
        from patterns.dag.combine import live_sign_bits

        _LIVE_SB = live_sign_bits
    return _LIVE_SB


_LIVE_SB = None


def _const_lead_zeros(c: int) -> int:
    """Leading zero bits of a 32-bit constant."""
    return 32 - (c & 0xFFFFFFFF).bit_length()


def _const_sign_bits(c) -> int:
    """APInt::getNumSignBits of a 32-bit constant (1 for a non-integer)."""
    if type(c) is not int:
        return 1
    u = c & 0xFFFFFFFF
    if u >> 31:
        u ^= 0xFFFFFFFF
    return 32 - u.bit_length()


def _lowering_ir_name(target, low) -> str | None:
    intr = getattr(low, "intrinsic", None)
    if intr is None:
        return None
    if isinstance(intr, str):
        rec = (getattr(target, "intrinsics", {}) or {}).get(intr) if isinstance(getattr(target, "intrinsics", None), dict) else None
        if rec is not None:
            return getattr(rec, "ir_name", None)
        if intr.startswith("llvm."):
            return intr
        if intr.startswith("int_"):
            return "llvm." + intr[4:].replace("_", ".")
        return intr
    return getattr(intr, "ir_name", None)


def _lowering_node(low) -> str:
    node: Any = getattr(low, "node", None) or getattr(low, "sdnode", None)
    if isinstance(node, str):
        return node
    try:  # (getattr(node, "name", str(node)), without making the text when unused)
        return node.name
    except AttributeError:
        return str(node)


def _lowering_opcode(target, low) -> str:
    node = getattr(low, "node", None) or getattr(low, "sdnode", None)
    if not isinstance(node, str):
        opc = getattr(node, "opcode", None)
        if opc:
            return opc
    name = _lowering_node(low)
    sd = (getattr(target, "sdnodes", {}) or {}).get(name)
    return getattr(sd, "opcode", name) if sd is not None else name


def _lowering_operands(low, nargs: int) -> list[int]:
    m = getattr(low, "operand_map", None)
    if m is None:
        m = getattr(low, "operands", None)
    if not m:
        return list(range(nargs))
    out = []
    for x in m:
        out.append(x if isinstance(x, int) else int(getattr(x, "index", getattr(x, "arg", 0))))
    return out


@dataclass
class FunctionDAGs:
    function: Any
    dags: list[SelectionDAG]
    vregs: dict
    phis: Any = None  # per block: [(phi, vreg, divergent, [(incoming text, block index)])]
    ua: Any = None  # the uniformity analysis the DAGs were built with


def build_function_dags(fn, target, ua, *, dce: str = "aggressive", combine: bool = True) -> FunctionDAGs:
    """The DAGs of every block of ``fn`` (source block order), combined (patterns.dag.combine)
    unless ``combine=False``; ``dce`` see ``live_instructions``. Blocks are built in reverse
    post-order so a value's block is combined before the blocks that read it.

    With ``combine``, llc's IR passes run first (patterns/llc/irpasses.py, on ``fn`` in place)
    and, when they changed the IR, the uniformity analysis is run again on the result
    (``run_ir_passes``): llc's instruction selector reads an analysis computed on the IR
    it selects (its pipeline recomputes it after the IR passes), so a value whose divergent inputs
    EarlyCSE/InstSimplify removed is uniform there, and a value the DAG combines fold to
    something uniform keeps the IR's verdict for its register (its users in other
    blocks read a vector register). ``ua``: the analysis of ``fn`` as given, or None
    (then computed here; with ``combine``, only where a pass reads it and for the IR
    selected). ``FunctionDAGs.ua`` is the analysis used."""
    v: Any
    if getattr(fn, "is_declaration", False):
        raise ParseError(getattr(fn, "span", None), expected("a function definition", f"declaration of @{fn.name}"))
    from patterns.dag import combine as _combine
    from patterns.ir.cfg import reverse_post_order

    with shared_dominators(fn):  # one dominator tree for the IR passes and the prepasses
        if combine:  # llc's IR passes (EarlyCSE+InstSimplify, mul24, LICM) first: patterns/llc/irpasses.py
            from patterns.llc.pipeline import run_ir_passes
            ua = run_ir_passes(fn, ua, target)  # (the analysis of the IR it leaves)
        elif ua is None:
            from patterns.uniformity.analysis import analyze

            ua = analyze(fn, target)
        b = _Builder(fn, target, ua, dce)
    live_lz = b.live_lz
    live_sb = b.live_sb
    b.track_lz = combine
    built: dict = {}
    order = reverse_post_order(fn)
    seen = set(order)
    order += [blk for blk in fn.blocks if blk not in seen]
    build = b.block_builder()
    kinds = _KINDS
    for blk in order:
        dag = build(blk)
        if combine:
            _combine.run(dag, target)
            for r in dag.roots:
                if r.opcode == "ISD::CopyToReg":
                    ir = r.ir
                    if ir is None or not r.ops:
                        continue
                    src = r.ops[0]
                    if src.vt == "i32":
                        # counted when first asked (_known_lz of a CopyFromReg, _phi_lz;
                        # live_sign_bits, _phi_sb)
                        if src.opcode == "ISD::CopyFromReg":
                            live_lz[ir] = src.klz
                            live_sb[ir] = src.ksb
                        else:
                            live_lz[ir] = live_sb[ir] = src
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
                k = kinds.get(type(v)) or _kind(type(v))
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
