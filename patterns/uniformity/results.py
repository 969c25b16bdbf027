"""The verdicts of the uniformity analysis: ``FunctionUniformity`` per function and
``UniformityInfo`` for a module.

What ``patterns.uniformity.analysis.analyze`` returns and the rest of the engine reads:
``UniformityInfo.is_divergent`` (a dict lookup, asked for every value the DAG builder
makes), ``has_divergent_terminator``, the divergent cycles, and ``why`` (the reason
chain, worded by ``patterns.uniformity.explain``). Compiled (patterns/native/__init__.py).
"""

from __future__ import annotations

from typing import Any

from patterns.ir.cycles import Cycle, CycleInfo
from patterns.ir.function import Instruction
from patterns.uniformity.explain import Step, why


class FunctionUniformity:
    """The verdicts for one function."""

    def __init__(self, fn: Any) -> None:
        self.function = fn
        self.divergent: dict[Any, Any] = {}  # value -> cause
        self.uniform_override: set[Any] = set()
        self.divergent_term_blocks: dict[Any, Any] = {}  # block -> cause
        self.divergent_exit_cycles: list[Cycle] = []
        self.assumed_divergent: list[Cycle] = []
        self.cycles: CycleInfo | None = None
        # work counters (deterministic evidence of linear scaling, see bench/)
        self.stats = {"worklist_pops": 0, "propagation_steps": 0}

    def is_divergent(self, v: Any) -> bool:
        if isinstance(v, Instruction) and v.block is not None and v is v.block.terminator:
            return v.block in self.divergent_term_blocks
        return v in self.divergent


class UniformityInfo:
    """Verdicts for every analysed function; ``is_divergent`` is a dict lookup."""

    def __init__(self, functions: list[FunctionUniformity]) -> None:
        self.functions = functions
        self._by_fn = {f.function: f for f in functions}
        self.llvm19_compat = False  # (the mode ``analyze`` ran in: a rerun uses the same)
        self.divergent_blocks: set[Any] = set()  # blocks with a divergent terminator
        for f in functions:
            self.divergent_blocks.update(f.divergent_term_blocks)
        # membership only: one function's own dict serves as is (no copy of a big map)
        self._divergent: Any
        if len(functions) == 1:
            self._divergent = functions[0].divergent
        else:
            self._divergent = set()
            for f in functions:
                self._divergent.update(f.divergent)

    def is_divergent(self, value: Any) -> bool:
        """Whether ``value`` (instruction, argument, terminator) may differ across lanes;
        for a terminator: whether it is a divergent branch. Constants: never."""
        if value in self._divergent:
            return True
        if isinstance(value, Instruction) and value.is_terminator:
            return value.block in self.divergent_blocks
        return False

    def is_uniform(self, value: Any) -> bool:
        return not self.is_divergent(value)

    def has_divergent_terminator(self, block: Any) -> bool:
        return block in self.divergent_blocks

    @property
    def cycles_assumed_divergent(self) -> list[Cycle]:
        return [c for f in self.functions for c in f.assumed_divergent]

    @property
    def cycles_with_divergent_exit(self) -> list[Cycle]:
        return [c for f in self.functions for c in f.divergent_exit_cycles]

    def function(self, fn: Any) -> FunctionUniformity:
        return self._by_fn[fn]

    def why(self, value: Any) -> list[Step]:
        """The reason chain of a divergent value, from its source to the value itself."""
        for f in self.functions:
            if (isinstance(value, Instruction) and value.block is not None and value.block.function is f.function) or (
                not isinstance(value, Instruction) and getattr(value, "function", None) is f.function
            ):
                return why(f, value)
        return []
