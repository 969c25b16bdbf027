"""The IR reader on the forms clang-19 and LLVM's own tests write (attributes, globals in
address spaces, named types, comdats, aliases, metadata, quoted labels, fp/vector/atomic
instructions, debug records): accepted exactly when opt-19 accepts them, the AST fields
they fill, and ``tdgen divergence`` equal to opt-19's ``print<uniformity>`` on them."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from llvm_tools import require

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from patterns.ir import parse_module  # noqa: E402
from patterns.ir.core import NamedStructType, PtrType, StructType  # noqa: E402
from tdgen.errors import TdgenError  # noqa: E402

FORMS = ROOT / "tests" / "golden" / "ir" / "pass" / "clang_forms.ll"


def _divergent(report: str) -> list[str]:
    """The DIVERGENT lines of a print<uniformity> report, metadata numbers dropped (opt
    renumbers metadata nodes; the reader keeps the input's numbers)."""
    return [re.sub(r"!\d+", "!N", ln) for ln in report.splitlines() if "DIVERGENT" in ln]


def _ours(path: Path, *flags: str) -> str:
    r = subprocess.run([sys.executable, "-m", "tdgen", "divergence", str(path), *flags], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


def _opt(path: Path) -> str:
    opt = require("opt-19")
    r = subprocess.run([opt, "-mtriple=amdgcn", "-passes=print<uniformity>", "-disable-output", str(path)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stderr


def _opt_accepts(text: str) -> bool:
    opt = require("opt-19")
    r = subprocess.run([opt, "-passes=verify", "-disable-output", "-"], input=text, capture_output=True, text=True)
    return r.returncode == 0


@pytest.mark.parametrize("flags", [(), ("--llvm19-compat",)], ids=["default", "compat"])
def test_forms_divergence_equals_opt(flags):
    assert _divergent(_ours(FORMS, *flags)) == _divergent(_opt(FORMS))


# valid IR an earlier reader rejected (found by fuzzing): each parses, as opt-19 parses it
VALID = {
    "quote_in_comment": "define void @f() {\n  ret void ; a \" quote\n}\n",
    "global_in_address_space": ("@lds = internal addrspace(3) global [64 x i32] undef\n"
                                "define void @f(i32 %v) {\n  store i32 %v, ptr addrspace(3) @lds\n  ret void\n}\n"),
    "quoted_labels": ("define void @f() {\n\"entry block\":\n  br label %\"next one\"\n"
                      "\"next one\":\n  ret void\n}\n"),
    "named_struct_types": ("%T = type { i32, ptr }\n%O = type opaque\n@g = global %T zeroinitializer\n"
                           "define i32 @f(ptr %p) {\n  %x = load %T, ptr %p\n  %y = extractvalue %T %x, 0\n"
                           "  ret i32 %y\n}\n"),
    "comdat_and_alias": ("$c = comdat any\n@g = global i32 0, comdat($c)\n@a = alias i32, ptr @g\n"
                         "define i32 @f() comdat($c) {\n  %v = load i32, ptr @a\n  ret i32 %v\n}\n"),
    "dilocation": ("define void @f() !dbg !0 {\n  ret void, !dbg !1\n}\n"
                   "!0 = distinct !DISubprogram(name: \"f\")\n!1 = !DILocation(line: 1, column: 2, scope: !0)\n"),
    "debug_record": ("define void @f(i32 %x) !dbg !0 {\n  #dbg_value(i32 %x, !2, !DIExpression(), !1)\n"
                     "  ret void, !dbg !1\n}\n!llvm.module.flags = !{!3}\n"
                     "!0 = distinct !DISubprogram(name: \"f\")\n!1 = !DILocation(line: 1, column: 2, scope: !0)\n"
                     "!2 = !DILocalVariable(name: \"x\", scope: !0)\n!3 = !{i32 2, !\"Debug Info Version\", i32 3}\n"),
}


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_forms_parse(name):
    text = VALID[name]
    assert _opt_accepts(text), name
    m = parse_module(text, f"{name}.ll")
    assert m.definitions()


def test_scalable_vectors_refused_as_not_modeled():
    text = "define void @f(<vscale x 4 x i32> %v) {\n  ret void\n}\n"
    assert _opt_accepts(text)  # valid IR: refused because the engine does not model it
    with pytest.raises(TdgenError) as e:
        parse_module(text, "s.ll")
    assert e.value.format() == ("s.ll:1:17: expected a fixed-length vector type, found a scalable vector "
                                "('vscale': not modeled)")


def test_mixing_debug_records_and_intrinsics_rejected_like_opt():
    text = ("define void @f(i32 %x) !dbg !0 {\n  #dbg_value(i32 %x, !2, !DIExpression(), !1)\n"
            "  call void @llvm.dbg.value(metadata i32 %x, metadata !2, metadata !DIExpression()), !dbg !1\n"
            "  ret void\n}\ndeclare void @llvm.dbg.value(metadata, metadata, metadata)\n"
            "!0 = distinct !DISubprogram(name: \"f\")\n!1 = !DILocation(line: 1, column: 2, scope: !0)\n"
            "!2 = !DILocalVariable(name: \"x\", scope: !0)\n")
    assert not _opt_accepts(text)
    with pytest.raises(TdgenError) as e:
        parse_module(text, "d.ll")
    assert "no debug intrinsic in a module with debug records" in e.value.format()


def test_ast_of_the_new_forms():
    """Globals (address space, kind, initializer), aliases, named types, attributes kept
    as their canonical text, metadata kept as written, debug intrinsics dropped."""
    m = parse_module(FORMS.read_text(), str(FORMS))
    lds, alias, pair = m.globals["lds"], m.globals["alias"], m.globals["pair"]
    assert (lds.addrspace, str(lds.type), lds.kind, lds.initializer.text) == (3, "[64 x i32]", "global", "undef")
    assert (alias.kind, alias.addrspace, alias.initializer.name) == ("alias", 1, "counter")
    assert m.globals["str"].kind == "constant" and m.globals["str"].initializer.text == 'c"abc\\00"'
    assert pair.type == NamedStructType("struct.pair") and isinstance(pair.type.body, StructType)
    assert m.named_types["struct.opaque"].body is None and m.comdats == {"grp": "any"}
    assert m.globals["second"].initializer.text == (
        "getelementptr inbounds ([2 x float], ptr addrspace(4) @table, i64 0, i64 1)")
    f = m.function("forms")
    assert [a.attr_text for a in f.args] == [
        ("noundef", "align 4"), ("noundef", "nofpclass(nan)"), ("noundef", "range(i32 0, 100)"),
        ("nocapture", "noundef", "readonly", "byref(%struct.pair)", "align 4"), ()]
    assert "convergent" in f.attrs and '"uniform-work-group-size"="true"' in f.attrs
    tid = f.blocks[0].instructions[0]
    assert tid.ret_attrs == ("noundef", "range(i32 0, 1024)") and tid.tail == "tail"
    slot = f.blocks[0].instructions[2]
    assert slot.operands[0].type == PtrType(3) and slot.addrspace == 3
    assert [b.name for b in f.blocks] == ["entry block", "zero", "the end"]
    text = VALID["debug_record"]
    g = parse_module(text, "r.ll")
    assert [i.opcode for i in g.function("f").instructions()] == ["ret"]
    assert g.function("f").blocks[0].instructions[0].metadata == [("!dbg", "!1")]
    assert g.metadata["!1"] == "!DILocation(line: 1, column: 2, scope: !0)"
    assert g.metadata["!0"] == 'distinct !DISubprogram(name: "f")'


def test_isel_names_what_it_does_not_model():
    """The selection models scalar and vector values only: an aggregate (here the
    insertvalue of a named struct) is a clear error naming it, exit 2, never selected."""
    r = subprocess.run([sys.executable, "-m", "tdgen", "isel", str(FORMS), "--target", "amdgpu"], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert any(ln.endswith("found 'insertvalue' with a value of aggregate type %struct.pair (not modeled)")
               for ln in lines), r.stderr
    # (selection goes on per function: the summary names the functions not selected)
    assert lines[-1].startswith("tdgen isel: ") and "@forms" in lines[-1]


_KERNEL = """
__kernel void k(__global float *out, __global const float *a, __local float *tile, int n) {
  int i = __builtin_amdgcn_workitem_id_x();
  int g = __builtin_amdgcn_workgroup_id_x();
  tile[i] = a[g * 64 + i];
  barrier(CLK_LOCAL_MEM_FENCE);
  float s = 0.0f;
  for (int j = 0; j < n; ++j)
    s += tile[(i + j) & 63] * 0.5f;
  if (s > 1.0f)
    atomic_fetch_add_explicit((volatile __global atomic_int *)out, 1, memory_order_relaxed,
                              memory_scope_work_group);
  out[g * 64 + i] = s;
}
"""


@pytest.mark.parametrize("level", ["O0", "O2"])
def test_clang_output_divergence_equals_opt(level, tmp_path):
    clang = require("clang-19")
    src = tmp_path / "k.cl"
    src.write_text(_KERNEL)
    ll = tmp_path / f"k.{level}.ll"
    subprocess.run([clang, "-x", "cl", "-cl-std=CL2.0", "-nogpulib", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx900",
                    f"-{level}", "-S", "-emit-llvm", str(src), "-o", str(ll)], check=True, capture_output=True)
    assert "range(i32 0, 1024)" in ll.read_text()
    assert _divergent(_ours(ll, "--llvm19-compat")) == _divergent(_opt(ll))
