"""The TableGen DAG parser: shapes, positions mapped into the spec file, error text,
and a render/parse round trip over generated DAGs."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tdgen.dag import Dag, Leaf, Operator, substitute
from tdgen.dag_parse import parse_dag, parse_pattern
from tdgen.errors import ParseError, Span


def test_set_pattern_shape():
    d = parse_dag("(set i32:$vdst, (shflidx i32:$src0, i32:$idx, i32:$src1))")
    assert d.op == "set"
    dst, src = d.args
    assert dst == Leaf("typed", type="i32", name="vdst")
    assert isinstance(src, Dag) and src.op == "shflidx"
    assert [a.name for a in src.args] == ["src0", "idx", "src1"]
    assert d.variables() == ("vdst", "src0", "idx", "src1")


@pytest.mark.parametrize(
    "text,kind,fields",
    [
        ("$a", "var", {"name": "a"}),
        ("VGPR_32:$src", "typed", {"type": "VGPR_32", "name": "src"}),
        ("node:$x", "typed", {"type": "node", "name": "x"}),
        ("-1", "int", {"value": -1}),
        ("0x10", "int", {"value": 16}),
        ("srcvalue", "name", {"value": "srcvalue"}),
        ("timm", "name", {"value": "timm"}),
    ],
)
def test_leaves(text, kind, fields):
    leaf = parse_pattern(text)
    assert isinstance(leaf, Leaf) and leaf.kind == kind
    for k, v in fields.items():
        assert getattr(leaf, k) == v


def test_template_operator_cast_and_binding():
    d = parse_dag("(i32 (UniformBinFrag<add> SReg_32:$a, (i32 imm):$b))")
    assert d.cast_type == "i32"
    inner = d.args[0]
    assert inner.operator == Operator("UniformBinFrag", ("add",))
    assert inner.op == "UniformBinFrag<add>"
    imm = inner.args[1]
    assert isinstance(imm, Dag) and imm.name == "b" and imm.cast_type == "i32"
    assert imm.args == (Leaf("name", value="imm"),)


def test_result_dag_and_ops():
    assert parse_dag("(S_ADD_I32 $a, $b)").args == (Leaf("var", name="a"), Leaf("var", name="b"))
    ops = parse_dag("(ops node:$src0, node:$src1)")
    assert ops.op == "ops" and len(ops.args) == 2
    assert parse_dag("(outs)").args == ()


def test_positions_map_into_the_file():
    base = Span("spec.py", 10, 20)
    d = parse_dag("(set i32:$d, (add i32:$a,\n  i32:$b))", base)
    assert d.span == Span("spec.py", 10, 20)
    add = d.args[1]
    assert add.span == Span("spec.py", 10, 33)
    assert add.args[1].span == Span("spec.py", 11, 3)  # next line: absolute column


def test_spans_do_not_affect_equality():
    assert parse_dag("(add $a, 1)", Span("x.py", 1, 1)) == parse_dag("(add  $a ,1)", Span("y.py", 9, 9))


@pytest.mark.parametrize(
    "text,where,message",
    [
        ("(add i32:$a", "f.py:3:20", "expected ')' or ',', found end of pattern"),
        ("(add , x)", "f.py:3:14", "expected '(' or ')' or '<' or a $variable or a name or an integer, found ','"),
        ("(add $a %)", "f.py:3:17", "expected ')' or ',', found '%'"),
        ("foo", "f.py:3:9", "expected a DAG in parentheses, found 'foo'"),
    ],
)
def test_errors(text, where, message):
    with pytest.raises(ParseError) as info:
        parse_dag(text, Span("f.py", 3, 9), record="R", field="pattern")
    assert info.value.format() == f"{where}: record 'R' field 'pattern': {message}"


def test_substitute_template_arguments():
    d = parse_dag("(set rc:$vdst, (node rc:$a, Op<node>:$b))".replace("Op<node>:$b", "i32:$b"))
    s = substitute(d, {"rc": "VGPR_32", "node": "int_x_perm"})
    assert s.render() == "(set VGPR_32:$vdst, (int_x_perm VGPR_32:$a, i32:$b))"


# -- round trip over generated DAGs ------------------------------------------------

_names = st.sampled_from(["add", "sub", "xor", "S_ADD_I32", "node", "i32", "VGPR_32", "imm", "x.y"])
_vars = st.from_regex(r"[a-z_][a-z0-9_]{0,5}", fullmatch=True)
_leaf = st.one_of(
    st.builds(lambda n: Leaf("var", name=n), _vars),
    st.builds(lambda t, n: Leaf("typed", type=t, name=n), _names, _vars),
    st.builds(lambda v: Leaf("int", value=v), st.integers(-(2**40), 2**40)),
    st.builds(lambda v: Leaf("name", value=v), _names),
)


def _dag(children):
    return st.builds(
        lambda op, targs, args, name: Dag(Operator(op, targs), tuple(args), name),
        _names,
        st.one_of(st.just(()), st.tuples(_names)),
        st.lists(children, max_size=4),
        st.one_of(st.none(), _vars),
    )


_tree = st.recursive(_leaf, _dag, max_leaves=12)


@settings(max_examples=100, deadline=None)
@given(_dag(_tree))
def test_render_parse_round_trip(d):
    assert parse_dag(d.render()) == d


# -- grammar coverage on LLVM's own fragments ----------------------------------------


def _balanced_dags(text: str, start: int) -> list[str]:
    """The parenthesised DAGs in a template argument list starting at ``start``
    (stops at the closing '>' or at a '[{ code }]' block)."""
    out, i = [], start
    while i < len(text):
        c = text[i]
        if c == "(":
            depth, j = 0, i
            while j < len(text):
                depth += {"(": 1, ")": -1}.get(text[j], 0)
                if depth == 0:
                    break
                j += 1
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("[{", i) or c == ">":
            break
        else:
            i += 1
    return out


def test_parses_every_fragment_of_target_selection_dag_td():
    import re

    from llvm_tools import require_llvm_headers

    td = (require_llvm_headers() / "llvm" / "Target" / "TargetSelectionDAG.td").read_text()
    td = re.sub(r"//[^\n]*", "", td)
    dags = [d for m in re.finditer(r"\b(?:PatFrags?|Pat|PatLeaf|ImmLeaf|OutPatFrag)\s*<", td) for d in _balanced_dags(td, m.end())]
    # TableGen bang operators (!cast<...>) are TableGen's macro language, which spec
    # files replace with Python; everything else must parse and survive a round trip.
    plain = [d for d in dags if "!" not in d]
    assert len(plain) > 300
    for d in plain:
        node = parse_pattern(d)
        assert parse_pattern(node.render()) == node, d
