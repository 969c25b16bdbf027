"""What the IR and DAG stages share below them: fixed-width integer arithmetic (``intops``)
and LLVM's KnownBits with its transfer functions (``knownbits``)."""
