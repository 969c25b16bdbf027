"""Helpers for comparing ``tdgen divergence`` with ``opt-19 -passes=print<uniformity>``.

opt-19 lists divergent arguments and cycles in pointer-hash order, and which nested
cycles it lists depends on its worklist order; ``comparable`` removes exactly that
freedom: argument lines become a set; cycles nested in (or equal to) a cycle assumed
divergent are dropped from the lists, as their exit divergence is moot there.
Everything else (every instruction line with its DIVERGENT mark, block order,
"ALL VALUES UNIFORM") must be identical.
"""

from __future__ import annotations

import re
import subprocess

_SECTIONS = {
    "DIVERGENT ARGUMENTS:": "args",
    "CYCLES ASSSUMED DIVERGENT:": "assumed",
    "CYCLES WITH DIVERGENT EXIT:": "exit",
}


def parse_report(text: str) -> dict[str, dict]:
    out: dict[str, dict] = {}
    cur = None
    sec = None
    for line in text.split("\n"):
        if line.startswith("UniformityInfo for function '"):
            cur = out[line.split("'")[1]] = {"lines": [], "args": set(), "assumed": [], "exit": []}
            sec = None
            continue
        if cur is None:
            continue
        if line in _SECTIONS:
            sec = _SECTIONS[line]
            continue
        if sec is not None and line.startswith("  "):
            if sec == "args":
                cur["args"].add(line)
            else:
                cur[sec].append(line.strip())
            continue
        sec = None
        cur["lines"].append(line)
    return out


def _blocks(cycle: str) -> frozenset[str]:
    m = re.match(r"depth=\d+: entries\(([^)]*)\)(.*)", cycle)
    assert m, cycle
    return frozenset(m.group(1).split() + m.group(2).split())


def comparable(fn: dict) -> tuple:
    assumed = [_blocks(c) for c in fn["assumed"]]

    def keep(c: str, own: bool) -> bool:
        b = _blocks(c)
        return not any(b < a or (b == a and not own) for a in assumed)

    return (
        tuple(fn["lines"]),
        frozenset(fn["args"]),
        frozenset(c for c in fn["assumed"] if keep(c, True)),
        frozenset(c for c in fn["exit"] if keep(c, False)),
    )


def divergent_lines(fn: dict) -> set[int]:
    return {i for i, line in enumerate(fn["lines"]) if line.startswith("  DIVERGENT: ")}


def run_opt(opt: str, path: str, mtriple: str = "amdgcn--") -> str:
    r = subprocess.run(
        [opt, f"-mtriple={mtriple}", "-passes=print<uniformity>", "-disable-output", path],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    return r.stderr
