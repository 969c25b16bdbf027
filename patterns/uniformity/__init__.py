"""Uniformity (divergence) analysis: which values and branches may differ between lanes.

``analysis.analyze`` (the worklist propagation) returns ``results.UniformityInfo``;
``seeds`` asks the target's facts where divergence starts, ``rules`` holds those facts
(``DivergenceFacts``, ``first_rule``, ``default_model``), ``joins`` finds the join blocks
of a divergent branch, ``explain`` words the reason chains and ``printer`` prints
opt-19's ``print<uniformity>`` text and JSON.
"""
