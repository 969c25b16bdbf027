"""Atomic file output: write everything to temporary files, then rename; and path checks.

A failure before the renames leaves the destination exactly as it was, with no
``.tdgen-tmp-*`` file left behind. Written files get the mode a plain ``open`` would
give them (``0666`` less the umask), not ``mkstemp``'s ``0600``.

- ``write_tree(files, root=None)``: every file or none. Before anything is renamed into
  place each destination is checked (no folder, nothing that cannot be replaced, and,
  with ``root``, inside ``root``: a file name from a spec never writes outside its
  output folder);
- ``atomic_write(path, data)``: one file; ``check_inside(paths, root)``: each path below
  ``root``;
- ``path_problem(text)``: why a path given on a command line cannot name a file
  (a component longer than the system allows, a NUL byte), before the OS is asked:
  Python's ``Path.exists`` and ``open`` raise ``OSError: File name too long`` instead
  of answering.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

TMP_PREFIX = ".tdgen-tmp-"


def _file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def path_problem(text: str) -> str | None:
    """None when ``text`` can name a file on this system, else what is wrong with it."""
    if "\x00" in text:
        return "a NUL byte in the path"
    try:
        limit = os.pathconf(".", "PC_NAME_MAX")
    except (OSError, ValueError):
        limit = 255
    for part in text.split("/"):
        if len(os.fsencode(part)) > limit:
            return f"a path component of {len(os.fsencode(part))} bytes (at most {limit})"
    try:
        total = os.pathconf(".", "PC_PATH_MAX")
    except (OSError, ValueError):
        total = 4096
    if len(os.fsencode(text)) >= total:
        return f"a path of {len(os.fsencode(text))} bytes (at most {total - 1})"
    return None


def _stage(path: Path, data: bytes, mode: int) -> str:
    fd, tmp = tempfile.mkstemp(prefix=TMP_PREFIX, dir=path.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return tmp


def atomic_write(path: Path, data: bytes | str) -> None:
    """Write one file atomically (temp file in the same folder, then rename)."""
    write_tree({Path(path): data})


def _check_destination(path: Path, root: Path | None) -> None:
    """Raise OSError (with the path) when ``path`` cannot be replaced by a file."""
    if root is not None:
        check_inside([path], root)
    if path.is_symlink():
        return  # (a rename replaces the link itself)
    if path.is_dir():
        raise OSError(21, "a folder is in the way of the file", str(path))
    for p in path.parents:
        if p.exists():
            if not p.is_dir():
                raise OSError(20, "not a folder", str(p))
            break


def check_inside(paths, root: Path) -> None:
    """Raise OSError naming the first of ``paths`` that is not inside ``root``."""
    base = Path(os.path.abspath(root))
    for p in sorted(Path(x) for x in paths):
        here = Path(os.path.abspath(p))
        if here == base or base not in here.parents:
            raise OSError(0, f"outside the output folder '{root}'", str(p))


def write_tree(files: dict[Path, bytes | str], root: Path | None = None) -> None:
    """Write a set of files so that either none or all of them change.

    Every destination is checked first, then all contents are staged as temp files
    beside their destinations; only when every one is on disk are they renamed into
    place. Any failure before that removes the staged files and raises ``OSError``."""
    by_path = {Path(p): d for p, d in files.items()}
    paths = sorted(by_path)
    for path in paths:
        _check_destination(path, root)
    mode = _file_mode()
    staged: list[tuple[str, Path]] = []
    try:
        for path in paths:
            path.parent.mkdir(parents=True, exist_ok=True)
            data = by_path[path]
            if isinstance(data, str):
                data = data.encode("utf-8")
            staged.append((_stage(path, data, mode), path))
        for path in paths:  # again: nothing may have taken a destination meanwhile
            _check_destination(path, root)
    except BaseException:
        for tmp, _ in staged:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
        raise
    done = 0
    try:
        for tmp, path in staged:
            os.replace(tmp, path)
            done += 1
    finally:
        for tmp, _ in staged[done:]:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
