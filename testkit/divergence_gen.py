"""Random control-flow kernels for testing the divergence analysis against opt-19.

Stage job: ``(seed, n_blocks)`` -> text of one valid AMDGPU function whose CFG is an
arbitrary graph (not only diamonds and natural loops: multi-exit loops, loops entered
at several blocks = irreducible cycles, switches, blocks that only ``ret`` or are
``unreachable``, an unreachable block branching into the function), with values
flowing across it so that data, sync and temporal
divergence all show. Deterministic: ``random.Random(seed)`` and lists only.

How validity is kept: the CFG is drawn first; dominators are computed; each block
then uses only values defined in blocks that dominate it (and its own phis), and each
phi takes, per predecessor, a value available at the end of that predecessor.
Complements ``testkit/irgen.py`` (structured kernels of a given size).
"""

from __future__ import annotations

import random

import networkx as nx

__all__ = ["generate_cfg_function", "generate_cfg_module"]

_OPS = ("add", "sub", "xor", "and", "or", "mul")
_AS = {"%q0": "", "%q1": " addrspace(1)", "%q4": " addrspace(4)", "%q5": " addrspace(5)"}


def generate_cfg_function(seed: int, n_blocks: int = 8, *, name: str = "f", kernel: bool = True) -> str:
    rng = random.Random(seed)
    n = max(2, n_blocks)
    names = ["entry"] + [f"b{i}" for i in range(1, n)]
    succs: list[list[int]] = [[] for _ in range(n)]
    # A spine keeps every block reachable; extra edges go anywhere (back edges make
    # cycles, edges into the middle of a cycle make it irreducible).
    for i in range(n - 1):
        succs[i].append(i + 1)
    for i in range(n - 1):
        r = rng.random()
        if r < 0.55:
            t = rng.randrange(1, n)
            if t not in succs[i]:
                succs[i].append(t)
        elif r < 0.65:
            for _ in range(2):
                t = rng.randrange(1, n)
                if t not in succs[i]:
                    succs[i].append(t)
    if rng.random() < 0.5:
        t = rng.randrange(1, n)
        if t != n - 1:
            succs[n - 1].append(t)
    # Sometimes an unreachable block that branches into the function (LLVM gives it
    # no cycle, and every block "dominates" it).
    dead = n if n >= 3 and rng.random() < 0.3 else None
    if dead is not None:
        names.append("dead")
        succs.append([rng.randrange(1, n)])
        if rng.random() < 0.5:
            succs[dead].append(dead)
        n += 1
    for s in succs:
        rng.shuffle(s)

    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    for i, ss in enumerate(succs):
        for t in ss:
            g.add_edge(i, t)
    idom = dict(nx.immediate_dominators(g, 0))
    idom[0] = 0  # (networkx versions differ on whether the root is listed)
    preds: list[list[int]] = [[] for _ in range(n)]
    for i, ss in enumerate(succs):
        for t in ss:
            preds[t].append(i)

    def dom_chain(b: int) -> list[int]:
        out = []
        if b not in idom:  # unreachable: only entry values are known to be defined
            return [b, 0]
        while True:
            out.append(b)
            if b == 0:
                return out
            b = idom[b]

    # Values defined per block (names), filled in dominator-tree preorder so a block's
    # dominators are done first.
    defs: dict[int, list[str]] = {}
    body: dict[int, list[str]] = {}
    phis: dict[int, list[tuple[str, int]]] = {}  # block -> [(phi name, slot)]
    counter = [0]

    def fresh(prefix: str) -> str:
        counter[0] += 1
        return f"%{prefix}{counter[0]}"

    entry_vals = ["%tid", "%a", "%b", "%u"]
    children: dict[int, list[int]] = {}
    for v, d in idom.items():
        if v != d:
            children.setdefault(d, []).append(v)
    order = []
    stack = [0]
    while stack:
        b = stack.pop()
        order.append(b)
        stack.extend(sorted(children.get(b, []), reverse=True))
    order += [b for b in range(n) if b not in idom]

    for b in order:
        avail = [v for d in dom_chain(b)[1:] for v in defs.get(d, [])] + entry_vals
        lines: list[str] = []
        mine: list[str] = []
        if b != 0 and len(preds[b]) >= 2:
            for _ in range(rng.randint(1, 2)):
                p = fresh("p")
                phis.setdefault(b, []).append((p, len(phis.get(b, []))))
                mine.append(p)
        for _ in range(rng.randint(1, 3)):
            x = rng.choice(avail + mine)
            y = rng.choice(avail + mine + ["7", "1"])
            v = fresh("v")
            r = rng.random()
            if r < 0.80:
                lines.append(f"  {v} = {rng.choice(_OPS)} i32 {x}, {y}")
            elif r < 0.84:
                lines.append(f"  {v} = call i32 @llvm.amdgcn.readfirstlane.i32(i32 {x})")
            elif r < 0.88:
                sp = rng.choice(("%q0", "%q1", "%q4", "%q5"))
                lines.append(f"  {v} = load i32, ptr{_AS[sp]} {sp}, align 4")
            elif r < 0.91:
                lines.append(f"  {v} = atomicrmw add ptr addrspace(1) %q1, i32 {x} seq_cst, align 4")
            elif r < 0.93:
                lines.append(f"  {v} = call i32 @ext(i32 {x})")
            elif r < 0.96:
                lines.append(f"  {v} = call i32 asm \"; def $0\", \"={rng.choice('sv')}\"()")
            else:
                lines.append(f"  store i32 {x}, ptr addrspace(1) %q1, align 4")
                v = fresh("v")
                lines.append(f"  {v} = call i32 @llvm.amdgcn.mbcnt.lo(i32 {x}, i32 0)")
            mine.append(v)
        defs[b] = mine
        body[b] = lines

    def avail_at_end(b: int) -> list[str]:
        return [v for d in dom_chain(b) for v in defs.get(d, [])] + entry_vals

    out = []
    head = "amdgpu_kernel void" if kernel else "void"
    out.append(f"define {head} @{name}(i32 %a, i32 %b, i32 inreg %u, ptr %q0, ptr addrspace(1) inreg %q1, "
               f"ptr addrspace(4) inreg %q4, ptr addrspace(5) %q5) {{")
    for b in range(n):
        out.append(f"{names[b]}:")
        if b == 0:
            out.append("  %tid = call i32 @llvm.amdgcn.workitem.id.x()")
        for p, _slot in phis.get(b, []):
            inc = ", ".join(f"[ {rng.choice(avail_at_end(q))}, %{names[q]} ]" for q in preds[b])
            out.append(f"  {p} = phi i32 {inc}")
        out.extend(body[b])
        ss = succs[b]
        av = avail_at_end(b)
        if not ss:
            if rng.random() < 0.15:
                out.append("  unreachable")
            else:
                out.append("  ret void")
        elif len(ss) == 1:
            out.append(f"  br label %{names[ss[0]]}")
        elif len(ss) == 2:
            c = fresh("c")
            out.append(f"  {c} = icmp slt i32 {rng.choice(av)}, {rng.randint(0, 9)}")
            out.append(f"  br i1 {c}, label %{names[ss[0]]}, label %{names[ss[1]]}")
        else:
            x = rng.choice(av)
            cases = " ".join(f"i32 {k}, label %{names[t]}" for k, t in enumerate(ss[1:]))
            out.append(f"  switch i32 {x}, label %{names[ss[0]]} [ {cases} ]")
    out.append("}")
    return "\n".join(out) + "\n"


def generate_cfg_module(seeds: list[int], n_blocks: int = 8) -> str:
    """Several functions (``@f<seed>``) in one module, plus the intrinsic declaration."""
    parts = []
    for s in seeds:
        rng = random.Random(s * 7919 + 1)
        nb = rng.randint(3, n_blocks)
        parts.append(generate_cfg_function(s, nb, name=f"f{s}", kernel=rng.random() < 0.7))
    parts.append("declare i32 @llvm.amdgcn.workitem.id.x()\n"
                 "declare i32 @llvm.amdgcn.readfirstlane.i32(i32)\n"
                 "declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)\n"
                 "declare i32 @ext(i32)\n")
    return "\n".join(parts)
