"""TableGen emitter: a checked ``Target`` -> template contexts for its .td files.

Files per target (``Layout``): ``Intrinsics<NS>.td`` (intrinsic declarations under the
target's ``TargetPrefix``, accepted alone by -gen-intrinsic-enums/-gen-intrinsic-impl),
``<NS>RegisterInfo.td``, ``<NS>SDNodes.td`` (profiles, SDNodes, divergence-predicate
PatFrag classes, PatFrags), ``<NS>InstrFormats.td`` (operand kinds, instruction
classes), ``<NS>Instructions.td`` (multiclasses, defs, defm, Pat<>s) and the
self-contained ``<NS>.td`` that includes them with the minimal Target/InstrInfo records
(what -gen-dag-isel, -gen-instr-info, -gen-register-info read).

LLVM's own intrinsic definitions are switched off with TableGen's
``TEST_INTRINSICS_SUPPRESS_DEFS`` macro, so a target may redeclare intrinsics under
LLVM's names (amdgpu) without clashing with llvm/IR/Intrinsics.td.

Register classes with ``subregs`` (pairs like VGPR0_VGPR1) get their sub-register
indices (``SubRegIndex<size, offset>``) and ``RegisterWithSubRegs`` tuple registers.
Implicitly used registers (``implicit_defs``/``implicit_uses``) become ``let Defs`` /
``let Uses``, and the registers named only there (``physical_registers``: SCC, EXEC)
are defined outside any register class. A PatFrag's ``has_one_use`` becomes
``let HasOneUse = 1``; a frag with ``uses_operands`` (predicate code that
reads ``Operands[i]``) gets ``let PredicateCodeUsesOperands = 1`` (else -gen-dag-isel puts it in a hook where
``Operands`` is not declared). ``ImmLeaf`` / ``PatLeaf`` records become TableGen's
``ImmLeaf<vt, [{ code }], xform>`` (``TImmLeaf`` over ``timm``) and ``PatLeaf<frag, [{
code }], xform>``, after the ``SDNodeXForm<node, [{ code }]>`` defs they name.

Records keep the spec's declaration order (TableGen needs definitions before uses and
the order is already deterministic); everything built from dicts or sets is sorted.
All TableGen text is produced here; templates only lay it out.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from typing import Any

from .dag import Dag
from .model.fragments import ImmLeaf, PatLeaf
from .model.instructions import (
    BASE_FIELDS,
    INSTRUCTION_FIELD_NAMES,
    REQUIRED,
    Code,
    Defm,
    InstrClass,
    Instruction,
    Param,
    Ref,
    value_text,
)
from .model.nodes import SDTypeProfile
from .model.record import parse_field
from .model.target import Target


@dataclass(frozen=True)
class Layout:
    """File names and C++/TableGen names of one target's generated output."""

    namespace: str  # TableGen/C++ namespace of instructions and registers (AMDGPU)
    isd_namespace: str  # C++ namespace of target SDNode opcodes (AMDGPUISD)
    intrinsic_prefix: str  # TargetPrefix of the intrinsics (amdgcn)
    intrinsics_td: str
    registers_td: str
    sdnodes_td: str
    formats_td: str
    instructions_td: str
    main_td: str
    enum_header: str  # made by llvm-tblgen -gen-intrinsic-enums; included by the C++
    isel_header: str
    isel_source: str
    rewrite_header: str
    rewrite_source: str
    divergence_header: str
    divergence_source: str


def layout(target: Target) -> Layout:
    ns = target.namespace
    return Layout(
        namespace=ns,
        isd_namespace=target.isd_namespace or f"{ns}ISD",
        intrinsic_prefix=target.target_prefix,
        intrinsics_td=f"Intrinsics{ns}.td",
        registers_td=f"{ns}RegisterInfo.td",
        sdnodes_td=f"{ns}SDNodes.td",
        formats_td=f"{ns}InstrFormats.td",
        instructions_td=f"{ns}Instructions.td",
        main_td=f"{ns}.td",
        enum_header=f"Intrinsics{ns}.h",
        isel_header=f"{ns}ISelLowering.h",
        isel_source=f"{ns}ISelLowering.cpp",
        rewrite_header=f"{ns}IntrinsicRewrite.h",
        rewrite_source=f"{ns}IntrinsicRewrite.cpp",
        divergence_header=f"{ns}Divergence.h",
        divergence_source=f"{ns}Divergence.cpp",
    )


def contexts(target: Target) -> list[tuple[str, str, dict]]:
    """``(file name, template, context)`` for every .td file of the target."""
    lay = layout(target)
    return [
        (lay.intrinsics_td, "intrinsics.td.j2", intrinsics_context(target, lay)),
        (lay.registers_td, "registers.td.j2", registers_context(target, lay)),
        (lay.sdnodes_td, "sdnodes.td.j2", sdnodes_context(target, lay)),
        (lay.formats_td, "instrformats.td.j2", formats_context(target, lay)),
        (lay.instructions_td, "instructions.td.j2", instructions_context(target, lay)),
        (lay.main_td, "target.td.j2", main_context(target, lay)),
    ]


# ------------------------------------------------------------------ intrinsics


def intrinsics_context(target: Target, lay: Layout) -> dict:
    defs = []
    for intr in target.intrinsics:
        defs.append({
            "name": intr.name,
            "ir_name": intr.ir_name,
            "doc": _comment_lines(intr.doc),
            "divergence": intr.divergence.name.lower().replace("_", " "),
            "clang_builtin": intr.clang_builtin,
            # DefaultAttrsIntrinsic adds nocallback/nofree/nosync/willreturn itself.
            "base": "DefaultAttrsIntrinsic" if intr.default_attrs else "Intrinsic",
            "results": _list(t.tablegen for t in intr.results),
            "params": _list(t.tablegen for t in intr.params),
            "properties": _list(p.tablegen for p in intr.properties),
        })
    return {"layout": lay, "prefix": target.target_prefix, "intrinsics": defs}


# ------------------------------------------------------------------- registers


def registers_context(target: Target, lay: Layout) -> dict:
    regs: dict[str, dict] = {}
    tuples: dict[str, dict] = {}  # registers made of others (VGPR0_VGPR1), defined after them
    bits: dict[str, int] = {}  # register -> width: the size of the first class holding it
    for rc in target.register_classes:
        for r in rc.registers:
            bits.setdefault(r, rc.size_bits)
    for rc in target.register_classes:
        for i, r in enumerate(rc.registers):
            if r in regs or r in tuples:
                continue
            if rc.subregs:
                parts = rc.subregs[i]
                tuples[r] = {
                    "name": r, "asm": _str(r.lower()), "encoding": regs[parts[0]]["encoding"]
                    if parts[0] in regs else _encoding(parts[0], i),
                    "subregs": _list(parts), "indices": _list(rc.subreg_indices),
                }
            else:
                regs[r] = {"name": r, "asm": _str(r.lower()), "encoding": _encoding(r, i)}
    # Sub-register index k of a tuple class: the k-th component's width at the offset
    # of the components before it (SubRegIndex<size, offset>); defined once by name.
    indices: dict[str, str] = {}
    for rc in target.register_classes:
        if rc.subregs:
            offset = 0
            even = rc.size_bits // max(1, len(rc.subregs[0]))
            for index, part in zip(rc.subreg_indices, rc.subregs[0]):
                width = bits.get(part, even)
                indices.setdefault(index, f"SubRegIndex<{width}, {offset}>")
                offset += width
    # Registers only read or written implicitly (SCC, EXEC): in no allocatable class.
    special = [
        {"name": r, "asm": _str(r.lower()), "encoding": _encoding(r, i)}
        for i, r in enumerate(target.physical_registers)
        if r not in regs and r not in tuples
    ]
    classes = []
    for rc in target.register_classes:
        lets = []
        if rc.size is not None:
            lets.append(f"let Size = {rc.size};")
        if rc.copy_cost != 1:
            lets.append(f"let CopyCost = {rc.copy_cost};")
        classes.append({
            "name": rc.name,
            "file": rc.file,
            "types": _list(t.name for t in rc.types),
            "alignment": rc.alignment_bits,
            "members": _members(rc.registers),
            "lets": lets,
        })
    return {
        "layout": lay,
        "indices": [{"name": k, "text": v} for k, v in indices.items()],
        "registers": list(regs.values()),
        "tuples": list(tuples.values()),
        "special": special,
        "classes": classes,
    }


def _members(regs: tuple[str, ...]) -> str:
    """``(sequence "V%u", 0, 255)`` for a numbered run, else ``(add A, B, ...)``."""
    found = [re.fullmatch(r"(.*?)(\d+)", r) for r in regs]
    if len(regs) > 2 and all(found):
        prefixes = {f.group(1) for f in found}  # type: ignore[union-attr]
        nums = [int(f.group(2)) for f in found]  # type: ignore[union-attr]
        if len(prefixes) == 1 and nums == list(range(nums[0], nums[0] + len(nums))) \
                and all(str(n) == f.group(2) for n, f in zip(nums, found)):  # type: ignore[union-attr]
            return f'(sequence "{prefixes.pop()}%u", {nums[0]}, {nums[-1]})'
    lines = [", ".join(regs[i:i + 8]) for i in range(0, len(regs), 8)]
    return "(add " + ",\n         ".join(lines) + ")"


def _encoding(reg: str, index: int) -> int:
    digits = re.search(r"(\d+)$", reg)
    return int(digits.group(1)) if digits else index


# ------------------------------------------------------------ SDNodes and frags


def sdnodes_context(target: Target, lay: Layout) -> dict:
    profiles: dict[str, SDTypeProfile] = {}
    for p in target.profiles:
        if p.name and not p.builtin:
            profiles.setdefault(p.name, p)
    for n in target.nodes:
        if not n.builtin and n.profile.name and not n.profile.builtin:
            profiles.setdefault(n.profile.name, n.profile)
    nodes = [
        {
            "name": n.name,
            "sdclass": n.sdclass,
            "opcode": n.opcode,
            "profile": n.profile.name if n.profile.name else n.profile.tablegen,
            "properties": _list(n.properties),
        }
        for n in target.nodes
        if not n.builtin
    ]
    frag_classes = [
        {
            "name": c.name,
            "divergence": c.divergence,
            "ops": c.ops_tablegen,
            "fragment": c.fragment_tablegen,
            "predicate": c.predicate_code,
        }
        for c in target.frag_classes
    ]
    frags = []
    for f in _frags_in_dependency_order(target):
        if isinstance(f, ImmLeaf):
            # ImmLeaf<vt, [{ code }], xform> (TImmLeaf for timm): the code is ImmediateCode
            cls, head, code = ("TImmLeaf" if f.node == "timm" else "ImmLeaf"), f.vt.name, _code_lines(f.code)
        elif isinstance(f, PatLeaf):
            cls, head, code = "PatLeaf", f.dag.render(), _code_lines(f.predicate_code)
        else:
            cls, head, code = "PatFrag", "", _code_lines(f.predicate_code)
        frags.append({
            "name": f.name,
            "cls": cls,
            "head": head,
            "divergence": f.divergence,
            "ops": f.ops_tablegen,
            "fragment": f.dag.render(),
            # One-line code goes inside [{ }] on the PatFrag's last line; longer code
            # as an indented block, as in LLVM's own .td files.
            "predicate": code[0] if len(code) == 1 else "",
            "predicate_block": code if len(code) > 1 else [],
            "xform": f.xform.name if f.xform is not None else "",
            "lets": _frag_lets(f.uses_operands, f.has_one_use),
        })
    xforms = []
    for x in target.xforms:
        code = _code_lines(x.code)
        xforms.append({
            "name": x.name,
            "node": x.node,
            "doc": _comment_lines(x.doc),
            "code": code[0] if len(code) == 1 else "",
            "code_block": code if len(code) > 1 else [],
        })
    return {
        "layout": lay,
        "profiles": [{"name": k, "text": p.tablegen} for k, p in profiles.items()],
        "nodes": nodes,
        "frag_classes": frag_classes,
        "xforms": xforms,
        "frags": frags,
    }


def _frags_in_dependency_order(target: Target) -> list:
    """The target's own fragments in spec order, except that each comes after the
    target fragments its tree uses (TableGen reads a name only once defined)."""
    own = [f for f in target.frags if not f.builtin and f.instance_of is None]
    by_name = {f.name: f for f in own}
    out: list = []
    placed: set[str] = set()

    def place(f, path: tuple[str, ...]) -> None:
        if f.name in placed or f.name in path:
            return
        try:
            used = [n.op for n in f.dag.walk() if isinstance(n, Dag)]
        except Exception:  # noqa: BLE001 -- (a fragment that does not parse is reported by the check)
            used = []
        for name in used:
            dep = by_name.get(name)
            if dep is not None and dep is not f:
                place(dep, path + (f.name,))
        placed.add(f.name)
        out.append(f)

    for f in own:
        place(f, ())
    return out


# ---------------------------------------------------------- instruction classes


def formats_context(target: Target, lay: Layout) -> dict:
    operands = [
        {
            "name": o.name,
            "vt": o.vt.name,
            "lets": [f"let OperandType = {_str(o.operand_type)};"]
            + ([f"let PrintMethod = {_str(o.print_method)};"] if o.print_method else []),
        }
        for o in target.operands
        if not o.builtin
    ]
    classes = []
    for c in target.classes:
        scope = _scope(c.params, _field_names(c))
        params = [_param(p, scope) for p in c.params]
        if c.parent is None:
            parent = "Instruction"
        else:
            parent = c.parent.name + _args(c.parent.params, c.parent_args, scope)
        body = [f"{f.type} {f.name}{_default(f.default, f.type, scope)};" for f in c.fields]
        if c.parent is None and not _sets(c.lets, "Namespace"):
            body.append(f"let Namespace = {_str(lay.namespace)};")
        body += _lets(c.lets, _field_types(c), scope)
        body += _implicit(c)
        classes.append({"name": c.name, "params": params, "parent": parent, "body": body})
    return {"layout": lay, "operands": operands, "classes": classes}


def _field_types(c: InstrClass | None) -> dict[str, str]:
    """TableGen type of every field visible in class ``c`` (own, inherited, base)."""
    types = {k: t for k, (t, _) in BASE_FIELDS.items()}
    types.update({"outs": "dag", "ins": "dag", "asm": "string", "pattern": "list<dag>"})
    if c is not None:
        for k in c.chain():
            types.update({f.name: f.type for f in k.fields})
            types.update({p.name: p.type for p in k.params})
    return types


# ------------------------------------------------------------------ instructions


def instructions_context(target: Target, lay: Layout) -> dict:
    multiclasses = []
    for mc in target.multiclasses:
        visible: set[str] = set()
        for d in mc.defs:
            visible |= _field_names(d.cls)
        scope = _scope(mc.params, visible)
        defs = [_def(d, lay, scope) for d in mc.defs]
        multiclasses.append({
            "name": mc.name, "params": [_param(p, scope) for p in mc.params], "defs": defs,
        })
    defs = []
    for d in target.defs:
        if isinstance(d, Defm):
            defs.append({
                "kind": "defm",
                "text": f"defm {d.name} : {d.multiclass.name}{_args(d.multiclass.params, d.args, {})};",
            })
        else:
            defs.append({"kind": "def", **_def(d, lay, {})})
    pats = []
    for p in target.patterns:
        src = parse_field(p, "src", p.src).render()
        dst = parse_field(p, "dst", p.dst).render()
        pats.append({
            "name": p.name or "",
            "complexity": p.added_complexity,
            "src": src,
            "dst": dst,
        })
    # CustomSelect steps are C++ (the target's Select switch), not TableGen: listed as a
    # comment so the reader of the .td knows which nodes never reach these patterns first
    custom = [{
        "name": cs.name,
        "vt": cs.vt,
        "opcodes": ", ".join(target.sdnodes[o].opcode if o in target.sdnodes else o for o in cs.opcodes),
        "emits": ", ".join(cs.emits),
        "doc": " ".join(cs.doc.split()),
    } for cs in getattr(target, "custom_selects", ())]
    return {"layout": lay, "multiclasses": multiclasses, "defs": defs, "pats": pats, "custom": custom}


def _def(d: Instruction, lay: Layout, scope: dict[str, str]) -> dict:
    """One ``def``; ``scope`` maps the template args visible (inside a multiclass)."""
    types = _field_types(d.cls)
    body: list[str] = []
    if d.cls is None:
        parent = "Instruction"
        if not _sets(d.lets, "Namespace"):
            body.append(f"let Namespace = {_str(lay.namespace)};")
    else:
        parent = d.cls.name + _args(d.cls.params, d.args, scope)
    own: list[tuple[str, Any]] = []
    if d.outs is not None:
        own.append(("outs", d.outs))
    if d.ins is not None:
        own.append(("ins", d.ins))
    if d.asm is not None:
        own.append(("asm", d.asm))
    if d.pattern is not None:
        own.append(("pattern", d.pattern))
    body += _lets(tuple(own) + tuple(d.lets), types, scope)
    body += _implicit(d)
    return {"name": d.name, "parent": parent, "body": body}


def _implicit(rec: InstrClass | Instruction) -> list[str]:
    """``let Defs`` / ``let Uses`` for registers written/read implicitly; ``None``
    inherits the class's lists (no let), a tuple, even empty, overrides them."""
    out = []
    for field, regs in (("Defs", rec.implicit_defs), ("Uses", rec.implicit_uses)):
        if regs is not None:
            out.append(f"let {field} = {_list(regs)};")
    return out


# ------------------------------------------------------------------- main file


def main_context(target: Target, lay: Layout) -> dict:
    return {
        "layout": lay,
        "includes": [
            lay.intrinsics_td, lay.registers_td, lay.sdnodes_td, lay.formats_td,
            lay.instructions_td,
        ],
        "description": _comment_lines(target.description),
    }


# --------------------------------------------------------------- value rendering


def _list(items) -> str:
    return "[" + ", ".join(items) + "]"


def _str(s: str) -> str:
    return value_text(s)


def _code_lines(code: str | None) -> list[str]:
    """C++ predicate code as lines (empty when none), indentation of the spec kept
    relative to its least-indented line."""
    if not code:
        return []
    return [ln.rstrip() for ln in textwrap.dedent(code.strip("\n")).splitlines()]


def _frag_lets(uses_operands: bool, has_one_use: bool) -> list[str]:
    """Fields a PatFrag sets besides its template args. Predicate code that reads the
    matched operands (``Operands[i]``) only gets them with PredicateCodeUsesOperands
    (the spec says so with ``PatFrag.uses_operands``; tdgen.check enforces it)."""
    lets = []
    if uses_operands:
        lets.append("let PredicateCodeUsesOperands = 1;")
    if has_one_use:
        lets.append("let HasOneUse = 1;")
    return lets


def _comment_lines(text: str) -> list[str]:
    return [ln.rstrip() for ln in text.strip().splitlines()] if text else []


def _sets(lets: tuple, name: str) -> bool:
    return any(k == name for k, _ in lets)


def _field_names(c: InstrClass | None) -> set[str]:
    """Fields a record of class ``c`` has: TableGen Instruction's and the classes' own."""
    names = set(BASE_FIELDS) | set(INSTRUCTION_FIELD_NAMES.values())
    if c is not None:
        for k in c.chain():
            names |= {f.name for f in k.fields}
    return names


def _scope(params: tuple[Param, ...], fields: set[str]) -> dict[str, str]:
    """Template arg name -> the name it gets in TableGen.

    A template arg named like a field of the record (``NoRetOp`` setting field
    ``NoRetOp``) would make ``let NoRetOp = NoRetOp;`` a self-assignment, which TableGen
    rejects; such args are renamed ``<name>Arg`` wherever they are used."""
    taken = {p.name for p in params} | set(fields)
    out: dict[str, str] = {}
    for p in params:
        new = p.name
        if p.name in fields:
            new = p.name + "Arg"
            while new in taken:
                new += "_"
            taken.add(new)
        out[p.name] = new
    return out


def _param(p: Param, scope: dict[str, str]) -> str:
    return f"{p.type} {scope.get(p.name, p.name)}{_default(p.default, p.type, {})}"


def _default(v: Any, type_: str, scope: dict[str, str]) -> str:
    if v is REQUIRED:
        return ""
    return " = " + value(v, type_, scope)


def _args(params: tuple[Param, ...], args: tuple[Any, ...], scope: dict[str, str]) -> str:
    if not args:
        return ""
    types = [p.type for p in params] + ["?"] * max(0, len(args) - len(params))
    return "<" + ", ".join(value(a, t, scope) for a, t in zip(args, types)) + ">"


def _lets(lets: tuple[tuple[str, Any], ...], types: dict[str, str], scope: dict[str, str]) -> list[str]:
    out = []
    for key, v in lets:
        fname = INSTRUCTION_FIELD_NAMES.get(key, key)
        out.append(f"let {fname} = {value(v, types.get(key, '?'), scope)};")
    return out


def value(v: Any, type_: str, scope: dict[str, str] | None = None) -> str:
    """A spec value as TableGen text for a slot of TableGen type ``type_``.

    ``scope`` maps the template arguments visible where the value is written to their
    TableGen names: a ``{name}`` placeholder for one of them inside a string becomes
    TableGen concatenation (``opName # " $vdst, $src0"``), which is what the resolver
    does; ``Ref`` s and names inside DAG text follow renames (see ``_scope``)."""
    scope = scope or {}
    if isinstance(v, Ref):
        return scope.get(v.name, v.name)
    if isinstance(v, Code):
        return value_text(v)
    if type_ == "dag" and isinstance(v, str):
        return _dag_text(v, scope)
    if type_.startswith("list<dag>"):
        items = (v,) if isinstance(v, str) else tuple(v or ())
        return "[" + ", ".join(value(x, "dag", scope) for x in items) + "]"
    if isinstance(v, (tuple, list)):
        elem = type_[5:-1] if type_.startswith("list<") and type_.endswith(">") else "?"
        return "[" + ", ".join(value(x, elem, scope) for x in v) + "]"
    if isinstance(v, str) and _is_record_type(type_) and re.fullmatch(r"[A-Za-z_]\w*", v):
        return scope.get(v, v)  # a record named by a string: SDPatternOperator "add"
    if isinstance(v, str):
        return _string(v, scope)
    return value_text(v)


def _is_record_type(type_: str) -> bool:
    """Whether a TableGen type names a record class (not string/int/bit/dag/list/...)."""
    if type_ in ("?", "string", "code", "int", "bit", "dag"):
        return False
    return not re.match(r"(bits|list)<", type_)


_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _string(text: str, scope: dict[str, str]) -> str:
    parts: list[str] = []
    pos = 0
    for mt in _PLACEHOLDER.finditer(text):
        if mt.group(1) not in scope:
            continue
        if mt.start() > pos:
            parts.append(value_text(text[pos:mt.start()]))
        parts.append(scope[mt.group(1)])
        pos = mt.end()
    if not parts:
        return value_text(text)
    if pos < len(text):
        parts.append(value_text(text[pos:]))
    return " # ".join(parts)


def _dag_text(text: str, scope: dict[str, str]) -> str:
    """DAG text on one line, renamed template args replaced (not ``$names``)."""
    text = " ".join(text.split())
    for old, new in sorted(scope.items()):
        if old != new:
            text = re.sub(rf"(?<![\w$]){re.escape(old)}(?!\w)", new, text)
    return text
