"""The mini SelectionDAG's data: ``SDNode`` (one result with its value type, operands, chain,
divergence bit and the scratch fields the combines use), ``SelectionDAG`` (a block's nodes
in creation order, which is topological), ``FunctionDAGs`` (a function's), the node maker
the builder uses (``make_node``), the value-type operand (``value_type_node``), the folds
SelectionDAG::getNode makes while nodes are made (``get_node_folds``) and the
sign-normalization of a constant to its type's width (``patterns.support.intops.wrap_vt``).

Nodes are kept in creation order, which is a topological order (operands first); the
selector walks them backwards. Node ids ``t0, t1, ...`` are per block and stable."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from patterns.dag.isd import COMMUTATIVE


class SDNode:
    """A DAG node. One result (``vt``); chain operands are kept apart in ``chain``."""

    __slots__ = ("id", "opcode", "vt", "ops", "divergent", "value", "cc", "ir", "uses",
                 "source", "chain", "intrinsic", "reg", "block", "target_op",
                 "mark", "users", "wlix", "kbc", "klz", "ksb", "mem")
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
        # (``make_node`` below sets the same fields for the DAG builder: keep the two in step;
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
        # a memory node's MachineMemOperand (patterns.dag.memops.MemOperand), else None
        self.mem = None

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
                      "mark", "users", "wlix", "kbc", "klz", "ksb", "mem")


def _blank_native(cls) -> SDNode:
    return SDNode(0, "", "")


# A node whose every field the caller sets: made without running ``__init__`` as plain
# Python; a compiled build's SDNode is a native class, which ``object.__new__`` cannot
# make, and constructing one there costs less than the call it saves.
new_node: Final[Any] = object.__new__ if SDNode.__new__ is object.__new__ else _blank_native


def make_node(id, opcode, vt, ops, ir, block) -> SDNode:
    """``SDNode(id, opcode, vt, ops, ir=ir, block=block)`` for the DAG builder, which
    passes a new list ``ops`` (kept, not copied) and sets any other field itself."""
    n: SDNode = new_node(SDNode)
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
    n.mem = None
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
        n = make_node(len(nodes), opcode, vt, list(ops), ir, self.block)  # (SDNode(...), without its defaults)
        n.value = value
        n.cc = cc
        n.intrinsic = intrinsic
        n.reg = reg
        n.target_op = target_op
        for o in n.ops:
            o.uses += 1
        nodes.append(n)
        return n

    def relink(self, out: list, repl: dict) -> None:
        """Make ``out`` the node list after a legalization rewrote the block: ids in
        order, use counts recounted, a node without a divergence source divergent when
        an operand is (SelectionDAG::createOperands), roots through ``repl`` (old node ->
        its replacement)."""
        for n in out:
            n.uses = 0
        for i, n in enumerate(out):
            n.id = i
            for o in n.ops:
                o.uses += 1
            if n.source is None and n.ops:
                n.divergent = any(o.divergent for o in n.ops)
        self.roots[:] = [repl.get(r, r) for r in self.roots]
        self.nodes[:] = out

    def recompute_divergence(self, n: SDNode) -> None:
        n.divergent = n.source is not None and n.source != "uniform" or (
            n.source is None and any(o.divergent for o in n.ops))




_GETNODE_FOLD: Final = {
    "ISD::ADD": lambda a, b: a + b, "ISD::SUB": lambda a, b: a - b, "ISD::MUL": lambda a, b: a * b,
    "ISD::AND": lambda a, b: a & b, "ISD::OR": lambda a, b: a | b, "ISD::XOR": lambda a, b: a ^ b,
    "ISD::SHL": lambda a, b: a << b, "ISD::SRL": lambda a, b: (a & 0xFFFFFFFF) >> b, "ISD::SRA": lambda a, b: a >> b,
}


def get_node_folds(isd: str, vt, a, b, const):
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


@dataclass
class FunctionDAGs:
    """The DAGs of a function's blocks (source order), with what the selector reads beside."""

    function: Any
    dags: list[SelectionDAG]
    vregs: dict
    phis: Any = None  # per block: [(phi, vreg, divergent, [(incoming text, block index)])]
    ua: Any = None  # the uniformity analysis the DAGs were built with
