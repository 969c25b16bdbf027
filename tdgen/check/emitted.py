"""Checks of what reaches the generated .td and C++ as written: names, types, strings, registers, globs.

What llvm-tblgen-19 or g++ would reject (or misread) in the emitted files, caught at
load with the record and field:

- identifiers: the target's ``namespace`` / ``isd_namespace`` (file names and C++
  namespaces), record names, register names, field and template-argument names and
  operand names are TableGen identifiers (``[A-Za-z_][A-Za-z0-9_]*``) and not one of
  TableGen's reserved words; names that become C++ enumerators (namespaces,
  instructions, registers, target SDNode opcodes) are not C++ keywords; a
  ``clang_builtin`` is a C identifier; the target's name is a folder name
  (``Target.name`` equal to the folder of its ``spec.py``: ``tdgen.check.checker``);
- field declarations: a type TableGen has (``bit``, ``int``, ``string``, ``code``,
  ``dag``, ``bits<N>`` with 1 <= N <= 65536, ``list<T>``, a record class of Target.td);
  no name of TableGen ``Instruction``'s own fields (declaring ``Pattern`` again would
  redefine it); defaults and class ``lets`` fit their declared types (also in classes
  no def uses);
- strings: no control characters in the strings written into .td (asm, string fields);
- asm strings: every ``{name}`` is a template argument and every ``$op`` /
  ``${op}`` / ``${op:modifier}`` an operand of the instruction;
- names llvm/Target/Target.td already defines (``tdgen.check.llvm_names``) name no
  register (records: ``tdgen.check.records``); profiles only a node uses are named like
  listed ones; sub-register indices are identifiers, once per class, laid out alike in
  every class naming them;
- registers: each register in one class, or in classes of one register file of which
  one holds all registers of the other (TableGen's sub-class relation); an encoding
  (the number a register's name ends with, else its index) that fits the 16-bit
  ``HWEncoding``;
- divergence: every ``DivergenceRule`` glob is one LLVM 19's ``GlobPattern::create``
  accepts (``tdgen.globpattern``), and no rule matching a declared intrinsic gives it
  another answer than the intrinsic's own ``divergence``.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import Span, expected
from ..model.instructions import BASE_FIELDS, Code, Defm, InstrClass, Instruction, Multiclass, Ref
from ..model.record import is_invalid
from .base import CheckerBase

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

# llvm-tblgen-19's keywords (TGLexer): none of them can name a record or a field
TABLEGEN_RESERVED = frozenset({
    "assert", "bit", "bits", "class", "code", "dag", "def", "defm", "defset", "deftype", "defvar", "dump",
    "else", "false", "field", "foreach", "if", "in", "include", "int", "let", "list", "multiclass", "string",
    "then", "true",
})

CPP_KEYWORDS = frozenset("""
alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t char32_t class
compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield decltype
default delete do double dynamic_cast else enum explicit export extern false float for friend goto if inline
int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public register
reinterpret_cast requires return short signed sizeof static static_assert static_cast struct switch template
this thread_local throw true try typedef typeid typename union unsigned using virtual void volatile wchar_t
while xor xor_eq
""".split())

# The fields of llvm-tblgen-19's ``class Instruction`` (Target.td), and TableGen's NAME
INSTRUCTION_OWN_FIELDS = frozenset("""
Size DecoderNamespace Predicates DecoderMethod hasCompleteDecoder Namespace OutOperandList InOperandList
AsmString EncodingInfos Pattern Uses Defs CodeSize AddedComplexity isPreISelOpcode isReturn isBranch
isEHScopeReturn isIndirectBranch isCompare isMoveImm isMoveReg isBitcast isSelect isBarrier isCall isAdd isTrap
canFoldAsLoad mayLoad mayStore mayRaiseFPException isConvertibleToThreeAddress isCommutable isTerminator
isReMaterializable isPredicable isUnpredicable hasDelaySlot usesCustomInserter hasPostISelHook hasCtrlDep
isNotDuplicable isConvergent isAuthenticated isAsCheapAsAMove hasExtraSrcRegAllocReq hasExtraDefRegAllocReq
isRegSequence isPseudo isMeta isExtractSubreg isInsertSubreg variadicOpsAreDefs hasSideEffects isCodeGenOnly
isAsmParserOnly hasNoSchedulingInfo Itinerary SchedRW Constraints DisableEncoding PostEncoderMethod TSFlags
AsmMatchConverter TwoOperandAliasConstraint AsmVariantName UseNamedOperandTable UseLogicalOperandMappings
FastISelShouldIgnore HasPositionOrder NAME
""".split())

# Instruction's own fields Target.td leaves unset ('?': inferred from the patterns)
UNSET_OWN_FIELDS = frozenset({"mayLoad", "mayStore", "hasSideEffects"})

# Record classes of Target.td / TargetSelectionDAG.td a field or argument may be typed by
RECORD_TYPES = frozenset({
    "RegisterClass", "Register", "RegisterOperand", "Operand", "DAGOperand", "ValueType", "SDNode",
    "SDPatternOperator", "PatFrag", "PatFrags", "Intrinsic", "Instruction", "InstrItinClass", "Predicate",
    "SubRegIndex", "ComplexPattern", "SDNodeXForm", "SchedReadWrite", "SchedWrite", "SchedRead",
})
MAX_BITS = 65536
MAX_ENCODING = 0xFFFF

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# fields whose text may span lines (C++ code, Python models, documentation)
_MULTILINE_FIELDS = frozenset({"code", "predicate_code", "model", "doc", "description", "note", "fragment",
                               "pattern", "src", "dst", "outs", "ins", "lets", "asm"})  # (asm: checked resolved)
_ASM_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_ASM_OPERAND = re.compile(r"\$(?:\{([^}:]*)(?::[^}]*)?\}|([A-Za-z_][A-Za-z0-9_]*)|(\$)|)")


def type_problem(t: Any) -> str | None:
    """None when ``t`` is a TableGen type a field or template argument can have."""
    if not isinstance(t, str):
        return "a TableGen type written as a string"
    s = t.strip()
    if s in ("bit", "int", "string", "code", "dag"):
        return None
    m = re.fullmatch(r"bits\s*<\s*(-?\d+)\s*>", s)
    if m:
        n = int(m.group(1))
        return None if 1 <= n <= MAX_BITS else f"bits<N> with 1 <= N <= {MAX_BITS}"
    m = re.fullmatch(r"list\s*<(.*)>", s)
    if m:
        return type_problem(m.group(1))
    if s in RECORD_TYPES:
        return None
    return ("a TableGen type (bit, int, string, code, dag, bits<N>, list<T> or a record class of Target.td "
            "such as RegisterClass)")


# Record classes of Target.td and the classes a value of each may also be (its subclasses)
_SUBCLASSES = {
    "DAGOperand": {"RegisterClass", "RegisterOperand", "Operand"},
    "SDPatternOperator": {"SDNode", "PatFrag", "PatFrags", "Intrinsic"},
    "PatFrags": {"PatFrag"},
    "SchedReadWrite": {"SchedWrite", "SchedRead"},
}


def _bit_width(t: str) -> int | None:
    """1 for bit, N for bits<N>, 0 for int, None for the other types."""
    if t in ("bit", "int"):
        return 1 if t == "bit" else 0
    m = re.fullmatch(r"bits<(\d+)>", t)
    return int(m.group(1)) if m else None


def assignable(field_type: str, value_type: str) -> bool:
    """Whether llvm-tblgen-19 lets a value of ``value_type`` (a template argument's type)
    initialise a field of ``field_type``: the same type; string and code; int and bit or
    bits<N>, bit and bits<1>; a record class and its subclasses; list<T> of such."""
    a, b = (re.sub(r"\s+", "", t) for t in (field_type, value_type))
    if a == b:
        return True
    if a in ("string", "code") and b in ("string", "code"):
        return True
    wa, wb = _bit_width(a), _bit_width(b)
    if wa is not None and wb is not None:  # (0: int, which converts to and from any width)
        return wa == 0 or wb == 0 or wa == wb
    la, lb = re.fullmatch(r"list<(.*)>", a), re.fullmatch(r"list<(.*)>", b)
    if la and lb:
        return assignable(la.group(1), lb.group(1))
    return b in _SUBCLASSES.get(a, ())


def identifier_problem(name: Any, *, cpp: bool = False) -> str | None:
    """None when ``name`` is a TableGen identifier that is no reserved word (and, with
    ``cpp``, no C++ keyword), else what it should be."""
    want = "a TableGen identifier ([A-Za-z_][A-Za-z0-9_]*)"
    if not isinstance(name, str) or not IDENT.match(name):
        return want
    if name in TABLEGEN_RESERVED:
        return "a name that is not a TableGen reserved word"
    if cpp and name in CPP_KEYWORDS:
        return "a name that is not a C++ keyword"
    return None


def shown(v: Any) -> str:
    """A found value for a message (control characters escaped by the error's format)."""
    return f"'{v}'" if isinstance(v, str) else repr(v)


def _subreg_index_layout(target) -> list[tuple[Any, str, str]]:
    """(class, index, ``SubRegIndex<width, offset>``) for each sub-register index of each
    tuple class, as tdgen.emit_td lays them out: the k-th component's width (the size of
    the first class holding that register) at the offset of the components before it."""
    bits: dict[str, int] = {}
    for rc in target.register_classes:
        for r in rc.registers:
            bits.setdefault(r, rc.size_bits)
    out = []
    for rc in target.register_classes:
        if rc.subregs and isinstance(rc.subregs[0], tuple):
            offset = 0
            even = rc.size_bits // max(1, len(rc.subregs[0]))
            for index, part in zip(rc.subreg_indices, rc.subregs[0]):
                width = bits.get(part, even)
                out.append((rc, index, f"SubRegIndex<{width}, {offset}>"))
                offset += width
    return out


class EmittedChecks(CheckerBase):
    """Checks of identifiers, field types, strings, asm operands, registers and globs."""

    def ident(self, name: Any, span: Span | None, record: str, field: str, *, cpp: bool = False) -> bool:
        why = identifier_problem(name, cpp=cpp)
        if why is not None:
            self.err(span, expected(why, shown(name)), record, field)
            return False
        return True

    # ------------------------------------------------------------ identifiers
    def check_identifiers(self) -> None:
        t = self.t
        tname = t.name if isinstance(t.name, str) else None
        if tname is not None:
            self.ident(t.name, t.field_span("name")[0], t.name, "name")
            self.ident(t.namespace, t.field_span("namespace")[0], tname, "namespace", cpp=True)
            if t.isd_namespace:
                self.ident(t.isd_namespace, t.field_span("isd_namespace")[0], tname, "isd_namespace", cpp=True)
            if not (isinstance(t.target_prefix, str) and re.fullmatch(r"[A-Za-z0-9_]+", t.target_prefix)):
                self.err(t.field_span("target_prefix")[0], expected("an intrinsic prefix ([A-Za-z0-9_]+)",
                                                                    shown(t.target_prefix)), tname, "target_prefix")
        for rec in t.records():
            if self.tolerant and is_invalid(rec):
                continue
            name = getattr(rec, "name", None)
            if not isinstance(name, str) or (isinstance(rec, Instruction) and not name):
                continue
            span = rec.field_span("name")[0]
            cpp = isinstance(rec, (Instruction, Defm))
            if not self.ident(name, span, name, "name", cpp=cpp):
                continue
            if isinstance(rec, Multiclass):
                for tmpl in rec.defs:  # (written ``def <name>`` inside the multiclass)
                    if isinstance(tmpl.name, str) and tmpl.name:
                        self.ident(tmpl.name, tmpl.field_span("name")[0], f"{rec.name}.{tmpl.name}", "name")
            if isinstance(rec, Defm) and rec.multiclass not in t.multiclasses:
                mc = rec.multiclass
                self.err(rec.field_span("multiclass")[0], expected(
                    "a multiclass the target lists", f"'{mc.name}' (defined at {mc.span} but not listed in "
                    "Target(...): add it to Target(multiclasses=[...]))"), name, "multiclass")
            if isinstance(rec, Defm):
                for tmpl in rec.multiclass.defs:
                    full = rec.name + tmpl.name
                    if IDENT.match(full) and full in CPP_KEYWORDS:
                        self.ident(full, span, full, "name", cpp=True)
            if isinstance(rec, (InstrClass, Multiclass)):
                self.check_declarations(rec)
        listed = {id(p) for p in t.profiles}
        for p in t.emitted_profiles():
            if id(p) not in listed and p.name is not None:
                self.ident(p.name, p.field_span("name")[0], p.name if isinstance(p.name, str) else "SDTypeProfile",
                           "name")
        self.check_subreg_indices()
        for rec in (*t.records(), *t.patterns, *t.register_classes):
            self.check_int_fields(rec)
            self.check_string_fields(rec)
            if isinstance(rec, Multiclass) and not rec.defs:
                self.err(rec.field_span("defs")[0], expected("at least one def in a multiclass", "none"), rec.name,
                         "defs")
        for f in t.frags:
            if getattr(f, "instance_of", None) is not None:
                self.err(f.field_span("instance_of")[0], expected(
                    "instance_of=None for a fragment the target lists (instances of a divergence class are made "
                    "by writing Class<op> in a pattern)", shown(f.instance_of)), f.name, "instance_of")
        self.check_register_names_unique()
        for n in t.nodes:
            op = n.opcode
            if n.builtin or not isinstance(op, str):
                continue
            m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)::([A-Za-z_][A-Za-z0-9_]*)", op)
            if m is None:
                self.err(n.field_span("opcode")[0], expected("a C++ enumerator 'Namespace::NAME'", shown(op)), n.name,
                         "opcode")
            else:
                self.ident(m.group(2), n.field_span("opcode")[0], n.name, "opcode", cpp=True)
        if isinstance(t.namespace, str):
            made = {t.namespace: "the Target def", t.namespace + "InstrInfo": "the InstrInfo def",
                    t.namespace + "Reg": "the register class", t.namespace + "RegTuple": "the register-tuple class",
                    t.namespace + "DivergenceRule": "the divergence-rule class"}
            for rec in t.records():
                name = getattr(rec, "name", None)
                if isinstance(name, str) and name in made:
                    self.err(rec.field_span("name")[0], expected(
                        f"a name other than those tdgen defines for namespace '{t.namespace}' ({made[name]} "
                        f"'{name}')", shown(name)), name, "name")
        for i in t.intrinsics:
            cb = i.clang_builtin
            if cb is not None and not (isinstance(cb, str) and IDENT.match(cb)):
                self.err(i.field_span("clang_builtin")[0], expected("a C identifier ([A-Za-z_][A-Za-z0-9_]*)",
                                                                    shown(cb)), i.name, "clang_builtin")

    def check_string_fields(self, rec) -> None:
        """Strings a record writes into .td (names, kinds, operand types, asm) hold no
        control characters; code, documentation and Python models may span lines."""
        import dataclasses

        if self.tolerant and is_invalid(rec):
            return
        for f in dataclasses.fields(rec):
            if f.name in _MULTILINE_FIELDS or f.name in ("span", "name", "registers"):
                continue  # (names are checked as identifiers)
            v = getattr(rec, f.name, None)
            vals = v if isinstance(v, tuple) else (v,)
            bad = next((x for x in vals if isinstance(x, str) and _CONTROL.search(x)), None)
            if bad is not None:
                name = getattr(rec, "name", None)
                self.err(rec.field_span(f.name)[0], expected("a string without control characters", shown(bad)),
                         name if isinstance(name, str) else type(rec).__name__, f.name)

    def check_subreg_indices(self) -> None:
        """A register class's sub-register indices are identifiers, each once; an index
        named in several classes is the same SubRegIndex (width, offset) in each (the
        .td defines it once)."""
        bad: set[int] = set()
        for rc in self.t.register_classes:
            span = rc.field_span("subreg_indices")[0]
            for k, idx in enumerate(rc.subreg_indices):
                if not self.ident(idx, span, rc.name, "subreg_indices"):
                    bad.add(id(rc))
                    break
                if idx in rc.subreg_indices[:k]:
                    self.err(span, expected("each sub-register index once", f"'{idx}' twice"), rc.name,
                             "subreg_indices")
                    bad.add(id(rc))
                    break
        first: dict[str, tuple[Any, str]] = {}
        for rc, idx, text in _subreg_index_layout(self.t):
            if id(rc) in bad:
                continue
            seen = first.setdefault(idx, (rc, text))
            if seen[1] != text:
                self.err(rc.field_span("subreg_indices")[0], expected(
                    f"index '{idx}' as {seen[1]} as in '{seen[0].name}' (the .td defines an index once)", text),
                    rc.name, "subreg_indices")

    def check_register_names_unique(self) -> None:
        """Registers are TableGen defs too: no register may share a name with a record."""
        names: dict[str, Any] = {}
        for rec in self.t.records():
            n = getattr(rec, "name", None)
            if isinstance(n, str):
                names.setdefault(n, rec)
        from .llvm_names import TARGET_TD_CLASSES, TARGET_TD_DEFS

        for rc in self.t.register_classes:
            for r in (*rc.registers, *rc.subreg_indices):
                if r in TARGET_TD_DEFS or r in TARGET_TD_CLASSES:
                    kind = "def" if r in TARGET_TD_DEFS else "class"
                    self.err(rc.field_span("registers")[0], expected(
                        f"register names llvm/Target/Target.td does not define (it has a {kind} '{r}')", f"'{r}'"),
                        rc.name, "registers")
                    break
                other = names.get(r)
                if other is not None and other is not rc:
                    self.err(rc.field_span("registers")[0], expected(
                        f"register names that name no other record ('{r}' is the {type(other).__name__} at "
                        f"{other.span})", f"'{r}'"), rc.name, "registers")
                    break

    def check_int_fields(self, rec) -> None:
        """Integer fields of a record (sizes, complexities, counts) fit TableGen's 64-bit int."""
        import dataclasses

        if self.tolerant and is_invalid(rec):
            return
        for f in dataclasses.fields(rec):
            v = getattr(rec, f.name, None)
            if isinstance(v, int) and not isinstance(v, bool) and not -(1 << 63) <= v < (1 << 63):
                name = getattr(rec, "name", None)
                self.err(rec.field_span(f.name)[0], expected("an integer that fits TableGen's 64-bit int", v),
                         name if isinstance(name, str) else type(rec).__name__, f.name)

    def _global_names(self) -> set[str]:
        """Names of the defs a pattern may use: value types, builtin nodes, fragments and
        operand kinds, and the target's records."""
        got = self.__dict__.get("_global_name_set")
        if got is None:
            from ..builtins import BUILTIN_FRAGS, BUILTIN_NODES, BUILTIN_OPERANDS
            from ..types import VALUE_TYPES

            got = set(VALUE_TYPES) | set(BUILTIN_NODES) | set(BUILTIN_FRAGS) | set(BUILTIN_OPERANDS)
            got |= {n for n in (getattr(r, "name", None) for r in self.t.records()) if isinstance(n, str)}
            self.__dict__["_global_name_set"] = got
        return got

    def check_declarations(self, c: InstrClass | Multiclass) -> None:
        """A class's (or multiclass's) template arguments and fields: names, types,
        defaults; a class's lets: values fitting the declared type."""
        from ..resolve import type_mismatch

        for p in c.params:
            span = c.field_span("params")[0]
            self.ident(p.name, span, c.name, f"params.{p.name}" if isinstance(p.name, str) else "params")
            why = type_problem(p.type)
            if why is not None:
                self.err(span, expected(why, shown(p.type)), c.name, f"params.{p.name}")
        if not isinstance(c, InstrClass):
            return
        params = {p.name: p.type for p in c.params if isinstance(p.name, str)}
        types: dict[str, str] = {k: ty for k, (ty, _) in BASE_FIELDS.items()}
        for anc in c.chain()[:-1]:
            types.update({f.name: f.type for f in anc.fields if isinstance(f.name, str)})
        for f in c.fields:
            span = c.field_span("fields")[0]
            fld = f"fields.{f.name}" if isinstance(f.name, str) else "fields"
            if not self.ident(f.name, span, c.name, fld):
                continue
            if f.name in self._global_names():
                self.err(span, expected("a field name that names no record (inside the class it would hide the "
                                        "record of that name from the class's patterns)", shown(f.name)), c.name, fld)
                continue
            if f.name in INSTRUCTION_OWN_FIELDS:
                self.err(span, expected("a field name that is not one of TableGen Instruction's own fields "
                                        "(set those with lets)", shown(f.name)), c.name, fld)
                continue
            why = type_problem(f.type)
            if why is not None:
                self.err(span, expected(why, shown(f.type)), c.name, fld)
                continue
            types[f.name] = f.type
            ref = f.default.name if isinstance(f.default, Ref) else None
            if ref in params and isinstance(params[ref], str) and not assignable(f.type, params[ref]):
                self.err(span, expected(f"a template argument of a type field '{f.name}' ({f.type}) takes",
                                        f"'{ref}' of type {params[ref]}"), c.name, fld)
                continue
            if not isinstance(f.default, (Ref, Code)) and f.default is not None and repr(f.default) != "REQUIRED":
                want = type_mismatch(f.default, f.type)
                if want is not None:
                    self.err(span, expected(want, shown(f.default)), c.name, f.name)
        from ..srcpos import key_span

        for k, v in c.lets:
            ty = types.get(k)
            if isinstance(v, Ref) and ty is not None and v.name in params and isinstance(params[v.name], str) \
                    and not assignable(ty, params[v.name]):
                self.err(key_span(c.span, "lets", k), expected(
                    f"a template argument of a type field '{k}' ({ty}) takes",
                    f"'{v.name}' of type {params[v.name]}"), c.name, k)
                continue
            if ty is None or isinstance(v, (Ref, Code)):
                continue  # (an undeclared field is reported where the class is resolved)
            want = type_mismatch(v, ty)
            if want is not None:
                self.err(key_span(c.span, "lets", k), expected(want, shown(v)), c.name, k)

    # ------------------------------------------------------------ instructions
    def check_emitted_instruction(self, ri) -> None:
        """A resolved instruction: operand names, string values, the asm string."""
        name = ri.name
        ops = {o.name for o in ri.outs + ri.ins}
        for o in ri.outs + ri.ins:
            self.ident(o.name, o.span, name, "operands")
        for k, v in ri.fields:
            if isinstance(v, str) and _CONTROL.search(v):
                self.err(ri.span, expected("a string without control characters", shown(v)), name, k)
            elif k == "Namespace" and isinstance(v, str) and identifier_problem(self.t.namespace, cpp=True) is None \
                    and v != self.t.namespace:
                # (llvm-tblgen-19 takes the instruction enum's namespace from one instruction:
                # another one, or none, breaks -gen-instr-info)
                from ..srcpos import key_span

                self.err(key_span(ri.span, "lets", k) or ri.span, expected(
                    f"the target's namespace '{self.t.namespace}' as the instruction's Namespace", shown(v)), name, k)
            elif v is None and k in INSTRUCTION_OWN_FIELDS and k not in UNSET_OWN_FIELDS:
                # (llvm-tblgen-19's backends read these: "field 'Size' exists but does not have an int value")
                from ..srcpos import key_span

                self.err(key_span(ri.span, "lets", k) or ri.span, expected(f"a value for '{k}' (of Instruction's own fields only "
                                           f"{', '.join(sorted(UNSET_OWN_FIELDS))} may stay unset)", "None"), name, k)
        asm = ri.asm
        if not isinstance(asm, str) or ri.name in self._unresolved():
            return  # (operands not resolved: the resolution errors are the report)
        span, fld = self._asm_span(ri)
        if _CONTROL.search(asm):
            self.err(span, expected("an asm string without control characters", shown(asm)), name, fld)
            return
        for m in _ASM_PLACEHOLDER.finditer(asm):
            params = self._params(ri)
            self.err(span, expected(f"a template argument in '{{{m.group(1)}}}' "
                                    f"({', '.join(sorted(params)) or 'none in scope'})", f"'{m.group(1)}'"),
                     name, fld)
        for m in _ASM_OPERAND.finditer(asm):
            if m.group(3) is not None:
                continue  # '$$': a literal '$'
            op = m.group(1) if m.group(1) is not None else m.group(2)
            if op is None or op not in ops:
                self.err(span, expected(f"an operand of {name} ({', '.join(o.name for o in ri.outs + ri.ins)}) "
                                        "after '$' in the asm string", f"'{m.group(0)}'"), name, fld)

    def _unresolved(self) -> set[str]:
        """Instructions whose resolution reported errors (their operand lists may be
        incomplete)."""
        got = self.__dict__.get("_unresolved_names")
        if got is None:
            got = {e.record for e in self.t.resolved_instructions()[1]}
            self.__dict__["_unresolved_names"] = got
        return got

    @staticmethod
    def _params(ri) -> set[str]:
        d = ri.declared_by
        out: set[str] = set()
        c = getattr(d, "cls", None)
        for k in (c.chain() if c is not None else ()):
            out |= {p.name for p in k.params}
        if ri.defm is not None:
            out |= {p.name for p in ri.defm.multiclass.params}
        return out

    @staticmethod
    def _asm_span(ri) -> tuple[Span | None, str]:
        """Where the asm string was written: the def's ``asm``, else the nearest class
        ``let asm``."""
        from ..srcpos import key_span

        d = ri.declared_by
        if getattr(d, "asm", None) is not None:
            return d.field_span("asm")[0], "asm"
        c = getattr(d, "cls", None)
        for k in reversed(c.chain() if c is not None else ()):
            if any(key == "asm" for key, _ in k.lets):
                return key_span(k.span, "lets", "asm"), "asm"
        return ri.span, "asm"

    # ---------------------------------------------------------------- registers
    def check_registers(self) -> None:
        t = self.t
        owner: dict[str, Any] = {}
        for rc in t.register_classes:
            if self.tolerant and is_invalid(rc):
                continue
            span = rc.field_span("registers")[0]
            bad_enc = None
            for i, r in enumerate(rc.registers):
                if not self.ident(r, span, rc.name, "registers", cpp=True):
                    break
                digits = re.search(r"(\d+)$", r)
                enc = int(digits.group(1)) if digits else i
                if enc > MAX_ENCODING and bad_enc is None:
                    bad_enc = (r, enc)
            if bad_enc is not None:
                self.err(span, expected(f"registers whose encodings fit the 16-bit HWEncoding (at most "
                                        f"{MAX_ENCODING})", f"'{bad_enc[0]}' with encoding {bad_enc[1]} "
                                        f"({len(rc.registers)} registers)"), rc.name, "registers")
            mine = set(rc.registers)
            for r in rc.registers:
                other = owner.get(r)
                if other is None:
                    owner[r] = rc
                    continue
                theirs = set(other.registers)
                related = other.file == rc.file and (mine <= theirs or theirs <= mine)
                if not related:
                    self.err(span, expected(
                        f"registers of its own (a register may be in two classes only when one class holds every "
                        f"register of the other, in one register file; '{r}' is also in '{other.name}' at "
                        f"{other.span})", f"'{r}' shared with '{other.name}'"), rc.name, "registers")
                    break
        for r in t.physical_registers:
            self.ident(r, t.field_span("physical_registers")[0], t.name, "physical_registers", cpp=True)

    # --------------------------------------------------------------- divergence
    def check_divergence_rules(self) -> None:
        from ..globpattern import compile_glob, glob_problem
        from ..hw import DivergenceRule

        t = self.t
        span = t.field_span("uniformity")[0]
        rules = getattr(t.uniformity, "rules", ())
        good: list[tuple[Any, Any]] = []
        for k, r in enumerate(rules):
            if not isinstance(r, DivergenceRule) or not isinstance(r.pattern, str):
                self.err(span, expected("a DivergenceRule with a glob string", f"rule {k}: {shown(r)}"), t.name,
                         "uniformity")
                continue
            why = glob_problem(r.pattern)
            if why is not None:
                self.err(span, expected("rule globs LLVM 19's GlobPattern::create accepts",
                                        f"rule {k} '{r.pattern}' ({why})"), t.name, "uniformity")
                continue
            good.append((compile_glob(r.pattern), r))
        for i in t.intrinsics:
            if (self.tolerant and is_invalid(i)) or not (isinstance(i.name, str) and i.name.startswith("int_")):
                continue  # (a name that is no intrinsic's is reported with the intrinsic)
            for match, r in good:
                if r.kind is not i.divergence and match(i.ir_name):
                    self.err(i.field_span("divergence")[0], expected(
                        f"one divergence answer for '{i.ir_name}' (the rule '{r.pattern}' says "
                        f"{r.kind.name}; drop the rule or make it agree)", i.divergence.name
                        if hasattr(i.divergence, "name") else shown(i.divergence)), i.name, "divergence")
                    break

    # ------------------------------------------------------------ target folder
    def check_target_folder(self) -> None:
        """A target folder's ``spec.py`` (``targets/<folder>/spec.py``) names the Target
        after its folder: tdgen writes ``out/<folder>`` and finds ``--target NAME`` by
        folder. (A spec elsewhere, loaded by path, is not one of the targets.)"""
        from pathlib import Path

        from ..paths import TARGETS

        t = self.t
        if not t.spec_folder or Path(t.spec_path).name != "spec.py" or not isinstance(t.name, str):
            return
        if Path(t.spec_folder).resolve().parent != TARGETS.resolve():
            return
        folder = Path(t.spec_folder).name
        if t.name != folder:
            self.err(t.field_span("name")[0], expected(
                f"the name of the target's folder, '{folder}' (tdgen writes out/<folder> and finds a target "
                "by its folder; rename one of them)", f"'{t.name}'"), t.name, "name")
