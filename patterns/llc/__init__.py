"""Models of llc-19's IR passes before instruction selection, one module per pass (named as
LLVM names it) or part of one; ``pipeline.run_ir_passes`` runs them in llc's order."""
