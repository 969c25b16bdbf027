"""Atomic file output: write everything to temporary files, then rename.

A failure before ``commit`` leaves the destination exactly as it was.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_write(path: Path, data: bytes | str) -> None:
    """Write one file atomically (temp file in the same folder, then rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    fd, tmp = tempfile.mkstemp(prefix=".tdgen-tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def write_tree(files: dict[Path, bytes | str]) -> None:
    """Write a set of files so that either none or all of them change.

    All contents are staged as temp files first; only when every one is on disk are
    they renamed into place (renames do not fail for space reasons)."""
    staged: list[tuple[str, Path]] = []
    try:
        for path in sorted(files):
            path = Path(path)
            path.parent.mkdir(parents=True, exist_ok=True)
            data = files[path]
            if isinstance(data, str):
                data = data.encode("utf-8")
            fd, tmp = tempfile.mkstemp(prefix=".tdgen-tmp-", dir=path.parent)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            staged.append((tmp, path))
    except BaseException:
        for tmp, _ in staged:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
        raise
    for tmp, path in staged:
        os.replace(tmp, path)
