"""Deterministic generator of control-flow kernels without undefined behaviour, for the
execution agreement tests (reference interpreter = selected code = llc, on every lane).

``generate_cfg_kernel(seed, n_ops)`` -> the text of one AMDGPU kernel (``llc-19
-mtriple=amdgcn -mcpu=gfx900`` accepts it) whose every execution is defined for any
inputs: shift amounts are masked below 32 or constants below 32, no division, no
``nsw``/``nuw``, loop trip counts bounded (``& 7``), every value defined on every path.
Same arguments -> byte-identical text (``random.Random(seed)``).

What a kernel contains: 32-bit integer ops (add, sub, mul, and, or, xor, shl, lshr, ashr,
not, icmp + select); if/else diamonds and if-then triangles joined by phis, nested, on
uniform (``%n``-derived) or divergent (``%tid``-derived) conditions; switches on a
value's low two bits; counted loops with a uniform or divergent trip count, nested,
with an optional early exit on a uniform or divergent condition, loop-carried and exit
phis; stores to ``%out2[tid]`` inside branches (so which lanes store depends on the
control flow) and a final store to ``%out[tid]``. Arguments: ``%out``, ``%out2``
(global buffers), ``%in`` (read at ``%in[tid]``), ``%n`` (uniform).
"""

from __future__ import annotations

import random

__all__ = ["generate_cfg_kernel"]

_BINOPS = ("add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "ashr")
_PREDS = ("eq", "ne", "slt", "sgt", "ult", "uge", "sle", "ugt")


class _Gen:
    def __init__(self, seed: int, n_ops: int, max_depth: int, divergent: bool, name: str) -> None:
        self.rng = random.Random(seed)
        self.budget = n_ops
        self.max_depth = max_depth
        self.divergent = divergent
        self.name = name
        self.lines: list[str] = []
        self.nval = 0
        self.nblk = 0
        self.ops = 0
        self.cur = "entry"
        self.stores = 0

    def val(self, prefix: str = "v") -> str:
        self.nval += 1
        return f"%{prefix}{self.nval}"

    def blk(self, prefix: str) -> str:
        self.nblk += 1
        return f"{prefix}{self.nblk}"

    def emit(self, text: str) -> None:
        self.lines.append("  " + text)
        self.ops += 1

    def label(self, name: str) -> None:
        self.lines.append(f"{name}:")
        self.cur = name

    def left(self) -> int:
        return self.budget - self.ops

    def pick(self, scope, uniform_only: bool = False) -> str:
        pool = [v for v, u in scope if u] if uniform_only else [v for v, _ in scope]
        if not pool:
            pool = [v for v, _ in scope]
        if self.rng.random() < 0.6:
            return pool[-1 - self.rng.randrange(min(4, len(pool)))]
        return self.rng.choice(pool)

    @staticmethod
    def uniform_of(scope, v: str) -> bool:
        for name, u in reversed(scope):
            if name == v:
                return u
        return True

    def straight(self, scope) -> None:
        r = self.rng.random()
        if r < 0.72:
            op = self.rng.choice(_BINOPS)
            a = self.pick(scope)
            if op in ("shl", "lshr", "ashr"):
                if self.rng.random() < 0.4:
                    b = str(self.rng.randrange(0, 32))
                else:
                    s = self.pick(scope)
                    b = self.val()
                    self.emit(f"{b} = and i32 {s}, 31")
                    scope.append((b, self.uniform_of(scope, s)))
            elif self.rng.random() < 0.3:
                b = str(self.rng.choice((1, 2, 3, 7, 31, 64, -1, 255, 1000, -77)))
            else:
                b = self.pick(scope)
            d = self.val()
            self.emit(f"{d} = {op} i32 {a}, {b}")
            scope.append((d, self.uniform_of(scope, a) and self.uniform_of(scope, b)))
        elif r < 0.82:
            a = self.pick(scope)
            d = self.val()
            self.emit(f"{d} = xor i32 {a}, -1")
            scope.append((d, self.uniform_of(scope, a)))
        else:
            a, b = self.pick(scope), self.pick(scope)
            c, d = self.val("c"), self.val()
            self.emit(f"{c} = icmp {self.rng.choice(_PREDS)} i32 {a}, {b}")
            x, y = self.pick(scope), self.pick(scope)
            self.emit(f"{d} = select i1 {c}, i32 {x}, i32 {y}")
            scope.append((d, all(self.uniform_of(scope, v) for v in (a, b, x, y))))

    def cond(self, scope, divergent: bool) -> str:
        if divergent:
            a = self.pick(scope)
            t = self.val()
            self.emit(f"{t} = add i32 {a}, %tid")
            a = t
        else:
            a = self.pick(scope, uniform_only=True)
            if not self.uniform_of(scope, a):
                a = "%n"
        m, c = self.val(), self.val("c")
        self.emit(f"{m} = and i32 {a}, 127")
        self.emit(f"{c} = icmp {self.rng.choice(_PREDS)} i32 {m}, {self.rng.randrange(0, 128)}")
        return c

    def maybe_store(self, scope) -> None:
        if self.rng.random() < 0.25:
            v = self.pick(scope)
            g = self.val("gs")
            self.emit(f"{g} = getelementptr i32, ptr addrspace(1) %out2, i32 %tid")
            self.emit(f"store i32 {v}, ptr addrspace(1) {g}, align 4")

    def region(self, scope, depth: int, stmts: int) -> None:
        for _ in range(stmts):
            if self.left() <= 0:
                return
            r = self.rng.random()
            if depth < self.max_depth and r < 0.10 and self.left() > 14:
                self.diamond(scope, depth)
            elif depth < self.max_depth and r < 0.14 and self.left() > 14:
                self.switch(scope, depth)
            elif depth < self.max_depth and r < 0.20 and self.left() > 18:
                self.loop(scope, depth)
            else:
                self.straight(scope)

    def body_len(self, depth: int) -> int:
        return self.rng.randrange(2, 8 if depth else 12)

    def diamond(self, scope, depth: int) -> None:
        div = self.divergent and self.rng.random() < 0.6
        c = self.cond(scope, div)
        then, els, join = self.blk("then"), self.blk("else"), self.blk("join")
        triangle = self.rng.random() < 0.3
        self.emit(f"br i1 {c}, label %{then}, label %{join if triangle else els}")
        src = self.cur
        self.label(then)
        s1 = list(scope)
        self.region(s1, depth + 1, self.body_len(depth))
        self.maybe_store(s1)
        v1, end1 = s1[-1][0], self.cur
        self.emit(f"br label %{join}")
        if triangle:
            v2, end2 = self.pick(scope), src
        else:
            self.label(els)
            s2 = list(scope)
            self.region(s2, depth + 1, self.body_len(depth))
            self.maybe_store(s2)
            v2, end2 = s2[-1][0], self.cur
            self.emit(f"br label %{join}")
        self.label(join)
        p = self.val("p")
        self.emit(f"{p} = phi i32 [ {v1}, %{end1} ], [ {v2}, %{end2} ]")
        scope.append((p, not div and self.uniform_of(s1, v1) and self.uniform_of(scope, v2)))

    def switch(self, scope, depth: int) -> None:
        div = self.divergent and self.rng.random() < 0.6
        a = self.pick(scope) if div else self.pick(scope, uniform_only=True)
        if not div and not self.uniform_of(scope, a):
            a = "%n"
        k = self.val()
        self.emit(f"{k} = and i32 {a}, 3")
        cases = [self.blk("case") for _ in range(self.rng.randrange(1, 4))]
        default, join = self.blk("default"), self.blk("sjoin")
        arms = " ".join(f"i32 {i}, label %{c}" for i, c in enumerate(cases))
        self.emit(f"switch i32 {k}, label %{default} [ {arms} ]")
        incoming = []
        for lab in cases + [default]:
            self.label(lab)
            s = list(scope)
            self.region(s, depth + 1, self.rng.randrange(1, 5))
            self.maybe_store(s)
            incoming.append((s[-1][0], self.cur))
            self.emit(f"br label %{join}")
        self.label(join)
        p = self.val("p")
        self.emit(f"{p} = phi i32 " + ", ".join(f"[ {v}, %{b} ]" for v, b in incoming))
        scope.append((p, False))

    def loop(self, scope, depth: int) -> None:
        div_count = self.divergent and self.rng.random() < 0.4
        div_exit = self.divergent and self.rng.random() < 0.4
        early = self.rng.random() < 0.5
        pre = self.cur
        init = self.pick(scope)
        hdr, body, exit_ = self.blk("loop"), self.blk("body"), self.blk("exit")
        bound = "%tid.b" if div_count else "%n.b"
        self.emit(f"br label %{hdr}")
        self.label(hdr)
        i, acc = self.val("i"), self.val("acc")
        inext, accnext = self.val("inext"), self.val("accn")
        at = len(self.lines)
        self.emit("")
        self.emit("")
        lscope = list(scope) + [(i, not div_count), (acc, False)]
        if early:
            c = self.cond(lscope, div_exit)
            self.emit(f"br i1 {c}, label %{exit_}, label %{body}")
            self.label(body)
        else:
            self.emit(f"br label %{body}")
            self.label(body)
        self.region(lscope, depth + 1, self.body_len(depth))
        self.maybe_store(lscope)
        step = lscope[-1][0]
        self.emit(f"{accnext} = add i32 {acc}, {step}")
        self.emit(f"{inext} = add i32 {i}, 1")
        lc = self.val("c")
        self.emit(f"{lc} = icmp ult i32 {inext}, {bound}")
        latch = self.cur
        self.emit(f"br i1 {lc}, label %{hdr}, label %{exit_}")
        self.lines[at] = f"  {i} = phi i32 [ 0, %{pre} ], [ {inext}, %{latch} ]"
        self.lines[at + 1] = f"  {acc} = phi i32 [ {init}, %{pre} ], [ {accnext}, %{latch} ]"
        self.label(exit_)
        r = self.val("lcssa")
        if early:
            self.emit(f"{r} = phi i32 [ {acc}, %{hdr} ], [ {accnext}, %{latch} ]")
        else:
            self.emit(f"{r} = phi i32 [ {accnext}, %{latch} ]")
        scope.append((r, False))

    def kernel(self) -> str:
        L = self.lines
        L.append(f"define amdgpu_kernel void @{self.name}(ptr addrspace(1) %out, ptr addrspace(1) %out2, "
                 "ptr addrspace(1) %in, i32 %n) {")
        L.append("entry:")
        self.emit("%tid = call i32 @llvm.amdgcn.workitem.id.x()")
        self.emit("%wg = call i32 @llvm.amdgcn.workgroup.id.x()")
        self.emit("%tid.b = and i32 %tid, 7")
        self.emit("%n.b = and i32 %n, 7")
        self.emit("%ga = getelementptr i32, ptr addrspace(1) %in, i32 %tid")
        self.emit("%x = load i32, ptr addrspace(1) %ga, align 4")
        scope = [("%n", True), ("%wg", True), ("%tid", False), ("%x", False)]
        while self.left() > 6:
            self.region(scope, 0, 16)
        res = self.pick(scope)
        g = self.val("gout")
        self.emit(f"{g} = getelementptr i32, ptr addrspace(1) %out, i32 %tid")
        self.emit(f"store i32 {res}, ptr addrspace(1) {g}, align 4")
        self.emit("ret void")
        L.append("}")
        L.append("")
        L.append("declare i32 @llvm.amdgcn.workitem.id.x()")
        L.append("declare i32 @llvm.amdgcn.workgroup.id.x()")
        return "\n".join(L) + "\n"


def generate_cfg_kernel(seed: int, n_ops: int = 80, *, max_depth: int = 3, divergent: bool = True,
                        name: str = "kernel") -> str:
    """Text of one kernel of about ``n_ops`` instructions (module docstring)."""
    return _Gen(seed, max(16, n_ops), max_depth, divergent, name).kernel()
