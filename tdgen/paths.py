"""Where the project's folders are: targets/, templates/, out/ at the repository root."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGETS = ROOT / "targets"
TEMPLATES = ROOT / "templates"
OUT = ROOT / "out"
