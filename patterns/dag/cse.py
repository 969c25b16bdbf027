"""EarlyCSE as llc runs it before selection (``common_subexpressions``): an instruction equal to
one in a dominating position is replaced by it; and the classification of IR values by their
class that the prepasses share (``value_kind``: instruction, argument, constant, other; cached
per class, so constants are told apart before any dictionary lookup)."""

from __future__ import annotations

from typing import Any, Final

from patterns.dag.isd import ISD_OF_BINOP
from patterns.ir.dominators import immediate_dominators
from patterns.ir.opcodes import COMMUTATIVE_BINOPS

# (``reversed`` through a name mypyc does not know: mypyc 2.4 stops with an internal
# error on ``for x in reversed(lst)`` over an untyped list in a compiled build)
_rev: Final[Any] = reversed


CSE_OPS: Final = frozenset(ISD_OF_BINOP) | {"icmp", "select", "zext", "sext", "trunc", "getelementptr", "freeze"}


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
    cse_ops = CSE_OPS
    commutative = COMMUTATIVE_BINOPS
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
KINDS: Final[dict] = {}  # IR value class -> "I" instruction, "A" argument, "C" constant, "O" other


def value_kind(cls) -> str:
    k = KINDS.get(cls)
    if k is None:
        k = KINDS[cls] = {"Instruction": "I", "Argument": "A", "Constant": "C"}.get(cls.__name__, "O")
    return k
