"""Instruction selection: a target's patterns as a matcher table, and the selector that turns DAG nodes into machine instructions.

Patterns: ``pattern`` (the records), ``patsrc`` (spec patterns resolved into them),
``predicates`` and ``xform`` (what their checks and operand transforms execute),
``matcher`` (the table), ``matchgen``/``selgen``/``codecache`` (the generated matcher and
selector code). Selection: ``isel`` (the driver), ``machine`` (the selection loop),
``custom`` (custom selection steps), ``mir`` (the machine instructions and their text),
``explain`` (why a node is not selected), ``lint`` (``tdgen lint``).
"""
