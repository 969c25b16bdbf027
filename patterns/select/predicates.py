"""Executable predicates: what a pattern's predicate check decides on a DAG node (``eval_predicate``).

Divergence predicates test ``SDNode.divergent``; immediate predicates -- an ``ImmLeaf``'s
code over ``Imm`` (kind ``imm``), a ``PatLeaf``'s over the ConstantSDNode ``N`` (kind
``nodeimm``) -- run their C++ translated by ``tdgen.cppexpr`` on the constant;
``hasOneUse`` predicates use the node's use count; the constant-bus predicate counts
scalar operands; and a small registry covers named target predicates
(``register_predicate``).
"""

from __future__ import annotations

from typing import Callable

from tdgen.cppexpr import CTX_IMM, CTX_NODE, compile_imm_code

from patterns.select.pattern import Predicate

__all__ = ["NAMED_PREDICATES", "register_predicate", "eval_predicate", "is_inline_immediate", "CONSTANT_BUS_LIMIT",
           "imm_context", "imm_predicate_holds"]


# the executable predicates of named PatFrags (``register_predicate``)
NAMED_PREDICATES: dict[str, Callable] = {}


def register_predicate(name: str, fn: Callable) -> None:
    """Give the PatFrag ``name`` an executable predicate ``fn(sdnode, bound_children) -> bool``."""
    NAMED_PREDICATES[name] = fn


# i32 values the GFX9 VALU encodes inline (no constant-bus use): -16..64 and the bit
# patterns of +-0.5, +-1.0, +-2.0, +-4.0 and 1/(2*pi).
_INLINE_FP32 = frozenset({0x3F000000, 0xBF000000, 0x3F800000, 0xBF800000, 0x40000000, 0xC0000000,
                          0x40800000, 0xC0800000, 0x3E22F983})


def is_inline_immediate(n) -> bool:
    if n.opcode != "ISD::Constant" or not isinstance(n.value, int):
        return False
    return -16 <= n.value <= 64 or (n.value & 0xFFFFFFFF) in _INLINE_FP32


CONSTANT_BUS_LIMIT = 1  # gfx900 VOP3


def eval_predicate(pr: Predicate, n, operands=None) -> bool:
    k = pr.kind
    if k == "bus":
        if not n.divergent:
            return False
        scalar = sum(1 for o in operands or () if o is not None and not o.divergent and not is_inline_immediate(o))
        return scalar <= CONSTANT_BUS_LIMIT
    if k == "uniform":
        return not n.divergent
    if k == "divergent":
        return n.divergent
    if k == "oneuse":
        return n.uses == 1
    if k == "imm" or k == "nodeimm":
        return imm_predicate_holds(pr, n)
    if k == "named":
        fn = NAMED_PREDICATES.get(pr.name)
        return bool(fn(n)) if fn else False
    return False


_IMM_FNS: dict[tuple[str, str], Callable] = {}
_CONSTANT_OPCODES = ("ISD::Constant", "ISD::TargetConstant")


def imm_context(pr: Predicate) -> str:
    """The C++ context of an immediate predicate's code: ``"imm"`` (an ImmLeaf's
    ImmediateCode, reading ``Imm``) or ``"node"`` (a PatLeaf's PredicateCode on the
    ConstantSDNode ``N``)."""
    return CTX_IMM if pr.kind == "imm" else CTX_NODE


def imm_predicate_holds(pr: Predicate, n) -> bool:
    """An immediate predicate on node ``n`` (a Constant or TargetConstant; anything
    else fails). Code the model cannot read never matches (tdgen lint reports it)."""
    key = (pr.code, pr.kind)
    fn = _IMM_FNS.get(key)
    if fn is None:
        fn = _IMM_FNS[key] = compile_imm_code(pr.code, imm_context(pr)) or (lambda _v, _b: False)
    if n.opcode not in _CONSTANT_OPCODES or n.value.__class__ is not int:
        return False
    vt = n.vt
    return fn(n.value, int(vt[1:]) if vt[:1] == "i" and vt[1:].isdigit() else 64)
