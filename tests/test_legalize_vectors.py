"""Vector legalization (patterns.dag.legalize_vectors): the element-wise operations the
target's lowering table expands are unrolled into one scalar node per lane, each lane read
through the BUILD_VECTOR / INSERT_VECTOR_ELT / splat constant it comes from or one
EXTRACT_VECTOR_ELT per (vector, lane), with the divergence of its operands; a legal vector
operation is left alone. (The selected result against llc-19's CHECK lines:
tests/test_isel_corpus.py, s_abs_v2i32 / v_abs_v2i32.)"""

from __future__ import annotations

from collections import Counter

import pytest

from patterns.dag.legalize_vectors import unroll_vectors, vector_shape
from patterns.ir import parse_module
from patterns.pipeline import build_function_dags
from tdgen.spec import load_target

IR = """
define amdgpu_kernel void @k(ptr addrspace(1) %out, <2 x i32> %u, ptr addrspace(1) %in) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr <2 x i32>, ptr addrspace(1) %in, i32 %tid
  %d = load <2 x i32>, ptr addrspace(1) %p
  %s0 = insertelement <2 x i32> undef, i32 7, i32 0
  %s1 = insertelement <2 x i32> %s0, i32 9, i32 1
  %a = add <2 x i32> %u, %s1
  %x = xor <2 x i32> %a, %d
  %c = icmp ult <2 x i32> %x, %u
  %m = select <2 x i1> %c, <2 x i32> %x, <2 x i32> zeroinitializer
  store <2 x i32> %m, ptr addrspace(1) %out
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
"""


@pytest.fixture(scope="module")
def amdgpu():
    return load_target("amdgpu")


def _dag(target, combine=False):
    fn = parse_module(IR, "k.ll").functions[0]
    return build_function_dags(fn, target, None, combine=combine).dags[0]


def test_vector_shape():
    assert vector_shape("v2i32") == (2, "i32") and vector_shape("v16f16") == (16, "f16")
    assert vector_shape("i32") is None and vector_shape("void") is None


def test_expanded_v2i32_ops_become_lanes(amdgpu):
    dag = _dag(amdgpu)
    assert unroll_vectors(dag, amdgpu.legality)
    ops = Counter((n.opcode, n.vt) for n in dag.nodes if n.uses or n in dag.roots)
    # two lanes of each operation, none left on a vector type
    for opc in ("ISD::ADD", "ISD::XOR", "ISD::SELECT"):
        assert ops[(opc, "i32")] == 2 and ops[(opc, "v2i32")] == 0, opc
    assert ops[("ISD::SETCC", "i1")] == 2 and ops[("ISD::SETCC", "v2i1")] == 0
    assert ops[("ISD::VSELECT", "v2i32")] == 0
    live = [n for n in dag.nodes if n.uses or n in dag.roots]
    # the inserted constants are read directly (7 and 9), the loaded vector once per lane
    adds = [n for n in live if n.opcode == "ISD::ADD"]
    assert sorted(a.ops[1].value for a in adds) == [7, 9]
    extracts = [n for n in live if n.opcode == "ISD::EXTRACT_VECTOR_ELT"]
    assert sorted((e.ops[0].opcode, e.ops[1].value) for e in extracts) == [
        ("ISD::CopyFromReg", 0), ("ISD::CopyFromReg", 1), ("ISD::LOAD", 0), ("ISD::LOAD", 1)]
    # divergence from the operands: the loaded lanes (divergent address) and what reads them
    by_src = {e.ops[0].opcode: e.divergent for e in extracts}
    assert by_src == {"ISD::CopyFromReg": False, "ISD::LOAD": True}
    assert all(n.divergent for n in live if n.opcode in ("ISD::XOR", "ISD::SETCC", "ISD::SELECT"))
    assert not any(n.divergent for n in adds)
    # the store reads the BUILD_VECTOR of the selected lanes; the zero lanes are constants
    (st,) = [n for n in live if n.opcode == "ISD::STORE"]
    bv = st.ops[0]
    assert bv.opcode == "ISD::BUILD_VECTOR" and [o.opcode for o in bv.ops] == ["ISD::SELECT"] * 2
    assert all(o.ops[2].opcode == "ISD::Constant" and o.ops[2].value == 0 for o in bv.ops)
    # ids are the topological positions, use counts exact
    assert [n.id for n in dag.nodes] == list(range(len(dag.nodes)))
    for n in dag.nodes:
        assert n.uses == sum(o is n for m in dag.nodes for o in m.ops)
        assert all(o.id < n.id for o in n.ops)


def test_a_legal_vector_operation_is_left_alone(amdgpu):
    from dataclasses import replace

    from tdgen.model import OperationAction
    from tdgen.types import v2i32

    # a table that makes v2i32 xor Legal (as a later LLVM does): the xor stays a vector op
    lg = amdgpu.legality
    legal_xor = replace(lg, operations=lg.operations + (OperationAction(("XOR",), (v2i32,), "Legal"),))
    dag = _dag(amdgpu)
    unroll_vectors(dag, legal_xor)
    live = [n for n in dag.nodes if n.uses or n in dag.roots]
    assert [n.vt for n in live if n.opcode == "ISD::XOR"] == ["v2i32"]
    assert sum(n.opcode == "ISD::ADD" for n in live) == 2
