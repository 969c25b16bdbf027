"""Checks of instruction patterns and ``Pat`` records, their result DAGs included.

An instruction's operands are register classes or operand kinds with unique names, its
implicit registers exist; each of its patterns sets only its outputs, names only its
operands, uses every input and type-checks. A ``Pat``'s source is a checked tree; its
result is an instruction DAG with the right operand count whose variables the source
binds, where Target.td's generic instructions (``REG_SEQUENCE`` ...) get a sub-register
index / register class where their operands take one, and an SDNodeXForm (written
``(NegateImm $c)`` or implied by a leaf fragment's ``xform``) applies to an operand bound
to a constant; the result's bare names are registers, register classes or sub-register
indices, and it uses every name the source binds once (llvm-tblgen-19's "dead named
input").
"""

from __future__ import annotations

from ..builtins import GENERIC_INSTRUCTIONS
from ..dag import Dag, Leaf, Node
from ..errors import TdgenError, expected
from ..model.fragments import SDNodeXForm
from ..model.record import parse_field
from ..model.resolved import ResolvedInstruction
from ..types import VALUE_TYPES
from .base import plural
from .trees import TreeChecks


class InstructionChecks(TreeChecks):
    """Checks of resolved instructions and their patterns, and of ``Pat`` records."""

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
        cons = inst.field("Constraints", "")
        if isinstance(cons, str) and cons:
            for problem in constraint_problems(cons, [o.name for o in inst.outs], [o.name for o in inst.ins]):
                self.err(inst.span, expected("operand constraints '@earlyclobber $op' or '$dst = $src' separated "
                                             "by commas, each naming operands of the instruction", problem),
                         inst.name, "Constraints")
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
                    if isinstance(dst, Leaf) and dst.kind == "typed" and dst.type not in VALUE_TYPES \
                            and dst.type not in self.t.register_classes_by_name:
                        # (llvm-tblgen-19: "set destination should be a register!")
                        self.err(dst.span, expected("a value type or register class as the type of a set destination",
                                                    f"'{dst.type}'"), inst.name, "pattern")
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
            if bad or not self.types_known():
                continue
            from ..typeinfer import TypeError_, infer

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
                            f"{plural(len(inst.ins), 'operand')} for '{inst.name}' ({', '.join(o.name for o in inst.ins)})",
                            len(n.args),
                        ),
                        name,
                        "dst",
                    )
                    ok = False
            elif n.name is not None and n.name not in bound:
                self.err(n.span, expected(f"a variable bound in the source ({', '.join(sorted(bound)) or 'none'})", f"'${n.name}'"), name, "dst")
                ok = False
            elif n.kind == "name" and str(n.value) not in self.result_leaf_names():
                # (llvm-tblgen-19 emits only these as a result's bare leaves: any other record
                # -- an operand kind, a value type, a leaf node -- crashes its matcher generator)
                self.err(n.span, expected("a register, register class or sub-register index (a bare name in a "
                                          "result; an operand of the source is written '$name')",
                                          f"'{n.value}'"), name, "dst")
                ok = False
            elif n.kind in ("name", "typed") and not self.check_leaf(n, name, "dst", None):
                ok = False
        if not ok or not self.types_known():
            return
        from ..typeinfer import TypeError_, infer

        try:
            infer(self.t, src, record=name, field="src", result=dst, instructions=insts)
        except TypeError_ as e:
            self.d.add(e.error)
            return
        self.check_dead_inputs(src, inner, name)

    def result_leaf_names(self) -> frozenset[str]:
        """The bare names a result DAG may hold: registers, register classes,
        sub-register indices, ``zero_reg`` and ``undef_tied_input``."""
        got = self.__dict__.get("_result_leaf_names")
        if got is None:
            t = self.t
            got = frozenset({"zero_reg", "undef_tied_input", *t.physical_registers,
                             *(r for rc in t.register_classes for r in (rc.name, *rc.registers, *rc.subreg_indices))})
            self.__dict__["_result_leaf_names"] = got
        return got

    def check_dead_inputs(self, src: Dag, dst: Dag, record: str) -> bool:
        """Every name the source binds once is used by the result (llvm-tblgen-19:
        "dead named input"; a name bound twice ties two operands and may go unused)."""
        uses: dict[str, list[Node]] = {}
        for n in src.walk():
            if n.name is not None:
                uses.setdefault(n.name, []).append(n)
        used = set(dst.variables())
        ok = True
        for var, nodes in uses.items():
            if len(nodes) == 1 and var not in used:
                self.err(nodes[0].span, expected(f"a result that uses '${var}' (bound once in the source)",
                                                 "none that does"), record, "src")
                ok = False
        return ok

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
            self.err(n.span, expected(f"operands {g.shape()}", f"{plural(len(n.args), 'operand')}"), record, "dst")
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


def _binding(src: Node, name: str) -> Node | None:
    """The first node of ``src`` that binds ``$name``."""
    for n in src.walk():
        if n.name == name:
            return n
    return None


_WS = " \t"


def constraint_problems(text: str, outs: list[str], ins: list[str]) -> list[str]:
    """What llvm-tblgen-19's instruction-constraint parser rejects in ``text`` (the
    ``Constraints`` string), one phrase per rejected constraint: the string is split at
    commas (empty pieces skipped); a piece whose first word -- up to the first blank,
    leading blanks kept in it -- is ``@earlyclobber`` names one operand after it; any
    other is a tie ``$a = $b``, the ``=`` neither first nor without a blank on each side,
    both sides operands (``$name``), one an output and the other an input (either
    order); an input takes one constraint, an output one tie."""
    names = list(outs) + list(ins)
    out: list[str] = []
    seen: set[str] = set()
    tied: set[str] = set()

    def operand(word: str, piece: str) -> int | None:
        if not word.startswith("$") or word[1:] not in names:
            out.append(f"'{piece}' naming '{word}', not an operand ($" + ", $".join(names) + ")")
            return None
        return names.index(word[1:])

    k = 0
    while k < len(text):
        if text[k] == ",":
            k += 1
            continue
        end = text.find(",", k)
        end = len(text) if end < 0 else end
        piece = text[k:end]
        k = end
        blank = min((i for i, c in enumerate(piece) if c in _WS), default=len(piece))
        start = next((i for i, c in enumerate(piece) if c not in _WS), len(piece))
        word = piece[start:blank] if blank >= start else piece[start:]
        if word == "@earlyclobber":
            rest = piece[blank + 1:].lstrip(_WS)
            if not rest:
                out.append(f"'{piece}' (an @earlyclobber naming no operand)")
                continue
            at = operand(rest, piece)
            if at is not None:
                if rest in seen:
                    out.append(f"'{piece}' (a second constraint on {rest})")
                seen.add(rest)
            continue
        eq = piece.find("=")
        if eq <= 0 or eq + 1 >= len(piece) or piece[eq + 1] not in _WS or piece[eq - 1] not in _WS:
            out.append(f"'{piece}'")
            continue
        dst, src = piece[:eq].strip(_WS), piece[eq + 1:].strip(_WS)
        a, b = operand(dst, piece), operand(src, piece)
        if a is None or b is None:
            continue
        if (a < len(outs)) == (b < len(outs)):
            out.append(f"'{piece}' (a tie of two {'outputs' if a < len(outs) else 'inputs'}: one output, one input)")
            continue
        dst, src = (dst, src) if a < len(outs) else (src, dst)  # (either side may name the output)
        if dst in tied:
            out.append(f"'{piece}' (a second operand tied to {dst})")
        elif src in seen:
            out.append(f"'{piece}' (a second constraint on {src})")
        tied.add(dst)
        seen.add(src)
    return out
