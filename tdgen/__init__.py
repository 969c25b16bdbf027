"""tdgen: a declarative DSL for LLVM GPU backends.

The package holds the spec model, spec loading and checks, the emitters and the CLI.
The execution engine (IR, divergence, SelectionDAG, matcher, wave model) lives in the
sibling package ``patterns``.
"""

__version__ = "0.1.0"
