"""patterns/ir/datalayout.py: LLVM 19's DataLayout (parsing, the alignment rules, the
errors) and the ``align`` the printer takes from it, with opt-19 as the oracle; the
layout a ``tdgen divergence`` run prints with (the module's own, else the target's)."""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from llvm_tools import require  # noqa: E402
from patterns.ir import parse_module  # noqa: E402
from patterns.ir.core import ArrayType, FloatType, IntType, PtrType, StructType, VectorType  # noqa: E402
from patterns.ir.datalayout import DEFAULT_LAYOUT, DataLayout, layout_of_text, parse_layout  # noqa: E402
from tdgen.errors import ParseError, TdgenError  # noqa: E402

AMDGPU = ("e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128"
          "-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512"
          "-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9")

I8, I32, I64 = IntType(8), IntType(32), IntType(64)


def test_llvm_default_layout():
    """The empty string is LLVM's defaults (DataLayout.cpp): i1:8 i8:8 i16:16 i32:32
    i64:32:64 f16:16 f32:32 f64:64 f128:128 v64:64 v128:128 a:0:64 p0:64:64:64."""
    d = parse_layout("")
    assert d is DEFAULT_LAYOUT and d is parse_layout("")
    assert d.ints == ((1, 1, 1), (8, 1, 1), (16, 2, 2), (32, 4, 4), (64, 4, 8))
    assert d.floats == ((16, 2, 2), (32, 4, 4), (64, 8, 8), (128, 16, 16))
    assert d.vectors == ((64, 8, 8), (128, 16, 16))
    assert d.pointers == ((0, 64, 8, 8, 64),)
    assert d.aggregate == (1, 8) and not d.big_endian and d.native_ints == () and d.stack_align is None
    assert (d.abi_align(I64), d.pref_align(I64)) == (4, 8)
    assert d.abi_align(PtrType(3)) == 8 and d.pointer_bits(3) == 64  # not listed: address space 0's
    # equal by fields, not by string (as LLVM's operator==): "e" is the default too
    assert parse_layout("e") == d and parse_layout("e") is not d and parse_layout("E") != d


def test_amdgpu_layout():
    d = parse_layout(AMDGPU)
    assert d.pointers == ((0, 64, 8, 8, 64), (1, 64, 8, 8, 64), (2, 32, 4, 4, 32), (3, 32, 4, 4, 32),
                          (4, 64, 8, 8, 64), (5, 32, 4, 4, 32), (6, 32, 4, 4, 32), (7, 160, 32, 32, 32),
                          (8, 128, 16, 16, 128), (9, 192, 32, 32, 32))
    assert d.ints[-1] == (64, 8, 8)
    assert [v[0] for v in d.vectors] == [16, 24, 32, 48, 64, 96, 128, 192, 256, 512, 1024, 2048]
    assert (d.native_ints, d.stack_align, d.alloca_addrspace, d.globals_addrspace, d.program_addrspace,
            d.non_integral) == ((32, 64), 4, 5, 1, 0, (7, 8, 9))
    assert d.abi_align(I64) == 8 and d.abi_align(PtrType(3)) == 4 and d.abi_align(PtrType(7)) == 32
    assert d.size_bits(PtrType(7)) == 160 and d.alloc_size(PtrType(7)) == 32 and d.store_size(PtrType(9)) == 24


def test_amdgpu_target_gives_llvm_19s_layout():
    """targets/amdgpu's ``Target.data_layout`` is what opt-19 -mtriple=amdgcn gives a
    module without one; dslike has LLVM's default."""
    from tdgen.spec import load_target

    assert load_target("amdgpu").data_layout == AMDGPU
    assert load_target("dslike").data_layout == ""
    opt = require("opt-19")
    r = subprocess.run([opt, "-mtriple=amdgcn", "-mcpu=gfx900", "-S", "-"], input="", capture_output=True,
                       text=True, check=True)
    assert f'target datalayout = "{AMDGPU}"' in r.stdout.splitlines()


def test_types_not_listed():
    d = parse_layout("e-i16:16-i64:64")
    # an integer width takes the smallest listed wider integer's entry, else the largest's
    assert d.abi_align(IntType(7)) == 1 and d.abi_align(IntType(24)) == 4 and d.abi_align(IntType(33)) == 8
    assert d.abi_align(IntType(128)) == 8 and parse_layout("i128:128").abi_align(IntType(128)) == 16
    assert DEFAULT_LAYOUT.abi_align(IntType(128)) == 4 and DEFAULT_LAYOUT.pref_align(IntType(128)) == 8
    # vectors not listed: natural alignment (the store size rounded up to a power of two)
    assert d.abi_align(VectorType(3, I32)) == 16 and d.abi_align(VectorType(3, I8)) == 4
    assert d.abi_align(VectorType(5, IntType(1))) == 1 and d.abi_align(VectorType(2, PtrType(0))) == 16
    assert parse_layout("v96:32").abi_align(VectorType(3, I32)) == 4
    # floats not listed: natural alignment as well
    assert d.abi_align(FloatType("x86_fp80")) == 16 and parse_layout("f80:32").abi_align(FloatType("x86_fp80")) == 4
    # arrays: the element's alignment, the elements' alloc size
    assert d.abi_align(ArrayType(3, I64)) == 8 and d.size_bits(ArrayType(3, VectorType(3, I8))) == 3 * 32


def test_structs():
    d = parse_layout("e-i64:64")
    s = StructType((I8, I32, I8))
    assert (d.abi_align(s), d.alloc_size(s), d.size_bits(s)) == (4, 12, 96)
    packed = StructType((I8, I32, I8), packed=True)
    assert (d.abi_align(packed), d.alloc_size(packed)) == (1, 6)
    assert d.pref_align(packed) == 8  # the "a" specification's preferred alignment (a:0:64)
    assert (d.abi_align(StructType(())), d.alloc_size(StructType(()))) == (1, 0)
    assert d.alloc_size(StructType((I8, I64))) == 16
    a64 = parse_layout("a:64")
    assert a64.abi_align(StructType((I8,))) == 8 and a64.alloc_size(StructType((I8,))) == 8
    assert a64.abi_align(StructType((I8,), packed=True)) == 1


# string, error column (1-based, into the string), message
MALFORMED = [
    ("e-i64:48", 7, "expected an ABI alignment of a power of two bytes, found '48'"),
    ("e-", 2, "expected a component after '-', found the end of the layout string"),
    ("-e", 1, "expected a component before '-', found '-' in the layout string"),
    ("i64:", 4, "expected a component after ':', found the end of 'i64:'"),
    ("p:64", 5, "expected a pointer ABI alignment after the size, found the end of 'p:64'"),
    ("x", 1, "expected a layout specification (e, E, p, i, f, v, a, n, ni, S, F, P, A, G or m), found 'x'"),
    ("i8:16", 4, "expected an ABI alignment of 8 bits for i8, found '16'"),
    ("p:64:64:32", 9, "expected a preferred alignment of at least the ABI alignment (64), found '32'"),
    ("p3:32:32:32:64", 13, "expected an index size of at most the pointer size (32), found '64'"),
    ("e-p:64:64:64:0", 14, "expected a non-zero index size, found '0'"),
    ("ni:0", 4, "expected a non-integral address space other than 0, found '0'"),
    ("a1:8", 2, "expected no size (or 0) after 'a', found '1'"),
    ("i64:0", 5, "expected a non-zero ABI alignment, found '0'"),
    ("i64:12", 5, "expected an ABI alignment that is a whole number of bytes (a multiple of 8 bits), found '12'"),
    ("i64:x", 5, "expected an ABI alignment (a 32-bit unsigned decimal number), found 'x'"),
    ("i16777216:8", 2, "expected a size below 2^24 bits, found '16777216'"),
    ("A16777216", 2, "expected an address space below 2^24, found '16777216'"),
    ("n32:0", 5, "expected a non-zero native integer width, found '0'"),
    ("m:q", 3, "expected a mangling mode (one of e, l, o, m, w, x, a), found 'q'"),
    ("me", 2, "expected ':' after 'm', found 'e'"),
    ("Fx8", 2, "expected 'i' or 'n' after 'F' (the function pointer alignment type), found 'x'"),
    ("Fi", 3, "expected a function pointer alignment (a 64-bit unsigned decimal number), found nothing"),
    ("S12", 2, "expected a stack alignment that is a whole number of bytes (a multiple of 8 bits), found '12'"),
    ("i64:128000000", 5, "expected an ABI alignment below 2^16 bytes, found '128000000'"),
]
# accepted by LLVM 19 although odd: what it leaves unchecked stays unchecked
ACCEPTED = ["", "e", "E-m:e", "efoo", "i:8", "i64:64:64:99", "a:0:0", "S0", "ni:7:8", "p:64:64:64:32:foo",
            "e-i128:128-v96:32-f80:32-a:64-Fn8-P1-G2-A5-n8:16:32"]


@pytest.mark.parametrize("text,col,message", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_layout_error_text(text, col, message):
    with pytest.raises(ParseError) as ei:
        parse_layout(text)
    assert ei.value.format() == f"<data layout>:1:{col}: {message}"
    # in a module: at the component
    src = f'target datalayout = "{text}"\ndefine void @f() {{\n  ret void\n}}\n'
    with pytest.raises(TdgenError) as ei:
        parse_module(src, "m.ll")
    assert ei.value.format() == f"m.ll:1:{21 + col}: {message}"


def test_layout_verdicts_match_opt():
    """Every string above is rejected, or accepted, by opt-19 too."""
    opt = require("opt-19")
    for text, ok in [(m[0], False) for m in MALFORMED] + [(a, True) for a in ACCEPTED]:
        r = subprocess.run([opt, "-disable-output", "-"], input=f'target datalayout = "{text}"\n',
                           capture_output=True, text=True)
        assert (r.returncode == 0) == ok, (text, r.stderr)
        if ok:
            layout_of_text(text)


def test_layouts_are_frozen_cached_and_pickle():
    import pickle

    d = parse_layout(AMDGPU)
    assert d is layout_of_text(AMDGPU)
    with pytest.raises(AttributeError):
        d.ints = ()
    assert pickle.loads(pickle.dumps(d)) is d
    assert isinstance(d, DataLayout) and repr(d) == f"DataLayout({AMDGPU!r})"


def test_the_last_layout_line_counts():
    src = 'target datalayout = "e-i64:32"\ntarget datalayout = "e-i64:64"\ndefine void @f() {\n  ret void\n}\n'
    assert parse_module(src, "m.ll").data_layout is parse_layout("e-i64:64")
    assert parse_module("define void @f() {\n  ret void\n}\n").data_layout is None


# ---------------------------------------------------------------- printed align vs opt

_TYPES = ["i1", "i7", "i16", "i24", "i33", "i64", "i128", "half", "bfloat", "float", "double", "fp128", "x86_fp80",
          "ptr", "ptr addrspace(3)", "ptr addrspace(5)", "ptr addrspace(7)", "ptr addrspace(42)", "<3 x i8>",
          "<3 x i32>", "<4 x i32>", "<2 x i64>", "<5 x i1>", "<3 x half>", "<2 x ptr>", "<2 x ptr addrspace(3)>",
          "[3 x i64]", "[2 x <3 x i8>]", "{ i8, i32 }", "{ i8, i64 }", "<{ i8, i64 }>", "{}", "{ [2 x i16], i8 }"]
_LAYOUTS = ["", AMDGPU, "e-i64:64-i128:128-v96:32-v24:8-a:64-p3:32:16-p7:32:64-f80:32"]


def _module(layout: str | None) -> str:
    head = f'target datalayout = "{layout}"\n' if layout is not None else ""
    lines = []
    for k, t in enumerate(_TYPES):
        lines.append(f"  %a{k} = alloca {t}")
        lines.append(f"  %l{k} = load {t}, ptr %p")
        lines.append(f"  store {t} poison, ptr %p")
    for k, t in enumerate(["i8", "i32", "i64", "ptr", "ptr addrspace(3)"]):
        lines.append(f"  %r{k} = atomicrmw xchg ptr %p, {t} poison seq_cst")
        lines.append(f"  %c{k} = cmpxchg ptr %p, {t} poison, {t} poison seq_cst seq_cst")
    return head + "define void @f(ptr %p) {\n" + "\n".join(lines) + "\n  ret void\n}\n"


def _opt_lines(opt: str, text: str, *flags: str) -> list[str]:
    r = subprocess.run([opt, "-S", *flags, "-"], input=text, capture_output=True, text=True, check=True)
    body = r.stdout.split("define void @f(ptr %p) {\n", 1)[1].split("\n}", 1)[0]
    return [ln.strip() for ln in body.splitlines()]


@pytest.mark.parametrize("layout", _LAYOUTS, ids=["llvm-default", "amdgpu", "odd"])
def test_printed_align_matches_opt(layout):
    """Loads, stores and allocas without ``align`` (ABI alignment of the value, preferred
    alignment of the allocated type), atomics (store size) print what opt-19 prints
    for the module's own layout."""
    opt = require("opt-19")
    text = _module(layout)
    m = parse_module(text, "m.ll")
    ours = [i.text for i in m.function("f").instructions()]
    assert ours == _opt_lines(opt, text)


def test_target_layout_for_a_module_without_one():
    """A module without a layout prints with the target's (``use_target_layout``), as
    opt -mtriple=amdgcn does; with none at all, LLVM's default, as opt without a triple."""
    from patterns.ir.datalayout import use_target_layout

    opt = require("opt-19")
    text = _module(None)
    m = use_target_layout(parse_module(text, "m.ll"), AMDGPU)
    assert m.data_layout is parse_layout(AMDGPU)
    assert [i.text for i in m.function("f").instructions()] == _opt_lines(opt, text, "-mtriple=amdgcn")
    plain = parse_module(text, "m.ll")
    assert [i.text for i in plain.function("f").instructions()] == _opt_lines(opt, text)
    own = parse_module(_module(""), "m.ll")
    assert use_target_layout(own, AMDGPU).data_layout is DEFAULT_LAYOUT  # its own layout wins


# ------------------------------------------------------------------ tdgen divergence

KERNEL = """\
define amdgpu_kernel void @k(ptr addrspace(1) %out, ptr addrspace(3) %lds) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %slot = alloca { i8, i64 }, addrspace(5)
  %vec = alloca <3 x i32>, addrspace(5)
  %idx = zext i32 %tid to i64
  %gep = getelementptr i64, ptr addrspace(1) %out, i64 %idx
  %v = load i64, ptr addrspace(1) %gep
  %w = load <3 x i32>, ptr addrspace(3) %lds
  %p = load ptr addrspace(3), ptr addrspace(1) %out
  store i64 %v, ptr addrspace(1) %gep
  store <3 x i32> %w, ptr addrspace(5) %vec
  %x = atomicrmw add ptr addrspace(1) %gep, i64 1 seq_cst
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
"""


def _divergence(path: str, *args: str) -> str:
    from tdgen.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["divergence", path, *args]) == 0
    return out.getvalue()


@pytest.mark.parametrize("layout", [None, "e-p3:32:32-p5:32:32-i64:32:64-v96:32-A5"], ids=["target's", "own"])
def test_divergence_prints_the_modules_own_layout_like_opt(tmp_path, layout):
    """``tdgen divergence`` prints ``align`` from the module's ``target datalayout``
    when it has one, else from the target's layout: what opt-19 -mtriple=amdgcn prints."""
    opt = require("opt-19")
    path = tmp_path / "k.ll"
    path.write_text((f'target datalayout = "{layout}"\n' if layout else "") + KERNEL)
    ours = _divergence(str(path))
    r = subprocess.run([opt, "-mtriple=amdgcn", "-passes=print<uniformity>", "-disable-output", str(path)],
                       capture_output=True, text=True, check=True)
    assert ours == r.stderr
    aligns = re.findall(r"%v = load i64, ptr addrspace\(1\) %gep, align (\d+)", ours)
    assert aligns == (["4"] if layout else ["8"])
    # -S prints the IR with the same layout
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        ir = _divergence(str(path), "-S")
    assert ("align 4" in ir.split("%v = load", 1)[1].split("\n", 1)[0]) == bool(layout)


def test_spec_data_layout_is_checked(tmp_path):
    """A malformed ``Target.data_layout`` is a spec error at the field."""
    import shutil

    from tdgen.spec import load_target

    src = (ROOT / "targets" / "dslike" / "spec.py").read_text()
    assert "    isd_namespace=\"DSLikeISD\",\n" in src
    folder = tmp_path / "bad"
    shutil.copytree(ROOT / "targets" / "dslike", folder)
    (folder / "spec.py").write_text(src.replace("    isd_namespace=\"DSLikeISD\",\n",
                                                "    isd_namespace=\"DSLikeISD\",\n    data_layout=\"e-i64:48\",\n"))
    with pytest.raises(TdgenError) as ei:
        load_target(str(folder))
    msg = ei.value.format()
    assert "record 'dslike' field 'data_layout': expected an ABI alignment of a power of two bytes, found '48' " \
           "(at offset 6)" in msg, msg
