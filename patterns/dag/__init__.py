"""The SelectionDAG stage: per basic block, the DAG llc's SelectionDAGBuilder makes from the
IR as llc's IR prepasses leave it (``nodes``, ``isd``, ``cse``, ``deadcode``, ``sink``,
``prepare``, ``calls``, ``liveout``, ``builder``), and the DAG combines and legalizations
llc runs on it before selection (``combine``). ``patterns.pipeline`` runs them in order."""
