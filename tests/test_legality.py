"""The lowering tables (tdgen.model.legality): read by the engine (Legality.action / legal_types), and emitted as the C++ fragment
of the <NS>TargetLowering constructor, which g++ compiles against LLVM 19's headers inside
a TargetLowering subclass. (A bad table's errors, with their lines, through the API and
the CLI: tests/golden/spec/fail/legality_table.py.)"""

from __future__ import annotations

import subprocess
import textwrap

import pytest

from cpp_tools import WARNINGS, gxx
from llvm_tools import LLVM_INCLUDE, require_llvm_headers
from tdgen import emit, emit_legality
from tdgen.spec import load_target


@pytest.fixture(scope="module")
def amdgpu():
    return load_target("amdgpu")


def test_amdgpu_table_answers_llvm19_actions(amdgpu):
    lg = amdgpu.legality
    # SITargetLowering / AMDGPUTargetLowering (LLVM 19, gfx900)
    assert lg.action("ADD", "v2i32") == "Expand"          # VectorIntTypes
    assert lg.action("ADD", "i64") == "Legal"             # SelectADD_SUB_I64 at selection
    assert lg.action("MUL", "i64") == "Expand"
    assert lg.action("SETCC", "i1") == "Promote" and lg.promoted_type("SETCC", "i1") == "i32"
    assert lg.action("CTLZ_ZERO_UNDEF", "i32") == "Custom"
    assert lg.action("ROTL", "i32") == "Expand" and lg.action("ROTR", "i32") == "Legal"
    assert lg.action("SIGN_EXTEND", "i16") == "Promote"
    assert lg.is_type_legal("i64") and lg.is_type_legal("i1") and not lg.is_type_legal("i8")
    assert lg.legal_types["f32"] == "VGPR_32" and lg.legal_types["i32"] == "SReg_32"
    assert lg.load_ext_actions[("SEXTLOAD", "i64", "i8")] == "Expand"
    assert lg.load_ext_actions[("ZEXTLOAD", "i32", "i16")] == "Legal"
    assert lg.trunc_store_actions[("i64", "i32")] == "Expand"
    assert lg.boolean_contents == "ZeroOrOneBooleanContent"


def test_fragment_lists_the_table(amdgpu):
    text = emit.emit_target("amdgpu", amdgpu)["amdgpu/" + emit_legality.file_name(amdgpu)]
    assert "addRegisterClass(MVT::i64, &AMDGPU::SReg_64RegClass);" in text
    assert "setOperationAction({ISD::MUL, ISD::MULHU, ISD::MULHS}, MVT::i64, Expand);" in text
    assert "setOperationAction(ISD::SETCC, MVT::i1, Promote);\nAddPromotedToType(ISD::SETCC, MVT::i1, MVT::i32);" in text
    assert "setOperationAction(ISD::BRCOND, MVT::Other, Custom); // LowerBRCOND" in text
    assert "setBooleanContents(ZeroOrOneBooleanContent);" in text
    n_calls = text.count("setOperationAction(")
    assert n_calls == len(amdgpu.legality.operations)


def test_fragment_compiles_in_a_target_lowering_constructor(amdgpu, tmp_path):
    """g++ -fsyntax-only on a TargetLowering subclass whose constructor includes the
    generated fragment (the register classes declared as <NS>GenRegisterInfo.inc would)."""
    require_llvm_headers()
    compiler = gxx()
    name = emit_legality.file_name(amdgpu)
    (tmp_path / name).write_text(emit.emit_target("amdgpu", amdgpu)["amdgpu/" + name])
    classes = sorted({getattr(r.register_class, "name", r.register_class)
                      for r in amdgpu.legality.register_classes})
    decls = "\n".join(f"extern const TargetRegisterClass {c}RegClass;" for c in classes)
    (tmp_path / "driver.cpp").write_text(textwrap.dedent(f"""\
        #include "llvm/CodeGen/TargetLowering.h"
        #include "llvm/CodeGen/TargetRegisterInfo.h"
        using namespace llvm;
        namespace llvm {{ namespace AMDGPU {{
        {decls}
        }} }}
        class TestLowering : public TargetLowering {{
        public:
          TestLowering(const TargetMachine &TM, const TargetRegisterInfo *TRI);
        }};
        TestLowering::TestLowering(const TargetMachine &TM, const TargetRegisterInfo *TRI)
            : TargetLowering(TM) {{
        #include "{name}"
        }}
        """))
    r = subprocess.run([compiler, "-std=c++17", "-fsyntax-only", *WARNINGS, "-isystem", str(LLVM_INCLUDE),
                        "-I", str(tmp_path), str(tmp_path / "driver.cpp")], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
