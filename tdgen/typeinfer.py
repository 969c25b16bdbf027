"""Type inference for DAG patterns, in the style of TableGen's CodeGenDAGPatterns.

Every value in a pattern (node results, leaves, ``$name`` variables -- one variable per
name) gets a set of possible value types. Sources of facts: typed leaves
(``i32:$x``, ``VGPR_32:$x``, ``Offset:$x``), integer literals (integer types), casts
``(i32 ...)``, SDNode profiles (SDTCisVT, SDTCisInt, SDTCisFP, SDTCisVec, SDTCisPtrTy,
SDTCisSameAs, SDTCisSameSizeAs, SDTCVecEltisVT, SDTCisSameNumEltsAs,
SDTCisEltOfVec), PatFrag fragments (expanded with their ``node:$op`` operands bound;
a leaf fragment -- ImmLeaf, PatLeaf -- named as a leaf type, ``simm8:$c``, is its
fragment's value), SDNodeXForms in results (their value typed by where it is used),
intrinsic signatures (overloads and ``LLVMMatchType``), instruction operand classes in
results, and ``set`` destinations. Constraints are applied until nothing changes; a set
becoming empty is a type conflict, reported as ``TypeError_`` wrapping a SpecError::

    path:line:col: record 'R' field 'pattern': expected i32 (SDTCisSameAs<0, 2> of 'add'), found f32

For instruction patterns and ``Pat`` sources, a value still left with several types
among the target's legal types (its register classes' types) is an error too, as in
llvm-tblgen ("Could not infer all types in pattern!"); fragments alone stay polymorphic.
SDTCisPtrTy admits iPTR or any scalar integer type, as llvm-tblgen does. An instruction
pattern's top-level form must not yield a value outside ``set``.
"""

from __future__ import annotations

from typing import Callable

from .builtins import GENERIC_INSTRUCTIONS, GenericInstruction
from .dag import Dag, Leaf, Node
from .errors import Span, SpecError, expected
from .model.fragments import DivergenceFrag, PatFrag
from .model.intrinsics import Intrinsic
from .model.nodes import (
    SDNode,
    SDTCVecEltisVT,
    SDTCisEltOfVec,
    SDTCisFP,
    SDTCisInt,
    SDTCisPtrTy,
    SDTCisSameAs,
    SDTCisSameNumEltsAs,
    SDTCisSameSizeAs,
    SDTCisVT,
    SDTCisVTSmallerThanOp,
    SDTCisVec,
    SDTypeConstraint,
)
from .model.resolved import ResolvedInstruction
from .model.target import Target
from .types import VALUE_TYPES, ValueType

ALL = frozenset(n for n in VALUE_TYPES if n not in ("untyped",))
INTS = frozenset(n for n, v in VALUE_TYPES.items() if v.kind == "int")


class TypeError_(Exception):
    def __init__(self, error: SpecError):
        super().__init__(error.format())
        self.error = error


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _fmt(s: frozenset[str]) -> str:
    names = sorted(s, key=lambda n: (VALUE_TYPES[n].kind, VALUE_TYPES[n].bits, n))
    if len(names) > 4:
        return " or ".join(names[:4]) + " or ..."
    return " or ".join(names) if names else "no type"


def _vt(n: str) -> ValueType:
    return VALUE_TYPES[n]


class _Inference:
    def __init__(self, target: Target, record: str, field: str) -> None:
        self.t = target
        self.record = record
        self.field = field
        self.sets: list[frozenset[str]] = []
        self.named: dict[str, int] = {}
        self.rules: list[Callable[[], bool]] = []
        self.depth = 0
        # (variable, span, what, field) of every value in the matched tree, and of every
        # SDNodeXForm in the result, for check_determined
        self.tracked: list[tuple[int, Span | None, str, str]] = []
        self.track = True

    def note(self, v: int, span: Span | None, what: str) -> int:
        if self.track:
            self.tracked.append((v, span, what, self.field))
        return v

    def check_determined(self) -> None:
        """Every value of the matched tree must end with one type, as llvm-tblgen
        demands ("Could not infer all types in pattern!"): its candidates narrowed to
        the target's legal types (those of its register classes), where iPTR stands
        for any scalar integer."""
        legal = {vt.name for rc in self.t.register_classes for vt in rc.types if hasattr(vt, "name")}
        if not legal:
            return
        for v, span, what, field in self.tracked:
            cands = self.sets[v] & legal if len(self.sets[v]) > 1 else self.sets[v]
            if len(cands) <= 1:
                continue
            if "iPTR" in self.sets[v] and all(_vt(n).kind == "int" for n in cands):
                continue
            self.field = field
            self.fail(span, f"one type for {what} (llvm-tblgen cannot infer it)", cands)

    # -- variables -----------------------------------------------------------
    def new(self, s: frozenset[str] = ALL) -> int:
        self.sets.append(s)
        return len(self.sets) - 1

    def fail(self, span: Span | None, want: str, have: frozenset[str]) -> None:
        raise TypeError_(SpecError(span, expected(want, _fmt(have)), record=self.record, field=self.field))

    def restrict(self, v: int, allowed: frozenset[str], span: Span | None, why: str) -> bool:
        cur = self.sets[v]
        new = cur & allowed
        if not new:
            self.fail(span, f"{_fmt(allowed)} ({why})", cur)
        if new != cur:
            self.sets[v] = new
            return True
        return False

    def filter(self, v: int, pred: Callable[[ValueType], bool], span: Span | None, want: str) -> bool:
        cur = self.sets[v]
        new = frozenset(n for n in cur if pred(_vt(n)))
        if not new:
            self.fail(span, want, cur)
        if new != cur:
            self.sets[v] = new
            return True
        return False

    def same(self, a: int, b: int, span: Span | None, why: str) -> bool:
        if a == b:
            return False
        sa, sb = self.sets[a], self.sets[b]
        both = sa & sb
        if not both:
            self.fail(span, f"{_fmt(sa)} ({why})", sb)
        changed = both != sa or both != sb
        self.sets[a] = both
        self.sets[b] = both
        return changed

    def rule(self, fn: Callable[[], bool]) -> None:
        self.rules.append(fn)
        fn()

    def solve(self) -> None:
        for _ in range(64):
            changed = False
            for r in self.rules:
                changed |= bool(r())
            if not changed:
                return

    def bind_name(self, name: str | None, v: int, span: Span | None) -> int:
        if name is None:
            return v
        prev = self.named.get(name)
        if prev is None:
            self.named[name] = v
            return v
        self.rule(lambda a=prev, b=v: self.same(a, b, span, f"other uses of ${name}"))
        return prev

    # -- leaves --------------------------------------------------------------
    def leaf_types(self, name: str) -> frozenset[str] | None:
        t = self.t
        if name in VALUE_TYPES:
            return frozenset({name})
        rc = t.register_classes_by_name.get(name)
        if rc is not None:
            return frozenset(x.name for x in rc.types)
        ok = t.operand_kinds.get(name)
        if ok is not None:
            return frozenset({ok.vt.name})
        node = t.sdnodes.get(name)
        if node is not None and node.num_operands == 0:
            v = self.new()
            self.apply_profile(node, [v], None)
            return self.sets[v]
        from .builtins import BUILTIN_LEAVES

        if name in BUILTIN_LEAVES:
            vt = BUILTIN_LEAVES[name]
            return frozenset({vt}) if vt else ALL
        return None

    def visit_leaf(self, n: Leaf, frag_env: dict[str, int] | None) -> int:
        if n.kind == "int":
            return self.note(self.new(INTS), n.span, f"the constant {n.value}")
        if n.kind == "var":
            if frag_env is not None and n.name in frag_env:
                return frag_env[n.name]  # type: ignore[index]
            return self.note(self.bind_name(n.name, self.new(), n.span), n.span, f"${n.name}")
        if n.kind == "typed":
            if n.type == "node":
                if frag_env is not None and n.name in frag_env:
                    return frag_env[n.name]  # type: ignore[index]
                return self.new()
            frag = self.leaf_frag(n.type or "")
            if frag is not None:  # an ImmLeaf / PatLeaf as leaf type: its fragment's value
                res = self.expand_frag(frag, [], n.span)
                v = res[0] if res else self.new()
            else:
                types = self.leaf_types(n.type or "")
                v = self.new(types if types is not None else ALL)
            if frag_env is not None and n.name in frag_env:
                b = frag_env[n.name]  # type: ignore[index]
                self.rule(lambda a=b, c=v: self.same(a, c, n.span, f"operand ${n.name}"))
                return b
            what = f"'{n.type}:${n.name}'" if n.name else f"'{n.type}'"
            return self.note(self.bind_name(n.name, v, n.span), n.span, what)
        name = str(n.value)
        if name in VALUE_TYPES and name not in self.t.register_classes_by_name:
            # a value type written as a leaf is a VTSDNode operand: its own type is OtherVT
            return self.new(frozenset({"OtherVT"}))
        frag = self.leaf_frag(name)
        if frag is not None:
            res = self.expand_frag(frag, [], n.span)
            return res[0] if res else self.new()
        types = self.leaf_types(name)
        return self.new(types if types is not None else ALL)

    def leaf_frag(self, name: str):
        """The fragment without operands (ImmLeaf, PatLeaf, ``(ops)`` PatFrag) ``name``
        refers to as a leaf, or None (value types, register classes and operand kinds
        come first)."""
        t = self.t
        if name in VALUE_TYPES or name in t.register_classes_by_name or name in t.operand_kinds:
            return None
        frag = t.patfrags.get(name)
        return frag if frag is not None and not frag.ops else None

    # -- DAG nodes -----------------------------------------------------------
    def apply_profile(self, node: SDNode, slots: list[int], spans: list[Span | None] | None) -> None:
        def sp(i: int) -> Span | None:
            if spans is None or i >= len(spans):
                return None
            return spans[i]

        for c in node.profile.constraints:
            idx = [i for i in c.operands()]
            if any(i >= len(slots) for i in idx):
                continue
            why = f"{c.tablegen} of '{node.name}'"
            self._constraint(c, slots, sp, why)

    def _constraint(self, c: SDTypeConstraint, slots: list[int], sp, why: str) -> None:
        v = slots[c.op]
        span = sp(c.op)
        if isinstance(c, SDTCisVT):
            vt = c.vt.name
            self.rule(lambda: self.restrict(v, frozenset({vt}), span, why))
        elif isinstance(c, SDTCisInt):
            self.rule(lambda: self.filter(v, lambda t: t.is_int, span, f"an integer type ({why})"))
        elif isinstance(c, SDTCisFP):
            self.rule(lambda: self.filter(v, lambda t: t.is_fp, span, f"a floating-point type ({why})"))
        elif isinstance(c, SDTCisVec):
            self.rule(lambda: self.filter(v, lambda t: t.is_vector, span, f"a vector type ({why})"))
        elif isinstance(c, SDTCisPtrTy):
            # like llvm-tblgen: iPTR, or any scalar integer type standing for it
            self.rule(lambda: self.filter(v, lambda t: t.is_ptr or t.kind == "int", span, f"a pointer type ({why})"))
        elif isinstance(c, SDTCVecEltisVT):
            e = c.vt.name
            self.rule(lambda: self.filter(v, lambda t: t.is_vector and t.elem == e, span, f"a vector of {e} ({why})"))
        elif isinstance(c, SDTCisSameAs):
            o = slots[c.other]
            self.rule(lambda: self.same(v, o, sp(c.other) or sp(c.op), why))
        elif isinstance(c, SDTCisSameSizeAs):
            o = slots[c.other]

            def size_rule() -> bool:
                sizes = {_vt(n).bits for n in self.sets[o]}
                ch = self.filter(v, lambda t: t.bits in sizes, span, f"a type of the same size ({why})")
                sizes2 = {_vt(n).bits for n in self.sets[v]}
                return ch | self.filter(o, lambda t: t.bits in sizes2, sp(c.other), f"a type of the same size ({why})")

            self.rule(size_rule)
        elif isinstance(c, SDTCisSameNumEltsAs):
            o = slots[c.other]

            def elts_rule() -> bool:
                counts = {_vt(n).count for n in self.sets[o]}
                return self.filter(v, lambda t: t.count in counts, span, f"the same element count ({why})")

            self.rule(elts_rule)
        elif isinstance(c, SDTCisEltOfVec):
            o = slots[c.other]

            def elt_rule() -> bool:
                ch = self.filter(o, lambda t: t.is_vector, sp(c.other), f"a vector type ({why})")
                elems = {_vt(n).elem for n in self.sets[o]}
                return ch | self.filter(v, lambda t: t.name in elems, span, f"the element type ({why})")

            self.rule(elt_rule)
        # SDTCisVTSmallerThanOp / SDTCisOpSmallerThanOp: ordering facts, not checked

    def visit(self, n: Node, frag_env: dict[str, int] | None = None) -> list[int]:
        if isinstance(n, Leaf):
            return [self.visit_leaf(n, frag_env)]
        t = self.t
        if n.cast_type is not None:
            inner = self.visit(n.args[0], frag_env) if n.args else [self.new()]
            if inner:
                self.rule(lambda v=inner[0]: self.restrict(v, frozenset({n.cast_type}), n.span, f"cast to {n.cast_type}"))
                if n.name is not None:
                    inner = [self.bind_name(n.name, inner[0], n.span)] + inner[1:]
            return inner
        kids = [self.visit(a, frag_env) for a in n.args]
        kid_vars = [k[0] if k else self.new() for k in kids]
        kid_spans = [a.span for a in n.args]
        key = n.op
        results: list[int]
        if key in t.patfrags or n.operator.name in t.frag_classes_by_name:
            frag = t.patfrags.get(key)
            if frag is None:
                fc: DivergenceFrag = t.frag_classes_by_name[n.operator.name]
                frag = fc.instantiate(n.operator.template_args[0])
            results = self.expand_frag(frag, kid_vars, n.span)
        elif key in t.sdnodes:
            node = t.sdnodes[key]
            results = [self.new() for _ in range(node.num_results)]
            self.check_vt_operands(node, n)
            self.apply_profile(node, results + kid_vars, [n.span] * node.num_results + kid_spans)
        elif key in t.intrinsics_by_name:
            results = self.intrinsic(t.intrinsics_by_name[key], kid_vars, kid_spans, n.span)
        elif key in self.instructions:
            results = self.instruction(self.instructions[key], kid_vars, kid_spans, n.span)
        elif key in GENERIC_INSTRUCTIONS:
            results = self.generic(GENERIC_INSTRUCTIONS[key], n, kid_vars)
        else:
            results = [self.new()]
            if not self.track and key in t.xforms_by_name:
                # an SDNodeXForm's value has no type of its own: where it is used must
                # give it one, or llvm-tblgen cannot infer all types of the result
                # (nested instructions take their register class's types and are
                # accepted by llvm-tblgen-19 as they are)
                self.tracked.append((results[0], n.span, f"the value of SDNodeXForm '{key}'", self.field))
        if results and n.name is not None:
            results[0] = self.bind_name(n.name, results[0], n.span)
        for k, r in enumerate(results):
            self.note(r, n.span, f"result {k} of '{key}'" if len(results) > 1 else f"the result of '{key}'")
        return results

    def check_vt_operands(self, node: SDNode, n: Dag) -> None:
        """An operand named by SDTCisVTSmallerThanOp (the width of ``sext_inreg``) is a
        VTSDNode, not a value: like llvm-tblgen ("expects a VT operand"), only a value-type
        leaf written in place may stand there, as in ``(sext_inreg i32:$src, i8)`` -- not a
        variable, a typed value, a constant, a DAG or a fragment operand ``node:$x``."""
        nres = node.num_results
        for c in node.profile.constraints:
            if not isinstance(c, SDTCisVTSmallerThanOp) or c.op < nres:
                continue
            k = c.op - nres
            if k >= len(n.args):
                continue
            arg = n.args[k]
            if isinstance(arg, Leaf) and arg.kind == "name" and str(arg.value) in VALUE_TYPES:
                continue
            found = f"'{arg.render()}'" if isinstance(arg, Leaf) else f"the DAG '({arg.op} ...)'"
            self.fail_text(
                arg.span or n.span,
                f"a value type such as i8 for operand {k} of '{node.name}' "
                f"({c.tablegen}: a VT operand, not a value)",
                found,
            )

    def fail_text(self, span: Span | None, want: str, found: str) -> None:
        raise TypeError_(SpecError(span, expected(want, found), record=self.record, field=self.field))

    instructions: dict[str, ResolvedInstruction] = {}

    def expand_frag(self, frag: PatFrag, kid_vars: list[int], span: Span | None) -> list[int]:
        if self.depth > 32:
            return [self.new()]
        self.depth += 1
        try:
            body = frag.dag
        except Exception:
            self.depth -= 1
            return [self.new()]
        env = {o: kid_vars[i] for i, o in enumerate(frag.ops) if i < len(kid_vars)}
        saved = self.named
        self.named = {}
        # errors inside a fragment are reported at the use site
        try:
            res = self.visit(_respan(body, span), env)
        finally:
            self.named = saved
            self.depth -= 1
        return res

    def intrinsic(self, intr: Intrinsic, kid_vars: list[int], kid_spans: list, span: Span | None) -> list[int]:
        results = [self.new() for _ in intr.results]
        slots = results + kid_vars
        spans = [span] * len(results) + kid_spans
        overloads: list[int] = []
        for i, ty in enumerate(list(intr.results) + list(intr.params)):
            if i >= len(slots):
                break
            v, sp = slots[i], spans[i]
            why = f"{ty.tablegen} in '{intr.name}'"
            if ty.vt is not None:
                self.rule(lambda v=v, s=ty.vt.name, sp=sp, w=why: self.restrict(v, frozenset({s}), sp, w))
            elif ty.match is not None:
                if ty.match < len(overloads):
                    o = overloads[ty.match]
                    self.rule(lambda v=v, o=o, sp=sp, w=why: self.same(o, v, sp, w))
            elif ty.overload == "anyint":
                self.rule(lambda v=v, sp=sp, w=why: self.filter(v, lambda t: t.is_int, sp, f"an integer type ({w})"))
            elif ty.overload == "anyfloat":
                self.rule(lambda v=v, sp=sp, w=why: self.filter(v, lambda t: t.is_fp, sp, f"a floating-point type ({w})"))
            elif ty.overload == "anyvector":
                self.rule(lambda v=v, sp=sp, w=why: self.filter(v, lambda t: t.is_vector, sp, f"a vector type ({w})"))
            if ty.is_overloaded:
                overloads.append(v)
        return results

    def instruction(self, inst: ResolvedInstruction, kid_vars: list[int], kid_spans: list, span: Span | None) -> list[int]:
        for i, op in enumerate(inst.ins):
            if i >= len(kid_vars):
                break
            types = self.leaf_types(op.kind)
            if types is not None:
                self.rule(
                    lambda v=kid_vars[i], s=types, sp=kid_spans[i], w=f"operand ${op.name} of '{inst.name}' is {op.kind}": self.restrict(v, s, sp, w)
                )
        results = []
        for op in inst.outs:
            types = self.leaf_types(op.kind)
            results.append(self.new(types if types is not None else ALL))
        return results


    def generic(self, g: GenericInstruction, n: Dag, kid_vars: list[int]) -> list[int]:
        """A Target.td instruction in a result DAG: REG_SEQUENCE and COPY_TO_REGCLASS
        produce a value of their register class's types; the others (EXTRACT_SUBREG, IMPLICIT_DEF ...) take the type the
        context gives them (the pattern's result type, a cast, an instruction operand)."""
        r = self.new()
        if g.result == "regclass":
            roles = g.roles(len(n.args)) or []
            for role, a in zip(roles, n.args):
                if role == "regclass" and isinstance(a, Leaf):
                    types = self.leaf_types(str(a.value))
                    if types is not None:
                        self.rule(lambda r=r, s=types, sp=n.span, w=f"'{n.op}' makes a {a.value} value": self.restrict(r, s, sp, w))
        return [r]


def _respan(node: Node, span: Span | None) -> Node:
    from dataclasses import replace

    if isinstance(node, Leaf):
        return replace(node, span=span)
    return replace(node, span=span, args=tuple(_respan(a, span) for a in node.args))


def infer(
    target: Target,
    node: Node,
    *,
    record: str,
    field: str,
    instruction: ResolvedInstruction | None = None,
    result: Node | None = None,
    instructions: dict[str, ResolvedInstruction] | None = None,
) -> dict[str, frozenset[str]]:
    """Infer the types of ``node`` (an instruction pattern when ``instruction`` is given,
    else a source DAG, with ``result`` the Pat's result DAG). Returns the type set of
    every named variable; raises TypeError_ on a contradiction."""
    inf = _Inference(target, record, field)
    inf.instructions = instructions if instructions is not None else {}
    if instruction is not None:
        # operands are typed by their register class / operand kind
        for op in instruction.operands:
            types = inf.leaf_types(op.kind)
            if types is not None:
                inf.named[op.name] = inf.new(types)
    if instruction is not None and isinstance(node, Dag) and node.op == "set" and node.args:
        dests = [inf.visit(a)[0] for a in node.args[:-1]]
        src = node.args[-1]
        res = inf.visit(src)
        if len(res) != len(dests):
            what = f"'{src.op}'" if isinstance(src, Dag) else f"'{src.render()}'"
            raise TypeError_(
                SpecError(
                    src.span,
                    expected(
                        f"{_count(len(dests), 'result')} for the destinations of 'set'",
                        f"{_count(len(res), 'result')} of {what}",
                    ),
                    record=record,
                    field=field,
                )
            )
        for d, r, a in zip(dests, res, node.args[:-1]):
            inf.rule(lambda d=d, r=r, sp=a.span: inf.same(r, d, sp, "type of the value assigned by 'set'"))
    else:
        res = inf.visit(node)
        if instruction is not None and res and isinstance(node, Dag):
            # llvm-tblgen: "Top-level forms in instruction pattern should have void types"
            raise TypeError_(
                SpecError(
                    node.span,
                    expected(
                        f"a top-level form without results (assign them with '(set {instruction.outs[0].tablegen if instruction.outs else 'dst'}, ...)')",
                        f"'{node.op}' with {_count(len(res), 'result')}",
                    ),
                    record=record,
                    field=field,
                )
            )
        if result is not None:
            inf.field = "dst"
            inf.track = False
            out = inf.visit(result)
            if out and res:
                inf.rule(lambda a=res[0], b=out[0], sp=result.span: inf.same(a, b, sp, "the source's result type"))
    inf.solve()
    if instruction is not None or result is not None:
        inf.field = field
        inf.check_determined()
    return {k: inf.sets[v] for k, v in sorted(inf.named.items())}
