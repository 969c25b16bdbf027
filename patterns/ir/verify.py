"""The verifier of parsed modules: the rules of LLVM 19's IR verifier (``opt-19
-passes=verify``) that a well-formed parse can still break.

Stage job: a linked ``Module`` -> nothing, or every violation as one ``file:line:col``
error each (``ErrorList``), in the order of the text. ``verify_module`` checks, per
defined function:

- SSA dominance: every use of an instruction (operands, operand-bundle inputs) is
  dominated by its definition (for a phi: the end of the incoming block is);
- the entry block has no predecessors (no terminator names it);
- phis: grouped at the top of their block; one entry per CFG edge into the block, as
  LLVM counts predecessors -- once per successor slot of the predecessor's terminator,
  so a ``switch`` with two cases to the block, or ``br i1 %c, label %b, label %b``, needs
  two entries for that predecessor, and entries of one predecessor must all carry the
  same value; every incoming block a predecessor;
- ``callbr`` calls inline asm (LLVM 19 allows only asm-goto);
- convergence control (``patterns/ir/verify_convergence.py``);
- module flags and ``!tbaa`` access tags (``patterns/ir/verify_metadata.py``);
- parameter attributes against their types, ``optnone`` with ``noinline``, the calling
  conventions that return void, and where ``!range``, ``!nonnull``, ``!align`` and
  ``!dereferenceable`` may be attached (``patterns/ir/verify_attrs.py``; declarations too).

``patterns.ir.reader.parse_module`` runs ``verify_module`` on every module it reads. A compiled module
(``patterns.native.MODULES``).
"""

from __future__ import annotations

from typing import Final

from tdgen.errors import Diagnostics, ParseError, expected

from patterns.ir.core import TERMINATORS, Module
from patterns.ir.dominators import DomTree
from patterns.ir.function import Argument, BasicBlock, Instruction
from patterns.ir.verify_attrs import verify_atomic_size, verify_attributes, verify_call, verify_metadata_placement
from patterns.ir.verify_convergence import verify_convergence
from patterns.ir.verify_metadata import TBAA, verify_module_flags

__all__ = ["verify_module"]

_CALLS: Final = frozenset({"call", "callbr", "invoke"})
_TERMINATORS: Final = TERMINATORS


def verify_module(mod: Module, intrinsic_immargs: str = "") -> None:
    """Check every rule of this module's docstring on every function of ``mod``; raise
    all violations together (``ParseError`` or ``ErrorList``). ``intrinsic_immargs``:
    the immarg table text of the target's intrinsics (see ``parse_module``)."""
    errors = Diagnostics()
    functions = {f.name: f for f in mod.functions}
    tbaa = TBAA(mod.metadata)
    for fn in mod.functions:
        verify_attributes(fn, errors)
        if not fn.blocks:
            continue
        tree = _verify_function(fn, errors, functions, mod.metadata, tbaa, intrinsic_immargs)
        verify_convergence(fn, errors, tree)
    verify_module_flags(mod, errors)
    errors.check()


class _Tree:
    """The function's dominator tree, built on first use (most functions have no use
    that crosses blocks)."""

    __slots__ = ("fn", "_tree")

    def __init__(self, fn) -> None:
        self.fn = fn
        self._tree: DomTree | None = None

    def get(self) -> DomTree:
        t = self._tree
        if t is None:
            t = self._tree = DomTree.for_blocks(self.fn.blocks)
        return t

    def dominates(self, a: BasicBlock, b: BasicBlock) -> bool:
        """Block ``a`` dominates block ``b`` (every block dominates an unreachable one)."""
        bpre, bpost = self.get().by_index
        ib = b.index
        pb = bpre[ib]
        if pb < 0:
            return True
        ia = a.index
        pa = bpre[ia]
        return pa >= 0 and pa <= pb and bpost[ib] <= bpost[ia]


def _same_value(a, b) -> bool:
    """LLVM's Value identity: instructions, arguments and blocks are themselves; constants
    are uniqued, so two equal constants are one value."""
    if a is b:
        return True
    kinds = (Instruction, Argument, BasicBlock)
    if isinstance(a, kinds) or isinstance(b, kinds):
        return False
    return type(a) is type(b) and a == b


def _verify_function(fn, errors: Diagnostics, functions: dict, metadata: dict, tbaa: TBAA,
                     intrinsic_immargs: str = "") -> _Tree:
    tree = _Tree(fn)
    entry = fn.blocks[0]
    for blk in fn.blocks:
        seen = set()
        edges: dict | None = None  # predecessor -> number of edges into blk
        prev = None
        inst: Instruction
        for inst in blk.instructions:
            op = inst.opcode
            if op == "phi":
                if prev is not None and prev.opcode != "phi":
                    errors.add(ParseError(inst.span, expected(
                        f"phis grouped at the top of {blk.ref}", f"a phi after '{prev.opcode}'")))
                if edges is None:
                    edges = _edges_into(blk)
                _check_phi(inst, blk, edges, tree, errors)
            else:
                operands = inst.operands or ()
                if op in _CALLS and inst._bundles:
                    operands = [*operands, *(v for _, vals in inst._bundles for v in vals)]
                for v in operands:
                    if type(v) is not Instruction:
                        continue
                    vb = v.block
                    if vb is blk:
                        if v not in seen:
                            errors.add(ParseError(inst.span, expected(
                                "a value defined before its use", f"{v.ref} used before its definition")))
                        continue
                    if not tree.dominates(vb, blk):
                        errors.add(ParseError(inst.span, expected(
                            "a value whose definition dominates its use",
                            f"{v.ref}, defined in {v.block.ref} which does not dominate {blk.ref}")))
                if op in _TERMINATORS:
                    if entry in inst.targets:
                        errors.add(ParseError(inst.span, expected(
                            f"no branch to the entry block {entry.ref} (it has no predecessors)",
                            f"a branch to it from {blk.ref}")))
                    if inst.opcode == "callbr" and inst.inline_asm is None:
                        errors.add(ParseError(inst.span, expected(
                            "inline asm as the callee of 'callbr' (LLVM 19 supports only asm goto)",
                            f"a call of {_callee_text(inst)}")))
            if inst._metadata:
                verify_metadata_placement(inst, errors, metadata)
                for name, node in inst.metadata:
                    if name == "!tbaa":
                        msg = tbaa.check(inst, node)
                        if msg is not None:
                            errors.add(ParseError(inst.span, msg))
            if op == "call":
                verify_call(inst, functions, errors, intrinsic_immargs)
            elif (op == "load" or op == "store") and inst.atomic or op == "atomicrmw" or op == "cmpxchg":
                verify_atomic_size(inst, errors)
            seen.add(inst)
            prev = inst
    return tree


def _callee_text(inst) -> str:
    if inst.callee:
        return "@" + inst.callee
    cv = inst.callee_value
    return getattr(cv, "ref", None) or "a non-asm value"


def _edges_into(blk) -> dict:
    """Each predecessor with the number of its terminator's successor slots naming ``blk``
    (LLVM's ``predecessors(BB)`` lists a block once per such slot)."""
    out: dict = {}
    for p in blk.predecessors:
        term = p.terminator
        slots = term.targets if term is not None and term.targets else p.successors
        out[p] = sum(1 for s in slots if s is blk) or 1
    return out


def _check_phi(inst, blk, edges: dict, tree: _Tree, errors: Diagnostics) -> None:
    per_block: dict = {}
    for v, inc in inst.incoming:
        if inc not in edges:
            errors.add(ParseError(inst.span, expected(f"a predecessor of {blk.ref} as incoming block", inc.ref)))
            continue
        per_block.setdefault(inc, []).append(v)
        if type(v) is Instruction and v.block is not inc and not tree.dominates(v.block, inc):
            errors.add(ParseError(inst.span, expected(
                f"a value available at the end of {inc.ref}",
                f"{v.ref}, defined in {v.block.ref} which does not dominate it")))
    for pred, n in edges.items():
        vals = per_block.get(pred)
        if vals is None:
            errors.add(ParseError(inst.span, expected(
                f"an incoming value for each predecessor of {blk.ref}", f"none for {pred.ref}")))
            continue
        if len(vals) != n:
            errors.add(ParseError(inst.span, expected(
                f"{n} incoming entr{'y' if n == 1 else 'ies'} for {pred.ref} (one per edge from {pred.ref} "
                f"to {blk.ref})", f"{len(vals)}")))
        first = vals[0]
        for v in vals[1:]:
            if not _same_value(first, v):
                errors.add(ParseError(inst.span, expected(
                    f"one incoming value for all entries of {pred.ref}",
                    f"{_ref(first)} and {_ref(v)}")))
                break


def _ref(v) -> str:
    r = getattr(v, "ref", None)
    return r if r is not None else str(v)
