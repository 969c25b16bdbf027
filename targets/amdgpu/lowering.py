"""The AMDGPU target's engine hooks (tdgen.hooks; ``Target(hooks="lowering")`` in spec.py):
its IR pass before selection, AMDGPUCodeGenPrepare's 24-bit multiplies (codegenprepare.py)."""

from tdgen.hooks import TargetHooks

from .codegenprepare import mul24

HOOKS = TargetHooks(ir_passes=(mul24,))
