"""The IR's value data: types, constants and other operands, globals, the module, and the
word tables of the syntax.

Stage job: the vocabulary every other module of the IR front end (and the passes)
builds on. It imports no reader: of ``patterns.ir`` only ``patterns/ir/spelling.py`` (how
names and numbers are spelled in the text). The mutable classes (``Instruction``,
``Argument``, ``BasicBlock``, ``Function``) are in ``patterns/ir/function.py`` (native
classes in the compiled build), and ``patterns.ir.reader.parse_module`` turns text
into a ``Module``.

AST contract (used by the divergence analysis and the SelectionDAG builder):

- ``Module.functions`` in source order (undeclared intrinsics' implicit declarations
  last); ``Module.function(name)``; ``Module.globals`` (``GlobalVar``: variables,
  constants and aliases, with address space and initializer), ``named_types``
  (``NamedStructType``), ``comdats``, ``metadata`` (each node's text as written),
  ``attr_groups``, ``data_layout``.
- ``Function``: ``name`` (no ``@``), ``cc``, ``ret_type``, ``args``, ``attrs`` (function
  attributes, ``#N`` groups resolved), ``is_declaration``, ``blocks`` (entry first).
- ``BasicBlock``: ``name`` (numbered labels as digits), ``instructions``,
  ``successors`` (terminator order), ``predecessors`` (each once, in block order).
- ``Instruction``: ``opcode``, ``name`` (``None`` for void results), ``type``,
  ``operands`` (LLVM order without block operands: call -> the call arguments, br ->
  ``[cond]`` or ``[]``, switch -> ``[cond]``, phi -> incoming values, store ->
  ``[value, ptr]``), ``targets`` (branch destinations: br true/false, switch default then
  cases, callbr default then indirect), plus per-opcode fields (``predicate``,
  ``incoming``, ``callee``, ``inline_asm``, ``bundles``, ``addrspace``, ``volatile``,
  ``ordering``, ``align``, ...). ``.text`` is the instruction as ``opt-19 -S`` prints it.
- Values: ``Instruction``, ``Argument`` (identity semantics), ``Constant``,
  ``GlobalRef`` (typed ``ptr addrspace(N)`` of its global), ``InlineAsm``, ``MetadataRef``
  (metadata operands, and values wrapped in metadata, as text: no use).
- Attributes: each kept as its canonical text (``noundef``, ``align 4``,
  ``range(i32 0, 1024)``, ``byref(%T)``, ``"key"="value"``): ``Argument.attr_text`` and
  ``attrs``, ``Instruction.ret_attrs``/``arg_attrs``/``attr_items``/``attrs``,
  ``Function.attr_items``/``attrs`` (``#N`` groups expanded). Debug records and debug
  intrinsics are read and dropped (LLVM 19 keeps them outside the instruction list).

The classes behave as the dataclasses they were declared as (noted on each: frozen
value classes with slots; ``GlobalVar`` and ``Module`` with identity equality), but are
written out: creating ~20 dataclasses (and importing ``dataclasses``) cost every
``tdgen divergence`` run about 10 ms of start-up. ``_Frozen`` supplies ``__repr__``,
frozenness and pickling over ``__slots__``; tests/test_frozen_records.py compares every
class with its dataclass declaration (constructor signature, repr, equality, hash,
frozenness, pickling).
"""

from __future__ import annotations

from functools import lru_cache

from tdgen.errors import Span, frozen_error

from patterns.ir.opcodes import CASTS, INT_PREDICATE_ORDER
from patterns.ir.spelling import quote_name

# ============================================================================ types


_setattr = object.__setattr__
FACTORY = object()  # the default of a field whose default is made per instance (Module, function.py's classes)


class _Frozen:
    """What ``@dataclass(frozen=True, slots=True)`` adds over the fields in
    ``__slots__``, besides ``__init__``/``__eq__``/``__hash__`` (written per class):
    ``__repr__``, assignment and deletion raising ``FrozenInstanceError``, pickling
    (``__getstate__``/``__setstate__`` as the dataclass has them)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return (f"{self.__class__.__qualname__}("
                + ", ".join(f"{f}={getattr(self, f)!r}" for f in self.__match_args__) + ")")

    def __setattr__(self, name, value):
        raise frozen_error(name)

    def __delattr__(self, name):
        raise frozen_error(name, "delete")

    def __getstate__(self):
        return [getattr(self, f) for f in self.__slots__]

    def __setstate__(self, state):
        for f, v in zip(self.__slots__, state):
            _setattr(self, f, v)


class Type(_Frozen):
    """Base of IR types; every subclass is frozen and hashable (as
    ``@dataclass(frozen=True, slots=True)``)."""

    __slots__ = ()

    @property
    def is_int(self) -> bool:
        return isinstance(self, IntType)

    @property
    def is_float(self) -> bool:
        return isinstance(self, FloatType)

    @property
    def is_ptr(self) -> bool:
        return isinstance(self, PtrType)

    @property
    def is_vector(self) -> bool:
        return isinstance(self, VectorType)

    @property
    def scalar(self) -> "Type":
        return self.elem if isinstance(self, VectorType) else self


class IntType(Type):
    __slots__ = __match_args__ = ("bits",)
    bits: int

    def __init__(self, bits: int) -> None:
        _setattr(self, "bits", bits)

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.bits,) == (other.bits,)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.bits,))

    def __str__(self) -> str:
        return f"i{self.bits}"


class FloatType(Type):
    __slots__ = __match_args__ = ("name",)
    name: str  # half, bfloat, float, double, fp128, x86_fp80, ppc_fp128

    def __init__(self, name: str) -> None:
        _setattr(self, "name", name)

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name,) == (other.name,)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.name,))

    def __str__(self) -> str:
        return self.name

    @property
    def bits(self) -> int:
        return _FLOAT_BITS[self.name]


_FLOAT_BITS = {"half": 16, "bfloat": 16, "float": 32, "double": 64, "fp128": 128,
               "x86_fp80": 80, "ppc_fp128": 128}


class PtrType(Type):
    __slots__ = __match_args__ = ("addrspace",)
    addrspace: int

    def __init__(self, addrspace: int = 0) -> None:
        _setattr(self, "addrspace", addrspace)

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.addrspace,) == (other.addrspace,)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.addrspace,))

    def __str__(self) -> str:
        return "ptr" if self.addrspace == 0 else f"ptr addrspace({self.addrspace})"


class VectorType(Type):
    __slots__ = __match_args__ = ("count", "elem")
    count: int
    elem: Type

    def __init__(self, count: int, elem: Type) -> None:
        _setattr(self, "count", count)
        _setattr(self, "elem", elem)

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.count, self.elem) == (other.count, other.elem)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.count, self.elem))

    def __str__(self) -> str:
        return f"<{self.count} x {self.elem}>"


class ArrayType(Type):
    __slots__ = __match_args__ = ("count", "elem")
    count: int
    elem: Type

    def __init__(self, count: int, elem: Type) -> None:
        _setattr(self, "count", count)
        _setattr(self, "elem", elem)

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.count, self.elem) == (other.count, other.elem)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.count, self.elem))

    def __str__(self) -> str:
        return f"[{self.count} x {self.elem}]"


class StructType(Type):
    __slots__ = __match_args__ = ("elems", "packed")
    elems: tuple[Type, ...]
    packed: bool

    def __init__(self, elems: tuple[Type, ...], packed: bool = False) -> None:
        _setattr(self, "elems", elems)
        _setattr(self, "packed", packed)

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.elems, self.packed) == (other.elems, other.packed)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.elems, self.packed))

    def __str__(self) -> str:
        inner = "{ " + ", ".join(map(str, self.elems)) + " }" if self.elems else "{}"
        return f"<{inner}>" if self.packed else inner


class NamedStructType(Type):
    """An identified struct type, ``%T = type { ... }`` or ``type opaque``: equal by name
    (as LLVM's identified structs are); ``body`` is the ``StructType`` of its definition,
    None while opaque (set once by the reader when it reads the definition)."""

    __slots__ = ("name", "body")
    __match_args__ = ("name",)
    name: str
    body: "StructType | None"

    def __init__(self, name: str, body: "StructType | None" = None) -> None:
        _setattr(self, "name", name)
        _setattr(self, "body", body)

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return self.name == other.name
        return NotImplemented

    def __hash__(self) -> int:
        return hash(("%", self.name))

    def __str__(self) -> str:
        return "%" + quote_name(self.name)

    def set_body(self, body: "StructType | None") -> None:
        _setattr(self, "body", body)


class _UnitType(Type):
    """A type without fields (as a frozen slots dataclass without fields: all instances
    of one class are equal)."""

    __slots__ = __match_args__ = ()

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return True
        return NotImplemented

    def __hash__(self) -> int:
        return hash(())


class VoidType(_UnitType):
    __slots__ = ()

    def __str__(self) -> str:
        return "void"


class LabelType(_UnitType):
    __slots__ = ()

    def __str__(self) -> str:
        return "label"


class TokenType(_UnitType):
    __slots__ = ()

    def __str__(self) -> str:
        return "token"


class MetadataType(_UnitType):
    __slots__ = ()

    def __str__(self) -> str:
        return "metadata"


VOID = VoidType()
LABEL = LabelType()
TOKEN = TokenType()
METADATA = MetadataType()
I1 = IntType(1)
I32 = IntType(32)
PTR = PtrType(0)


def is_first_class(t: Type) -> bool:
    return not isinstance(t, (VoidType, LabelType, MetadataType))


# =========================================================================== values


class Value:
    """Base of everything an instruction can use as an operand."""

    __slots__ = ()
    type: Type

    @property
    def ref(self) -> str:
        """How the value is written as an operand (without its type)."""
        raise NotImplementedError


def unsigned_value(type: Type, text: str, kind: str, value: object) -> int | None:
    """The unsigned value of the constant ``type text`` (kind, value as ``Constant`` has
    them) when it is an integer, else None: ``true``/``false`` read as 1/0, the value
    reduced to the type's width."""
    if type.__class__ is not IntType:
        return None
    if text == "true":
        return 1
    if text == "false":
        return 0
    if kind != "int":
        return None
    val = value if isinstance(value, int) else int(text, 0)
    return val & ((1 << type.bits) - 1)


class Constant(Value, _Frozen):
    """A constant, ``text`` in opt's canonical spelling (``true``, ``-1``, ``0x...``).

    ``kind``: int, float, undef, poison, null, zero (zeroinitializer), none (token),
    aggregate (vector/array/struct literal; ``elements``), expr (constant expression;
    ``elements`` are its operands), string (``c"..."``). ``value`` is the int (signed)
    or float value for scalar constants, else ``None``. (As
    ``@dataclass(frozen=True, slots=True)``; ``_u``, derived from the fields and not one
    of them: the unsigned value of an integer constant, else None, see ``unsigned_value``.)"""

    __match_args__ = ("type", "text", "kind", "value", "elements")
    __slots__ = __match_args__ + ("_u",)
    type: Type
    text: str
    kind: str
    value: object
    elements: tuple
    _u: int | None

    def __init__(self, type: Type, text: str, kind: str = "int", value: object = None, elements: tuple = ()) -> None:
        _setattr(self, "type", type)
        _setattr(self, "text", text)
        _setattr(self, "kind", kind)
        _setattr(self, "value", value)
        _setattr(self, "elements", elements)
        _setattr(self, "_u", unsigned_value(type, text, kind, value))

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return ((self.type, self.text, self.kind, self.value, self.elements)
                    == (other.type, other.text, other.kind, other.value, other.elements))
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.type, self.text, self.kind, self.value, self.elements))

    @property
    def ref(self) -> str:
        return self.text

    def __str__(self) -> str:
        return f"{self.type} {self.text}"


class GlobalRef(Value, _Frozen):
    """A reference to a global variable or function (``@name``). (As
    ``@dataclass(frozen=True, slots=True)``.)"""

    __slots__ = __match_args__ = ("name", "type")
    name: str
    type: Type

    def __init__(self, name: str, type: Type = PTR) -> None:
        _setattr(self, "name", name)
        _setattr(self, "type", type)

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name, self.type) == (other.name, other.type)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.name, self.type))

    @property
    def ref(self) -> str:
        return "@" + quote_name(self.name)

    def __str__(self) -> str:
        return f"{self.type} {self.ref}"


class InlineAsm(Value, _Frozen):
    """An inline-asm callee: ``asm [sideeffect] [alignstack] [inteldialect] "asm", "constraints"``.
    (As ``@dataclass(frozen=True, slots=True)``.)"""

    __slots__ = __match_args__ = ("asm", "constraints", "sideeffect", "alignstack", "inteldialect", "unwind", "type")
    asm: str
    constraints: str
    sideeffect: bool
    alignstack: bool
    inteldialect: bool
    unwind: bool
    type: Type

    def __init__(self, asm: str, constraints: str, sideeffect: bool = False, alignstack: bool = False,
                 inteldialect: bool = False, unwind: bool = False, type: Type = PTR) -> None:
        _setattr(self, "asm", asm)
        _setattr(self, "constraints", constraints)
        _setattr(self, "sideeffect", sideeffect)
        _setattr(self, "alignstack", alignstack)
        _setattr(self, "inteldialect", inteldialect)
        _setattr(self, "unwind", unwind)
        _setattr(self, "type", type)

    def _key(self) -> tuple:
        return (self.asm, self.constraints, self.sideeffect, self.alignstack, self.inteldialect, self.unwind,
                self.type)

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return self._key() == other._key()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    @property
    def ref(self) -> str:
        words = ["asm"]
        if self.sideeffect:
            words.append("sideeffect")
        if self.alignstack:
            words.append("alignstack")
        if self.inteldialect:
            words.append("inteldialect")
        if self.unwind:
            words.append("unwind")
        return " ".join(words) + f' "{self.asm}", "{self.constraints}"'

    @property
    def output_constraints(self) -> list[str]:
        """The output constraint codes, e.g. ``['=s', '=v']``."""
        return [c for c in self.constraints.split(",") if c.startswith("=")]


class MetadataRef(Value, _Frozen):
    """A metadata operand (``!0``, ``!{...}``, ``!"str"``, or a value wrapped in metadata).
    (As ``@dataclass(frozen=True, slots=True)``.)"""

    __slots__ = __match_args__ = ("text", "type")
    text: str
    type: Type

    def __init__(self, text: str, type: Type = METADATA) -> None:
        _setattr(self, "text", text)
        _setattr(self, "type", type)

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.text, self.type) == (other.text, other.type)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.text, self.type))

    @property
    def ref(self) -> str:
        return self.text


TERMINATORS = frozenset({"br", "switch", "ret", "unreachable", "callbr", "indirectbr",
                         "invoke", "resume"})


class GlobalVar:
    """A global variable or alias; ``type`` is the value type, ``addrspace`` the address
    space of its pointer (``@g`` is a ``ptr addrspace(N)``), ``words`` the linkage,
    visibility and other words as written, ``initializer`` the constant (None for an
    external declaration), ``kind`` ``global``, ``constant`` or ``alias`` (then
    ``initializer`` is the aliasee). As ``@dataclass(eq=False, slots=True)``: identity
    equality."""

    __slots__ = __match_args__ = ("name", "type", "addrspace", "words", "span", "initializer", "kind")
    name: str
    type: Type
    addrspace: int
    words: tuple
    span: Span | None
    initializer: object
    kind: str

    def __init__(self, name: str, type: Type, addrspace: int = 0, words: tuple = (),
                 span: Span | None = None, initializer: object = None, kind: str = "global") -> None:
        self.name = name
        self.type = type
        self.addrspace = addrspace
        self.words = words
        self.span = span
        self.initializer = initializer
        self.kind = kind

    def __repr__(self) -> str:
        return (f"{self.__class__.__qualname__}(name={self.name!r}, type={self.type!r}, "
                f"addrspace={self.addrspace!r}, words={self.words!r}, span={self.span!r}, "
                f"initializer={self.initializer!r}, kind={self.kind!r})")


class Module:
    """A module (as ``@dataclass(eq=False)``: identity equality). ``attr_groups``: int ->
    tuple of attribute strings; ``globals``: name -> GlobalVar; ``data_layout``: the
    ``patterns.ir.datalayout.DataLayout`` of its ``target datalayout`` line, or None
    when it has none -- then the printer uses LLVM's default layout, unless the command
    that read it gives it its target's (``opt -mtriple`` does the same). Set it before
    printing: an instruction's text is kept once made."""

    __match_args__ = ("functions", "path", "attr_groups", "globals", "data_layout")
    functions: list
    path: str = "<input>"
    attr_groups: dict
    globals: dict
    data_layout: object = None
    source: str  # the text it was read from ("" when built otherwise): a fresh copy is a re-read

    def __init__(self, functions: list, path: str = "<input>", attr_groups: dict = FACTORY,
                 globals: dict = FACTORY, data_layout: object = None) -> None:
        self.functions = functions
        self.path = path
        self.attr_groups = {} if attr_groups is FACTORY else attr_groups
        self.globals = {} if globals is FACTORY else globals
        self.data_layout = data_layout
        self.source = ""
        self.metadata: dict = {}  # '!0' / '!name' -> the node as written (opt's spacing)
        self.named_types: dict = {}  # name -> NamedStructType
        self.comdats: dict = {}  # name -> selection kind
        self.triple: str = ""  # the 'target triple' string ("" without one)
        self.metadata_spans: dict = {}  # '!0' / '!name' -> the Span of its definition

    def __repr__(self) -> str:
        return (f"{self.__class__.__qualname__}(functions={self.functions!r}, path={self.path!r}, "
                f"attr_groups={self.attr_groups!r}, globals={self.globals!r}, data_layout={self.data_layout!r})")

    def function(self, name: str):
        """The function named ``name`` (a ``patterns.ir.function.Function``)."""
        for f in self.functions:
            if f.name == name:
                return f
        raise KeyError(name)

    def definitions(self) -> list:
        """The functions with a body, in source order."""
        return [f for f in self.functions if not f.is_declaration]


# LLVM's limits: IntegerType::MAX_INT_BITS and a vector's 32-bit element count.
MAX_INT_BITS = 1 << 23
MAX_VECTOR_ELEMENTS = (1 << 32) - 1


@lru_cache(maxsize=None)
def int_type(bits: int) -> IntType:
    """The ``IntType`` of ``bits`` bits (one object per width)."""
    return IntType(bits)


# ============================================================ words of the syntax

CALLING_CONVENTIONS = frozenset({
    "ccc", "fastcc", "coldcc", "amdgpu_kernel", "amdgpu_ps", "amdgpu_vs", "amdgpu_gs",
    "amdgpu_hs", "amdgpu_ls", "amdgpu_es", "amdgpu_cs", "amdgpu_cs_chain",
    "amdgpu_cs_chain_preserve", "amdgpu_gfx", "spir_kernel", "spir_func", "ptx_kernel",
    "ptx_device", "tailcc", "swiftcc", "preserve_mostcc", "preserve_allcc",
})
LINKAGE_WORDS = frozenset({
    "private", "internal", "available_externally", "linkonce", "weak", "common",
    "appending", "extern_weak", "linkonce_odr", "weak_odr", "external", "dso_local",
    "dso_preemptable", "hidden", "protected", "default", "dllimport", "dllexport",
    "unnamed_addr", "local_unnamed_addr", "thread_local",
})
FAST_MATH = ("nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc", "fast")
INT_PREDICATES = frozenset(INT_PREDICATE_ORDER)
FP_PREDICATES = frozenset({"false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq",
                           "ugt", "uge", "ult", "ule", "une", "uno", "true"})
ORDERINGS = frozenset({"unordered", "monotonic", "acquire", "release", "acq_rel", "seq_cst"})
RMW_OPS = frozenset({"xchg", "add", "sub", "and", "nand", "or", "xor", "max", "min",
                     "umax", "umin", "fadd", "fsub", "fmax", "fmin", "uinc_wrap",
                     "udec_wrap"})
BINOP_FLAGS = {
    "add": ("nuw", "nsw"), "sub": ("nuw", "nsw"), "mul": ("nuw", "nsw"), "shl": ("nuw", "nsw"),
    "udiv": ("exact",), "sdiv": ("exact",), "lshr": ("exact",), "ashr": ("exact",),
    "or": ("disjoint",), "and": (), "xor": (), "urem": (), "srem": (),
    "fadd": FAST_MATH, "fsub": FAST_MATH, "fmul": FAST_MATH, "fdiv": FAST_MATH, "frem": FAST_MATH,
}
CAST_FLAGS = {"trunc": ("nuw", "nsw"), "zext": ("nneg",), "uitofp": ("nneg",)}
GEP_FLAGS = ("inbounds", "nusw", "nuw")


CAST_OPS = frozenset(CASTS)
