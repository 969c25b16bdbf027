"""ImmLeaf / PatLeaf / SDNodeXForm end to end: the C++ subset their code is read in
(``tdgen.cppexpr.translate_cpp``), selection by the constant's value, operand
transforms in result DAGs, the checker's rules, the lint and the emitted TableGen.

Expected selections are derived from the predicate written in each test (the set of
constants it accepts), not listed by hand.
"""

from __future__ import annotations

import dataclasses

import pytest

from tdgen.errors import TdgenError
from tdgen.model import ImmLeaf, Instruction, Pat, PatFrag, PatLeaf, SDNodeXForm
from tdgen.types import f32, i32

from test_isel_engine import _select, mini_target

# ---------------------------------------------------------------------------------------
# translate_cpp: C++ semantics


def _value(expr: str, imm: int = 0, bits: int = 32, context: str | None = None):
    """The value C++ gives ``return <expr>;`` (via the translated Python)."""
    from tdgen.cppexpr import HELPERS, translate_cpp

    py, _t = translate_cpp(f"return {expr};", context)
    return eval(f"lambda Imm, bits: {py}", {"__builtins__": {}, **HELPERS})(imm, bits)  # noqa: S307


def _type(expr: str):
    from tdgen.cppexpr import translate_cpp

    return translate_cpp(f"return {expr};")[1]


@pytest.mark.parametrize("expr, value", [
    # integer promotion: char/short operands are computed as int
    ("(unsigned char)200 + (unsigned char)100", 300),
    ("(short)30000 + (short)30000", 60000),
    ("(unsigned short)300 * (unsigned short)300", 90000),  # int multiplication, no 16-bit wrap
    ("-(unsigned char)1", -1),
    ("~(unsigned char)0", -1),
    # unsigned wrap-around
    ("0u - 1", 4294967295),
    ("-1u", 4294967295),
    ("~0u", 4294967295),
    ("4294967295u + 1u", 0),
    ("(uint64_t)0 - 1", 2**64 - 1),
    ("0xFFFFFFFF + 1", 0),  # a hex literal that does not fit int is unsigned int
    ("2147483647 + 1", -2147483648),  # int overflow wraps in the model
    ("4294967295 + 1", 4294967296),  # a decimal literal that does not fit int is long
    # usual arithmetic conversions
    ("-1 < 0u", False),
    ("-1 < (uint64_t)0", False),
    ("(int64_t)-1 < 0u", True),  # the unsigned int converts to the wider signed type
    ("-1 == 4294967295u", True),
    ("(unsigned)-1 > 0", True),
    ("(int)4294967295u", -1),
    ("(int8_t)200", -56),
    ("(bool)256", True),
    ("(unsigned char)256", 0),
    # division truncates toward zero, the remainder takes the dividend's sign
    ("-7 / 2", -3),
    ("7 / -2", -3),
    ("-7 % 2", -1),
    ("7 % -2", 1),
    ("-7u / 2", 2147483644),
    ("(-2147483647 - 1) / -1", -2147483648),
    # precedence and associativity
    ("1 + 2 * 3", 7),
    ("(1 + 2) * 3", 9),
    ("10 - 3 - 2", 5),
    ("100 / 10 / 5", 2),
    ("1 << 2 + 1", 8),
    ("1 + 2 << 1", 6),
    ("6 & 3 == 3", 0),  # == binds tighter than &: 6 & (3 == 3)
    ("(6 & 3) == 2", True),
    ("1 | 2 ^ 3", 1),  # ^ binds tighter than |
    ("5 & 3 ^ 1", 0),  # & binds tighter than ^
    ("1 || 0 && 0", True),  # && binds tighter than ||
    ("!0 + 1", 2),
    ("-2 * -3", 6),
    ("1 ? 2 : 3 ? 4 : 5", 2),
    ("0 ? 2 : 0 ? 4 : 5", 5),
    ("3 > 2 > 1", False),  # (3 > 2) > 1: true is 1
    # shifts
    ("-8 >> 1", -4),  # arithmetic on signed values
    ("0x80000000u >> 31", 1),
    ("1u << 31", 2147483648),
    ("1 << 31", -2147483648),
    ("(uint64_t)1 << 63", 2**63),
    # helpers
    ("isInt<8>(-128)", True),
    ("isInt<8>(128)", False),
    ("isUInt<8>(-1)", False),  # -1 as uint64_t
    ("isUInt<32>(0xFFFFFFFFu)", True),
    ("isPowerOf2_32(0x80000000u)", True),
    ("isPowerOf2_32(-2147483647 - 1)", True),  # the low 32 bits
    ("isPowerOf2_64(0)", False),
    ("isMask_32(0xFFu)", True),
    ("isShiftedMask_32(0xF0u)", True),
    ("llvm::countr_zero(8u)", 3),
    ("countl_zero(1u)", 31),
    ("popcount(0xF0F0u)", 8),
    ("static_cast<uint64_t>(-1) == 0xFFFFFFFFFFFFFFFFull", True),
])
def test_cpp_expressions(expr, value):
    assert _value(expr) == value


# Expressions whose value g++ computes (with LLVM's MathExtras/bit helpers) for each of
# _IMMS as ``Imm`` and as the constant of ``N`` at 32 and 64 bits; every one is defined
# behaviour in C++20 for every such value.
_ORACLE_EXPRS = (
    "Imm", "Imm < -16 && Imm >= -64", "Imm >= -64 && Imm <= -17", "isInt<8>(Imm)", "isUInt<8>(Imm)",
    "isInt<16>(Imm) || isUInt<16>(Imm)", "isPowerOf2_32(Imm)", "isPowerOf2_64(Imm)", "isMask_32(Imm)",
    "isShiftedMask_32(Imm)", "isUInt<32>(Imm)", "(Imm & 0xffffffffULL) == static_cast<uint64_t>(Imm)",
    "(int32_t)Imm", "(uint32_t)Imm", "(int8_t)Imm", "(uint16_t)Imm + (uint16_t)1", "(unsigned)Imm >> 4",
    "(int)Imm >> 4", "Imm >> 63", "~Imm", "-(uint64_t)Imm", "(uint32_t)Imm * 3u", "(uint32_t)Imm / 7u",
    "(uint32_t)Imm % 7u", "(int32_t)Imm / 7", "(int32_t)Imm % 7", "(int8_t)Imm / -3", "(int8_t)Imm % -3",
    "Imm < 0u", "(int32_t)Imm < 0u", "(int32_t)Imm == 4294967295u", "(uint32_t)Imm < -1",
    "Imm != 0 ? 1u : -1", "!Imm || (Imm & 1) == 1", "(Imm ^ 0x55) & 0xff | 0x100", "1 + 2 * 3 - 4 / 2 % 3",
    "(uint8_t)Imm << 24", "(uint64_t)(uint8_t)Imm << 56", "llvm::countr_zero((uint32_t)Imm | 0x80000000u)",
    "countl_zero((uint64_t)Imm | 1)", "popcount((uint32_t)Imm)", "0x7fffff00 + (int8_t)Imm",
    "(short)Imm * (short)Imm", "isIntN(12, Imm)", "isUIntN(12, Imm)", "true + true", "(bool)Imm + 1",
)
_ORACLE_NODE_EXPRS = ("N->getSExtValue()", "N->getZExtValue()", "N->getZExtValue() >= 0x80000000u",
                      "isUInt<16>(N->getZExtValue())", "N->getZExtValue() >> 1", "-N->getSExtValue()")
_IMMS = (-2**63, -2**31 - 1, -2**31, -65536, -129, -128, -65, -64, -17, -16, -1, 0, 1, 7, 64, 255, 256,
         0x5A5A, 2**31 - 1, 2**31, 2**32 - 1, 2**32 + 5, 2**63 - 1)


def test_cpp_expressions_agree_with_gxx(tmp_path):
    """g++ is the oracle: every expression of _ORACLE_EXPRS (C++ over ``Imm``) and
    _ORACLE_NODE_EXPRS (over a ConstantSDNode ``N`` whose getZExtValue zero-extends at its
    width) has, for each constant, the value and the type translate_cpp gives it."""
    import subprocess

    from cpp_tools import gxx
    from llvm_tools import LLVM_INCLUDE, require_llvm_headers
    from tdgen.cppexpr import HELPERS, translate_cpp

    require_llvm_headers()
    cases = [(e, v, 64, "imm") for e in _ORACLE_EXPRS for v in _IMMS]
    cases += [(e, _sext(v, bits), bits, "node") for e in _ORACLE_NODE_EXPRS for bits in (32, 64) for v in _IMMS]
    body = []
    for k, (expr, v, bits, ctx) in enumerate(cases):
        lit = f"(INT64_C({v + 1}) - 1)" if v == -2**63 else f"INT64_C({v})"
        decl = f"int64_t Imm = {lit};" if ctx == "imm" else f"Node node{{{lit}, {bits}}}; const Node *N = &node;"
        body.append(f"  {{ {decl} show({expr}); }}")
    src = tmp_path / "oracle.cpp"
    src.write_text(
        "#include <cstdio>\n#include <cstdint>\n#include <type_traits>\n"
        '#include "llvm/Support/MathExtras.h"\n#include "llvm/ADT/bit.h"\nusing namespace llvm;\n'
        "struct Node { int64_t v; unsigned bits;\n"
        "  int64_t getSExtValue() const { return v; }\n"
        "  uint64_t getZExtValue() const { return bits == 64 ? (uint64_t)v : (uint64_t)v & ((1ULL << bits) - 1); } };\n"
        "template <class T> void show(T x) {\n"
        "  if constexpr (std::is_same_v<T, bool>) std::printf(\"1 0 %d\\n\", (int)x);\n"
        "  else if constexpr (std::is_signed_v<T>) std::printf(\"%zu 1 %lld\\n\", sizeof(T) * 8, (long long)x);\n"
        "  else std::printf(\"%zu 0 %llu\\n\", sizeof(T) * 8, (unsigned long long)x); }\n"
        "int main() {\n" + "\n".join(body) + "\n}\n")
    exe = tmp_path / "oracle"
    r = subprocess.run([gxx(), "-std=c++20", "-O0", "-w", "-isystem", str(LLVM_INCLUDE), str(src), "-o", str(exe)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60).stdout.splitlines()
    assert len(out) == len(cases)
    wrong = []
    for (expr, v, bits, ctx), line in zip(cases, out):
        size, signed, value = line.split()
        want_type = (int(size), signed == "1") if size != "1" else (1, False)
        py, t = translate_cpp(f"return {expr};", ctx)
        got = eval(f"lambda Imm, bits: {py}", {"__builtins__": {}, **HELPERS})(v, bits)  # noqa: S307
        if (int(got), t) != (int(value), want_type):
            wrong.append(f"{expr} [Imm={v}, bits={bits}]: g++ {value} {want_type}, tdgen {int(got)} {t}")
    assert not wrong, "\n".join(wrong[:20])


def _sext(v: int, bits: int) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


@pytest.mark.parametrize("expr, ctype", [
    ("1", (32, True)), ("1u", (32, False)), ("1l", (64, True)), ("1ull", (64, False)),
    ("0x7FFFFFFF", (32, True)), ("0x80000000", (32, False)), ("2147483648", (64, True)),
    ("0xFFFFFFFFFFFFFFFF", (64, False)), ("(char)1 + (char)1", (32, True)), ("1u + 1l", (64, True)),
    ("1u + 1", (32, False)), ("1ul + 1", (64, False)), ("1 < 2", (1, False)), ("Imm", (64, True)),
    ("N->getZExtValue()", (64, False)),
])
def test_cpp_expression_types(expr, ctype):
    assert _type(expr) == ctype


def test_cpp_values_of_the_constant():
    """``Imm`` / ``N->getSExtValue()`` are the constant sign-extended, ``getZExtValue``
    zero-extends it at its width."""
    assert _value("Imm", -5) == -5
    assert _value("N->getSExtValue()", -5, context="node") == -5
    assert _value("N->getZExtValue()", -5, 32, context="node") == 2**32 - 5
    assert _value("N->getZExtValue()", -5, 16, context="node") == 2**16 - 5
    assert _value("Imm < -16 && Imm >= -64", -17) and not _value("Imm < -16 && Imm >= -64", -16)


@pytest.mark.parametrize("code, context, why", [
    ("return N->getSExtValue() > 0;", "imm", "'N' is not declared in ImmLeaf code (the constant is Imm)"),
    ("return Imm > 0;", "node", "'Imm' is declared only in ImmLeaf code (here the constant is N)"),
    ("return Subtarget->hasFoo() && Imm > 0;", None, "'Subtarget' is not something tdgen reads here"),
    ("int x = Imm; return x;", None, "the code is not one 'return <expression>;'"),
    ("return Imm > 0", None, "expected ';', found the end"),
    ("return 1.5 > Imm;", None, "'1.5' is not an integer literal"),
    ("return Imm @ 2;", None, "'@' is not an operator tdgen reads"),
    ("return isInt<N>(Imm);", None, "expected an integer template argument, found 'N'"),
    ("return 08;", None, "'08' is not an integer literal"),
    ("return 99999999999999999999;", None, "'99999999999999999999' does not fit a 64-bit integer type"),
])
def test_unreadable_code_says_why(code, context, why):
    from tdgen.cppexpr import compile_imm_code, imm_code_problem

    assert compile_imm_code(code, context) is None
    assert imm_code_problem(code, context) == why


def test_predicate_undefined_behaviour_fails_the_predicate():
    """Division by zero or a negative shift amount is undefined in C++: the predicate is
    false there, not an exception."""
    from tdgen.cppexpr import compile_imm_code

    fn = compile_imm_code("return 64 / Imm > 1 && (1 << Imm) > 0;", "imm")
    assert fn is not None
    assert [v for v in range(-3, 40) if fn(v, 32)] == [v for v in range(1, 32) if 64 // v > 1 and v != 31]


@pytest.mark.parametrize("code, value, vt, want", [
    ("return CurDAG->getTargetConstant(-N->getSExtValue(), SDLoc(N), MVT::i32);", -32, "i32", (32, "i32")),
    ("return CurDAG->getTargetConstant(-N->getSExtValue(), SDLoc(N), MVT::i32);", -2**31, "i32", (-2**31, "i32")),
    ("return CurDAG->getConstant(N->getZExtValue() & 0xFF, SDLoc(N), MVT::i8);", -1, "i32", (-1, "i8")),
    ("return CurDAG->getTargetConstant(N->getZExtValue() >> 1, SDLoc(N), N->getValueType(0));", -2, "i32",
     (2**31 - 1, "i32")),
    ("return CurDAG->getTargetConstant(llvm::popcount(N->getZExtValue()), SDLoc(N), MVT::i32);", 0xF0, "i32",
     (4, "i32")),
])
def test_xform_code_is_executed(code, value, vt, want):
    from tdgen.cppexpr import compile_xform_code, xform_code_problem

    assert xform_code_problem(code) is None
    assert compile_xform_code(code)(value, vt) == want


@pytest.mark.parametrize("code, why", [
    ("uint64_t Imm = N->getZExtValue();\nreturn CurDAG->getTargetConstant(Imm, SDLoc(N), MVT::i32);",
     "the code is not 'return CurDAG->get[Target]Constant(<expr>, SDLoc(N), MVT::iN);'"),
    ("return CurDAG->getTargetConstant(-Imm, SDLoc(N), MVT::i32);",
     "'Imm' is declared only in ImmLeaf code (here the constant is N)"),
    ("return CurDAG->getTargetConstant(1, DL, MVT::i32);", "the location is 'DL', not SDLoc(N)"),
    ("return CurDAG->getTargetConstant(1, SDLoc(N), MVT::f32);",
     "the type is 'MVT::f32', not MVT::iN or N->getValueType(0)"),
])
def test_unreadable_xform_code(code, why):
    from tdgen.cppexpr import compile_xform_code, xform_code_problem

    assert compile_xform_code(code) is None
    assert xform_code_problem(code) == why


# ---------------------------------------------------------------------------------------
# selection


_SUB_DEFS = (
    Instruction("S_SUB_I32", outs="(outs SReg_32:$sdst)", ins="(ins SReg_32:$src0, SReg_32:$src1)",
                asm="s_sub_i32 $sdst, $src0, $src1"),
    Instruction("V_SUB_U32_e64", outs="(outs VGPR_32:$vdst)", ins="(ins VGPR_32:$src0, VGPR_32:$src1)",
                asm="v_sub_u32_e64 $vdst, $src0, $src1"),
    Instruction("S_ADDK_I32", outs="(outs SReg_32:$sdst)", ins="(ins SReg_32:$src0, i32imm:$imm)",
                asm="s_addk_i32 $sdst, $imm"),
)


def _with(base, frags=(), xforms=(), defs=(), pats=()):
    return dataclasses.replace(base, frags=tuple(frags), xforms=tuple(xforms), defs=base.defs + tuple(defs),
                               patterns=base.patterns + tuple(pats))


def _kernel(values, divergent=False) -> str:
    """``%vK = add i32 %x, <value K>`` for each value, each stored (volatile, so kept);
    ``%x`` a kernel argument or (``divergent``) the workitem id."""
    text = "declare i32 @llvm.amdgcn.workitem.id.x()\n"
    text += "define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %a) {\n"
    text += "  %x = call i32 @llvm.amdgcn.workitem.id.x()\n" if divergent else "  %x = add i32 %a, 0\n"
    for k, v in enumerate(values):
        text += f"  %v{k} = add i32 %x, {v}\n  store volatile i32 %v{k}, ptr addrspace(1) %out\n"
    return text + "  ret void\n}\n"


def _adds(fn):
    return [(mi.opcode, mi.operands[-1], mi.ir) for mi in fn.instrs() if mi.opcode[:2] in ("S_", "V_")
            and mi.ir and mi.ir.startswith("%v")]


_VALUES = (5, -128, 127, 1000, -129, 128, 0x7FFFFFFF, -2**31)


def test_immleaf_selects_by_the_constants_value():
    """An ImmLeaf (``isInt<8>(Imm)``) as a leaf type selects S_ADDK_I32 for the constants
    it accepts and leaves the others to the plain S_ADD_I32."""
    from tdgen.cppexpr import compile_imm_code

    code = "return isInt<8>(Imm);"
    accept = compile_imm_code(code, "imm")
    simm8 = ImmLeaf("simm8", i32, code)
    t = _with(mini_target(), frags=[simm8], defs=_SUB_DEFS,
              pats=[Pat("(UniformBinFrag<add> i32:$a, simm8:$c)", "(S_ADDK_I32 $a, simm8:$c)")])
    from tdgen.check import check_target

    check_target(t)
    values = [v for v in _VALUES if v != 0]
    (fn,) = _select(_kernel(values), t)
    want = [("S_ADDK_I32" if accept(v, 32) else "S_ADD_I32", v, f"%v{k}") for k, v in enumerate(values)]
    got = [(op, int(imm) if op == "S_ADDK_I32" else v, ir)
           for (op, imm, ir), v in zip(_adds(fn), values)]
    assert got == want
    assert {op for op, _v, _ir in want} == {"S_ADDK_I32", "S_ADD_I32"}


def _neg_target(xform=None, lo=-8, hi=-2, result="(S_SUB_I32 $a, NegSmall:$c)",
                vresult="(V_SUB_U32_e64 $a, NegSmall:$c)"):
    neg = xform or SDNodeXForm("NegateImm", "imm",
                               "return CurDAG->getTargetConstant(-N->getSExtValue(), SDLoc(N), MVT::i32);")
    leaf = ImmLeaf("NegSmall", i32, f"return Imm >= {lo} && Imm <= {hi};", neg)
    return _with(mini_target(), frags=[leaf], xforms=[neg], defs=_SUB_DEFS, pats=[
        Pat("(UniformBinFrag<add> i32:$a, (i32 NegSmall:$c))", result),
        Pat("(DivergentBinFrag<add> i32:$a, (i32 NegSmall:$c))", vresult),
    ]), (lo, hi)


@pytest.mark.parametrize("divergent", [False, True])
@pytest.mark.parametrize("form", ["operand-transform", "explicit"])
def test_xform_rewrites_the_result_operand(divergent, form):
    """``add x, C`` with C in the ImmLeaf's range selects a sub whose operand is the
    NegateImm of C -- applied where the result names the leaf (OperandTransform) or
    written as ``(NegateImm $c)`` -- for uniform (S_) and divergent (V_) adds; other
    constants stay adds."""
    from tdgen.check import check_target

    kw = {} if form == "operand-transform" else dict(result="(S_SUB_I32 $a, (NegateImm $c))",
                                                     vresult="(V_SUB_U32_e64 $a, (NegateImm $c))")
    t, (lo, hi) = _neg_target(**kw)
    check_target(t)
    values = (lo - 1, lo, (lo + hi) // 2, hi, 7, -100)
    (fn,) = _select(_kernel(values, divergent), t)
    pre = "V_" if divergent else "S_"
    want = []
    for k, v in enumerate(values):
        if lo <= v <= hi:
            want.append((pre + ("SUB_U32_e64" if divergent else "SUB_I32"), str(-v), f"%v{k}"))
        else:
            want.append((pre + ("ADD_U32_e64" if divergent else "ADD_I32"), None, f"%v{k}"))
    got = [(op, imm if "SUB" in op else None, ir) for op, imm, ir in _adds(fn)]
    assert got == want


def test_compiled_and_interpreted_selectors_apply_xforms_alike(monkeypatch):
    import patterns.pipeline as pipeline
    import patterns.select.selgen as selgen
    from patterns.select.matcher import MatcherTable, build_table
    from patterns.select.mir import print_function

    t, (lo, hi) = _neg_target()
    text = _kernel(range(lo - 2, hi + 3), divergent=False) .replace("@k(", "@u(") + _kernel(
        range(lo - 2, hi + 3), divergent=True).replace("declare i32 @llvm.amdgcn.workitem.id.x()\n", "")
    fast = _select(text, t)
    table = MatcherTable(build_table(t).patterns)
    monkeypatch.setattr(selgen, "compile_selector", selgen.interpreted_selector)
    from patterns.ir import parse_module

    slow = _select(text, t, table)
    assert [print_function(f) for f in fast] == [print_function(f) for f in slow]
    assert sum(1 for f in fast for mi in f.instrs() if "SUB" in mi.opcode) == 2 * (hi - lo + 1)


def test_xform_model_runs_when_the_code_is_not_read():
    """An SDNodeXForm whose code tdgen does not read runs its ``model``."""
    from tdgen.check import check_target

    neg = SDNodeXForm("NegateImm", "imm",
                      "int64_t V = N->getSExtValue();\nreturn CurDAG->getTargetConstant(-V, SDLoc(N), MVT::i32);",
                      model="def transform(N, cur):\n    return cur.target_constant(-N.value, N.vt)\n")
    t, (lo, hi) = _neg_target(xform=neg)
    check_target(t)
    (fn,) = _select(_kernel([lo, hi, hi + 1]), t)
    assert [(op, imm) for op, imm, _ir in _adds(fn)][:2] == [("S_SUB_I32", str(-lo)), ("S_SUB_I32", str(-hi))]


def test_instruction_pattern_applies_the_source_operands_xform():
    """In an instruction's own pattern the operand bound to a leaf fragment with an
    ``xform`` gets it (TableGen's instruction-pattern rule)."""
    neg = SDNodeXForm("NegateImm", "imm",
                      "return CurDAG->getTargetConstant(-N->getSExtValue(), SDLoc(N), MVT::i32);")
    leaf = ImmLeaf("NegSmall", i32, "return Imm >= -8 && Imm <= -2;", neg)
    subk = Instruction("S_SUBK_I32", outs="(outs SReg_32:$sdst)", ins="(ins SReg_32:$src0, i32imm:$imm)",
                       asm="s_subk_i32 $sdst, $imm",
                       pattern="(set i32:$sdst, (UniformBinFrag<add> i32:$src0, NegSmall:$imm))")
    t = _with(mini_target(), frags=[leaf], xforms=[neg], defs=[subk])
    from tdgen.check import check_target

    check_target(t)
    (fn,) = _select(_kernel([-3, 3]), t)
    assert [(op, imm) for op, imm, _ir in _adds(fn)][0] == ("S_SUBK_I32", "3")


def test_patleaf_code_reads_the_node():
    """A PatLeaf over ``imm`` runs its code on the ConstantSDNode ``N``
    (``getZExtValue`` zero-extends at the constant's width)."""
    from tdgen.cppexpr import compile_imm_code

    code = "return N->getZExtValue() >= 0x80000000u;"
    accept = compile_imm_code(code, "node")
    high = PatLeaf("high_imm", "(imm)", code)
    t = _with(mini_target(), frags=[high], defs=_SUB_DEFS,
              pats=[Pat("(UniformBinFrag<add> i32:$a, (i32 high_imm:$c))", "(S_ADDK_I32 $a, $c)")])
    from tdgen.check import check_target

    check_target(t)
    values = [v for v in _VALUES if v]
    (fn,) = _select(_kernel(values), t)
    assert [op for op, _i, _ir in _adds(fn)] == ["S_ADDK_I32" if accept(v, 32) else "S_ADD_I32" for v in values]
    assert {op for op, _i, _ir in _adds(fn)} == {"S_ADDK_I32", "S_ADD_I32"}


def test_leaf_patterns_are_sorted_as_llvm_counts_them():
    """A constant child with a predicate counts 3 + 1 (getPatternSize): the NegSmall adds
    (3 + 1 divergence predicate + 4) come before the plain adds (3 + 1)."""
    from patterns.select.matcher import build_table

    t, _ = _neg_target()
    adds = build_table(t).by_opcode["ISD::ADD"]
    leaf = [p for p in adds if "NegSmall" in p.src_text()]
    assert len(leaf) == 2 and all(p.complexity == 8 and "NegateImm" in p.xforms for p in leaf)
    assert max(p.index for p in leaf) < min(p.index for p in adds if p not in leaf)


# ---------------------------------------------------------------------------------------
# checks


def _errors(t):
    from tdgen.check import check_target

    with pytest.raises(TdgenError) as info:
        check_target(t)
    return sorted(getattr(info.value, "errors", [info.value]), key=lambda e: e.message)


def _messages(t):
    return [e.message for e in _errors(t)]


def test_checks_on_leaf_and_xform_records():
    neg = SDNodeXForm("NegateImm", "imm",
                      "return CurDAG->getTargetConstant(-N->getSExtValue(), SDLoc(N), MVT::i32);")
    stray = SDNodeXForm("Stray", "imm", "return CurDAG->getTargetConstant(0, SDLoc(N), MVT::i32);")
    frags = [
        ImmLeaf("fimm", f32, "return Imm > 0;"),
        ImmLeaf("badnode", i32, "return Imm > 0;", node="fpimm"),
        ImmLeaf("nimm", i32, "return N->getSExtValue() > 0;"),
        ImmLeaf("stray_leaf", i32, "return Imm > 0;", stray),
        PatLeaf("pimm", "(imm)", "return Imm > 0;"),
        PatFrag("fimm2", (), "(imm)", predicate_code="return Imm > 0;"),
    ]
    bad = [
        SDNodeXForm("Unreadable", "imm", "auto V = N->getSExtValue();\nreturn V;"),
        SDNodeXForm("NoNode", "immm", "return CurDAG->getTargetConstant(0, SDLoc(N), MVT::i32);"),
        SDNodeXForm("BadModel", "imm", "return x;", model="def transform(N, cur)\n    return 1\n"),
    ]
    msgs = _messages(_with(mini_target(), frags=frags, xforms=[neg, *bad]))
    assert msgs == sorted([
        "expected an integer value type (the value of 'imm' is SDTCisInt), found f32",
        "expected 'imm' or 'timm' (the constant node an ImmLeaf matches), found 'fpimm'",
        "expected code over Imm, the constant sign-extended (llvm-tblgen declares N only in PatLeaf/PatFrag "
        "code: use PatLeaf for code over the node), found code reading 'N'",
        "expected an SDNodeXForm listed in the target's xforms, found 'Stray'",
        "expected predicate code over N, the matched node (llvm-tblgen declares Imm only in an ImmLeaf's code: "
        "use ImmLeaf for code over the constant's value), found code reading 'Imm'",
        "expected predicate code over N, the matched node (llvm-tblgen declares Imm only in an ImmLeaf's code: "
        "use ImmLeaf for code over the constant's value), found code reading 'Imm'",
        "expected code tdgen executes, 'return CurDAG->getTargetConstant(<expression over N->getSExtValue()>, "
        "SDLoc(N), MVT::i32);', or a model defining transform(N, cur), found code it cannot read (the code is "
        "not 'return CurDAG->get[Target]Constant(<expr>, SDLoc(N), MVT::iN);') and no model",
        "expected an SDNode name (imm, timm or one the target declares), found 'immm'",
        "expected Python source defining transform(N, cur), found a syntax error at model line 1: expected ':'",
    ])


def test_checks_on_xforms_in_patterns():
    t, _ = _neg_target()
    pats = [
        Pat("(UniformBinFrag<mul> i32:$a, i32:$b)", "(S_SUB_I32 $a, (NegateImm $b))"),
        Pat("(UniformBinFrag<xor> i32:$a, (i32 imm:$b))", "(S_SUB_I32 $a, (NegateImm $a, $b))"),
        Pat("(UniformBinFrag<xor> i32:$a, NegSmall:$b)", "(S_SUB_I32 $a, (NegateImm (S_NOT_B32 $a)))"),
        Pat("(DivergentBinFrag<mul> i32:$a, i32:$b)", "(V_SUB_U32_e64 $a, NegSmall:$a)"),
        Pat("(UniformBinFrag<add> i32:$a, NegSmall)", "(S_SUB_I32 $a, NegSmall)"),
        Pat("(NegateImm i32:$a)", "(S_NOT_B32 $a)"),
    ]
    msgs = _messages(dataclasses.replace(t, patterns=t.patterns + tuple(pats)))
    assert msgs == sorted([
        "expected an operand the source binds to a constant (imm, timm or a leaf fragment over them) for "
        "SDNodeXForm 'NegateImm', found '$b' bound to 'i32:$b'",
        "expected 1 operand for SDNodeXForm 'NegateImm', found 2",
        "expected an operand '$name' bound in the source as the operand of SDNodeXForm 'NegateImm', "
        "found the DAG '(S_NOT_B32 ...)'",
        "expected an operand the source binds to a constant (imm, timm or a leaf fragment over them) for "
        "SDNodeXForm 'NegateImm', found '$a' bound to 'i32:$a'",
        "expected a matched operand 'NegSmall:$name' (a leaf fragment in a result names an operand of the "
        "source), found 'NegSmall'",
        "expected a known SDNode, PatFrag or intrinsic (an SDNodeXForm rewrites result operands; it cannot "
        "be matched), found 'NegateImm'",
    ])


def test_leaf_fragment_types_unify():
    """An ImmLeaf used as a leaf type has its value type: ``(add i64:$a, simm8:$c)``
    cannot unify i64 with the leaf's i32."""
    simm8 = ImmLeaf("simm8", i32, "return isInt<8>(Imm);")
    t = _with(mini_target(), frags=[simm8], defs=_SUB_DEFS,
              pats=[Pat("(add i64:$a, simm8:$c)", "(S_ADDK_I32 $a, simm8:$c)")])
    (msg,) = _messages(t)
    assert msg.startswith("expected i64 (SDTCisSameAs<0, ") and msg.endswith("found i32")


# ---------------------------------------------------------------------------------------
# lint


def test_opaque_predicate_lint_reads_each_code_in_its_context():
    """The lint reads an ImmLeaf's code over ``Imm`` and a PatLeaf's over ``N``: code
    written for the other context (or outside the subset) is reported, with why."""
    from patterns.select.lint import lint_target

    frags = [
        ImmLeaf("simm8", i32, "return isInt<8>(Imm);"),
        ImmLeaf("imm_over_n", i32, "return N->getSExtValue() > 0;"),
        ImmLeaf("subtarget_imm", i32, "return Subtarget->hasFoo() && Imm > 0;"),
        PatLeaf("pos", "(imm)", "return N->getSExtValue() > 0;"),
        PatLeaf("pos_over_imm", "(imm)", "return Imm > 0;"),
    ]
    pats = [Pat(f"(UniformBinFrag<add> i32:$a, (i32 {f.name}:$c))", "(S_ADDK_I32 $a, $c)") for f in frags]
    t = _with(mini_target(), frags=frags, defs=_SUB_DEFS, pats=pats)
    found = sorted(f.message.split(": the model cannot execute predicate ")[1] for f in lint_target(t)
                   if f.code == "opaque-predicate")
    assert found == [
        "imm_over_n (return N->getSExtValue() > 0;) [ImmLeaf code over Imm: 'N' is not declared in ImmLeaf code "
        "(the constant is Imm)]; tdgen isel treats it as failing",
        "pos_over_imm (return Imm > 0;) [PatLeaf code over the ConstantSDNode N: 'Imm' is declared only in "
        "ImmLeaf code (here the constant is N)]; tdgen isel treats it as failing",
        "subtarget_imm (return Subtarget->hasFoo() && Imm > 0;) [ImmLeaf code over Imm: 'Subtarget' is not "
        "something tdgen reads here]; tdgen isel treats it as failing",
    ]


def test_amdgpu_negsub_patterns():
    """The reference target's NegSubInlineConst32 patterns: complexity 8, ahead of the
    plain add patterns, applying NegateImm; lint stays clean."""
    from patterns.select.lint import lint_target
    from patterns.select.matcher import build_table
    from tdgen.spec import load_target

    t = load_target("amdgpu")
    leaf = t.patfrags["NegSubInlineConst32"]
    assert leaf.xform is t.xforms_by_name["NegateImm"]
    pats = [p for p in build_table(t).by_opcode["ISD::ADD"] if "NegSubInlineConst32" in p.src_text()]
    assert sorted(p.dst.op for p in pats) == ["S_SUB_I32", "V_SUB_U32_e64"]
    assert all(p.complexity == 8 and "NegateImm" in p.xforms for p in pats)
    assert lint_target(t) == []


# ---------------------------------------------------------------------------------------
# TableGen


def test_emitted_records_are_what_llvm_tblgen_reads(tmp_path):
    """ImmLeaf / TImmLeaf / PatLeaf / SDNodeXForm defs, and patterns applying them, go
    through llvm-tblgen-19 -gen-dag-isel and -gen-instr-info; the records it prints have
    the spec's ImmediateCode / PredicateCode / OperandTransform, and the matcher table it
    builds applies the xforms."""
    import re
    import subprocess

    from llvm_tools import LLVM_INCLUDE, require, require_llvm_headers
    from tdgen import emit
    from tdgen.emit_td import layout

    exe = require("llvm-tblgen-19")
    require_llvm_headers()
    neg = SDNodeXForm("NegateImm", "imm",
                      "return CurDAG->getTargetConstant(-N->getSExtValue(), SDLoc(N), MVT::i32);")
    twice = SDNodeXForm("Twice", "timm", "int64_t V = N->getSExtValue();\n"
                        "return CurDAG->getTargetConstant(2 * V, SDLoc(N), MVT::i32);",
                        model="def transform(N, cur):\n    return cur.target_constant(2 * N.value, 'i32')\n")
    frags = [
        ImmLeaf("NegSmall", i32, "return Imm >= -16 && Imm <= -1;", neg),
        ImmLeaf("tsmall", i32, "return isUInt<4>(Imm);", node="timm"),
        PatLeaf("high_imm", "(imm)", "uint64_t V = N->getZExtValue();\nreturn V >= 0x80000000u;"),
        PatLeaf("any_imm", "(imm)", xform=neg),
    ]
    t = _with(mini_target(), frags=frags, xforms=[neg, twice], defs=_SUB_DEFS, pats=[
        Pat("(UniformBinFrag<add> i32:$a, (i32 NegSmall:$c))", "(S_SUB_I32 $a, NegSmall:$c)"),
        Pat("(UniformBinFrag<xor> i32:$a, (i32 high_imm:$c))", "(S_ADDK_I32 $a, (NegateImm $c))"),
        Pat("(DivergentBinFrag<xor> i32:$a, (i32 any_imm:$c))", "(V_SUB_U32_e64 $a, any_imm:$c)"),
    ])
    files = emit.emit_target("mini", t)
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    main = tmp_path / "mini" / layout(t).main_td
    sdnodes = (tmp_path / "mini" / layout(t).sdnodes_td).read_text()
    assert "def NegSmall : ImmLeaf<i32,\n  [{ return Imm >= -16 && Imm <= -1; }], NegateImm>;" in sdnodes
    assert "def tsmall : TImmLeaf<i32," in sdnodes and "def any_imm : PatLeaf<(imm), [{}], NegateImm>;" in sdnodes
    assert sdnodes.index("def Twice : SDNodeXForm<timm, [{") < sdnodes.index("def NegSmall")

    def run(*args):
        r = subprocess.run([exe, "-I", str(LLVM_INCLUDE), "-I", str(main.parent), *args, str(main)],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0 and "error:" not in r.stderr and "warning:" not in r.stderr, r.stderr
        return r.stdout

    run("-gen-instr-info")
    isel = run("-gen-dag-isel")
    assert len(re.findall(r"OPC_EmitNodeXForm, \d+, \d+, // (\w+)", isel)) == 3
    assert "int64_t Imm = cast<ConstantSDNode>(Node)->getSExtValue();" in isel
    printed = run("-print-records")

    def field(rec: str, name: str) -> str:
        m = re.search(rf"^def {rec} \{{[^\n]*\n(?:  [^\n]*\n)*?  [^=\n]+ {name} = (\[\{{.*?\}}\]|[^;\n]*);$", printed, re.M | re.S)
        return " ".join(m.group(1).split()) if m else ""

    assert field("NegSmall", "ImmediateCode") == "[{ return Imm >= -16 && Imm <= -1; }]"
    assert field("NegSmall", "OperandTransform") == "NegateImm"
    assert field("tsmall", "Fragments") == "[(i32 timm)]"
    assert field("high_imm", "PredicateCode").startswith("[{ uint64_t V = N->getZExtValue();")
    assert field("any_imm", "OperandTransform") == "NegateImm"
    assert field("Twice", "Opcode") == "timm"


def test_explain_shows_the_constant_a_leaf_predicate_rejected(tmp_path, capsys):
    """``tdgen explain`` names the leaf's predicate and the constant it failed on."""
    import re

    from tdgen.cli import main

    value = -5
    ll = tmp_path / "k.ll"
    ll.write_text("define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %a) {\n"
                  f"  %r = add i32 %a, {value}\n  store i32 %r, ptr addrspace(1) %out\n  ret void\n}}\n")
    assert main(["explain", str(ll), "--target", "amdgpu", "--value", "%r"]) == 0
    out = capsys.readouterr().out
    assert re.search(rf"NegSubInlineConst32 predicate failed on t\d+, the constant {value}\n", out), out
    assert "(S_SUB_I32 $src0, (NegateImm NegSubInlineConst32:$src1))" in out


def test_a_failing_xform_model_is_reported_at_its_record():
    """A model that raises is a SpecError naming the SDNodeXForm and its ``model``."""
    from tdgen.errors import SpecError

    neg = SDNodeXForm("NegateImm", "imm", "return foo(N);",
                      model="def transform(N, cur):\n    return cur.target_constant(1 // (N.value - N.value))\n")
    t, (lo, _hi) = _neg_target(xform=neg)
    with pytest.raises(SpecError) as info:
        _select(_kernel([lo]), t)
    text = info.value.format()
    assert "record 'NegateImm' field 'model': expected a model that runs, found ZeroDivisionError" in text


def test_negsub_range_agrees_with_llc(tmp_path):
    """llc-19 is the oracle for NegSubInlineConst32's range: around both ends of it, a
    uniform and a divergent ``add x, C`` select the same add / sub opcodes as llc's."""
    import re
    import subprocess

    from llvm_tools import require
    from patterns.ir import parse_module
    from patterns.pipeline import select_module
    from patterns.select.matcher import build_table
    from tdgen.spec import load_target

    llc = require("llc-19")
    values = (-65, -64, -63, -18, -17, -16, -15)
    text = _kernel(values).replace("@k(", "@u(") + _kernel(values, divergent=True).replace(
        "declare i32 @llvm.amdgcn.workitem.id.x()\n", "").replace("@k(", "@d(")
    (tmp_path / "k.ll").write_text(text)
    r = subprocess.run([llc, "-mtriple=amdgcn", "-mcpu=gfx900", "-stop-after=finalize-isel", "-o", "-",
                        str(tmp_path / "k.ll")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    alu = re.compile(r"\b([SV]_(?:ADD|SUB)_[IU]32(?:_e64)?)\b")
    theirs = {}
    for m in re.finditer(r"^name:\s+(\w+)$(.*?)(?=^name:|\Z)", r.stdout, re.M | re.S):
        theirs[m.group(1)] = alu.findall(m.group(2))
    t = load_target("amdgpu")
    ours = {f.name: [mi.opcode for mi in f.instrs() if alu.fullmatch(mi.opcode) and mi.ir and mi.ir.startswith("%v")]
            for f in select_module(parse_module(text, "k.ll"), t, build_table(t))}
    assert ours == theirs
    assert {"S_SUB_I32", "S_ADD_I32"} <= set(ours["u"]) and {"V_SUB_U32_e64", "V_ADD_U32_e64"} <= set(ours["d"])
