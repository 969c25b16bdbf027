"""Run a generated <NS>IntrinsicRewrite.cpp inside LLVM 19 and let LLVM judge the result.

The rewrite pass is emitted for a target whose intrinsics are real LLVM 19 ones
(amdgcn), so it can be built against LLVM's own intrinsic IDs (libLLVM-19) instead of
the tblgen-made enum header, linked, and run on IR calling NVVM intrinsics: LLVM's
parser reads the input, the generated code rewrites it with IRBuilder, LLVM's verifier
checks every rebuilt call (callee signature, overload mangling, operand types), and the
printed IR must show each operand where the spec's mapping puts it.
"""

from __future__ import annotations

import re
import subprocess

from cpp_tools import build_driver
from llvm_tools import require_llvm_headers
from tdgen import emit, emit_td
from tdgen.hw import DivergenceKind
from tdgen.model import Const, Intrinsic, IntrConvergent, IntrNoMem, Rewrite, Target
from tdgen.types import LLVMMatchType, llvm_any_ty, llvm_i32_ty

# Declared exactly as LLVM 19 declares them (types and overloads are what matters here).
BPERMUTE = Intrinsic("int_amdgcn_ds_bpermute", (llvm_i32_ty,), (llvm_i32_ty, llvm_i32_ty),
                     (IntrNoMem, IntrConvergent))
READLANE = Intrinsic("int_amdgcn_readlane", (llvm_any_ty,), (LLVMMatchType(0), llvm_i32_ty),
                     (IntrNoMem, IntrConvergent), DivergenceKind.ALWAYS_UNIFORM)
MBCNT_LO = Intrinsic("int_amdgcn_mbcnt_lo", (llvm_i32_ty,), (llvm_i32_ty, llvm_i32_ty),
                     (IntrNoMem,), DivergenceKind.SOURCE)

REWRITES = (
    # shfl.sync.idx(membermask, value, lane, c) -> ds.bpermute(lane, value)
    Rewrite("llvm.nvvm.shfl.sync.idx.i32", BPERMUTE, (2, 1)),
    # shfl.sync.bfly.f32(membermask, value, lane, c) -> readlane.f32(value, lane): overload
    Rewrite("llvm.nvvm.shfl.sync.bfly.f32", READLANE, (1, 2)),
    # laneid() -> mbcnt.lo(-1, 0): constant operands only
    Rewrite("llvm.nvvm.read.ptx.sreg.laneid", MBCNT_LO, (Const(-1), Const(0))),
)

INPUT = """\
declare i32 @llvm.nvvm.shfl.sync.idx.i32(i32, i32, i32, i32)
declare float @llvm.nvvm.shfl.sync.bfly.f32(i32, float, i32, i32)
declare i32 @llvm.nvvm.read.ptx.sreg.laneid()

define i32 @f(i32 %mask, i32 %v, i32 %lane, i32 %c, float %x) {
  %a = call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 %mask, i32 %v, i32 %lane, i32 %c)
  %b = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 %mask, float %x, i32 %lane, i32 %c)
  %id = call i32 @llvm.nvvm.read.ptx.sreg.laneid()
  %bi = bitcast float %b to i32
  %s = add i32 %a, %bi
  %t = add i32 %s, %id
  ret i32 %t
}
"""

# The foreign call's arguments by index, as named in INPUT.
ARG_TEXT = {0: "i32 %mask", 1: {"i32": "i32 %v", "f32": "float %x"}, 2: "i32 %lane", 3: "i32 %c"}


def _expected_call(rw: Rewrite, result: str) -> str:
    """The rebuilt call as LLVM prints it, from the spec's operand mapping."""
    suffix = rw.foreign.rsplit(".", 1)[-1]
    args = []
    for op in rw.operands:
        if isinstance(op, Const):
            args.append(f"{op.type} {op.value}")
        else:
            text = ARG_TEXT[op]
            args.append(text[suffix] if isinstance(text, dict) else text)
    ret = "float" if suffix == "f32" else "i32"
    name = rw.target.ir_name + (f".{suffix}" if any(t.is_overloaded for t in rw.target.results) else "")
    return f"{result} = call {ret} @{name}({', '.join(args)})"


def test_rewrite_pass_output_is_valid_ir_with_mapped_operands(tmp_path):
    require_llvm_headers()
    target = Target("nvamd", "NvAmd", "amdgcn", intrinsics=(BPERMUTE, READLANE, MBCNT_LO),
                    rewrites=REWRITES)
    lay = emit_td.layout(target)
    files = emit.emit_target("nvamd", target)
    for src in (lay.rewrite_header, lay.rewrite_source):
        (tmp_path / src).write_text(files[f"nvamd/{src}"])
    # LLVM's own amdgcn IDs, so that libLLVM's intrinsic tables agree with them.
    (tmp_path / lay.enum_header).write_text('#include "llvm/IR/IntrinsicsAMDGPU.h"\n')
    driver = tmp_path / "driver.cpp"
    driver.write_text(
        f'#include "{lay.rewrite_source}"\n'
        '#include "llvm/AsmParser/Parser.h"\n#include "llvm/IR/LLVMContext.h"\n'
        '#include "llvm/IR/Verifier.h"\n#include "llvm/Support/MemoryBuffer.h"\n'
        '#include "llvm/Support/SourceMgr.h"\n#include "llvm/Support/raw_ostream.h"\n'
        "int main(int argc, char **argv) {\n"
        "  (void)argc;\n"
        "  llvm::LLVMContext Ctx;\n  llvm::SMDiagnostic Err;\n"
        "  auto Buf = llvm::MemoryBuffer::getFile(argv[1]);\n"
        "  if (!Buf) return 3;\n"
        "  auto M = llvm::parseAssemblyString((*Buf)->getBuffer(), Err, Ctx);\n"
        "  if (!M) { Err.print(argv[0], llvm::errs()); return 2; }\n"
        "  unsigned Changed = 0;\n"
        "  for (llvm::Function &F : *M)\n"
        f"    Changed += llvm::rewrite{lay.namespace}ForeignIntrinsics(F);\n"
        "  if (llvm::verifyModule(*M, &llvm::errs())) return 1;\n"
        "  llvm::outs() << \"; changed \" << Changed << \"\\n\" << *M;\n"
        "  return 0;\n}\n"
    )
    exe = build_driver(driver, tmp_path)
    src = tmp_path / "input.ll"
    src.write_text(INPUT)
    r = subprocess.run([str(exe), str(src)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, f"verifier or parser failed:\n{r.stderr}"
    body = r.stdout.split("define i32 @f", 1)[1].split("\n}", 1)[0]
    assert "; changed 1" in r.stdout
    assert "@llvm.nvvm." not in body, body
    calls = [ln.strip() for ln in body.splitlines() if " call " in ln]
    want = [_expected_call(rw, res) for res, rw in (("%a", REWRITES[0]), ("%b", REWRITES[1]),
                                                    ("%id", REWRITES[2]))]
    # Attributes LLVM attaches to calls (#N) are not part of the mapping.
    assert [re.sub(r" #\d+$", "", c) for c in calls] == want
