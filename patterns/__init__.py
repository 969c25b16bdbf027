"""patterns: the execution engine of tdgen, one subpackage per stage of llc's pipeline.

``ir`` (LLVM IR: reader, printer, CFG, dominators) -> ``uniformity`` (the divergence
analysis) -> ``llc`` (llc's IR passes before selection) -> ``dag`` (SelectionDAG: build,
combine, legalize) -> ``select`` (the matcher and the machine instructions); ``pipeline``
runs them in that order. Beside them: ``wave`` (the wavefront model and the shuffle
semantics), ``support`` (integer arithmetic, known bits), ``native`` (the compiled build).
Target behaviour comes from the target's hooks (``tdgen.hooks``); the engine names no
target.
"""

from patterns import native as _native

_native.install()  # (the compiled hot modules, when built for these sources: patterns/native/__init__.py)
