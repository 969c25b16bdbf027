"""Matcher-table compiler: a target's selection patterns as sorted check chains, switched on opcode.

Built once per target (cached in memory by target identity), in the manner of LLVM's
DAGISelEmitter:

1. Each ``SelectionPattern`` source DAG is resolved into a pattern tree (``PNode``):
   PatFrags are inlined (their predicate -- divergence predicates included -- attaches to
   the fragment's root), operators become ISD/target opcodes, leaves become typed
   operands, immediates or integer constants. Commutative operators with a non-leaf
   child also get their commuted variant, as TableGen's GenerateVariants does.
2. Complexity is LLVM's ``getPatternSize`` + ``AddedComplexity``: 3 per node, +2 for a
   constant root, +1 for a node with a predicate, +5 for an integer child, +1 for a leaf
   child with a predicate; patterns are stable-sorted by (vector result, FP result,
   -complexity, result instruction count, result CodeSize, source order) -- the
   PatternSortingPredicate order.
3. Each pattern is lowered to a flat chain of checks (``child``, ``opcode``, ``type``,
   ``predicate``, ``integer``, ``same-as``), each with a text used by ``explain``.
4. The chains are grouped into a table keyed by the root opcode (LLVM's SwitchOpcode), so
   matching a node only tries the patterns rooted at its opcode, in complexity order.
   Each group is compiled (on first use) into one Python function: a switch on the root
   type when its patterns check different ones (SwitchType), then the chains with the
   checks that consecutive patterns share tested once (FactorNodes' scopes). The
   selector (patterns.isel) compiles the same code with each pattern's result DAG
   written in where it matches. Compiled code is kept per process by source text
   (``compile_source``) and can come from the on-disk target cache (``store_code``).

Predicates are executable: divergence predicates test ``SDNode.divergent``; immediate
predicates are the C++ ``ImmLeaf`` code for the simple integer forms TableGen specs use
(``Imm >= -16 && Imm <= 64``, ``isInt<16>(Imm)``, ``isPowerOf2_32(Imm)``), evaluated on the
constant; ``hasOneUse`` predicates use the node's use count; and a small registry covers
named target predicates (``register_predicate``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from tdgen.errors import Diagnostics

__all__ = ["PNode", "CompiledPattern", "MatcherTable", "build_table", "register_predicate",
           "pattern_size", "Predicate"]


@dataclass(frozen=True)
class Predicate:
    """A check on one node: ``kind`` is uniform/divergent/imm/code/oneuse; ``name`` the frag."""

    name: str
    kind: str
    code: str = ""
    operands: tuple[str, ...] = ()  # bound names the predicate reads (PredicateCodeUsesOperands)

    def describe(self) -> str:
        return f"{self.name} predicate"


@dataclass(frozen=True)
class PNode:
    """A resolved pattern tree node.

    ``kind``: ``"node"`` (an SDNode with ``opcode``/``children``), ``"leaf"`` (any value of
    type ``vt``, bound to ``name``; with ``opcode`` ``ISD::VALUETYPE`` a value-type leaf
    such as sext_inreg's ``i8``: a VTSDNode carrying ``vt``), ``"int"`` (the integer
    constant ``value``)."""

    kind: str
    opcode: str | None = None
    op_name: str | None = None
    children: tuple["PNode", ...] = ()
    vt: str | None = None
    name: str | None = None
    value: int | None = None
    preds: tuple[Predicate, ...] = ()
    regclass: str | None = None
    commutative: bool = False

    def render(self) -> str:
        if self.kind == "int":
            return str(self.value)
        if self.kind == "leaf":
            t = self.regclass or self.vt or "?"
            return f"{t}:${self.name}" if self.name else t
        head = self.op_name or self.opcode or "?"
        if self.preds:
            head = "<" + ",".join(p.name for p in self.preds) + ">" + head
        inner = " ".join([head] + [c.render() for c in self.children])
        s = f"({inner})"
        return s + (f":${self.name}" if self.name else "")


_EXTRA_PREDICATES: dict[str, Callable] = {}


def register_predicate(name: str, fn: Callable) -> None:
    """Give the PatFrag ``name`` an executable predicate ``fn(sdnode, bound_children) -> bool``."""
    _EXTRA_PREDICATES[name] = fn


def pattern_size(p: PNode) -> int:
    """LLVM's getPatternSize over a resolved pattern tree."""
    size = 3
    if p.kind == "int":
        return size + 2
    if p.preds:
        size += 1
    for c in p.children:
        if c.kind == "node":
            size += pattern_size(c)
        elif c.kind == "int":
            size += 5
        elif c.preds:
            size += 1
    return size


@dataclass
class CompiledPattern:
    index: int
    record: str
    src: PNode
    dst: object
    complexity: int
    added_complexity: int
    order: int
    checks: tuple
    root_opcode: str
    result_vt: str | None
    span: object = None
    variant: int = 0
    dst_cost: int = 1
    dst_size: int = 0
    spec_text: str = ""  # the source DAG as written in the spec

    def src_text(self) -> str:
        return self.spec_text or self.src.render()

    def dst_text(self) -> str:
        r = getattr(self.dst, "render", None)
        return r() if r else str(self.dst)


# ---------------------------------------------------------------------------------------
# Immediate predicate code (C++ subset) -> Python


_IMM_ARG = r"(Imm|N->getSExtValue\(\)|N->getZExtValue\(\))"
_IMM_TOKEN = (r"isInt<(\d+)>\(" + _IMM_ARG + r"\)|isUInt<(\d+)>\(" + _IMM_ARG + r"\)|isPowerOf2_(32|64)\("
              + _IMM_ARG + r"\)|&&|\|\||!(?!=)|\bImm\b|\bN->getSExtValue\(\)|\bN->getZExtValue\(\)")


def compile_imm_code(code: str) -> Callable[[int, int], bool] | None:
    """Translate a simple ImmLeaf body to a function of the immediate.

    The function takes ``(Imm, bits)``: ``Imm`` is the constant as ``N->getSExtValue()``
    gives it (sign-extended), ``bits`` its width, so that ``N->getZExtValue()`` and the
    unsigned helpers see the zero-extended value. Understood: comparisons and arithmetic
    on ``Imm`` / ``N->getSExtValue()`` / ``N->getZExtValue()``, ``isInt<N>(x)``,
    ``isUInt<N>(x)``, ``isPowerOf2_32/64(x)``, ``&&``, ``||``, ``!``, integer literals.
    Anything else gives None (the caller decides what an opaque predicate means)."""
    body = code.strip()
    if body.startswith("return"):
        body = body[len("return"):]
    body = body.rstrip().rstrip(";").strip()
    if not body or any(c in body for c in ";{/%?"):
        # (statements, and the operators whose C++ meaning on negative values or whose
        # syntax Python does not share: / % ?:)
        return None
    if re.search(r"(?<!&)&(?!&)|(?<!\|)\|(?!\|)|\^", body) and re.search(r"[=!<>]=|(?<![<>])[<>](?![<>])", body):
        return None  # bitwise & | ^ next to a comparison: C++ and Python group them differently

    def value(t: str) -> str:
        # Imm and getSExtValue: the sign-extended int64; getZExtValue: zero-extended
        return "(Imm & ((1 << bits) - 1))" if t == "N->getZExtValue()" else "Imm"

    def repl(m: re.Match) -> str:
        t = m.group(0)
        if m.group(1):  # isInt<N>(x): x as int64 fits N signed bits
            return f"(-(1<<({m.group(1)}-1)) <= {value(m.group(2))} < (1<<({m.group(1)}-1)))"
        if m.group(3):  # isUInt<N>(x): x as uint64 fits N bits
            return f"(0 <= ({value(m.group(4))} & {(1 << 64) - 1}) < (1<<{m.group(3)}))"
        if m.group(5):  # isPowerOf2_32/64(x): x truncated to that width
            u = f"({value(m.group(6))} & {(1 << int(m.group(5))) - 1})"
            return f"({u} != 0 and ({u} & ({u} - 1)) == 0)"
        if t == "&&":
            return " and "
        if t == "||":
            return " or "
        if t == "!":
            return " not "
        return value(t)

    # integer literals lose C++'s suffixes (0x80000000u, 1ULL); true/false become Python's
    body = re.sub(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b", r"\1", body)
    body = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", body))
    py = re.compile(_IMM_TOKEN).sub(repl, body)
    rest = re.sub(r"\b0[xX][0-9a-fA-F]+\b|\b(Imm|bits|and|or|not|True|False)\b", "", py)
    if re.search(r"[A-Za-z_]\w*", rest):
        return None
    try:
        fn = eval(f"lambda Imm, bits: True if ({py}) else False", {"__builtins__": {}})  # noqa: S307 - vetted tokens
        fn(0, 32)
    except Exception:  # noqa: BLE001
        return None
    return fn


# ---------------------------------------------------------------------------------------
# Check chains


def _lower(src: PNode) -> tuple:
    """Flat check list. Slots: 0 = root; ``("child", parent, i, slot)`` loads a child."""
    checks: list[tuple] = []
    bound: dict[str, int] = {}
    nslots = [1]

    def visit(p: PNode, slot: int, path: str) -> None:
        if p.kind == "node":
            checks.append(("opcode", slot, p.opcode, f"{path} is {p.op_name or p.opcode}"))
        elif p.opcode is not None:  # a value-type leaf: the operand is a VTSDNode
            checks.append(("opcode", slot, p.opcode, f"{path} is a value type operand"))
        if p.vt is not None:
            checks.append(("type", slot, p.vt, f"{path} has type {p.vt}"))
        if p.kind == "int":
            checks.append(("int", slot, p.value, f"{path} is the constant {p.value}"))
        for pr in p.preds:
            checks.append(("pred", slot, pr, f"{pr.describe()} on {path}"))
        if p.name is not None:
            if p.name in bound:
                checks.append(("same", slot, bound[p.name], f"{path} is the same value as ${p.name}"))
            else:
                bound[p.name] = slot
        for i, c in enumerate(p.children):
            s = nslots[0]
            nslots[0] += 1
            checks.append(("child", slot, i, s, f"{path} has operand {i}"))
            visit(c, s, f"{path}.op{i}")

    visit(src, 0, "root")
    # predicates that read operands run once every operand is recorded (as LLVM's
    # CheckPredicateWithOperands does)
    moved = [c for c in checks if c[0] == "pred" and c[2].operands]
    checks = [c for c in checks if not (c[0] == "pred" and c[2].operands)]
    for c in moved:
        pr = c[2]
        slots = tuple(bound.get(o, -1) for o in pr.operands)
        checks.append(("predops", c[1], pr, c[3], slots))
    # operand-count check first for each node with children (cheap, keeps child loads safe)
    return tuple(checks), dict(bound), nslots[0]


@dataclass
class MatchResult:
    pattern: CompiledPattern
    slots: list
    bindings: dict


class MatcherTable:
    """Patterns grouped by root opcode, each group in LLVM's sort order."""

    def __init__(self, patterns: list[CompiledPattern]):
        self.patterns = patterns
        self.by_opcode: dict[str, list[CompiledPattern]] = {}
        for p in patterns:
            self.by_opcode.setdefault(p.root_opcode, []).append(p)
        self._bindings = {id(p): _lower(p.src)[1] for p in patterns}
        self._compiled: dict[str, Callable | None] = {}
        self._emit_caches: dict[int, tuple] = {}

    def __getstate__(self):
        return {"patterns": self.patterns, "bindings": [self._bindings[id(p)] for p in self.patterns]}

    def __setstate__(self, state):
        pats = state["patterns"]
        bindings = state.get("bindings")
        if bindings is None or len(bindings) != len(pats):
            self.__init__(pats)
            return
        self.patterns = pats
        self.by_opcode = {}
        for p in pats:
            self.by_opcode.setdefault(p.root_opcode, []).append(p)
        self._bindings = {id(p): b for p, b in zip(pats, bindings)}
        self._compiled = {}
        self._emit_caches = {}

    def candidates(self, opcode: str) -> list[CompiledPattern]:
        return self.by_opcode.get(opcode, [])

    def run(self, p: CompiledPattern, node, slots=None) -> tuple[bool, int, list]:
        """Run ``p``'s checks on ``node``: (matched, index of first failing check, slots)."""
        if slots is None:
            slots = [None] * 17
        slots[0] = node
        for i, chk in enumerate(p.checks):
            k = chk[0]
            n = slots[chk[1]]
            if k == "child":
                ops = n.ops
                if chk[2] >= len(ops):
                    return False, i, slots
                if chk[3] >= len(slots):
                    slots.extend([None] * 16)
                slots[chk[3]] = ops[chk[2]]
            elif k == "opcode":
                if n.opcode != chk[2]:
                    return False, i, slots
            elif k == "type":
                if n.vt != chk[2]:
                    return False, i, slots
            elif k == "int":
                if n.value != chk[2] or n.opcode not in ("ISD::Constant", "ISD::TargetConstant"):
                    return False, i, slots
            elif k == "pred":
                if not eval_predicate(chk[2], n):
                    return False, i, slots
            elif k == "same":
                if slots[chk[2]] is not n:
                    return False, i, slots
            elif k == "predops":
                if not eval_predicate(chk[2], n, [slots[s] if s >= 0 else None for s in chk[4]]):
                    return False, i, slots
        return True, len(p.checks), slots

    def match(self, node) -> MatchResult | None:
        """The first pattern (in table order) whose checks all pass on ``node``."""
        fn = self.matcher_for(node.opcode)
        if fn is None:
            return None
        hit = fn(node)
        if hit is None:
            return None
        p, env = hit
        b = self._bindings[id(p)]
        slots = [None] * (max(b.values(), default=0) + 1)
        slots[0] = node
        for name, s in b.items():
            slots[s] = env[name]
        return MatchResult(p, slots, b)

    def matcher_for(self, opcode: str):
        """The compiled matcher of the patterns rooted at ``opcode``, or None when there are
        none: ``fn(node) -> (pattern, {bound name: node}) | None``. Compiled on first use
        (only the opcodes a DAG contains are ever compiled)."""
        fn = self._compiled.get(opcode, _UNCOMPILED)
        if fn is _UNCOMPILED:
            pats = self.by_opcode.get(opcode)
            fn = _compile_switch(pats, self._bindings) if pats else None
            self._compiled[opcode] = fn
        return fn

    def bindings(self, p: CompiledPattern) -> dict:
        return self._bindings[id(p)]

    def emit_cache(self, target) -> tuple[dict, dict]:
        """Two dictionaries the selector (patterns.isel) keeps its compiled result plans
        and emitters in, keyed by ``id`` of this table's patterns, for ``target``: shared by
        every function selected with this table, so each is compiled once per process."""
        hit = self._emit_caches.get(id(target))
        if hit is None or hit[0] is not target:
            hit = self._emit_caches[id(target)] = (target, {}, {})
        return hit[1], hit[2]


_UNCOMPILED = object()


def _root_type(p: CompiledPattern) -> str | None:
    for chk in p.checks:
        if chk[0] == "type" and chk[1] == 0:
            return chk[2]
    return None


# Compiled code by source text. A target's selectors can also come precompiled from the
# on-disk target cache (patterns.isel.IselBundle): ``store_code`` makes them available by
# a digest of the source they were compiled from, so a process that generates the same
# source only unmarshals the stored code object; any other source is compiled.
_CODE: dict = {}  # (source text, file name) -> code object
_STORED: dict = {}  # digest of (source text, file name) -> marshalled code object
_RECORDING: list = []  # while recorded_sources() runs: the list it fills


def _digest(text: str, filename: str) -> bytes:
    from tdgen.target_cache import _hasher

    return _hasher(f"{filename}\0{text}".encode(), digest_size=20).digest()


def compile_source(text: str, filename: str):
    """``compile(text, filename, "exec")``, once per process, and from the stored code
    (``store_code``) when it holds this exact source."""
    key = (text, filename)
    code = _CODE.get(key)
    if code is None:
        if _STORED:
            blob = _STORED.get(_digest(text, filename))
            if blob is not None:
                import marshal

                try:
                    code = marshal.loads(blob)
                except Exception:  # noqa: BLE001 - a bad entry is only a miss
                    code = None
        if code is None:
            code = compile(text, filename, "exec")
        _CODE[key] = code
    if _RECORDING:
        _RECORDING[-1].append((_digest(text, filename), code))
    return code


def store_code(entries: dict) -> None:
    """Make precompiled code objects (digest -> marshalled code, as ``recorded_sources``
    lists them) available to ``compile_source``."""
    _STORED.update(entries)


class recorded_sources:
    """``with recorded_sources() as made:`` -- ``made`` lists (digest, code object) of
    every source ``compile_source`` is asked for inside the block."""

    def __enter__(self) -> list:
        made: list = []
        _RECORDING.append(made)
        return made

    def __exit__(self, *exc) -> None:
        _RECORDING.pop()


def _compile_switch(pats: list[CompiledPattern], bindings: dict, hit=None) -> Callable:
    """The matcher of one root opcode. When its patterns check different root types, a
    switch on the node's type comes first (LLVM's SwitchType after SwitchOpcode): each
    type gets the patterns checking that type or none, in table order, so a node only
    tries the patterns that can match its type. ``hit``: see ``_compile_group``."""
    types = sorted({t for t in map(_root_type, pats) if t is not None})
    if len(types) <= 1:
        return _compile_group(pats, bindings, hit)
    untyped = [p for p in pats if _root_type(p) is None]
    by_vt = {t: _compile_group([p for p in pats if _root_type(p) in (t, None)], bindings, hit) for t in types}
    get = by_vt.get
    if hit is None:
        other = _compile_group(untyped, bindings) if untyped else (lambda _n: None)

        def switch(n0):
            return get(n0.vt, other)(n0)
    else:
        other = _compile_group(untyped, bindings, hit) if untyped else (lambda _n, _s, _o: False)

        def switch(n0, sel, out):  # (the selector form, see _compile_group)
            return get(n0.vt, other)(n0, sel, out)

    return switch


def _compile_group(pats: list[CompiledPattern], bindings: dict, hit=None) -> Callable:
    """One Python function trying ``pats`` in order. Each pattern's check chain becomes a
    sequence of tests on local variables (``n<slot>``, assigned as children are loaded),
    so a failing check costs one comparison and no call or allocation. As
    DAGISelEmitter's FactorNodes does, consecutive patterns that start with the same
    checks share them: the common checks are tested once, in an ``if`` whose body tries
    those patterns' remaining checks in order, and a pattern's own tail is one ``and``
    chain. Falling out of a shared block continues with the next pattern, so the first
    pattern (in table order) whose checks all pass is returned, as before factoring.
    Checks that are not simple attribute tests (immediate code, named and operand
    predicates) call ``eval_predicate`` -- the same code ``run`` uses, so the two agree by
    construction; ``tests/test_matcher_tblgen`` compares them on every node of a
    generated kernel.

    Without ``hit``: ``fn(n0) -> (pattern, {bound name: node}) | None``. With ``hit``, the
    selector form ``fn(n0, sel, out) -> bool``: ``hit(k, p, slots, ns)`` gives the source
    lines run when pattern ``p`` (the ``k``-th) matches, with its bound names' slots
    (``n<slot>`` variables) -- they end in a ``return`` -- and may add names to ``ns``;
    no pattern matching returns False."""
    ns: dict = {"_ev": eval_predicate, "_CONST": ("ISD::Constant", "ISD::TargetConstant")}
    preds: dict = {}  # id(predicate) -> its name in ``ns`` (equal checks must read equal)

    def pred_name(pr) -> str:
        name = preds.get(id(pr))
        if name is None:
            name = preds[id(pr)] = f"R{len(preds)}"
            ns[name] = pr
        return name

    chains = []  # per pattern: its checks as ("c", condition) / ("a", variable, expression)
    for k, p in enumerate(pats):
        items: list = []
        for chk in p.checks:
            kind = chk[0]
            n = f"n{chk[1]}"
            if kind == "child":
                items.append(("c", f"len({n}.ops) > {chk[2]}"))
                items.append(("a", f"n{chk[3]}", f"{n}.ops[{chk[2]}]"))
            elif kind == "opcode":
                items.append(("c", f"{n}.opcode == {chk[2]!r}"))
            elif kind == "type":
                items.append(("c", f"{n}.vt == {chk[2]!r}"))
            elif kind == "int":
                items.append(("c", f"{n}.value == {chk[2]!r} and {n}.opcode in _CONST"))
            elif kind == "same":
                items.append(("c", f"n{chk[2]} is {n}"))
            elif kind == "pred":
                pr = chk[2]
                if pr.kind == "uniform":
                    items.append(("c", f"not {n}.divergent"))
                elif pr.kind == "divergent":
                    items.append(("c", f"{n}.divergent"))
                elif pr.kind == "oneuse":
                    items.append(("c", f"{n}.uses == 1"))
                else:
                    items.append(("c", f"_ev({pred_name(pr)}, {n})"))
            elif kind == "predops":
                args = ", ".join(f"n{s}" if s >= 0 else "None" for s in chk[4])
                items.append(("c", f"_ev({pred_name(chk[2])}, {n}, ({args},))"))
            else:  # pragma: no cover - _lower makes no other kind
                raise AssertionError(kind)
        if hit is None:
            ns[f"P{k}"] = p
            env = ", ".join(f"{name!r}: n{s}" for name, s in sorted(bindings[id(p)].items()))
            chains.append((items, [f"return P{k}, {{{env}}}"]))
        else:
            chains.append((items, hit(k, p, bindings[id(p)], ns)))

    if hit is None:
        lines = ["def _match(n0):"]
        _emit_factored(chains, 0, "    ", lines)
        lines.append("    return None")
    else:
        lines = ["def _match(n0, sel, out):"]
        _emit_factored(chains, 0, "    ", lines)
        lines.append("    return False")
    exec(compile_source("\n".join(lines), "<matcher>"), ns)  # noqa: S102 - generated from the table
    return ns["_match"]


def _chain_tail(items, at: int) -> str:
    """The checks of one pattern from ``at`` on as one condition (an SDNode operand is
    never None: ``is not None`` only makes the assignment an expression)."""
    return " and ".join(f"({it[1]})" if it[0] == "c" else f"(({it[1]} := {it[2]}) is not None)"
                        for it in items[at:])


def _emit_factored(group: list, at: int, indent: str, lines: list) -> None:
    """Source lines trying ``group`` -- consecutive (checks, lines ending in a return) whose first
    ``at`` checks are the same and already done -- in order: a run of patterns that
    share their next check tests it once (an assignment is just made), the rest of a
    lone pattern is one ``and`` chain. (A module function, not a closure that calls
    itself, so compiling leaves no reference cycle behind.)"""
    i = 0
    while i < len(group):
        items, ret = group[i]
        if at >= len(items):
            lines.extend(indent + r for r in ret)
            return  # the patterns after it can never be reached
        head = items[at]
        j = i + 1
        while j < len(group) and len(group[j][0]) > at and group[j][0][at] == head:
            j += 1
        if j - i == 1 or len(indent) > 160:  # (nesting kept well within Python's limits)
            for q in group[i:j]:
                lines.append(f"{indent}if {_chain_tail(q[0], at)}:")
                lines.extend(f"{indent}    {r}" for r in q[1])
        elif head[0] == "a":
            lines.append(f"{indent}{head[1]} = {head[2]}")
            _emit_factored(group[i:j], at + 1, indent, lines)
        else:
            lines.append(f"{indent}if {head[1]}:")
            _emit_factored(group[i:j], at + 1, indent + "    ", lines)
        i = j


# i32 values the GFX9 VALU encodes inline (no constant-bus use): -16..64 and the bit
# patterns of +-0.5, +-1.0, +-2.0, +-4.0 and 1/(2*pi).
_INLINE_FP32 = frozenset({0x3F000000, 0xBF000000, 0x3F800000, 0xBF800000, 0x40000000, 0xC0000000,
                          0x40800000, 0xC0800000, 0x3E22F983})


def is_inline_immediate(n) -> bool:
    if n.opcode != "ISD::Constant" or not isinstance(n.value, int):
        return False
    return -16 <= n.value <= 64 or (n.value & 0xFFFFFFFF) in _INLINE_FP32


CONSTANT_BUS_LIMIT = 1  # gfx900 VOP3


def eval_predicate(pr: Predicate, n, operands=None) -> bool:
    k = pr.kind
    if k == "bus":
        if not n.divergent:
            return False
        scalar = sum(1 for o in operands or () if o is not None and not o.divergent and not is_inline_immediate(o))
        return scalar <= CONSTANT_BUS_LIMIT
    if k == "uniform":
        return not n.divergent
    if k == "divergent":
        return n.divergent
    if k == "oneuse":
        return n.uses == 1
    if k == "imm":
        fn = _IMM_FNS.get(pr.code)
        if fn is None:
            # code the model cannot read never matches (tdgen lint reports such predicates)
            fn = _IMM_FNS[pr.code] = compile_imm_code(pr.code) or (lambda _v, _b: False)
        if n.opcode != "ISD::Constant" or n.value is None:
            return False
        vt = n.vt
        return fn(n.value, int(vt[1:]) if vt[:1] == "i" and vt[1:].isdigit() else 64)
    if k == "named":
        fn = _EXTRA_PREDICATES.get(pr.name)
        return bool(fn(n)) if fn else False
    return False


_IMM_FNS: dict[str, Callable] = {}


# ---------------------------------------------------------------------------------------
# Building from a target


_CACHE: dict[int, tuple[object, MatcherTable]] = {}


def build_table(target, *, multiply: int = 1, same_root: bool = False) -> MatcherTable:
    """The target's matcher table (built once per target object and cached);
    ``multiply``/``same_root`` make the enlarged tables of bench/isel.py (``_multiply``)."""
    key = (id(target), multiply, same_root)
    hit = _CACHE.get(key)  # type: ignore[arg-type]
    if hit is not None and hit[0] is target:
        return hit[1]
    full = getattr(type(target), "full_target", None)
    if full is not None:  # a patterns.isel.IselView: the patterns are read from its target
        table = build_table(full(target), multiply=multiply, same_root=same_root)
        _CACHE[key] = (target, table)  # type: ignore[index]
        return table
    from .patsrc import resolve_patterns

    diags = Diagnostics()
    pats = resolve_patterns(target, diags)
    diags.check()
    if multiply > 1:
        pats = _multiply(pats, multiply, same_root)
    table = MatcherTable(sort_patterns(pats))
    _CACHE[key] = (target, table)  # type: ignore[index]
    return table


def adopt_table(target, table: MatcherTable) -> None:
    """Make ``table`` (e.g. unpickled from the on-disk cache) what ``build_table(target)``
    returns for this target object, so later callers do not rebuild it."""
    _CACHE[(id(target), 1, False)] = (target, table)  # type: ignore[index]


def sort_patterns(pats: list[CompiledPattern]) -> list[CompiledPattern]:
    def key(p: CompiledPattern):
        vt = p.result_vt or ""
        is_vec = vt.startswith("v")
        is_fp = vt.startswith(("f", "bf")) or (is_vec and "f" in vt[1:])
        return (is_vec, is_fp, -p.complexity, p.dst_cost, p.dst_size, p.order, p.variant)

    out = sorted(pats, key=key)
    for i, p in enumerate(out):
        p.index = i
    return out


def _multiply(pats: list[CompiledPattern], k: int, same_root: bool = False) -> list[CompiledPattern]:
    """``k`` copies of the pattern set that never match real nodes -- only the table grows.

    Default: copies 1..k-1 are rooted at fresh opcodes (``<opcode>#copyN``), a target with
    10x the opcodes. ``same_root``: the copies keep their root opcode but check a type no
    node has right after it, a target with 10x the patterns per opcode (the worst case for
    the per-opcode pattern lists, which try those copies one comparison each)."""
    out = list(pats)
    for c in range(1, k):
        for p in pats:
            q = CompiledPattern(**{**p.__dict__})
            if same_root:
                first = [ch for ch in p.checks if ch[0] == "opcode" and ch[1] == 0][:1]
                rest = [ch for ch in p.checks if not (ch[0] == "opcode" and ch[1] == 0)] if first else list(p.checks)
                q.checks = tuple(first + [("type", 0, f"copy{c}", f"root has type copy{c}")] + rest)
            else:
                q.root_opcode = f"{p.root_opcode}#copy{c}"
                q.checks = tuple((ch[0], ch[1], q.root_opcode, ch[3]) if ch[0] == "opcode" and ch[1] == 0 else ch
                                 for ch in p.checks)
            q.order = p.order + c * 100000
            out.append(q)
    return out


