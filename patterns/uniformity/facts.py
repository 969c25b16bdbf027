"""The uniformity analysis's records: a reason chain's ``Step`` and the target facts it reads (``DivergenceFacts``).

Plain frozen records (``tdgen.errors.FrozenRecord``), kept out of ``patterns.uniformity.analysis``
so that module can be compiled (patterns/native/__init__.py) while these stay ordinary Python
objects that pickle (the target cache keeps ``DivergenceFacts``) and compare as the
records of the spec model do. ``patterns.uniformity.analysis`` re-exports both.
"""

from __future__ import annotations

from typing import Any

from tdgen.hw import DivergenceKind, FrozenRecord, UniformityModel


class Step(FrozenRecord):
    """One link of a reason chain: ``value`` became divergent because of ``detail``.

    ``kind``: source | data | terminator | sync | temporal | cycle. (A frozen record as
    ``@dataclass(frozen=True)`` makes it, see ``tdgen.hw.FrozenRecord``.)"""

    _FIELDS = __match_args__ = ("kind", "value", "detail")
    kind: str
    value: str
    detail: str

    def __init__(self, kind: str, value: str, detail: str) -> None:
        d = self.__dict__
        d["kind"] = kind
        d["value"] = value
        d["detail"] = detail

    def format(self) -> str:
        return f"{self.kind:<10} {self.value}: {self.detail}"

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "value": self.value, "detail": self.detail}


class DivergenceFacts(FrozenRecord):
    """What the analysis needs from a Target, and nothing else: its uniformity model
    and the divergence class of each declared intrinsic (IR name -> kind). Small and
    cheap to unpickle (``tdgen divergence`` caches it, see tdgen/target_cache.py);
    ``intrinsic_divergence`` answers as ``Target.intrinsic_divergence`` does. (A frozen
    record as ``@dataclass(frozen=True)`` makes it, see ``tdgen.hw.FrozenRecord``.)"""

    _FIELDS = __match_args__ = ("uniformity", "intrinsics")
    uniformity: UniformityModel
    intrinsics: tuple[tuple[str, DivergenceKind], ...] = ()

    def __init__(self, uniformity: UniformityModel, intrinsics: tuple[tuple[str, DivergenceKind], ...] = ()) -> None:
        d = self.__dict__
        d["uniformity"] = uniformity
        d["intrinsics"] = intrinsics

    @staticmethod
    def of(target: Any) -> "DivergenceFacts":
        return DivergenceFacts(
            target.uniformity, tuple((i.ir_name, i.divergence) for i in target.intrinsics)
        )

    def intrinsic_divergence(self, ir_name: str) -> DivergenceKind:
        by_name = self.__dict__.get("_by_name")
        if by_name is None:
            by_name = dict(self.intrinsics)
            object.__setattr__(self, "_by_name", by_name)
        kind = by_name.get(ir_name)
        if kind is not None:
            return kind
        from patterns.uniformity.analysis import first_rule

        rule = first_rule(self.uniformity, ir_name)
        return rule.kind if rule is not None else DivergenceKind.FOLLOWS_OPERANDS
