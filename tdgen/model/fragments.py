"""Pattern fragments: ``PatFrag``, divergence wrappers, leaf fragments and operand transforms.

- ``PatFrag(name, ops, fragment, predicate_code=None, divergence=None)`` and the named
  divergence wrappers ``uniform(op)`` / ``divergent(op)``;
- ``DivergenceFrag``: a TableGen *class* like AMDGPU's ``UniformBinFrag<Op>``;
- ``ImmLeaf`` / ``PatLeaf``: fragments without operands used as leaf types
  (``simm8:$c``);
- ``SDNodeXForm``: rewrites a result operand (``(NegateImm $c)``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ..dag import Node
from ..errors import Span, SpecError, expected
from ..srcpos import caller_span
from ..types import ValueType
from .fieldtypes import found_text
from .intrinsics import Intrinsic
from .nodes import SDNode
from .record import Record, guard_constructors, parse_field, rebase, report_construction_errors

# The most operands a divergence-predicate class may take (LLVM's take one to three).
MAX_FRAG_OPS = 255

UNIFORM_PREDICATE = "return !N->isDivergent();"
DIVERGENT_PREDICATE = "return N->isDivergent();"


@dataclass(frozen=True)
class PatFrag(Record):
    """``def name : PatFrag<(ops node:$a, ...), fragment, [{ predicate_code }]>``."""

    name: str
    ops: tuple[str, ...]
    fragment: str
    predicate_code: str | None = None
    divergence: str | None = None
    builtin: bool = False
    wraps: str | None = None
    instance_of: str | None = None
    has_one_use: bool = False
    uses_operands: bool = False

    @property
    def ops_tablegen(self) -> str:
        return "(ops " + ", ".join(f"node:${o}" for o in self.ops) + ")" if self.ops else "(ops)"

    @cached_property
    def dag(self) -> Node:
        """The fragment parsed (spans point into the spec when possible)."""
        return parse_field(self, "fragment", self.fragment)

    # (a PatFrag has no ImmediateCode or OperandTransform here: see ImmLeaf / PatLeaf)
    immediate_code = None
    xform = None


@dataclass(frozen=True)
class DivergenceFrag(Record):
    """A divergence-predicate PatFrag *class* over an operator, like AMDGPU's
    ``UniformBinFrag<SDPatternOperator Op>``: ``num_ops`` operands named
    ``src0..``; ``divergence`` ``"uniform"`` or ``"divergent"``."""

    name: str
    divergence: str
    num_ops: int

    def __post_init__(self) -> None:
        super().__post_init__()
        n = self.num_ops
        if isinstance(n, int) and not isinstance(n, bool) and not 0 <= n <= MAX_FRAG_OPS:
            # (its operand names are made one per operand)
            report_construction_errors(self, [SpecError(self.field_span("num_ops")[0], expected(
                f"an operand count from 0 to {MAX_FRAG_OPS}", n), record=self.name, field="num_ops")])

    @property
    def ops(self) -> tuple[str, ...]:
        return tuple(f"src{i}" for i in range(self.num_ops))

    @property
    def predicate_code(self) -> str:
        return UNIFORM_PREDICATE if self.divergence == "uniform" else DIVERGENT_PREDICATE

    @property
    def ops_tablegen(self) -> str:
        return "(ops " + ", ".join(f"node:${o}" for o in self.ops) + ")" if self.ops else "(ops)"

    @property
    def fragment_tablegen(self) -> str:
        """The class body's fragment over template arg ``Op``: ``(Op $src0, $src1)``."""
        return "(Op " + ", ".join(f"${o}" for o in self.ops) + ")"

    def instantiate(self, op: str) -> PatFrag:
        frag = f"({op} " + ", ".join(f"node:${o}" for o in self.ops) + ")"
        return PatFrag(
            f"{self.name}<{op}>", self.ops, frag, self.predicate_code, self.divergence,
            wraps=op, instance_of=self.name, span=self.span,
        )


@dataclass(frozen=True)
class SDNodeXForm(Record):
    """``def name : SDNodeXForm<node, [{ code }]>``: rewrites an operand of a result DAG
    after a match -- written ``(name $x)`` in a result, or applied where a result names a
    leaf fragment whose ``xform`` it is (TableGen's OperandTransform).

    ``node`` is the SDNode name whose nodes it takes (``imm``, ``timm``); the C++ ``code``
    sees that node as ``N`` and returns the new operand
    (``return CurDAG->getTargetConstant(-N->getSExtValue(), SDLoc(N), MVT::i32);``).
    ``model`` is Python source defining ``transform(N, cur)``, the executable model of
    ``code`` (as ``CustomSelect.model``): ``N`` is the matched constant node (``N.value``
    its sign-extended value, ``N.vt`` its type), and it returns
    ``cur.target_constant(value, vt)`` (or ``cur.constant(value, vt)``). It may be left
    out when ``code`` is one ``return CurDAG->get[Target]Constant(<expr>, SDLoc(N),
    MVT::iN);`` (or ``N->getValueType(0)``) whose ``<expr>`` tdgen reads (a C expression
    over ``N->getSExtValue()`` / ``N->getZExtValue()``, see
    ``tdgen.cppexpr.translate_cpp``)."""

    name: str
    node: str
    code: str
    model: str | None = None
    doc: str = ""


class _LeafFragment:
    """What ImmLeaf and PatLeaf share with PatFrag for the code that reads fragments
    (``Target.patfrags``): no operands, no divergence or one-use predicate."""

    ops: tuple[str, ...] = ()
    divergence = None
    builtin = False
    wraps = None
    instance_of = None
    has_one_use = False
    uses_operands = False

    @property
    def ops_tablegen(self) -> str:
        return "(ops)"


@dataclass(frozen=True)
class ImmLeaf(_LeafFragment, Record):
    """``def name : ImmLeaf<vt, [{ code }], xform>``: a constant of type ``vt`` whose
    value passes ``code`` -- C++ over ``int64_t Imm``, the constant sign-extended
    (TableGen's ``ImmediateCode``; ``N`` is not declared there). ``xform``: the
    SDNodeXForm a result pattern applies where it names this leaf
    (``NegSubInlineConst32:$src1``). ``node``: ``imm`` (a Constant), or ``timm`` for a
    TargetConstant (TableGen's ``TImmLeaf``). Used as a leaf type in patterns:
    ``(add i32:$a, simm8:$c)``; it is the fragment ``(vt node)`` with the predicate."""

    name: str
    vt: ValueType
    code: str
    xform: SDNodeXForm | None = None
    node: str = "imm"

    @property
    def fragment(self) -> str:
        return f"({getattr(self.vt, 'name', self.vt)} {self.node})"

    @property
    def predicate_code(self) -> None:
        return None

    @property
    def immediate_code(self) -> str:
        return self.code

    @cached_property
    def dag(self) -> Node:
        from ..dag_parse import parse_pattern

        return rebase(parse_pattern(self.fragment, None, record=self.name, field="vt"), self.field_span("vt")[0])


@dataclass(frozen=True)
class PatLeaf(_LeafFragment, Record):
    """``def name : PatLeaf<fragment, [{ code }], xform>``: a fragment without operands
    (``(imm)``, ``(i32 imm)``) whose matched node passes ``code`` -- C++ over ``N``, the
    node cast to its SDNode class (``ConstantSDNode`` for ``imm``: ``N->getSExtValue()``;
    ``Imm`` is not declared there). ``xform`` as for ImmLeaf."""

    name: str
    fragment: str
    code: str | None = None
    xform: SDNodeXForm | None = None

    @property
    def predicate_code(self) -> str | None:
        return self.code

    @property
    def immediate_code(self) -> None:
        return None

    @cached_property
    def dag(self) -> Node:
        return parse_field(self, "fragment", self.fragment)


def _arity(op: Any) -> int:
    if isinstance(op, SDNode):
        return op.num_operands
    if isinstance(op, PatFrag):
        return len(op.ops)
    if isinstance(op, Intrinsic):
        return len(op.params)
    raise TypeError(f"cannot wrap {op!r}")


def _wrap(op: Any, name: str | None, divergence: str, span: Span | None) -> PatFrag:
    if not isinstance(op, (SDNode, PatFrag, Intrinsic)) or not isinstance(op.name, str):
        shown = name if isinstance(name, str) else f"{divergence}(...)"
        err = SpecError(span, expected("an SDNode, PatFrag or Intrinsic to wrap", found_text(op)), record=shown, field="op")
        frag = PatFrag(shown, (), "(null_frag)", span=span)
        report_construction_errors(frag, [err])
        return frag
    n = _arity(op)
    ops = tuple(f"src{i}" for i in range(n))
    frag = f"({op.name} " + ", ".join(f"node:${o}" for o in ops) + ")"
    pred = UNIFORM_PREDICATE if divergence == "uniform" else DIVERGENT_PREDICATE
    return PatFrag(name or f"{divergence}_{op.name}", ops, frag, pred, divergence, wraps=op.name, span=span)


def uniform(op: SDNode | PatFrag | Intrinsic, name: str | None = None) -> PatFrag:
    """A PatFrag matching ``op`` only on uniform (not divergent) nodes."""
    return _wrap(op, name, "uniform", caller_span())


def divergent(op: SDNode | PatFrag | Intrinsic, name: str | None = None) -> PatFrag:
    """A PatFrag matching ``op`` only on divergent nodes."""
    return _wrap(op, name, "divergent", caller_span())


guard_constructors(PatFrag, DivergenceFrag, SDNodeXForm, ImmLeaf, PatLeaf)
