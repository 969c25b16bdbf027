"""Check a whole Target; report every problem together (sorted by location).

``check_target(target)`` collects into a ``Diagnostics`` and raises at the end. Checks:

- names: every record name unique across the TableGen namespace (also defm
  expansions); intrinsic names ``int_<target_prefix>_...``; target SDNode opcodes in
  the target's ``isd_namespace``;
- records: profiles' constraint operand numbers in range, SDNP properties known,
  ImmArg/LLVMMatchType indices valid, register classes non-empty with a known file,
  instruction classes/defs resolve (template arguments and field values fit their
  declared TableGen types -- bit, int, bits<N>, string, RegisterClass, ... --, fields
  are declared, required fields are set), operand kinds exist, operand names are
  unique, implicit registers exist;
- patterns (instruction ``pattern``, ``Pat`` src/dst, PatFrag fragments): they parse;
  operators are known SDNodes / PatFrags / intrinsics / divergence-frag instances (and
  instructions or casts in results); arity matches the node profile, fragment ``ops``,
  intrinsic params or instruction ``ins``; every ``$name`` of an instruction pattern is
  one of its operands and every input operand appears; result variables are bound in
  the source; types unify under the SDTC constraints (``tdgen.typeinfer``);
- lowerings and rewrites: intrinsic, node and operand indices consistent.

Messages: ``path:line:col: record 'R' field 'f': expected ..., found ...``.
"""

from __future__ import annotations

from .builtins import BUILTIN_LEAVES, BUILTIN_NODES
from .dag import Dag, Leaf, Node
from .errors import Diagnostics, Span, SpecError, TdgenError, expected
from .hw import DivergenceKind
from .model import (
    SDNP_PROPERTIES,
    Defm,
    Instruction,
    Intrinsic,
    PatFrag,
    Record,
    ResolvedInstruction,
    SDNode,
    SDTypeProfile,
    Target,
    parse_field,
)
from .types import VALUE_TYPES


def check_target(target: Target) -> None:
    d = Diagnostics()
    Checker(target, d).run()
    d.check()


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


class Checker:
    def __init__(self, target: Target, diags: Diagnostics) -> None:
        self.t = target
        self.d = diags

    def err(self, span: Span | None, message: str, record: str | None = None, field: str | None = None) -> None:
        self.d.add(SpecError(span, message, record=record, field=field))

    # ------------------------------------------------------------------ run
    def run(self) -> None:
        self.check_names()
        for i in self.t.intrinsics:
            self.check_intrinsic(i)
        for p in self.t.profiles:
            self.check_profile(p, p.name or "SDTypeProfile")
        for n in self.t.nodes:
            self.check_node(n)
        for rc in self.t.register_classes:
            self.check_regclass(rc)
        for o in self.t.operands:
            if o.vt.name not in VALUE_TYPES:
                self.err(o.span, expected("a value type", o.vt), o.name, "vt")
        insts, errors = self.t._resolved()
        for e in errors:
            self.d.add(e)
        for f in self.t.frags:
            self.check_frag(f)
        for inst in insts.values():
            self.check_instruction(inst)
        for k, pat in enumerate(self.t.patterns):
            self.check_pat(pat, pat.name or f"anonymous_{k}", insts)
        for low in self.t.lowerings:
            self.check_lowering(low)
        for rw in self.t.rewrites:
            self.check_rewrite(rw)

    # ---------------------------------------------------------------- names
    def check_names(self) -> None:
        seen: dict[str, Record] = {}

        def visit(name: str, rec: Record, span: Span | None) -> None:
            first = seen.get(name)
            if first is not None:
                self.err(
                    span,
                    expected("a unique record name", f"a second definition (first at {first.span})"),
                    name,
                )
            else:
                seen[name] = rec

        for rec in self.t.records():
            name = getattr(rec, "name", None)
            if not isinstance(name, str):
                continue
            if isinstance(rec, Defm):
                for tmpl in rec.multiclass.defs:
                    visit(rec.name + tmpl.name, rec, rec.span)
                continue
            if isinstance(rec, Instruction) and not name:
                continue
            visit(name, rec, rec.span)
        from .builtins import BUILTIN_FRAGS

        for name, rec in seen.items():
            if name in BUILTIN_NODES or name in BUILTIN_FRAGS:
                self.err(rec.span, expected("a name not taken by a builtin SDNode or PatFrag", f"'{name}'"), name)

    # ----------------------------------------------------------- intrinsics
    def check_intrinsic(self, i: Intrinsic) -> None:
        prefix = f"int_{self.t.target_prefix}_"
        if not i.name.startswith(prefix) or len(i.name) == len(prefix):
            self.err(i.field_span("name")[0], expected(f"a name starting with '{prefix}'", f"'{i.name}'"), i.name, "name")
        if not isinstance(i.divergence, DivergenceKind):
            self.err(i.span, expected("a tdgen.hw.DivergenceKind", repr(i.divergence)), i.name, "divergence")
        overloads = 0
        for fname, types in (("results", i.results), ("params", i.params)):
            for t in types:
                if getattr(t, "tablegen", None) is None:
                    self.err(i.field_span(fname)[0], expected("an intrinsic type (llvm_i32_ty ...)", repr(t)), i.name, fname)
                    continue
                if t.match is not None and t.match >= overloads:
                    self.err(
                        i.field_span(fname)[0],
                        expected(f"LLVMMatchType<N> with N < {overloads} (overloaded types so far)", t.tablegen),
                        i.name,
                        fname,
                    )
                if t.is_overloaded:
                    overloads += 1
        for p in i.properties:
            if getattr(p, "arg", None) is not None and p.arg != -1 and not (0 <= p.arg < len(i.params)):
                self.err(
                    i.field_span("properties")[0],
                    expected(f"an argument index below {len(i.params)}", p.tablegen),
                    i.name,
                    "properties",
                )

    # ------------------------------------------------------------- SDNodes
    def check_profile(self, p: SDTypeProfile, owner: str) -> None:
        total = p.num_results + p.num_operands
        for c in p.constraints:
            for n in c.operands():
                if n < 0 or (not p.variadic and n >= total):
                    self.err(
                        p.field_span("constraints")[0],
                        expected(f"operand numbers below {total}", c.tablegen),
                        owner,
                        "constraints",
                    )

    def check_node(self, n: SDNode) -> None:
        ns = self.t.isd_namespace
        if ns and n.namespace != ns:
            self.err(n.field_span("opcode")[0], expected(f"an opcode '{ns}::NAME'", f"'{n.opcode}'"), n.name, "opcode")
        for prop in n.properties:
            if prop not in SDNP_PROPERTIES:
                self.err(n.field_span("properties")[0], expected("an SDNP property", f"'{prop}'"), n.name, "properties")
        if n.profile.name is None:
            self.check_profile(n.profile, n.name)

    def check_regclass(self, rc) -> None:
        if rc.file not in ("scalar", "vector"):
            self.err(rc.field_span("file")[0], expected("'scalar' or 'vector'", f"'{rc.file}'"), rc.name, "file")
        if not rc.types:
            self.err(rc.field_span("types")[0], expected("at least one value type", "none"), rc.name, "types")
        if not rc.registers:
            self.err(rc.field_span("registers")[0], expected("at least one register", "none"), rc.name, "registers")
        if rc.subregs or rc.subreg_indices:
            known = {r for c in self.t.register_classes for r in c.registers}
            if len(rc.subregs) != len(rc.registers):
                self.err(
                    rc.field_span("subregs")[0],
                    expected(f"components for each of the {len(rc.registers)} registers", len(rc.subregs)),
                    rc.name,
                    "subregs",
                )
            for parts in rc.subregs:
                if len(parts) != len(rc.subreg_indices):
                    self.err(
                        rc.field_span("subregs")[0],
                        expected(f"{len(rc.subreg_indices)} components (one per subreg index)", len(parts)),
                        rc.name,
                        "subregs",
                    )
                    break
                bad = [p for p in parts if p not in known]
                if bad:
                    self.err(rc.field_span("subregs")[0], expected("registers of the target", f"'{bad[0]}'"), rc.name, "subregs")
                    break

    # ------------------------------------------------------------ patterns
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
            info = self.operator_arity(n)
            if info is None:
                self.err(n.operator.span, expected("a known SDNode, PatFrag or intrinsic", f"'{n.op}'"), record, field)
                ok = False
                continue
            kind, arity = info
            if arity is not None and arity != len(n.args):
                self.err(
                    n.span,
                    expected(f"{_plural(arity, 'operand')} for {kind} '{n.op}'", len(n.args)),
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
            ):
                return True
            self.err(n.span, expected("a value type, register class, operand kind or leaf node", f"'{ty}'"), record, field)
            return False
        if n.kind == "name":
            v = str(n.value)
            if (
                v in BUILTIN_LEAVES
                or v in t.register_classes_by_name
                or v in t.operand_kinds
                or v in VALUE_TYPES
                or (v in t.sdnodes and t.sdnodes[v].num_operands == 0)
            ):
                return True
            self.err(n.span, expected("a known leaf record", f"'{v}'"), record, field)
            return False
        return True

    def check_frag(self, f: PatFrag) -> None:
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
        from .typeinfer import TypeError_, infer

        try:
            infer(self.t, node, record=f.name, field="fragment")
        except TypeError_ as e:
            self.d.add(e.error)

    def _operand_kinds(self, inst: ResolvedInstruction) -> bool:
        ok = True
        names: set[str] = set()
        for op in inst.operands:
            if op.kind not in self.t.register_classes_by_name and op.kind not in self.t.operand_kinds:
                self.err(
                    op.span,
                    expected("a register class or operand kind", f"'{op.kind}'"),
                    inst.name,
                    "outs" if op in inst.outs else "ins",
                )
                ok = False
            if op.name in names:
                self.err(op.span, expected("unique operand names", f"'${op.name}' twice"), inst.name, "ins")
                ok = False
            names.add(op.name)
        return ok

    def check_instruction(self, inst: ResolvedInstruction) -> None:
        known = set(self.t.physical_registers)
        for rc in self.t.register_classes:
            known.update(rc.registers)
        for fname, regs in (("implicit_defs", inst.implicit_defs), ("implicit_uses", inst.implicit_uses)):
            for r in regs:
                if r not in known:
                    self.err(
                        inst.span,
                        expected("a register of the target (physical_registers or a register class)", f"'{r}'"),
                        inst.name,
                        fname,
                    )
        if not self._operand_kinds(inst):
            return
        opnames = [o.name for o in inst.operands]
        outs = {o.name for o in inst.outs}
        for p in inst.patterns:
            if p.uses_null_frag():
                continue
            if p.op == "set":
                if not p.args:
                    self.err(p.span, expected("'(set dst..., src)'", "'(set)'"), inst.name, "pattern")
                    continue
                src = p.args[-1]
                for dst in p.args[:-1]:
                    if isinstance(dst, Leaf) and dst.kind == "typed" and not self.check_leaf(dst, inst.name, "pattern", None):
                        continue
                    if not (isinstance(dst, Leaf) and dst.name is not None):
                        self.err(dst.span, expected("a result operand 'type:$name'", f"'{dst.render()}'"), inst.name, "pattern")
                    elif dst.name not in outs:
                        self.err(
                            dst.span,
                            expected(f"an output operand of {inst.name} ({', '.join(sorted(outs)) or 'none'})", f"'${dst.name}'"),
                            inst.name,
                            "pattern",
                        )
            else:
                src = p
            bad = False
            for n in p.walk():
                nm = n.name
                if nm is not None and nm not in opnames:
                    self.err(
                        n.span,
                        expected(f"an operand of {inst.name} ({', '.join(opnames) or 'none'})", f"'${nm}'"),
                        inst.name,
                        "pattern",
                    )
                    bad = True
            if bad or not self.check_src_tree(src, inst.name, "pattern"):
                continue
            used = set(p.variables())
            for o in inst.ins:
                if o.name not in used:
                    self.err(p.span, expected(f"input operand '${o.name}' used in the pattern", "it missing"), inst.name, "pattern")
                    bad = True
            if bad:
                continue
            from .typeinfer import TypeError_, infer

            try:
                infer(self.t, p, record=inst.name, field="pattern", instruction=inst)
            except TypeError_ as e:
                self.d.add(e.error)

    def check_pat(self, pat, name: str, insts: dict[str, ResolvedInstruction]) -> None:
        try:
            src = parse_field(pat, "src", pat.src, record_name=name)
            dst = parse_field(pat, "dst", pat.dst, record_name=name)
        except TdgenError as e:
            self.d.add(e)
            return
        if isinstance(src, Dag) and src.uses_null_frag():
            return
        ok = isinstance(src, Dag) and self.check_src_tree(src, name, "src")
        if not isinstance(src, Dag):
            self.err(src.span, expected("a DAG in parentheses", f"'{src.render()}'"), name, "src")
        inner = dst
        if isinstance(dst, Dag) and dst.cast_type is not None and len(dst.args) == 1 and isinstance(dst.args[0], Dag):
            inner = dst.args[0]
        if not isinstance(inner, Dag):
            self.err(dst.span, expected("an instruction DAG", f"'{dst.render()}'"), name, "dst")
            return
        bound = set(src.variables()) if isinstance(src, Dag) else set()
        for n in inner.walk():
            if isinstance(n, Dag) and n is not inner and n.cast_type is not None:
                continue
            if isinstance(n, Dag):
                inst = insts.get(n.op)
                if inst is None:
                    self.err(n.operator.span, expected("an instruction", f"'{n.op}'"), name, "dst")
                    ok = False
                    continue
                if len(n.args) != len(inst.ins):
                    self.err(
                        n.span,
                        expected(
                            f"{_plural(len(inst.ins), 'operand')} for '{inst.name}' ({', '.join(o.name for o in inst.ins)})",
                            len(n.args),
                        ),
                        name,
                        "dst",
                    )
                    ok = False
            elif n.name is not None and n.name not in bound:
                self.err(n.span, expected(f"a variable bound in the source ({', '.join(sorted(bound)) or 'none'})", f"'${n.name}'"), name, "dst")
                ok = False
            elif n.kind in ("name", "typed") and not self.check_leaf(n, name, "dst", None):
                ok = False
        if not ok:
            return
        from .typeinfer import TypeError_, infer

        try:
            infer(self.t, src, record=name, field="src", result=dst, instructions=insts)
        except TypeError_ as e:
            self.d.add(e.error)

    # ------------------------------------------------------------ lowering
    def check_lowering(self, low) -> None:
        intr, node = low.intrinsic, low.node
        rec = intr.name if isinstance(intr, Intrinsic) else "Lowering"
        if not isinstance(intr, Intrinsic) or intr.name not in self.t.intrinsics_by_name:
            self.err(low.field_span("intrinsic")[0], expected("an intrinsic declared by the target", repr(getattr(intr, "name", intr))), rec, "intrinsic")
            return
        if not isinstance(node, SDNode) or node.name not in self.t.sdnodes:
            self.err(low.field_span("node")[0], expected("an SDNode declared by the target", repr(getattr(node, "name", node))), rec, "node")
            return
        m = low.operand_map
        if not node.profile.variadic and len(m) != node.num_operands:
            self.err(
                low.field_span("operands")[0],
                expected(f"{_plural(node.num_operands, 'operand')} for '{node.name}'", len(m)),
                rec,
                "operands",
            )
        for i in m:
            if not (isinstance(i, int) and 0 <= i < len(intr.params)):
                self.err(low.field_span("operands")[0], expected(f"a parameter index below {len(intr.params)}", i), rec, "operands")

    def check_rewrite(self, rw) -> None:
        from .model import Const

        rec = rw.foreign
        if not rw.foreign.startswith("llvm."):
            self.err(rw.field_span("foreign")[0], expected("an IR intrinsic name 'llvm.*'", f"'{rw.foreign}'"), rec, "foreign")
        tgt = rw.target
        if not isinstance(tgt, Intrinsic) or tgt.name not in self.t.intrinsics_by_name:
            self.err(rw.field_span("target")[0], expected("an intrinsic declared by the target", repr(getattr(tgt, "name", tgt))), rec, "target")
            return
        if len(rw.operands) != len(tgt.params):
            self.err(
                rw.field_span("operands")[0],
                expected(f"{_plural(len(tgt.params), 'operand')} for '{tgt.name}'", len(rw.operands)),
                rec,
                "operands",
            )
        for o in rw.operands:
            if isinstance(o, Const):
                continue
            if not isinstance(o, int) or o < 0 or (rw.foreign_params is not None and o >= rw.foreign_params):
                self.err(
                    rw.field_span("operands")[0],
                    expected(f"a foreign argument index below {rw.foreign_params}", o),
                    rec,
                    "operands",
                )
