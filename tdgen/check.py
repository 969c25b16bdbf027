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
  instructions or casts in results, including Target.td's REG_SEQUENCE /
  EXTRACT_SUBREG / COPY_TO_REGCLASS / IMPLICIT_DEF with a register class or target
  sub-register index where their operands take one); arity matches the node profile,
  fragment ``ops``, intrinsic params or instruction ``ins``; every ``$name`` of an instruction pattern is
  one of its operands and every input operand appears; result variables are bound in
  the source; types unify under the SDTC constraints (``tdgen.typeinfer``; a top-level
  form of an instruction pattern yields no value unless under ``set``; every value of
  an instruction pattern or ``Pat`` source ends with one type among the target's legal
  types, else tblgen's "Could not infer all types in pattern!");
- memory effects: an instruction's explicit ``mayLoad``/``mayStore``/``hasSideEffects``
  agree with what its patterns match (SDNP properties of nodes, memory properties of
  intrinsics), where llvm-tblgen-19 rejects them ("Pattern doesn't match mayLoad = 0");
- lowerings: intrinsic declared, node declared, node carries a chain exactly when the
  intrinsic has one (``Intrinsic.has_chain``: INTRINSIC_W_CHAIN vs _WO_CHAIN), node
  results = intrinsic results, operand indices in range;
- fragments: predicate code reading ``Operands[...]`` needs ``uses_operands=True``
  (TableGen's ``PredicateCodeUsesOperands``); ``PredicateCode`` (PatFrag, PatLeaf) reads
  the node ``N``, not ``Imm``, and an ImmLeaf's code reads ``Imm``, not ``N`` (the C++
  llvm-tblgen writes around them declares only those); an ImmLeaf has an integer type,
  ``imm``/``timm`` and code, and its / a PatLeaf's ``xform`` is one of the target's
  ``xforms``;
- SDNodeXForms: a known node, code, and either code of the one form tdgen executes or a
  ``model`` defining ``transform``; in a result DAG one operand, bound in the source to a
  constant (``imm``, ``timm`` or a leaf fragment over them) -- also for a result leaf
  naming a leaf fragment with an ``xform``; never in a source;
- wave facts (``Target.wave``): sizes a non-empty subset of {32, 64}, ``default_size``
  among them, ``bpermute_wave64`` ``'full'`` or ``'half'``;
- rewrites: the foreign intrinsic is one LLVM 19 has (``tdgen.builtins.FOREIGN_INTRINSICS``,
  no LLVM needed at run time), ``foreign_params`` matches it, the target intrinsic
  returns the same types, is IntrConvergent when the foreign one is, and every mapped
  argument / ``Const`` has the type of the target parameter it feeds.

The verdicts on SDTC constraints, memory effects, top-level forms and type-inference
completeness are compared with llvm-tblgen-19 in tests/test_check_tblgen.py.

Messages: ``path:line:col: record 'R' field 'f': expected ..., found ...``.
"""

from __future__ import annotations

import re

from .builtins import BUILTIN_LEAVES, BUILTIN_NODES, GENERIC_INSTRUCTIONS
from .dag import Dag, Leaf, Node
from .errors import Diagnostics, Span, SpecError, TdgenError, expected
from .hw import DivergenceKind
from .model import (
    SDNP_PROPERTIES,
    Defm,
    ImmLeaf,
    Instruction,
    Intrinsic,
    PatFrag,
    PatLeaf,
    SDNodeXForm,
    Record,
    ResolvedInstruction,
    SDNode,
    SDTypeProfile,
    Target,
    depends_on_invalid,
    is_invalid,
    parse_field,
)
from .types import VALUE_TYPES


_READS_OPERANDS = re.compile(r"\bOperands\s*\[")
_READS_IMM = re.compile(r"\bImm\b")
_DECLARES_IMM = re.compile(r"\b(?:u?int(?:64|32)_t|int|unsigned|auto|long)\s+Imm\b")
_READS_N = re.compile(r"\bN\s*->")
_DECLARES_N = re.compile(r"\bN\s*=[^=]")


def check_target(target: Target, diags: Diagnostics | None = None, *, tolerant: bool = False) -> None:
    """Run every check; raise all problems together (sorted).

    With ``diags`` the problems are added there instead of raised. ``tolerant`` is for
    a spec that already has construction errors: records marked invalid
    (``tdgen.model.is_invalid``) and records built on them are skipped, and a check
    that cannot read a record (a knock-on effect of the invalid ones) is dropped
    rather than reported, so the construction errors stay the report."""
    d = Diagnostics() if diags is None else diags
    checker = Checker(target, d, tolerant=tolerant)
    if tolerant:
        try:
            checker.run()
        except TdgenError as e:
            d.add(e)
        except Exception:  # noqa: BLE001 -- a knock-on of an invalid record
            pass
    else:
        checker.run()
    if diags is None:
        d.check()


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


class Checker:
    def __init__(self, target: Target, diags: Diagnostics, *, tolerant: bool = False) -> None:
        self.t = target
        self.d = diags
        self.tolerant = tolerant

    def err(self, span: Span | None, message: str, record: str | None = None, field: str | None = None) -> None:
        self.d.add(SpecError(span, message, record=record, field=field))

    def each(self, records, check, *args) -> None:
        """``check(rec, *args)`` for every record; when tolerant, records depending on
        invalid ones are skipped and a crash on one record drops only that record."""
        for rec in records:
            if not self.tolerant:
                check(rec, *args)
                continue
            if depends_on_invalid(getattr(rec, "declared_by", rec)) or depends_on_invalid(getattr(rec, "defm", None)):
                continue
            try:
                check(rec, *args)
            except TdgenError as e:
                self.d.add(e)
            except Exception:  # noqa: BLE001 -- a knock-on of an invalid record
                continue

    # ------------------------------------------------------------------ run
    def run(self) -> None:
        t = self.t
        self.check_names()
        self.each(t.intrinsics, self.check_intrinsic)
        self.each(t.profiles, lambda p: self.check_profile(p, p.name or "SDTypeProfile"))
        self.each(t.nodes, self.check_node)
        self.each(t.register_classes, self.check_regclass)
        self.each(t.operands, self.check_operand_kind)
        insts, errors = t._resolved()
        for e in errors:
            self.d.add(e)
        self.each(t.xforms, self.check_xform)
        self.each(t.frags, self.check_frag)
        self.each(insts.values(), self.check_instruction)
        index = {id(p): k for k, p in enumerate(t.patterns)}
        self.each(t.patterns, lambda p: self.check_pat(p, p.name or f"anonymous_{index[id(p)]}", insts))
        self.check_effects(insts)
        self.each(t.lowerings, self.check_lowering)
        self.each(t.rewrites, self.check_rewrite)
        self.each(t.custom_selects, lambda c: self.check_custom_select(c, insts))
        self.check_wave()

    # ---------------------------------------------------------------- wave
    def check_wave(self) -> None:
        """``Target.wave``: sizes a non-empty subset of {32, 64}, the default one of
        them, ``bpermute_wave64`` ``'full'`` or ``'half'``."""
        t = self.t
        model = t.wave
        span = t.field_span("wave")[0]

        def bad(fld: str, what: str, found: object) -> None:
            self.err(span, expected(what, repr(found)), t.name, f"wave.{fld}" if fld else "wave")

        # (a Target's constructor already rejects a ``wave`` that is no WaveModel)
        sizes = model.sizes
        sizes_ok = (
            isinstance(sizes, tuple) and bool(sizes)
            and all(isinstance(n, int) and not isinstance(n, bool) and n in (32, 64) for n in sizes)
        )
        if not sizes_ok:
            bad("sizes", "a non-empty tuple of wave sizes from 32 and 64", sizes)
        # a default among the sizes that are valid (any valid size when none is)
        valid = tuple(n for n in sizes if n in (32, 64) and not isinstance(n, bool)) if isinstance(sizes, tuple) else ()
        allowed = valid or (32, 64)
        d = model.default_size
        if isinstance(d, bool) or d not in allowed:
            bad("default_size", f"one of the sizes ({', '.join(str(n) for n in allowed)})", d)
        if model.bpermute_wave64 not in ("full", "half"):
            bad("bpermute_wave64", "'full' or 'half'", model.bpermute_wave64)

    def check_operand_kind(self, o) -> None:
        if o.vt.name not in VALUE_TYPES:
            self.err(o.span, expected("a value type", o.vt), o.name, "vt")

    # ---------------------------------------------------------------- names
    def check_names(self) -> None:
        seen: dict[str, Record] = {}
        first_at: dict[str, Span | None] = {}

        def visit(name: str, rec: Record, span: Span | None) -> None:
            first = seen.get(name)
            if first is not None:
                self.err(
                    span,
                    expected("a unique record name", f"a second definition (first at {first_at[name]})"),
                    name,
                    "name",
                )
            else:
                seen[name] = rec
                first_at[name] = span

        for rec in self.t.records():
            if self.tolerant and is_invalid(rec):
                continue
            name = getattr(rec, "name", None)
            if not isinstance(name, str):
                continue
            where = rec.field_span("name")[0]
            if isinstance(rec, Defm):
                for tmpl in rec.multiclass.defs:
                    visit(rec.name + tmpl.name, rec, where)
                continue
            if isinstance(rec, Instruction) and not name:
                continue
            visit(name, rec, where)
        from .builtins import BUILTIN_FRAGS

        for name, rec in seen.items():
            if name in BUILTIN_NODES or name in BUILTIN_FRAGS:
                self.err(rec.field_span("name")[0], expected("a name not taken by a builtin SDNode or PatFrag", f"'{name}'"), name, "name")

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
                or self.is_leaf_frag(ty)
            ):
                return True
            what = "a value type, register class, operand kind, leaf node or leaf fragment (ImmLeaf, PatLeaf)"
            if ty in t.patfrags:
                what += f" ('{ty}' takes {_plural(len(t.patfrags[ty].ops), 'operand')}: write ({ty} ...))"
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
        if x.model is None:
            from .cppexpr import xform_code_problem

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
        if isinstance(f, (ImmLeaf, PatLeaf)) and not self.check_leaf_record(f):
            return
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
        checked: set[int] = set()  # leaves already checked as a generic instruction's operand
        for n in inner.walk():
            if isinstance(n, Dag) and n is not inner and n.cast_type is not None:
                continue
            if isinstance(n, Leaf) and id(n) in checked:
                continue
            if isinstance(n, Dag) and n.op in GENERIC_INSTRUCTIONS and n.op not in insts:
                ok = self.check_generic(n, name, checked) and ok
                continue
            if isinstance(n, Dag) and n.op in self.t.xforms_by_name and n.op not in insts:
                ok = self.check_xform_use(n, src, name, checked) and ok
                continue
            if isinstance(n, Leaf) and n.name is not None and n.name in bound and n.kind == "typed":
                x = self.leaf_xform(n.type)
                if x is not None and not self.check_xform_operand(x, n, src, name):
                    ok = False
                    continue
            if isinstance(n, Leaf) and n.kind == "name" and self.is_leaf_frag(str(n.value)):
                self.err(n.span, expected(f"a matched operand '{n.value}:$name' (a leaf fragment in a result "
                                          "names an operand of the source)", f"'{n.value}'"), name, "dst")
                ok = False
                continue
            if isinstance(n, Dag):
                inst = insts.get(n.op)
                if inst is None:
                    self.err(n.operator.span, expected("an instruction", f"'{n.op}'"), name, "dst")
                    # its name operands (sub-register indices ...) are not reported again
                    checked.update(id(a) for a in n.args if isinstance(a, Leaf) and a.kind == "name")
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

    # ------------------------------------------------------- SDNodeXForms
    def leaf_xform(self, type_name: str | None) -> SDNodeXForm | None:
        """The OperandTransform of the leaf fragment ``type_name``, if it has one."""
        f = self.t.patfrags.get(type_name) if type_name else None
        return getattr(f, "xform", None) if f is not None and not f.ops else None

    def check_xform_use(self, n: Dag, src: Node, record: str, checked: set[int]) -> bool:
        """``(NegateImm $c)`` in a result: one operand, a name the source binds to a
        constant (the C++ casts the node to ConstantSDNode)."""
        x = self.t.xforms_by_name[n.op]
        if len(n.args) != 1:
            self.err(n.span, expected(f"1 operand for SDNodeXForm '{x.name}'", len(n.args)), record, "dst")
            checked.update(id(a) for a in n.args if isinstance(a, Leaf))
            return False
        (arg,) = n.args
        if not (isinstance(arg, Leaf) and arg.name is not None):
            text = f"'{arg.render()}'" if isinstance(arg, Leaf) else f"the DAG '({arg.op} ...)'"
            self.err(arg.span or n.span, expected(f"an operand '$name' bound in the source as the operand of "
                                                  f"SDNodeXForm '{x.name}'", text), record, "dst")
            if isinstance(arg, Leaf):
                checked.add(id(arg))
            return False
        if not isinstance(src, Dag) or arg.name not in src.variables():
            return True  # (the walk reports an unbound name)
        if not self.check_xform_operand(x, arg, src, record):
            checked.add(id(arg))
            return False
        return True

    def check_xform_operand(self, x: SDNodeXForm, leaf: Leaf, src: Node, record: str) -> bool:
        """The operand ``leaf`` an SDNodeXForm applies to is bound to a constant."""
        binding = _binding(src, leaf.name or "")
        if binding is None or self.is_constant_binding(binding):
            return True
        self.err(leaf.span, expected(f"an operand the source binds to a constant (imm, timm or a leaf fragment "
                                     f"over them) for SDNodeXForm '{x.name}'",
                                     f"'${leaf.name}' bound to '{binding.render()}'"), record, "dst")
        return False

    def is_constant_binding(self, n: Node, depth: int = 0) -> bool:
        """Whether a source node (a binding) matches a constant: ``imm``/``timm`` or a
        leaf fragment whose fragment does, under any casts."""
        if depth > 16:
            return False
        while isinstance(n, Dag) and n.cast_type is not None and len(n.args) == 1:
            n = n.args[0]
        if isinstance(n, Leaf):
            name = n.type if n.kind == "typed" else (str(n.value) if n.kind == "name" else "")
        else:
            if n.args:
                return False
            name = n.op
        if name in ("imm", "timm"):
            return True
        if self.is_leaf_frag(name or ""):
            try:
                return self.is_constant_binding(self.t.patfrags[name].dag, depth + 1)
            except TdgenError:
                return False
        return False

    def check_generic(self, n: Dag, record: str, checked: set[int]) -> bool:
        """A Target.td instruction in a result DAG (``REG_SEQUENCE``, ``EXTRACT_SUBREG``
        ...): its operand count, and each sub-register index / register class operand where its role puts one (value operands are checked by the caller's walk)."""
        g = GENERIC_INSTRUCTIONS[n.op]
        roles = g.roles(len(n.args))
        if roles is None:
            # one error for the node: its index / class leaves are not reported again
            checked.update(id(a) for a in n.args if isinstance(a, Leaf) and a.kind == "name")
            self.err(n.span, expected(f"operands {g.shape()}", f"{_plural(len(n.args), 'operand')}"), record, "dst")
            return False
        ok = True
        indices = sorted({i for rc in self.t.register_classes for i in rc.subreg_indices})
        for k, (role, a) in enumerate(zip(roles, n.args)):
            if role == "value":
                continue
            leaf = a if isinstance(a, Leaf) else None
            text = f"'{a.render()}'" if leaf is not None else f"the DAG '({a.op} ...)'"
            where = f"operand {k} of '{n.op}'"
            if role == "subreg":
                good = leaf is not None and leaf.kind == "name" and str(leaf.value) in indices
                want = f"a sub-register index ({', '.join(indices) or 'the target has none'}) as {where}"
            else:  # regclass
                good = leaf is not None and leaf.kind == "name" and str(leaf.value) in self.t.register_classes_by_name
                want = f"a register class ({', '.join(sorted(self.t.register_classes_by_name))}) as {where}"
            if leaf is not None:
                checked.add(id(leaf))
            if not good:
                self.err(a.span or n.span, expected(want, text), record, "dst")
                ok = False
        return ok

    # ------------------------------------------------------- memory effects
    def pattern_effects(self, node: Node, seen: frozenset[str] = frozenset()) -> dict[str, str]:
        """What matching ``node`` implies, as llvm-tblgen infers it: ``mayLoad`` /
        ``mayStore`` / ``hasSideEffects`` -> the operator that implies it. SDNodes by
        SDNPMayLoad/SDNPMayStore/SDNPSideEffect; intrinsics by their memory
        properties (reads -> mayLoad, writes -> mayStore, no memory property or
        IntrHasSideEffects -> hasSideEffects); fragments expanded."""
        out: dict[str, str] = {}
        for n in node.walk():
            if not isinstance(n, Dag) or n.cast_type is not None:
                continue
            key = n.op
            frag = self.t.patfrags.get(key)
            if frag is not None and key not in seen:
                try:
                    body = frag.dag
                except TdgenError:
                    continue
                for k, v in self.pattern_effects(body, seen | {key}).items():
                    out.setdefault(k, v)
                continue
            node_ = self.t.sdnodes.get(key)
            intr = self.t.intrinsics_by_name.get(key)
            found: list[str] = []
            if node_ is not None:
                found = [f for f, prop in _NODE_EFFECTS if prop in node_.properties]
                why = lambda f: f"'{key}' ({dict(_NODE_EFFECTS)[f]})"  # noqa: E731
            elif intr is not None:
                found = [f for f, on in zip(("mayLoad", "mayStore", "hasSideEffects"), intrinsic_effects(intr)) if on]
                why = lambda f: f"'{key}' ({_INTR_EFFECT_WHY[f]})"  # noqa: E731
            for f in found:
                out.setdefault(f, why(f))
        return out

    def check_effects(self, insts: dict[str, ResolvedInstruction]) -> None:
        """Explicit mayLoad/mayStore/hasSideEffects must agree with the patterns
        selecting the instruction, where llvm-tblgen-19 -gen-dag-isel rejects them
        ("Pattern doesn't match mayLoad = 0"): an effect of the pattern the flag
        denies; ``mayStore = 1`` with a pattern that does not store. Checked for the
        instruction's own patterns, and for single-instruction ``Pat`` s while
        tblgen still verifies against them (all three flags set, or the first such
        ``Pat`` of an instruction without patterns of its own)."""
        inferred: set[str] = set()
        jobs: list[tuple[ResolvedInstruction, Node, str, str]] = []
        for inst in insts.values():
            if self.tolerant and depends_on_invalid(inst.declared_by):
                continue
            for p in inst.patterns:
                if not p.uses_null_frag():
                    jobs.append((inst, p.args[-1] if p.op == "set" and p.args else p, inst.name, "pattern"))
            if inst.patterns:
                inferred.add(inst.name)
        for k, pat in enumerate(self.t.patterns):
            if self.tolerant and is_invalid(pat):
                continue
            try:
                src = parse_field(pat, "src", pat.src, record_name=pat.name or f"anonymous_{k}")
                dst = parse_field(pat, "dst", pat.dst, record_name=pat.name or f"anonymous_{k}")
            except TdgenError:
                continue
            used = [n.op for n in dst.walk() if isinstance(n, Dag) and n.op in insts]
            if len(used) != 1 or (isinstance(src, Dag) and src.uses_null_frag()):
                continue
            inst = insts[used[0]]
            flags = [inst.field(f) for f in ("mayLoad", "mayStore", "hasSideEffects")]
            if any(v is None for v in flags):
                if inst.name in inferred:
                    continue
                inferred.add(inst.name)
            jobs.append((inst, src, pat.name or f"anonymous_{k}", "src"))
        for inst, src, record, field in jobs:
            eff = self.pattern_effects(src)
            for flag in ("mayLoad", "mayStore", "hasSideEffects"):
                v = inst.field(flag)
                if v is None:
                    continue
                if not v and flag in eff:
                    self.err(
                        src.span,
                        expected(f"a pattern without {_EFFECT_NOUN[flag]} ({inst.name} sets {flag} = 0)", eff[flag]),
                        record,
                        field,
                    )
                elif v and flag == "mayStore" and flag not in eff:
                    self.err(
                        src.span,
                        expected(f"a pattern that may store ({inst.name} sets mayStore = 1)", "none that stores"),
                        record,
                        field,
                    )

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
                    f"an SDNode with {_plural(len(intr.results), 'result')} like '{intr.name}'",
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
                expected(f"{_plural(node.num_operands, 'operand')} for '{node.name}'", len(m)),
                rec,
                "operands",
            )
        for k, i in enumerate(m):
            if not (isinstance(i, int) and 0 <= i < len(intr.params)):
                self.err(low.field_span("operands", k)[0], expected(f"a parameter index below {len(intr.params)}", i), rec, "operands")

    def check_lowering_types(self, low, rec: str) -> None:
        """The intrinsic's fixed parameter and result types must satisfy the node's
        profile (the C++ ``DAG.getNode`` would build a node its patterns never match)."""
        from .dag import parse_pattern
        from .typeinfer import TypeError_, infer

        intr, node = low.intrinsic, low.node
        m = low.operand_map
        if node.profile.variadic or len(m) != node.num_operands or len(intr.results) != node.num_results:
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
        from .builtins import FOREIGN_INTRINSICS
        from .model import Const, IntrConvergent

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
                expected(f"{_plural(len(tgt.params), 'operand')} for '{tgt.name}'", len(rw.operands)),
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


def _binding(src: Node, name: str) -> Node | None:
    """The first node of ``src`` that binds ``$name``."""
    for n in src.walk():
        if n.name == name:
            return n
    return None


_NODE_EFFECTS = (("mayLoad", "SDNPMayLoad"), ("mayStore", "SDNPMayStore"), ("hasSideEffects", "SDNPSideEffect"))
_INTR_EFFECT_WHY = {
    "mayLoad": "an intrinsic that may read memory",
    "mayStore": "an intrinsic that may write memory",
    "hasSideEffects": "an intrinsic with side effects",
}
_EFFECT_NOUN = {"mayLoad": "loads", "mayStore": "stores", "hasSideEffects": "side effects"}
_MEMORY_PROPS = frozenset({
    "IntrNoMem", "IntrReadMem", "IntrWriteMem", "IntrArgMemOnly", "IntrInaccessibleMemOnly",
    "IntrInaccessibleMemOrArgMemOnly",
})


def intrinsic_effects(intr: Intrinsic) -> tuple[bool, bool, bool]:
    """(reads memory, writes memory, has side effects) of an intrinsic, as
    llvm-tblgen derives them from its properties: memory is unknown (read, write and
    side effects) unless a memory property narrows it."""
    names = {p.name for p in intr.properties}
    if "IntrNoMem" in names:
        reads = writes = False
    else:
        reads = "IntrWriteMem" not in names
        writes = "IntrReadMem" not in names
    side = not (names & _MEMORY_PROPS) or "IntrHasSideEffects" in names
    return reads, writes, side


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
