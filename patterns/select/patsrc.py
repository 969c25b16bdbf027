"""Resolve a target's selection patterns (spec DAG ASTs) into matcher pattern trees.

Input: ``Target.selection_patterns()`` (``tdgen.model.resolved.SelectionPattern``: parsed source
DAG, result DAG, AddedComplexity, source order, record, span). Output: one
``pattern.CompiledPattern`` per pattern variant, with its LLVM complexity and its check
chain. PatFrags (including divergence-predicate frags such as ``UniformBinFrag<add>``)
are inlined and their predicates attached to the fragment root; ``imm``/``timm`` become
constant nodes, and a leaf fragment used as a leaf type (``simm8:$c``: an ImmLeaf, a
PatLeaf) the constant node with its predicate -- an ImmLeaf's ``ImmediateCode`` (C++ over
``Imm``) as kind ``imm``, a PatLeaf's ``PredicateCode`` on a constant (C++ over ``N``) as
kind ``nodeimm``, like LLVM's CheckOpcode + CheckPredicate; intrinsic operators become
``INTRINSIC_WO_CHAIN`` with the intrinsic id as an integer child (counted +5, as TableGen
counts the id operand); commutative operators with a non-leaf child, or with a leaf bound
twice in the pattern, get their commuted variant. Result DAGs get their operand transforms written in as SDNodeXForm operators
(``promote_xforms``), applied by the selector (``xform.apply_xform``). Problems are
collected in the given ``Diagnostics`` (an unknown operator, a leaf type that names
nothing).
"""

from __future__ import annotations

from dataclasses import replace

from tdgen.builtins import GENERIC_INSTRUCTIONS
from tdgen.dag import Dag, Leaf, Operator
from tdgen.errors import SpecError, expected

from patterns.select.pattern import CompiledPattern, PNode, Predicate, lower_checks, pattern_size

__all__ = ["resolve_patterns", "resolve_src", "classify_predicate", "promote_xforms"]

_IMM_NODES = {"imm": "ISD::Constant", "timm": "ISD::TargetConstant"}
_CONSTANT_OPCODES = frozenset(_IMM_NODES.values())


def classify_predicate(name: str, code: str | None, divergence: str | None, *, immediate_code: str | None = None,
                       on_constant: bool = False) -> Predicate | None:
    """The matcher predicate of a fragment: its divergence, else its ``ImmediateCode``
    (an ImmLeaf: kind ``imm``, C++ over ``Imm``), else its ``PredicateCode`` -- on a
    constant root (``on_constant``: a PatLeaf over ``imm``) kind ``nodeimm``, C++ over the
    ConstantSDNode ``N``; otherwise the constant-bus, one-use or named forms."""
    if divergence in ("uniform", "divergent"):
        return Predicate(name, divergence, code or "")
    if immediate_code:
        return Predicate(name, "imm", immediate_code)
    if not code:
        return None
    if "getConstantBusLimit" in code:
        return Predicate(name, "bus", code)
    if "hasOneUse" in code:
        return Predicate(name, "oneuse", code)
    if on_constant:
        return Predicate(name, "nodeimm", code)
    return Predicate(name, "named", code)


class _Resolver:
    def __init__(self, target, diags):
        self.t = target
        self.diags = diags
        self.sdnodes = target.sdnodes
        self.frags = target.patfrags
        self.rcs = target.register_classes_by_name
        self.intr = target.intrinsics_by_name
        self.ok = True

    def err(self, span, what, found, record):
        self.ok = False
        self.diags.add(SpecError(span, expected(what, found), record=record, field="pattern"))

    def leaf_vt_of_class(self, rc) -> str | None:
        types = getattr(rc, "types", ())
        return str(types[0]) if types else None

    def resolve(self, n, record, env=None) -> PNode | None:
        env = env or {}
        if isinstance(n, Leaf):
            return self.leaf(n, record, env)
        if n.cast_type is not None and len(n.args) == 1:
            inner = self.resolve(n.args[0], record, env)
            if inner is None:
                return None
            return _with(inner, vt=n.cast_type, name=n.name or inner.name)
        key = n.op
        frag = self.frags.get(key)
        if frag is not None:
            return self.inline(frag, n.args, n.name, record, env, n.span)
        sd = self.sdnodes.get(key) or self.sdnodes.get(n.operator.name)
        if sd is not None:
            kids = []
            for a in n.args:
                r = self.resolve(a, record, env)
                if r is None:
                    return None
                kids.append(r)
            if sd.opcode in _IMM_NODES.values() or key in _IMM_NODES:
                return PNode("node", opcode=sd.opcode, op_name=key, name=n.name)
            vt = _infer_vt(sd, kids)
            return PNode("node", opcode=sd.opcode, op_name=key, children=tuple(kids), name=n.name,
                         vt=vt, commutative=sd.is_commutative)
        intr = self.intr.get(key)
        if intr is not None:
            kids = [PNode("int", value=intr.ir_name)]
            for a in n.args:
                r = self.resolve(a, record, env)
                if r is None:
                    return None
                kids.append(r)
            opc = "ISD::INTRINSIC_W_CHAIN" if intr.has_chain else "ISD::INTRINSIC_WO_CHAIN"
            return PNode("node", opcode=opc, op_name=key, children=tuple(kids), name=n.name)
        self.err(n.span, "an SDNode, PatFrag or intrinsic as the operator", f"'{key}'", record)
        return None

    def inline(self, frag, args, bind, record, env, span) -> PNode | None:
        ops = tuple(frag.ops)
        if len(args) != len(ops):
            self.err(span, f"{len(ops)} operands for '{frag.name}'", len(args), record)
            return None
        sub = {}
        for name, a in zip(ops, args):
            r = self.resolve(a, record, env)
            if r is None:
                return None
            sub[name] = r
        body = frag.dag
        root = self.resolve(body, record, {"__frag__": sub})
        if root is None:
            return None
        pred = classify_predicate(frag.name, frag.predicate_code, getattr(frag, "divergence", None),
                                  immediate_code=getattr(frag, "immediate_code", None),
                                  on_constant=root.kind == "node" and root.opcode in _CONSTANT_OPCODES
                                  and not root.children)
        if pred is not None and (getattr(frag, "uses_operands", False) or "Operands[" in (frag.predicate_code or "")):
            names = tuple(sub[o].name or "" for o in ops)
            pred = Predicate(pred.name, pred.kind, pred.code, names)
        preds = root.preds + ((pred,) if pred is not None else ())
        if getattr(frag, "has_one_use", False):
            preds += (Predicate(frag.name, "oneuse", "hasOneUse"),)
        return _with(root, preds=preds, name=bind or root.name)

    def leaf(self, n: Leaf, record, env) -> PNode | None:
        sub = env.get("__frag__")
        if n.kind == "int":
            return PNode("int", value=n.value)
        if n.kind == "typed":
            t = n.type
            if t == "node" and sub is not None:
                r = sub.get(n.name)
                if r is None:
                    self.err(n.span, "an operand of the fragment", f"'node:${n.name}'", record)
                return r
            if t in _IMM_NODES:
                return PNode("node", opcode=_IMM_NODES[t], op_name=t, name=n.name)
            if t in self.rcs:
                return PNode("leaf", vt=self.leaf_vt_of_class(self.rcs[t]), regclass=t, name=n.name)
            if _is_vt(t):
                return PNode("leaf", vt=t, name=n.name)
            frag = self.frags.get(t)
            if frag is not None and not frag.ops:
                r = self.inline(frag, (), n.name, record, env, n.span)
                return r
            sd = self.sdnodes.get(t)
            if sd is not None and sd.num_operands == 0:
                return PNode("node", opcode=sd.opcode, op_name=t, name=n.name)
            if t in getattr(self.t, "operand_kinds", {}):
                return PNode("leaf", name=n.name)
            self.err(n.span, "a value type, register class, imm or PatLeaf", f"'{t}'", record)
            return None
        if n.kind == "var":
            if sub is not None and n.name in sub:
                return sub[n.name]
            return PNode("leaf", name=n.name)
        # name leaf
        v = n.value
        if v in _IMM_NODES:
            return PNode("node", opcode=_IMM_NODES[v], op_name=v)
        if v in self.rcs:
            return PNode("leaf", vt=self.leaf_vt_of_class(self.rcs[v]), regclass=v)
        if v == "srcvalue":
            return PNode("leaf")
        frag = self.frags.get(v)
        if frag is not None and not frag.ops:
            return self.inline(frag, (), None, record, env, n.span)
        if _is_vt(v):
            # a value type written as a leaf (the width of sext_inreg) stands for a VTSDNode
            # operand: LLVM's CheckValueType -- the operand is an ISD::VALUETYPE node carrying
            # ``v`` (patterns.dag.nodes.value_type_node). Still a leaf for the pattern size.
            return PNode("leaf", opcode="ISD::VALUETYPE", op_name=v, vt=v)
        self.err(n.span, "a known record name", f"'{v}'", record)
        return None


def _is_vt(t: str) -> bool:
    from tdgen.types import VALUE_TYPES

    return t in VALUE_TYPES


def _infer_vt(sd, kids) -> str | None:
    """Result type from the profile: SDTCisVT on result 0, or SDTCisSameAs(0, k) with a typed child."""
    prof = getattr(sd, "profile", None)
    if prof is None or getattr(prof, "num_results", 0) < 1:
        return None
    nres = prof.num_results
    for c in prof.constraints:
        cname = type(c).__name__
        if c.op == 0 and cname == "SDTCisVT":
            return str(c.vt)
        if c.op == 0 and cname == "SDTCisSameAs":
            k = c.other - nres
            if 0 <= k < len(kids) and kids[k].vt:
                return kids[k].vt
    return None


def _with(p: PNode, **kw) -> PNode:
    d = dict(p.__dict__)
    d.update(kw)
    return PNode(**d)


def _dep_vars(p: PNode) -> frozenset[str]:
    """TableGen's DepVars: names bound more than once in the pattern."""
    seen: dict[str, int] = {}

    def walk(n: PNode) -> None:
        if n.name:
            seen[n.name] = seen.get(n.name, 0) + 1
        for c in n.children:
            walk(c)

    walk(p)
    return frozenset(k for k, v in seen.items() if v > 1)


def _variants(p: PNode, dep: frozenset[str] | None = None) -> list[PNode]:
    """All commuted variants of ``p`` (TableGen's GenerateVariants for SDNPCommutative).
    Swapping two plain leaves gives an isomorphic pattern -- dropped, as TableGen's
    isIsomorphicTo does -- unless one of them is a dependent variable (a name the pattern
    binds twice, e.g. ``x`` in ``(or (and y, x), (and z, (not x)))``)."""
    if dep is None:
        dep = _dep_vars(p)
    if p.kind != "node" or not p.children:
        return [p]
    kid_vars = [_variants(c, dep) for c in p.children]
    combos: list[tuple[PNode, ...]] = [()]
    for kv in kid_vars:
        combos = [c + (k,) for c in combos for k in kv]
    out = [_with(p, children=c) for c in combos]
    if p.commutative and len(p.children) >= 2:
        a, b = p.children[0], p.children[1]
        trivially_same = (a.kind == "leaf" and b.kind == "leaf" and not a.preds and not b.preds
                          and a.name not in dep and b.name not in dep)
        if not trivially_same:
            out += [_with(p, children=(c[1], c[0]) + c[2:]) for c in combos]
    out = [v for v in out if _can_match(v)]
    uniq, seen = [], set()
    for v in out:
        r = v.render()
        if r not in seen:
            seen.add(r)
            uniq.append(v)
    return uniq


def _rhs_only(c: PNode) -> bool:
    return c.kind == "int" or (c.kind == "node" and c.opcode in ("ISD::Constant", "ISD::ConstantFP") and not c.children)


def _can_match(p: PNode) -> bool:
    """TableGen's canPatternMatch: an immediate may sit only on the RHS of a commutative node."""
    if p.kind != "node":
        return True
    if p.commutative and p.children and not _rhs_only(p.children[-1]):
        if any(_rhs_only(c) for c in p.children[:-1]):
            return False
    return all(_can_match(c) for c in p.children)


def _dst_cost(dst, target) -> tuple[int, int]:
    insts = target.instructions
    cost = size = 0
    for n in dst.walk():
        if isinstance(n, Dag) and n.op in GENERIC_INSTRUCTIONS and n.op not in insts:
            cost += 1  # Target.td's REG_SEQUENCE, IMPLICIT_DEF ... are instructions too (CodeSize 0)
        elif isinstance(n, Dag) and n.op in insts:
            cost += 1
            ri = insts[n.op]
            if ri.field("usesCustomInserter", False):
                cost += 10
            size += int(ri.field("CodeSize", 0) or 0)
    return cost, size


def _leaf_xform(target, type_name: str | None):
    """The OperandTransform of the leaf fragment ``type_name`` (an ImmLeaf / PatLeaf
    with an ``xform``), or None."""
    frag = target.patfrags.get(type_name) if type_name else None
    return getattr(frag, "xform", None) if frag is not None and not frag.ops else None


def promote_xforms(target, sp) -> tuple[object, dict]:
    """The result DAG of ``sp`` with each operand transform written as an SDNodeXForm
    operator (TableGen's PromoteXForms), and the SDNodeXForms it applies (name -> spec
    for ``xform.apply_xform``). A ``Pat`` result applies the xform of a leaf
    fragment it names (``NegSubInlineConst32:$src1`` -> ``(NegateImm
    NegSubInlineConst32:$src1)``) and the SDNodeXForms it calls (``(NegateImm $c)``); an
    instruction's own pattern applies, to each input operand, the xform of the leaf
    fragment that operand is bound to in the source."""
    xforms = target.xforms_by_name
    used: dict = {}

    def note(x) -> str:
        sp_ = x.span
        where = (sp_.path, sp_.line, sp_.col) if sp_ is not None else None  # (a literal: see xform.apply_xform)
        used[x.name] = (x.name, x.node, x.code, x.model, where)
        return x.name

    def wrap(leaf: Leaf, x) -> Dag:
        return Dag(Operator(note(x), (), leaf.span), (leaf,), None, leaf.span)

    dst = sp.dst
    if not isinstance(dst, Dag):
        return dst, used
    if sp.instruction is not None and sp.record == sp.instruction and sp.record in target.instructions:
        bound = {}
        for n in sp.src.walk():
            if isinstance(n, Leaf) and n.kind == "typed" and n.name is not None:
                x = _leaf_xform(target, n.type)
                if x is not None:
                    bound.setdefault(n.name, x)
        if not bound:
            return dst, used
        args = tuple(wrap(a, bound[a.name]) if isinstance(a, Leaf) and a.name in bound else a for a in dst.args)
        return replace(dst, args=args), used

    def visit(n):
        if isinstance(n, Leaf):
            x = _leaf_xform(target, n.type) if n.kind == "typed" else None
            return wrap(n, x) if x is not None else n
        if n.op in xforms:
            note(xforms[n.op])
        return replace(n, args=tuple(visit(a) for a in n.args))

    return visit(dst), used


def resolve_src(target, sp, diags) -> PNode | None:
    r = _Resolver(target, diags)
    return r.resolve(sp.src, sp.record)


def resolve_patterns(target, diags) -> list[CompiledPattern]:
    res = _Resolver(target, diags)
    out: list[CompiledPattern] = []
    for sp in target.selection_patterns():
        src = sp.src
        root = res.resolve(src, sp.record)
        if root is None:
            continue
        if root.vt is None and sp.results:
            rt = sp.results[0].type if isinstance(sp.results[0], Leaf) else None
            if rt is not None:
                if rt in res.rcs:
                    rt = res.leaf_vt_of_class(res.rcs[rt])
                root = _with(root, vt=rt)
        if root.vt is None and isinstance(sp.dst, Dag) and sp.dst.cast_type:
            root = _with(root, vt=sp.dst.cast_type)
        cost, size = _dst_cost(sp.dst, target)
        dst, xforms = promote_xforms(target, sp)
        for vi, v in enumerate(_variants(root)):
            if v.kind != "node":
                opcode = "ISD::Constant" if v.kind == "int" else "<leaf>"
            else:
                opcode = v.opcode
            checks, _b, _n = lower_checks(v)
            out.append(CompiledPattern(
                index=-1, record=sp.record, src=v, dst=dst,
                complexity=pattern_size(v) + sp.added_complexity, added_complexity=sp.added_complexity,
                order=sp.order, checks=checks, root_opcode=opcode, result_vt=v.vt, span=sp.span,
                variant=vi, dst_cost=cost, dst_size=size,
                spec_text=src.render() if vi == 0 else f"{src.render()} [commuted]", xforms=xforms))
    return out
