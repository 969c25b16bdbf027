"""Checks of fragment records: PatFrags, ImmLeaf / PatLeaf, and SDNodeXForm records.

Predicate code reads what llvm-tblgen declares around it (``N`` in a PatFrag's or
PatLeaf's code, ``Imm`` in an ImmLeaf's; ``Operands[...]`` only with
``uses_operands=True``); an ImmLeaf has an integer type, ``imm``/``timm`` and code; a
leaf's ``xform`` is one of the target's ``xforms``; a fragment's tree is checked
(``tdgen.check.trees``), uses each of its ops and type-checks. An SDNodeXForm names a
known node and has code tdgen executes or a ``model`` defining ``transform``.
"""

from __future__ import annotations

import re

from ..dag import Dag, Leaf
from ..errors import TdgenError, expected
from ..model.fragments import ImmLeaf, PatFrag, PatLeaf, SDNodeXForm
from ..types import VALUE_TYPES
from .trees import TreeChecks

_READS_OPERANDS = re.compile(r"\bOperands\s*\[")
_READS_IMM = re.compile(r"\bImm\b")
_DECLARES_IMM = re.compile(r"\b(?:u?int(?:64|32)_t|int|unsigned|auto|long)\s+Imm\b")
_READS_N = re.compile(r"\bN\s*->")
_DECLARES_N = re.compile(r"\bN\s*=[^=]")


class FragmentChecks(TreeChecks):
    """Checks of PatFrag, ImmLeaf, PatLeaf and SDNodeXForm records."""

    def check_xform(self, x: SDNodeXForm) -> None:
        """An SDNodeXForm: a known node, C++ code, and a model that runs -- the ``model``
        source (defining ``transform``), or code of the form tdgen executes."""
        rec = x.name
        if x.node not in self.t.sdnodes:
            self.err(x.field_span("node")[0], expected("an SDNode name (imm, timm or one the target declares)",
                                                       repr(x.node)), rec, "node")
        if not x.code.strip():
            self.err(x.field_span("code")[0], expected("C++ code returning the new operand", "an empty string"),
                     rec, "code")
            return
        self.check_cpp_syntax(x, "code", x.code)
        if x.model is None:
            from ..cppexpr import xform_code_problem

            why = xform_code_problem(x.code)
            if why is not None:
                self.err(x.field_span("code")[0],
                         expected("code tdgen executes, 'return CurDAG->getTargetConstant(<expression over "
                                  "N->getSExtValue()>, SDLoc(N), MVT::i32);', or a model defining "
                                  "transform(N, cur)", f"code it cannot read ({why}) and no model"), rec, "code")
            return
        try:
            code = compile(x.model, f"<{rec}.model>", "exec")
        except SyntaxError as e:
            self.err(x.field_span("model")[0], expected("Python source defining transform(N, cur)",
                                                        f"a syntax error at model line {e.lineno}: {e.msg}"), rec, "model")
            return
        if "transform" not in code.co_names:
            self.err(x.field_span("model")[0], expected("Python source defining transform(N, cur)",
                                                        "no function named transform"), rec, "model")

    def check_leaf_record(self, f) -> bool:
        """What only ImmLeaf / PatLeaf have: an integer type and an immediate node, C++
        code, an xform the target declares. False when something is wrong (the
        fragment is then not checked further: it would repeat the error)."""
        before = len(self.d.errors)
        if isinstance(f, ImmLeaf):
            vt = getattr(f.vt, "name", None)
            if vt in VALUE_TYPES and VALUE_TYPES[vt].kind != "int":
                self.err(f.field_span("vt")[0], expected(f"an integer value type (the value of '{f.node}' is "
                                                         "SDTCisInt)", vt), f.name, "vt")
            if f.node not in ("imm", "timm"):
                self.err(f.field_span("node")[0], expected("'imm' or 'timm' (the constant node an ImmLeaf matches)",
                                                           repr(f.node)), f.name, "node")
            if not f.code.strip():
                self.err(f.field_span("code")[0], expected("C++ code over Imm returning bool", "an empty string"),
                         f.name, "code")
        x = f.xform
        if x is not None and self.t.xforms_by_name.get(x.name) != x:
            self.err(f.field_span("xform")[0], expected("an SDNodeXForm listed in the target's xforms",
                                                        f"'{x.name}'"), f.name, "xform")
        return len(self.d.errors) == before

    def check_frag(self, f: PatFrag) -> None:
        from ..builtins import BUILTIN_FRAGS

        if getattr(f, "builtin", False) and BUILTIN_FRAGS.get(f.name) != f:
            self.err(f.field_span("builtin")[0], expected("builtin=False for a fragment the target declares (only "
                                                          "tdgen.builtins' fragments are builtin)", True), f.name, "builtin")
            return
        if isinstance(f, (ImmLeaf, PatLeaf)) and not self.check_leaf_record(f):
            return
        self.check_cpp_syntax(f, "code" if isinstance(f, (ImmLeaf, PatLeaf)) else "predicate_code",
                              f.code if isinstance(f, (ImmLeaf, PatLeaf)) else f.predicate_code)
        code = f.predicate_code
        if isinstance(code, str) and _READS_IMM.search(code) and not _DECLARES_IMM.search(code):
            fld = "code" if isinstance(f, PatLeaf) else "predicate_code"
            self.err(f.field_span(fld)[0],
                     expected("predicate code over N, the matched node (llvm-tblgen declares Imm only in an "
                              "ImmLeaf's code: use ImmLeaf for code over the constant's value)", "code reading 'Imm'"),
                     f.name, fld)
        imm_code = f.immediate_code
        if isinstance(imm_code, str) and _READS_N.search(imm_code) and not _DECLARES_N.search(imm_code):
            self.err(f.field_span("code")[0],
                     expected("code over Imm, the constant sign-extended (llvm-tblgen declares N only in "
                              "PatLeaf/PatFrag code: use PatLeaf for code over the node)", "code reading 'N'"),
                     f.name, "code")
        if isinstance(code, str) and _READS_OPERANDS.search(code) and not f.uses_operands:
            self.err(
                f.field_span("uses_operands")[0],
                expected(
                    "uses_operands=True (the predicate code reads 'Operands[...]', which llvm-tblgen declares "
                    "only with PredicateCodeUsesOperands)",
                    f.uses_operands,
                ),
                f.name,
                "uses_operands",
            )
        try:
            node = f.dag
        except TdgenError as e:
            self.d.add(e)
            return
        if not isinstance(node, Dag):
            self.err(node.span, expected("a DAG in parentheses", f"'{node.render()}'"), f.name, "fragment")
            return
        if not self.check_src_tree(node, f.name, "fragment", frozenset(f.ops)):
            return
        used = {n.name for n in node.walk() if isinstance(n, Leaf) and n.type == "node"}
        for o in f.ops:
            if o not in used:
                self.err(node.span, expected(f"operand 'node:${o}' used in the fragment", "it unused"), f.name, "fragment")
        if not self.types_known():
            return
        from ..typeinfer import TypeError_, infer

        try:
            infer(self.t, node, record=f.name, field="fragment")
        except TypeError_ as e:
            self.d.add(e.error)
