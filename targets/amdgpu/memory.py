"""AMDGPU's target flags of a memory operand (SITargetLowering::getTargetMMOFlags, LLVM 19):
``MONoClobber`` (MOTargetFlag1, spelled ``"amdgpu-noclobber"`` in MIR) on an access whose instruction carries ``!amdgpu.noclobber``
-- the mark AMDGPUAnnotateUniformValues leaves on a uniform global load no store in the
kernel may clobber, which lets a uniform load become a scalar S_LOAD. Called by the DAG
builder for each load, store and atomic (``TargetHooks.mem_flags``). Where it stops: the
annotation pass itself (its memory-SSA clobber walk) is not modelled: only IR that already
carries the metadata (clang's and opt's output do) gets the flag."""


def mem_flags(ins) -> tuple[str, ...]:
    for name, _ in ins.metadata or ():
        if name == "!amdgpu.noclobber":
            return ("amdgpu-noclobber",)
    return ()
