"""Checks of source pattern trees: every operator known, arities right, leaves known.

An operator is an SDNode, a PatFrag, an intrinsic or a divergence-frag instance
(``UniformBinFrag<add>``); its operand count matches the node profile, the fragment's
``ops`` or the intrinsic's params. A leaf is a value type, register class, operand kind,
leaf node or leaf fragment (``simm8:$c``); ``node:$x`` only inside a fragment, naming one
of its ops.
"""

from __future__ import annotations

from ..builtins import BUILTIN_LEAVES
from ..dag import Dag, Leaf, Operator, Node
from ..errors import expected
from ..types import VALUE_TYPES
from .base import CheckerBase, plural


class TreeChecks(CheckerBase):
    """Checks of the operators and leaves of source pattern trees."""

    def operator_arity(self, op: Dag) -> tuple[str, int | None] | None:
        """(kind, arity or None if variadic) of a source operator; None if unknown."""
        key = op.op
        t = self.t
        if key in t.patfrags:
            return ("PatFrag", len(t.patfrags[key].ops))
        if key in t.sdnodes:
            n = t.sdnodes[key]
            return ("SDNode", None if n.profile.variadic else n.num_operands)
        if key in t.intrinsics_by_name:
            return ("intrinsic", len(t.intrinsics_by_name[key].params))
        if op.operator.name in t.frag_classes_by_name:
            return ("PatFrag", t.frag_classes_by_name[op.operator.name].num_ops)
        return None

    def check_src_tree(self, node: Node, record: str, field: str, in_frag: frozenset[str] | None = None) -> bool:
        """Operators known and arities right; returns False when something is wrong."""
        ok = True
        for n in node.walk():
            if isinstance(n, Leaf):
                ok &= self.check_leaf(n, record, field, in_frag)
                continue
            assert isinstance(n, Dag)
            if n.cast_type is not None:
                if len(n.args) != 1:
                    self.err(n.span, expected(f"one operand in a '{n.cast_type}' cast", len(n.args)), record, field)
                    ok = False
                continue
            fc = self.t.frag_classes_by_name.get(n.operator.name)
            if fc is not None:
                if len(n.operator.template_args) != 1:
                    self.err(n.operator.span, expected(f"'{fc.name}<operator>'", f"'{n.op}'"), record, field)
                    ok = False
                    continue
                inner = n.operator.template_args[0]
                if inner not in self.t.sdnodes and inner not in self.t.patfrags and inner not in self.t.intrinsics_by_name:
                    self.err(
                        n.operator.span,
                        expected("a known SDNode, PatFrag or intrinsic as template argument", f"'{inner}'"),
                        record,
                        field,
                    )
                    ok = False
                    continue
                # the class applies its operator to its num_ops operands: that must be
                # the operator's arity (llvm-tblgen checks it in the instantiated fragment)
                inner_info = self.operator_arity(Dag(Operator(inner, (), n.operator.span), (), None, n.span))
                if inner_info is not None and inner_info[1] is not None and inner_info[1] != fc.num_ops:
                    self.err(n.operator.span, expected(
                        f"an operator of {plural(fc.num_ops, 'operand')} in '{fc.name}<...>'",
                        f"'{inner}' ({inner_info[0]} of {plural(inner_info[1], 'operand')})"), record, field)
                    ok = False
                    continue
            info = self.operator_arity(n)
            if info is None:
                what = "a known SDNode, PatFrag or intrinsic"
                if n.op in self.t.xforms_by_name:
                    what += " (an SDNodeXForm rewrites result operands; it cannot be matched)"
                self.err(n.operator.span, expected(what, f"'{n.op}'"), record, field)
                ok = False
                continue
            kind, arity = info
            if arity is not None and arity != len(n.args):
                self.err(
                    n.span,
                    expected(f"{plural(arity, 'operand')} for {kind} '{n.op}'", len(n.args)),
                    record,
                    field,
                )
                ok = False
        return ok

    def check_leaf(self, n: Leaf, record: str, field: str, in_frag: frozenset[str] | None) -> bool:
        t = self.t
        if n.kind == "typed":
            ty = n.type or ""
            if ty == "node":
                if in_frag is None:
                    self.err(n.span, expected("a value type or register class", "'node'"), record, field)
                    return False
                if n.name not in in_frag:
                    self.err(n.span, expected(f"one of the fragment's ops ({', '.join(sorted(in_frag))})", f"'${n.name}'"), record, field)
                    return False
                return True
            if (
                ty in VALUE_TYPES
                or ty in t.register_classes_by_name
                or ty in t.operand_kinds
                or (ty in t.sdnodes and t.sdnodes[ty].num_operands == 0)
                or self.is_leaf_frag(ty)
            ):
                return True
            what = "a value type, register class, operand kind, leaf node or leaf fragment (ImmLeaf, PatLeaf)"
            if ty in t.patfrags:
                what += f" ('{ty}' takes {plural(len(t.patfrags[ty].ops), 'operand')}: write ({ty} ...))"
            self.err(n.span, expected(what, f"'{ty}'"), record, field)
            return False
        if n.kind == "name":
            v = str(n.value)
            if (
                v in BUILTIN_LEAVES
                or v in t.register_classes_by_name
                or v in t.operand_kinds
                or v in VALUE_TYPES
                or (v in t.sdnodes and t.sdnodes[v].num_operands == 0)
                or self.is_leaf_frag(v)
            ):
                return True
            self.err(n.span, expected("a known leaf record", f"'{v}'"), record, field)
            return False
        return True

    def is_leaf_frag(self, name: str) -> bool:
        """A fragment without operands (ImmLeaf, PatLeaf, a PatFrag with ``(ops)``),
        usable as a leaf type: ``simm8:$c``."""
        f = self.t.patfrags.get(name)
        return f is not None and not f.ops
