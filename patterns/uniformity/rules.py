"""The divergence rules of a target, as the uniformity analysis reads them.

- ``DivergenceFacts``: what the analysis needs from a Target and nothing else (its
  ``UniformityModel`` and the divergence class of each declared intrinsic); a plain
  frozen record (``tdgen.hw.FrozenRecord``) that pickles, since the target cache keeps it
  (tdgen/target_cache.py), and compares as the records of the spec model do;
- ``first_rule``: the first intrinsic rule of a model whose glob matches a name, with the
  globs turned into string tests once per rule set;
- ``default_model``: amdgpu's uniformity facts straight from targets/amdgpu/uniformity.py,
  what the analysis uses when it is given no target.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from tdgen.hw import DivergenceKind, FrozenRecord, UniformityModel
from tdgen.paths import TARGETS

_GLOB_CHARS: Final = frozenset("*?[\\")
_MATCHERS: Final[dict[int, tuple]] = {}


def _matcher(pattern: str) -> Any:
    """A test equal to LLVM 19's ``GlobPattern::match`` (``rule.matches``, see
    tdgen.globpattern), with the usual ``prefix*`` and exact patterns as string tests."""
    if not _GLOB_CHARS.intersection(pattern):
        return pattern.__eq__
    if pattern.endswith("*") and not _GLOB_CHARS.intersection(pattern[:-1]):
        return lambda name, prefix=pattern[:-1]: name.startswith(prefix)
    from tdgen.hw import DivergenceRule

    return DivergenceRule(pattern, DivergenceKind.FOLLOWS_OPERANDS).matches


def first_rule(model: UniformityModel, ir_name: str) -> Any:
    """``model.intrinsic_rule(ir_name)`` (the first rule whose glob matches), with the
    globs turned into string tests once per rule set."""
    hit = _MATCHERS.get(id(model))
    if hit is None or hit[0] is not model:
        # keyed by identity; the entry keeps ``model`` alive so its id stays its own
        hit = _MATCHERS[id(model)] = (model, [(_matcher(r.pattern), r) for r in model.rules])
    for test, rule in hit[1]:
        if test(ir_name):
            return rule
    return None


class DivergenceFacts(FrozenRecord):
    """What ``tdgen divergence`` needs from a Target, and nothing else: its uniformity
    model, the divergence class of each declared intrinsic (IR name -> kind), its
    data layout string (``Target.data_layout``: the printed ``align`` of a module
    without its own layout) and the immarg table of its intrinsics, which the IR reader
    checks calls against (``TargetHooks.intrinsic_immargs``, kept as text: see
    patterns.ir.intrinsic_immargs). Small and cheap to unpickle (``tdgen divergence`` caches
    it, see tdgen/target_cache.py); ``intrinsic_divergence`` answers as
    ``Target.intrinsic_divergence`` does. (A frozen record as
    ``@dataclass(frozen=True)`` makes it, see ``tdgen.hw.FrozenRecord``.)"""

    _FIELDS = __match_args__ = ("uniformity", "intrinsics", "data_layout", "intrinsic_immargs")
    uniformity: UniformityModel
    intrinsics: tuple[tuple[str, DivergenceKind], ...] = ()
    data_layout: str = ""
    intrinsic_immargs: str = ""

    def __init__(self, uniformity: UniformityModel, intrinsics: tuple[tuple[str, DivergenceKind], ...] = (),
                 data_layout: str = "", intrinsic_immargs: str = "") -> None:
        d = self.__dict__
        d["uniformity"] = uniformity
        d["intrinsics"] = intrinsics
        d["data_layout"] = data_layout
        d["intrinsic_immargs"] = intrinsic_immargs

    @staticmethod
    def of(target: Any) -> "DivergenceFacts":
        from patterns.ir.intrinsic_immargs import target_immargs

        return DivergenceFacts(
            target.uniformity, tuple((i.ir_name, i.divergence) for i in target.intrinsics),
            getattr(target, "data_layout", ""), target_immargs(target),
        )

    def intrinsic_divergence(self, ir_name: str) -> DivergenceKind:
        by_name = self.__dict__.get("_by_name")
        if by_name is None:
            by_name = dict(self.intrinsics)
            object.__setattr__(self, "_by_name", by_name)
        kind = by_name.get(ir_name)
        if kind is not None:
            return kind
        rule = first_rule(self.uniformity, ir_name)
        return rule.kind if rule is not None else DivergenceKind.FOLLOWS_OPERANDS


def default_model() -> UniformityModel:
    """amdgpu's uniformity facts straight from targets/amdgpu/uniformity.py."""
    return _load_uniformity_file(TARGETS / "amdgpu" / "uniformity.py")


def _load_uniformity_file(path: Path) -> UniformityModel:
    import importlib.util  # here: only a run without a target needs it

    spec = importlib.util.spec_from_file_location(f"_tdgen_uniformity_{path.parent.name}", path)
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    return mod.UNIFORMITY
