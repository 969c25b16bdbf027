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
  ``semantics`` (on classes and defs, the def's own winning): what the instruction does
  on a wave, as data (``tdgen.model.semantics``: ``Semantics``, built with ``Sem``).
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

Parts (this package's ``__init__`` re-exports what a spec writes)
-----------------------------------------------------------------
- ``record``: the ``Record`` base, construction errors, ``parse_field``;
- ``fieldtypes``: the kind of value each field takes, and the message when it is wrong;
- ``intrinsics``, ``nodes``, ``fragments``, ``registers``, ``instructions``,
  ``lowering``: the records by kind; ``legality``: the lowering tables
  (``Legality``: ``RegisterFor``, ``OperationAction``, ``LoadExtAction``,
  ``TruncStoreAction``; ``Target(legality=...)``), ``isd_opcodes`` the ISD names they use;
- ``resolved``: ``ResolvedInstruction``, ``OperandRef``, ``SelectionPattern``;
- ``target``: ``Target`` and ``depends_on_invalid``;
- ``semantics``: instruction semantics (``Semantics``, ``Sem``, the expression records).
"""


from .fragments import (
    DIVERGENT_PREDICATE,
    UNIFORM_PREDICATE,
    DivergenceFrag,
    ImmLeaf,
    PatFrag,
    PatLeaf,
    SDNodeXForm,
    divergent,
    uniform,
)
from .instructions import REQUIRED, Code, Defm, InstrClass, InstrField, Instruction, Multiclass, Param, Pat, Ref
from .intrinsics import (
    ImmArg,
    IntrArgMemOnly,
    IntrCold,
    IntrConvergent,
    IntrHasSideEffects,
    IntrInaccessibleMemOnly,
    Intrinsic,
    IntrNoCallback,
    IntrNoFree,
    IntrNoMem,
    IntrNoReturn,
    IntrNoSync,
    IntrProperty,
    IntrReadMem,
    IntrSpeculatable,
    IntrWillReturn,
    IntrWriteMem,
    NoCapture,
    NoUndef,
    ReadOnly,
)
from .legality import Legality, LoadExtAction, OperationAction, RegisterFor, TruncStoreAction
from .lowering import Const, CustomSelect, Lowering, Rewrite
from .nodes import (
    SDNode,
    SDTCisEltOfVec,
    SDTCisFP,
    SDTCisInt,
    SDTCisOpSmallerThanOp,
    SDTCisPtrTy,
    SDTCisSameAs,
    SDTCisSameNumEltsAs,
    SDTCisSameSizeAs,
    SDTCisVec,
    SDTCisVT,
    SDTCisVTSmallerThanOp,
    SDTCVecEltisVT,
    SDTypeProfile,
)
from .registers import OperandKind, RegisterClass, reg_names, reg_tuples
from .semantics import Sem, Semantics
from .target import Target
