"""Vector operation legalization as LLVM's LegalizeVectorOps / DAGTypeLegalizer scalarize
them, driven by the target's lowering table (``Target.legality``,
``tdgen.model.legality``): an element-wise operation on a vector type whose action is
``Expand`` (AMDGPU: every integer operation on v2i32), or whose vector type has no
register class (v2i1, the result of a vector compare), is unrolled
(SelectionDAG::UnrollVectorOp): one scalar node per lane, each reading lane ``i`` of its
vector operands, and the vector value, where something still reads it (a store, a
copy to another block), is the ``ISD::BUILD_VECTOR`` of the lanes.

Lane ``i`` of an operand (``lane``) is read the way DAGCombiner's
visitEXTRACT_VECTOR_ELT folds it: the ``i``-th operand of a BUILD_VECTOR, the inserted
value of an ``INSERT_VECTOR_ELT`` at constant index ``i`` (else lane ``i`` of the vector
it inserts into), the constant itself for a splat constant (``zeroinitializer``), an
``UNDEF`` of the element type for an undefined vector, else an ``EXTRACT_VECTOR_ELT`` of
the vector at the constant index. An extract at a variable index becomes, when the
target's hook says so (``TargetHooks.expand_dynamic_extract``), the chain of selects of the
lanes on ``index == i`` that AMDGPU's performExtractVectorEltCombine makes.

A new node's divergence is its operands' OR (SelectionDAG::createOperands), as every
node the builder makes. The pass runs on a block's DAG as the builder made it, before the
first combine (llc unrolls after it, in LegalizeVectorOps; the combines model no vector
rule, so what they see is the same). Not modelled: splitting wide vectors into halves
(SplitVector), widening (v3 -> v4), vector shuffles; a vector operation of such a kind
is left as it is, and selection reports it."""

from __future__ import annotations

from typing import Final

from patterns.dag.nodes import make_node, SDNode, SelectionDAG

# element-wise opcodes the unroller handles (ISD names without the namespace)
ELEMENTWISE: Final = frozenset({
    "ADD", "SUB", "MUL", "AND", "OR", "XOR", "SHL", "SRL", "SRA", "UDIV", "SDIV", "UREM", "SREM",
    "SMIN", "SMAX", "UMIN", "UMAX", "ABS", "CTPOP", "CTLZ", "CTTZ", "BITREVERSE", "BSWAP",
    "SETCC", "VSELECT", "SELECT", "ZERO_EXTEND", "SIGN_EXTEND", "TRUNCATE",
    "FADD", "FSUB", "FMUL", "FDIV", "FREM", "FNEG", "SINT_TO_FP", "UINT_TO_FP", "FP_TO_SINT", "FP_TO_UINT",
})


def vector_shape(vt: str) -> tuple[int, str] | None:
    """(element count, element type) of a vector value type name (``v2i32`` -> (2, 'i32'))."""
    if not vt.startswith("v") or len(vt) < 3:
        return None
    k = 1
    while k < len(vt) and vt[k].isdigit():
        k += 1
    if k == 1 or k == len(vt):
        return None
    return int(vt[1:k]), vt[k:]


def _wants_unroll(n: SDNode, lg) -> bool:
    opc = n.opcode
    if not opc.startswith("ISD::") or opc[5:] not in ELEMENTWISE:
        return False
    op = opc[5:]
    # (SETCC's action is keyed by its operands' type; every other one by its result's)
    vt = n.ops[0].vt if op == "SETCC" and n.ops else n.vt
    if vector_shape(n.vt) is None and vector_shape(vt) is None:
        return False
    return lg.action(op, vt) == "Expand" or not lg.is_type_legal(n.vt) or not lg.is_type_legal(vt)


def _dynamic_extract(n: SDNode, expand) -> bool:
    if n.opcode != "ISD::EXTRACT_VECTOR_ELT" or expand is None or len(n.ops) != 2:
        return False
    idx = n.ops[1]
    if idx.opcode == "ISD::Constant" and type(idx.value) is int:
        return False
    shape = vector_shape(n.ops[0].vt)
    if shape is None:
        return False
    bits = "".join(ch for ch in shape[1] if ch.isdigit())
    return bool(expand(int(bits) if bits else 0, shape[0], idx.divergent))


def unroll_vectors(dag: SelectionDAG, lg, expand_dynamic=None) -> bool:
    """Unroll the block's vector operations the table says to (see the module docstring),
    in place; the nodes renumbered in topological order with their use counts. Whether
    anything changed. ``expand_dynamic``: the target's TargetHooks.expand_dynamic_extract
    (an extract at a variable index becomes ``select (index == i), lane i, ...`` over the
    lanes, as SITargetLowering::performExtractVectorEltCombine makes it), or None."""
    nodes = dag.nodes
    if not any(n.vt[:1] == "v" and _wants_unroll(n, lg) or _dynamic_extract(n, expand_dynamic) for n in nodes):
        return False
    block = dag.block
    out: list[SDNode] = []
    repl: dict = {}
    consts: dict = {}
    extracts: dict = {}
    for n in nodes:
        if n.opcode == "ISD::Constant" and type(n.value) is int:
            consts.setdefault((n.value, n.vt), n)

    def new(opcode: str, vt: str, ops: list, ir=None, cc=None) -> SDNode:
        m = make_node(0, opcode, vt, ops, ir, block)
        m.cc = cc
        m.divergent = any(o.divergent for o in ops)
        out.append(m)
        return m

    def const(value: int, vt: str) -> SDNode:
        c = consts.get((value, vt))
        if c is None:
            c = new("ISD::Constant", vt, [])
            c.value = value
            c.source = "uniform"
            consts[(value, vt)] = c
        return c

    def lane(v: SDNode, i: int, evt: str) -> SDNode:
        while True:
            opc = v.opcode
            if opc == "ISD::BUILD_VECTOR":
                return v.ops[i]
            if opc == "ISD::INSERT_VECTOR_ELT" and v.ops[2].opcode == "ISD::Constant" and type(v.ops[2].value) is int:
                if v.ops[2].value == i:
                    return v.ops[1]
                v = v.ops[0]
                continue
            if opc == "ISD::Constant" and type(v.value) is int:
                return const(v.value, evt)
            if opc == "ISD::UNDEF":
                u = new("ISD::UNDEF", evt, [])
                u.source = "uniform"
                return u
            key = (id(v), i)
            x = extracts.get(key)
            if x is None:  # (one node per lane read: SelectionDAG's CSE map)
                x = extracts[key] = new("ISD::EXTRACT_VECTOR_ELT", evt, [v, const(i, "i32")])
            return x

    for n in nodes:
        ops = n.ops
        if ops and any(o in repl for o in ops):
            n.ops = ops = [repl.get(o, o) for o in ops]
        if _dynamic_extract(n, expand_dynamic):
            vec, idx = ops
            count, evt = vector_shape(vec.vt)  # type: ignore[misc]
            v = lane(vec, 0, evt)
            for i in range(1, count):
                eq = new("ISD::SETCC", "i1", [idx, const(i, idx.vt)], n.ir, "SETEQ")
                v = new("ISD::SELECT", evt, [eq, lane(vec, i, evt), v], n.ir)
            repl[n] = v
            continue
        if n.vt[:1] == "v" and _wants_unroll(n, lg):
            shape = vector_shape(n.vt)
            assert shape is not None
            count, evt = shape
            opc = "ISD::SELECT" if n.opcode == "ISD::VSELECT" else n.opcode
            lanes = []
            for i in range(count):
                lops = [lane(o, i, vector_shape(o.vt)[1]) if vector_shape(o.vt) else o for o in ops]
                lanes.append(new(opc, evt, lops, n.ir, n.cc))
            repl[n] = new("ISD::BUILD_VECTOR", n.vt, lanes, n.ir)
            continue
        out.append(n)
    dag.relink(out, repl)
    return True
