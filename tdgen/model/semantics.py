"""Instruction semantics as data: what one machine instruction does on a wave.

An ``Instruction`` or ``InstrClass`` carries ``semantics=Semantics(unit, effects)``:

- ``unit`` ``"lane"``: a vector instruction, its expressions evaluated per lane, its
  vector results written only on the active lanes (the exec mask); a 1-bit value written
  to a scalar operand of a lane instruction (a compare's or a carry's lane mask) sets
  that lane's bit, inactive lanes' bits 0. ``"wave"``: a scalar instruction, evaluated
  once per wave (it may read only wave-uniform values).
- ``effects``: ``Write(dst, value)`` (``dst`` an explicit result operand ``Operand`` or an
  implicit register ``Implicit("SCC" | "VCC" | "EXEC")``) and ``Store(space, addr, value,
  bits)``, all reading the state from before the instruction; ``Branch(target, cond)``
  (control flow: the SI_* exec-mask pseudos, branches, ``s_endpgm``), whose condition
  reads the implicit registers as the instruction leaves them.

Expressions (frozen, compared with ``==``): ``Operand(name)`` (the operand ``$name``),
``Implicit(reg)``, ``Imm(value, bits=None)`` (``bits`` None: the width its context gives),
``Apply(op, args, attrs)`` with ``op`` one of ``OPS`` (name -> arity and width rule). The
cross-lane primitives are the wave model's (``patterns.wave.execute``): ``readlane``,
``readfirstlane``, ``bpermute``, ``permute``, ``swizzle``, ``dpp``, ``ballot``,
``mbcnt_lo``/``mbcnt_hi``, ``lane_id``, ``workitem_id`` and ``wave_size``; memory is
``load``/``Store`` in an address space (``global``, ``lds``, ``kernarg``, ``private``, or
``flat``: a 64-bit address reaching global memory, and LDS/private through apertures).

``Sem`` builds them: ``Sem.add("src0", "src1")`` (a string names an operand, an int is an
immediate), ``Sem.lane(vdst=..., SCC=...)``, ``Sem.wave(sdst=..., SCC=...)``. The checks
(operand names exist, widths agree, a wave instruction reads no lane-varying value) are
``tdgen.check.semantics``; the evaluator is ``patterns.run.semantics_eval``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Union

from .record import Record, guard_constructors

IMPLICIT_WIDTHS = {"SCC": 1, "VCC": 64, "EXEC": 64}  # lane masks are 64 bits (wave32: high half 0)
UNITS = ("lane", "wave")
SPACES = ("global", "lds", "kernarg", "private", "flat")


@dataclass(frozen=True)
class Operand:
    """The explicit operand ``$name`` of the instruction (result or input)."""

    name: str


@dataclass(frozen=True)
class Implicit:
    """An implicit physical register: ``SCC`` (1 bit), ``VCC``/``EXEC`` (lane masks)."""

    reg: str


@dataclass(frozen=True)
class Imm:
    """A constant; ``bits`` None takes the width of the operation it is an operand of."""

    value: int
    bits: int | None = None


@dataclass(frozen=True)
class Apply:
    """``op(args)`` with the op's attributes (``("bits", 32)``, ``("space", "global")``)."""

    op: str
    args: tuple["Expr", ...] = ()
    attrs: tuple[tuple[str, Any], ...] = ()

    def attr(self, name: str, default: Any = None) -> Any:
        for k, v in self.attrs:
            if k == name:
                return v
        return default


Expr = Union[Operand, Implicit, Imm, Apply]


@dataclass(frozen=True)
class Write:
    """``dst = value`` (``dst``: a result operand or an implicit register)."""

    dst: Operand | Implicit
    value: Expr


@dataclass(frozen=True)
class Store:
    """Store the low ``bits`` of ``value`` at byte address ``addr`` of ``space``."""

    space: str
    addr: Expr
    value: Expr
    bits: int = 32


@dataclass(frozen=True)
class Branch:
    """Continue at the block operand ``target`` when ``cond`` (a wave-uniform value, read
    after the instruction's writes to EXEC/SCC/VCC: ``Implicit`` reads in ``cond`` see
    the new values) is non-zero; ``cond`` None: always. ``target`` None: the program ends
    (``s_endpgm``)."""

    target: Operand | None
    cond: "Expr | None" = None


Effect = Union[Write, Store, Branch]


@dataclass(frozen=True)
class Semantics(Record):
    """What an instruction does: its ``unit`` (``"lane"`` | ``"wave"``) and effects."""

    unit: str
    effects: tuple[Write | Store | Branch, ...]


guard_constructors(Semantics)


# The operations: name -> (arity, width rule). Rules (w: a width the arguments agree on):
#   same    (w, ..., w) -> w          shift  (w, any) -> w, amount taken modulo w
#   cmp     (w, w) -> 1               select (1, w, w) -> w
#   bfe     (w, any, any) -> w        ext    (w) -> attr bits (zext/sext/trunc)
#   lanes   (w, ...) -> w: cross-lane (the first argument the moved value unless noted)
#   fixed   the result width given in FIXED_WIDTHS
OPS: dict[str, tuple[int, str]] = {
    **{k: (2, "same") for k in ("add", "sub", "mul", "and", "or", "xor", "smin", "smax", "umin", "umax",
                                "mulhi_u", "mulhi_i")},
    **{k: (1, "same") for k in ("not", "neg", "abs", "ctpop", "bitreverse", "ffbh_u", "ffbl", "ffbh_i")},
    # IEEE binary32 arithmetic on the bits (width 32; round to nearest even, subnormals
    # kept; a NaN result is the positive quiet NaN 0x7fc00000, as the IR reference makes it)
    **{k: (2, "same") for k in ("fadd", "fsub", "fmul")},
    **{k: (2, "shift") for k in ("shl", "lshr", "ashr")},
    "sext_from": (1, "same"),  # attr bits: sign-extend the low `bits` bits
    **{k: (2, "cmp") for k in ("eq", "ne", "ult", "ule", "ugt", "uge", "slt", "sle", "sgt", "sge")},
    "select": (3, "select"),
    "bfe_u": (3, "bfe"),
    "bfe_i": (3, "bfe"),
    **{k: (1, "ext") for k in ("zext", "sext", "trunc")},
    "load": (1, "ext"),  # attrs space, bits: the loaded value, zero-extended to nothing (width = bits)
    # cross-lane primitives (patterns.wave.execute)
    "readlane": (2, "lanes"),  # (value, lane) -> value of that lane (uniform)
    "readfirstlane": (1, "lanes"),  # value of the first active lane (uniform)
    # (byte address, value): lane i reads value[lane of addr_i]; attr wave64 "full" or
    # "half" overrides the target's reach in wave64 (WaveModel.bpermute_wave64)
    "bpermute": (2, "lanes2"),
    "permute": (2, "lanes2"),  # (byte address, value): lane i writes value_i to slot addr_i
    "swizzle": (2, "lanes"),  # (value, offset): ds_swizzle's offset field (wave-uniform)
    # (old, value, ctrl, row_mask, bank_mask, bound_ctrl): a DPP move; ctrl in LLVM's
    # DppCtrl encoding, the controls wave-uniform
    "dpp": (6, "lanes2"),
    "ballot": (1, "fixed"),  # 1-bit per lane -> lane mask (uniform)
    "mbcnt_lo": (2, "fixed"),
    "mbcnt_hi": (2, "fixed"),
    "lane_id": (0, "fixed"),  # the lane's index in the wave
    "workitem_id": (0, "fixed"),  # the lane's work-item id in its work-group (x)
    "wave_size": (0, "fixed"),  # 32 or 64 (uniform)
}
FIXED_WIDTHS = {"ballot": 64, "mbcnt_lo": 32, "mbcnt_hi": 32, "lane_id": 32, "workitem_id": 32, "wave_size": 32}
# ops whose result is one value for the wave
UNIFORM_OPS = frozenset({"readlane", "readfirstlane", "ballot", "wave_size"})
# ops that read other lanes (only in a lane instruction)
CROSS_LANE_OPS = frozenset({"readlane", "readfirstlane", "bpermute", "permute", "swizzle", "dpp", "ballot",
                            "mbcnt_lo", "mbcnt_hi", "lane_id", "workitem_id", "wave_size"})


def _e(x: Any) -> Any:
    if isinstance(x, str):
        return Operand(x)
    if isinstance(x, bool):
        return Imm(int(x), 1)
    if isinstance(x, int):
        return Imm(x)
    return x


def _app(op: str, *args: Any, **attrs: Any) -> Apply:
    return Apply(op, tuple(_e(a) for a in args), tuple(sorted(attrs.items())))


class _SemBuilder:
    """``Sem.<op>(...)`` builds ``Apply(op, ...)``; ``Sem.lane``/``Sem.wave`` a ``Semantics``."""

    def __getattr__(self, op: str):
        if op.startswith("_"):
            raise AttributeError(op)
        if op not in OPS:
            raise AttributeError(f"no semantics operation '{op}' (known: {', '.join(sorted(OPS))})")
        return lambda *args, **attrs: _app(op, *args, **attrs)

    # names that are Python keywords or need attributes
    @staticmethod
    def and_(a: Any, b: Any) -> Apply:
        return _app("and", a, b)

    @staticmethod
    def or_(a: Any, b: Any) -> Apply:
        return _app("or", a, b)

    @staticmethod
    def not_(a: Any) -> Apply:
        return _app("not", a)

    @staticmethod
    def imm(value: int, bits: int | None = None) -> Imm:
        return Imm(value, bits)

    @staticmethod
    def op(name: str) -> Operand:
        return Operand(name)

    @staticmethod
    def implicit(reg: str) -> Implicit:
        return Implicit(reg)

    @staticmethod
    def store(space: str, addr: Any, value: Any, bits: int = 32) -> Store:
        return Store(space, _e(addr), _e(value), bits)

    @staticmethod
    def branch(target: Any, cond: Any = None) -> Branch:
        return Branch(_e(target) if target is not None else None, _e(cond) if cond is not None else None)

    @staticmethod
    def end() -> Branch:
        return Branch(None, None)

    @staticmethod
    def write(dst: Any, value: Any) -> Write:
        d = Implicit(dst) if isinstance(dst, str) and dst in IMPLICIT_WIDTHS else _e(dst)
        return Write(d, _e(value))

    @staticmethod
    def _make(unit: str, effects: tuple, writes: dict) -> Semantics:
        out = list(effects) + [_SemBuilder.write(k, v) for k, v in writes.items()]
        return Semantics(unit, tuple(out))

    @staticmethod
    def lane(*effects: Any, **writes: Any) -> Semantics:
        """A vector instruction: per lane, active lanes written."""
        return _SemBuilder._make("lane", effects, writes)

    @staticmethod
    def wave(*effects: Any, **writes: Any) -> Semantics:
        """A scalar instruction: once per wave."""
        return _SemBuilder._make("wave", effects, writes)


Sem = _SemBuilder()


def walk(e: Any):
    """``e`` and every sub-expression (pre-order)."""
    yield e
    if isinstance(e, Apply):
        for a in e.args:
            yield from walk(a)
    elif isinstance(e, Write):
        yield from walk(e.value)
    elif isinstance(e, Store):
        yield from walk(e.addr)
        yield from walk(e.value)
    elif isinstance(e, Branch):
        if e.target is not None:
            yield from walk(e.target)
        if e.cond is not None:
            yield from walk(e.cond)


def operand_names(sem: Semantics) -> tuple[set[str], set[str]]:
    """(operands read, operands written) by ``sem``."""
    reads: set[str] = set()
    writes: set[str] = set()
    for eff in sem.effects:
        if isinstance(eff, Write) and isinstance(eff.dst, Operand):
            writes.add(eff.dst.name)
        for x in walk(eff.value if isinstance(eff, Write) else (eff.cond if isinstance(eff, Branch) else eff)):
            if isinstance(x, Operand):
                reads.add(x.name)
    return reads, writes


def instruction_semantics(resolved: Any) -> Semantics | None:
    """The semantics of a resolved instruction: its def's own, else the nearest class's
    (as ``implicit_defs`` inherit)."""
    inst = resolved.declared_by
    sem = getattr(inst, "semantics", None)
    if sem is not None:
        return sem
    c = getattr(inst, "cls", None)
    while c is not None:
        if getattr(c, "semantics", None) is not None:
            return c.semantics
        c = c.parent
    return None
