"""Hardware facts a target states and the engine consumes.

- ``DivergenceKind`` / ``DivergenceRule`` / ``UniformityModel``: which values are sources
  of divergence or always uniform on this target (the data behind LLVM's
  ``TargetTransformInfo::isSourceOfDivergence`` / ``isAlwaysUniform``).
- ``WaveModel``: wavefront sizes and how cross-lane DS permutes behave in wave64.

The spec model (``tdgen.model``) holds these on ``Target``; the divergence analysis,
SelectionDAG builder and wave model read them from there.

The three record classes behave as ``@dataclass(frozen=True)`` with the fields listed in
their ``_FIELDS`` (``__init__`` with the same parameters and defaults, ``__repr__``,
``__eq__``, ``__hash__``, frozenness), written out so that ``tdgen divergence`` does not
import ``dataclasses`` at start-up (``tdgen.errors.FrozenRecord``, which
patterns/uniformity/analysis.py uses too; tests/test_frozen_records.py compares them with real dataclasses).
"""

from __future__ import annotations

import enum
from fnmatch import fnmatchcase

# DivergenceRule globs compiled as LLVM's GlobPattern (tdgen.globpattern), by pattern
_RULE_GLOBS: dict = {}

from .errors import FrozenRecord

__all__ = ["DivergenceKind", "DivergenceRule", "FrozenRecord", "UniformityModel", "WaveModel"]


class DivergenceKind(enum.Enum):
    """How an intrinsic's result relates to divergence."""

    SOURCE = "source"  # result may differ per lane whatever the operands
    ALWAYS_UNIFORM = "uniform"  # result is the same on every lane whatever the operands
    FOLLOWS_OPERANDS = "follows"  # divergent iff some operand is divergent


class DivergenceRule(FrozenRecord):
    """Divergence class for IR intrinsics whose name matches ``pattern``.

    ``pattern`` is a glob over the IR name (``llvm.amdgcn.image.atomic.*``) read and
    matched as LLVM 19's ``GlobPattern`` reads it (``tdgen.globpattern``; the generated
    C++ matches with GlobPattern itself, and the spec check rejects a glob it would
    reject). Rules cover intrinsics a target knows by name but does not declare in full."""

    _FIELDS = __match_args__ = ("pattern", "kind", "note")
    pattern: str
    kind: DivergenceKind
    note: str = ""

    def __init__(self, pattern: str, kind: DivergenceKind, note: str = "") -> None:
        d = self.__dict__
        d["pattern"] = pattern
        d["kind"] = kind
        d["note"] = note

    def matches(self, ir_name: str) -> bool:
        m = _RULE_GLOBS.get(self.pattern)
        if m is None:
            from .globpattern import GlobError, compile_glob

            try:
                m = compile_glob(self.pattern)
            except GlobError:  # (the spec check reports it; GlobPattern::create fails)
                m = _never
            _RULE_GLOBS[self.pattern] = m
        return m(ir_name)


def _never(_name: str) -> bool:
    return False


class UniformityModel(FrozenRecord):
    """Target facts for the uniformity analysis.

    Intrinsics declared in the spec carry their own ``DivergenceKind``; ``rules`` apply
    to the rest (first match wins); unmatched intrinsics follow their operands."""

    _FIELDS = __match_args__ = (
        "rules", "uniform_arg_ccs", "shader_ccs", "shader_uniform_arg_attrs", "default_uniform_arg_attrs",
        "divergent_load_address_spaces", "atomics_divergent", "calls_divergent", "intrinsic_prefix",
        "uniform_asm_outputs", "uniform_extracts", "single_lane_function_attrs")
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

    def __init__(self, rules: tuple[DivergenceRule, ...] = (), uniform_arg_ccs: frozenset[str] = uniform_arg_ccs,
                 shader_ccs: frozenset[str] = shader_ccs,
                 shader_uniform_arg_attrs: frozenset[str] = shader_uniform_arg_attrs,
                 default_uniform_arg_attrs: frozenset[str] = default_uniform_arg_attrs,
                 divergent_load_address_spaces: frozenset[int] = divergent_load_address_spaces,
                 atomics_divergent: bool = True, calls_divergent: bool = True, intrinsic_prefix: str = "llvm.",
                 uniform_asm_outputs: tuple[str, ...] = (), uniform_extracts: tuple[tuple[str, int], ...] = (),
                 single_lane_function_attrs: frozenset[str] = single_lane_function_attrs) -> None:
        d = self.__dict__
        d["rules"] = rules
        d["uniform_arg_ccs"] = uniform_arg_ccs
        d["shader_ccs"] = shader_ccs
        d["shader_uniform_arg_attrs"] = shader_uniform_arg_attrs
        d["default_uniform_arg_attrs"] = default_uniform_arg_attrs
        d["divergent_load_address_spaces"] = divergent_load_address_spaces
        d["atomics_divergent"] = atomics_divergent
        d["calls_divergent"] = calls_divergent
        d["intrinsic_prefix"] = intrinsic_prefix
        d["uniform_asm_outputs"] = uniform_asm_outputs
        d["uniform_extracts"] = uniform_extracts
        d["single_lane_function_attrs"] = single_lane_function_attrs

    def asm_output_uniform(self, constraint: str) -> bool:
        """Whether one inline-asm output constraint names a uniform register."""
        code = constraint.lstrip("=&+")
        return any(fnmatchcase(code, g) for g in self.uniform_asm_outputs)

    def intrinsic_rule(self, ir_name: str) -> DivergenceRule | None:
        for rule in self.rules:
            if rule.matches(ir_name):
                return rule
        return None


class WaveModel(FrozenRecord):
    """Wavefront facts: supported sizes, the default, and wave64 ds_bpermute scope.

    ``bpermute_wave64`` is ``"full"`` when a wave64 ds_(b)permute addresses all 64
    lanes (GCN/GFX9), ``"half"`` when each 32-lane half permutes on its own."""

    _FIELDS = __match_args__ = ("sizes", "default_size", "bpermute_wave64", "extra")
    sizes: tuple[int, ...] = (64,)
    default_size: int = 64
    bpermute_wave64: str = "full"
    extra: tuple[tuple[str, str], ...] = ()

    def __init__(self, sizes: tuple[int, ...] = (64,), default_size: int = 64, bpermute_wave64: str = "full",
                 extra: tuple[tuple[str, str], ...] = ()) -> None:
        d = self.__dict__
        d["sizes"] = sizes
        d["default_size"] = default_size
        d["bpermute_wave64"] = bpermute_wave64
        d["extra"] = extra
