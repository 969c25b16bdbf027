"""What an execution produced: every store, in a canonical order, or the undefined behaviour
that stopped it; printed as text or JSON, and compared store by store.

A ``Store`` is (work-group, local id, address space, buffer, offset, type, value): the
value is the stored bits as an unsigned integer (a float's bit pattern; an i1 as 0/1);
``origin`` (not compared) is the instruction that stored it, IR or machine.
The canonical order sorts by (space, buffer, offset, work-group, local id) and keeps,
among stores with equal keys (one work-item storing twice to one place), the order in
which they happened. Two executions agree (``first_difference``) when every work-item
stored to the same places, and its last store to each place has the same value,
whatever order their waves or independent stores ran in: a store a later store of the
same work-item to the same place overwrites is not compared, because a compiler may
drop it (llc's LICM promotes a loop-invariant store to one store after the loop). The
stores are printed and reported as they happened, overwritten ones included.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

FLOAT_BITS = {"half": (np.float16, "<u2"), "float": (np.float32, "<u4"), "double": (np.float64, "<u8")}


@dataclass(frozen=True, order=True)
class Store:
    space: str
    buffer: str
    offset: int
    group: int
    local: int
    type: str
    value: int
    origin: object = field(default=None, compare=False, hash=False, repr=False)  # what stored (not compared)

    def value_text(self) -> str:
        """The value as the IR would write it (floats: decimal and bits)."""
        fb = FLOAT_BITS.get(self.type)
        if fb is not None:
            f = np.array([self.value], dtype=fb[1]).view(fb[0])[0]
            return f"{float(f)!r} (0x{self.value:x})"
        if self.type.startswith("i"):
            try:
                bits = int(self.type[1:])
            except ValueError:
                return f"0x{self.value:x}"
            signed = self.value - (1 << bits) if bits > 1 and self.value >> (bits - 1) else self.value
            return str(signed) if signed == self.value else f"{signed} (0x{self.value:x})"
        return f"0x{self.value:x}"

    def text(self) -> str:
        return (f"wg {self.group} item {self.local}: {self.space} {self.buffer}+{self.offset} "
                f"{self.type} = {self.value_text()}")

    def as_json(self) -> dict:
        return {"group": self.group, "item": self.local, "space": self.space, "buffer": self.buffer,
                "offset": self.offset, "type": self.type, "value": self.value}


def canonical(stores) -> tuple[Store, ...]:
    """``stores`` (in the order they happened) in the canonical order (module docstring)."""
    return tuple(sorted(stores, key=lambda s: (s.space, s.buffer, s.offset, s.group, s.local)))


@dataclass(frozen=True)
class Result:
    """One execution: ``engine``, ``kernel``, ``stores`` (canonical order), ``undefined``
    (the ``patterns.run.ub.Undefined`` that stopped it, or None), ``trace`` (optional
    lines an engine explains itself with, e.g. the exec-mask sequence; not compared)."""

    engine: str
    kernel: str
    stores: tuple[Store, ...]
    undefined: object = None
    trace: tuple[str, ...] = field(default=(), compare=False)

    def text(self) -> str:
        head = f"; engine {self.engine}, kernel @{self.kernel}: {len(self.stores)} stores\n"
        body = "".join(s.text() + "\n" for s in self.stores)
        if self.undefined is not None:
            body += self.undefined.text() + "\n"
        return head + body

    def as_json(self) -> dict:
        return {"engine": self.engine, "kernel": self.kernel, "stores": [s.as_json() for s in self.stores],
                "undefined": self.undefined.as_json() if self.undefined is not None else None}

    def json_text(self) -> str:
        return json.dumps(self.as_json(), indent=2, sort_keys=True) + "\n"


def final_stores(stores) -> list[Store]:
    """Of canonically ordered ``stores``, each work-item's last store to each place."""
    out: list[Store] = []
    for s in stores:
        if out and (out[-1].space, out[-1].buffer, out[-1].offset, out[-1].group, out[-1].local) == \
                (s.space, s.buffer, s.offset, s.group, s.local):
            out[-1] = s
        else:
            out.append(s)
    return out


def first_difference(a: Result, b: Result) -> tuple[Store | None, Store | None] | None:
    """The first place (canonical order) where ``a`` and ``b`` differ in what each
    work-item left there (``final_stores``): the two stores (None for a store one side
    lacks), or None when they agree."""
    fa, fb = final_stores(a.stores), final_stores(b.stores)
    for x, y in zip(fa, fb):
        if x != y:
            return x, y
    if len(fa) != len(fb):
        n = min(len(fa), len(fb))
        return (fa[n] if n < len(fa) else None, fb[n] if n < len(fb) else None)
    return None
