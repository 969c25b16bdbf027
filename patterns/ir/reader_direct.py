"""Direct builder: LLVM IR text of simple kernels -> ``Module`` in one pass (the module level here).

Stage job: the fast path of ``parse_module`` (``patterns/ir/reader.py``). For modules
written in the common simple forms (named or numbered values, labels, the
integer/pointer instructions ``irgen`` emits and most hand-written GPU kernels use:
binary ops, icmp, select, phi, br, ret, direct calls, load, store, getelementptr, casts,
unreachable; ``declare`` and ``define`` headers, ``#N`` attribute groups of plain words
and strings) it builds the final AST directly from the text -- no raw records, no lark,
no second resolution pass. This module reads the module level (headers, attribute
groups, the ``target datalayout`` string, the calls linked to their callees once every
declaration is read);
``patterns/ir/direct_body.py`` reads each function body line by line and
``patterns/ir/direct_blocks.py`` finishes it; the expressions are in
``patterns/ir/direct_syntax.py``, the value helpers in ``patterns/ir/direct_values.py``.

A line's opcode family is found from the first three characters after " = " (or after
the indentation of two spaces; other lines take ``str.split``), the whole line is
matched by the one regular expression of that family (whose groups give result names
and local operands without their '%', so names are never sliced), and its operands
are bound with dict lookups; forward references (phi incoming values, branch targets,
values defined later) are patched once at the end of the function, where
redefinitions are found by counting the names. Instructions store only where they are
(``_loc``: for the usual two-space indentation just the line number) and, where it is
provably opt's spelling, their source line (``_text``, the line itself, not a copy);
the ``Span`` is made when someone reads ``inst.span``. Every constant operand is a new
``Constant`` object, as on the exact path (the SelectionDAG builder relies on object
identity). For the uniformity analysis the builder also records each value's users on
the value (``_users``) and the rest of ``Function.uses``, while the objects are fresh
in the cache.

The builder never reports errors itself. Whenever a line is outside the forms above,
or anything is wrong (undefined value, type mismatch, missing terminator, redefinition,
unknown callee, a use its definition does not dominate, a phi naming a block that is
not a predecessor, ...), it gives up (``build_module`` returns ``None``) and
``parse_module`` parses the file with the exact path (``patterns/ir/reader_exact.py``:
line-reader records or lark, then ``Resolver``), which produces the error text. So the
error messages have one source, and the AST built here must equal the resolver's:
tests/test_ir.py compares both field by field on the whole corpus and on generated
kernels.

SSA dominance (the rules of ``patterns/ir/verify.py``) is checked here, so
``parse_module`` runs the verifier only on the exact path: a use of a value defined
earlier in the same block is valid as parsed; for the others (earlier in another
block, later in the text, phi incoming values) the blocks that must dominate are
collected per using block and checked at the end of the function against one
dominator tree (integer DFS intervals). tests/test_ir_verify.py checks on operand
swaps that the builder gives up exactly when the verifier rejects.
"""

from __future__ import annotations

from typing import Any

from patterns.ir.core import CALLING_CONVENTIONS, PTR, VOID, GlobalRef, Module
from patterns.ir.datalayout import LayoutError, layout_of_text
from patterns.ir.direct_body import read_body
from patterns.ir.direct_syntax import (ATTR_GROUP, ATTR_ITEM, HEADER, HEADER_WORDS, MODULE_LINE, NO_FLAGS, PARAM,
                                       parse_type)
from patterns.ir.direct_values import Bail, new_span
from patterns.ir.function import Argument, Function

__all__ = ["build_module"]


class _Builder:
    """One module being built: its functions by name, the calls to link once every
    declaration is read, the constants made so far, the owners of ``#N`` references."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.mod = Module([], path)
        self.funcs: dict = {}  # name -> Function (defined or declared)
        self.calls: list = []  # (inst, callee name, callee column, line, arg types) in source order
        # (id of the type, token) -> (text, kind, value, the type): keyed by identity, as
        # hashing a type runs its dataclass __hash__ (types come from ``parse_type``'s cache; the
        # entry keeps its type alive, so the id stays its own)
        self.consts: dict = {}
        self.attr_users: list = []  # functions and calls with '#N' attribute references

    # ----------------------------------------------------------------- module
    def run(self, text: str) -> Module:
        lines = text.split("\n")
        n = len(lines)
        k = 0
        layout: str | None = None
        while k < n:
            line = lines[k]
            k += 1
            s = line.strip()
            if not s or s[0] == ";":
                continue
            if s[0] == "d":
                m = HEADER.match(s)
                if m is None or (m.group(1) == "define") != (m.group(7) is not None):
                    raise Bail
                if line[0] != "d":
                    raise Bail
                f = self.header(m, k)
                if m.group(1) == "define":
                    k = read_body(f, lines, k, self.path, self.consts, self.calls, self.attr_users, self.first_slot)
                continue
            if s[0] == "a":
                m = ATTR_GROUP.match(s)
                if m is None or line[0] != "a":
                    raise Bail
                gid = int(m.group(1))
                if gid in self.mod.attr_groups:
                    raise Bail  # redefinition
                items = ATTR_ITEM.findall(m.group(2))
                if "align" in items:
                    raise Bail
                self.mod.attr_groups[gid] = tuple(items)
                continue
            if MODULE_LINE.match(s) is None:
                raise Bail
            if s.startswith("target datalayout"):
                layout = s[s.index('"') + 1:-1]  # the last one counts, as in LLVM
        if layout is not None:
            try:
                self.mod.data_layout = layout_of_text(layout)
            except LayoutError:
                raise Bail from None  # the exact path reports it
        self.link_calls()
        self.expand_attrs()
        return self.mod

    def expand_attrs(self) -> None:
        """``attrs`` of functions and calls from their ``#N`` references (groups may be
        defined after their use; undefined groups count as empty, as in LLVM 19)."""
        groups = self.mod.attr_groups
        for owner in self.attr_users:
            out = set()
            for ref in owner.attr_items:
                out.update(groups.get(int(ref[1:]), ()))
            owner.attrs = frozenset(out)

    def header(self, m, lineno: int) -> Function:
        path = self.path
        words = m.group(2).split()
        cc: Any = None
        for w in words:
            if w not in HEADER_WORDS:
                raise Bail
            if w in CALLING_CONVENTIONS:
                cc = w
        name = m.group(4)
        if name in self.funcs:
            raise Bail
        fspan = new_span(path, lineno, m.start(4))  # the '@' of the name (1-based: start - 1 + 1)
        is_decl = m.group(1) == "declare"
        refs = tuple(m.group(6).split())
        f = Function(name, cc, parse_type(m.group(3)), [], NO_FLAGS, is_decl, [], fspan, self.mod, refs,
                     tuple(words), False)
        if refs:
            self.attr_users.append(f)
        inner = m.group(5)
        args = f.args
        seen = {}
        slot = 0
        if inner:
            pos = m.start(5)
            for i, piece in enumerate(inner.split(", ")):
                p = PARAM.match(piece)
                if p is None:
                    raise Bail
                ty = parse_type(p.group(1))
                attrs = tuple(p.group(2).split())
                pname = p.group(3)
                if pname is None:
                    pname = str(slot)
                    slot += 1
                    aspan = fspan
                elif pname.isdigit():
                    if int(pname) < slot:
                        raise Bail
                    slot = int(pname) + 1
                    aspan = new_span(path, lineno, pos + p.start(3))
                else:
                    aspan = new_span(path, lineno, pos + p.start(3))
                if ty is VOID or pname in seen:
                    raise Bail
                seen[pname] = True
                args.append(Argument(pname, ty, frozenset(attrs), i, f, aspan, "", attrs))
                pos += len(piece) + 2
        self.funcs[name] = f
        self.mod.functions.append(f)
        self.first_slot = slot
        return f

    # ------------------------------------------------------------------ calls
    def link_calls(self) -> None:
        """Bind callees (after the whole module is read: declarations may come last)."""
        funcs = self.funcs
        mod = self.mod
        for inst, name, cpos, line, arg_types in self.calls:
            f = funcs.get(name)
            if f is None:
                if not name.startswith("llvm."):
                    raise Bail
                # LLVM declares called intrinsics implicitly, at the end of the module
                sp = new_span(self.path, line, cpos)
                f = Function(name, None, inst.type, [], NO_FLAGS, True, [], sp, mod, (), (), False)
                f.args = [Argument(str(i), t, NO_FLAGS, i, f, sp, "", ()) for i, t in enumerate(arg_types)]
                funcs[name] = f
                mod.functions.append(f)
            if f.ret_type != inst.type or len(f.args) != len(arg_types):
                raise Bail
            for a, t in zip(f.args, arg_types):
                if a.type != t:
                    raise Bail
            inst.callee = name
            inst.callee_value = GlobalRef(name, PTR)


def build_module(text: str, path: str) -> Module | None:
    """The module, or ``None`` when the text needs the exact path (unusual forms or errors)."""
    try:
        return _Builder(path).run(text)
    except (Bail, IndexError):
        return None
