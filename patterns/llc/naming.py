"""Value names as LLVM gives them when it prints a function: ``number_unnamed`` numbers
the unnamed values (``%0``, ``%1`` ...) in program order.
"""

from __future__ import annotations

from typing import Final

from patterns.ir.core import VOID
from patterns.ir.function import Function, Instruction


_VOID_TYPE: Final = VOID


def number_unnamed(fn: Function, unnamed: bool = False) -> list:
    """Name the unnamed values (and renumber the numbered ones) in program order, as
    LLVM numbers them when it prints: ``%0``, ``%1`` ... Returns the instructions renamed
    (the kept text of every instruction is dropped then: readers print the new names).
    ``unnamed``: the caller knows the function holds an unnamed value (which is renamed
    then), so the texts are dropped in the same walk."""
    i: Instruction
    k = 0
    renamed = []
    if unnamed:
        for b in fn.blocks:
            for i in b.instructions:
                i._text = None
                if i.type is not _VOID_TYPE and (i.name is None or _numbered(i.name)):
                    if i.name != str(k):
                        i.name = str(k)
                        i.slot = None
                        renamed.append(i)
                    k += 1
        return renamed
    for b in fn.blocks:
        for i in b.instructions:
            if i.type is not _VOID_TYPE and (i.name is None or _numbered(i.name)):
                if i.name != str(k):
                    i.name = str(k)
                    i.slot = None
                    renamed.append(i)
                k += 1
    if renamed:
        for b in fn.blocks:
            for i in b.instructions:
                i._text = None
    return renamed


def _numbered(name: str) -> bool:
    """A numbered value's name (``%0``, ``%12``)."""
    return name.isdigit()
