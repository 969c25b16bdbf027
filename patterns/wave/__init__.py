"""The wave model and warp shuffles: executable wavefront assembly, the CUDA reference, lowerings.

``asm`` parses wave-model assembly text, ``assembler`` checks and binds it into ``Code``,
``execute`` holds the instruction semantics, ``state`` the registers of a batch of waves
(``WaveState``); ``shuffle`` is the reference semantics of CUDA/PTX/HIP shuffles,
``lowering`` turns shuffles into wave-model sequences, ``proof`` proves them equal to the
reference on every lane, and ``choice`` picks the cheapest proven sequence for a constant
operand.
"""
