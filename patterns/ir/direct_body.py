"""The direct IR builder's line loop: the body of one function, line by line, in one pass.

Stage job: the hot path of ``patterns/ir/reader_direct.py`` (see its docstring for the
forms read and the rules kept): each line of a function body dispatched on its opcode's
first three characters, matched by its family's expression (``patterns/ir/direct_syntax.py``),
its instruction built and its operands bound where they are already defined (the
frequent families inline: type check, dominance bookkeeping, user list), the rest
(uses before the definition, phi incoming values, branch targets) recorded for the
end of the body (``patterns/ir/direct_blocks.py``). A compiled module
(``patterns/native/__init__.py``): the loop's locals are typed, and it calls no helper
per instruction that it can do inline.
"""

from __future__ import annotations

from typing import Any, Final

from patterns.ir.core import I1, VOID, Constant, IntType, PtrType
from patterns.ir.direct_blocks import finish_body, labeled_block
from patterns.ir.direct_syntax import (CALL_ARG, CANON_BINFLAGS, CANON_CASTFLAGS, CANON_GEPFLAGS, DISPATCH, DISPATCH3,
                                       GEP_IDX, INT_BINOP_FLAGS, INT_CAST_FLAGS, ODD_TYPES, PHI_PAIR, TYPES,
                                       parse_type, plain_types)
from patterns.ir.direct_values import (C_ELEMENTS, C_KIND, C_TEXT, C_TYPE, C_U, C_VALUE, Bail, cast_ok, const_entry,
                                       new_span)
from patterns.ir.function import Argument, BasicBlock, Function, Instruction, blank_instruction

_new: Final = object.__new__
# an instruction with only the class defaults: object.__new__ for the plain class (no
# __init__ run); the compiled (native) class is made only through its __init__, by
# blank_instruction
NATIVE_INSTRUCTION: Final = "__dict__" not in vars(Instruction)


def read_body(f: Function, lines: list, k: int, path: str, consts: dict, calls: list, attr_users: list,
              first_slot: int) -> int:
    """Build the body of ``f``, whose header is line ``k`` of ``lines``: its blocks,
    instructions, operands, CFG edges and user lists; the number of the line of its
    closing ``}``. ``consts``, ``calls`` and ``attr_users`` are the module builder's
    (constant fields by type and token; calls to link once the module is read; functions
    and calls with ``#N`` references); ``first_slot``: the number of the next unnamed
    value after the arguments. Raises ``Bail`` (or ``IndexError``) for anything the
    exact path must read."""
    tys = TYPES
    vals: dict = {}  # value name (without the '%') -> Argument or Instruction
    pending: list = []  # (inst, operand index, name, type): uses before the definition
    phis: list = []  # (inst, [(local name, constant token, block name)], source text)
    odd: list = []  # instructions with a constant operand not in canonical spelling
    terms: list = []  # (branch, block name, second block name or None), in block order
    # SSA dominance: a use of a value defined earlier in the same block is valid by
    # construction; the blocks of values defined earlier in other blocks are
    # collected per using block (``cur_cross``, then ``checks``: (block, [blocks
    # that must dominate it])) and checked at the end of the function, with the
    # uses before the definition (``pending``) and the phi incoming values
    cur_cross: list = []
    checks: list = []
    # the uniformity analysis' user lists, built here while the objects are fresh in
    # the cache (see ``Function.uses``): each value's ``_users``, its users in program
    # order, each once (the user itself while there is only one: no list for the
    # many values used once); uses bound as parsed (the value is defined earlier) go
    # straight in, the others (``late_uses``: (user, name) in text order) precede
    # them and are added at the end
    late_uses: list = []
    seeds: list = []  # loads and calls, in program order
    bcur: Any = None  # the block of the next instruction, None if it opens a new one
    n_slot = 0  # opt's renumbering of unnamed values
    # any numbered argument, value or block: no kept text in this function
    numbered = False
    arg: Argument
    for arg in f.args:
        vals[arg.name] = arg
        if arg.name.isdigit():
            arg.slot = str(n_slot)
            n_slot += 1
            numbered = True
        else:
            arg.slot = arg.name
    next_slot = first_slot
    n_void = 0  # stores and void calls
    blocks: list = []
    block_names: dict = {}
    cur: Any = None
    cur_insts: Any = None
    g: tuple
    s: str  # (the line: str methods and indexing natively)
    terminated = True
    ret_type = f.ret_type
    Inst = Instruction
    new = _new
    c_type, c_text, c_kind, c_value, c_elements, c_u = C_TYPE, C_TEXT, C_KIND, C_VALUE, C_ELEMENTS, C_U
    dispatch = DISPATCH
    dispatch3 = DISPATCH3
    binop_flags = INT_BINOP_FLAGS
    odd_types = ODD_TYPES

    def const(tok, ty, inst):
        """A new ``Constant`` for ``ty tok`` (each use gets its own object, as on the
        exact path); ``inst`` (the user, or None) goes to ``odd`` when ``tok`` is
        not the canonical spelling."""
        c = consts.get((id(ty), tok))
        if c is None:
            c = consts[(id(ty), tok)] = const_entry(ty, tok)
        if inst is not None and c[0] != tok:
            odd.append(inst)
        v = new(Constant)
        c_type(v, ty)
        c_text(v, c[0])
        c_kind(v, c[1])
        c_value(v, c[2])
        c_elements(v, ())
        c_u(v, c[4])
        return v

    def operand(loc, cst, ty, inst, idx):
        """Operand ``idx`` of ``inst``: the value named ``loc`` or the constant ``cst``
        (the two groups of direct_syntax._V); None for a value defined later (bound at the end)."""
        if not loc:
            return const(cst, ty, inst)
        v = vals.get(loc)
        if v is None:
            pending.append((inst, idx, loc, ty))
            late_uses.append((inst, loc))
            return None
        if v.type is not ty and v.type != ty:
            raise Bail
        if type(v) is Inst and v.block is not bcur:
            cur_cross.append(v.block)
        ul = v._users
        if ul is None:
            v._users = inst
        elif type(ul) is list:
            if ul[-1] is not inst:
                ul.append(inst)
        elif ul is not inst:
            v._users = [ul, inst]
        return v

    # The hot loop. The frequent families bind their operands inline (a value
    # defined earlier: type check, dominance bookkeeping, user list); constants and
    # uses before the definition go through ``const``/``operand``. A line the
    # split or the expressions do not expect ends in Bail or IndexError, both of
    # which mean "use the exact path".
    for k in range(k + 1, len(lines) + 1):  # k: the line number
        s = lines[k - 1]
        # The usual instruction line ("  %x = op ..." or "  op ...") is dispatched on
        # the first three characters of its opcode (DISPATCH3; without " = ", find
        # gives -1 and the slice is [2:5]) and matched as it is. Anything else takes
        # the general way: a comment and white space at the end removed, then a
        # blank line, a label, an instruction (opcode found with str.split) or the
        # closing brace.
        i = s.find(" = ")
        d = dispatch3.get(s[i + 3:i + 6])
        if d is not None:
            fam, rx, op = d
            m = rx.match(s)
        else:
            m = None
        if m is None:
            if ";" in s:
                if '"' in s:
                    raise Bail
                s = s[:s.index(";")]
            s = s.rstrip()
            if not s:
                continue
            if s[-1] == ":":
                if not terminated:
                    raise Bail
                cur, next_slot, n_slot, label_numbered = labeled_block(s, k, f, path, blocks, block_names,
                                                                       next_slot, n_slot)
                if label_numbered:
                    numbered = True
                cur_insts = cur.instructions
                terminated = False
                bcur = cur
                continue
            parts = s.split(None, 3)
            op = parts[0]
            if op[0] == "%":
                op = parts[2]  # "%x = op ...": the expression checks the " = "
            d = dispatch.get(op)
            if d is None:
                if parts == ["}"]:
                    break
                raise Bail
            fam, rx, op = d
            m = rx.match(s)
            if m is None:
                raise Bail
        g = m.groups()
        inst = blank_instruction() if NATIVE_INSTRUCTION else new(Inst)
        inst._users = None
        keep = True  # the source text is the printed text (see ODD_TYPES)
        if fam == 0:  # binary operator
            try:
                ty = tys[g[5]]
            except KeyError:
                ty = parse_type(g[5])
            if type(ty) is not IntType:
                raise Bail
            inst.opcode = op
            inst.type = ty
            fl = g[4]
            if fl:
                words = fl.split()
                allowed = binop_flags[op]
                for w in words:
                    if w not in allowed:
                        raise Bail
                inst.flags = frozenset(words)
                if fl not in CANON_BINFLAGS:
                    keep = False
            a = g[6]
            if a:
                try:
                    va = vals[a]
                except KeyError:
                    va = operand(a, None, ty, inst, 0)
                else:
                    if va.type is not ty and va.type != ty:
                        raise Bail
                    if type(va) is Inst and va.block is not bcur:
                        cur_cross.append(va.block)
                    ul = va._users
                    if ul is None:
                        va._users = inst
                    elif type(ul) is list:
                        ul.append(inst)  # a new user: never the last one yet
                    else:
                        va._users = [ul, inst]
            else:
                va = const(g[7], ty, inst)
            b = g[8]
            if b:
                try:
                    vb = vals[b]
                except KeyError:
                    vb = operand(b, None, ty, inst, 1)
                else:
                    if vb.type is not ty and vb.type != ty:
                        raise Bail
                    if type(vb) is Inst and vb.block is not bcur:
                        cur_cross.append(vb.block)
                    ul = vb._users
                    if ul is None:
                        vb._users = inst
                    elif type(ul) is list:
                        if ul[-1] is not inst:
                            ul.append(inst)
                    elif ul is not inst:
                        vb._users = [ul, inst]
            else:  # ``const`` inlined: a constant second operand is the usual case
                tok = g[9]
                c = consts.get((id(ty), tok))
                if c is None:
                    c = consts[(id(ty), tok)] = const_entry(ty, tok)
                if c[0] != tok:
                    odd.append(inst)
                vb = new(Constant)
                c_type(vb, ty)
                c_text(vb, c[0])
                c_kind(vb, c[1])
                c_value(vb, c[2])
                c_elements(vb, ())
                c_u(vb, c[4])
            inst.operands = [va, vb]
        elif fam == 10:  # br
            inst.opcode = op
            inst.type = VOID
            if g[4] is not None:
                inst.operands = []
                terms.append((inst, g[4], None))
            else:
                a = g[5]
                if a:
                    try:
                        va = vals[a]
                    except KeyError:
                        va = operand(a, None, I1, inst, 0)
                    else:
                        if va.type is not I1 and va.type != I1:
                            raise Bail
                        if type(va) is Inst and va.block is not bcur:
                            cur_cross.append(va.block)
                        ul = va._users
                        if ul is None:
                            va._users = inst
                        elif type(ul) is list:
                            ul.append(inst)
                        else:
                            va._users = [ul, inst]
                else:
                    va = const(g[6], I1, inst)
                inst.operands = [va]
                terms.append((inst, g[7], g[8]))
        elif fam == 1:  # icmp
            try:
                ty = tys[g[5]]
            except KeyError:
                ty = parse_type(g[5])
            if type(ty) is not IntType and type(ty) is not PtrType:
                raise Bail
            inst.opcode = op
            inst.type = I1
            inst.predicate = g[4]
            a = g[6]
            if a:
                try:
                    va = vals[a]
                except KeyError:
                    va = operand(a, None, ty, inst, 0)
                else:
                    if va.type is not ty and va.type != ty:
                        raise Bail
                    if type(va) is Inst and va.block is not bcur:
                        cur_cross.append(va.block)
                    ul = va._users
                    if ul is None:
                        va._users = inst
                    elif type(ul) is list:
                        ul.append(inst)
                    else:
                        va._users = [ul, inst]
            else:
                va = const(g[7], ty, inst)
            b = g[8]
            if b:
                try:
                    vb = vals[b]
                except KeyError:
                    vb = operand(b, None, ty, inst, 1)
                else:
                    if vb.type is not ty and vb.type != ty:
                        raise Bail
                    if type(vb) is Inst and vb.block is not bcur:
                        cur_cross.append(vb.block)
                    ul = vb._users
                    if ul is None:
                        vb._users = inst
                    elif type(ul) is list:
                        if ul[-1] is not inst:
                            ul.append(inst)
                    elif ul is not inst:
                        vb._users = [ul, inst]
            else:
                vb = const(g[9], ty, inst)
            inst.operands = [va, vb]
        elif fam == 2:  # phi
            pairs = PHI_PAIR.findall(g[5])
            inst.opcode = op
            try:
                inst.type = tys[g[4]]
            except KeyError:
                inst.type = parse_type(g[4])
            inst.operands = [None] * len(pairs)
            phis.append((inst, pairs, s if g[0] == "  " else "  " + s[len(g[0]):]))  # the text (see below)
            for loc, _c, _bn in pairs:
                if loc:
                    v = vals.get(loc)
                    if v is None:
                        late_uses.append((inst, loc))
                    else:
                        ul = v._users
                        if ul is None:
                            v._users = inst
                        elif type(ul) is list:
                            if ul[-1] is not inst:
                                ul.append(inst)
                        elif ul is not inst:
                            v._users = [ul, inst]
            keep = False  # decided when the incoming values are bound
        elif fam == 3:  # select
            ta = g[6]
            if ta != g[9]:
                raise Bail
            try:
                ty = tys[ta]
            except KeyError:
                ty = parse_type(ta)
            inst.opcode = op
            inst.type = ty
            inst.operands = [operand(g[4], g[5], I1, inst, 0), operand(g[7], g[8], ty, inst, 1),
                             operand(g[10], g[11], ty, inst, 2)]
        elif fam == 4:  # load
            seeds.append(inst)
            pty = parse_type(g[5])
            if type(pty) is not PtrType:
                raise Bail
            inst.opcode = op
            inst.type = parse_type(g[4])
            inst.operands = ops = [None]
            ops[0] = operand(g[6], g[7], pty, inst, 0)
            inst.addrspace = pty.addrspace
            if g[8] is not None:
                al = inst.align = int(g[8])
                if keep and str(al) != g[8]:
                    keep = False
            else:
                keep = False  # printed with the ABI alignment
        elif fam == 5:  # getelementptr
            pty = parse_type(g[6])
            if type(pty) is not PtrType:
                raise Bail
            ix = GEP_IDX.findall(g[9]) if g[9] else ()
            inst.opcode = op
            inst.type = pty
            inst.operands = ops = [None] * (1 + len(ix))
            if g[4]:
                inst.flags = frozenset(g[4].split())
                if g[4] not in CANON_GEPFLAGS:
                    keep = False
            inst.source_type = parse_type(g[5])
            inst.addrspace = pty.addrspace
            ops[0] = operand(g[7], g[8], pty, inst, 0)
            j = 1
            for ti, li, ci in ix:
                ity = parse_type(ti)
                if type(ity) is not IntType:
                    raise Bail
                ops[j] = operand(li, ci, ity, inst, j)
                j += 1
        elif fam == 8:  # store
            n_void += 1
            vty, pty = parse_type(g[4]), parse_type(g[7])
            if type(pty) is not PtrType:
                raise Bail
            inst.opcode = op
            inst.type = VOID
            inst.operands = ops = [None, None]
            ops[0] = operand(g[5], g[6], vty, inst, 0)
            ops[1] = operand(g[8], g[9], pty, inst, 1)
            inst.addrspace = pty.addrspace
            inst.source_type = vty
            if g[10] is not None:
                al = inst.align = int(g[10])
                if keep and str(al) != g[10]:
                    keep = False
            else:
                keep = False  # printed with the ABI alignment
        elif fam == 7:  # call
            seeds.append(inst)
            kw = g[4]
            inst.opcode = "call"
            inst.type = parse_type(g[5])
            if inst.type is VOID:
                if g[2] or g[3]:
                    raise Bail  # a name for a void result
                n_void += 1
            if kw != "call":
                inst.tail = kw[:kw.index(" ")]
            inst.operands = ops = []
            arg_types = []
            inner = g[7]
            if inner:
                aattrs = inst.arg_attrs
                for j, piece in enumerate(inner.split(", ")):
                    am = CALL_ARG.match(piece)
                    if am is None:
                        raise Bail
                    aty = parse_type(am.group(1))
                    arg_types.append(aty)
                    ops.append(operand(am.group(3), am.group(4), aty, inst, j))
                    aattrs.append(tuple(am.group(2).split()))
            calls.append((inst, g[6], m.start(7), k, arg_types))  # column of '@' (1-based)
            if g[6][0].isdigit():  # a numbered global
                keep = False
            if g[8]:
                keep = False
                inst.attr_items = tuple(g[8].split())
                attr_users.append(inst)
        elif fam == 6:  # cast
            sty, dty = parse_type(g[5]), parse_type(g[8])
            if not cast_ok(op, sty, dty):
                raise Bail
            inst.opcode = op
            inst.type = dty
            if g[4]:
                words = g[4].split()
                allowed = INT_CAST_FLAGS.get(op, ())
                for w in words:
                    if w not in allowed:
                        raise Bail
                inst.flags = frozenset(words)
                if g[4] not in CANON_CASTFLAGS:
                    keep = False
            inst.source_type = sty
            inst.operands = ops = [None]
            ops[0] = operand(g[6], g[7], sty, inst, 0)
        elif fam == 11:  # ret
            inst.opcode = op
            inst.type = VOID
            inst.operands = ops = []
            if g[4] is None:
                if ret_type is not VOID:
                    raise Bail
            else:
                ty = parse_type(g[4])
                if ty != ret_type:
                    raise Bail
                ops.append(operand(g[5], g[6], ty, inst, 0))
        else:  # unreachable
            inst.opcode = op
            inst.type = VOID
            inst.operands = []
        # ------------------------------------------------ block and name
        if terminated:
            # an unlabeled block (entry, or after a terminator): numbered before
            # its first instruction
            col = len(g[0]) + 1
            cur = BasicBlock(str(next_slot), [], f, [], [],
                             k << 20 | col if col < 0x100000 else new_span(path, k, col), str(n_slot), len(blocks))
            next_slot += 1
            n_slot += 1
            numbered = True
            block_names[cur.name] = cur
            blocks.append(cur)
            cur_insts = cur.instructions
            terminated = False
            bcur = cur
        inst.block = cur
        # The usual indentation of two spaces: the line itself is the kept text
        # (``_text`` is indented by two spaces; no copy is made) and ``_loc`` is just
        # the line number; otherwise the text reindented, and ``_loc`` =
        # -(line << 20 | column). See ``Instruction.span``.
        ind = g[0]
        if ind == "  ":
            if keep and (not odd or odd[-1] is not inst) and (not odd_types or plain_types(s)):
                inst._text = s
            inst._loc = k
        else:
            col = len(ind) + 1
            if keep and (not odd or odd[-1] is not inst) and (not odd_types or plain_types(s)):
                inst._text = "  " + s[col - 1:]
            if col < 0x100000:
                inst._loc = -((k << 20) | col)
            else:
                inst.span = new_span(path, k, col)
        # (a redefinition replaces the first definition in ``vals``: found at the
        # end of the function by counting)
        name = g[2]
        if name:
            vals[name] = inst
            inst.name = name
            inst.slot = name
        elif g[3]:  # an explicitly numbered value
            name = g[3]
            vals[name] = inst
            if int(name) < next_slot:
                raise Bail
            next_slot = int(name) + 1
            numbered = True
            inst.name = name
            inst.slot = str(n_slot)
            n_slot += 1
        elif fam < 7 or (fam == 7 and inst.type is not VOID):  # an unnamed value
            name = str(next_slot)
            next_slot += 1
            numbered = True
            inst.name = name
            inst.slot = str(n_slot)
            n_slot += 1
            vals[name] = inst
        cur_insts.append(inst)
        if fam >= 10:
            terminated = True
            bcur = None
            if cur_cross:
                checks.append((cur, cur_cross))
                cur_cross = []
    else:
        raise Bail  # missing '}'
    if not terminated or not blocks:
        raise Bail
    finish_body(f, blocks, block_names, vals, n_void, pending, terms, phis, checks, late_uses, seeds, numbered,
                const)
    return k
