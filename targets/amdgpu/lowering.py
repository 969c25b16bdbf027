"""The AMDGPU target's engine hooks (tdgen.hooks; ``Target(hooks="lowering")`` in spec.py):
its IR passes before selection, AMDGPUCodeGenPrepare's 24-bit multiplies (codegenprepare.py), LowerSwitch and
StructurizeCFG with what it refuses (structurize.py),
and its DAG hooks (dag_combine.py): the target combines, the Custom legalization of the
zero-undef counts, the known leading zeros of its nodes, the target nodes CSE'd and the
kernel's arguments read from memory; the target flags of memory operands (memory.py), the expansion of variable-index vector extracts
(vectors.py), the calling convention's register type of an i1 argument or return (callconv.py); and the semantics of its
intrinsics in the reference interpreter (run_intrinsics.py); the immarg parameters of its intrinsics for
the IR reader (intrinsic_immargs.py, generated from LLVM's tables)."""

from tdgen.hooks import TargetHooks

from .callconv import argument_register_type, register_class_for
from .codegenprepare import mul24
from .dag_combine import ARGUMENT_LOAD_CCS, CSE_NODES, DAG_COMBINE, KNOWN_LZ, LEGALIZE
from .divergent_cf import annotate_control_flow, refuse_infinite_loops
from .fix_sgpr_copies import fix_sgpr_copies
from .intrinsic_immargs import TABLE as INTRINSIC_IMMARGS
from .memory import mem_flags
from .run_intrinsics import run_intrinsics
from .select import PRELOADED, SELECT, legalize_constant_bus, lower_arguments
from .structurize import lcssa, lower_switch, structurize
from .vectors import should_expand_dynamic_extract

HOOKS = TargetHooks(ir_passes=(mul24,), pre_isel_passes=(lower_switch, structurize, lcssa), dag_combine=DAG_COMBINE, legalize=LEGALIZE, known_lz=KNOWN_LZ,
                    cse_nodes=CSE_NODES, argument_load_ccs=ARGUMENT_LOAD_CCS, mem_flags=mem_flags,
                    expand_dynamic_extract=should_expand_dynamic_extract,
                    argument_register_type=argument_register_type, register_class_for=register_class_for,
                    run_intrinsics=run_intrinsics,
                    select=SELECT, preloaded=PRELOADED,
                    machine_passes=(refuse_infinite_loops, annotate_control_flow, lower_arguments, fix_sgpr_copies,
                                    legalize_constant_bus),
                    intrinsic_immargs=INTRINSIC_IMMARGS)
