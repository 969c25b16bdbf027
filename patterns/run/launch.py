"""A ``Launch``: what one execution of a kernel is given -- the grid, the argument values and
the buffers with their contents -- made from a seed or read from a JSON file
(``schemas/run-inputs.schema.json``), and the ``Memory`` it starts with.

The grid is one-dimensional: ``groups`` work-groups of ``group_size`` work-items, run in
waves of ``wave`` (32 or 64) lanes (the last wave of a group may be partial: its missing
lanes are inactive throughout). Work-item ids y and z are 0, their sizes 1.

From a seed (``from_seed``): every pointer argument in address space 0, 1 or 4 gets a
buffer of its own, of ``DEFAULT_ELEMENTS_PER_ITEM`` (4) elements per work-item of the
grid, the element type being the first type the kernel loads, stores or indexes through
that argument (else i32); integer elements are uniform in [0, 64), float elements
multiples of 1/8 in [-4, 4) (sums of them are exact, so the order of a reduction does not
change its result). Integer scalars are uniform in [0, 32), float scalars as elements,
i1 0 or 1. A pointer argument into LDS (OpenCL's ``__local`` arguments) gets an LDS
allocation of 4 elements per work-item of the group; one into private memory is not
modeled.

The kernarg segment (read-only, in the constant arena) holds the explicit arguments in
order, each at its ABI alignment (the module's data layout), then at the next multiple
of 8 the implicit arguments of the code-object-v5 ABI that clang's kernels read:
``hidden_block_count_{x,y,z}`` (u32 at 0, 4, 8), ``hidden_group_size_{x,y,z}`` (u16 at 12,
14, 16), ``hidden_remainder_{x,y,z}`` (u16 at 18, 20, 22), ``hidden_global_offset_{x,y,z}``
(u64 at 40, 48, 56, zero) and ``hidden_grid_dims`` (u16 at 64, 1); the other bytes of the
256-byte block are left uninitialised, so a kernel reading them gets poison. The HSA
kernel dispatch packet (64 bytes) holds ``setup`` (u16 at 2: 1 dimension),
``workgroup_size_{x,y,z}`` (u16 at 4, 6, 8), ``grid_size_{x,y,z}`` (u32 at 12, 16, 20),
``private_segment_size`` and ``group_segment_size`` (u32 at 24, 28) and
``kernarg_address`` (u64 at 40); its other fields are uninitialised.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from tdgen.errors import ParseError, Span, expected

from patterns.ir.core import FloatType, IntType, PtrType, Type
from patterns.run.memory import CONSTANT, GAP, GLOBAL, GLOBAL_BASE, LDS, Allocation, Memory

DEFAULT_ELEMENTS_PER_ITEM = 4
IMPLICIT_SIZE = 256
DISPATCH_SIZE = 64
NUMPY_FLOATS = {"half": np.float16, "float": np.float32, "double": np.float64}


@dataclass(frozen=True)
class Buffer:
    """A global buffer: ``name``, ``size`` in bytes, ``elem`` (the IR type its values are
    written in, for printing and JSON), ``data`` (its initial bytes, ``size`` of them)."""

    name: str
    size: int
    elem: str
    data: bytes


@dataclass(frozen=True)
class ArgValue:
    """One kernel argument: ``kind`` "buffer" (``buffer`` named, plus a byte ``offset``),
    "int" (``value``: the integer, taken modulo 2**bits), "float" (``value``) or "lds" (a
    pointer to ``value`` bytes of LDS the launch allocates per work-group, after the
    module's LDS variables -- OpenCL's ``__local`` pointer arguments; ``buffer`` names
    the allocation)."""

    kind: str
    value: object = 0
    buffer: str = ""
    offset: int = 0


@dataclass(frozen=True)
class Launch:
    """One execution's inputs (frozen; ``==`` compares them)."""

    kernel: str
    group_size: int
    wave: int
    groups: int
    args: tuple[ArgValue, ...]
    buffers: tuple[Buffer, ...] = field(default=())

    @property
    def items(self) -> int:
        return self.group_size * self.groups

    def buffer(self, name: str) -> Buffer:
        for b in self.buffers:
            if b.name == name:
                return b
        raise KeyError(name)

    # ----------------------------------------------------------------- JSON
    def as_json(self) -> dict:
        return {"kernel": self.kernel, "workgroup": self.group_size, "wave": self.wave, "groups": self.groups,
                "args": [_arg_json(a) for a in self.args],
                "buffers": [{"name": b.name, "size": b.size, "elem": b.elem, "hex": b.data.hex()}
                            for b in self.buffers]}

    def json_text(self) -> str:
        return json.dumps(self.as_json(), indent=2, sort_keys=True) + "\n"


def _arg_json(a: ArgValue) -> dict:
    if a.kind == "buffer":
        return {"kind": "buffer", "buffer": a.buffer, "offset": a.offset}
    if a.kind == "lds":
        return {"kind": "lds", "name": a.buffer, "size": a.value}
    return {"kind": a.kind, "value": a.value}


# ====================================================================== from a seed


def access_type(fn, arg) -> Type | None:
    """The first type ``fn`` loads, stores or indexes (a GEP's source type) through
    ``arg`` directly, in instruction order."""
    for b in fn.blocks:
        for inst in b.instructions:
            ops = inst.operands
            if inst.opcode == "getelementptr" and ops and ops[0] is arg:
                return inst.source_type
            if inst.opcode == "load" and ops and ops[0] is arg:
                return inst.type
            if inst.opcode == "store" and len(ops) > 1 and ops[1] is arg:
                return ops[0].type
    return None


def _scalar_type(t: Type | None) -> Type:
    while t is not None and hasattr(t, "elem") and not isinstance(t, (IntType, FloatType, PtrType)):
        t = t.elem  # arrays and vectors: their element
    if isinstance(t, (IntType, FloatType)) and (not isinstance(t, FloatType) or t.name in NUMPY_FLOATS):
        return t
    if isinstance(t, PtrType):
        return IntType(64)
    return IntType(32)


def random_values(rng: np.random.Generator, t: Type, n: int) -> np.ndarray:
    """``n`` random element values of ``t`` as the module docstring says, as bytes."""
    if isinstance(t, FloatType):
        vals = rng.integers(-32, 32, n).astype(np.float64) / 8
        return vals.astype(NUMPY_FLOATS[t.name]).view(np.uint8)
    nbytes = max(1, (t.bits + 7) // 8)
    hi = 2 if t.bits == 1 else 64
    vals = rng.integers(0, hi, n).astype("<u8")
    return vals.view(np.uint8).reshape(n, 8)[:, :nbytes].reshape(-1).copy()


def from_seed(fn, seed: int, *, group_size: int, wave: int, groups: int = 1) -> Launch:
    """The launch of kernel ``fn`` with random inputs drawn from ``seed`` (module docstring)."""
    rng = np.random.default_rng(seed)
    args, buffers = [], []
    for a in fn.args:
        t = a.type
        if isinstance(t, PtrType) and t.addrspace == LDS:
            et = _scalar_type(access_type(fn, a))
            size = DEFAULT_ELEMENTS_PER_ITEM * group_size * max(1, (getattr(et, "bits", 32) + 7) // 8)
            args.append(ArgValue("lds", size, buffer=_arg_name(a)))
        elif isinstance(t, PtrType):
            if t.addrspace not in (0, GLOBAL, CONSTANT):
                raise _not_modeled(fn, f"a kernel argument pointing into address space {t.addrspace}")
            et = _scalar_type(access_type(fn, a))
            n = DEFAULT_ELEMENTS_PER_ITEM * group_size * groups
            data = random_values(rng, et, n).tobytes()
            name = _arg_name(a)
            buffers.append(Buffer(name, len(data), str(et), data))
            args.append(ArgValue("buffer", buffer=name))
        elif isinstance(t, IntType):
            hi = 2 if t.bits == 1 else 32
            args.append(ArgValue("int", int(rng.integers(0, hi))))
        elif isinstance(t, FloatType) and t.name in NUMPY_FLOATS:
            args.append(ArgValue("float", float(rng.integers(-32, 32)) / 8))
        else:
            raise _not_modeled(fn, f"a kernel argument of type {t}")
    return Launch(fn.name, group_size, wave, groups, tuple(args), tuple(buffers))


def _arg_name(a) -> str:
    """A buffer's name: its argument's, ``argN`` for an unnamed (numbered) one."""
    name = str(a.name) if a.name is not None else ""
    return name if name and not name.isdigit() else f"arg{a.index}"


def layout_of(fn):
    """The data layout of fn's module (LLVM's default when it names none)."""
    from patterns.ir.datalayout import DEFAULT_LAYOUT

    mod = getattr(fn, "module", None)
    dl = getattr(mod, "data_layout", None)
    return dl if dl is not None else DEFAULT_LAYOUT


def _not_modeled(fn, what: str):
    from patterns.run.ub import NotModeled

    return NotModeled(getattr(fn, "span", None), what)


# ====================================================================== from JSON


def from_json(text: str, path: str = "<inputs>") -> Launch:
    """Read a launch written as ``schemas/run-inputs.schema.json`` describes; a
    ``ParseError`` naming the field on a malformed file."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise ParseError(Span(path, e.lineno, e.colno), expected("JSON", e.msg)) from None
    sp = Span(path, 1, 1)

    def need(obj, key, kind, where):
        if not isinstance(obj, dict) or key not in obj:
            raise ParseError(sp, expected(f"'{key}' in {where}", "none"))
        v = obj[key]
        if not isinstance(v, kind) or isinstance(v, bool) and kind is not bool:
            raise ParseError(sp, expected(f"'{key}' of {where} to be {kind.__name__}", type(v).__name__))
        return v

    kernel = need(doc, "kernel", str, "the inputs")
    group = need(doc, "workgroup", int, "the inputs")
    wave = need(doc, "wave", int, "the inputs")
    groups = need(doc, "groups", int, "the inputs")
    if wave not in (32, 64):
        raise ParseError(sp, expected("'wave' 32 or 64", wave))
    if group < 1 or groups < 1:
        raise ParseError(sp, expected("'workgroup' and 'groups' at least 1", f"{group} and {groups}"))
    buffers = []
    for k, b in enumerate(need(doc, "buffers", list, "the inputs")):
        where = f"buffers[{k}]"
        name = need(b, "name", str, where)
        size = need(b, "size", int, where)
        elem = need(b, "elem", str, where)
        raw = need(b, "hex", str, where)
        try:
            data = bytes.fromhex(raw)
        except ValueError:
            raise ParseError(sp, expected(f"hexadecimal bytes in {where}.hex", repr(raw[:20]))) from None
        if len(data) != size:
            raise ParseError(sp, expected(f"{size} bytes in {where}.hex", len(data)))
        buffers.append(Buffer(name, size, elem, data))
    names = {b.name for b in buffers}
    args = []
    for k, a in enumerate(need(doc, "args", list, "the inputs")):
        where = f"args[{k}]"
        kind = need(a, "kind", str, where)
        if kind == "buffer":
            name = need(a, "buffer", str, where)
            if name not in names:
                raise ParseError(sp, expected(f"a buffer name in {where}.buffer", repr(name)))
            args.append(ArgValue("buffer", buffer=name, offset=int(a.get("offset", 0))))
        elif kind == "int":
            args.append(ArgValue("int", need(a, "value", int, where)))
        elif kind == "lds":
            args.append(ArgValue("lds", need(a, "size", int, where), buffer=need(a, "name", str, where)))
        elif kind == "float":
            v = a.get("value")
            if not isinstance(v, (int, float)) or isinstance(v, bool):
                raise ParseError(sp, expected(f"a number in {where}.value", type(v).__name__))
            args.append(ArgValue("float", float(v)))
        else:
            raise ParseError(sp, expected(f"{where}.kind buffer, int, float or lds", repr(kind)))
    return Launch(kernel, group, wave, groups, tuple(args), tuple(buffers))


# ====================================================================== memory


def kernarg_layout(fn) -> list[tuple[int, int]]:
    """(offset, size) of each explicit argument in the kernarg segment."""
    dl = layout_of(fn)
    out, off = [], 0
    for a in fn.args:
        size = dl.store_size(a.type)
        align = dl.abi_align(a.type)
        off = (off + align - 1) // align * align
        out.append((off, size))
        off += size
    return out


def _segment_bytes(launch: Launch, fn, addresses: dict[str, int]) -> tuple[bytes, bytes, int, bytes, bytes]:
    """(kernarg bytes, their init mask, the implicit block's offset, dispatch bytes, init)."""
    slots = kernarg_layout(fn)
    explicit = max((o + s for o, s in slots), default=0)
    implicit_at = (explicit + 7) // 8 * 8
    size = implicit_at + IMPLICIT_SIZE
    data = bytearray(size)
    init = bytearray(size)

    def put(buf, ini, off, value, n):
        buf[off:off + n] = (value & ((1 << (8 * n)) - 1)).to_bytes(n, "little")
        ini[off:off + n] = b"\x01" * n

    for (off, n), a, v in zip(slots, fn.args, launch.args):
        put(data, init, off, arg_bits(a.type, v, addresses), n)
    g = launch.group_size
    for i, v in enumerate((launch.groups, 1, 1)):
        put(data, init, implicit_at + 4 * i, v, 4)
    for i, v in enumerate((g, 1, 1)):
        put(data, init, implicit_at + 12 + 2 * i, v, 2)
    for i in range(3):
        put(data, init, implicit_at + 18 + 2 * i, 0, 2)
        put(data, init, implicit_at + 40 + 8 * i, 0, 8)
    put(data, init, implicit_at + 64, 1, 2)
    disp, dini = bytearray(DISPATCH_SIZE), bytearray(DISPATCH_SIZE)
    put(disp, dini, 2, 1, 2)
    for i, v in enumerate((g, 1, 1)):
        put(disp, dini, 4 + 2 * i, v, 2)
    for i, v in enumerate((g * launch.groups, 1, 1)):
        put(disp, dini, 12 + 4 * i, v, 4)
    put(disp, dini, 24, 0, 4)
    put(disp, dini, 28, 0, 4)
    put(disp, dini, 40, addresses["kernarg"], 8)
    return bytes(data), bytes(init), implicit_at, bytes(disp), bytes(dini)


def arg_bits(t: Type, v: ArgValue, addresses: dict[str, int]) -> int:
    """The bits of argument value ``v`` of IR type ``t``."""
    if v.kind in ("buffer", "lds"):
        return addresses[v.buffer] + v.offset
    if isinstance(t, FloatType):
        return int(np.array([v.value], dtype=NUMPY_FLOATS[t.name]).view(f"<u{t.bits // 8}")[0])
    return int(v.value) & ((1 << t.bits) - 1)


@dataclass
class Segments:
    """Where the launch's read-only segments are: addresses of ``kernarg``, the implicit
    arguments (``implicit``) and the ``dispatch`` packet; ``buffers``: name -> address."""

    kernarg: int
    implicit: int
    dispatch: int
    buffers: dict


def check_launch(launch: Launch, fn) -> None:
    """The launch fits ``fn``'s signature (else a NotModeled/ParseError naming why)."""
    if len(launch.args) != len(fn.args):
        raise ParseError(Span("<inputs>", 1, 1), expected(f"{len(fn.args)} arguments for @{fn.name}",
                                                           len(launch.args)))
    for k, (a, v) in enumerate(zip(fn.args, launch.args)):
        ok = (v.kind in ("buffer", "lds")) == isinstance(a.type, PtrType) and (
            v.kind != "float" or isinstance(a.type, FloatType)) and (v.kind != "int" or isinstance(a.type, IntType))
        if not ok:
            raise ParseError(Span("<inputs>", 1, 1), expected(f"args[{k}] of kind matching type {a.type}", v.kind))


def build_memory(launch: Launch, fn, module, *, private_size: int = 0) -> tuple[Memory, Segments]:
    """The launch's memory at the start of the kernel: the buffers filled, the kernarg
    segment, implicit arguments and dispatch packet written, the module's LDS variables
    laid out (one row per work-group)."""
    check_launch(launch, fn)
    allocs, addr = [], GLOBAL_BASE
    addresses = {}
    for b in launch.buffers:
        allocs.append(Allocation(b.name, GLOBAL, addr, b.size))
        addresses[b.name] = addr
        addr = (addr + b.size + GAP + 255) // 256 * 256
    addresses["kernarg"] = addr
    lds_args_at = _lds_arg_addresses(launch, fn, module)
    addresses.update(lds_args_at)
    kdata, kinit, implicit_at, ddata, dinit = _segment_bytes(launch, fn, addresses)
    allocs.append(Allocation("kernarg", CONSTANT, addr, len(kdata), readonly=True))
    daddr = (addr + len(kdata) + GAP + 255) // 256 * 256
    allocs.append(Allocation("dispatch", CONSTANT, daddr, len(ddata), readonly=True))
    lds = [Allocation(name, LDS, off, size) for name, off, size in _lds_layout(fn, module)[0]]
    for v in launch.args:
        if v.kind == "lds":
            off = lds_args_at[v.buffer]
            lds.append(Allocation(v.buffer, LDS, off, int(v.value)))
    mem = Memory(allocs, lds, groups=launch.groups, group_size=launch.group_size, private_size=private_size)
    for b in launch.buffers:
        mem.fill(b.name, b.data)
    _fill_ro(mem, "kernarg", kdata, kinit)
    _fill_ro(mem, "dispatch", ddata, dinit)
    return mem, Segments(addresses["kernarg"], addresses["kernarg"] + implicit_at, daddr, addresses)


def _lds_layout(fn, module) -> tuple[list[tuple[str, int, int]], int]:
    """(name, offset, size) of the module's LDS variables, in source order at their ABI
    alignment from 0, and the first free offset after them."""
    dl = layout_of(fn)
    out, off = [], 0
    for g in (module.globals.values() if module is not None else ()):
        if global_space(g) != LDS:
            continue
        align = max(dl.abi_align(g.type), _align_word(g.words))
        off = (off + align - 1) // align * align
        size = dl.alloc_size(g.type)
        out.append((g.name, off, size))
        off += size
    return out, off


def _lds_arg_addresses(launch: Launch, fn, module) -> dict:
    _, off = _lds_layout(fn, module)
    out = {}
    for v in launch.args:
        if v.kind == "lds":
            off = (off + 15) // 16 * 16
            out[v.buffer] = off
            off += int(v.value)
    return out


def global_space(g) -> int:
    """The address space of global variable ``g`` (the reader keeps ``addrspace(N)`` of a
    global as the word ``N`` before ``global``/``constant``)."""
    if g.addrspace:
        return g.addrspace
    for w in g.words:
        if w.isdigit():
            return int(w)
    return 0


def _align_word(words) -> int:
    for k, w in enumerate(words):
        if w == "align" and k + 1 < len(words):
            try:
                return int(words[k + 1])
            except ValueError:
                return 1
    return 1


def _fill_ro(mem: Memory, name: str, data: bytes, init: bytes) -> None:
    a = mem.global_.allocation(name)
    lo = a.address - mem.global_.base
    mem.global_.data[0, lo:lo + len(data)] = np.frombuffer(data, dtype=np.uint8)
    mem.global_.init[0, lo:lo + len(data)] = np.frombuffer(init, dtype=np.uint8).astype(bool)
