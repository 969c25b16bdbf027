"""Where tdgen's data folders are: targets/, templates/ and the default out/.

Two layouts:

- a checkout (or an editable install): the folders sit at the repository root, beside
  the ``tdgen`` package; ``out/`` there is the committed generated tree;
- a regular install (``pip install .``, a wheel): the build copies ``targets/`` and
  ``templates/`` into the package as ``tdgen/bundled/targets`` and
  ``tdgen/bundled/templates`` (``setup.py``); ``ROOT`` is then ``tdgen/bundled``, so
  paths shown relative to it read the same as in a checkout (``targets/amdgpu/alu.py``),
  and the default output folder is ``out/`` in the working directory (an installed
  package has no repository to write into).
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
BUNDLED = PACKAGE / "bundled"
INSTALLED = (BUNDLED / "targets").is_dir()
ROOT = BUNDLED if INSTALLED else PACKAGE.parent
TARGETS = ROOT / "targets"
TEMPLATES = ROOT / "templates"
OUT = Path("out") if INSTALLED else ROOT / "out"
