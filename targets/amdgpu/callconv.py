"""AMDGPU's calling-convention register types of small values (AMDGPUCallingConv.td, LLVM 19):
a non-kernel function passes an i1 argument, and returns an i1 value, in a 32-bit VGPR
(CC_AMDGPU_Func / RetCC_AMDGPU_Func: ``CCIfType<[i1], CCPromoteToType<i32>>``), so the DAG
reads the argument as the TRUNCATE of its register (llc's ``(i1 (trunc i32))`` selects
V_AND_B32 1 + V_CMP_EQ_U32 1) and any-extends the returned value (V_CNDMASK_B32 0, 1).
Kernel arguments come from the kernarg segment instead (not this hook). Where it stops:
i8/i16 values with ``zeroext``/``signext`` (CCIfExtend) keep their type here.

``register_class_for``: the class of a divergent i1 value's virtual register (a lane
mask in SReg_64, as llc's finalize-isel MIR has ``%5:sreg_64 = COPY %39`` for a compare
read in another block)."""


def argument_register_type(vt: str, cc: str, is_return: bool) -> str | None:
    if cc == "amdgpu_kernel" or vt != "i1":
        return None
    return "i32"


def register_class_for(vt: str, divergent: bool) -> tuple[str, str] | None:
    """SITargetLowering::getRegClassFor: a divergent i1 is a lane mask, one bit per lane
    in a scalar register pair (wave64's boolean class); anything else as the engine
    picks it."""
    if vt == "i1" and divergent:
        return "SReg_64", "scalar"
    return None
