"""The rules of LLVM 19's verifier on metadata contents: module flags and TBAA access tags.

Stage job: for ``patterns/ir/verify.py``, the module's metadata (kept as text by the
reader, ``Module.metadata``: ``!N`` / ``!name`` -> the node as written) -> every
violation as one ``file:line:col`` error. Checked:

- ``!llvm.module.flags``: every flag is ``!{iN behavior, !"id", value}`` with a behavior
  from 1 (error) to 8 (min); a ``require`` flag's value is a pair ``!{!"id", value}``,
  an ``append`` or ``append-unique`` flag's value a node, a ``max`` or ``min`` flag's value
  an integer constant; no two flags other than ``require`` ones share an id;
- ``!tbaa`` only on loads, stores, calls, atomicrmw and cmpxchg, and its access tag in
  the struct-path form LLVM verifies: ``!{base, access, iN offset[, iN 0|1]}``, the
  access type a scalar type node (``!{!"name", parent[, iN 0]}`` down to a root), each
  base type node on the path a string and (type, offset) pairs with offsets of one
  width and not decreasing, the tag's offset of that width and 0 where the path reaches
  a scalar node. Tags of the newer self-sizing format (a type node's first operand a
  node) are let through, as are the contents of other metadata.
"""

from __future__ import annotations

from tdgen.errors import Diagnostics, ParseError, Span, expected

_BEHAVIORS = {1: "error", 2: "warning", 3: "require", 4: "override", 5: "append", 6: "append-unique", 7: "max",
              8: "min"}
_TBAA_OPS = frozenset({"load", "store", "call", "atomicrmw", "cmpxchg"})


def operands(text: str) -> list[str] | None:
    """The top-level operands of a tuple ``!{...}`` (``distinct`` allowed), as text;
    None when ``text`` is no tuple."""
    if text.startswith("distinct "):
        text = text[9:]
    if not text.startswith("!{") or not text.endswith("}"):
        return None
    body = text[2:-1]
    out: list[str] = []
    depth = 0
    start = 0
    i = 0
    n = len(body)
    while i < n:
        c = body[i]
        if c == '"':
            j = body.find('"', i + 1)
            i = n if j < 0 else j
        elif c in "({[<":
            depth += 1
        elif c in ")}]>":
            depth -= 1
        elif c == "," and depth == 0:
            out.append(body[start:i].strip())
            start = i + 1
        i += 1
    last = body[start:].strip()
    if last or out:
        out.append(last)
    return out


def _int(op: str) -> tuple[int, int] | None:
    """(bit width, value) of an integer constant operand ``iN V``, else None."""
    ty, _, v = op.partition(" ")
    if len(ty) < 2 or ty[0] != "i" or not ty[1:].isdigit():
        return None
    if v == "true" or v == "false":
        return int(ty[1:]), int(v == "true")
    if v.lstrip("-").isdigit():
        return int(ty[1:]), int(v)
    return None


def _string(op: str) -> bool:
    return op.startswith('!"')


class _Nodes:
    """Numbered nodes by reference, their operands parsed once."""

    def __init__(self, metadata: dict) -> None:
        self.metadata = metadata
        self.cache: dict[str, list[str] | None] = {}

    def ops(self, ref: str) -> list[str] | None:
        """The operands of the node ``ref`` (``!N`` or an inline tuple), None if it is none."""
        if ref in self.cache:
            return self.cache[ref]
        text = self.metadata.get(ref) if ref[1:2].isdigit() else ref
        r = operands(text) if text is not None else None
        self.cache[ref] = r
        return r


def verify_module_flags(mod, errors: Diagnostics) -> None:
    flags = mod.metadata.get("!llvm.module.flags")
    if flags is None:
        return
    nodes = _Nodes(mod.metadata)
    spans = getattr(mod, "metadata_spans", {})
    seen: dict[str, str] = {}
    for ref in operands(flags) or ():
        where = spans.get(ref) or spans.get("!llvm.module.flags") or Span(mod.path, 1, 1)
        ops = nodes.ops(ref)
        if ops is None or len(ops) != 3:
            errors.add(ParseError(where, expected("module flags of 3 operands (behavior, id, value)",
                                                  f"{ref} of {len(ops) if ops is not None else 0}")))
            continue
        b = _int(ops[0])
        if b is None:
            errors.add(ParseError(where, expected(f"an integer constant as the behavior of module flag {ref}",
                                                  f"'{ops[0]}'")))
            continue
        if b[1] not in _BEHAVIORS:
            errors.add(ParseError(where, expected(f"a module flag behavior from 1 to 8 in {ref}", f"{b[1]}")))
            continue
        if not _string(ops[1]):
            errors.add(ParseError(where, expected(f"a metadata string as the id of module flag {ref}",
                                                  f"'{ops[1]}'")))
            continue
        kind = _BEHAVIORS[b[1]]
        value = ops[2]
        if kind == "require":
            pair = nodes.ops(value) if value.startswith("!") else None
            if pair is None or len(pair) != 2 or not _string(pair[0]):
                errors.add(ParseError(where, expected(f"a pair (!\"id\", value) as the value of 'require' module "
                                                      f"flag {ref}", f"'{value}'")))
            continue
        if kind in ("append", "append-unique") and nodes.ops(value) is None:
            errors.add(ParseError(where, expected(f"a metadata node as the value of '{kind}' module flag {ref}",
                                                  f"'{value}'")))
        if kind in ("max", "min") and _int(value) is None:
            errors.add(ParseError(where, expected(f"an integer constant as the value of '{kind}' module flag {ref}",
                                                  f"'{value}'")))
        if ops[1] in seen:
            errors.add(ParseError(where, expected("module flag ids used once (except by 'require' flags)",
                                                  f"{ops[1]} in {seen[ops[1]]} and {ref}")))
        else:
            seen[ops[1]] = ref


class TBAA:
    """The access-tag rules above over one module's nodes (each tag checked once)."""

    def __init__(self, metadata: dict) -> None:
        self.nodes = _Nodes(metadata)
        self.verdict: dict[str, str | None] = {}

    def check(self, inst, node: str) -> str | None:
        """The error of ``!tbaa node`` on ``inst``, or None."""
        if inst.opcode not in _TBAA_OPS:
            return expected("!tbaa on a load, store, call, atomicrmw or cmpxchg", f"it on '{inst.opcode}'")
        v = self.verdict.get(node, "")
        if v == "":
            v = self.verdict[node] = self._tag(node)
        return v

    def _scalar(self, ref: str, depth: int = 0) -> bool:
        """A scalar type node: (!"name", parent[, iN 0]) whose parent is a root or scalar."""
        ops = self.nodes.ops(ref)
        if ops is None or len(ops) not in (2, 3) or depth > 64:
            return False
        if len(ops) == 3:
            off = _int(ops[2])
            if off is None or off[1] != 0:
                return False
        if not _string(ops[0]) or not ops[1].startswith("!"):
            return False
        return self._root(ops[1]) or self._scalar(ops[1], depth + 1)

    def _root(self, ref: str) -> bool:
        ops = self.nodes.ops(ref)
        return ops is not None and (len(ops) < 2 or not ops[1].startswith("!") or ops[1].startswith('!"'))

    def _tag(self, node: str) -> str | None:
        ops = self.nodes.ops(node)
        if ops is None:
            return None
        if len(ops) < 3 or not ops[0].startswith("!") or _string(ops[0]):
            return None  # the old scalar form (!"name", parent): not checked further
        base_ops = self.nodes.ops(ops[0])
        if base_ops is not None and len(base_ops) >= 3 and base_ops[0].startswith("!") and not _string(base_ops[0]):
            return None  # the newer self-sizing format
        if len(ops) > 4:
            return expected("a TBAA access tag of 3 or 4 operands", f"{len(ops)} in {node}")
        if len(ops) == 4:
            im = _int(ops[3])
            if im is None:
                return expected("an integer constant as the immutability flag of a TBAA tag", f"'{ops[3]}'")
            if im[1] not in (0, 1):
                return expected("0 or 1 as the immutability flag of a TBAA tag", f"{im[1]}")
        base, access = ops[0], ops[1]
        if not access.startswith("!") or _string(access) or self.nodes.ops(access) is None:
            return expected("a base and an access type node in the TBAA tag", f"'{access}'")
        if not self._scalar(access):
            return expected(f"a scalar type node as the access type of TBAA tag {node}", f"{access}")
        off = _int(ops[2])
        if off is None:
            return expected("an integer constant as the offset of a TBAA tag", f"'{ops[2]}'")
        width, offset = off
        seen: set[str] = set()
        cur: str | None = base
        while cur is not None and not self._root(cur):
            if cur in seen:
                return expected("a TBAA struct path without a cycle", f"{cur} again")
            seen.add(cur)
            bops = self.nodes.ops(cur)
            if bops is None:
                return expected("a type node on the TBAA struct path", f"'{cur}'")
            bits = -1
            if len(bops) == 2:
                if not self._scalar(cur):
                    return expected("a scalar type node on the TBAA struct path", f"{cur}")
                bits = 0
            else:
                if len(bops) % 2 != 1:
                    return expected("a TBAA type node of an odd number of operands", f"{len(bops)} in {cur}")
                if not _string(bops[0]):
                    return expected("a string as the first operand of TBAA type node", f"'{bops[0]}' in {cur}")
                prev = None
                for k in range(1, len(bops), 2):
                    if not bops[k].startswith("!") or _string(bops[k]):
                        return expected(f"a type node as field {k // 2} of TBAA type node {cur}", f"'{bops[k]}'")
                    fo = _int(bops[k + 1])
                    if fo is None:
                        return expected(f"an integer constant as the offset of field {k // 2} of {cur}",
                                        f"'{bops[k + 1]}'")
                    if bits == -1:
                        bits = fo[0]
                    elif fo[0] != bits:
                        return expected(f"field offsets of one width in TBAA type node {cur}",
                                        f"i{bits} and i{fo[0]}")
                    if prev is not None and fo[1] % (1 << bits) < prev % (1 << bits):
                        return expected(f"increasing field offsets in TBAA type node {cur}", f"{fo[1]} after {prev}")
                    prev = fo[1]
            if (self._scalar(cur) or cur == access) and offset % (1 << width) != 0:
                return expected(f"offset 0 where the TBAA path of {node} reaches a scalar type",
                                f"{offset} at {cur}")
            if not (bits == width or (bits == 0 and offset == 0)):
                return expected(f"a TBAA tag offset as wide as its type nodes' (i{bits}) in {node}", f"i{width}")
            if len(bops) == 2:
                cur = bops[1]
                continue
            if len(bops) == 1:
                return None  # a root-like node of one operand: the path ends
            nxt = None
            for k in range(1, len(bops), 2):
                fo = _int(bops[k + 1])
                assert fo is not None
                if fo[1] > offset:
                    break
                nxt = (bops[k], offset - fo[1])
            if nxt is None:
                return expected(f"a field of TBAA type node {cur} at offset {offset}", "none")
            cur, offset = nxt
        return None
