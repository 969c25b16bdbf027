"""The spec checker's verdict on instruction ``Constraints`` strings against llvm-tblgen-19.

Each string is put on S_LOAD_DWORDX2_IMM of the generated amdgpu .td (out/amdgpu, whose
operands are $sdst; $sbase, $offset, $cpol) and run through ``-gen-dag-isel``; tdgen's
``constraint_problems`` must reject exactly the strings tblgen rejects. (Found by the spec
fuzz: a blank Constraints string passed tdgen and failed tblgen.)"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from llvm_tools import require
from tdgen.check.instructions import constraint_problems

ROOT = Path(__file__).resolve().parent.parent
CASES = [
    "", " ", ",", ",,", "@earlyclobber $sdst", "@earlyclobber $sdst,,", "@earlyclobber  $sdst", "@earlyclobber\t$sdst",
    " @earlyclobber $sdst", "@earlyclobber", "@earlyclobber $nope", "@earlyclobber $sdst,@earlyclobber $sdst",
    "@earlyclobber $sdst, @earlyclobber $sdst", "$dst=$src0", "$sdst =$sbase", "$sdst = $sbase", "$sbase = $sdst",
    "$sdst = $sdst", "$src0 = $dst", "$sdst = $sbase,$sdst = $offset", "$sdst = $sbase,$offset = $sbase",
    "$sdst = $sbase,$cpol = $offset", "$sbase = $sdst,$offset = $sdst", "@earlyclobber $sdst,$sdst = $sbase",
]
_OLD = 'def S_LOAD_DWORDX2_IMM : SMEM_2 {\n  let Constraints = "";'


@pytest.mark.parametrize("text", CASES)
def test_constraints_rejected_exactly_as_tblgen_rejects_them(text, tmp_path):
    exe = require("llvm-tblgen-19")
    for f in (ROOT / "out" / "amdgpu").glob("*.td"):
        shutil.copy(f, tmp_path)
    td = tmp_path / "AMDGPUInstructions.td"
    body = td.read_text()
    assert _OLD in body
    td.write_text(body.replace(_OLD, _OLD.replace('""', '"' + text.replace("\t", "\\t") + '"'), 1))
    r = subprocess.run([exe, "-I", "/usr/lib/llvm-19/include", "-I", str(tmp_path), "-gen-dag-isel",
                        str(tmp_path / "AMDGPU.td"), "-o", "/dev/null"], capture_output=True, text=True)
    ours = constraint_problems(text, ["sdst"], ["sbase", "offset", "cpol"])
    assert (r.returncode == 0) == (not ours), (r.stderr[-500:], ours)
