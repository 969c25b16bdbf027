"""Checks of the declarations themselves: names, intrinsics, SDNodes, registers, wave facts, data layout.

Record names unique across the TableGen namespace (defm expansions and the profiles of
nodes included) and not taken by a builtin or by llvm/Target/Target.td
(``tdgen.check.llvm_names``); intrinsic names ``int_<target_prefix>_...``, their types and
property indices; profiles' constraint operand numbers, SDNP properties and opcodes in
the target's ``isd_namespace``; register classes (file, types, registers, sub-register
components); operand kinds' value types; ``Target.wave``; ``Target.data_layout`` (a
string LLVM 19 accepts, read by ``patterns.ir.datalayout``).
"""

from __future__ import annotations

from ..builtins import BUILTIN_NODES
from ..errors import Span, expected
from ..hw import DivergenceKind
from ..model.instructions import Defm, Instruction
from ..model.intrinsics import Intrinsic
from ..model.nodes import SDNP_PROPERTIES, SDNode, SDTypeProfile
from ..model.record import Record, is_invalid
from .base import CheckerBase, known_intrinsic_type, known_value_type


# SDNode classes of TargetSelectionDAG.td a target's own node may be (``SDNode``: a
# node with a profile and properties)
SDNODE_CLASSES = frozenset({"SDNode"})

# Intrinsic properties of llvm/IR/Intrinsics.td tdgen emits: whether each takes an
# argument index (``ImmArg<ArgIndex<N>>``)
INTRINSIC_PROPERTIES = {
    "IntrNoMem": False, "IntrReadMem": False, "IntrWriteMem": False, "IntrArgMemOnly": False,
    "IntrInaccessibleMemOnly": False, "IntrInaccessibleMemOrArgMemOnly": False, "IntrConvergent": False,
    "IntrSpeculatable": False, "IntrWillReturn": False, "IntrNoCallback": False, "IntrNoFree": False,
    "IntrNoSync": False, "IntrHasSideEffects": False, "IntrNoReturn": False, "IntrCold": False,
    "IntrNoDuplicate": False, "IntrNoMerge": False,
    "ImmArg": True, "NoUndef": True, "NoCapture": True, "ReadOnly": True, "WriteOnly": True, "ReadNone": True,
    "Returned": True, "NoAlias": True, "NonNull": True,
}


class RecordChecks(CheckerBase):
    """Checks of names, intrinsics, SDNodes and profiles, register classes, operand kinds, wave facts and the
    data layout."""

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

    def check_data_layout(self) -> None:
        """``Target.data_layout``: a layout string LLVM 19 accepts (``""``: LLVM's default)."""
        from patterns.ir.datalayout import LayoutError, layout_of_text

        t = self.t
        if not isinstance(t.data_layout, str):
            return  # (the constructor reports a value of another kind)
        try:
            layout_of_text(t.data_layout)
        except LayoutError as e:
            self.err(t.field_span("data_layout")[0], f"{e.message} (at offset {e.offset})", t.name, "data_layout")

    def check_operand_kind(self, o) -> None:
        from ..builtins import BUILTIN_OPERANDS

        if o.builtin and BUILTIN_OPERANDS.get(o.name) != o:
            self.err(o.field_span("builtin")[0], expected("builtin=False for an operand kind the target declares",
                                                          o.builtin), o.name, "builtin")
        if not known_value_type(o.vt):
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
        for p in self.t.emitted_profiles():  # (those of nodes, defined in the .td without being listed)
            if isinstance(p.name, str) and p.name and not (p.name in seen and seen[p.name] == p):
                visit(p.name, p, p.field_span("name")[0])
        from ..builtins import BUILTIN_FRAGS
        from .llvm_names import TARGET_TD_CLASSES, TARGET_TD_DEFS

        for name, rec in seen.items():
            if name in BUILTIN_NODES or name in BUILTIN_FRAGS:
                self.err(rec.field_span("name")[0], expected("a name not taken by a builtin SDNode or PatFrag", f"'{name}'"), name, "name")
            elif (name in TARGET_TD_DEFS or name in TARGET_TD_CLASSES) and not getattr(rec, "builtin", False):
                kind = "def" if name in TARGET_TD_DEFS else "class"
                self.err(rec.field_span("name")[0], expected(
                    f"a name llvm/Target/Target.td does not define (it has a {kind} '{name}')", f"'{name}'"), name,
                    "name")

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
                if getattr(t, "tablegen", None) is None or not known_intrinsic_type(t):
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
            arg = getattr(p, "arg", None)
            takes = INTRINSIC_PROPERTIES.get(getattr(p, "name", None))
            if takes is None or takes != (arg is not None):
                want = ("an intrinsic property (" + ", ".join(sorted(INTRINSIC_PROPERTIES)) + ")" if takes is None
                        else f"{p.name} {'with' if takes else 'without'} an argument index")
                self.err(i.field_span("properties")[0], expected(want, repr(p)), i.name, "properties")
                continue
            if arg is not None and (not isinstance(arg, int) or isinstance(arg, bool)):
                self.err(i.field_span("properties")[0], expected("an integer argument index", repr(arg)), i.name,
                         "properties")
                continue
            if getattr(p, "arg", None) is not None and p.arg != -1 and not (0 <= p.arg < len(i.params)):
                self.err(
                    i.field_span("properties")[0],
                    expected(f"an argument index below {len(i.params)}", p.tablegen),
                    i.name,
                    "properties",
                )

    # ------------------------------------------------------------- SDNodes
    def check_profile_builtin(self, p: SDTypeProfile, owner: str) -> None:
        """A profile marked builtin is one of tdgen.builtins' (a builtin profile is not
        emitted: a target's own one marked builtin would be named by its nodes and defined
        nowhere -- found by the spec fuzz)."""
        from ..builtins import BUILTIN_PROFILES

        if p.builtin and BUILTIN_PROFILES.get(p.name or "") != p and not any(
                n.profile == p for n in BUILTIN_NODES.values()):
            self.err(p.field_span("builtin")[0], expected("builtin=False for a profile the target declares (only "
                                                          "tdgen.builtins' profiles are builtin)", p.builtin),
                     p.name or owner, "builtin")

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
        if n.builtin and BUILTIN_NODES.get(n.name) != n:
            # a builtin node is not emitted: a target's own node marked builtin would be
            # used by its patterns and defined nowhere
            self.err(n.field_span("builtin")[0], expected("builtin=False for a node the target declares (only "
                                                          "tdgen.builtins' nodes are builtin)", n.builtin),
                     n.name, "builtin")
        if not n.builtin and n.sdclass not in SDNODE_CLASSES:
            self.err(n.field_span("sdclass")[0], expected(f"a TableGen SDNode class ({', '.join(sorted(SDNODE_CLASSES))})",
                                                          repr(n.sdclass)), n.name, "sdclass")
        ns = self.t.isd_namespace
        if ns and n.namespace != ns:
            self.err(n.field_span("opcode")[0], expected(f"an opcode '{ns}::NAME'", f"'{n.opcode}'"), n.name, "opcode")
        for prop in n.properties:
            if prop not in SDNP_PROPERTIES:
                self.err(n.field_span("properties")[0], expected("an SDNP property", f"'{prop}'"), n.name, "properties")
        if not n.builtin and n.profile.builtin and not any(p is n.profile for p in self.t.profiles):
            self.check_profile_builtin(n.profile, n.name)
        if n.profile.name is None or (not n.builtin and not any(p is n.profile or p == n.profile
                                                                 for p in self.t.profiles)):
            self.check_profile(n.profile, n.name if n.profile.name is None else n.profile.name)

    def check_regclass(self, rc) -> None:
        if rc.file not in ("scalar", "vector"):
            self.err(rc.field_span("file")[0], expected("'scalar' or 'vector'", f"'{rc.file}'"), rc.name, "file")
        if not rc.types:
            self.err(rc.field_span("types")[0], expected("at least one value type", "none"), rc.name, "types")
        for vt in rc.types:
            if not known_value_type(vt):
                self.err(rc.field_span("types")[0], expected("value types of tdgen.types", repr(vt)), rc.name, "types")
                break
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
