"""Seeded generator of kernels for the isel differential test against llc (no dead code).

Why not ``testkit.irgen`` (B1's general generator): its kernels leave many computed
values unused (only a few reach the final store) and address ``%out[tid]``. llc deletes
dead values with IR passes we do not model one-for-one (EarlyCSE, LSR's dead-phi
removal...) and turns a divergent address into VALU shifts, so opcode multisets would
differ for reasons unrelated to selection. Here every value computed is live: each
block keeps a list of values not used yet and folds them into its result, diamonds merge
their arms' results in a phi, loops carry an accumulator that the exit uses, and the
final value is stored to ``%out`` (a uniform address).

The kernels avoid a few inputs that llc's IR passes fold before instruction selection,
which would make the comparison test those passes rather than selection: ``x op x``
operands, shift amounts llc can prove >= 32, two conditions on the same operand pair
(EarlyCSE folds a compare dominated by a branch on an equal compare), loop-invariant
loop bodies (LICM) and add-recurrences (SCEV). Code placement by llc's Sink pass and its
InstSimplify/DAG folds are modeled instead (patterns.dag.builder, patterns.dag.combine).

``generate_isel_kernel(seed, n_ops, *, loops=True, divergent_branches=True,
constants=True, name="k")`` -> IR text. Uniform inputs: kernel arguments ``%a %b %n``
and loads from ``ptr addrspace(4) %in`` at constant offsets; divergent input: the
workitem id. Operations: 32-bit add, sub, mul, and, or, xor, shl, lshr, ashr, not
(``xor x, -1``), xnor (``xor (xor x, y), -1``). Same arguments -> same text.

``intrinsics=True`` mixes in the target's other modeled 32-bit operations, each in about
one statement of five: the bit-counting intrinsics (``llvm.ctpop``, ``llvm.bitreverse``,
``llvm.ctlz``/``llvm.cttz`` with a zero input poison or defined), min/max
(``llvm.smin/smax/umin/umax``), ``llvm.abs``, bit-field extracts (``and (lshr x, c),
mask``, ``lshr`` by a register then a mask), sign extension in a register (``ashr (shl
x, c), c``) and the ``(1 << x) - 1`` mask. Their results flow into the ALU code like any
other value, so llc's known-bits folds over them (a ctpop result has 26 known-zero high
bits, an umin is no larger than either operand ...) meet the rest of the kernel. Off by
default: the kernels of ``intrinsics=False`` are unchanged, draw for draw.
"""

from __future__ import annotations

import random

__all__ = ["generate_isel_kernel"]

_BIN = ("add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "ashr")
_PRED = ("eq", "ne", "slt", "sgt", "ult", "ugt", "sle", "uge")
# (kind, IR text with {v} {a} {b} {t}, declaration) of the intrinsic mix
_UNARY = (
    ("ctpop", "{v} = call i32 @llvm.ctpop.i32(i32 {a})"),
    ("bitreverse", "{v} = call i32 @llvm.bitreverse.i32(i32 {a})"),
    ("ctlz", "{v} = call i32 @llvm.ctlz.i32(i32 {a}, i1 true)"),
    ("ctlz", "{v} = call i32 @llvm.ctlz.i32(i32 {a}, i1 false)"),
    ("cttz", "{v} = call i32 @llvm.cttz.i32(i32 {a}, i1 true)"),
    ("cttz", "{v} = call i32 @llvm.cttz.i32(i32 {a}, i1 false)"),
    ("abs", "{v} = call i32 @llvm.abs.i32(i32 {a}, i1 false)"),
)
_MINMAX = ("smin", "smax", "umin", "umax")
_DECLARE = {
    "ctpop": "declare i32 @llvm.ctpop.i32(i32)",
    "bitreverse": "declare i32 @llvm.bitreverse.i32(i32)",
    "ctlz": "declare i32 @llvm.ctlz.i32(i32, i1)",
    "cttz": "declare i32 @llvm.cttz.i32(i32, i1)",
    "abs": "declare i32 @llvm.abs.i32(i32, i1)",
    **{m: f"declare i32 @llvm.{m}.i32(i32, i32)" for m in _MINMAX},
}


class _Gen:
    def __init__(self, seed: int, n_ops: int, loops: bool, divergent_branches: bool, constants: bool,
                 intrinsics: bool = False):
        self.r = random.Random(seed)
        self.intrinsics = intrinsics
        self.declared: set[str] = set()
        self.budget = n_ops
        self.loops = loops
        self.divb = divergent_branches
        self.constants = constants
        self.lines: list[str] = []
        self.n = 0
        self.nb = 0
        self.block = "entry"
        self.compared: set = set()

    def fresh(self, p="v") -> str:
        self.n += 1
        return f"%{p}{self.n}"

    def label(self, p) -> str:
        self.nb += 1
        return f"{p}{self.nb}"

    def emit(self, s: str) -> None:
        self.lines.append("  " + s)
        self.budget -= 1

    def start(self, label: str) -> None:
        self.lines.append(f"{label}:")
        self.block = label

    def operand(self, pool: list[str]) -> str:
        if self.constants and self.r.random() < 0.15:
            return str(self.r.choice((1, 2, 3, 5, 7, 12, 31, 100, -8, 255, 1000)))
        return self.r.choice(pool)

    def op(self, pool: list[str], pending: list[str]) -> str:
        """One ALU statement; uses a pending value when there is one."""
        a = pending.pop(self.r.randrange(len(pending))) if pending else self.r.choice(pool)
        v = self.fresh()
        if self.intrinsics and self.r.random() < 0.2:
            return self.other_op(v, a, pool)
        k = self.r.random()
        if k < 0.08:
            self.emit(f"{v} = xor i32 {a}, -1")
        elif k < 0.16:
            b = self.r.choice(pool)
            if b == a and len(pool) > 1:
                b = self.r.choice([x for x in pool if x != a])  # x ^ x folds away in llc
            t = self.fresh()
            self.emit(f"{t} = xor i32 {a}, {b}")
            self.emit(f"{v} = xor i32 {t}, -1")
        else:
            opn = self.r.choice(_BIN)
            b = self.operand(pool)
            if opn in ("shl", "lshr", "ashr"):
                # amounts are constants < 32 or raw uniform inputs: an amount llc can prove
                # >= 32 (known bits of a computed value) makes the shift poison and folds it
                if self.constants and self.r.random() < 0.5:
                    b = str(self.r.choice((1, 2, 3, 4, 5, 7, 16, 24)))
                else:
                    b = self.r.choice(self.inputs)
            elif b == a and len(pool) > 1:
                b = self.r.choice([x for x in pool if x != a])  # x op x folds away in llc
            if opn not in ("shl", "lshr", "ashr") and self.r.random() < 0.5 and not b.lstrip("-").isdigit():
                a, b = b, a
            self.emit(f"{v} = {opn} i32 {a}, {b}")
        return v

    def other_op(self, v: str, a: str, pool: list[str]) -> str:
        """One statement of the intrinsic mix (``intrinsics=True``) reading ``a``."""
        r = self.r
        k = r.random()
        if k < 0.35:
            kind, text = r.choice(_UNARY)
            self.declared.add(kind)
            self.emit(text.format(v=v, a=a))
        elif k < 0.6:
            m = r.choice(_MINMAX)
            b = r.choice([x for x in pool if x != a] or pool)  # min(x, x) folds away
            if r.random() < 0.5:
                a, b = b, a
            self.declared.add(m)
            self.emit(f"{v} = call i32 @llvm.{m}.i32(i32 {a}, i32 {b})")
        elif k < 0.75:
            # a bit-field extract: constant offset and mask, or a register offset
            t = self.fresh()
            if r.random() < 0.7:
                off = r.choice((1, 2, 4, 5, 8, 12, 16, 20))
                self.emit(f"{t} = lshr i32 {a}, {off}")
            else:
                self.emit(f"{t} = lshr i32 {a}, {r.choice(self.inputs)}")
            self.emit(f"{v} = and i32 {t}, {r.choice((1, 3, 15, 31, 255, 1023, 65535))}")
        elif k < 0.9:
            # sign extension in a register: ashr (shl x, c), c
            t = self.fresh()
            c = r.choice((8, 16, 24, 12, 1))
            self.emit(f"{t} = shl i32 {a}, {c}")
            self.emit(f"{v} = ashr i32 {t}, {c}")
        else:
            # the (1 << x) - 1 mask, used (its amount a raw uniform input: see ``op``)
            t, m = self.fresh(), self.fresh()
            self.emit(f"{t} = shl i32 1, {r.choice(self.inputs)}")
            self.emit(f"{m} = add i32 {t}, -1")
            self.emit(f"{v} = and i32 {a}, {m}")
        return v

    def fold(self, values: list[str]) -> str:
        """Combine all ``values`` into one (keeps them live)."""
        vals = list(values)
        while len(vals) > 1:
            a = vals.pop(self.r.randrange(len(vals)))
            b = vals.pop(self.r.randrange(len(vals)))
            v = self.fresh()
            self.emit(f"{v} = {self.r.choice(('add', 'xor', 'or', 'sub'))} i32 {a}, {b}")
            vals.append(v)
        return vals[0]

    def straight(self, pool: list[str], count: int, first: str | None = None) -> str:
        pending: list[str] = [first] if first else []
        local = list(pool)
        for _ in range(max(1, count)):
            v = self.op(local, pending)
            local.append(v)
            pending.append(v)
        return self.fold(pending)

    def cond(self, pool: list[str], uniform_pool: list[str]) -> str:
        src = pool if (self.divb and self.r.random() < 0.5) else uniform_pool
        a = self.r.choice(src)
        b = self.r.choice([x for x in uniform_pool + ["7"] if x != a])  # icmp x, x folds
        # a compare of an operand pair already compared is drawn again: llc's EarlyCSE
        # merges equal compares and folds one dominated by a branch on the same compare
        # (then CodeGenPrepare deletes the dead arm), an IR-level step not modeled here
        for _ in range(8):
            if frozenset((a, b)) not in self.compared:
                break
            a = self.r.choice(src)
            b = self.r.choice([x for x in uniform_pool + ["7"] if x != a])
        self.compared.add(frozenset((a, b)))
        c = self.fresh("c")
        self.emit(f"{c} = icmp {self.r.choice(_PRED)} i32 {a}, {b}")
        return c

    def region(self, pool: list[str], uniform_pool: list[str], depth: int, first: str | None = None) -> str:
        """Code in the current block (possibly creating more blocks); returns its result.
        ``first``: a value the first statement must use (a loop's accumulator)."""
        results = [self.straight(pool, self.r.randint(2, 5), first)]
        # nested regions take a few steps; the top level runs until the budget is spent
        steps = 10**9 if depth == 0 else self.r.randint(1, 3)
        while self.budget > 0 and steps > 0:
            steps -= 1
            k = self.r.random()
            cur = self.fold(results) if len(results) > 1 else results[0]
            results = [cur]
            p2 = pool + [cur]
            # nested code starts from ``cur`` so nothing inside a loop is loop-invariant
            # (llc's LICM would move it to another block, changing what the DAG sees)
            if depth < 3 and k < 0.35:
                results.append(self.diamond(p2, uniform_pool, depth, cur))
            elif depth < 3 and k < 0.6 and self.loops:
                results.append(self.loop(p2, uniform_pool, depth))
            else:
                results.append(self.straight(p2, self.r.randint(2, 6), cur))
        return self.fold(results)

    def diamond(self, pool, uniform_pool, depth, first=None) -> str:
        c = self.cond(pool, uniform_pool)
        t, e, j = self.label("then"), self.label("else"), self.label("join")
        self.emit(f"br i1 {c}, label %{t}, label %{e}")
        self.start(t)
        tv = self.region(pool, uniform_pool, depth + 1, first)
        tb = self.block
        self.emit(f"br label %{j}")
        self.start(e)
        ev = self.straight(pool, self.r.randint(1, 4), first) if self.r.random() < 0.8 else (first or self.r.choice(pool))
        eb = self.block
        self.emit(f"br label %{j}")
        self.start(j)
        p = self.fresh("p")
        self.emit(f"{p} = phi i32 [ {tv}, %{tb} ], [ {ev}, %{eb} ]")
        return p

    def loop(self, pool, uniform_pool, depth) -> str:
        pre = self.block
        h, x = self.label("loop"), self.label("exit")
        init = self.r.choice(pool)
        self.emit(f"br label %{h}")
        self.start(h)
        i, acc = self.fresh("i"), self.fresh("acc")
        inext, accn = self.fresh("inext"), self.fresh("accn")
        self.lines.append(f"  {i} = phi i32 [ 0, %{pre} ], [ {inext}, %LATCH ]")
        self.lines.append(f"  {acc} = phi i32 [ {init}, %{pre} ], [ {accn}, %LATCH ]")
        # the body starts from the accumulator and is folded back with xor, so the
        # accumulator is not an affine recurrence (llc's SCEV-based passes would
        # rewrite an add-recurrence into a closed form outside the loop)
        body = self.region(pool + [i, acc], uniform_pool + [i], depth + 1, first=acc)
        self.emit(f"{accn} = xor i32 {body}, {i}")
        self.emit(f"{inext} = add i32 {i}, 1")
        bound = "%dv" if (self.divb and self.r.random() < 0.3) else "%n"
        c = self.fresh("lc")
        self.emit(f"{c} = icmp ult i32 {inext}, {bound}")
        self.emit(f"br i1 {c}, label %{h}, label %{x}")
        latch = self.block
        # patch the latch label of this loop's phis
        for k in range(len(self.lines) - 1, -1, -1):
            if "%LATCH" in self.lines[k] and (f"{i} = phi" in self.lines[k] or f"{acc} = phi" in self.lines[k]):
                self.lines[k] = self.lines[k].replace("%LATCH", f"%{latch}")
        self.start(x)
        return accn

    def kernel(self, name: str) -> str:
        self.lines = []
        self.emit("%tid = call i32 @llvm.amdgcn.workitem.id.x()")
        uniform = ["%a", "%b", "%n"]
        for k in range(3):
            g, ld = self.fresh("g"), self.fresh("ld")
            self.emit(f"{g} = getelementptr i32, ptr addrspace(4) %in, i64 {k}")
            self.emit(f"{ld} = load i32, ptr addrspace(4) {g}, align 4")
            uniform.append(ld)
        # the divergent input mixed with a loaded value, so llc's known-bits facts about
        # workitem ids (range 0..1023) do not turn muls into mul_u24 or ashr into lshr
        self.emit(f"%dv = xor i32 %tid, {uniform[3]}")
        pool = uniform + ["%dv"]
        self.inputs = list(uniform)
        res = self.region(pool, uniform, 0)
        self.emit(f"store i32 {res}, ptr addrspace(1) %out, align 4")
        self.emit("ret void")
        head = [f"define amdgpu_kernel void @{name}(ptr addrspace(1) %out, ptr addrspace(4) %in, i32 %a, i32 %b, i32 %n) {{",
                "entry:"]
        decls = ["declare i32 @llvm.amdgcn.workitem.id.x()"] + [_DECLARE[k] for k in sorted(self.declared)]
        return "\n".join(head + self.lines + ["}", ""] + decls + [""])


def generate_isel_kernel(seed: int, n_ops: int = 40, *, loops: bool = True, divergent_branches: bool = True,
                         constants: bool = True, intrinsics: bool = False, name: str = "k") -> str:
    """IR text of one kernel of roughly ``n_ops`` instructions (see module docstring)."""
    return _Gen(seed, max(8, n_ops), loops, divergent_branches, constants, intrinsics).kernel(name)
