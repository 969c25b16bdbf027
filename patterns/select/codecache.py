"""Compiled code by source text: the per-process cache of the generated matchers' and selectors' code objects.

A target's selectors can also come precompiled from the on-disk target cache
(patterns.select.isel.IselBundle): ``store_code`` makes them available by a digest of
the source they were compiled from (``code_digest``), so a process that generates the
same source only unmarshals the stored code object; any other source is compiled
(``compile_source``). ``recorded_sources`` lists what a block of code asked for.
"""

from __future__ import annotations

__all__ = ["code_digest", "compile_source", "store_code", "recorded_sources"]


_CODE: dict = {}  # (source text, file name) -> code object
_STORED: dict = {}  # digest of (source text, file name) -> marshalled code object
_RECORDING: list = []  # while recorded_sources() runs: the list it fills


def code_digest(text: str, filename: str) -> bytes:
    """The key of a stored code object: BLAKE2b of its file name and source text."""
    from tdgen.target_cache import hasher

    return hasher(f"{filename}\0{text}".encode(), digest_size=20).digest()


def compile_source(text: str, filename: str):
    """``compile(text, filename, "exec")``, once per process, and from the stored code
    (``store_code``) when it holds this exact source."""
    key = (text, filename)
    code = _CODE.get(key)
    if code is None:
        if _STORED:
            blob = _STORED.get(code_digest(text, filename))
            if blob is not None:
                import marshal

                try:
                    code = marshal.loads(blob)
                except Exception:  # noqa: BLE001 - a bad entry is only a miss
                    code = None
        if code is None:
            code = compile(text, filename, "exec")
        _CODE[key] = code
    if _RECORDING:
        _RECORDING[-1].append((code_digest(text, filename), code))
    return code


def store_code(entries: dict) -> None:
    """Make precompiled code objects (digest -> marshalled code, as ``recorded_sources``
    lists them) available to ``compile_source``."""
    _STORED.update(entries)


class recorded_sources:
    """``with recorded_sources() as made:`` -- ``made`` lists (digest, code object) of
    every source ``compile_source`` is asked for inside the block."""

    def __enter__(self) -> list:
        made: list = []
        _RECORDING.append(made)
        return made

    def __exit__(self, *exc) -> None:
        _RECORDING.pop()
