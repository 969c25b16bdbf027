"""Strongly connected components in the order LLVM's scc_iterator yields them (Tarjan's algorithm).

StructurizeCFG orders a region's nodes by them: the order of the SCCs (sinks first, the
entry's last) and of the nodes inside one (the SCC's root last) is the iterator's,
which the pass's Flow block placement follows.
"""

from __future__ import annotations


def sccs(entry, succs, allowed) -> list:
    """Tarjan's SCCs of the graph from ``entry`` (successors filtered to ``allowed``
    when given), in the order LLVM's scc_iterator yields them, each SCC's nodes in its
    order (the SCC's root last)."""
    num: dict = {}
    stack: list = []
    visit: list = []
    out: list = []
    done = 1 << 60
    counter = [0]

    def one(n) -> None:
        counter[0] += 1
        num[n] = counter[0]
        stack.append(n)
        kids = [s for s in succs(n) if allowed is None or s in allowed]
        visit.append([n, kids, 0, counter[0]])

    one(entry)
    while visit:
        while True:
            top = visit[-1]
            if top[2] >= len(top[1]):
                break
            c = top[1][top[2]]
            top[2] += 1
            cn = num.get(c)
            if cn is None:
                one(c)
                continue
            if top[3] > cn:
                top[3] = cn
        n, _k, _i, low = visit.pop()
        if visit and visit[-1][3] > low:
            visit[-1][3] = low
        if low != num[n]:
            continue
        scc = []
        while True:
            x = stack.pop()
            scc.append(x)
            num[x] = done
            if x is n:
                break
        out.append(scc)
    return out


__all__ = ["sccs"]
