"""The direct builder (patterns/ir/direct_re.py) keeps what ``re`` compiled its expressions
(patterns/ir/direct_syntax.py) to in tdgen's cache folder: a cold import writes the file,
a warm one compiles nothing and gets patterns equal to ``re.compile``'s (equal patterns
have the same flags and compiled code), a damaged or stale file is ignored and
rewritten, ``TDGEN_NO_CACHE=1`` writes nothing."""

from __future__ import annotations

import marshal
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_PROBE = """
import re, sys
import patterns.ir.direct_re as c
import patterns.ir.direct_syntax as d
pats = {k: v for k, v in vars(d).items() if isinstance(v, re.Pattern)}
assert pats and all(p == re.compile(p.pattern) for p in pats.values()), "differs from re.compile"
assert all(p.groupindex == re.compile(p.pattern).groupindex for p in pats.values())
print(sum(1 for k in c.NEW_ENTRIES if k in c.READ_ENTRIES), len(c.NEW_ENTRIES), len(pats))  # from the file, known, all
"""


def _probe(env: dict) -> list[int]:
    r = subprocess.run([sys.executable, "-c", _PROBE], cwd=ROOT, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return [int(x) for x in r.stdout.split()]


def test_expressions_cached_and_equal_to_re(tmp_path):
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"), PYTHONPATH=str(ROOT))
    env.pop("TDGEN_NO_CACHE", None)
    hits, known, n = _probe(env)  # cold: compiles everything, writes the file
    assert hits == 0 and known == n
    (entry,) = (tmp_path / "xdg" / "tdgen").glob("ir-direct-re-*.marshal")
    data = entry.read_bytes()
    content = marshal.loads(data)
    assert len(content) == n
    assert _probe(env) == [n, n, n]  # warm: everything from the file
    assert entry.read_bytes() == data  # (not rewritten)
    for junk in (b"", b"junk", data[: len(data) // 2], b"\xe9" + data[1:]):
        entry.write_bytes(junk)
        res = _probe(env)
        assert res[1:] == [n, n]
        assert marshal.loads(entry.read_bytes()) == content  # rewritten whole
    # a stale file (an expression edited since, another one gone): the others come from it
    stale = dict(content)
    stale.pop(sorted(stale)[0])
    stale["(?:an expression no longer in the module)"] = ("x", 32, [], 0, {}, ())
    entry.write_bytes(marshal.dumps(stale))
    assert _probe(env) == [n - 1, n, n]
    assert marshal.loads(entry.read_bytes()) == content


def test_no_cache_writes_nothing(tmp_path):
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "off"), PYTHONPATH=str(ROOT), TDGEN_NO_CACHE="1")
    n = _probe(env)[2]
    assert _probe(env) == [0, 0, n]
    assert not (tmp_path / "off").exists()


def test_direct_builder_patterns_are_re_patterns():
    from patterns.ir import direct_syntax

    assert isinstance(direct_syntax.BIN, re.Pattern)
    assert direct_syntax.BIN.match("  %x = add i32 %a, 1").group(3) == "x"
