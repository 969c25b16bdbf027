"""The tdgen DSL: frozen dataclasses that mirror TableGen's SelectionDAG concepts.

A spec (``targets/<name>/spec.py``) builds one ``Target`` from these records. Every
record remembers where it was declared (``span``: file:line:col of the constructor
call, captured from the call stack; excluded from ``==``). Lists passed by a spec are
stored as tuples and dicts as tuples of ``(key, value)`` pairs, so records compare
with ``==`` and hash.

Records (what the emitters and the engine read)
-----------------------------------------------
- ``Intrinsic(name, results, params, properties, divergence, clang_builtin)``:
  ``name`` is the TableGen name ``int_<prefix>_...``; ``ir_name`` (``llvm.<prefix>....``),
  ``enum_name`` (``Intrinsic::<prefix>_...``), ``target_prefix`` are derived.
  ``default_attrs`` selects TableGen's ``DefaultAttrsIntrinsic`` (adds nocallback,
  nofree, nosync, willreturn). ``properties`` are ``IntrProperty`` values (``IntrNoMem``, ``ImmArg(1)`` ...), each
  with ``.tablegen``. ``divergence`` is a ``tdgen.hw.DivergenceKind``.
- ``SDTypeProfile(num_results, num_operands, constraints, name=None)`` with
  constraint values ``SDTCisVT/SDTCisInt/SDTCisFP/SDTCisVec/SDTCisPtrTy/SDTCisSameAs/
  SDTCisSameSizeAs/SDTCVecEltisVT/SDTCisVTSmallerThanOp/SDTCisOpSmallerThanOp/
  SDTCisSameNumEltsAs/SDTCisEltOfVec`` (each ``.tablegen``). ``num_operands == -1``
  means variadic. ``name=None`` profiles are emitted inline.
- ``SDNode(name, opcode, profile, properties, builtin=False, sdclass="SDNode")``:
  ``opcode`` is the C++ enum (``ISD::ADD``, ``MyGPUISD::SHFLIDX_I32``);
  ``isd_name`` is the part after ``::``.
- ``PatFrag(name, ops, fragment, predicate_code=None, divergence=None)``: ``ops`` are the
  operand names (``("src0", "src1")`` = ``(ops node:$src0, node:$src1)``), ``fragment``
  TableGen text, ``divergence`` ``"uniform" | "divergent" | None``, ``has_one_use``
  TableGen's ``HasOneUse``; ``uses_operands`` TableGen's ``PredicateCodeUsesOperands``
  (required when ``predicate_code`` reads ``Operands[i]``). ``wraps`` names the
  operator a divergence wrapper wraps; ``instance_of`` is set for frags instantiated from
  a ``DivergenceFrag`` class (``UniformBinFrag<add>``: emitted inline, not as a def).
  ``uniform(op)`` / ``divergent(op)`` build named wrappers.
- ``ImmLeaf(name, vt, code, xform=None, node="imm")`` / ``PatLeaf(name, fragment,
  code=None, xform=None)``: fragments without operands used as leaf types
  (``simm8:$c``); an ImmLeaf's ``code`` reads ``Imm`` (TableGen's ImmediateCode), a
  PatLeaf's the node ``N``; ``xform`` an ``SDNodeXForm`` applied where a result names the
  leaf. ``SDNodeXForm(name, node, code, model=None)``: rewrites a result operand
  (``(NegateImm $c)``); ``model`` is Python defining ``transform(N, cur)`` for code tdgen
  does not execute itself.
- ``DivergenceFrag(name, divergence, num_ops)``: a TableGen *class* like AMDGPU's
  ``UniformBinFrag<SDPatternOperator Op>``; patterns use it as ``(UniformBinFrag<add> ...)``.
- ``RegisterClass(name, file, types, registers, size=None, alignment=None)``: ``file`` is
  ``"scalar"`` or ``"vector"``; ``registers`` are register names; ``size`` (bits) and
  ``alignment`` default to the first type's width (ints once constructed). Wide
  classes made of narrower registers give ``subreg_indices`` (``("sub0", "sub1")``)
  and, per register, its components in ``subregs`` (see ``reg_tuples``).
- ``OperandKind(name, vt, operand_type)``: an ``Operand<vt>`` (``i32imm`` etc. are builtin).
- ``InstrField(name, type, default=REQUIRED)``: a typed field a class declares
  (``bit``, ``int``, ``bits<N>``, ``string``, ...). ``Param(name, type)``: a template
  argument; ``Ref(name)`` refers to one in values. ``InstrClass(name, params, parent,
  parent_args, fields, lets)``: a class deriving from ``parent`` (or TableGen's
  ``Instruction``). Keys ``outs``/``ins``/``asm``/``pattern`` of ``lets`` are the
  Instruction fields ``OutOperandList``/``InOperandList``/``AsmString``/``Pattern``
  (``INSTRUCTION_FIELD_NAMES``); dag text may name template args
  (``"(outs rc:$vdst)"``). ``BASE_FIELDS`` lists TableGen ``Instruction`` fields a
  spec may set (``mayLoad``, ``isConvergent``, ``Size``, ``AddedComplexity`` ...).
- ``Instruction(name, cls, args, outs, ins, asm, pattern, lets)``: a def.
  ``implicit_defs`` / ``implicit_uses`` (on classes and defs; TableGen's ``Defs`` /
  ``Uses``): physical registers written/read implicitly (``SCC``, ``EXEC``); None
  inherits from the class, a tuple (even empty) overrides it, as ``let Defs`` does.
  The registers are named in ``Target.physical_registers`` (or in a register class).
- ``Multiclass(name, params, defs)`` whose ``defs`` are ``Instruction`` templates named by
  suffix (``"_RTN"``), and ``Defm(name, multiclass, args)`` instantiating it.
- ``Pat(src, dst, added_complexity=0)``: a standalone ``Pat<>``.
- ``Lowering(intrinsic, node, operands)``: LowerINTRINSIC_WO_CHAIN case; ``operands``
  are indices into the intrinsic's params (``Op.getOperand(i + 1)`` in C++). Messages
  name it ``Lowering<int_x, node>`` (``.name``).
- ``Rewrite(foreign, target, operands)``: an IR rewrite of foreign intrinsic calls
  (IR name, e.g. ``llvm.nvvm.shfl.sync.idx.i32``) to a target intrinsic; ``operands``
  entries are foreign argument indices or ``Const(value, type)``.
- ``CustomSelect(name, opcodes, emits, model, vt, doc)``: a case of the target's C++
  ``Select`` switch tried before the matcher table for the named root nodes (e.g.
  AMDGPU's ``SelectS_BFE``); ``model`` is Python source defining ``select(N, cur)``, the
  executable model of that C++ (see the class).
- ``Target(name, namespace, target_prefix, isd_namespace, description, intrinsics,
  profiles, nodes, frags, frag_classes, register_classes, operands, classes,
  multiclasses, defs, patterns, lowerings, rewrites, custom_selects, physical_registers,
  uniformity, wave, xforms)``: the declarations as the spec lists them (tuples, in record order; ``defs``
  mixes ``Instruction`` and ``Defm``), plus ``uniformity``
  (``tdgen.hw.UniformityModel``) and ``wave`` (``tdgen.hw.WaveModel``); ``spec_path``
  is set by the loader.

Asm strings may contain ``{param}`` placeholders for template arguments.

Resolved views on ``Target`` (for the matcher and the emitters)
---------------------------------------------------------------
- ``sdnodes``: dict name -> SDNode (builtin + target).
- ``patfrags``: dict name -> PatFrag (builtin + target -- ImmLeaf and PatLeaf included --
  + divergence-frag instances used); ``xforms_by_name``: dict name -> SDNodeXForm.
- ``instructions``: dict name -> ``ResolvedInstruction`` (classes, multiclasses and
  defm applied): ``outs``/``ins`` (tuples of ``OperandRef(name, kind)``), ``asm``,
  ``patterns`` (parsed ``Dag`` s), ``fields`` (pairs of every field value, inherited
  and set; ``.field(name)``), ``field_types``, ``classes`` (the chain, outermost
  first), ``declared_by``, ``implicit_defs``, ``implicit_uses``.
- ``selection_patterns()``: tuple of ``SelectionPattern(src, dst, results,
  added_complexity, order, record, span)``; ``order`` follows record order as emitted:
  instruction defs (defm expansions in place) then ``Pat`` s.
- ``intrinsics_by_name``, ``register_classes_by_name``, ``operand_kinds``,
  ``intrinsic_divergence(ir_name)``.

Construction errors
-------------------
A constructor given a value of the wrong kind (a type written as a string, a number
where a profile belongs), an unknown keyword or a missing required argument raises a
``SpecError`` at the call. While ``tdgen.spec.load_target`` runs a spec
(``collecting_construction_errors``) it instead records its errors and returns the
record marked invalid (``is_invalid``; ``depends_on_invalid`` also follows references),
so one load reports every malformed record together with the checks' findings.

Everything here is data; checking lives in ``tdgen.check``, loading in ``tdgen.spec``.
"""

from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from typing import Any, Iterable, Iterator, Union

from .dag import Dag, Leaf, Node, parse_pattern
from .errors import ErrorList, ParseError, Span, SpecError, expected
from .hw import DivergenceKind, UniformityModel, WaveModel
from .srcpos import caller_span, value_span
from .types import IntrinsicType, ValueType

# ---------------------------------------------------------------------------- base


def _freeze(v: Any) -> Any:
    if isinstance(v, list):
        return tuple(_freeze(x) for x in v)
    if isinstance(v, tuple):
        return tuple(_freeze(x) for x in v)
    if isinstance(v, dict):
        return tuple((k, _freeze(x)) for k, x in v.items())
    if isinstance(v, (set, frozenset)):
        return frozenset(v)
    return v


@dataclass(frozen=True)
class Record:
    """Base of every declaration: remembers its span, freezes lists/dicts."""

    span: Span | None = field(default=None, compare=False, repr=False, kw_only=True)

    def __post_init__(self) -> None:
        for f in fields(self):
            if f.name == "span":
                continue
            v = getattr(self, f.name)
            fv = _freeze(v)
            if fv is not v:
                object.__setattr__(self, f.name, fv)
        if self.span is None:
            object.__setattr__(self, "span", caller_span())
        report_construction_errors(self, _validate(self))

    @property
    def kind(self) -> str:
        return type(self).__name__

    def field_span(self, name: str, index: int | None = None) -> tuple[Span | None, bool]:
        """Where argument ``name`` of this record's constructor call is (see srcpos)."""
        names = [f.name for f in fields(self) if f.name != "span"]
        pos = names.index(name) if name in names else None
        return value_span(self.span, name, index=index, positional=pos)


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    h = _HINTS.get(cls)
    if h is None:
        import typing

        h = typing.get_type_hints(cls, globalns=globals())
        _HINTS[cls] = h
    return h


def _describe_type(tp: Any) -> str:
    import types as _t
    import typing

    origin = typing.get_origin(tp)
    if tp is Any:
        return "any value"
    if tp is type(None):
        return "None"
    if origin in (Union, _t.UnionType):
        return " or ".join(_describe_type(a) for a in typing.get_args(tp))
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            inner = typing.get_args(args[0])
            if typing.get_origin(args[0]) is tuple and len(inner) == 2 and inner[0] is str:
                return "a dict (name -> value)"
            return f"a list of ({_describe_type(args[0])})"
        return "a pair"
    if isinstance(tp, type):
        return {"str": "a string", "int": "an integer", "bool": "a bool"}.get(tp.__name__, tp.__name__)
    return str(tp)


def _matches(v: Any, tp: Any) -> bool:
    import types as _t
    import typing

    if tp is Any:
        return True
    origin = typing.get_origin(tp)
    if origin in (Union, _t.UnionType):
        return any(_matches(v, a) for a in typing.get_args(tp))
    if origin is tuple:
        if not isinstance(v, tuple):
            return False
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_matches(x, args[0]) for x in v)
        return len(v) == len(args) and all(_matches(x, a) for x, a in zip(v, args))
    if origin is not None:
        return isinstance(v, origin)
    if tp is type(None):
        return v is None
    if isinstance(tp, type):
        if tp is int:
            return isinstance(v, int)
        return isinstance(v, tp)
    return True


def _found(v: Any) -> str:
    if isinstance(v, tuple):
        bad = ", ".join(sorted({type(x).__name__ for x in v}))
        return f"a list of ({bad})" if v else "an empty list"
    if isinstance(v, str):
        return f"'{v}'"
    name = getattr(v, "name", None)
    return f"{type(v).__name__} {name}" if isinstance(name, str) else f"{type(v).__name__} {v!r}"


def _validate(rec: "Record") -> list[SpecError]:
    """Every field of ``rec`` holding the wrong kind of value, as SpecErrors at the
    constructor call (one per field, in field order)."""
    hints = _hints(type(rec))
    errs: list[SpecError] = []
    for f in fields(rec):
        if f.name == "span":
            continue
        tp = hints.get(f.name, Any)
        v = getattr(rec, f.name)
        if not _matches(v, tp):
            name = getattr(rec, "name", None)
            found, index = _found(v), _bad_item(v, tp)
            if index is not None:
                notes = [f"item {index}", _type_name_hint(v[index], tp)]
                found = f"{_found(v[index])} (" + "; ".join(n for n in notes if n) + ")"
            elif not _is_list_type(tp) and _type_name_hint(v, tp):
                found += f" ({_type_name_hint(v, tp)})"
            errs.append(SpecError(
                rec.field_span(f.name, index)[0],
                expected(_describe_type(tp), found),
                record=name if isinstance(name, str) else type(rec).__name__,
                field=f.name,
            ))
    return errs


def _is_list_type(tp: Any) -> bool:
    import typing

    return typing.get_origin(tp) is tuple


def _leaf_types(tp: Any) -> set[Any]:
    """The non-container types a field type admits (list element types included)."""
    import types as _t
    import typing

    origin = typing.get_origin(tp)
    if origin in (Union, _t.UnionType) or origin is tuple:
        out: set[Any] = set()
        for a in typing.get_args(tp):
            if a is not Ellipsis:
                out |= _leaf_types(a)
        return out
    return {tp}


def _type_name_hint(v: Any, tp: Any) -> str:
    """For a type written as a string (``"i32"``, ``"llvm_i32_ty"``) where the type
    object belongs: which object to use, or the nearest known name."""
    if not isinstance(v, str):
        return ""
    from .types import INTRINSIC_TYPES, VALUE_TYPES

    wants = _leaf_types(tp)
    table: dict[str, Any] = {}
    if IntrinsicType in wants:
        table.update(INTRINSIC_TYPES)
    if ValueType in wants:
        table.update(VALUE_TYPES)
    if not table:
        return ""
    if v in table:
        return f"use the object tdgen.types.{v}, not its name"
    if IntrinsicType in wants and v in VALUE_TYPES:
        same = sorted(t.tablegen for t in INTRINSIC_TYPES.values() if t.vt is not None and t.vt.name == v)
        if same:
            return f"use the intrinsic type tdgen.types.{same[0]}"
    import difflib

    near = difflib.get_close_matches(v, sorted(table), n=1)
    return f"no such type in tdgen.types, nearest: {near[0]}" if near else "no such type in tdgen.types"


def _bad_item(v: Any, tp: Any) -> int | None:
    """The index of the first wrong element when ``tp`` is a list type that ``v`` is a
    list for (None otherwise)."""
    import types as _t
    import typing

    if not isinstance(v, tuple):
        return None
    cands = typing.get_args(tp) if typing.get_origin(tp) in (Union, _t.UnionType) else (tp,)
    for c in cands:
        args = typing.get_args(c)
        if typing.get_origin(c) is tuple and len(args) == 2 and args[1] is Ellipsis:
            for i, x in enumerate(v):
                if not _matches(x, args[0]):
                    return i
    return None


# ------------------------------------------------------- construction errors

# While ``tdgen.spec.load_target`` runs a spec, the list its constructors report into.
_SINK: contextvars.ContextVar[list[SpecError] | None] = contextvars.ContextVar("tdgen_construction_errors", default=None)


@contextlib.contextmanager
def collecting_construction_errors() -> Iterator[list[SpecError]]:
    """Within this context a malformed record does not raise: its constructor adds its
    SpecErrors to the yielded list and returns the record marked invalid
    (``is_invalid``), so loading goes on and reports every error of the spec together.
    Outside it (records built from Python code) constructors raise at once."""
    errs: list[SpecError] = []
    token = _SINK.set(errs)
    try:
        yield errs
    finally:
        _SINK.reset(token)


def is_invalid(rec: Any) -> bool:
    """Whether ``rec`` was built with errors inside ``collecting_construction_errors``."""
    d = getattr(rec, "__dict__", None)
    return bool(d and d.get("_invalid"))


# Fields a constructor call left out (filled with None so the record exists): their
# type errors repeat the "missing argument" error and are dropped.
_FILLED: contextvars.ContextVar[frozenset[str]] = contextvars.ContextVar("tdgen_filled_fields", default=frozenset())


def report_construction_errors(rec: Any, errs: list[SpecError]) -> None:
    """Raise ``errs`` (outside a loading context) or record them and mark ``rec`` invalid."""
    filled = _FILLED.get()
    if filled:
        errs = [e for e in errs if e.field not in filled]
    if not errs:
        return
    sink = _SINK.get()
    if sink is None:
        raise errs[0] if len(errs) == 1 else ErrorList(errs)
    sink.extend(errs)
    if getattr(rec, "__dict__", None) is not None:
        rec.__dict__["_invalid"] = True


def _getter(pairs: tuple, key: str, default: Any = None) -> Any:
    for k, v in pairs:
        if k == key:
            return v
    return default


# ---------------------------------------------------------------------- intrinsics


RET_INDEX = -1  # IntrProperty.arg for properties of the return value (RetIndex)


@dataclass(frozen=True)
class IntrProperty:
    """An intrinsic property; ``arg`` is the parameter index for ImmArg/NoCapture/...
    (``ArgIndex<arg>``), or ``RET_INDEX`` for the return value (``RetIndex``)."""

    name: str
    arg: int | None = None

    @property
    def tablegen(self) -> str:
        if self.arg is None:
            return self.name
        if self.arg == RET_INDEX:
            return f"{self.name}<RetIndex>"
        return f"{self.name}<ArgIndex<{self.arg}>>"

    def __str__(self) -> str:
        return self.tablegen


IntrNoMem = IntrProperty("IntrNoMem")
IntrReadMem = IntrProperty("IntrReadMem")
IntrWriteMem = IntrProperty("IntrWriteMem")
IntrArgMemOnly = IntrProperty("IntrArgMemOnly")
IntrInaccessibleMemOnly = IntrProperty("IntrInaccessibleMemOnly")
IntrConvergent = IntrProperty("IntrConvergent")
IntrSpeculatable = IntrProperty("IntrSpeculatable")
IntrWillReturn = IntrProperty("IntrWillReturn")
IntrNoCallback = IntrProperty("IntrNoCallback")
IntrNoFree = IntrProperty("IntrNoFree")
IntrNoSync = IntrProperty("IntrNoSync")
IntrHasSideEffects = IntrProperty("IntrHasSideEffects")
IntrNoReturn = IntrProperty("IntrNoReturn")
IntrCold = IntrProperty("IntrCold")

INTR_PROPERTIES = {
    p.name: p
    for p in (
        IntrNoMem, IntrReadMem, IntrWriteMem, IntrArgMemOnly, IntrInaccessibleMemOnly,
        IntrConvergent, IntrSpeculatable, IntrWillReturn, IntrNoCallback, IntrNoFree,
        IntrNoSync, IntrHasSideEffects, IntrNoReturn, IntrCold,
    )
}


def ImmArg(index: int) -> IntrProperty:
    """``ImmArg<ArgIndex<index>>``: operand ``index`` (0-based over the params) must be
    an immediate."""
    return IntrProperty("ImmArg", index)


def NoUndef(index: int = RET_INDEX) -> IntrProperty:
    """``NoUndef<RetIndex>`` (default) or ``NoUndef<ArgIndex<index>>``."""
    return IntrProperty("NoUndef", index)


def NoCapture(index: int) -> IntrProperty:
    return IntrProperty("NoCapture", index)


def ReadOnly(index: int) -> IntrProperty:
    return IntrProperty("ReadOnly", index)


def ir_name_of(tablegen_name: str) -> str:
    """``int_dslike_shfl_idx_i32`` -> ``llvm.dslike.shfl.idx.i32``."""
    assert tablegen_name.startswith("int_")
    return "llvm." + tablegen_name[4:].replace("_", ".")


def tablegen_name_of(ir_name: str) -> str:
    """``llvm.dslike.shfl.idx.i32`` -> ``int_dslike_shfl_idx_i32``."""
    assert ir_name.startswith("llvm.")
    return "int_" + ir_name[5:].replace(".", "_")


def enum_name_of(ir_name: str) -> str:
    """``llvm.nvvm.shfl.sync.idx.i32`` -> ``Intrinsic::nvvm_shfl_sync_idx_i32``."""
    return "Intrinsic::" + ir_name[5:].replace(".", "_")


@dataclass(frozen=True)
class Intrinsic(Record):
    """An LLVM intrinsic declared by the target (see module docstring)."""

    name: str
    results: tuple[IntrinsicType, ...] = ()
    params: tuple[IntrinsicType, ...] = ()
    properties: tuple[IntrProperty, ...] = ()
    divergence: DivergenceKind = DivergenceKind.FOLLOWS_OPERANDS
    clang_builtin: str | None = None
    doc: str = ""
    default_attrs: bool = False

    @property
    def ir_name(self) -> str:
        return ir_name_of(self.name)

    @property
    def enum_name(self) -> str:
        """C++ enumerator: ``Intrinsic::dslike_shfl_idx_i32``."""
        return "Intrinsic::" + self.name[4:]

    @property
    def target_prefix(self) -> str:
        return self.name.split("_")[1] if self.name.count("_") >= 1 else ""

    @property
    def has_chain(self) -> bool:
        """Whether SelectionDAG uses INTRINSIC_W_CHAIN / INTRINSIC_VOID: the call may
        touch memory (no IntrNoMem) or has side effects (IntrHasSideEffects drops
        ``memory(none)`` even with IntrNoMem, as llvm-tblgen-19 emits it)."""
        return IntrNoMem not in self.properties or IntrHasSideEffects in self.properties

    @property
    def is_overloaded(self) -> bool:
        return any(t.is_overloaded for t in self.results + self.params)

    def has(self, prop: IntrProperty) -> bool:
        return prop in self.properties


# ----------------------------------------------------------------- SDNode profiles


@dataclass(frozen=True)
class SDTypeConstraint:
    """Base of SDTC* constraints; ``op`` is the operand number (results first)."""

    op: int

    @property
    def tablegen(self) -> str:
        args = [str(getattr(self, f.name)) for f in fields(self)]
        return f"{type(self).__name__}<{', '.join(args)}>"

    def operands(self) -> tuple[int, ...]:
        return tuple(getattr(self, f.name) for f in fields(self) if f.name in ("op", "other"))


@dataclass(frozen=True)
class SDTCisVT(SDTypeConstraint):
    vt: ValueType


@dataclass(frozen=True)
class SDTCisPtrTy(SDTypeConstraint):
    pass


@dataclass(frozen=True)
class SDTCisInt(SDTypeConstraint):
    pass


@dataclass(frozen=True)
class SDTCisFP(SDTypeConstraint):
    pass


@dataclass(frozen=True)
class SDTCisVec(SDTypeConstraint):
    pass


@dataclass(frozen=True)
class SDTCisSameAs(SDTypeConstraint):
    other: int


@dataclass(frozen=True)
class SDTCisVTSmallerThanOp(SDTypeConstraint):
    other: int


@dataclass(frozen=True)
class SDTCisOpSmallerThanOp(SDTypeConstraint):
    other: int


@dataclass(frozen=True)
class SDTCisEltOfVec(SDTypeConstraint):
    other: int


@dataclass(frozen=True)
class SDTCVecEltisVT(SDTypeConstraint):
    vt: ValueType


@dataclass(frozen=True)
class SDTCisSameNumEltsAs(SDTypeConstraint):
    other: int


@dataclass(frozen=True)
class SDTCisSameSizeAs(SDTypeConstraint):
    other: int


@dataclass(frozen=True)
class SDTypeProfile(Record):
    """``SDTypeProfile<num_results, num_operands, [constraints]>``; -1 = variadic."""

    num_results: int
    num_operands: int
    constraints: tuple[SDTypeConstraint, ...] = ()
    name: str | None = None
    builtin: bool = False

    @property
    def tablegen(self) -> str:
        cs = ", ".join(c.tablegen for c in self.constraints)
        return f"SDTypeProfile<{self.num_results}, {self.num_operands}, [{cs}]>"

    @property
    def variadic(self) -> bool:
        return self.num_operands < 0


SDNP_PROPERTIES = (
    "SDNPCommutative", "SDNPAssociative", "SDNPHasChain", "SDNPOutGlue", "SDNPInGlue",
    "SDNPOptInGlue", "SDNPMayLoad", "SDNPMayStore", "SDNPSideEffect", "SDNPMemOperand",
    "SDNPVariadic",
)


@dataclass(frozen=True)
class SDNode(Record):
    """``def name : SDNode<"opcode", profile, [properties]>``."""

    name: str
    opcode: str
    profile: SDTypeProfile
    properties: tuple[str, ...] = ()
    builtin: bool = False
    sdclass: str = "SDNode"

    @property
    def isd_name(self) -> str:
        return self.opcode.split("::")[-1]

    @property
    def namespace(self) -> str:
        return self.opcode.split("::")[0] if "::" in self.opcode else ""

    @property
    def num_operands(self) -> int:
        return self.profile.num_operands

    @property
    def num_results(self) -> int:
        return self.profile.num_results

    @property
    def is_commutative(self) -> bool:
        return "SDNPCommutative" in self.properties


# ---------------------------------------------------------------------- fragments

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
        return "(ops " + ", ".join(f"node:${o}" for o in self.ops) + ")"

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

    @property
    def ops(self) -> tuple[str, ...]:
        return tuple(f"src{i}" for i in range(self.num_ops))

    @property
    def predicate_code(self) -> str:
        return UNIFORM_PREDICATE if self.divergence == "uniform" else DIVERGENT_PREDICATE

    @property
    def ops_tablegen(self) -> str:
        return "(ops " + ", ".join(f"node:${o}" for o in self.ops) + ")"

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
    ``patterns.select.matcher.translate_cpp``)."""

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
        return _rebase(parse_pattern(self.fragment, None, record=self.name, field="vt"), self.field_span("vt")[0])


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
        err = SpecError(span, expected("an SDNode, PatFrag or Intrinsic to wrap", _found(op)), record=shown, field="op")
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


# ---------------------------------------------------------------------- registers


@dataclass(frozen=True)
class RegisterClass(Record):
    """A register class in the ``"scalar"`` or ``"vector"`` register file."""

    name: str
    file: str
    types: tuple[ValueType, ...]
    registers: tuple[str, ...]
    size: int | None = None
    alignment: int | None = None
    copy_cost: int = 1
    subreg_indices: tuple[str, ...] = ()
    subregs: tuple[tuple[str, ...], ...] = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        # size/alignment default to the first type's width: always ints once built
        if self.size is None:
            first = self.types[0] if self.types and isinstance(self.types[0], ValueType) else None
            object.__setattr__(self, "size", first.bits if first is not None else 0)
        if self.alignment is None:
            object.__setattr__(self, "alignment", self.size)

    @property
    def size_bits(self) -> int:
        return int(self.size or 0)

    @property
    def alignment_bits(self) -> int:
        return int(self.alignment or 0)


def reg_tuples(base: tuple[str, ...], width: int, stride: int = 1) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """Registers made of ``width`` consecutive ``base`` registers, starting every
    ``stride``: ``(names, subregs)`` for a wide RegisterClass, named like LLVM's
    tuples (``VGPR0_VGPR1``). ``reg_tuples(("S0","S1","S2","S3"), 2, 2)`` ->
    ``(("S0_S1", "S2_S3"), (("S0", "S1"), ("S2", "S3")))``."""
    parts = tuple(tuple(base[i : i + width]) for i in range(0, len(base) - width + 1, stride))
    return tuple("_".join(p) for p in parts), parts


def reg_names(prefix: str, count: int, start: int = 0) -> tuple[str, ...]:
    """``reg_names("S", 4)`` -> ``("S0", "S1", "S2", "S3")``."""
    return tuple(f"{prefix}{i}" for i in range(start, start + count))


@dataclass(frozen=True)
class OperandKind(Record):
    """``def name : Operand<vt>`` (an immediate or other non-register operand)."""

    name: str
    vt: ValueType
    operand_type: str = "OPERAND_IMMEDIATE"
    print_method: str | None = None
    builtin: bool = False


# -------------------------------------------------------------------- instructions


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


@dataclass(frozen=True)
class InstrField:
    """A typed field declared by a class; ``default`` REQUIRED means a def must set it."""

    name: str
    type: str
    default: Any = REQUIRED


@dataclass(frozen=True)
class Param:
    """A template argument of a class or multiclass (``string opName``)."""

    name: str
    type: str
    default: Any = REQUIRED


@dataclass(frozen=True)
class Ref:
    """A value referring to a template argument by name."""

    name: str


@dataclass(frozen=True)
class Code:
    """A raw TableGen expression as a field value (emitted verbatim)."""

    text: str


# TableGen's Instruction fields a spec may set, with their TableGen types and defaults
# (None = left unset '?'). Spec names outs/ins/asm/pattern map to the real field names.
INSTRUCTION_FIELD_NAMES = {
    "outs": "OutOperandList",
    "ins": "InOperandList",
    "asm": "AsmString",
    "pattern": "Pattern",
}
BASE_FIELDS: dict[str, tuple[str, Any]] = {
    "Namespace": ("string", None),
    "Size": ("int", 0),
    "isCommutable": ("bit", 0),
    "isConvergent": ("bit", 0),
    "isPseudo": ("bit", 0),
    "isCodeGenOnly": ("bit", 0),
    "isAsCheapAsAMove": ("bit", 0),
    "isReMaterializable": ("bit", 0),
    "isMoveImm": ("bit", 0),
    "isBranch": ("bit", 0),
    "isTerminator": ("bit", 0),
    "mayLoad": ("bit", None),
    "mayStore": ("bit", None),
    "hasSideEffects": ("bit", None),
    "AddedComplexity": ("int", 0),
    "Constraints": ("string", ""),
    "DecoderNamespace": ("string", ""),
    "usesCustomInserter": ("bit", 0),
}


def _is_dag_field(name: str) -> bool:
    return name in ("outs", "ins", "pattern")


@dataclass(frozen=True)
class InstrClass(Record):
    """``class name<params> : parent<parent_args> { fields; lets }`` over Instruction."""

    name: str
    params: tuple[Param, ...] = ()
    parent: "InstrClass | None" = None
    parent_args: tuple[Any, ...] = ()
    fields: tuple[InstrField, ...] = ()
    lets: tuple[tuple[str, Any], ...] = ()
    implicit_defs: tuple[str, ...] | None = None
    implicit_uses: tuple[str, ...] | None = None

    def chain(self) -> tuple["InstrClass", ...]:
        """This class and its ancestors, outermost (root) first."""
        out: list[InstrClass] = []
        c: InstrClass | None = self
        while c is not None:
            out.append(c)
            c = c.parent
        return tuple(reversed(out))

    def let(self, name: str, default: Any = None) -> Any:
        return _getter(self.lets, name, default)


@dataclass(frozen=True)
class Instruction(Record):
    """``def name : cls<args> { let ... }`` -- one machine instruction.

    ``outs``/``ins`` are TableGen dag text (``"(outs VGPR_32:$vdst)"``), ``pattern`` a
    DAG text or a tuple of them; any may come from the class instead."""

    name: str
    cls: InstrClass | None = None
    args: tuple[Any, ...] = ()
    outs: str | None = None
    ins: str | None = None
    asm: str | None = None
    pattern: str | tuple[str, ...] | None = None
    lets: tuple[tuple[str, Any], ...] = ()
    implicit_defs: tuple[str, ...] | None = None
    implicit_uses: tuple[str, ...] | None = None

    def let(self, name: str, default: Any = None) -> Any:
        return _getter(self.lets, name, default)


@dataclass(frozen=True)
class Multiclass(Record):
    """``multiclass name<params> { def suffix : ...; }``; ``defs`` are Instruction
    templates whose ``name`` is the suffix appended to the defm name."""

    name: str
    params: tuple[Param, ...]
    defs: tuple[Instruction, ...]


@dataclass(frozen=True)
class Defm(Record):
    """``defm name : multiclass<args>``."""

    name: str
    multiclass: Multiclass
    args: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Pat(Record):
    """``def : Pat<src, dst>`` with ``let AddedComplexity = added_complexity``."""

    src: str
    dst: str
    added_complexity: int = 0
    name: str | None = None


# ----------------------------------------------------------------------- lowering


@dataclass(frozen=True)
class Lowering(Record):
    """Lower ``intrinsic`` to target node ``node`` in LowerINTRINSIC_WO_CHAIN.

    ``operands[i]`` is the intrinsic param index feeding node operand ``i``
    (default: params in order)."""

    intrinsic: Intrinsic
    node: SDNode
    operands: tuple[int, ...] | None = None

    @property
    def name(self) -> str:
        """How messages name this record: ``Lowering<int_x, node>``."""
        intr = getattr(self.intrinsic, "name", self.intrinsic)
        node = getattr(self.node, "name", self.node)
        return f"Lowering<{intr}, {node}>"

    @property
    def operand_map(self) -> tuple[int, ...]:
        if self.operands is not None:
            return self.operands
        return tuple(range(len(self.intrinsic.params)))


@dataclass(frozen=True)
class CustomSelect(Record):
    """A target's custom selection step: a case of the C++ ``Select(SDNode *N)`` switch
    that runs *before* the generated matcher table for the nodes it names (LLVM's
    ``AMDGPUDAGToDAGISel::Select`` -> ``SelectS_BFE`` for and/srl/sra/sext_inreg).

    ``name`` is the C++ function it stands for (``SelectS_BFE``); ``opcodes`` the SDNode
    names (TableGen names: ``and``, ``srl``, ``AMDGPUbfe_u32``) whose nodes go to it;
    ``vt`` the result type the switch case requires (``N->getValueType(0)``; other types
    go straight to the table); ``emits`` every instruction the step may produce;
    ``model`` Python source defining ``select(N, cur)``, the executable model of the C++
    code: it returns ``cur.machine_node(OPCODE, operand, ...)`` (operands are DAG nodes
    or ``cur.target_constant(int)``) to replace ``N``, or None / ``cur.decline(why)``
    to fall through to the table (``SelectCode(N)``). ``doc`` says what it does.
    Source text rather than a Python function so the checked target can be cached."""

    name: str
    opcodes: tuple[str, ...]
    emits: tuple[str, ...]
    model: str
    vt: str = "i32"
    doc: str = ""


@dataclass(frozen=True)
class Const:
    """A constant operand in a rewrite: ``value`` of IR type ``type`` (``i32``)."""

    value: int
    type: str = "i32"


@dataclass(frozen=True)
class Rewrite(Record):
    """Rewrite calls to foreign intrinsic ``foreign`` (IR name) into calls to ``target``.

    ``operands[i]`` gives target param ``i``: a foreign argument index or a ``Const``.
    ``foreign_params`` is the number of foreign arguments (optional; the checker knows
    it from ``tdgen.builtins.FOREIGN_INTRINSICS`` and rejects a wrong one)."""

    foreign: str
    target: Intrinsic
    operands: tuple[int | Const, ...]
    foreign_params: int | None = None

    @property
    def foreign_enum(self) -> str:
        return enum_name_of(self.foreign)

    @property
    def foreign_prefix(self) -> str:
        return self.foreign.split(".")[1]


# ------------------------------------------------------------------ resolved views


@dataclass(frozen=True)
class OperandRef:
    """One operand of a resolved instruction: ``kind`` is a register class or operand
    kind name (``VGPR_32``, ``i32imm``)."""

    name: str
    kind: str
    span: Span | None = field(default=None, compare=False, repr=False)

    @property
    def tablegen(self) -> str:
        return f"{self.kind}:${self.name}"


@dataclass(frozen=True)
class ResolvedInstruction:
    """An instruction def with its class chain, multiclass and args applied."""

    name: str
    outs: tuple[OperandRef, ...]
    ins: tuple[OperandRef, ...]
    asm: str
    patterns: tuple[Dag, ...]
    fields: tuple[tuple[str, Any], ...]
    field_types: tuple[tuple[str, str], ...]
    classes: tuple[str, ...]
    declared_by: Instruction
    defm: Defm | None = None
    span: Span | None = field(default=None, compare=False, repr=False)
    implicit_defs: tuple[str, ...] = ()
    implicit_uses: tuple[str, ...] = ()

    def field(self, name: str, default: Any = None) -> Any:
        return _getter(self.fields, name, default)

    @property
    def operands(self) -> tuple[OperandRef, ...]:
        return self.outs + self.ins

    @property
    def added_complexity(self) -> int:
        return int(self.field("AddedComplexity", 0) or 0)


@dataclass(frozen=True)
class SelectionPattern:
    """One pattern the instruction selector tries.

    ``src``: the DAG matched (the value of ``set`` for instruction patterns);
    ``dst``: result DAG, instruction name as operator (for instruction patterns:
    its ``ins`` as typed leaves ``Kind:$name``); ``results``: the ``set`` destinations
    (typed leaves) -- empty for ``Pat``. ``order``: record order; ``record``: name of the
    instruction or ``Pat`` it came from."""

    src: Node
    dst: Dag
    results: tuple[Leaf, ...]
    added_complexity: int
    order: int
    record: str
    span: Span | None = field(default=None, compare=False)
    instruction: str | None = None


# ------------------------------------------------------------- parsing utilities


def _rebase(node: Node, span: Span | None) -> Node:
    if isinstance(node, Leaf):
        return replace(node, span=span)
    return replace(
        node,
        span=span,
        operator=replace(node.operator, span=span),
        args=tuple(_rebase(a, span) for a in node.args),
    )


def parse_field(rec: Record, fname: str, text: str, index: int | None = None, record_name: str | None = None) -> Node:
    """Parse DAG text stored in field ``fname`` of ``rec`` with spans in the spec file.

    When the text is not a plain literal in the constructor call, every position maps
    to the field (or record) span."""
    base, exact = rec.field_span(fname, index)
    rname = record_name or getattr(rec, "name", None)
    if exact:
        return parse_pattern(text, base, record=rname, field=fname)
    try:
        node = parse_pattern(text, None, record=rname, field=fname)
    except ParseError as e:
        raise ParseError(base, e.message, record=rname, field=fname) from None
    return _rebase(node, base)


def value_text(v: Any) -> str:
    """A field value as TableGen text (for emitters)."""
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, Ref):
        return v.name
    if isinstance(v, Code):
        return v.text
    if isinstance(v, ValueType):
        return v.name
    if v is None:
        return "?"
    name = getattr(v, "name", None)
    if isinstance(name, str):
        return name
    raise TypeError(f"no TableGen text for {v!r}")


# ------------------------------------------------------------------------- target


@dataclass(frozen=True)
class Target(Record):
    """A whole target (see module docstring). ``namespace`` is the TableGen/C++
    namespace of instructions and registers (``AMDGPU``), ``isd_namespace`` the C++
    namespace of target SDNode opcodes (``AMDGPUISD``), ``target_prefix`` the
    intrinsic prefix (``amdgcn``)."""

    name: str
    namespace: str
    target_prefix: str
    isd_namespace: str = ""
    description: str = ""
    intrinsics: tuple[Intrinsic, ...] = ()
    profiles: tuple[SDTypeProfile, ...] = ()
    nodes: tuple[SDNode, ...] = ()
    frags: tuple[PatFrag | ImmLeaf | PatLeaf, ...] = ()
    frag_classes: tuple[DivergenceFrag, ...] = ()
    register_classes: tuple[RegisterClass, ...] = ()
    operands: tuple[OperandKind, ...] = ()
    classes: tuple[InstrClass, ...] = ()
    multiclasses: tuple[Multiclass, ...] = ()
    defs: tuple[Instruction | Defm, ...] = ()
    patterns: tuple[Pat, ...] = ()
    lowerings: tuple[Lowering, ...] = ()
    rewrites: tuple[Rewrite, ...] = ()
    custom_selects: tuple[CustomSelect, ...] = ()
    physical_registers: tuple[str, ...] = ()
    uniformity: UniformityModel = field(default_factory=UniformityModel)
    wave: WaveModel = field(default_factory=WaveModel)
    xforms: tuple[SDNodeXForm, ...] = ()
    hooks: str = ""  # a module of the spec's folder defining HOOKS = TargetHooks(...) (tdgen.hooks)
    spec_path: str = field(default="", compare=False)
    spec_folder: str = field(default="", compare=False)

    # -- lookups --------------------------------------------------------------
    @cached_property
    def intrinsics_by_name(self) -> dict[str, Intrinsic]:
        return {i.name: i for i in self.intrinsics}

    @cached_property
    def intrinsics_by_ir_name(self) -> dict[str, Intrinsic]:
        return {i.ir_name: i for i in self.intrinsics}

    @cached_property
    def register_classes_by_name(self) -> dict[str, RegisterClass]:
        return {r.name: r for r in self.register_classes}

    @cached_property
    def operand_kinds(self) -> dict[str, OperandKind]:
        from .builtins import BUILTIN_OPERANDS

        out = dict(BUILTIN_OPERANDS)
        out.update({o.name: o for o in self.operands})
        return out

    @cached_property
    def sdnodes(self) -> dict[str, SDNode]:
        from .builtins import BUILTIN_NODES

        out = dict(BUILTIN_NODES)
        out.update({n.name: n for n in self.nodes})
        return out

    @cached_property
    def xforms_by_name(self) -> dict[str, SDNodeXForm]:
        return {x.name: x for x in self.xforms}

    @cached_property
    def frag_classes_by_name(self) -> dict[str, DivergenceFrag]:
        return {c.name: c for c in self.frag_classes}

    @cached_property
    def patfrags(self) -> dict[str, PatFrag]:
        from .builtins import BUILTIN_FRAGS

        out = dict(BUILTIN_FRAGS)
        out.update({f.name: f for f in self.frags})
        for key, (cls, arg) in sorted(self._frag_instances().items()):
            out[key] = cls.instantiate(arg)
        return out

    def _frag_instances(self) -> dict[str, tuple[DivergenceFrag, str]]:
        """Every ``Class<op>`` operator used in any pattern whose class is a DivergenceFrag."""
        found: dict[str, tuple[DivergenceFrag, str]] = {}
        classes = self.frag_classes_by_name
        nodes: list[Node] = []
        for text in [p.src for p in self.patterns] + [p.dst for p in self.patterns] + [f.fragment for f in self.frags]:
            try:
                nodes.append(parse_pattern(text))
            except ParseError:
                continue
        for inst in self._resolved()[0].values():
            nodes.extend(inst.patterns)
        for node in nodes:
            for n in node.walk():
                if isinstance(n, Dag) and n.operator.name in classes and len(n.operator.template_args) == 1:
                    found[n.operator.key] = (classes[n.operator.name], n.operator.template_args[0])
        return found

    def intrinsic_divergence(self, ir_name: str) -> DivergenceKind:
        """Declared intrinsic's class, else first matching uniformity rule, else
        FOLLOWS_OPERANDS."""
        intr = self.intrinsics_by_ir_name.get(ir_name)
        if intr is not None:
            return intr.divergence
        rule = self.uniformity.intrinsic_rule(ir_name)
        if rule is not None:
            return rule.kind
        return DivergenceKind.FOLLOWS_OPERANDS

    # -- instruction resolution ----------------------------------------------
    def _resolved(self) -> tuple[dict[str, ResolvedInstruction], list[SpecError]]:
        cached = self.__dict__.get("_resolved_cache")
        if cached is None:
            from .resolve import resolve_instructions

            cached = resolve_instructions(self)
            self.__dict__["_resolved_cache"] = cached
        return cached

    @property
    def instructions(self) -> dict[str, ResolvedInstruction]:
        """Resolved instruction defs by name, in record order."""
        insts, errors = self._resolved()
        if errors:
            from .errors import ErrorList

            raise ErrorList(errors)
        return insts

    def selection_patterns(self) -> tuple[SelectionPattern, ...]:
        cached = self.__dict__.get("_selection_cache")
        if cached is None:
            from .resolve import selection_patterns

            cached = selection_patterns(self)
            self.__dict__["_selection_cache"] = cached
        return cached

    # -- declaration order -----------------------------------------------------
    def records(self) -> Iterable[Record]:
        """Every named declaration of the spec (for duplicate checks and listings)."""
        yield from self.intrinsics
        yield from (p for p in self.profiles if p.name)
        yield from self.nodes
        yield from self.frags
        yield from self.xforms
        yield from self.frag_classes
        yield from self.register_classes
        yield from self.operands
        yield from self.classes
        yield from self.multiclasses
        yield from self.defs
        yield from (p for p in self.patterns if p.name)


ANY_RECORD = Union[
    Intrinsic, SDTypeProfile, SDNode, PatFrag, ImmLeaf, PatLeaf, SDNodeXForm, DivergenceFrag, RegisterClass,
    OperandKind, InstrClass, Instruction, Multiclass, Defm, Pat, Lowering, Rewrite, CustomSelect, Target,
]


def _class_chain_invalid(cls: object) -> bool:
    c = cls
    while c is not None:
        if not isinstance(c, InstrClass) or is_invalid(c):
            return True
        c = c.parent
    return False


def depends_on_invalid(rec: object) -> bool:
    """Whether ``rec`` is invalid or refers to a record that is."""
    if is_invalid(rec):
        return True
    if isinstance(rec, SDNode):
        return is_invalid(rec.profile)
    if isinstance(rec, InstrClass):
        return _class_chain_invalid(rec)
    if isinstance(rec, Instruction):
        return rec.cls is not None and _class_chain_invalid(rec.cls)
    if isinstance(rec, Multiclass):
        return any(depends_on_invalid(t) for t in rec.defs)
    if isinstance(rec, Defm):
        return depends_on_invalid(rec.multiclass)
    if isinstance(rec, Lowering):
        return is_invalid(rec.intrinsic) or depends_on_invalid(rec.node)
    if isinstance(rec, Rewrite):
        return is_invalid(rec.target)
    if isinstance(rec, (ImmLeaf, PatLeaf)):
        return rec.xform is not None and is_invalid(rec.xform)
    return False


# ------------------------------------------------- constructor argument mistakes


def _guard_init(cls: type) -> None:
    """Wrap ``cls.__init__`` so a call with an unknown keyword, a missing required
    argument or too many positional arguments is a SpecError at the spec line (not a
    Python TypeError). Inside ``collecting_construction_errors`` the record is still
    built (known arguments kept, missing ones None), reported and marked invalid."""
    import inspect

    init = cls.__init__
    if getattr(init, "_tdgen_guarded", False):
        return
    sig = inspect.signature(init)
    params = [p for p in list(sig.parameters.values())[1:] if p.name != "span"]
    positional = [p.name for p in params if p.kind is not inspect.Parameter.KEYWORD_ONLY]
    known = {p.name for p in sig.parameters.values()} - {"self"}
    required = [p.name for p in params if p.default is inspect.Parameter.empty]

    def __init__(self, *args: Any, **kw: Any) -> None:
        extra_kw = [k for k in kw if k not in known]
        given = set(positional[: len(args)]) | set(kw)
        twice = [k for k in kw if k in positional[: len(args)]]
        missing = [n for n in required if n not in given]
        if not (extra_kw or twice or missing or len(args) > len(positional)):
            init(self, *args, **kw)
            return
        span = kw.get("span") or caller_span()
        raw = kw.get("name", args[0] if args and positional and positional[0] == "name" else None)
        record = raw if isinstance(raw, str) else cls.__name__
        errs: list[SpecError] = []
        shown = ", ".join(positional)
        for k in extra_kw:
            import difflib

            near = difflib.get_close_matches(k, positional, n=1)
            hint = f" (nearest: '{near[0]}')" if near else ""
            errs.append(SpecError(span, expected(f"a field of {cls.__name__} ({shown})", f"'{k}'{hint}"), record=record, field=k))
        for k in twice:
            errs.append(SpecError(span, expected("one value", "it given by position and by keyword"), record=record, field=k))
        for k in missing:
            errs.append(SpecError(span, expected(f"a value (required by {cls.__name__})", "none"), record=record, field=k))
        if len(args) > len(positional):
            errs.append(SpecError(
                span, expected(f"at most {len(positional)} positional arguments ({shown})", len(args)), record=record
            ))
        if _SINK.get() is None:
            raise errs[0] if len(errs) == 1 else ErrorList(errs)
        kept = {k: v for k, v in kw.items() if k in known and k not in twice}
        kept.update({k: None for k in missing})
        kept.setdefault("span", span)
        token = _FILLED.set(frozenset(missing))
        try:
            init(self, *args[: len(positional)], **kept)
        finally:
            _FILLED.reset(token)
        report_construction_errors(self, errs)

    __init__._tdgen_guarded = True  # type: ignore[attr-defined]
    __init__.__wrapped__ = init  # type: ignore[attr-defined]
    __init__.__doc__ = init.__doc__
    cls.__init__ = __init__  # type: ignore[method-assign]


def _guard_all(base: type) -> None:
    for sub in base.__subclasses__():
        _guard_init(sub)
        _guard_all(sub)


_guard_all(Record)
