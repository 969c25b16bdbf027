"""patterns: the execution engine of tdgen.

LLVM IR subset, divergence analysis, mini SelectionDAG, pattern matcher, DS-permute
wavefront model and shuffle semantics.
"""
