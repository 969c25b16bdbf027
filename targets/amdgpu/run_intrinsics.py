"""The amdgcn intrinsics' semantics for the reference interpreter (tdgen.hooks
``run_intrinsics``; patterns/run/lanes.py's primitives).

Work-item and work-group ids, the kernarg / implicit-argument / dispatch-packet pointers
(the segments patterns/run/launch.py lays out), ``s.barrier``, and the cross-lane
operations: readfirstlane, readlane, ds.bpermute / ds.permute (gfx9: in wave64 every lane
is addressable), ds.swizzle, mov.dpp / update.dpp, ballot, mbcnt.lo/hi. ``wave.barrier``,
``s.waitcnt`` and ``sched.barrier`` only constrain scheduling: they do nothing here.
"""




def _none(w, inst, args, m):
    return None


def run_intrinsics() -> dict:
    """The table (made on first use: the interpreter's modules are imported only by a run)."""
    from patterns.run import lanes
    from patterns.run.intrinsics import BARRIER

    return {
        "llvm.amdgcn.workitem.id.x": lanes.local_id(0),
        "llvm.amdgcn.workitem.id.y": lanes.local_id(1),
        "llvm.amdgcn.workitem.id.z": lanes.local_id(2),
        "llvm.amdgcn.workgroup.id.x": lanes.group_id(0),
        "llvm.amdgcn.workgroup.id.y": lanes.group_id(1),
        "llvm.amdgcn.workgroup.id.z": lanes.group_id(2),
        "llvm.amdgcn.kernarg.segment.ptr": lanes.segment("kernarg"),
        "llvm.amdgcn.implicitarg.ptr": lanes.segment("implicit"),
        "llvm.amdgcn.dispatch.ptr": lanes.segment("dispatch"),
        "llvm.amdgcn.s.barrier": BARRIER,
        "llvm.amdgcn.wave.barrier": _none,
        "llvm.amdgcn.s.waitcnt": _none,
        "llvm.amdgcn.sched.barrier": _none,
        "llvm.amdgcn.readfirstlane": lanes.read_first_lane,
        "llvm.amdgcn.readfirstlane.*": lanes.read_first_lane,
        "llvm.amdgcn.readlane": lanes.read_lane,
        "llvm.amdgcn.readlane.*": lanes.read_lane,
        "llvm.amdgcn.ds.bpermute": lanes.bpermute("full"),
        "llvm.amdgcn.ds.permute": lanes.permute("full"),
        "llvm.amdgcn.ds.swizzle": lanes.swizzle,
        "llvm.amdgcn.mov.dpp.*": lanes.dpp(update=False),
        "llvm.amdgcn.update.dpp.*": lanes.dpp(update=True),
        "llvm.amdgcn.ballot.*": lanes.ballot,
        "llvm.amdgcn.mbcnt.lo": lanes.mbcnt(False),
        "llvm.amdgcn.mbcnt.hi": lanes.mbcnt(True),
    }
