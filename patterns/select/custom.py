"""Custom selection steps (``CustomSelect`` records): the C++ ``Select`` cases tried before the matcher table.

A node whose opcode a ``CustomSelect`` of the target names (and whose type is the step's
``vt``) goes to that step's model -- the C++ ``Select`` switch case (AMDGPU's
``SelectS_BFE``) that runs before ``SelectCode``: it either replaces the node with one
machine instruction (``MachineNode``; its operands lose this user, as with a pattern) or
declines (``Decline``), and the table is tried. A model producing an undeclared
instruction, a scalar-class result for a divergent node, or raising, is a ``SpecError``
naming the record and its ``model`` field (``run_custom``; ``explain_custom`` says what
each step did for ``tdgen explain``).
"""

from __future__ import annotations

from tdgen.errors import SpecError, expected

from patterns.dag.nodes import SDNode

__all__ = ["SlotFields", "MachineNode", "TargetConstant", "Decline", "CurDAG", "CUR", "custom_steps", "model_error",
           "run_custom", "checked_custom", "explain_custom"]


class SlotFields:
    """``__repr__``/``__eq__`` over ``__slots__``, as a dataclass has them (plain classes:
    no dataclass is made at import time); the base of the step results here and of
    ``patterns.select.isel``'s selected blocks and functions."""

    __slots__ = ()

    def _values(self) -> tuple:
        return tuple(getattr(self, f) for f in self._FIELDS)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(" + ", ".join(f"{f}={getattr(self, f)!r}" for f in self._FIELDS) + ")"

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    __hash__ = None  # (mutable, as a dataclass with eq is)


class _Value(SlotFields):
    """A small immutable value (equal by value, hashable)."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(self._values())


class MachineNode(_Value):
    """What a custom step returns to replace the node: ``opcode`` with ``operands`` (DAG
    nodes, or ``TargetConstant`` immediates)."""

    __slots__ = ("opcode", "operands")
    _FIELDS = __slots__

    def __init__(self, opcode: str, operands: tuple):
        self.opcode = opcode
        self.operands = operands


class TargetConstant(_Value):
    __slots__ = ("value",)
    _FIELDS = __slots__

    def __init__(self, value: int):
        self.value = value


class Decline(_Value):
    """The step leaves the node to the table (``SelectCode(N)``), saying why."""

    __slots__ = ("reason",)
    _FIELDS = __slots__

    def __init__(self, reason: str):
        self.reason = reason


class CurDAG:
    """The helpers a ``CustomSelect`` model gets as ``cur`` (named after the C++
    ``CurDAG``): build the replacement, read constants and value-type operands."""

    __slots__ = ()

    @staticmethod
    def machine_node(opcode: str, *operands) -> MachineNode:
        return MachineNode(opcode, operands)

    @staticmethod
    def target_constant(value: int) -> TargetConstant:
        return TargetConstant(int(value))

    @staticmethod
    def decline(reason: str) -> Decline:
        return Decline(reason)

    @staticmethod
    def const(n) -> int | None:
        """A ConstantSDNode's getZExtValue (32-bit), or None for any other node."""
        if n.opcode == "ISD::Constant" and isinstance(n.value, int):
            return n.value & 0xFFFFFFFF
        return None

    @staticmethod
    def vt_bits(n) -> int:
        """The width of a value-type operand (``cast<VTSDNode>(Op)->getVT().getSizeInBits()``)."""
        from tdgen.types import VALUE_TYPES

        return VALUE_TYPES[n.vt].bits

    @staticmethod
    def is_mask_32(v: int) -> bool:
        """isMask_32: a non-empty run of ones starting at bit 0."""
        v &= 0xFFFFFFFF
        return v != 0 and (v & (v + 1)) == 0

    @staticmethod
    def popcount(v: int) -> int:
        return bin(v & 0xFFFFFFFF).count("1")


CUR = CurDAG()
_STEPS: dict[int, tuple[object, dict]] = {}
_MODELS: dict[tuple[str, str], object] = {}


def _model_fn(cs):
    key = (cs.name, cs.model)
    fn = _MODELS.get(key)
    if fn is None:
        ns: dict = {"__name__": f"customselect_{cs.name}"}
        try:
            exec(compile(cs.model, f"<{cs.name}.model>", "exec"), ns)  # noqa: S102 - the target's model source
            fn = ns["select"]
        except Exception as e:  # noqa: BLE001 - tdgen.check reports these at load; a hand-built target may not be checked
            raise SpecError(cs.span, expected("Python source defining select(N, cur)", f"{type(e).__name__}: {e}"),
                            record=cs.name, field="model") from None
        _MODELS[key] = fn
    return fn


def custom_steps(target) -> dict[str, list]:
    """The target's custom steps by ISD opcode of the root: ``{opcode: [(record, fn)]}``,
    in declaration order (cached per target object)."""
    hit = _STEPS.get(id(target))
    if hit is not None and hit[0] is target:
        return hit[1]
    out: dict[str, list] = {}
    for cs in getattr(target, "custom_selects", ()):
        fn = _model_fn(cs)
        for name in cs.opcodes:
            out.setdefault(target.sdnodes[name].opcode, []).append((cs, fn))
    _STEPS[id(target)] = (target, out)
    return out


def model_error(cs, n: SDNode, what: str, found: str) -> SpecError:
    ir = n.ir_name()
    span = getattr(n.ir, "span", None)
    where = (f"{ir} at {span}, " if span is not None else f"{ir}, ") if ir else ""
    return SpecError(cs.span, expected(f"{what} (selecting {where}{n.label()})", found), record=cs.name, field="model")


def run_custom(cs, fn, n: SDNode, target):
    """Run one step on ``n``: a checked ``MachineNode``, a ``Decline``, or a ``SpecError``
    (returned, not raised, so the caller collects it)."""
    if n.vt != cs.vt:
        return Decline(f"root type {n.vt} is not {cs.vt}")
    try:
        res = fn(n, CUR)
    except Exception as e:  # noqa: BLE001 - a bug in the spec's model, reported at the record
        return model_error(cs, n, "a model that runs", f"{type(e).__name__}: {e}")
    if res is None:
        return Decline("no shape the step handles")
    if isinstance(res, Decline):
        return res
    return checked_custom(cs, n, res, target)


def checked_custom(cs, n: SDNode, res, target):
    """``run_custom``'s checks of what a model returned (neither None nor a Decline)."""
    if not isinstance(res, MachineNode):
        return model_error(cs, n, "cur.machine_node(...), cur.decline(...) or None", type(res).__name__)
    if res.opcode not in cs.emits:
        return model_error(cs, n, f"an instruction listed in emits ({', '.join(cs.emits)})", repr(res.opcode))
    inst = target.instructions[res.opcode]
    for o in res.operands:
        if not isinstance(o, (SDNode, TargetConstant)):
            return model_error(cs, n, "operands that are DAG nodes or cur.target_constant(...)", type(o).__name__)
    rc = target.register_classes_by_name.get(inst.outs[0].kind)
    if n.divergent and rc is not None and rc.file == "scalar":
        return model_error(cs, n, "a vector-register result for a divergent node",
                            f"{res.opcode} writing scalar class {rc.name}")
    return res


def _custom_text(res: MachineNode) -> str:
    ops = ", ".join(str(o.value) if isinstance(o, TargetConstant) else o.name for o in res.operands)
    return f"{res.opcode} {ops}"


def explain_custom(target, n: SDNode) -> tuple[list[str], bool]:
    """``tdgen explain`` lines for the custom steps tried on ``n`` (before the table) and
    whether one of them selected it."""
    lines = []
    for cs, fn in custom_steps(target).get(n.opcode, ()):
        head = f"  [custom] {cs.name} (C++ Select case, tried before the table)"
        res = run_custom(cs, fn, n, target)
        if isinstance(res, MachineNode):
            lines.append(f"{head}: SELECTED {_custom_text(res)}")
            return lines, True
        if isinstance(res, Decline):
            lines.append(f"{head}: declined ({res.reason}); the table is tried")
        else:
            lines.append(f"{head}: error: {res.message}")
    return lines, False
