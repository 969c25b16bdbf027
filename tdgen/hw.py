"""Hardware facts a target states and the engine consumes.

- ``DivergenceKind`` / ``DivergenceRule`` / ``UniformityModel``: which values are sources
  of divergence or always uniform on this target (the data behind LLVM's
  ``TargetTransformInfo::isSourceOfDivergence`` / ``isAlwaysUniform``).
- ``WaveModel``: wavefront sizes and how cross-lane DS permutes behave in wave64.

The spec model (``tdgen.model``) holds these on ``Target``; the divergence analysis,
SelectionDAG builder and wave model read them from there.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from fnmatch import fnmatchcase


class DivergenceKind(enum.Enum):
    """How an intrinsic's result relates to divergence."""

    SOURCE = "source"  # result may differ per lane whatever the operands
    ALWAYS_UNIFORM = "uniform"  # result is the same on every lane whatever the operands
    FOLLOWS_OPERANDS = "follows"  # divergent iff some operand is divergent


@dataclass(frozen=True)
class DivergenceRule:
    """Divergence class for IR intrinsics whose name matches ``pattern``.

    ``pattern`` is a shell-style glob over the IR name (``llvm.amdgcn.image.atomic.*``).
    Rules cover intrinsics a target knows by name but does not declare in full."""

    pattern: str
    kind: DivergenceKind
    note: str = ""

    def matches(self, ir_name: str) -> bool:
        return fnmatchcase(ir_name, self.pattern)


@dataclass(frozen=True)
class UniformityModel:
    """Target facts for the uniformity analysis.

    Intrinsics declared in the spec carry their own ``DivergenceKind``; ``rules`` apply
    to the rest (first match wins); unmatched intrinsics follow their operands."""

    rules: tuple[DivergenceRule, ...] = ()
    # Calling conventions whose every argument is uniform (compute kernels).
    uniform_arg_ccs: frozenset[str] = frozenset()
    # Calling conventions where an argument is uniform iff it has one of these attributes.
    shader_ccs: frozenset[str] = frozenset()
    shader_uniform_arg_attrs: frozenset[str] = frozenset({"inreg", "byval"})
    # Other functions: an argument is uniform iff it has one of these attributes.
    default_uniform_arg_attrs: frozenset[str] = frozenset({"inreg"})
    # Loads from these address spaces produce divergent values.
    divergent_load_address_spaces: frozenset[int] = frozenset()
    # atomicrmw / cmpxchg results are divergent.
    atomics_divergent: bool = True
    # Calls to non-intrinsic functions are divergent.
    calls_divergent: bool = True
    # Prefix of IR intrinsic names (calls to other ``llvm.*`` functions follow their
    # operands unless a rule says otherwise).
    intrinsic_prefix: str = "llvm."
    # Inline asm: an output constraint (``=`` / ``&`` stripped) matching one of these
    # globs is a uniform (scalar) register; any other output is divergent. An asm call
    # with no divergent output is always uniform.
    uniform_asm_outputs: tuple[str, ...] = ()
    # ``extractvalue`` of these fields of these intrinsics' results is always uniform:
    # (intrinsic glob, field index), e.g. the exec mask half of ``llvm.amdgcn.if``.
    uniform_extracts: tuple[tuple[str, int], ...] = ()
    # Function attributes (``key=value``, quotes dropped) that make a function run on a
    # single lane, so nothing in it is divergent.
    single_lane_function_attrs: frozenset[str] = frozenset()

    def asm_output_uniform(self, constraint: str) -> bool:
        """Whether one inline-asm output constraint names a uniform register."""
        code = constraint.lstrip("=&+")
        return any(fnmatchcase(code, g) for g in self.uniform_asm_outputs)

    def intrinsic_rule(self, ir_name: str) -> DivergenceRule | None:
        for rule in self.rules:
            if rule.matches(ir_name):
                return rule
        return None


@dataclass(frozen=True)
class WaveModel:
    """Wavefront facts: supported sizes, the default, and wave64 ds_bpermute scope.

    ``bpermute_wave64`` is ``"full"`` when a wave64 ds_(b)permute addresses all 64
    lanes (GCN/GFX9), ``"half"`` when each 32-lane half permutes on its own."""

    sizes: tuple[int, ...] = (64,)
    default_size: int = 64
    bpermute_wave64: str = "full"
    extra: tuple[tuple[str, str], ...] = field(default=())
