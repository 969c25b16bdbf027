"""The few DAG combines and legalizations that make our DAG look like llc's before selection.

Each rule is one llc behaviour observed with ``llc-19 -mtriple=amdgcn -mcpu=gfx900
-stop-after=amdgpu-isel`` on small uniform/divergent kernels (see tests/test_isel_llc.py):

- constant folding of binary ops on two constants; a constant operand of a commutative op
  moves to the right (DAGCombiner canonical form);
- ``sub x, C`` -> ``add x, -C``; ``mul x, 2^k`` -> ``shl x, k``;
- reassociation of ``add``/``xor`` that keeps uniform work scalar: ``(op (op a, b), c)``
  with a divergent inner node used once and a uniform ``c`` becomes ``(op d, (op u, c))``
  where ``u`` is the uniform one of ``a, b`` (so ``xor (xor d, u), -1`` selects
  ``S_NOT`` + ``V_XOR`` on gfx900, as llc does);
- ``select (setcc a, b, cc), a, b`` -> ``smin/smax/umin/umax``; ``smax x, (sub 0, x)`` ->
  ``abs x``;
- ``ctlz``/``cttz`` (zero defined) -> ``umin (ctlz_zero_undef x), 32`` (the AMDGPU
  lowering of the zero case);
- ``sra (shl x, 32-n), 32-n`` -> ``sign_extend_inreg x, i<n>`` for n = 8, 16.

Afterwards the block's nodes are re-sorted topologically, renumbered, use counts and
divergence bits recomputed (sources keep their bits).
"""

from __future__ import annotations

from .sdag import COMMUTATIVE, SDNode, _wrap

__all__ = ["run"]

_FOLD = {
    "ISD::ADD": lambda a, b: a + b, "ISD::SUB": lambda a, b: a - b, "ISD::MUL": lambda a, b: a * b,
    "ISD::AND": lambda a, b: a & b, "ISD::OR": lambda a, b: a | b, "ISD::XOR": lambda a, b: a ^ b,
}
_MINMAX = {"SETLT": ("ISD::SMIN", "ISD::SMAX"), "SETLE": ("ISD::SMIN", "ISD::SMAX"),
           "SETGT": ("ISD::SMAX", "ISD::SMIN"), "SETGE": ("ISD::SMAX", "ISD::SMIN"),
           "SETULT": ("ISD::UMIN", "ISD::UMAX"), "SETULE": ("ISD::UMIN", "ISD::UMAX"),
           "SETUGT": ("ISD::UMAX", "ISD::UMIN"), "SETUGE": ("ISD::UMAX", "ISD::UMIN")}


def _is_c(n: SDNode) -> bool:
    return n.opcode == "ISD::Constant" and isinstance(n.value, int)


class _Ctx:
    def __init__(self, dag):
        self.dag = dag
        self.consts: dict = {}
        for n in dag.nodes:
            if _is_c(n):
                self.consts.setdefault((n.value, n.vt), n)

    def const(self, v: int, vt: str) -> SDNode:
        v = _wrap(v, vt)
        n = self.consts.get((v, vt))
        if n is None:
            n = SDNode(-1, "ISD::Constant", vt, (), value=v, block=self.dag.block)
            n.source = "uniform"
            self.dag.nodes.append(n)
            self.consts[(v, vt)] = n
        return n

    def new(self, opcode, vt, ops, ir=None) -> SDNode:
        n = SDNode(-1, opcode, vt, ops, ir=ir, block=self.dag.block)
        n.divergent = any(o.divergent for o in ops)
        self.dag.nodes.append(n)
        return n


def _users(dag) -> dict[int, int]:
    cnt: dict[int, int] = {}
    for n in dag.nodes:
        for o in n.ops:
            cnt[id(o)] = cnt.get(id(o), 0) + 1
    return cnt


def run(dag) -> None:
    ctx = _Ctx(dag)
    changed = False
    uses = _users(dag)
    for n in list(dag.nodes):
        opc = n.opcode
        ops = n.ops
        if len(ops) == 2 and opc in _FOLD:
            a, b = ops
            if _is_c(a) and _is_c(b):
                _become_const(n, _wrap(_FOLD[opc](a.value, b.value), n.vt))
                changed = True
                continue
            if opc in COMMUTATIVE and _is_c(a) and not _is_c(b):
                n.ops = [b, a]
                a, b = b, a
                changed = True
            if opc == "ISD::SUB" and _is_c(b) and not _is_c(a):
                n.opcode = "ISD::ADD"
                n.ops = [a, ctx.const(-b.value, n.vt)]
                changed = True
            elif opc == "ISD::MUL" and _is_c(b) and b.value > 1 and (b.value & (b.value - 1)) == 0:
                n.opcode = "ISD::SHL"
                n.ops = [a, ctx.const(b.value.bit_length() - 1, n.vt)]
                changed = True
        if opc == "ISD::SRA" and _is_c(ops[1]) and ops[0].opcode == "ISD::SHL" and _is_c(ops[0].ops[1]) \
                and ops[0].ops[1].value == ops[1].value and ops[1].value in (16, 24) and n.vt == "i32":
            n.opcode = "ISD::SIGN_EXTEND_INREG"
            n.ops = [ops[0].ops[0], ctx.const(32 - ops[1].value, "i32")]
            n.value = f"i{32 - ops[1].value}"
            changed = True
        elif opc == "ISD::SELECT" and len(ops) == 3 and ops[0].opcode == "ISD::SETCC" and n.vt == "i32":
            c, a, b = ops
            if c.cc in _MINMAX and uses.get(id(c), 0) == 1:
                if c.ops[0] is a and c.ops[1] is b:
                    n.opcode = _MINMAX[c.cc][0]
                    n.ops = [a, b]
                    changed = True
                elif c.ops[0] is b and c.ops[1] is a:
                    n.opcode = _MINMAX[c.cc][1]
                    n.ops = [b, a]
                    changed = True
        elif opc in ("ISD::CTLZ", "ISD::CTTZ") and n.vt == "i32":
            inner = ctx.new(opc + "_ZERO_UNDEF", "i32", [ops[0]])
            inner.ir = n.ir
            inner.intrinsic = n.intrinsic
            n.opcode = "ISD::UMIN"
            n.ops = [inner, ctx.const(32, "i32")]
            changed = True
    # second sweep: rules that look at the already-canonical forms
    uses = _users(dag)
    for n in list(dag.nodes):
        if n.opcode == "ISD::SMAX" and len(n.ops) == 2:
            x, s = n.ops
            if s.opcode == "ISD::SUB" and _is_c(s.ops[0]) and s.ops[0].value == 0 and s.ops[1] is x:
                n.opcode = "ISD::ABS"
                n.ops = [x]
                changed = True
        if n.opcode in ("ISD::ADD", "ISD::XOR") and len(n.ops) == 2:
            for i in (0, 1):
                inner, c = n.ops[i], n.ops[1 - i]
                if inner.opcode != n.opcode or uses.get(id(inner), 0) != 1 or c.divergent:
                    continue
                _refresh(inner)
                if not inner.divergent:
                    continue
                a, b = inner.ops
                if not a.divergent and b.divergent:
                    u, d = a, b
                elif not b.divergent and a.divergent:
                    u, d = b, a
                else:
                    continue
                if _is_c(u) and _is_c(c):
                    continue
                new = ctx.new(n.opcode, n.vt, [u, c])
                n.ops = [d, new]
                changed = True
                break
    if changed or any(n.id < 0 for n in dag.nodes):
        _resort(dag)  # also drops nodes no root reaches (dead after a rewrite)


def _refresh(n: SDNode) -> None:
    if n.source is None and n.ops:
        n.divergent = any(o.divergent for o in n.ops)


def _become_const(n: SDNode, v: int) -> None:
    n.opcode = "ISD::Constant"
    n.ops = []
    n.value = v
    n.source = "uniform"
    n.divergent = False


def _resort(dag) -> None:
    order: list[SDNode] = []
    state: dict[int, int] = {}
    root_ids = {id(r) for r in dag.roots}
    for root in [r for r in dag.nodes if id(r) in root_ids or r.opcode == "ISD::EntryToken"]:
        if id(root) in state:
            continue
        stack = [(root, 0)]
        while stack:
            node, i = stack.pop()
            if i == 0:
                if id(node) in state:
                    continue
                state[id(node)] = 1
            if i < len(node.ops):
                stack.append((node, i + 1))
                child = node.ops[i]
                if id(child) not in state:
                    stack.append((child, 0))
            else:
                order.append(node)
    live = set()
    for n in order:
        n.uses = 0
    for n in order:
        for o in n.ops:
            o.uses += 1
    for i, n in enumerate(order):
        n.id = i
        if n.source == "divergent":
            n.divergent = True
        elif n.source == "uniform":
            n.divergent = False
        elif n.ops and n.opcode != "ISD::CopyToReg":
            n.divergent = any(o.divergent for o in n.ops)
        elif n.opcode == "ISD::CopyToReg":
            n.divergent = n.ops[0].divergent
        live.add(id(n))
    dag.nodes[:] = order
