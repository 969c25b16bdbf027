"""The hand-written record classes behave as the dataclasses they replace.

``tdgen.errors.Span``, ``tdgen.hw``'s records, ``patterns.uniformity``'s ``Step`` (explain.py) and
``DivergenceFacts`` (rules.py) and the AST classes of ``patterns.ir.core`` were dataclasses; they are
written out so that a ``tdgen divergence`` run neither imports ``dataclasses`` nor
creates ~25 dataclasses at start-up. Each is compared here with its dataclass
declaration (kept below as the reference): constructor signature and defaults,
``__match_args__``, slots, ``repr``, equality and hashing, ordering, frozenness (the same
``FrozenInstanceError``), pickling and copying.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
import subprocess
import sys
from dataclasses import dataclass, field

import pytest

from patterns.uniformity import explain, rules
from patterns.ir import core as ir
from patterns.ir import function as irf
from tdgen import errors, hw

# ---------------------------------------------------------------- the references


@dataclass(frozen=True, order=True)
class Span:
    path: str
    line: int = 0
    col: int = 0
    end_line: int | None = None
    end_col: int | None = None


@dataclass(frozen=True)
class DivergenceRule:
    pattern: str
    kind: hw.DivergenceKind
    note: str = ""


@dataclass(frozen=True)
class UniformityModel:
    rules: tuple = ()
    uniform_arg_ccs: frozenset = frozenset()
    shader_ccs: frozenset = frozenset()
    shader_uniform_arg_attrs: frozenset = frozenset({"inreg", "byval"})
    default_uniform_arg_attrs: frozenset = frozenset({"inreg"})
    divergent_load_address_spaces: frozenset = frozenset()
    atomics_divergent: bool = True
    calls_divergent: bool = True
    intrinsic_prefix: str = "llvm."
    uniform_asm_outputs: tuple = ()
    uniform_extracts: tuple = ()
    single_lane_function_attrs: frozenset = frozenset()


@dataclass(frozen=True)
class WaveModel:
    sizes: tuple = (64,)
    default_size: int = 64
    bpermute_wave64: str = "full"
    extra: tuple = field(default=())


@dataclass(frozen=True)
class Step:
    kind: str
    value: str
    detail: str


@dataclass(frozen=True)
class DivergenceFacts:
    uniformity: object
    intrinsics: tuple = ()
    data_layout: str = ""
    intrinsic_immargs: str = ""


@dataclass(frozen=True, slots=True)
class IntType:
    bits: int


@dataclass(frozen=True, slots=True)
class FloatType:
    name: str


@dataclass(frozen=True, slots=True)
class PtrType:
    addrspace: int = 0


@dataclass(frozen=True, slots=True)
class VectorType:
    count: int
    elem: object


@dataclass(frozen=True, slots=True)
class ArrayType:
    count: int
    elem: object


@dataclass(frozen=True, slots=True)
class StructType:
    elems: tuple
    packed: bool = False


@dataclass(frozen=True, slots=True)
class VoidType:
    pass


@dataclass(frozen=True, slots=True)
class LabelType:
    pass


@dataclass(frozen=True, slots=True)
class TokenType:
    pass


@dataclass(frozen=True, slots=True)
class MetadataType:
    pass


@dataclass(frozen=True, slots=True)
class Constant:
    type: object
    text: str
    kind: str = "int"
    value: object = None
    elements: tuple = ()


@dataclass(frozen=True, slots=True)
class GlobalRef:
    name: str
    type: object = ir.PTR


@dataclass(frozen=True, slots=True)
class InlineAsm:
    asm: str
    constraints: str
    sideeffect: bool = False
    alignstack: bool = False
    inteldialect: bool = False
    unwind: bool = False
    type: object = ir.PTR


@dataclass(frozen=True, slots=True)
class MetadataRef:
    text: str
    type: object = ir.METADATA


@dataclass(eq=False, slots=True)
class Argument:
    name: str
    type: object
    attrs: frozenset = frozenset()
    index: int = 0
    function: object = None
    span: object = None
    slot: str = ""
    attr_text: tuple = ()
    _users: object = field(default=None, repr=False)


@dataclass(eq=False, slots=True)
class BasicBlock:
    name: str
    instructions: list = field(default_factory=list)
    function: object = None
    successors: list = field(default_factory=list)
    predecessors: list = field(default_factory=list)
    span: object = None
    slot: str = ""
    index: int = 0


@dataclass(eq=False, slots=True)
class Function:
    name: str
    cc: object
    ret_type: object
    args: list
    attrs: frozenset
    is_declaration: bool
    blocks: list = field(default_factory=list)
    span: object = None
    module: object = None
    attr_items: tuple = ()
    header_words: tuple = ()
    vararg: bool = False
    uses: object = field(default=None, repr=False)


@dataclass(eq=False, slots=True)
class GlobalVar:
    name: str
    type: object
    addrspace: int = 0
    words: tuple = ()
    span: object = None
    initializer: object = None
    kind: str = "global"


@dataclass(eq=False)
class Module:
    functions: list
    path: str = "<input>"
    attr_groups: dict = field(default_factory=dict)
    globals: dict = field(default_factory=dict)
    data_layout: object = None


FROZEN = [(Span, errors.Span), (DivergenceRule, hw.DivergenceRule), (UniformityModel, hw.UniformityModel),
          (WaveModel, hw.WaveModel), (Step, explain.Step), (DivergenceFacts, rules.DivergenceFacts),
          (IntType, ir.IntType), (FloatType, ir.FloatType), (PtrType, ir.PtrType), (VectorType, ir.VectorType),
          (ArrayType, ir.ArrayType), (StructType, ir.StructType), (VoidType, ir.VoidType),
          (LabelType, ir.LabelType), (TokenType, ir.TokenType), (MetadataType, ir.MetadataType),
          (Constant, ir.Constant), (GlobalRef, ir.GlobalRef), (InlineAsm, ir.InlineAsm),
          (MetadataRef, ir.MetadataRef)]
IDENTITY = [(Argument, irf.Argument), (BasicBlock, irf.BasicBlock), (Function, irf.Function),
            (GlobalVar, ir.GlobalVar), (Module, ir.Module)]
SLOTS = {IntType, FloatType, PtrType, VectorType, ArrayType, StructType, VoidType, LabelType, TokenType,
         MetadataType, Constant, GlobalRef, InlineAsm, MetadataRef, Argument, BasicBlock, Function, GlobalVar}

# sample field values per class: a list of argument tuples (positional)
_I32, _I64 = ir.IntType(32), ir.IntType(64)
SAMPLES = {
    Span: [("a.ll",), ("a.ll", 3, 4), ("a.ll", 3, 5), ("b.ll", 1, 1, 2, 7), ("a.ll", 3, 4, None, 9)],
    DivergenceRule: [("llvm.x.*", hw.DivergenceKind.SOURCE), ("llvm.y", hw.DivergenceKind.ALWAYS_UNIFORM, "n")],
    UniformityModel: [(), ((), frozenset({"amdgpu_kernel"})),
                      ((hw.DivergenceRule("a*", hw.DivergenceKind.SOURCE),), frozenset(), frozenset({"ps"}),
                       frozenset({"inreg"}), frozenset(), frozenset({5}), False, False, "x.", ("s*",),
                       (("llvm.amdgcn.if", 1),), frozenset({"a=b"}))],
    WaveModel: [(), ((64, 32), 32, "half", (("k", "v"),))],
    Step: [("data", "%a", "uses divergent %b"), ("source", "%t", "x")],
    DivergenceFacts: [(hw.UniformityModel(),), (hw.UniformityModel(), (("llvm.a", hw.DivergenceKind.SOURCE),)),
                      (hw.UniformityModel(), (), "e-i64:64")],
    IntType: [(1,), (32,)],
    FloatType: [("float",), ("half",)],
    PtrType: [(), (3,)],
    VectorType: [(4, _I32), (2, _I64)],
    ArrayType: [(4, _I32), (8, _I32)],
    StructType: [((_I32, _I64),), ((_I32,), True), ((),)],
    VoidType: [()], LabelType: [()], TokenType: [()], MetadataType: [()],
    Constant: [(_I32, "0"), (_I32, "1", "int", 1), (ir.PTR, "null", "null"), (_I32, "undef", "undef", None, ()),
               (_I32, "0", "aggregate", None, (1, 2))],
    GlobalRef: [("g",), ("f", _I32)],
    InlineAsm: [("nop", "=v"), ("s_mov", "=s,s", True, False, True, False, _I32)],
    MetadataRef: [("!0",), ("!{}", _I32)],
}


def _outcome(f, *args):
    try:
        return f(*args)
    except Exception as e:  # the same exception type, as the dataclass
        return type(e)


def _named(text: str, ref: type, cls: type) -> str:
    return text.replace(ref.__qualname__ + "(", cls.__qualname__ + "(")


def _native(cls) -> bool:
    """A native class of the compiled build (patterns/native/__init__.py): ``patterns.ir.function``'s
    ``Argument``, ``BasicBlock``, ``Function`` when the compiled modules are loaded."""
    return getattr(sys.modules[cls.__module__], "__file__", "").endswith(".so")


def _plain(cls):
    """``cls`` as plain Python: for a native class, the class of the same name made by
    running its module's source without the compiled build (the same source; a native
    class has no introspectable signature)."""
    if not _native(cls):
        return cls
    import importlib.util
    from pathlib import Path

    import patterns

    path = Path(patterns.__file__).parent.parent / (cls.__module__.replace(".", "/") + ".py")
    spec = importlib.util.spec_from_file_location("patterns._plain_" + path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, cls.__qualname__)


def _value(ref, f, i: int, text: str):
    """A value for field ``f`` of the reference dataclass ``ref``: ``text`` and ``i``
    appended, in the field's declared type where the IR classes declare one (their list
    fields hold lists, ``index`` an int: typed fields of a native class)."""
    if ref in (Argument, BasicBlock, Function):
        if f.type == "list":
            return [f"{text}{i}"]
        if f.type == "int":
            return i
    return f"{text}{i}"


def _params(c):
    out = []
    for p in inspect.signature(c).parameters.values():
        d = p.default
        if d is not inspect.Parameter.empty and repr(d) in ("<factory>",) or (
                d is not inspect.Parameter.empty and d.__class__ is object):
            d = "<factory>"
        out.append((p.name, p.kind, d))
    return out


@pytest.mark.parametrize("ref,cls", FROZEN + IDENTITY, ids=lambda c: c.__qualname__)
def test_signature_match_args_and_slots(ref, cls):
    plain = _plain(cls)
    assert _params(plain) == _params(ref)
    assert cls.__match_args__ == plain.__match_args__ == ref.__match_args__
    req = [f for f in dataclasses.fields(ref) if f.default is dataclasses.MISSING
           and f.default_factory is dataclasses.MISSING]
    args = SAMPLES[ref][0] if ref in SAMPLES else tuple(_value(ref, f, i, "v") for i, f in enumerate(req))
    if ref in SLOTS:
        # (BasicBlock keeps its span in ``_span``, made on first read: ``span`` is a property)
        want = tuple("_span" if (ref is BasicBlock and f == "span") else f for f in ref.__slots__)
        if ref is Constant:  # (and ``_u``, derived from the fields: ir.unsigned_value)
            want += ("_u",)
        assert plain.__slots__ == want  # (a native class has these fields and no __slots__)
        assert not hasattr(cls(*args), "__dict__") and not hasattr(ref(*args), "__dict__")
    else:
        assert "__slots__" not in cls.__dict__ and hasattr(cls(*args), "__dict__")
    assert not dataclasses.is_dataclass(cls)


def _sets_sorted(text: str) -> str:
    """``text`` with the items of each ``frozenset({...})`` sorted: equal sets built in
    another order (a default written elsewhere, a set rebuilt by unpickling) iterate,
    hence print, in another order."""
    import re

    return re.sub(r"frozenset\(\{([^{}]*)\}\)", lambda m: "frozenset({" + ", ".join(sorted(m.group(1).split(", ")))
                  + "})", text)


@pytest.mark.parametrize("ref,cls", FROZEN, ids=lambda c: c.__qualname__)
def test_frozen_value_semantics(ref, cls):
    samples = SAMPLES[ref]
    objs = [(ref(*a), cls(*a)) for a in samples]
    for r, m in objs:
        rm, rr = _sets_sorted(repr(m)), _sets_sorted(repr(r))
        assert _named(rm, cls, ref) == rr or rm == _named(rr, ref, cls)
        assert hash(m) == hash(r)
        assert m == cls(*[getattr(m, f) for f in ref.__match_args__])
        assert m != r and not (m == r)  # different classes never compare equal
        for f in dataclasses.fields(ref):
            assert getattr(m, f.name) == getattr(r, f.name)
            with pytest.raises(dataclasses.FrozenInstanceError) as e1:
                setattr(m, f.name, None)
            with pytest.raises(dataclasses.FrozenInstanceError) as e2:
                setattr(r, f.name, None)
            assert str(e1.value) == str(e2.value)
            with pytest.raises(dataclasses.FrozenInstanceError) as e1:
                delattr(m, f.name)
            with pytest.raises(dataclasses.FrozenInstanceError) as e2:
                delattr(r, f.name)
            assert str(e1.value) == str(e2.value)
        for dup in (pickle.loads(pickle.dumps(m, protocol=p)) for p in range(2, pickle.HIGHEST_PROTOCOL + 1)):
            assert dup == m and hash(dup) == hash(m) and _sets_sorted(repr(dup)) == _sets_sorted(repr(m))
        assert copy.copy(m) == m and copy.deepcopy(m) == m
    for (r1, m1) in objs:
        for (r2, m2) in objs:
            assert (m1 == m2) == (r1 == r2)
            assert (m1 != m2) == (r1 != r2)
            if ref is Span:  # order=True
                for op in ("__lt__", "__le__", "__gt__", "__ge__"):
                    assert _outcome(getattr(m1, op), m2) == _outcome(getattr(r1, op), r2)
    if ref is not Span:
        with pytest.raises(TypeError):
            objs[0][1] < objs[0][1]  # noqa: B015 (no ordering, as the dataclass)


def test_identity_classes():
    span = errors.Span("a.ll", 1, 2)
    for ref, cls in IDENTITY:
        req = [f for f in dataclasses.fields(ref) if f.default is dataclasses.MISSING
               and f.default_factory is dataclasses.MISSING]
        args = [_value(ref, f, i, "v") for i, f in enumerate(req)]
        r, m = ref(*args), cls(*args)
        for f in dataclasses.fields(ref):
            assert getattr(m, f.name) == getattr(r, f.name), f.name
        assert m != cls(*args) and m == m and hash(m) == object.__hash__(m)
        if ref in (GlobalVar, Module):  # repr generated (the others write their own)
            a2 = (args[0], ir.I32, 3, ("w",), span) if ref is GlobalVar else ([], "p", {1: ("a",)})
            assert _named(repr(cls(*a2)), cls, ref) == repr(ref(*a2))
        # lists made per instance
        for f in dataclasses.fields(ref):
            if f.default_factory is not dataclasses.MISSING:
                assert getattr(cls(*args), f.name) is not getattr(m, f.name)
        m2 = cls(*args)
        for i, f in enumerate(dataclasses.fields(ref)):  # not frozen
            v = _value(ref, f, i, "changed")
            setattr(m2, f.name, v)
            assert getattr(m2, f.name) == v


def test_block_span_made_on_first_read():
    """The direct builder gives a block's span as ``line << 20 | column``."""
    mod = ir.Module([], "k.ll")
    fn = irf.Function("f", None, ir.VOID, [], frozenset(), False, module=mod)
    b = irf.BasicBlock("entry", [], fn, [], [], 7 << 20 | 3)
    assert b.span == errors.Span("k.ll", 7, 3) and b.span is b.span
    assert irf.BasicBlock("x", span=5 << 20 | 1).span == errors.Span("<input>", 5, 1)
    b.span = None
    assert b.span is None


def test_ir_objects_pickle():
    t = ir.StructType((ir.IntType(8), ir.VectorType(4, ir.FloatType("half")), ir.PTR), True)
    assert pickle.loads(pickle.dumps(t)) == t
    c = ir.Constant(ir.I32, "7", "int", 7)
    assert pickle.loads(pickle.dumps(c)) == c


def test_divergence_run_imports_no_dataclasses(tmp_path):
    """``tdgen divergence`` does not import ``dataclasses`` (nor ``json`` for the llvm
    format) on the direct builder's path; the exact path and the spec model do."""
    f = tmp_path / "k.ll"
    f.write_text("define void @f(i32 %x) {\nentry:\n  %y = add i32 %x, 1\n  ret void\n}\n")
    code = ("import sys, runpy; sys.argv = ['tdgen', 'divergence', sys.argv[1]]\n"
            "from tdgen.cli import main\nfrom tdgen.commands.divergence import load_target_facts\n"
            "load_target_facts('amdgpu')\n"  # a cold cache would load the spec (dataclasses)
            "for m in ('dataclasses', 'json', 'inspect'): sys.modules.pop(m, None)\n"
            "main()\nprint(sorted(m for m in ('dataclasses', 'json', 'inspect') if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code, str(f)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.rstrip().endswith("[]"), r.stdout
