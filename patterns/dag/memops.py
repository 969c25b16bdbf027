"""The memory operand of a DAG memory node (LLVM's MachineMemOperand, as
SelectionDAGBuilder makes it for a load, store or atomic): ``MemOperand`` and ``mem_operand``.

- ``addrspace``: the pointer operand's address space;
- ``memvt`` / ``size``: the value type accessed in memory and its store size in bytes (a
  load's result type, a store's stored value's, an atomic's value's);
- ``align``: the instruction's ``align``, else the ABI alignment of the type in the
  module's data layout (``patterns.ir.datalayout``);
- flags, as MachineMemOperand::Flags name them: ``MOLoad`` / ``MOStore`` (an atomicrmw is
  both), ``MOVolatile``, ``MOInvariant`` (``!invariant.load``), ``MONonTemporal``
  (``!nontemporal``); and ``target_flags``, the target's own (TargetLowering::
  getTargetMMOFlags: the target's ``TargetHooks.mem_flags``, by their MIR names, e.g.
  AMDGPU's ``amdgpu-noclobber`` from ``!amdgpu.noclobber``);
- ``ordering`` / ``syncscope``: an atomic access's (None for a plain one).

Where it stops: alias-analysis facts (pointsToConstantMemory making a load invariant,
``noalias`` scopes), ``dereferenceable`` and the MachinePointerInfo's IR value/offset are
not recorded; the node keeps its IR instruction (``ir``) for anything else."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

# IR metadata -> the generic MachineMemOperand flag it sets
_METADATA_FLAGS: Final = {"!invariant.load": "MOInvariant", "!nontemporal": "MONonTemporal"}


@dataclass(frozen=True)
class MemOperand:
    """A memory node's access (see the module docstring)."""

    addrspace: int
    memvt: str
    size: int
    align: int
    flags: frozenset
    target_flags: tuple = ()
    ordering: str | None = None
    syncscope: str | None = None
    pointer: str | None = None  # the IR pointer's name (MachinePointerInfo's value)

    @property
    def is_volatile(self) -> bool:
        return "MOVolatile" in self.flags

    @property
    def is_invariant(self) -> bool:
        return "MOInvariant" in self.flags

    def text(self) -> str:
        """As MIR prints a memory operand (MachineMemOperand::print): ``(volatile invariant
        "amdgpu-noclobber" load (s32) from %ir.p, addrspace 1)``."""
        f = self.flags
        words = [w for flag, w in (("MOVolatile", "volatile"), ("MONonTemporal", "non-temporal"),
                                   ("MOInvariant", "invariant")) if flag in f]
        words += [f'"{t}"' for t in self.target_flags]
        load, store = "MOLoad" in f, "MOStore" in f
        words.append("load store" if load and store else ("load" if load else "store"))
        if self.syncscope is not None:
            words.append(f'syncscope("{self.syncscope}")')
        if self.ordering is not None:
            words.append(self.ordering)
        words.append(f"(s{self.size * 8})")
        if self.pointer is not None:
            words.append(f"{'on' if load and store else ('from' if load else 'into')} %ir.{self.pointer}")
        tail = f", align {self.align}" if self.align != self.size else ""
        return f"({' '.join(words)}{tail}, addrspace {self.addrspace})"


def module_layout(fn, target):
    """The DataLayout a function's memory operands are sized with: its module's, else
    its target's (``Target.data_layout``), else LLVM's default."""
    from patterns.ir.datalayout import layout_of_text

    m = getattr(fn, "module", None)
    dl = getattr(m, "data_layout", None) if m is not None else None
    if dl is not None:
        return dl
    return layout_of_text(getattr(target, "data_layout", "") or "")


def _store_size(ty, layout) -> int:
    return layout.store_size(ty)


def mem_operand(ins, vt: str, target_flags=None, layout=None) -> MemOperand:
    """The memory operand of load/store/atomicrmw ``ins`` accessing a value of type
    ``vt`` (the node's); ``target_flags(ins)`` the target's MMO flags (or None);
    ``layout`` the module's DataLayout (for the size and a missing alignment)."""
    op = ins.opcode
    ops = ins.operands
    ptr = ops[1] if op == "store" else ops[0]
    ty = ops[0].type if op == "store" else (ops[1].type if op == "atomicrmw" else ins.type)
    flags = set()
    if op in ("load", "atomicrmw"):
        flags.add("MOLoad")
    if op in ("store", "atomicrmw"):
        flags.add("MOStore")
    if ins.volatile:
        flags.add("MOVolatile")
    for name, _ in ins.metadata or ():
        f = _METADATA_FLAGS.get(name)
        if f is not None:
            flags.add(f)
    tflags = tuple(target_flags(ins)) if target_flags is not None else ()
    size = _store_size(ty, layout) if layout is not None else 0
    align = ins.align
    if align is None and layout is not None:
        align = layout.abi_align(ty)
    name = getattr(ptr, "name", None)
    return MemOperand(int(getattr(ptr.type, "addrspace", 0) or 0), vt, size, int(align or 1), frozenset(flags),
                      tflags, ins.ordering, ins.syncscope, name if isinstance(name, str) else None)
