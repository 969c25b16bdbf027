"""The IR reader's third layer: a function body, its blocks and every instruction.

Stage job: the tokens of one ``define``'s body -> its ``BasicBlock``s and
``Instruction``s with resolved operands (``patterns/ir/function.py``), numbered as LLVM
numbers unnamed values, with the type rules LLVM's parser checks (operand types, casts,
call signatures against the declaration, flags per opcode, alignments), forward
references and branch targets bound when the body ends, the CFG edges set, and the
names opt prints (``slot``). A source line that already is opt's text of its
instruction is kept as ``Instruction._text`` (``keep_line``), so printing it costs
nothing. The per-opcode operand forms are in
``patterns/ir/parser_insts.py``; this module reads the body, the result name, the
trailing ``align``/metadata items, and binds what the instructions left for the end.
"""

from __future__ import annotations

import re
from typing import Any, Final

from patterns.ir.core import LABEL, VOID, Type
from patterns.ir.function import BasicBlock, Function, Instruction
from patterns.ir.lexer import EOF
from patterns.ir.parser_insts import OPCODES, InstParser
from patterns.ir.spelling import quote_name, unquote


class BodyParser(InstParser):
    """Function bodies over the instruction forms of ``InstParser``."""

    def body(self, f: Function) -> None:
        """The body of ``f``: the cursor is after its ``{``; it ends after the ``}``."""
        self.rec = "@" + f.name
        self.vals = {}
        self.val_at: dict[str, int] = {}
        self.pending = []
        self.branch_refs: list = []  # (inst, [(name, token)], kind)
        self.callee_lists: list = []  # (call, [callee]): indirect callees defined later
        self.ret_type = f.ret_type
        self.block_names: dict[str, BasicBlock] = {}
        slot = 0
        for a in f.args:
            self.vals[a.name] = a
            if a.name.isdigit():
                slot = int(a.name) + 1
        self.next_slot = slot
        blocks: list[BasicBlock] = []
        cur: BasicBlock | None = None
        insts = None
        last_term = True  # the current block ended (a new block opens at the next instruction)
        while True:
            t = self.tok()
            at = self.p
            if t == "}":
                self.p += 1
                break
            c = t[-1]
            if c == ":" and t[0] != "!" and len(t) > 1:
                name = unquote(t[:-1]) if t[0] == '"' else t[:-1]
                if cur is not None and not last_term:
                    prev = cur.instructions[-1].opcode if cur.instructions else ""
                    self.err(at, f"a terminator at the end of block '%{quote_name(cur.name)}' before the next label",
                             f"'{prev}'" if prev else "an empty block")
                if name.isdigit():
                    self.check_number(name, at)
                cur = BasicBlock(name, [], f, [], [], self.here_span(at), "", len(blocks))
                if name in self.block_names:
                    self.err(at, "a new block label", f"redefinition of label '%{quote_name(name)}'")
                else:
                    self.block_names[name] = cur
                blocks.append(cur)
                insts = cur.instructions
                last_term = False
                self.p += 1
                continue
            if t == EOF:
                self.syntax("an instruction or '}'")
            if t == "#" and self.toks[self.p + 1].startswith("dbg_"):
                self.debug_record()
                continue
            if t[0] != "%" and t not in OPCODES:
                if t[0].isalpha() and t[0] != "c":
                    self.syntax("an instruction", f"unknown instruction '{t}'")
                self.syntax("an instruction or '}'")
            if last_term or cur is None:
                cur = BasicBlock(str(self.next_slot), [], f, [], [], self.here_span(at), "", len(blocks))
                self.block_names[cur.name] = cur
                self.next_slot += 1
                blocks.append(cur)
                insts = cur.instructions
            inst = self.instruction(at)
            inst.block = cur
            last_term = inst.opcode in _TERMINATORS
            c0 = inst.callee
            if c0 is not None and c0 in _DBG_INTRINSICS:
                # LLVM 19 reads a debug intrinsic as a debug record (no instruction)
                if self.dbg_records:
                    self.err(at, "no debug intrinsic in a module with debug records", f"a call of '@{c0}'")
                self.dbg_calls = True
                continue
            insts.append(inst)  # type: ignore[union-attr]
        if cur is not None and not last_term:
            last = cur.instructions[-1] if cur.instructions else None
            self.err_span(last.span if last is not None else cur.span,
                          f"a terminator (br, switch, ret, unreachable) at the end of block '%{quote_name(cur.name)}'",
                          f"'{last.opcode}'" if last is not None else "an empty block")
        if not blocks:
            self.err_span(f.span, "at least one basic block in a function definition", "an empty body")
        f.blocks = blocks
        for b in blocks:
            if b.name in self.vals:
                self.err_span(b.span, "a new name", f"redefinition of '%{quote_name(b.name)}'")
        self.bind_pending()
        for inst, lst in self.callee_lists:
            inst.callee_value = lst[0]
        self.bind_branches()
        link_cfg(blocks)
        assign_slots(f)

    def debug_record(self) -> None:
        """A debug record (``#dbg_value(...)``, ``#dbg_declare(...)``, ...): read and
        dropped (it is no instruction, and its values are no uses)."""
        if self.dbg_calls:
            self.err(self.p, "no debug record in a module with debug intrinsics", "'#dbg_...'")
        self.dbg_records = True
        self.p += 1
        w = self.take()
        if w not in ("dbg_value", "dbg_declare", "dbg_assign", "dbg_label"):
            self.syntax("a debug record (#dbg_value, #dbg_declare, #dbg_assign, #dbg_label)", at=self.p - 1)
        if self.tok() != "(":
            self.syntax("'(' after the debug record's name")
        self.skip_brackets()

    def instruction(self, at: int) -> Instruction:
        t = self.tok()
        name: str | None = None
        name_at = at
        if t[0] == "%":
            name = unquote(t[1:]) if len(t) > 1 and t[1] == '"' else t[1:]
            self.p += 1
            self.expect("=", "'=' after the result name")
        op = self.tok()
        op_at = self.p
        if op not in OPCODES:
            if op[0].isalpha():
                self.syntax("an instruction", f"unknown instruction '{op}'")
            self.syntax("an instruction")
        self.p += 1
        self.canon = True
        inst = Instruction(op, None, VOID, [])
        if at == self.bol:
            line = self.line
            col = self.ind
            if col == 3:
                inst._loc = line
            elif col < 0x100000:
                inst._loc = -((line << 20) | col)
            else:  # pragma: no cover - a line indented by a million columns
                inst.span = self.span(at)
        else:
            inst.span = self.span(at)
        self.opcode_form(inst, OPCODES[op], at)
        del op_at
        self.name_instruction(inst, name, name_at)
        if self.canon and inst._loc is not None and inst._loc > 0 and inst.opcode not in _NOT_KEPT:
            self.keep_line(inst, at, name is not None)
        return inst

    def keep_line(self, inst: Instruction, at: int, named: bool) -> None:
        """Keep the instruction's source line as its text (``Instruction._text``) when it
        is what opt prints: the instruction alone on its line after two spaces, its
        tokens spaced as opt spaces them, no comment, no token that opt spells
        otherwise (``canon``), no bracket, quote or typed-pointer star, its result named
        if it has one; ``assign_slots`` drops the kept lines of a function whose values
        are renumbered. (tests/test_ir.py compares every kept line with the printer's.)"""
        toks = self.toks
        end = self.p  # (the cursor may be past the line break already)
        while toks[end - 1][0] == "\n":
            end -= 1
        nt = toks[end]
        if (nt[0] != "\n" and nt != EOF) or named != (inst.name is not None):
            return
        op = inst.opcode
        if inst.align is None and op in _ALIGNED:
            return  # (opt prints the alignment it gives)
        lines = self.lines
        if lines is None:
            lines = self.lines = self.text.split("\n")
        line = lines[inst._loc - 1]
        if _UNKEPT.search(line) is not None:
            if op != "phi" or _UNKEPT_PHI.search(line) is not None or line.count("[") != len(inst.operands):
                return
        joined = " ".join(toks[at:end])
        if "(" in joined:
            joined = joined.replace(" (", "(").replace("( ", "(").replace(" )", ")")
        joined = joined.replace(" ,", ",")
        if line.startswith("  ") and line[2:] == joined:
            inst._text = line

    def name_instruction(self, inst: Instruction, name: str | None, at: int) -> None:
        """Bind the result name; an unnamed result gets the next number (as LLVM does)."""
        if inst.type is VOID:
            if name is not None:
                self.err(at, f"no name for an instruction without a result ('{inst.opcode}' returns void)",
                         f"'%{quote_name(name)}'")
            return
        if name is None:
            name = str(self.next_slot)
            self.next_slot += 1
        elif name.isdigit() and not self.check_number(name, at):
            inst.name = name
            return
        inst.name = name
        self.define(name, inst, at)

    def check_number(self, name: str, at: int) -> bool:
        n = int(name)
        if n < self.next_slot:
            self.err(at, f"value number %{self.next_slot} or greater", f"'%{name}'")
            return False
        self.next_slot = n + 1
        return True

    def define(self, name: str, v: Any, at: int) -> None:
        if name in self.vals:
            prev = self.val_at.get(name)
            line = self.span(prev).line if prev is not None else self.span(at).line
            self.err(at, f"a new name (%{quote_name(name)} is already defined at line {line})",
                     f"redefinition of '%{quote_name(name)}'")
            return
        self.vals[name] = v
        self.val_at[name] = at

    def here_span(self, at: int) -> Any:
        """The span of token ``at``, as ``line << 20 | column`` when it opens its line (a
        ``BasicBlock`` makes the ``Span`` on first read), else the ``Span``."""
        if at == self.bol and self.ind < 0x100000:
            return self.line << 20 | self.ind
        return self.span(at)

    # ---------------------------------------------------------- end of a body
    def bind_pending(self) -> None:
        vals = self.vals
        for lst, idx, name, ty, at, what in self.pending:
            v = vals.get(name)
            if v is None:
                if ty is LABEL and name in self.block_names:
                    lst[idx] = self.block_names[name]
                    continue
                self.err(at, "a defined value", f"undefined value '%{quote_name(name)}'")
                continue
            if v.type is not ty and v.type != ty:
                self.err(at, f"'%{quote_name(name)}' to have type {ty}", f"type {v.type} (type mismatch in {what})")
                continue
            lst[idx] = v
        self.pending = []

    def block_of(self, name: str, at: int) -> BasicBlock | None:
        b = self.block_names.get(name)
        if b is None:
            self.err(at, "a block label defined in this function", f"undefined label '%{quote_name(name)}'")
        return b

    def bind_branches(self) -> None:
        for inst, refs, kind in self.branch_refs:
            bl = [self.block_of(n, a) for n, a in refs]
            if kind == "phi":
                inst.incoming = list(zip(inst.operands, bl))
            elif kind == "switch":
                cases = inst.cases
                inst.cases = [(c, b) for (c, _), b in zip(cases, bl[1:])]
                inst.targets = [b for b in bl if b is not None]
            else:
                inst.targets = [b for b in bl if b is not None]


_NOT_KEPT: Final = frozenset({"call", "callbr", "switch"})  # (printed from their fields only)
_ALIGNED: Final = frozenset({"load", "store", "atomicrmw", "cmpxchg", "alloca"})
_UNKEPT: Final = re.compile(r'["*;<>{}\[\]\\]')  # what a kept line has none of
_UNKEPT_PHI: Final = re.compile(r'["*;<>{}\\]')  # (a phi's [ v, %b ] pairs)
_DBG_INTRINSICS: Final = frozenset({"llvm.dbg.value", "llvm.dbg.declare", "llvm.dbg.assign", "llvm.dbg.label"})
_TERMINATORS: Final = frozenset({"br", "switch", "ret", "unreachable", "callbr", "indirectbr", "invoke", "resume"})


def link_cfg(blocks: list) -> None:
    """Successors (terminator order) and predecessors (each once, in block order)."""
    for b in blocks:
        t = b.terminator
        b.successors = list(t.targets) if t is not None else []
    for b in blocks:
        for s in b.successors:
            p = s.predecessors
            if b not in p:
                p.append(b)


_PLAIN: Final = re.compile(r"[-a-zA-Z$._][-a-zA-Z$._0-9]*")


def _plain(name: str) -> str:
    """``quote_name`` with a fast path for a name that needs no quotes."""
    return name if _PLAIN.fullmatch(name) is not None else quote_name(name)


def assign_slots(f: Function) -> None:
    """The names opt prints: named values keep their names, unnamed ones are renumbered
    0, 1, ... over arguments, then blocks and instructions in order."""
    n = 0
    same = True  # every name printed as written (else the kept source lines are dropped)
    for a in f.args:
        if a.name.isdigit():
            a.slot = s = str(n)
            n += 1
        else:
            a.slot = s = quote_name(a.name)
        if s != a.name:
            same = False
    for b in f.blocks:
        if b.name.isdigit():
            b.slot = s = str(n)
            n += 1
        else:
            b.slot = s = quote_name(b.name)
        if s != b.name:
            same = False
        for i in b.instructions:
            nm = i.name
            if nm is None:
                continue
            if nm.isdigit():
                i.slot = s = str(n)
                n += 1
            else:
                i.slot = s = _plain(nm)
            if s != nm:
                same = False
    if not same:
        for b in f.blocks:
            for i in b.instructions:
                i._text = None


__all__ = ["BodyParser", "link_cfg", "assign_slots", "Type"]
