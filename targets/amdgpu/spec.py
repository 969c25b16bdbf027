"""The AMDGPU reference subset (gfx900, wave64 by default), assembled from its modules.

To add a module (e.g. bitops.py defining DEFS/PATTERNS/...), add its name to
MODULE_NAMES -- one line.
"""

import importlib

from tdgen.hw import WaveModel
from tdgen.model import Target

from . import formats, intrinsics, registers
from .legality import LEGALITY
from .semantics import with_semantics
from .uniformity import UNIFORMITY

# Modules contributing records (any of REGISTER_CLASSES, PHYSICAL_REGISTERS, OPERANDS,
# INTRINSICS, NODES, XFORMS, FRAGS, FRAG_CLASSES, CLASSES, MULTICLASSES, DEFS, PATTERNS,
# LOWERINGS, REWRITES, CUSTOM_SELECTS), in record order.
MODULE_NAMES = (
    "alu",
    "ds",
    "lanes",
    "vop3",
    "salu_logic",
    "bitops",
    "mul24",
    "vectors",
    "i64",
    "fp32",
    "control",
    "misc_opt",  # last: SIInstructions.td's late patterns (see misc_opt.py)
)
MODULES = tuple(importlib.import_module(f".{n}", __package__) for n in MODULE_NAMES)


# AMDGPU's data layout in LLVM 19 (AMDGPUTargetMachine.cpp computeDataLayout, amdgcn):
# what `opt-19 -mtriple=amdgcn -S` prints for a module without one
DATA_LAYOUT = ("e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128"
               "-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512"
               "-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9")


def _all(name):
    return tuple(x for m in MODULES for x in getattr(m, name, ()))


TARGET = Target(
    "amdgpu",
    namespace="AMDGPU",
    target_prefix="amdgcn",
    isd_namespace="AMDGPUISD",
    description="AMDGPU reference subset (GFX9, gfx900): 32-bit SALU/VALU ALU, DS permutes, lane reads",
    intrinsics=intrinsics.INTRINSICS + _all("INTRINSICS"),
    nodes=_all("NODES"),
    frags=_all("FRAGS"),
    xforms=_all("XFORMS"),
    frag_classes=_all("FRAG_CLASSES"),
    register_classes=registers.REGISTER_CLASSES + _all("REGISTER_CLASSES"),
    physical_registers=registers.PHYSICAL_REGISTERS + _all("PHYSICAL_REGISTERS"),
    operands=registers.OPERANDS + _all("OPERANDS"),
    classes=formats.CLASSES + _all("CLASSES"),
    multiclasses=_all("MULTICLASSES"),
    defs=with_semantics(_all("DEFS")),
    patterns=_all("PATTERNS"),
    lowerings=_all("LOWERINGS"),
    rewrites=_all("REWRITES"),
    custom_selects=_all("CUSTOM_SELECTS"),
    uniformity=UNIFORMITY,
    wave=WaveModel(sizes=(64, 32), default_size=64, bpermute_wave64="full"),
    hooks="lowering",
    legality=LEGALITY,
    data_layout=DATA_LAYOUT,
)
