"""Deterministic generator of GPU-like LLVM IR kernels (test and benchmark inputs).

Stage job: ``(seed, n_ops)`` -> the text of one valid AMDGPU kernel that ``opt-19`` and
``llc-19 -mtriple=amdgcn -mcpu=gfx900`` accept. The same seed and options always give
the same text (``random.Random(seed)``, no hashing of sets or dicts).

What a kernel contains:

- kernel arguments (uniform: ``%out``, ``%in``, ``%n``, ``%m``), workitem ids x/y
  (divergent), workgroup id x (uniform), loads from uniform addresses
  (``ptr addrspace(4)`` at constant offsets) and from divergent addresses;
- 32-bit integer ops: add, sub, mul, and, or, xor, shl, lshr, ashr, ``not``
  (``xor x, -1``), ``xnor`` (``xor (xor a, b), -1``), icmp + select;
- if/else diamonds and if-then triangles joined by phis, on uniform or divergent
  conditions;
- counted loops (uniform or divergent trip counts), nested, with an optional early
  exit (uniform or divergent), loop-carried phis and exit phis;
- a final store of the live values to ``%out[tid]``.

``n_ops`` is the number of instructions in the function body (the generator stops
adding statements once it is reached; the result is within a few dozen of it).
"""

from __future__ import annotations

import random

__all__ = ["generate_kernel"]

_BINOPS = ("add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "ashr")
_PREDS = ("eq", "ne", "slt", "sgt", "ult", "uge", "sle")


class _Gen:
    def __init__(self, seed: int, n_ops: int, loops: bool, max_depth: int,
                 divergent: bool, name: str) -> None:
        self.rng = random.Random(seed)
        self.budget = n_ops
        self.loops = loops
        self.max_depth = max_depth
        self.divergent = divergent
        self.name = name
        self.lines: list[str] = []
        self.nval = 0
        self.nblk = 0
        self.ops = 0
        self.cur = "entry"  # label of the block being filled

    # ------------------------------------------------------------ emission
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

    # -------------------------------------------------------------- values
    def pick(self, scope, uniform_only: bool = False) -> str:
        pool = [v for v, u in scope if u] if uniform_only else [v for v, _ in scope]
        if not pool:
            pool = [v for v, _ in scope]
        # prefer recent values so that chains form, but reach back sometimes
        if self.rng.random() < 0.6:
            return pool[-1 - self.rng.randrange(min(4, len(pool)))]
        return self.rng.choice(pool)

    def uniform_of(self, scope, v: str) -> bool:
        for name, u in reversed(scope):
            if name == v:
                return u
        return True  # constants

    def straight(self, scope, in_div: bool) -> None:
        r = self.rng.random()
        if r < 0.70:
            op = self.rng.choice(_BINOPS)
            a = self.pick(scope)
            if self.rng.random() < 0.3:
                b = str(self.rng.choice((1, 2, 3, 7, 31, 64, -1, 255, 1000)))
            else:
                b = self.pick(scope)
            if op in ("shl", "lshr", "ashr") and not b.lstrip("-").isdigit():
                m = self.val()
                self.emit(f"{m} = and i32 {b}, 31")
                scope.append((m, self.uniform_of(scope, b)))
                b = m
            d = self.val()
            self.emit(f"{d} = {op} i32 {a}, {b}")
            scope.append((d, self.uniform_of(scope, a) and self.uniform_of(scope, b)))
        elif r < 0.78:  # not
            a = self.pick(scope)
            d = self.val()
            self.emit(f"{d} = xor i32 {a}, -1")
            scope.append((d, self.uniform_of(scope, a)))
        elif r < 0.86:  # xnor
            a, b = self.pick(scope), self.pick(scope)
            t, d = self.val(), self.val()
            self.emit(f"{t} = xor i32 {a}, {b}")
            self.emit(f"{d} = xor i32 {t}, -1")
            u = self.uniform_of(scope, a) and self.uniform_of(scope, b)
            scope.append((t, u))
            scope.append((d, u))
        else:  # icmp + select
            a, b = self.pick(scope), self.pick(scope)
            c, d = self.val("c"), self.val()
            self.emit(f"{c} = icmp {self.rng.choice(_PREDS)} i32 {a}, {b}")
            x, y = self.pick(scope), self.pick(scope)
            self.emit(f"{d} = select i1 {c}, i32 {x}, i32 {y}")
            scope.append((d, all(self.uniform_of(scope, v) for v in (a, b, x, y))))

    def cond(self, scope, divergent: bool) -> tuple[str, bool]:
        if divergent:
            a = self.pick(scope)
            if self.uniform_of(scope, a):
                t = self.val()
                self.emit(f"{t} = add i32 {a}, %tid")
                scope.append((t, False))
                a = t
        else:
            a = self.pick(scope, uniform_only=True)
            if not self.uniform_of(scope, a):
                a = "%n"
        c = self.val("c")
        self.emit(f"{c} = icmp {self.rng.choice(_PREDS)} i32 {a}, {self.rng.randrange(0, 100)}")
        return c, not divergent

    # ------------------------------------------------------------- regions
    def region(self, scope, depth: int, in_div: bool, stmts: int) -> None:
        """Fill the current block (and possibly new ones) with ``stmts`` statements."""
        for _ in range(stmts):
            if self.left() <= 0:
                return
            r = self.rng.random()
            if depth < self.max_depth and r < 0.10 and self.left() > 12:
                self.diamond(scope, depth, in_div)
            elif depth < self.max_depth and r < 0.16 and self.loops and self.left() > 16:
                self.loop(scope, depth, in_div)
            else:
                self.straight(scope, in_div)

    def body_len(self, depth: int) -> int:
        return self.rng.randrange(2, 9 if depth else 14)

    def diamond(self, scope, depth: int, in_div: bool) -> None:
        div = self.divergent and self.rng.random() < 0.5
        c, _ = self.cond(scope, div)
        then, els, join = self.blk("then"), self.blk("else"), self.blk("join")
        triangle = self.rng.random() < 0.3
        self.emit(f"br i1 {c}, label %{then}, label %{join if triangle else els}")
        src = self.cur
        inner_div = in_div or div
        self.label(then)
        s1 = list(scope)
        self.region(s1, depth + 1, inner_div, self.body_len(depth))
        v1 = s1[-1][0]
        end1 = self.cur
        self.emit(f"br label %{join}")
        if triangle:
            v2, end2 = self.pick(scope), src
        else:
            self.label(els)
            s2 = list(scope)
            self.region(s2, depth + 1, inner_div, self.body_len(depth))
            v2 = s2[-1][0]
            end2 = self.cur
            self.emit(f"br label %{join}")
        self.label(join)
        p = self.val("p")
        self.emit(f"{p} = phi i32 [ {v1}, %{end1} ], [ {v2}, %{end2} ]")
        u = (not div) and all(self.uniform_of(s, v) for s, v in ((s1, v1), (scope, v2)))
        scope.append((p, u and not in_div))

    def loop(self, scope, depth: int, in_div: bool) -> None:
        div_count = self.divergent and self.rng.random() < 0.4
        div_exit = self.divergent and self.rng.random() < 0.3
        early = self.rng.random() < 0.4
        pre = self.cur
        init = self.pick(scope)
        hdr, body, exit_ = self.blk("loop"), self.blk("body"), self.blk("exit")
        bound = "%tid.b" if div_count else "%n.b"
        self.emit(f"br label %{hdr}")
        self.label(hdr)
        i, acc = self.val("i"), self.val("acc")
        inext, accnext = self.val("inext"), self.val("accn")
        i_line = len(self.lines)
        self.emit("")  # patched below (needs the latch label)
        self.emit("")
        lscope = list(scope) + [(i, not div_count and not in_div), (acc, False)]
        if early:
            c, _ = self.cond(lscope, div_exit)
            self.emit(f"br i1 {c}, label %{exit_}, label %{body}")
            self.label(body)
        else:
            self.emit(f"br label %{body}")
            self.label(body)
        self.region(lscope, depth + 1, in_div or div_count or div_exit, self.body_len(depth))
        step = lscope[-1][0]
        self.emit(f"{accnext} = add i32 {acc}, {step}")
        self.emit(f"{inext} = add i32 {i}, 1")
        lc = self.val("c")
        self.emit(f"{lc} = icmp ult i32 {inext}, {bound}")
        latch = self.cur
        self.emit(f"br i1 {lc}, label %{hdr}, label %{exit_}")
        self.lines[i_line] = f"  {i} = phi i32 [ 0, %{pre} ], [ {inext}, %{latch} ]"
        self.lines[i_line + 1] = f"  {acc} = phi i32 [ {init}, %{pre} ], [ {accnext}, %{latch} ]"
        self.label(exit_)
        r = self.val("lcssa")
        if early:
            self.emit(f"{r} = phi i32 [ {acc}, %{hdr} ], [ {accnext}, %{latch} ]")
        else:
            self.emit(f"{r} = phi i32 [ {accnext}, %{latch} ]")
        scope.append((r, False))

    # ------------------------------------------------------------- kernel
    def kernel(self) -> str:
        L = self.lines
        L.append(f"define amdgpu_kernel void @{self.name}(ptr addrspace(1) %out, "
                 "ptr addrspace(4) %in, i32 %n, i32 %m) {")
        L.append("entry:")
        self.emit("%tid = call i32 @llvm.amdgcn.workitem.id.x()")
        self.emit("%tidy = call i32 @llvm.amdgcn.workitem.id.y()")
        self.emit("%wg = call i32 @llvm.amdgcn.workgroup.id.x()")
        self.emit("%tid.b = and i32 %tid, 15")
        self.emit("%n.b = and i32 %n, 31")
        scope = [("%n", True), ("%m", True), ("%wg", True), ("%tid", False), ("%tidy", False)]
        for k in range(3):
            g, x = self.val("ga"), self.val("ld")
            self.emit(f"{g} = getelementptr i32, ptr addrspace(4) %in, i64 {k * 4}")
            self.emit(f"{x} = load i32, ptr addrspace(4) {g}, align 4")
            scope.append((x, True))
        if self.divergent:
            g, x = self.val("gd"), self.val("ld")
            self.emit(f"{g} = getelementptr i32, ptr addrspace(1) %out, i32 %tid")
            self.emit(f"{x} = load i32, ptr addrspace(1) {g}, align 4")
            scope.append((x, False))
        while self.left() > 6:
            self.region(scope, 0, False, 16)
        res = self.pick(scope)
        g = self.val("gout")
        self.emit(f"{g} = getelementptr i32, ptr addrspace(1) %out, i32 %tid")
        self.emit(f"store i32 {res}, ptr addrspace(1) {g}, align 4")
        self.emit("ret void")
        L.append("}")
        L.append("")
        L.append("declare i32 @llvm.amdgcn.workitem.id.x()")
        L.append("declare i32 @llvm.amdgcn.workitem.id.y()")
        L.append("declare i32 @llvm.amdgcn.workgroup.id.x()")
        return "\n".join(L) + "\n"


def generate_kernel(seed: int, n_ops: int, *, loops: bool = True, max_depth: int = 3,
                    divergent: bool = True, name: str = "kernel") -> str:
    """Text of one AMDGPU kernel with about ``n_ops`` instructions.

    ``seed``: any int; same arguments -> byte-identical text.
    ``loops``: allow counted loops (with loop-carried and exit phis).
    ``max_depth``: nesting depth of diamonds/loops.
    ``divergent``: allow divergent branch conditions, trip counts and early exits
    (``False`` gives a kernel whose branches are all uniform).
    """
    if n_ops < 16:
        n_ops = 16
    return _Gen(seed, n_ops, loops, max_depth, divergent, name).kernel()
