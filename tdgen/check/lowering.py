"""Checks of what stands for the target's hand-written C++: lowerings, rewrites, custom selects.

- ``Lowering``: intrinsic and node declared, the node carries a chain exactly when the
  intrinsic has one, results and operand indices agree, the intrinsic's types satisfy
  the node's profile;
- ``Rewrite``: the foreign intrinsic is one LLVM 19 has
  (``tdgen.builtins.FOREIGN_INTRINSICS``), the target intrinsic returns the same types,
  is convergent when the foreign one is, and every argument / ``Const`` fits;
- ``CustomSelect``: a C++ name, known root nodes, a legal type, declared instructions
  with results, and a model defining ``select``.
"""

from __future__ import annotations

import re

from ..errors import TdgenError, expected
from ..model.intrinsics import Intrinsic
from ..model.nodes import SDNode
from ..types import VALUE_TYPES
from .base import CheckerBase, plural


class LoweringChecks(CheckerBase):
    """Checks of lowerings, rewrites and custom selection steps."""

    # ------------------------------------------------------------ lowering
    def check_custom_select(self, cs, insts) -> None:
        """A custom selection step: C++ identifier, known root nodes, legal result type,
        declared instructions, and model source that compiles and defines ``select``."""
        rec = cs.name if isinstance(cs.name, str) else "CustomSelect"
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", cs.name or ""):
            self.err(cs.field_span("name")[0], expected("a C++ function name", repr(cs.name)), rec, "name")
        if not cs.opcodes:
            self.err(cs.field_span("opcodes")[0], expected("at least one SDNode name", "an empty list"), rec, "opcodes")
        for k, op in enumerate(cs.opcodes):
            if op not in self.t.sdnodes:
                self.err(cs.field_span("opcodes", k)[0], expected("an SDNode name (builtin or declared by the target)",
                                                                  repr(op)), rec, "opcodes")
        if cs.vt not in VALUE_TYPES:
            self.err(cs.field_span("vt")[0], expected("a value type", repr(cs.vt)), rec, "vt")
        if not cs.emits:
            self.err(cs.field_span("emits")[0], expected("the instructions the step may produce", "an empty list"),
                     rec, "emits")
        for k, name in enumerate(cs.emits):
            inst = insts.get(name)
            if inst is None:
                self.err(cs.field_span("emits", k)[0], expected("an instruction defined by the target", repr(name)),
                         rec, "emits")
            elif not inst.outs:
                self.err(cs.field_span("emits", k)[0],
                         expected("an instruction with a result (it replaces the node)", f"'{name}' without outs"),
                         rec, "emits")
        try:
            code = compile(cs.model, f"<{rec}.model>", "exec")
        except SyntaxError as e:
            span, _exact = cs.field_span("model")
            self.err(span, expected("Python source defining select(N, cur)",
                                    f"a syntax error at model line {e.lineno}: {e.msg}"), rec, "model")
            return
        if "select" not in code.co_names:
            self.err(cs.field_span("model")[0], expected("Python source defining select(N, cur)",
                                                         "no function named select"), rec, "model")

    def check_lowering(self, low) -> None:
        intr, node = low.intrinsic, low.node
        rec = low.name
        if not isinstance(intr, Intrinsic) or intr.name not in self.t.intrinsics_by_name:
            self.err(low.field_span("intrinsic")[0], expected("an intrinsic declared by the target", repr(getattr(intr, "name", intr))), rec, "intrinsic")
            return
        if not isinstance(node, SDNode) or node.name not in self.t.sdnodes:
            self.err(low.field_span("node")[0], expected("an SDNode declared by the target", repr(getattr(node, "name", node))), rec, "node")
            return
        chained = "SDNPHasChain" in node.properties
        if intr.has_chain and not chained:
            self.err(
                low.field_span("node")[0],
                expected(
                    f"an SDNode with SDNPHasChain ('{intr.name}' may touch memory or has side effects, "
                    "so it is an INTRINSIC_W_CHAIN whose chain the node must carry)",
                    f"'{node.name}' without SDNPHasChain",
                ),
                rec,
                "node",
            )
        elif chained and not intr.has_chain:
            self.err(
                low.field_span("node")[0],
                expected(
                    f"an SDNode without SDNPHasChain ('{intr.name}' is IntrNoMem, an INTRINSIC_WO_CHAIN with no chain to give it)",
                    f"'{node.name}' with SDNPHasChain",
                ),
                rec,
                "node",
            )
        if len(intr.results) != node.num_results:
            self.err(
                low.field_span("node")[0],
                expected(
                    f"an SDNode with {plural(len(intr.results), 'result')} like '{intr.name}'",
                    f"'{node.name}' with {node.num_results}",
                ),
                rec,
                "node",
            )
        m = low.operand_map
        self.check_lowering_types(low, rec)
        if not node.profile.variadic and len(m) != node.num_operands:
            self.err(
                low.field_span("operands")[0],
                expected(f"{plural(node.num_operands, 'operand')} for '{node.name}'", len(m)),
                rec,
                "operands",
            )
        for k, i in enumerate(m):
            if not (isinstance(i, int) and 0 <= i < len(intr.params)):
                self.err(low.field_span("operands", k)[0], expected(f"a parameter index below {len(intr.params)}", i), rec, "operands")

    def check_lowering_types(self, low, rec: str) -> None:
        """The intrinsic's fixed parameter and result types must satisfy the node's
        profile (the C++ ``DAG.getNode`` would build a node its patterns never match)."""
        from ..dag_parse import parse_pattern
        from ..typeinfer import TypeError_, infer

        intr, node = low.intrinsic, low.node
        m = low.operand_map
        if node.profile.variadic or len(m) != node.num_operands or len(intr.results) != node.num_results \
                or not self.types_known():
            return
        if not all(isinstance(i, int) and 0 <= i < len(intr.params) for i in m):
            return
        def leaf(t, name: str) -> str:
            return f"{t.vt.name}:${name}" if t.vt is not None else f"${name}"
        args = " ".join(leaf(intr.params[i], f"p{i}") for i in m)
        text = f"({node.name} {args})" if args else f"({node.name})"
        if len(intr.results) == 1 and intr.results[0].vt is not None:
            text = f"({intr.results[0].vt.name} {text})"
        try:
            infer(self.t, parse_pattern(text), record=rec, field="node")
        except TypeError_ as e:
            want, sep, found = e.error.message.removeprefix("expected ").rpartition(", found ")
            self.err(
                low.field_span("node")[0],
                expected(f"{want} in '{text}' (the types of '{intr.name}')", found) if sep else e.error.message,
                rec,
                "node",
            )
        except TdgenError:
            return

    def check_rewrite(self, rw) -> None:
        from ..builtins import FOREIGN_INTRINSICS
        from ..model.intrinsics import IntrConvergent
        from ..model.lowering import Const

        rec = rw.foreign
        foreign = FOREIGN_INTRINSICS.get(rw.foreign)
        if not rw.foreign.startswith("llvm."):
            self.err(rw.field_span("foreign")[0], expected("an IR intrinsic name 'llvm.*'", f"'{rw.foreign}'"), rec, "foreign")
        elif foreign is None:
            import difflib

            near = difflib.get_close_matches(rw.foreign, sorted(FOREIGN_INTRINSICS), n=1)
            hint = f" (nearest known: '{near[0]}')" if near else ""
            self.err(
                rw.field_span("foreign")[0],
                expected("an LLVM 19 intrinsic of another target (tdgen.builtins.FOREIGN_INTRINSICS)", f"'{rw.foreign}'{hint}"),
                rec,
                "foreign",
            )
        nparams = rw.foreign_params
        if foreign is not None:
            if nparams is not None and nparams != len(foreign.params):
                self.err(
                    rw.field_span("foreign_params")[0],
                    expected(f"{len(foreign.params)} (the parameters of '{rw.foreign}')", nparams),
                    rec,
                    "foreign_params",
                )
            nparams = len(foreign.params)
        tgt = rw.target
        if not isinstance(tgt, Intrinsic) or tgt.name not in self.t.intrinsics_by_name:
            self.err(rw.field_span("target")[0], expected("an intrinsic declared by the target", repr(getattr(tgt, "name", tgt))), rec, "target")
            return
        if foreign is not None:
            if not _types_fit(foreign.results, tgt.results):
                self.err(
                    rw.field_span("target")[0],
                    expected(
                        f"an intrinsic returning [{_type_list(foreign.results)}] like '{rw.foreign}'",
                        f"'{tgt.name}' returning [{_type_list(tgt.results)}]",
                    ),
                    rec,
                    "target",
                )
            if foreign.convergent and IntrConvergent not in tgt.properties:
                self.err(
                    rw.field_span("target")[0],
                    expected(f"an IntrConvergent intrinsic ('{rw.foreign}' is convergent)", f"'{tgt.name}' without IntrConvergent"),
                    rec,
                    "target",
                )
        if len(rw.operands) != len(tgt.params):
            self.err(
                rw.field_span("operands")[0],
                expected(f"{plural(len(tgt.params), 'operand')} for '{tgt.name}'", len(rw.operands)),
                rec,
                "operands",
            )
        for k, o in enumerate(rw.operands):
            want = tgt.params[k] if k < len(tgt.params) else None
            if isinstance(o, Const):
                if want is not None and want.vt is not None and o.type != want.vt.name:
                    self.err(
                        rw.field_span("operands", k)[0],
                        expected(f"a constant of type {want.vt.name} for parameter {k} of '{tgt.name}'", f"Const({o.value}, '{o.type}')"),
                        rec,
                        "operands",
                    )
                continue
            if not isinstance(o, int) or isinstance(o, bool) or o < 0 or (nparams is not None and o >= nparams):
                self.err(
                    rw.field_span("operands", k)[0],
                    expected(f"a foreign argument index below {nparams}", o),
                    rec,
                    "operands",
                )
                continue
            if foreign is not None and want is not None and not _types_fit((foreign.params[o],), (want,)):
                self.err(
                    rw.field_span("operands", k)[0],
                    expected(
                        f"an argument of type {want.tablegen} for parameter {k} of '{tgt.name}'",
                        f"argument {o} of '{rw.foreign}' ({foreign.params[o].tablegen})",
                    ),
                    rec,
                    "operands",
                )


def _type_list(types) -> str:
    return ", ".join(t.tablegen for t in types)


def _types_fit(foreign, target) -> bool:
    """Whether values of the foreign intrinsic's (fixed) types can stand where the
    target intrinsic has ``target`` types: equal, or admitted by an overload."""
    if len(foreign) != len(target):
        return False
    for f, t in zip(foreign, target):
        if t.match is not None or t.overload == "any":
            continue
        if t.overload is not None:
            vt = f.vt
            if t.overload == "anyptr":
                ok = f.addrspace is not None
            else:
                ok = vt is not None and {"anyint": vt.is_int, "anyfloat": vt.is_fp, "anyvector": vt.is_vector}.get(t.overload, False)
            if not ok:
                return False
        elif f.tablegen != t.tablegen:
            return False
    return True
