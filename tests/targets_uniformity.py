"""Loads targets/<name>/uniformity.py on its own (no spec), for tests."""

from __future__ import annotations


def amdgpu_uniformity():
    from tdgen.commands.divergence import default_model

    return default_model()
