"""The SelectionDAG stage: per basic block, the DAG llc's SelectionDAGBuilder makes from the
IR as llc's IR prepasses leave it (``nodes``, ``isd``, ``cse``, ``deadcode``, ``sink``,
``prepare``, ``calls``, ``liveout``, ``builder``; the floating-point, vector, atomic and
fence instructions ``buildext``; memory operands ``memops``), the legalizations driven by
the target's lowering table (``legaltable``: vector operations unrolled,
``legalize_vectors``; integers promoted, ``legalize_types``), and the DAG combines and
legalizations llc runs on it before selection (``combine``). ``patterns.pipeline`` runs
them in order."""
