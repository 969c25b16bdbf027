"""dslike's engine hooks (tdgen.hooks; ``Target(hooks="lowering")`` in spec.py): its own
Select steps for the nodes whose machine code no pattern of tdgen expresses.

- ``ISD::RET``: a kernel (``ptx_kernel`` / ``amdgpu_kernel``, dslike's kernel calling
  conventions) ends the wave's program with ``S_ENDPGM`` (spec.py gives its semantics).
  A return from any other function needs a calling convention dslike does not define:
  a "not modelled" error at the node.
- ``ISD::BITCAST`` between same-size types held by one register class (i32 <-> f32 in
  SReg_32 or VReg_32): a ``COPY`` in the class of the value's register file, what LLVM's
  BitConvert patterns (``Pat<(f32 (bitconvert i32:$src)), (f32 RC:$src)>``) make of it
  (tdgen's Pat has no result that is an operand alone, so this is the hook's job). Other
  bitcasts (different sizes, vectors, a type no one class holds together with the
  source's) get a "not modelled" error.
"""

from __future__ import annotations

from tdgen.errors import VerifyError, expected
from tdgen.hooks import TargetHooks

KERNEL_CCS = frozenset({"ptx_kernel", "amdgpu_kernel"})


def _not_modelled(n, what: str) -> VerifyError:
    from patterns.select.explain import node_text

    return VerifyError(getattr(n.ir, "span", None), expected(f"a form of {node_text(n)} the dslike target selects",
                                                             f"{what} (not modelled)"), record=n.ir_name())


def ret(n, sel, out) -> bool:
    """``S_ENDPGM`` for a kernel's ``ret void``."""
    fn = sel.fdags.function
    cc = getattr(fn, "cc", None)
    if cc not in KERNEL_CCS:
        raise _not_modelled(n, f"a return from a function of calling convention '{cc or 'ccc'}' "
                               "(dslike defines only kernels)")
    if n.ops:
        raise _not_modelled(n, "a kernel returning a value")
    out.append(sel.instr("S_ENDPGM", None, None, [], n))
    return True


def _class_holding(target, file: str, vts) -> str | None:
    """The first register class of ``file`` holding every type of ``vts``."""
    for rc in target.register_classes:
        names = {getattr(t, "name", None) for t in rc.types}
        if rc.file == file and all(v in names for v in vts):
            return rc.name
    return None


def bitcast(n, sel, out) -> bool:
    """A same-size bitcast within one register class: a COPY (the value's bits unchanged)."""
    from patterns.select.machine import reg_operand

    (src,) = n.ops
    file = "vector" if n.divergent or src.divergent else "scalar"
    rc = _class_holding(sel.t, file, (n.vt, src.vt))
    if rc is None:
        raise _not_modelled(n, f"a bitcast from {src.vt} to {n.vt} (no {file} register class holds both)")
    reg = reg_operand(sel, src)  # (the COPY keeps the bitcast's use of src)
    out.append(sel.instr("COPY", sel.vreg(n), rc, [reg], n))
    return True


HOOKS = TargetHooks(select={"ISD::RET": ret, "ISD::BITCAST": bitcast})
