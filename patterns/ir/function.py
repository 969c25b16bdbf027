"""The IR's mutable classes (``Instruction``, ``Argument``, ``BasicBlock``, ``Function``), in a module of their own so the compiled build makes them native classes.

Every pass of the execution engine reads instructions' fields millions of times on a
large kernel (and blocks' instruction and edge lists, functions' block lists). As a plain class with an instance ``__dict__``, each read from a compiled
module is a generic attribute lookup (the type's dictionary, then the instance's, about
150 machine instructions); as a native class (``patterns/native/__init__.py`` compiles this
module) a read through a local declared ``Instruction`` is one load. Plain Python
(``TDGEN_PURE=1``) runs this same source as an ordinary class.

A native class has no ``__dict__``: every field is declared here, and setting an
undeclared one raises ``AttributeError`` in the compiled build. Fields most
instructions never set have a class-level default; the list fields (``incoming``,
``targets``, ``cases``, ``bundles``, ``arg_attrs``, ``metadata``) are made on first read
(properties over ``_incoming`` etc., None until then), so building 50k instructions
allocates only the lists they have. ``span`` is made on first read from ``_loc``, the
line number (column 3) or -(line << 20 | column), which the reader
(patterns/ir/parser_body.py) stores instead.
"""

from __future__ import annotations

from typing import Any, Final, Iterator

from tdgen.errors import Span

from patterns.ir.core import FACTORY, LABEL, TERMINATORS, VOID

INSTRUCTION_FIELDS: Final = (
    "opcode", "name", "type", "operands", "block", "span", "flags", "predicate", "incoming",
    "targets", "cases", "callee", "callee_value", "inline_asm", "bundles", "addrspace", "volatile",
    "atomic", "weak", "ordering", "failure_ordering", "syncscope", "align", "indices", "source_type",
    "rmw_op", "tail", "cc", "fn_type", "ret_attrs", "arg_attrs", "attrs", "attr_items", "metadata",
    "slot", "_text")
_CTOR_FIELDS: Final = frozenset(INSTRUCTION_FIELDS) - {"opcode", "name", "type", "operands", "block", "span"}
_TERMINATORS: Final = TERMINATORS
_NO_FLAGS: Final[frozenset] = frozenset()
_VOID: Final = VOID
_LABEL: Final = LABEL


def _instruction_text(inst: Any) -> str:
    from patterns.ir.printer import instruction_text

    return instruction_text(inst)


def _function_path(inst: Instruction) -> str:
    try:
        return inst.block.function.module.path
    except AttributeError:
        return "<input>"


class Instruction:
    """One instruction (identity semantics: equal only to itself).

    Fields (all readable and assignable on every instance): ``opcode``, ``name``,
    ``type``, ``operands``, ``block``, ``span``, ``flags``, ``predicate``, ``incoming``,
    ``targets``, ``cases``, ``callee``, ``callee_value``, ``inline_asm``, ``bundles``,
    ``addrspace``, ``volatile``, ``atomic``, ``weak``, ``ordering``, ``failure_ordering``,
    ``syncscope``, ``align``, ``indices``, ``source_type``, ``rmw_op``, ``tail``, ``cc``,
    ``fn_type`` ((ret, (params...), vararg) when written explicitly), ``ret_attrs``,
    ``arg_attrs``, ``attrs`` (call-site function attributes, groups resolved),
    ``attr_items`` (call-site attributes as written), ``metadata`` ([(name, text)]),
    ``slot`` (the name opt prints). Derived data kept on the instruction by the passes:
    ``_users`` (see ``Function.uses``), ``_text`` (see ``text``), ``cgp_copy`` (see
    irpasses.sink_extract_bits)."""

    opcode: str
    name: Any = None
    type: Any = _VOID
    operands: Any = None
    block: Any = None
    _span: Any = None
    _loc: Any = None
    flags: Any = _NO_FLAGS
    predicate: Any = None
    _incoming: Any = None
    _targets: Any = None
    _cases: Any = None
    callee: Any = None
    callee_value: Any = None
    inline_asm: Any = None
    _bundles: Any = None
    addrspace: Any = None
    volatile: Any = False
    atomic: Any = False
    weak: Any = False
    ordering: Any = None
    failure_ordering: Any = None
    syncscope: Any = None
    align: Any = None
    indices: Any = ()
    source_type: Any = None
    rmw_op: Any = None
    tail: Any = None
    cc: Any = None
    fn_type: Any = None
    ret_attrs: Any = ()
    _arg_attrs: Any = None
    attrs: Any = _NO_FLAGS  # call-site function attributes, groups resolved
    attr_items: Any = ()  # call-site attributes as written (words and '#N')
    _metadata: Any = None  # [(name, text)]
    slot: Any = None  # the name opt prints
    _text: Any = None
    _users: Any = None  # users, for the uniformity analysis (see ``Function.uses``)
    cgp_copy: bool = False  # a copy CodeGenPrepare made (irpasses.sink_extract_bits)

    def __init__(self, opcode: str, name: Any = None, type: Any = _VOID, operands: Any = None,
                 block: Any = None, span: Any = None, **fields: Any) -> None:
        self.opcode = opcode
        self.name = name
        self.type = type
        self.operands = [] if operands is None else operands
        self.block = block
        self._span = span
        if fields:
            for k, v in fields.items():
                if k not in _CTOR_FIELDS:
                    raise TypeError(f"Instruction() got an unexpected keyword argument '{k}'")
                setattr(self, k, v)

    # -- the fields made on first read
    @property
    def span(self) -> Any:
        sp = self._span
        if sp is None:
            loc = self._loc
            if loc is None:
                return None
            if loc >= 0:
                sp = Span(_function_path(self), loc, 3)
            else:
                sp = Span(_function_path(self), -loc >> 20, -loc & 0xFFFFF)
            self._span = sp
        return sp

    @span.setter
    def span(self, value: Any) -> None:
        self._span = value

    @property
    def incoming(self) -> Any:
        v = self._incoming
        if v is None:
            v = self._incoming = []
        return v

    @incoming.setter
    def incoming(self, value: Any) -> None:
        self._incoming = value

    @property
    def targets(self) -> Any:
        v = self._targets
        if v is None:
            v = self._targets = []
        return v

    @targets.setter
    def targets(self, value: Any) -> None:
        self._targets = value

    @property
    def cases(self) -> Any:
        v = self._cases
        if v is None:
            v = self._cases = []
        return v

    @cases.setter
    def cases(self, value: Any) -> None:
        self._cases = value

    @property
    def bundles(self) -> Any:
        v = self._bundles
        if v is None:
            v = self._bundles = []
        return v

    @bundles.setter
    def bundles(self, value: Any) -> None:
        self._bundles = value

    @property
    def arg_attrs(self) -> Any:
        v = self._arg_attrs
        if v is None:
            v = self._arg_attrs = []
        return v

    @arg_attrs.setter
    def arg_attrs(self, value: Any) -> None:
        self._arg_attrs = value

    @property
    def metadata(self) -> Any:
        v = self._metadata
        if v is None:
            v = self._metadata = []
        return v

    @metadata.setter
    def metadata(self, value: Any) -> None:
        self._metadata = value

    # -- derived
    @property
    def ref(self) -> str:
        return "%" + (self.slot if self.slot is not None else str(self.name))

    @property
    def is_terminator(self) -> bool:
        return self.opcode in _TERMINATORS

    @property
    def text(self) -> str:
        """The instruction exactly as ``opt-19 -S`` prints it (without indentation).
        Printed by patterns/ir/printer.py on first read.
        ``_text`` holds it indented by two spaces (a kept line as it is: no copy), or
        None before the first read."""
        t = self._text
        if t is None:
            t = self._text = "  " + _instruction_text(self)
        return t[2:]

    @property
    def function(self) -> Any:
        return self.block.function if self.block is not None else None

    def __repr__(self) -> str:
        n = f"%{self.name} = " if self.name is not None else ""
        return f"<Instruction {n}{self.opcode}>"


def blank_instruction() -> Instruction:
    """An instruction with only the defaults set (``opcode`` too: ""), for builders that
    fill the fields one by one."""
    return Instruction("", None, _VOID, None)


class Argument:
    """A function argument (identity equality, as ``@dataclass(eq=False)``).

    ``slot``: the name opt prints (unnamed arguments renumbered); ``attr_text``: the
    parameter attributes in source order; ``_users``: its users, for the uniformity
    analysis (``Function.uses``)."""

    # (slots in plain Python; the compiled build's native class has the same fixed fields)
    __slots__ = ("name", "type", "attrs", "index", "function", "span", "slot", "attr_text", "_users")
    __match_args__: Final = ("name", "type", "attrs", "index", "function", "span", "slot", "attr_text", "_users")
    name: Any
    type: Any
    attrs: Any
    index: int
    function: Any
    span: Any
    slot: Any
    attr_text: Any
    _users: Any

    def __init__(self, name: Any, type: Any, attrs: Any = frozenset(), index: int = 0, function: Any = None,
                 span: Any = None, slot: Any = "", attr_text: Any = (), _users: Any = None) -> None:
        self.name = name
        self.type = type
        self.attrs = attrs
        self.index = index
        self.function = function
        self.span = span
        self.slot = slot
        self.attr_text = attr_text
        self._users = _users

    @property
    def ref(self) -> str:
        return "%" + self.slot

    def __repr__(self) -> str:
        return f"<Argument %{self.name}: {self.type}>"


class BasicBlock:
    """A basic block (identity equality, as ``@dataclass(eq=False)``): ``name``,
    ``instructions``, ``function``, ``successors``, ``predecessors``, ``span``, ``slot``
    (the name opt prints), ``index``.

    ``span`` is stored in ``_span``; the reader (patterns/ir/parser_body.py) gives it
    as an int, ``line << 20 | column``, and the ``Span`` is made on first read (and
    kept), as ``Instruction.span`` is: most blocks' spans are never read."""

    __slots__ = ("name", "instructions", "function", "successors", "predecessors", "_span", "slot", "index")
    __match_args__: Final = ("name", "instructions", "function", "successors", "predecessors", "span", "slot",
                             "index")
    name: Any
    instructions: list[Instruction]
    function: Any
    successors: list[BasicBlock]
    predecessors: list[BasicBlock]
    _span: Any
    slot: Any
    index: int

    def __init__(self, name: Any, instructions: Any = FACTORY, function: Any = None, successors: Any = FACTORY,
                 predecessors: Any = FACTORY, span: Any = None, slot: Any = "", index: int = 0) -> None:
        self.name = name
        self.instructions = [] if instructions is FACTORY else instructions
        self.function = function
        self.successors = [] if successors is FACTORY else successors
        self.predecessors = [] if predecessors is FACTORY else predecessors
        self._span = span
        self.slot = slot
        self.index = index

    @property
    def span(self) -> Any:
        sp = self._span
        if type(sp) is int:
            try:
                path = self.function.module.path
            except AttributeError:
                path = "<input>"
            sp = self._span = Span(path, sp >> 20, sp & 0xFFFFF)
        return sp

    @span.setter
    def span(self, value: Any) -> None:
        self._span = value

    @property
    def terminator(self) -> Instruction | None:
        insts = self.instructions
        if insts and insts[-1].is_terminator:
            return insts[-1]
        return None

    @property
    def ref(self) -> str:
        return "%" + self.slot

    @property
    def type(self) -> Any:
        return _LABEL

    def __repr__(self) -> str:
        return f"<BasicBlock %{self.name}>"


class Function:
    """A function (identity equality, as ``@dataclass(eq=False)``): ``name`` (no ``@``),
    ``cc``, ``ret_type``, ``args``, ``attrs``, ``is_declaration``, ``blocks``, ``span``,
    ``module``, ``attr_items`` (function attributes as written: words and '#N'),
    ``header_words`` (linkage, visibility, cc, return attributes as written), ``vararg``,
    ``uses``.

    ``uses`` may be filled by a reader for the uniformity analysis (the reader of
    patterns/ir/parser_module.py leaves it None): (True: every argument's and instruction's ``_users`` holds its users in
    program order, each once: None, the one user itself, or a list of two or more; the
    loads and calls in program order; each block's terminator; the number of
    instructions; whether no branch names the same block twice). Derived data, not part
    of the AST: whoever edits a parsed function's instructions or CFG must reset it to
    None (patterns/uniformity/analysis.py then computes the same lists itself and stores them in
    ``_users``)."""

    __slots__ = ("name", "cc", "ret_type", "args", "attrs", "is_declaration", "blocks", "span", "module",
                 "attr_items", "header_words", "vararg", "uses")
    __match_args__: Final = ("name", "cc", "ret_type", "args", "attrs", "is_declaration", "blocks", "span", "module",
                             "attr_items", "header_words", "vararg", "uses")
    name: Any
    cc: Any
    ret_type: Any
    args: list[Argument]
    attrs: Any
    is_declaration: Any
    blocks: list[BasicBlock]
    span: Any
    module: Any
    attr_items: Any
    header_words: Any
    vararg: Any
    uses: Any

    def __init__(self, name: Any, cc: Any, ret_type: Any, args: list, attrs: Any, is_declaration: Any,
                 blocks: Any = FACTORY, span: Any = None, module: Any = None, attr_items: Any = (),
                 header_words: Any = (), vararg: Any = False, uses: Any = None) -> None:
        self.name = name
        self.cc = cc
        self.ret_type = ret_type
        self.args = args
        self.attrs = attrs
        self.is_declaration = is_declaration
        self.blocks = [] if blocks is FACTORY else blocks
        self.span = span
        self.module = module
        self.attr_items = attr_items
        self.header_words = header_words
        self.vararg = vararg
        self.uses = uses

    @property
    def entry(self) -> BasicBlock | None:
        return self.blocks[0] if self.blocks else None

    def block(self, name: str) -> BasicBlock:
        for b in self.blocks:
            if b.name == name:
                return b
        raise KeyError(name)

    def instructions(self) -> Iterator[Instruction]:
        for b in self.blocks:
            yield from b.instructions

    def __repr__(self) -> str:
        return f"<Function @{self.name}>"
