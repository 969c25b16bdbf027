"""Locating LLVM 19 tools for tests.

Tests that need LLVM call ``require("llc-19")`` etc.: it returns the tool's path, skips
with a clear reason when the tool is absent, and fails instead when ``CI=true``
(CI installs LLVM, so a missing tool there is a broken setup, not a skip).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

LLVM_INCLUDE = Path("/usr/lib/llvm-19/include")
CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus" / "llvm"


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def require(tool: str) -> str:
    path = shutil.which(tool) or (
        str(Path("/usr/lib/llvm-19/bin") / tool.replace("-19", ""))
        if (Path("/usr/lib/llvm-19/bin") / tool.replace("-19", "")).exists()
        else None
    )
    if path is None:
        msg = f"{tool} not found (install: apt-get install -y llvm-19 llvm-19-dev llvm-19-tools)"
        if _in_ci():
            pytest.fail(f"CI=true but {msg}")
        pytest.skip(msg)
    return path


def require_llvm_headers() -> Path:
    if not (LLVM_INCLUDE / "llvm" / "IR" / "Intrinsics.h").exists():
        msg = f"LLVM 19 headers not found under {LLVM_INCLUDE} (apt-get install -y llvm-19-dev)"
        if _in_ci():
            pytest.fail(f"CI=true but {msg}")
        pytest.skip(msg)
    return LLVM_INCLUDE


def require_corpus() -> Path:
    """The shared LLVM test corpus beside the checkout (never copied into the project)."""
    if not (CORPUS / "MANIFEST.tsv").exists():
        msg = f"LLVM test corpus not found at {CORPUS}"
        if _in_ci():
            pytest.fail(f"CI=true but {msg}")
        pytest.skip(msg)
    return CORPUS


def manifest() -> list[dict[str, str]]:
    """Rows of MANIFEST.tsv as dicts keyed by its header."""
    corpus = require_corpus()
    lines = (corpus / "MANIFEST.tsv").read_text().splitlines()
    header = lines[0].lstrip("#").split("\t")
    return [dict(zip(header, ln.split("\t"))) for ln in lines[1:] if ln.strip()]


_AMDGCN_LAYOUT: list[str] = []


def amdgcn_layout(module):
    """``module`` (a parsed ``patterns.ir.Module``) with AMDGPU's data layout when it has
    none of its own (the amdgpu target's ``Target.data_layout``), as ``opt-19``/``llc-19
    -mtriple=amdgcn`` read it: for comparing what we print with what they print.
    Returns the module."""
    from patterns.ir.datalayout import use_target_layout

    if not _AMDGCN_LAYOUT:
        from tdgen.commands.divergence import load_target_facts

        _AMDGCN_LAYOUT.append(load_target_facts("amdgpu").data_layout)
    return use_target_layout(module, _AMDGCN_LAYOUT[0])


CODEGEN_CORPUS = CORPUS.parent / "llvm-codegen"


def require_codegen_corpus() -> Path:
    """LLVM's AMDGPU CodeGen test inputs beside the checkout (``llvm-codegen/``: MANIFEST.tsv,
    ORACLE.tsv); never copied into the project."""
    if not (CODEGEN_CORPUS / "ORACLE.tsv").exists():
        msg = f"LLVM CodeGen corpus not found at {CODEGEN_CORPUS}"
        if _in_ci():
            pytest.fail(f"CI=true but {msg}")
        pytest.skip(msg)
    return CODEGEN_CORPUS


def codegen_oracle() -> list[dict[str, str]]:
    """Rows of the CodeGen corpus's ORACLE.tsv (relative_path, opt_parses, llc_gfx900_ok,
    functions) as dicts keyed by its header."""
    lines = (require_codegen_corpus() / "ORACLE.tsv").read_text().splitlines()
    header = lines[0].lstrip("#").split("\t")
    return [dict(zip(header, ln.split("\t"))) for ln in lines[1:] if ln.strip()]
