"""The SIMT execution of one work-group: its waves, their reconvergence stacks, barrier
regions, and the instructions that touch memory or control flow.

A ``Program`` is the kernel prepared once per launch (blocks, immediate post-dominators,
the private slots of its allocas, constants). ``run_group`` makes one ``Wave`` per
``wave`` work-items of the group and runs them region by region (see
patterns/run/reference.py's docstring for the model). A ``Wave`` keeps every SSA value
as lane arrays; its stack entries are ``[block, mask, reconvergence block, next
instruction]``. At a divergent branch of block B the entry's block becomes B's immediate
post-dominator (None: the function's exit) and one entry per successor is pushed with
that block as its reconvergence point; an entry whose block is its reconvergence block
is popped (its lanes wait in the entry below). When the entry's reconvergence point is
the post-dominator itself, the entry is replaced rather than kept, so a loop with a
divergent exit keeps the stack's depth constant.
"""

from __future__ import annotations

import numpy as np

from patterns.ir.core import Constant, GlobalRef, PtrType
from patterns.ir.dominators import DomTree
from patterns.run import instr
from patterns.run import intrinsics as intr
from patterns.run.launch import arg_bits, layout_of
from patterns.run.memory import PRIVATE
from patterns.run.ub import NotModeled, Undefined
from patterns.run.values import (const_gep_source, constant_value, from_memory, scalar_bits, to_memory)

U64 = np.uint64
_EXIT = object()


class Program:
    """The kernel ``fn`` prepared for ``launch`` (see the module docstring)."""

    def __init__(self, fn, module, launch, intrinsics) -> None:
        self.fn = fn
        self.module = module
        self.launch = launch
        self.W = launch.wave
        self.dl = layout_of(fn)
        self.target_intrinsics = intrinsics
        shape = _SHAPES.get(fn)
        if shape is None or shape[0] != [len(b.instructions) for b in fn.blocks]:
            shape = _SHAPES[fn] = _shape(fn)
        _, self.blocks, self.index, self.ipdom, self.phis, self.body = shape
        self.private_offsets = {}
        off = 0
        for b in self.blocks:
            for i in b.instructions:
                if i.opcode == "alloca":
                    count = i.operands[0] if i.operands else None
                    n = 1
                    if count is not None:
                        if not isinstance(count, Constant) or count.kind != "int":
                            raise NotModeled(i.span, "an alloca of a variable number of elements")
                        n = int(count.value)
                    t = i.source_type if i.source_type is not None else i.type
                    align = max(self.dl.abi_align(t), i.align or 1)
                    off = (off + align - 1) // align * align
                    self.private_offsets[i] = off
                    off += self.dl.alloc_size(t) * n
        self.private_size = off
        self.consts: dict = {}
        self.handlers: dict = {}

    def bind_memory(self, mem, seg, lds_addresses: dict) -> None:
        self.mem = mem
        self.seg = seg
        self.lds_addresses = lds_addresses

    def global_address(self, ref) -> int:
        a = self.lds_addresses.get(ref.name)
        if a is None:
            raise NotModeled(None, f"a reference to @{ref.name} (only LDS variables are modeled)")
        return a

    def constant(self, c):
        v = self.consts.get(c)
        if v is None:
            if isinstance(c, Constant) and c.kind == "expr":
                v = self._const_expr(c)
            else:
                v = constant_value(c, self.W, self.global_address)
            self.consts[c] = v
        return v

    def _const_expr(self, c):
        from patterns.run.instr import gep_address

        text = c.text
        if text.startswith("getelementptr"):
            base = self.constant(c.elements[0])
            idx = [(self.constant(e), e.type) for e in c.elements[1:]]
            return gep_address(_TypeOnly(c.type), self.dl, base, idx, const_gep_source(c))
        if text.startswith("addrspacecast"):
            return instr.addrspace_cast(_TypeOnly(c.type, [c.elements[0]]), self.constant(c.elements[0]))
        for op in ("ptrtoint", "inttoptr", "bitcast"):
            if text.startswith(op):
                bits, pz = self.constant(c.elements[0])
                width = getattr(c.type, "bits", 64) if op == "ptrtoint" else 64
                return bits & ops_mask(width), pz
        raise NotModeled(None, f"the constant expression {text}")

    def handler(self, inst):
        h = self.handlers.get(inst)
        if h is None:
            name = inst.callee or ""
            h = intr.lookup(name, self.target_intrinsics) or intr.lookup(name)
            if h is None:
                if inst.inline_asm is not None or inst.callee_value is not None and not name:
                    raise NotModeled(inst.span, "inline assembly or an indirect call")
                what = "call of a defined function" if any(f.name == name and not f.is_declaration
                                                           for f in self.module.functions) else "intrinsic"
                raise NotModeled(inst.span, f"{what} @{name}")
            self.handlers[inst] = h
        return h


_SHAPES: dict = {}  # function -> its _shape (kept while the function lives; keyed by identity)


def _shape(fn) -> tuple:
    """What a run needs of ``fn``'s CFG: (instruction counts, blocks, block index by id,
    immediate post-dominators, phis per block, the other non-terminators per block)."""
    blocks = list(fn.blocks)
    index = {id(b): k for k, b in enumerate(blocks)}
    phis, body = [], []
    for b in blocks:
        ins = list(b.instructions)
        ph = [i for i in ins if i.opcode == "phi"]
        phis.append(ph)
        body.append(ins[len(ph):-1])
    if len(_SHAPES) > 64:
        _SHAPES.clear()
    return ([len(b.instructions) for b in blocks], blocks, index, _post_dominators(blocks), phis, body)


def _post_dominators(blocks) -> list:
    exits = [b for b in blocks if not b.successors]
    preds = {id(b): [] for b in blocks}
    for b in blocks:
        for s in b.successors:
            preds[id(s)].append(b)

    def succ(n):
        return exits if n is _EXIT else preds[id(n)]

    tree = DomTree(_EXIT, succ)
    out = []
    for b in blocks:
        try:
            p = tree.parent(b) if tree.reachable(b) else None
        except KeyError:
            p = None
        out.append(None if p is _EXIT else p)
    return out


class _TypeOnly:
    """What the instruction helpers read of a constant expression: its type and operands."""

    def __init__(self, t, operands=()):
        self.type = t
        self.operands = list(operands)
        self.span = None


def ops_mask(width: int):
    from patterns.run.ops import mask_of

    return mask_of(min(width, 64))


def run_group(prog: Program, group: int) -> None:
    """Run work-group ``group`` to its end, barrier region by barrier region."""
    L = prog.launch.group_size
    W = prog.W
    waves = [Wave(prog, group, w) for w in range((L + W - 1) // W)]
    gens = [w.run() for w in waves]
    live = list(range(len(gens)))
    while live:
        at_barrier, done = [], []
        for k in live:
            try:
                next(gens[k])
                at_barrier.append(k)
            except StopIteration:
                done.append(k)
        if at_barrier and done:
            w = waves[at_barrier[0]]
            raise Undefined("barrier", f"a barrier that waves {done} of the work-group never reach (they returned)",
                            item=(group, int(w.local[0])), lane=0, inst=w.barrier_inst.text.strip(),
                            span=w.barrier_inst.span)
        if at_barrier:
            prog.mem.barrier(group)
        live = at_barrier


class Wave:
    """One wave of a work-group: its lanes' values and reconvergence stack."""

    def __init__(self, prog: Program, group: int, index: int) -> None:
        self.prog = prog
        self.group = group
        self.W = W = prog.W
        self.local = index * W + np.arange(W, dtype=np.int64)
        self.alive = self.local < prog.launch.group_size
        self.lane = np.arange(W, dtype=np.int64)
        self.env: dict = {}
        self.full = np.ones(W, dtype=bool)  # the mask of a block every lane executes
        self.all_live = bool(self.alive.all())
        self.steps = 0
        self.barrier_inst = None
        seg = prog.seg
        for a, v in zip(prog.fn.args, prog.launch.args):
            bits = arg_bits(a.type, v, seg.buffers)
            self.env[a] = (np.full(W, U64(bits), dtype=U64), np.zeros(W, dtype=bool))

    # ------------------------------------------------------------ values
    def get(self, v):
        r = self.env.get(v)
        if r is not None:
            return r
        if isinstance(v, (Constant, GlobalRef)):
            return self.prog.constant(v)
        if v.__class__.__name__ in ("Instruction", "Argument"):
            return np.zeros(self.W, dtype=U64), np.ones(self.W, dtype=bool)  # not yet defined: poison
        raise NotModeled(getattr(v, "span", None), f"the operand {v}")

    def write(self, inst, val, mask) -> None:
        if mask is self.full:  # every live lane of the wave is active: nothing to keep
            if self.all_live:
                self.env[inst] = val
                return
        self.env[inst] = _merge(val, self.env.get(inst), mask)

    # ------------------------------------------------------------ checks
    def first(self, lanes) -> int:
        return int(np.flatnonzero(lanes)[0])

    def need_defined(self, val, mask, what: str) -> None:
        pz = val[1]
        if pz.ndim > 1:
            pz = pz.any(axis=1)
        bad = mask & pz
        if bad.any():
            raise Undefined("poison", f"{what} is poison", lane=self.first(bad))

    # ------------------------------------------------------------ execution
    def run(self):
        """Run to the end, yielding at each barrier (the group resumes it)."""
        prog = self.prog
        st = [[prog.blocks[0], self.alive.copy(), None, 0]]
        self.stack = st
        while st:
            top = st[-1]
            blk, m, rpc, idx = top
            if blk is rpc or blk is None:
                st.pop()
                continue
            m = m & self.alive
            if not m.any():
                st.pop()
                continue
            if m.all():
                m = self.full
            top[1] = m
            self.steps += 1
            if self.steps > MAX_STEPS:
                raise NotModeled(prog.fn.span, f"a run of more than {MAX_STEPS} blocks per wave (an endless loop?)")
            bi = prog.index[id(blk)]
            body = prog.body[bi]
            k = idx
            while k < len(body):
                inst = body[k]
                k += 1
                try:
                    if self.step(inst, m) is intr.BARRIER:
                        if not (m == self.alive).all():
                            missing = np.flatnonzero(self.alive & ~m)
                            raise Undefined("barrier", f"a barrier in divergent control flow (lanes {list(missing[:8])}"
                                            f"{'...' if len(missing) > 8 else ''} of this wave do not reach it)",
                                            lane=self.first(m))
                        top[3] = k
                        self.barrier_inst = inst
                        yield inst
                except Undefined as u:
                    raise self.locate(u, inst, m) from None
                except NotModeled as e:
                    if e.span is None:
                        raise NotModeled(inst.span, e.message[len("not modeled: "):]) from None
                    raise
            top[3] = 0
            term = blk.instructions[-1]
            try:
                self.terminate(blk, term, m, top, rpc)
            except Undefined as u:
                raise self.locate(u, term, m) from None

    def locate(self, u: Undefined, inst, m) -> Undefined:
        lane = u.lane if u.lane is not None else self.first(m)
        return u.located(item=(self.group, int(self.local[lane])), lane=lane, inst=inst.text, span=inst.span)

    def terminate(self, blk, term, m, top, rpc) -> None:
        st = self.stack
        op = term.opcode
        if op == "ret":
            self.alive = self.alive & ~m
            st.pop()
            return
        if op == "unreachable":
            raise Undefined("unreachable", "'unreachable' executed", lane=self.first(m))
        if op == "br":
            if not term.operands:
                succ = [(term.targets[0], m)]
            else:
                c = self.get(term.operands[0])
                self.need_defined(c, m, "the branch condition")
                t = m & (c[0] != 0)
                succ = [(term.targets[0], t), (term.targets[1], m & ~t)]
        elif op == "switch":
            c = self.get(term.operands[0])
            self.need_defined(c, m, "the switch condition")
            left = m.copy()
            succ = []
            for cv, dest in term.cases:
                hit = left & (c[0] == self.prog.constant(cv)[0])
                succ.append((dest, hit))
                left &= ~hit
            succ.append((term.targets[0], left))
        else:
            raise NotModeled(term.span, f"the terminator '{op}'")
        groups: list = []
        for dest, mm in succ:
            if not mm.any():
                continue
            for g in groups:
                if g[0] is dest:
                    g[1] = g[1] | mm
                    break
            else:
                groups.append([dest, mm])
        for dest, mm in groups:
            self.move(blk, dest, mm)
        if len(groups) == 1:
            top[0] = groups[0][0]
            return
        r = self.prog.ipdom[self.prog.index[id(blk)]]
        if r is rpc:
            st.pop()
        else:
            top[0] = r
        for dest, mm in reversed(groups):
            st.append([dest, mm, r, 0])

    def move(self, pred, dest, m) -> None:
        """Take the edge ``pred -> dest`` for lanes ``m``: ``dest``'s phis, all at once."""
        phis = self.prog.phis[self.prog.index[id(dest)]]
        if not phis:
            return
        vals = []
        for phi in phis:
            for v, b in phi.incoming:
                if b is pred:
                    vals.append(self.get(v))
                    break
            else:
                raise NotModeled(phi.span, f"a phi without a value for %{pred.name}")
        for phi, v in zip(phis, vals):
            self.write(phi, v, m)

    def step(self, inst, m):
        """Execute one non-terminator instruction for lanes ``m``."""
        op = inst.opcode
        ops_ = inst.operands
        if op in _BINOPS:
            val = instr.exec_binop(inst, self.get(ops_[0]), self.get(ops_[1]))
            if op in _DIVS:
                from patterns.run.ops import div_trap

                bits = inst.type.scalar.bits
                bad = div_trap(op, self.get(ops_[0])[0], self.get(ops_[1])[0], bits)
                if bad.ndim > 1:
                    bad = bad.any(axis=1)
                bad = bad & m
                if bad.any():
                    raise Undefined("division", f"'{op}' by zero or signed overflow", lane=self.first(bad))
        elif op in ("icmp", "fcmp"):
            val = instr.exec_cmp(inst, self.get(ops_[0]), self.get(ops_[1]))
        elif op in _CASTS:
            val = instr.exec_cast(inst, self.get(ops_[0]))
        elif op == "select":
            val = instr.exec_select(inst, self.get(ops_[0]), self.get(ops_[1]), self.get(ops_[2]))
        elif op == "fneg":
            a = self.get(ops_[0])
            val = a[0] ^ U64(1 << (scalar_bits(inst.type.scalar) - 1)), a[1]
        elif op == "getelementptr":
            base = self.get(ops_[0])
            idx = [(self.get(v), v.type) for v in ops_[1:]]
            val = instr.gep_address(inst, self.prog.dl, base, idx, inst.source_type)
        elif op == "load":
            val = self.load(inst, m)
        elif op == "store":
            self.store(inst, m)
            return None
        elif op == "call":
            h = self.prog.handler(inst)
            if h is intr.BARRIER:
                return intr.BARRIER
            args = [self.get(v) for v in ops_]
            val = h(self, inst, args, m)
            if val is None:
                return None
        elif op == "alloca":
            off = self.prog.private_offsets[inst]
            val = np.full(self.W, U64(off), dtype=U64), np.zeros(self.W, dtype=bool)
        elif op == "freeze":
            a = self.get(ops_[0])
            pz = a[1] if a[1].ndim == 1 else a[1].any(axis=1)
            if (pz & m).any():
                raise Undefined("freeze", "freeze of a poison value (LLVM lets it be any value; this model "
                                "picks none)", lane=self.first(pz & m))
            val = a
        elif op in ("extractvalue", "insertvalue"):
            val = _aggregate(inst, [self.get(v) for v in ops_])
        elif op in ("extractelement", "insertelement", "shufflevector"):
            val = _vector(inst, [self.get(v) for v in ops_])
        elif op in ("atomicrmw", "cmpxchg"):
            from patterns.run.atomics import atomic

            val = atomic(self, inst, m)
        elif op == "fence":
            return None
        else:
            raise NotModeled(inst.span, f"the instruction '{op}'")
        self.write(inst, val, m)
        return None

    # ------------------------------------------------------------ memory
    def space_of(self, ptr_value_type) -> int:
        if not isinstance(ptr_value_type, PtrType):
            raise NotModeled(None, f"an access through {ptr_value_type}")
        return ptr_value_type.addrspace

    def load(self, inst, m):
        p = self.get(inst.operands[0])
        self.need_defined(p, m, "the load's address")
        size = self.prog.dl.store_size(inst.type)
        data, init = self.prog.mem.load(self.space_of(inst.operands[0].type), p[0], size, m, self.group,
                                        self.local, atomic=bool(inst.atomic))
        return from_memory(self.prog.dl, inst.type, data, init)

    def store(self, inst, m) -> None:
        v, p = self.get(inst.operands[0]), self.get(inst.operands[1])
        self.need_defined(p, m, "the store's address")
        t = inst.operands[0].type
        data, pz = to_memory(self.prog.dl, t, v)
        space = self.space_of(inst.operands[1].type)
        if space != PRIVATE:
            self.need_defined((v[0], pz), m, "the stored value")
        self.prog.mem.store(space, p[0], data, m, self.group, self.local, str(t), atomic=bool(inst.atomic),
                            origin=inst)


_BINOPS = frozenset({"add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr", "and", "or", "xor",
                     "fadd", "fsub", "fmul", "fdiv", "frem"})
_DIVS = frozenset({"udiv", "sdiv", "urem", "srem"})
_CASTS = frozenset({"trunc", "zext", "sext", "fptrunc", "fpext", "fptoui", "fptosi", "uitofp", "sitofp",
                    "ptrtoint", "inttoptr", "bitcast", "addrspacecast"})
MAX_STEPS = 2_000_000


def _merge(val, old, mask):
    if isinstance(val, tuple) and val and isinstance(val[0], tuple):
        if old is None:
            return tuple(_merge(v, None, mask) for v in val)
        return tuple(_merge(v, o, mask) for v, o in zip(val, old))
    bits, pz = val
    mk = mask if bits.ndim == 1 else mask[:, None]
    if old is None:
        return np.where(mk, bits, U64(0)), np.where(mk, pz, True)
    return np.where(mk, bits, old[0]), np.where(mk, pz, old[1])


def _aggregate(inst, args):
    idx = list(inst.indices)
    if inst.opcode == "extractvalue":
        v = args[0]
        for k in idx:
            if not (isinstance(v, tuple) and isinstance(v[0], tuple)):
                raise NotModeled(inst.span, "extractvalue from an array value")
            v = v[k]
        return v
    agg, new = args
    if len(idx) != 1 or not isinstance(agg[0], tuple):
        raise NotModeled(inst.span, "nested insertvalue")
    out = list(agg)
    out[idx[0]] = new
    return tuple(out)


def _vector(inst, args):
    op = inst.opcode
    if op == "extractelement":
        v, i = args
        k = i[0].astype(np.int64)
        n = v[0].shape[1]
        bad = k >= n
        kk = np.where(bad, 0, k)
        rows = np.arange(len(k))
        return v[0][rows, kk], v[1][rows, kk] | i[1] | bad
    if op == "insertelement":
        v, e, i = args
        k = i[0].astype(np.int64)
        n = v[0].shape[1]
        sel = np.arange(n)[None, :] == k[:, None]
        pz = np.where(sel, e[1][:, None], v[1]) | (i[1] | (k >= n))[:, None]
        return np.where(sel, e[0][:, None], v[0]), pz
    a, b, mask = args
    if not isinstance(inst.operands[2], Constant):
        raise NotModeled(inst.span, "a shufflevector mask that is not a constant")
    both_b = np.concatenate([a[0], b[0]], axis=1)
    both_p = np.concatenate([a[1], b[1]], axis=1)
    mc = inst.operands[2]
    if mc.kind == "aggregate":
        sel = [(-1 if e.kind in ("undef", "poison") else int(e.value)) for e in mc.elements]
    elif mc.kind in ("zero",):
        sel = [0] * inst.type.count
    else:
        raise NotModeled(inst.span, f"the shufflevector mask {mc}")
    cols = np.array([max(s, 0) for s in sel])
    bits = both_b[:, cols]
    pz = both_p[:, cols] | np.array([s < 0 for s in sel])[None, :]
    return bits, pz
