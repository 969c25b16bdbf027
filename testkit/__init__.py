"""Test tooling, not part of the installed package: kernel generators for the differential
tests (``iselgen``, ``irgen``, ``divergence_gen``), the LLVM oracles (``llc``: run llc-19,
read its MIR, compare opcode multisets), the IR of the shuffle tests (``shuffle_ir``) and
a timeout proving a reader returns (``hangguard``)."""
