"""Which records were built with errors, or refer to a record that was.

While a spec loads, a malformed record is kept but marked invalid
(``tdgen.model.record.is_invalid``); ``depends_on_invalid`` also follows its references
(an SDNode's profile, an instruction's class chain, a defm's multiclass, a lowering's
intrinsic and node ...), so the checks skip every record an earlier error would make
them misreport.
"""

from __future__ import annotations

from .fragments import ImmLeaf, PatLeaf
from .instructions import Defm, InstrClass, Instruction, Multiclass
from .lowering import Lowering, Rewrite
from .nodes import SDNode
from .record import is_invalid


def _class_chain_invalid(cls: object) -> bool:
    c = cls
    while c is not None:
        if not isinstance(c, InstrClass) or is_invalid(c):
            return True
        c = c.parent
    return False


def depends_on_invalid(rec: object) -> bool:
    """Whether ``rec`` is invalid or refers to a record that is."""
    if is_invalid(rec):
        return True
    if isinstance(rec, SDNode):
        return is_invalid(rec.profile)
    if isinstance(rec, InstrClass):
        return _class_chain_invalid(rec)
    if isinstance(rec, Instruction):
        return rec.cls is not None and _class_chain_invalid(rec.cls)
    if isinstance(rec, Multiclass):
        return any(depends_on_invalid(t) for t in rec.defs)
    if isinstance(rec, Defm):
        return depends_on_invalid(rec.multiclass)
    if isinstance(rec, Lowering):
        return is_invalid(rec.intrinsic) or depends_on_invalid(rec.node)
    if isinstance(rec, Rewrite):
        return is_invalid(rec.target)
    if isinstance(rec, (ImmLeaf, PatLeaf)):
        return rec.xform is not None and is_invalid(rec.xform)
