"""The convergence-control rules of LLVM 19's verifier (its ConvergenceVerifier on IR), for
``patterns.ir.verify``.

Convergence control: ``llvm.experimental.convergence.entry``, ``.anchor`` and ``.loop``
produce tokens; a convergent call names the token of its region in a
``"convergencectrl"(token %t)`` operand bundle. Checked per defined function, with the
message of each rule in our ``expected X, found Y`` form:

Per instruction (program order; one error per instruction, as LLVM stops at the first
failed rule of an instruction):

1. at most one ``convergencectrl`` bundle on a call, with exactly one operand of type
   ``token``, produced by a call of one of the three intrinsics;
2. ``entry`` only in a ``convergent`` function, only in the entry block, and not after
   a convergent operation of the same block; ``entry`` and ``anchor`` take no token;
3. ``loop`` takes a token and follows no convergent operation of its block;
4. a call with a token (or one of the intrinsics) must be convergent; a function either
   uses tokens for all its convergent calls or for none ("controlled" and
   "uncontrolled" convergence do not mix).

Per function using tokens (blocks in reverse post-order, LLVM's walk):

5. a token's block dominates the block of each use (reported by ``patterns.ir.verify``
   as the SSA dominance error of the bundle operand, which it implies);
6. regions nest: a use names a token still live on every path to it -- a use of an
   outer token ends every region opened after that token;
7. cycles: a use in a cycle that does not contain the token's definition is a ``loop``
   intrinsic (the cycle's *heart*); with C the outermost such cycle around the use, C
   is reducible and the heart is in its header, and C has one heart.

Where this stops: whether a call is convergent is read from its call-site attributes
and its callee's declaration (groups resolved), and the three intrinsics are
convergent. LLVM also knows the ``IntrConvergent`` property of every target intrinsic
(a target's readfirstlane is convergent even when its declaration says nothing);
the engine has no such table, so a call of another ``llvm.*`` intrinsic whose
declaration does not say ``convergent`` counts as *unknown*: rules 2-4 never reject
because of it (no false error; LLVM may reject such a file where we accept it).
"""

from __future__ import annotations

from typing import Any, Final

from tdgen.errors import Diagnostics, ParseError, expected

from patterns.ir.cycles import CycleInfo
from patterns.ir.function import Instruction

_ENTRY: Final = "llvm.experimental.convergence.entry"
_ANCHOR: Final = "llvm.experimental.convergence.anchor"
_LOOP: Final = "llvm.experimental.convergence.loop"
_INTRINSICS: Final = frozenset({_ENTRY, _ANCHOR, _LOOP})
_BUNDLE: Final = "convergencectrl"
_CALLS: Final = frozenset({"call", "callbr", "invoke"})


def _conv_op(inst) -> str | None:
    """The convergence intrinsic ``inst`` calls, or None."""
    if type(inst) is Instruction and inst.opcode == "call":
        c = inst.callee
        if c in _INTRINSICS:
            return c
    return None


def _convergent(inst, functions: dict) -> bool | None:
    """True / False, or None when ``inst`` calls an intrinsic whose convergence is not
    written in the module (see the module docstring)."""
    if inst.opcode not in _CALLS:
        return False
    if "convergent" in inst.attrs:
        return True
    c = inst.callee
    if c is None:
        return False  # indirect calls and inline asm: the call site says it
    if c in _INTRINSICS:
        return True
    f = functions.get(c)
    if f is not None and "convergent" in f.attrs:
        return True
    return None if c.startswith("llvm.") else False


def _short(inst) -> str:
    return f"'{inst.text.strip()}'" if hasattr(inst, "text") else inst.opcode


def verify_convergence(fn, errors: Diagnostics, tree: Any) -> None:
    """Add the violations of ``fn`` of the rules above to ``errors``. ``tree.get()``
    gives the function's ``DomTree``."""
    functions = {f.name: f for f in fn.module.functions} if fn.module is not None else {}
    tokens: dict = {}  # user -> token definition
    controlled = None  # None: no convergent call seen; True / False once one is
    fn_convergent = "convergent" in fn.attrs
    entry = fn.blocks[0]
    for blk in fn.blocks:
        seen_convergent = False
        for inst in blk.instructions:
            if inst.opcode not in _CALLS:
                continue  # never convergent, no bundles
            conv = _convergent(inst, functions)
            err = _visit(inst, blk, entry, fn_convergent, seen_convergent, tokens)
            if err is None:
                uses_token = inst in tokens or _conv_op(inst) is not None
                if uses_token:
                    if conv is False:
                        err = expected("a convergent call as the user of a convergence token",
                                       f"{_short(inst)}, which is not convergent")
                    elif controlled is False:
                        err = expected("convergence tokens on every convergent call of the function or on none",
                                       "a token here after a convergent call without one")
                    else:
                        controlled = True
                elif conv is True:
                    if controlled is True:
                        err = expected("convergence tokens on every convergent call of the function or on none",
                                       "a convergent call without a token after calls with one")
                    else:
                        controlled = False
            if err is not None:
                errors.add(ParseError(inst.span, err))
            if conv is True:
                seen_convergent = True
    if controlled is True:
        _check_regions(fn, tokens, tree.get(), errors)


def _visit(inst, blk, entry, fn_convergent: bool, seen_convergent: bool, tokens: dict) -> str | None:
    """Rules 1-3 for one instruction: the message of the first one it breaks, or None.
    Records the token ``inst`` uses in ``tokens``."""
    bundles = [vals for tag, vals in inst.bundles if tag == _BUNDLE] if inst.bundles else []
    token = None
    if len(bundles) > 1:
        return expected(f'at most one "{_BUNDLE}" bundle on a call', f"{len(bundles)}")
    if bundles:
        vals = bundles[0]
        if len(vals) != 1 or str(vals[0].type) != "token":
            found = ", ".join(f"{v.type} {getattr(v, 'ref', v)}" for v in vals) or "no operand"
            return expected(f'one operand of type token in the "{_BUNDLE}" bundle', found)
        token = vals[0]
        if _conv_op(token) is None:
            return expected("a convergence token made by llvm.experimental.convergence.entry, .anchor or .loop",
                            f"{getattr(token, 'ref', token)}")
        tokens[inst] = token
    op = _conv_op(inst)
    if op == _ENTRY:
        if not fn_convergent:
            return expected(f"{_ENTRY} in a convergent function", f"@{blk.function.name}, which is not convergent")
        if blk is not entry:
            return expected(f"{_ENTRY} in the entry block", f"it in {blk.ref}")
        if seen_convergent:
            return expected(f"{_ENTRY} before every convergent operation of its block", "it after one")
    if op in (_ENTRY, _ANCHOR) and token is not None:
        return expected(f"no \"{_BUNDLE}\" bundle on {op}", f"one naming {token.ref}")
    if op == _LOOP:
        if token is None:
            return expected(f'a "{_BUNDLE}" bundle naming the parent token on {_LOOP}', "none")
        if seen_convergent:
            return expected(f"{_LOOP} before every convergent operation of its block", "it after one")
    return None


def _reverse_post_order(entry) -> list:
    """The blocks reachable from ``entry`` in reverse post-order of a DFS taking
    successors in terminator order (LLVM's ReversePostOrderTraversal)."""
    post: list = []
    visited = {entry}
    stack = [(entry, iter(entry.successors))]
    while stack:
        node, it = stack[-1]
        for s in it:
            if s not in visited:
                visited.add(s)
                stack.append((s, iter(s.successors)))
                break
        else:
            stack.pop()
            post.append(node)
    post.reverse()
    return post


def _check_regions(fn, tokens: dict, dt, errors: Diagnostics) -> None:
    """Rules 5-7 over the blocks in reverse post-order."""
    cycles = CycleInfo(fn.blocks[0], lambda b: b.successors, lambda b: b.predecessors)
    hearts: dict = {}  # cycle -> its heart
    live_in: dict = {}  # block -> tokens live on entry (None: no predecessor visited yet)

    def check(token, user, live: list) -> str | None:
        tb, ub = token.block, user.block
        if not dt.dominates(tb, ub):
            return ""  # rule 5: already reported as an SSA dominance error of the bundle operand
        if token not in live:
            return expected("a convergence token whose region is still open here (regions must nest)",
                            f"{token.ref}, whose region a use of an enclosing token has ended")
        while live[-1] is not token:
            live.pop()
        c = cycles.cycle(ub)
        if c is None or tb is ub or c.contains(tb):
            return None
        if _conv_op(user) != _LOOP:
            return expected(f"{_LOOP} as the use of {token.ref} in the cycle with header {c.header.ref}, "
                            "which does not contain its definition", _short(user))
        while c.parent is not None and not c.parent.contains(tb):
            c = c.parent
        if not c.reducible or ub is not c.header:
            return expected(f"the heart of the cycle with header {c.header.ref} in its header (a reducible "
                            "cycle's header dominates the cycle)", f"it in {ub.ref}")
        first = hearts.get(c)
        if first is not None:
            return expected(f"one heart in the cycle with header {c.header.ref}",
                            f"a second one (the first at line {first.span.line})")
        hearts[c] = user
        return None

    for blk in _reverse_post_order(fn.blocks[0]):
        live = list(live_in.pop(blk, None) or ())
        for inst in blk.instructions:
            token = tokens.get(inst)
            if token is not None:
                err = check(token, inst, live)
                if err:
                    errors.add(ParseError(inst.span, err))
            if _conv_op(inst) is not None:
                live.append(inst)
        for succ in blk.successors:
            if succ in live_in:
                keep = live_in[succ]
                live_in[succ] = [t for t in keep if t in live]
            else:
                dom = []
                for t in live:
                    if not dt.dominates(t.block, succ):
                        break
                    dom.append(t)
                live_in[succ] = dom
