"""The ``Target`` record: a whole target's declarations and the views the other stages read.

``Target(name, namespace, target_prefix, ...)`` holds the declarations as the spec lists
them (tuples, in record order), plus ``uniformity`` (``tdgen.hw.UniformityModel``),
``wave`` (``tdgen.hw.WaveModel``) and ``data_layout`` (the target machine's LLVM data
layout string: what ``opt -mtriple`` gives a module without its own). Its lookups
(``sdnodes``, ``patfrags`` -- builtin records of ``tdgen.builtins`` included --,
``intrinsics_by_name`` ...) and resolved views
(``instructions``, ``selection_patterns()``, computed by ``tdgen.resolve``) are cached on
the record.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterable, Union

from ..dag import Dag, Node
from ..errors import ErrorList, ParseError, SpecError
from ..hw import DivergenceKind, UniformityModel, WaveModel
from .fragments import DivergenceFrag, ImmLeaf, PatFrag, PatLeaf, SDNodeXForm
from .instructions import Defm, InstrClass, Instruction, Multiclass, Pat
from .intrinsics import Intrinsic
from .legality import Legality
from .lowering import CustomSelect, Lowering, Rewrite
from .nodes import SDNode, SDTypeProfile
from .record import Record, guard_constructors
from .registers import OperandKind, RegisterClass
from .resolved import ResolvedInstruction, SelectionPattern


@dataclass(frozen=True)
class Target(Record):
    """A whole target (see ``tdgen.model``). ``namespace`` is the TableGen/C++
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
    # LLVM's data layout string of the target machine (TargetMachine::createDataLayout):
    # the layout of a module without its own ``target datalayout``; "" is LLVM's default
    data_layout: str = ""
    # the lowering tables of the target's <NS>ISelLowering constructor (tdgen.model.legality)
    legality: Legality | None = None
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
        from ..builtins import BUILTIN_OPERANDS

        out = dict(BUILTIN_OPERANDS)
        out.update({o.name: o for o in self.operands})
        return out

    @cached_property
    def sdnodes(self) -> dict[str, SDNode]:
        from ..builtins import BUILTIN_NODES

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
        from ..builtins import BUILTIN_FRAGS

        out = dict(BUILTIN_FRAGS)
        out.update({f.name: f for f in self.frags})
        for key, (cls, arg) in sorted(self._frag_instances().items()):
            out[key] = cls.instantiate(arg)
        return out

    def _frag_instances(self) -> dict[str, tuple[DivergenceFrag, str]]:
        """Every ``Class<op>`` operator used in any pattern whose class is a DivergenceFrag."""
        found: dict[str, tuple[DivergenceFrag, str]] = {}
        from ..dag_parse import parse_pattern

        classes = self.frag_classes_by_name
        nodes: list[Node] = []
        for text in [p.src for p in self.patterns] + [p.dst for p in self.patterns] + [f.fragment for f in self.frags]:
            try:
                nodes.append(parse_pattern(text))
            except ParseError:
                continue
        for inst in self.resolved_instructions()[0].values():
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
    def resolved_instructions(self) -> tuple[dict[str, ResolvedInstruction], list[SpecError]]:
        """Resolved instruction defs by name, in record order, and the errors found
        resolving them."""
        cached = self.__dict__.get("_resolved_cache")
        if cached is None:
            from ..resolve import resolve_instructions

            cached = resolve_instructions(self.defs)
            self.__dict__["_resolved_cache"] = cached
        return cached

    @property
    def instructions(self) -> dict[str, ResolvedInstruction]:
        """Resolved instruction defs by name, in record order."""
        insts, errors = self.resolved_instructions()
        if errors:
            raise ErrorList(errors)
        return insts

    def selection_patterns(self) -> tuple[SelectionPattern, ...]:
        cached = self.__dict__.get("_selection_cache")
        if cached is None:
            from ..resolve import selection_patterns

            cached = selection_patterns(self.instructions, self.patterns)
            self.__dict__["_selection_cache"] = cached
        return cached

    def emitted_profiles(self) -> tuple[SDTypeProfile, ...]:
        """The type profiles the generated .td defines or writes inline: the listed ones
        and those of the target's own nodes (each profile once, listed ones first)."""
        seen: dict[int, SDTypeProfile] = {}
        for p in (*self.profiles, *(n.profile for n in self.nodes if not n.builtin)):
            if isinstance(p, SDTypeProfile) and not p.builtin:
                seen.setdefault(id(p), p)
        return tuple(seen.values())

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


guard_constructors(Target)
