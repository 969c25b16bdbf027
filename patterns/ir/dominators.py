"""The immediate dominators of a function's blocks (``immediate_dominators``, from the
dominator tree the uniformity analysis uses), and one tree shared by the passes that ask
for it in turn while the CFG is unchanged (``with shared_dominators(fn):``: the llc IR
passes and the DAG builder's prepasses)."""

from __future__ import annotations

from typing import Final

from patterns.ir.function import Function


# [(function, its CFG as _cfg_shape saw it, its idom)] while build_function_dags runs
_SHARED_IDOM: Final[list] = []


def _cfg_shape(fn: Function) -> list:
    """The blocks' successor lists, copied: equal while the CFG is unchanged."""
    return [tuple(b.successors) for b in fn.blocks]


class shared_dominators:
    """``with shared_dominators(fn):`` -- inside, ``immediate_dominators(fn)`` returns the
    one built on entry as long as the CFG is unchanged (the IR passes and the prepasses
    of ``build_function_dags`` ask for it in turn)."""

    def __init__(self, fn):
        self.fn = fn

    def __enter__(self):
        fn = self.fn
        if fn.blocks:
            _SHARED_IDOM.append((fn, _cfg_shape(fn), immediate_dominators(fn)))
            self.pushed = True
        else:
            self.pushed = False
        return self

    def __exit__(self, *exc) -> None:
        if self.pushed:
            _SHARED_IDOM.pop()


def immediate_dominators(fn: Function) -> dict:
    """Block -> immediate dominator for the blocks reachable from the entry (the entry
    maps to itself), from the dominator tree the uniformity analysis uses. While
    ``build_function_dags`` works on ``fn`` (the IR passes of ``patterns.llc`` ask
    for it too), the one it built is returned as long as the CFG is the same, so the
    tree is built once. Callers must not change the dictionary."""
    shared = _SHARED_IDOM
    if shared and shared[-1][0] is fn and shared[-1][1] == _cfg_shape(fn):
        return shared[-1][2]
    from patterns.ir.cycles import DomTree

    entry = fn.blocks[0]
    tree = DomTree(entry, lambda b: b.successors)
    idom: dict = {entry: entry}
    for b in fn.blocks:
        p = tree.parent(b)
        if p is not None:
            idom[b] = p
    return idom
