"""patterns: the execution engine of tdgen.

LLVM IR subset, divergence analysis, mini SelectionDAG, pattern matcher, DS-permute
wavefront model and shuffle semantics.
"""

from patterns import native as _native

_native.install()  # (the compiled hot modules, when built for these sources: patterns/native/__init__.py)
