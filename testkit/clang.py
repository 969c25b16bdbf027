"""The OpenCL C corpus compiled by clang-19: ``.cl`` kernel -> LLVM IR text, cached.

The corpus is ``tests/kernels/opencl/*.cl`` (real algorithms; each file opens with a
comment saying what it computes; ``common.h`` holds the indexing helpers, as no device
library is installed). Only the sources are committed; their IR is produced at test
time by the installed clang-19, exactly as

    clang-19 -x cl -cl-std=CL2.0 -nogpulib -target amdgcn-amd-amdhsa -mcpu=gfx900 -O<n> -S -emit-llvm

API (small on purpose; the selection and execution tests use it too):

- ``corpus_kernels() -> list[Path]``: the corpus sources, sorted by name;
- ``compile_cl(path, opt="O2", *, clang=None, cache_dir=None) -> str``: the IR text of one
  source at one optimization level (``"O0"`` .. ``"O3"``). Raises ``ClangError`` with
  clang's diagnostics when clang rejects the source, ``FileNotFoundError`` when no clang
  is found;
- ``CLANG_FLAGS``: the flags above, without ``-O``.

Cache: ``$XDG_CACHE_HOME/tdgen/clang/<hash>.ll`` (``~/.cache`` when unset), or under
``cache_dir`` when given (the tests pass a pytest tmp dir factory's folder); the key is a
SHA-256 of the source, every header of its folder, the flags and ``clang --version``, so
an edited kernel or another clang never reads a stale file. ``TDGEN_NO_CACHE=1`` turns the
cache off. Files are written to a temporary name and renamed, so concurrent test
workers never read half a file.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path

__all__ = ["CLANG_FLAGS", "CORPUS_DIR", "ClangError", "clang_path", "compile_cl", "corpus_kernels"]

CORPUS_DIR = Path(__file__).resolve().parent.parent / "tests" / "kernels" / "opencl"
CLANG_FLAGS = ("-x", "cl", "-cl-std=CL2.0", "-nogpulib", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx900",
               "-S", "-emit-llvm")
OPT_LEVELS = ("O0", "O1", "O2", "O3")


class ClangError(Exception):
    """clang-19 rejected a source: the message is its diagnostics."""


def corpus_kernels() -> list[Path]:
    """The corpus's ``.cl`` files, sorted by name."""
    return sorted(CORPUS_DIR.glob("*.cl"))


def clang_path() -> str | None:
    """The clang-19 executable (on PATH, or LLVM 19's own bin folder), or None."""
    found = shutil.which("clang-19")
    if found:
        return found
    p = Path("/usr/lib/llvm-19/bin/clang")
    return str(p) if p.exists() else None


@lru_cache(maxsize=None)
def _version(clang: str) -> str:
    return subprocess.run([clang, "--version"], capture_output=True, text=True, check=True).stdout


def _cache_root(cache_dir: Path | str | None) -> Path | None:
    if cache_dir is not None:
        return Path(cache_dir)
    if os.environ.get("TDGEN_NO_CACHE") == "1":
        return None
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tdgen" / "clang"


def _key(src: Path, flags: list[str], clang: str) -> str:
    h = hashlib.sha256()
    for part in (src.read_bytes(), *[p.read_bytes() for p in sorted(src.parent.glob("*.h"))]):
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    h.update("\0".join(flags).encode())
    h.update(_version(clang).encode())
    return h.hexdigest()[:32]


def compile_cl(path: Path | str, opt: str = "O2", *, clang: str | None = None,
               cache_dir: Path | str | None = None) -> str:
    """The LLVM IR text clang-19 emits for the OpenCL C file ``path`` at ``-<opt>``."""
    if opt not in OPT_LEVELS:
        raise ValueError(f"opt must be one of {', '.join(OPT_LEVELS)}, not {opt!r}")
    clang = clang or clang_path()
    if clang is None:
        raise FileNotFoundError("clang-19 not found (apt-get install -y clang-19)")
    src = Path(path).resolve()
    flags = [*CLANG_FLAGS, f"-{opt}"]
    root = _cache_root(cache_dir)
    target = None
    if root is not None:
        target = root / f"{_key(src, flags, clang)}.ll"
        if target.exists():
            return target.read_text()
    r = subprocess.run([clang, *flags, str(src), "-o", "-"], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise ClangError(f"{clang} {' '.join(flags)} {src} failed:\n{r.stderr}")
    if target is not None:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(r.stdout)
        os.replace(tmp, target)
    return r.stdout
