"""The memory of one launch: one byte arena per address space, accessed by every lane of a
wave at once.

Address spaces (the numbering LLVM's GPU targets share: 0 flat/generic, 1 global, 3 the
work-group's local data share (LDS), 4 constant, 5 private):

- **global** (1) and **constant** (4) are one arena shared by the grid: the launch's
  buffers, each at its own base address with an unmapped gap of ``GAP`` bytes between
  them (so an access past a buffer's end is out of bounds, never another buffer's data),
  then the read-only kernarg segment, the implicit arguments and the dispatch packet
  (``patterns/run/launch.py`` lays them out). Address 0 (null) is never mapped.
- **LDS** (3): one row per work-group; the module's ``addrspace(3)`` globals laid out
  from address 0 in source order, each at its ABI alignment. Contents start
  uninitialised.
- **private** (5): one row per work-item; the kernel's allocas, laid out by the
  interpreter (``reserve_private``). Contents start uninitialised.
- **flat** (0): a global address as is; an LDS address ``a`` cast to flat is
  ``LDS_APERTURE | a``, a private one ``PRIVATE_APERTURE | a`` (the apertures are this
  model's choice; LLVM leaves them to the target).

Every access takes per-lane addresses (uint64), the active-lane mask, the work-group and
the lanes' local ids; only active lanes access memory. Values are little-endian.
Undefined behaviour is raised as ``patterns.run.ub.Undefined`` naming the first offending
lane: an access outside any buffer (or across a buffer's end), a store to read-only memory,
and an LDS race -- two different work-items of a work-group touching one byte between two
barriers, at least one of them writing, neither access atomic. A load of bytes never
written returns them with ``init`` False: the interpreter makes that lane's value
undefined (poison), which is undefined behaviour only once it reaches a store or a branch.
Races on global memory are not tracked.

Every store to global, constant or LDS memory (atomics included: the value they write) is
recorded (``stores``) as (work-group, local id, space, buffer, offset, type, value); private
stores are not (they are not observable, and a compiler may keep them in registers).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from patterns.run.ub import NotModeled, Undefined

FLAT, GLOBAL, LDS, CONSTANT, PRIVATE = 0, 1, 3, 4, 5
SPACE_NAMES = {FLAT: "flat", GLOBAL: "global", LDS: "lds", CONSTANT: "constant", PRIVATE: "private"}
GLOBAL_BASE = 0x1000
GAP = 256
LDS_APERTURE = 0x1 << 60
PRIVATE_APERTURE = 0x2 << 60
APERTURE_MASK = 0xF << 60


@dataclass(frozen=True)
class Allocation:
    """One named range of an arena: ``name``, ``space`` (1, 3, 4 or 5), ``address``
    (its first byte's address in that space), ``size`` in bytes, ``readonly``."""

    name: str
    space: int
    address: int
    size: int
    readonly: bool = False


class Arena:
    """The bytes of one address space: ``rows`` copies (work-groups for LDS, work-items
    for private, one for global) of ``size`` bytes starting at address ``base``."""

    def __init__(self, space: int, rows: int, base: int, allocations: list[Allocation]) -> None:
        self.space = space
        self.base = base
        self.allocations = allocations
        end = max((a.address + a.size for a in allocations), default=base)
        size = end - base
        self.size = size
        self.data = np.zeros((rows, size), dtype=np.uint8)
        self.init = np.zeros((rows, size), dtype=bool)
        self.owner = np.full(size + 1, -1, dtype=np.int32)  # one past the end: unmapped
        self.readonly = np.zeros(size + 1, dtype=bool)
        for k, a in enumerate(allocations):
            lo = a.address - base
            self.owner[lo:lo + a.size] = k
            self.readonly[lo:lo + a.size] = a.readonly
        self.starts = np.array([a.address - base for a in allocations] or [0], dtype=np.int64)
        if space == LDS:
            self.writer = np.full((rows, size), -1, dtype=np.int64)
            self.reader = np.full((rows, size), -1, dtype=np.int64)

    def allocation(self, name: str) -> Allocation:
        for a in self.allocations:
            if a.name == name:
                return a
        raise KeyError(name)


class Memory:
    """The memory of one launch (see the module docstring). ``global_allocs``: the
    buffers and read-only segments of the global/constant arena; ``lds_allocs``: the LDS
    variables; ``groups`` and ``group_size`` size the LDS and private rows."""

    def __init__(self, global_allocs: list[Allocation], lds_allocs: list[Allocation], *, groups: int,
                 group_size: int, private_size: int = 0) -> None:
        self.groups = groups
        self.group_size = group_size
        self.global_ = Arena(GLOBAL, 1, GLOBAL_BASE, global_allocs)
        self.lds = Arena(LDS, groups, 0, lds_allocs)
        self.private = Arena(PRIVATE, groups * group_size, 0,
                             [Allocation("private", PRIVATE, 0, private_size)] if private_size else [])
        self.stores: list[tuple] = []  # chunks, see record_store

    # ------------------------------------------------------------------ set-up
    def fill(self, name: str, data: bytes | np.ndarray, *, initialised: bool = True) -> None:
        """Set the contents of the global allocation ``name`` (from its first byte)."""
        a = self.global_.allocation(name)
        raw = np.frombuffer(bytes(data), dtype=np.uint8) if not isinstance(data, np.ndarray) else data.view(np.uint8)
        if raw.size > a.size:
            raise ValueError(f"{raw.size} bytes do not fit buffer '{name}' of {a.size} bytes")
        lo = a.address - self.global_.base
        self.global_.data[0, lo:lo + raw.size] = raw
        self.global_.init[0, lo:lo + raw.size] = initialised

    def contents(self, name: str) -> np.ndarray:
        """The bytes of the global allocation ``name`` now (a copy)."""
        a = self.global_.allocation(name)
        lo = a.address - self.global_.base
        return self.global_.data[0, lo:lo + a.size].copy()

    def barrier(self, group: int) -> None:
        """A work-group barrier: the LDS accesses before it no longer race with those after."""
        self.lds.writer[group].fill(-1)
        self.lds.reader[group].fill(-1)

    # ------------------------------------------------------------------ addressing
    def _locate(self, space: int, addr: np.ndarray, nbytes: int, active: np.ndarray, group: int,
                local: np.ndarray, what: str):
        """(arena, row per lane, byte index per lane and byte (L, n), the lanes' buffers)
        for the active lanes; raises Undefined for an access out of bounds."""
        addr = np.asarray(addr, dtype=np.uint64)
        if space == FLAT:
            ap = addr & np.uint64(APERTURE_MASK)
            act = active
            kinds = np.unique(ap[act]) if act.any() else np.array([], dtype=np.uint64)
            if len(kinds) > 1:
                raise NotModeled(None, "a flat access whose lanes address different address spaces")
            if len(kinds) == 1 and int(kinds[0]) == LDS_APERTURE:
                space = LDS
            elif len(kinds) == 1 and int(kinds[0]) == PRIVATE_APERTURE:
                space = PRIVATE
            elif len(kinds) == 1 and int(kinds[0]) != 0:
                lane = int(np.flatnonzero(act)[0])
                raise Undefined("out-of-bounds", f"{what} of {nbytes} bytes at flat address "
                                f"0x{int(addr[lane]):x}, in no address space", lane=lane)
            else:
                space = GLOBAL
            addr = addr & np.uint64(~APERTURE_MASK & 0xFFFFFFFFFFFFFFFF)
        if space in (GLOBAL, CONSTANT):
            arena, rows = self.global_, np.zeros(len(addr), dtype=np.int64)
        elif space == LDS:
            arena, rows = self.lds, np.full(len(addr), group, dtype=np.int64)
            addr = addr & np.uint64(0xFFFFFFFF)
        elif space == PRIVATE:
            arena = self.private
            rows = group * self.group_size + np.asarray(local, dtype=np.int64)
            addr = addr & np.uint64(0xFFFFFFFF)
        else:
            raise NotModeled(None, f"memory of address space {space}")
        off = addr.astype(np.int64) - arena.base
        bad = active & ((addr < np.uint64(arena.base)) | (off > arena.size - nbytes) | (addr >= np.uint64(1 << 62)))
        safe = np.where(active & ~bad, off, arena.size)
        idx = safe[:, None] + np.arange(nbytes, dtype=np.int64)[None, :]
        idx = np.minimum(idx, arena.size)
        owners = arena.owner[idx]
        bad |= active & ((owners[:, 0] < 0) | (owners != owners[:, :1]).any(axis=1))
        if bad.any():
            lane = int(np.flatnonzero(bad)[0])
            raise Undefined("out-of-bounds", f"{what} of {nbytes} bytes at {SPACE_NAMES[space]} address "
                            f"0x{int(addr[lane]):x}, outside every buffer", lane=lane)
        return arena, rows, idx, owners[:, 0]

    # ------------------------------------------------------------------ access
    def load(self, space: int, addr, nbytes: int, active: np.ndarray, group: int, local: np.ndarray,
             *, atomic: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """The bytes each active lane reads, (L, nbytes) uint8, and whether each was ever
        written, (L, nbytes) bool (inactive lanes: zeros, True)."""
        L = len(active)
        if not active.any():
            return np.zeros((L, nbytes), dtype=np.uint8), np.ones((L, nbytes), dtype=bool)
        arena, rows, idx, _ = self._locate(space, addr, nbytes, active, group, local, "load")
        r = rows[:, None]
        data = np.where(active[:, None], arena.data[r, np.minimum(idx, arena.size - 1)], 0).astype(np.uint8)
        init = np.where(active[:, None], arena.init[r, np.minimum(idx, arena.size - 1)], True)
        if arena.space == LDS and not atomic:
            self._track(arena, group, idx, active, group * self.group_size + local, write=False)
        return data, init

    def store(self, space: int, addr, data: np.ndarray, active: np.ndarray, group: int, local: np.ndarray,
              type_text: str, *, atomic: bool = False, origin=None) -> None:
        """Write ``data`` ((L, nbytes) uint8) for the active lanes, in lane order, and
        record the stores (``type_text`` names the stored IR type; ``origin``: what
        stored, an IR or machine instruction, kept for reports)."""
        if not active.any():
            return
        nbytes = data.shape[1]
        arena, rows, idx, owner = self._locate(space, addr, nbytes, active, group, local, "store")
        if arena.readonly[idx[active][:, 0]].any():
            lane = int(np.flatnonzero(active & arena.readonly[idx[:, 0]])[0])
            raise Undefined("readonly", f"store to read-only {arena.allocations[owner[lane]].name}", lane=lane)
        items = group * self.group_size + np.asarray(local, dtype=np.int64)
        if arena.space == LDS and not atomic:
            self._track(arena, group, idx, active, items, write=True)
        lanes = np.flatnonzero(active)
        r = rows[lanes][:, None]
        arena.data[r, idx[lanes]] = data[lanes]
        arena.init[r, idx[lanes]] = True
        if arena.space != PRIVATE:
            offs = idx[lanes, 0] - arena.starts[owner[lanes]]
            self.stores.append((group, np.asarray(local)[lanes].copy(), arena.space, owner[lanes].copy(), offs,
                                type_text, data[lanes].copy(), origin))

    def _track(self, arena: Arena, group: int, idx: np.ndarray, active: np.ndarray, items: np.ndarray,
               *, write: bool) -> None:
        lanes = np.flatnonzero(active)
        it = np.broadcast_to(items[lanes][:, None], (len(lanes), idx.shape[1])).ravel()
        where = idx[lanes].ravel()
        w = arena.writer[group, where]
        rd = arena.reader[group, where]
        clash = (w >= 0) & (w != it)
        if write:
            clash |= (rd >= 0) & (rd != it) | (rd == -2)
            # two work-items of this same access writing one byte
            order = np.lexsort((it, where))
            sw, si = where[order], it[order]
            dup = (sw[1:] == sw[:-1]) & (si[1:] != si[:-1])
            if dup.any():
                clash[order[1:][dup]] = True
        if clash.any():
            k = int(np.flatnonzero(clash)[0])
            other = int(w[k]) if w[k] >= 0 and w[k] != it[k] else int(rd[k])
            who = f"work-item {other % self.group_size}" if other >= 0 else "other work-items"
            lane = int(lanes[k // idx.shape[1]])
            raise Undefined("race", f"LDS byte 0x{int(where[k]):x} {'written' if write else 'read'} here and "
                            f"{'read or written' if write else 'written'} by {who} since the last barrier",
                            lane=lane)
        if write:
            arena.writer[group, where] = it
        else:
            prev = arena.reader[group, where]
            arena.reader[group, where] = np.where((prev == -1) | (prev == it), it, -2)

    # ------------------------------------------------------------------ records
    def store_records(self, allocation_names) -> list[tuple]:
        """Every recorded store as (group, local, space name, buffer, offset, type, value,
        origin) in the order they happened (value: the stored bytes as an unsigned
        little-endian integer). ``allocation_names(space, index)`` names a buffer."""
        out = []
        for group, local, space, owner, offs, type_text, data, origin in self.stores:
            vals = [int.from_bytes(row.tobytes(), "little") for row in data]
            for k in range(len(local)):
                out.append((group, int(local[k]), SPACE_NAMES[space], allocation_names(space, int(owner[k])),
                            int(offs[k]), type_text, vals[k], origin))
        return out

    def allocation_name(self, space: int, index: int) -> str:
        arena = self.lds if space == LDS else self.global_
        return arena.allocations[index].name


def to_bytes(values: np.ndarray, nbytes: int) -> np.ndarray:
    """(L,) uint64 values -> (L, nbytes) little-endian bytes (nbytes <= 8)."""
    v = np.ascontiguousarray(np.asarray(values, dtype="<u8"))
    return v.view(np.uint8).reshape(len(v), 8)[:, :nbytes]


def from_bytes(data: np.ndarray) -> np.ndarray:
    """(L, nbytes) little-endian bytes (nbytes <= 8) -> (L,) uint64."""
    L, n = data.shape
    full = np.zeros((L, 8), dtype=np.uint8)
    full[:, :n] = data
    return full.view("<u8").reshape(L).astype(np.uint64)
