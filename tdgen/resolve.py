"""Resolve instruction records the way TableGen does before selection.

``resolve_instructions(defs)`` applies class inheritance (template arguments bound
down the chain, field declarations with defaults, ``lets`` outermost first, then the
def's own values), expands ``defm`` of multiclasses in place, parses ``outs``/``ins``/
``pattern`` dag text with template arguments substituted, and returns
``(dict name -> ResolvedInstruction, [SpecError...])`` in record order.

``selection_patterns(instructions, patterns)`` turns instruction ``pattern`` fields and ``Pat`` records
into ``SelectionPattern`` source/result pairs, numbered in record order (instruction
defs first, as emitted, then the ``Pat`` s -- the order llvm-tblgen-19 keeps for
patterns of equal complexity). Patterns using ``null_frag`` are dropped, as TableGen
does.

Asm strings may contain ``{param}`` placeholders, replaced by template argument values.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from .dag import Dag, Leaf, Node, Operator, substitute
from .errors import Span, SpecError, TdgenError, expected
from .model.fragments import PatFrag
from .model.instructions import (
    BASE_FIELDS,
    INSTRUCTION_FIELD_NAMES,
    REQUIRED,
    Code,
    Defm,
    InstrClass,
    Instruction,
    Pat,
    Param,
    Ref,
    value_text,
)
from .model.intrinsics import Intrinsic
from .model.invalid import depends_on_invalid
from .model.nodes import SDNode
from .model.record import Record, parse_field
from .model.registers import OperandKind, RegisterClass
from .model.resolved import OperandRef, ResolvedInstruction, SelectionPattern
from .types import ValueType

_SPECIAL = tuple(INSTRUCTION_FIELD_NAMES)


class _Val:
    """A field value with where it was set (record + field) and the env to bind it."""

    __slots__ = ("value", "rec", "fname", "env", "index")

    def __init__(self, value: Any, rec: Record, fname: str, env: dict[str, Any], index: int | None = None):
        self.value = value
        self.rec = rec
        self.fname = fname
        self.env = env
        self.index = index


def _eval(v: Any, env: dict[str, Any], rec: Record, fname: str, errors: list[TdgenError], rname: str) -> Any:
    if isinstance(v, Ref):
        if v.name not in env:
            sp, _ = rec.field_span(fname)
            errors.append(
                SpecError(
                    sp,
                    expected(
                        f"a template argument ({', '.join(sorted(env))})" if env else "a template argument (none in scope)",
                        f"'{v.name}'",
                    ),
                    record=rname,
                    field=fname,
                )
            )
            return None
        return env[v.name]
    if isinstance(v, tuple):
        return tuple(_eval(x, env, rec, fname, errors, rname) for x in v)
    return v


def _has_ref(v: Any) -> bool:
    """Whether a raw value depends on template arguments."""
    if isinstance(v, Ref):
        return True
    if isinstance(v, tuple):
        return any(_has_ref(x) for x in v)
    return False


def _blame(rec: Record, raw: Any, rname: str) -> str:
    """The record a wrong value is reported on: the class that wrote it when it does
    not depend on template arguments (reported once, not for every def), else the def."""
    if isinstance(rec, InstrClass) and not _has_ref(raw):
        return rec.name
    return rname


def _raw(val: "_Val", k: str) -> Any:
    """The value of field ``k`` as written in ``val.rec`` (before template arguments)."""
    if val.fname == "lets":
        return dict(val.rec.lets).get(k)
    if val.fname == "fields":
        return next((f.default for f in val.rec.fields if f.name == k), None)
    return getattr(val.rec, val.fname, None)


def _bind(
    params: tuple[Param, ...],
    args: tuple[Any, ...],
    env: dict[str, Any],
    rec: Record,
    fname: str,
    errors: list[TdgenError],
    rname: str,
    what: str,
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    vals = [_eval(a, env, rec, fname, errors, rname) for a in args]
    if len(vals) > len(params):
        sp, _ = rec.field_span(fname)
        errors.append(
            SpecError(sp, expected(f"at most {len(params)} template argument{'' if len(params) == 1 else 's'} for '{what}'", len(vals)), record=_blame(rec, (), rname), field=fname)
        )
    for i, p in enumerate(params):
        if i < len(vals):
            out[p.name] = vals[i]
            want = type_mismatch(vals[i], p.type)
            if want is not None:
                sp, _ = rec.field_span(fname)
                errors.append(
                    SpecError(
                        sp,
                        expected(f"{want} for template argument '{p.name}' of '{what}'", _show(vals[i])),
                        record=_blame(rec, args[i], rname),
                        field=fname,
                    )
                )
        elif p.default is not REQUIRED:
            out[p.name] = p.default
        else:
            sp, _ = rec.field_span(fname)
            errors.append(
                SpecError(
                    sp,
                    expected(f"a value for template argument '{p.name}' of '{what}'", "none"),
                    record=rname,
                    field=fname,
                )
            )
            out[p.name] = None
    return out


def _mapping(env: dict[str, Any]) -> dict[str, str]:
    m: dict[str, str] = {}
    for k, v in env.items():
        if v is None:
            continue
        if isinstance(v, str):
            m[k] = v
        else:
            try:
                m[k] = value_text(v)
            except TypeError:
                continue
    return m


_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _asm(text: str, env: dict[str, Any]) -> str:
    def sub(m: re.Match) -> str:
        v = env.get(m.group(1))
        if v is None:
            return m.group(0)
        return v if isinstance(v, str) else value_text(v)

    return _PLACEHOLDER.sub(sub, text)


def _operands(val: _Val, which: str, rname: str, errors: list[TdgenError]) -> tuple[OperandRef, ...]:
    text = val.value
    if not isinstance(text, str):
        sp, _ = val.rec.field_span(val.fname)
        errors.append(SpecError(sp, expected(f"'({which} Kind:$name, ...)' text", type(text).__name__), record=rname, field=val.fname))
        return ()
    try:
        node = parse_field(val.rec, val.fname, text, val.index, record_name=rname)
    except TdgenError as e:
        errors.append(e)
        return ()
    node = substitute(node, _mapping(val.env))
    if not isinstance(node, Dag) or node.op != which:
        errors.append(
            SpecError(node.span, expected(f"a '({which} ...)' dag", f"'{node.render()}'"), record=rname, field=val.fname)
        )
        return ()
    out: list[OperandRef] = []
    for a in node.args:
        if isinstance(a, Leaf) and a.kind == "typed":
            out.append(OperandRef(a.name, a.type, a.span))  # type: ignore[arg-type]
        else:
            errors.append(
                SpecError(a.span, expected("an operand 'Kind:$name'", f"'{a.render()}'"), record=rname, field=val.fname)
            )
    return tuple(out)


def _patterns(val: _Val, rname: str, errors: list[TdgenError]) -> tuple[Dag, ...]:
    v = val.value
    if v is None:
        return ()
    texts = (v,) if isinstance(v, str) else tuple(v)
    out: list[Dag] = []
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            sp, _ = val.rec.field_span(val.fname)
            errors.append(SpecError(sp, expected("pattern text", type(t).__name__), record=rname, field=val.fname))
            continue
        idx = i if not isinstance(v, str) else val.index
        try:
            node = parse_field(val.rec, val.fname, t, idx, record_name=rname)
        except TdgenError as e:
            errors.append(e)
            continue
        node = substitute(node, _mapping(val.env))
        if not isinstance(node, Dag):
            errors.append(SpecError(node.span, expected("a DAG in parentheses", f"'{node.render()}'"), record=rname, field=val.fname))
            continue
        out.append(node)
    return tuple(out)


def _let_index(rec: Record, key: str) -> int | None:
    lets = getattr(rec, "lets", ())
    for i, (k, _) in enumerate(lets):
        if k == key:
            return i
    return None


def _apply_lets(owner, env, types, values, errors, name, record, declarers) -> None:
    """Set each ``let`` of class or def ``owner`` into ``values``; a let of a field no
    class declares is an error on ``record``."""
    for k, v in owner.lets:
        if k not in types and k not in _SPECIAL:
            errors.append(
                SpecError(
                    _key_span(owner, k),
                    expected(f"a field declared by {declarers}", f"'{k}'"),
                    record=record,
                    field=k,
                )
            )
            continue
        values[k] = _Val(_eval(v, env, owner, "lets", errors, name), owner, "lets", env, _let_index(owner, k))


def resolve_one(
    inst: Instruction,
    name: str,
    outer_env: dict[str, Any],
    defm: Defm | None,
    errors: list[TdgenError],
) -> ResolvedInstruction:
    types: dict[str, str] = {k: t for k, (t, _) in BASE_FIELDS.items()}
    values: dict[str, _Val | None] = {}
    for k, (_, d) in BASE_FIELDS.items():
        values[k] = _Val(d, inst, "lets", {}) if d is not None else None
    chain: tuple[InstrClass, ...] = inst.cls.chain() if inst.cls is not None else ()
    # template-argument environments, leaf class first
    envs: dict[int, dict[str, Any]] = {}
    n_errors = len(errors)
    if chain:
        leaf = chain[-1]
        envs[len(chain) - 1] = _bind(leaf.params, inst.args, outer_env, inst, "args", errors, name, leaf.name)
        for i in range(len(chain) - 1, 0, -1):
            c = chain[i]
            parent = chain[i - 1]
            envs[i - 1] = _bind(parent.params, c.parent_args, envs[i], c, "parent_args", errors, name, parent.name)
    elif inst.args:
        sp, _ = inst.field_span("args")
        errors.append(SpecError(sp, expected("no template arguments (no class given)", len(inst.args)), record=name, field="args"))
    declared_in: dict[str, str] = {}
    for i, c in enumerate(chain):
        env = envs.get(i, {})
        for f in c.fields:
            types[f.name] = f.type
            declared_in[f.name] = c.name
            if f.default is REQUIRED:
                values[f.name] = _Val(REQUIRED, c, "fields", env)
            else:
                values[f.name] = _Val(_eval(f.default, env, c, "fields", errors, name), c, "fields", env)
        _apply_lets(c, env, types, values, errors, name, c.name, f"'{c.name}' or its parents")
    for k in _SPECIAL:
        v = getattr(inst, k)
        if v is not None:
            values[k] = _Val(_eval(v, outer_env, inst, k, errors, name), inst, k, outer_env)
    _apply_lets(inst, outer_env, types, values, errors, name, name, "the instruction's classes")
    # typed values: every field value must fit its declared TableGen type
    for k in sorted(values):
        val = values[k]
        if val is None or val.value is REQUIRED or k in _SPECIAL:
            continue
        want = type_mismatch(val.value, types.get(k, "?"))
        if want is not None:
            sp = _key_span(val.rec, k) if val.fname == "lets" else val.rec.field_span(val.fname)[0]
            errors.append(SpecError(sp, expected(want, _show(val.value)), record=_blame(val.rec, _raw(val, k), name), field=k))
    # missing values
    for k in sorted(values):
        val = values[k]
        if val is not None and val.value is REQUIRED:
            where = declared_in.get(k, "?")
            errors.append(
                SpecError(inst.span, expected(f"a value (no default in class '{where}')", "none"), record=name, field=k)
            )
    outs: tuple[OperandRef, ...] = ()
    ins: tuple[OperandRef, ...] = ()
    # with wrong template arguments, operand lists and patterns would only repeat the error
    bad_args = any("for template argument '" in e.message for e in errors[n_errors:])
    for k in ("outs", "ins") if not bad_args else ():
        val = values.get(k)
        if val is None:
            errors.append(SpecError(inst.span, expected(f"'{k}' operands", "none"), record=name, field=k))
            continue
        ops = _operands(val, k, name, errors)
        if k == "outs":
            outs = ops
        else:
            ins = ops
    asm_val = values.get("asm")
    asm = _asm(asm_val.value, asm_val.env) if asm_val is not None and isinstance(asm_val.value, str) else ""
    pat_val = values.get("pattern")
    patterns = _patterns(pat_val, name, errors) if pat_val is not None and not bad_args else ()
    imp_defs: tuple[str, ...] = ()
    imp_uses: tuple[str, ...] = ()
    for src in tuple(chain) + (inst,):
        if src.implicit_defs is not None:
            imp_defs = src.implicit_defs
        if src.implicit_uses is not None:
            imp_uses = src.implicit_uses
    fields_out: list[tuple[str, Any]] = []
    for k in sorted(values):
        if k in _SPECIAL:
            continue
        val = values[k]
        if val is None or val.value is REQUIRED:
            continue
        fields_out.append((k, val.value))
    return ResolvedInstruction(
        name=name,
        outs=outs,
        ins=ins,
        asm=asm,
        patterns=patterns,
        fields=tuple(fields_out),
        field_types=tuple(sorted(types.items())),
        classes=tuple(c.name for c in chain),
        declared_by=inst,
        defm=defm,
        span=inst.span if defm is None else defm.span,
        implicit_defs=imp_defs,
        implicit_uses=imp_uses,
    )


def _show(v: Any) -> str:
    if isinstance(v, str):
        return f"'{v}'"
    name = getattr(v, "name", None)
    if isinstance(name, str) and not isinstance(v, (int, str)):
        return f"{type(v).__name__} {name}"
    return repr(v)


def type_mismatch(v: Any, type_: str) -> str | None:
    """None when ``v`` fits TableGen type ``type_``, else what was expected."""
    if v is None or isinstance(v, (Ref, Code)):
        return None
    if type_ == "bit":
        return None if (isinstance(v, bool) or (isinstance(v, int) and v in (0, 1))) else "a bit (0 or 1)"
    if type_ == "int":  # (TableGen's int is 64-bit)
        ok = isinstance(v, int) and not isinstance(v, bool) and -(1 << 63) <= v < (1 << 63)
        return None if ok else "an integer that fits TableGen's 64-bit int"
    m = re.fullmatch(r"bits<(\d+)>", type_)
    if m:
        n = int(m.group(1))
        ok = isinstance(v, int) and not isinstance(v, bool) and 0 <= v < (1 << n)
        return None if ok else f"an integer that fits in {n} bits"
    if type_ in ("string", "code"):
        return None if isinstance(v, str) else "a string"
    if type_ == "dag":
        return None if isinstance(v, str) else "dag text"
    if type_ == "RegisterClass":
        return None if isinstance(v, (RegisterClass, str)) else "a RegisterClass"
    if type_ == "ValueType":
        return None if isinstance(v, (ValueType, str)) else "a ValueType"
    if type_ == "SDPatternOperator":
        return None if isinstance(v, (SDNode, PatFrag, Intrinsic, str)) else "an SDNode, PatFrag or intrinsic"
    if type_ == "Operand":
        return None if isinstance(v, (OperandKind, str)) else "an operand kind"
    if type_.startswith("list<"):
        return None if isinstance(v, tuple) else "a list"
    return None


def _key_span(rec: Record, key: str) -> Span | None:
    from .srcpos import key_span

    return key_span(rec.span, "lets", key)


def resolve_instructions(defs: Iterable[Instruction | Defm]) -> tuple[dict[str, ResolvedInstruction], list[TdgenError]]:
    """The instruction defs (``Target.defs``, defm expanded in place) resolved, by name in
    record order, and the errors found resolving them."""
    errors: list[TdgenError] = []
    out: dict[str, ResolvedInstruction] = {}
    for d in defs:
        if depends_on_invalid(d):
            continue  # built with errors while loading: those errors are the report
        if isinstance(d, Instruction):
            r = resolve_one(d, d.name, {}, None, errors)
            out.setdefault(r.name, r)
        elif isinstance(d, Defm):
            mc = d.multiclass
            env = _bind(mc.params, d.args, {}, d, "args", errors, d.name, mc.name)
            for tmpl in mc.defs:
                r = resolve_one(tmpl, d.name + tmpl.name, env, d, errors)
                out.setdefault(r.name, r)
    # a class's own mistake is found again for each def using it; ErrorList reports
    # identical errors once
    return out, errors


def selection_patterns(
    instructions: dict[str, ResolvedInstruction], patterns: tuple[Pat, ...]
) -> tuple[SelectionPattern, ...]:
    """The patterns of the resolved ``instructions`` then the standalone ``patterns``
    (``Target.instructions`` and ``Target.patterns``), numbered in that order."""
    out: list[SelectionPattern] = []
    order = 0
    for inst in instructions.values():
        for p in inst.patterns:
            if p.uses_null_frag():
                continue
            if p.op == "set" and p.args:
                src: Node = p.args[-1]
                results = tuple(a for a in p.args[:-1] if isinstance(a, Leaf))
            else:
                src, results = p, ()
            dst = Dag(
                Operator(inst.name, (), p.span),
                tuple(Leaf("typed", type=o.kind, name=o.name, span=o.span) for o in inst.ins),
                None,
                p.span,
            )
            out.append(SelectionPattern(src, dst, results, inst.added_complexity, order, inst.name, p.span, inst.name))
            order += 1
    for k, pat in enumerate(patterns):
        src = parse_field(pat, "src", pat.src, record_name=pat.name or "Pat")
        dst = parse_field(pat, "dst", pat.dst, record_name=pat.name or "Pat")
        if isinstance(src, Dag) and src.uses_null_frag():
            continue
        if isinstance(dst, Dag) and dst.cast_type is not None and dst.args and isinstance(dst.args[0], Dag):
            inner = dst.args[0]
        else:
            inner = dst
        assert isinstance(inner, Dag)
        out.append(
            SelectionPattern(
                src, inner, (), pat.added_complexity, order, pat.name or f"anonymous_{k}", pat.span, inner.op
            )
        )
        order += 1
    return tuple(out)
