"""The IR reader's top layer: the module's entities, in two passes, and the finished ``Module``.

Stage job: LLVM IR text -> ``Module`` (``patterns/ir/core.py``), every semantic problem of
the file reported together (``ErrorList``), a syntax error at once. The first pass
reads every top-level entity (function headers, global variables and aliases, named
struct types, comdats, attribute groups, metadata, ``target``/``source_filename``/
``module asm``) and steps over each function body (its braces counted); the second
reads the bodies (``patterns/ir/parser_body.py``), when every global, function and type
is known, as LLVM allows them to be used before their definition. Then the calls of
undeclared intrinsics get their implicit declarations (at the end, as LLVM adds
them), ``#N`` attribute references are expanded, the data layout is read.
"""

from __future__ import annotations

from typing import Any, Final

from tdgen.errors import ParseError, Span

from patterns.ir.core import (CALLING_CONVENTIONS, LABEL, METADATA, PTR, TOKEN, VOID, Constant, GlobalVar, Module,
                              StructType, Type, is_first_class)
from patterns.ir.datalayout import LayoutError, error_span, layout_of_text
from patterns.ir.function import Argument, Function, Instruction
from patterns.ir.lexer import EOF
from patterns.ir.parser_body import BodyParser
from patterns.ir.parser_metadata import MD_DEF, MD_NAMED, MD_NODE
from patterns.ir.parser_values import BadConstant, local_name
from patterns.ir.spelling import quote_name, unquote

_LINKAGE: Final = frozenset({"private", "internal", "available_externally", "linkonce", "weak", "common", "appending",
                      "extern_weak", "linkonce_odr", "weak_odr", "external"})
_PREEMPTION: Final = frozenset({"dso_local", "dso_preemptable"})
_VISIBILITY: Final = frozenset({"default", "hidden", "protected"})
_DLL: Final = frozenset({"dllimport", "dllexport"})
_LINKAGE_TABLES: Final = (_LINKAGE, _PREEMPTION, _VISIBILITY, _DLL)
_COMDAT_KINDS: Final = frozenset({"any", "exactmatch", "largest", "nodeduplicate", "samesize"})


class ModuleParser(BodyParser):
    """The whole module."""

    def __init__(self, text: str, path: str) -> None:
        super().__init__(text, path)
        self.defined_types: set = set()
        self.comdat_refs: list = []  # (comdat name, token): each must be defined

    def run(self) -> Module:
        mod = self.mod
        mod.named_types = self.named_types
        bodies: list = []
        layout = None
        started = False  # (target and source_filename come before every other entity)
        while True:
            t = self.tok()
            at = self.p
            if t == EOF:
                break
            if t != "target" and t != "source_filename":
                started = True
            if t == "define" or t == "declare":
                self.p += 1
                if t == "declare":
                    while self.tok()[0] == "!" and len(self.tok()) > 1:
                        self.p += 1
                        self.metadata_text(MD_NODE)
                f = self.header(t == "define", at)
                if t == "define":
                    self.expect("{", "'{' opening the function body")
                    bodies.append((f, self.p, self.line, self.ind, self.bol))
                    self.skip_body()
            elif t == "attributes":
                self.attr_group()
            elif t[0] == "@" and len(t) > 1:
                self.global_entity(local_name(t), at)
            elif t[0] == "%" and len(t) > 1:
                self.type_def(local_name(t), at)
            elif t[0] == "$" and len(t) > 1:
                self.p += 1
                self.expect("=")
                self.expect("comdat", "'comdat'")
                k = self.take()
                if k not in _COMDAT_KINDS:
                    self.syntax("a comdat selection kind (any, exactmatch, largest, nodeduplicate, samesize)",
                                at=self.p - 1)
                mod.comdats[local_name(t)] = k
            elif t[0] == "!" and len(t) > 1:
                sp = self.span(at)  # (before the cursor moves: the line's start, no rescan)
                self.p += 1
                self.expect("=", "'=' after the metadata name")
                if t in mod.metadata and t[1].isdigit():
                    self.err(at, "a metadata id not defined before", f"'{t}' (already defined)")
                text = self.metadata_text(MD_DEF if t[1].isdigit() else MD_NAMED)
                prev = mod.metadata.get(t)
                if prev is not None and not t[1].isdigit() and prev != "!{}":
                    # named metadata defined again: LLVM appends the operands
                    text = prev[:-1] + (", " + text[2:] if text != "!{}" else "}")
                else:
                    mod.metadata_spans[t] = sp
                mod.metadata[t] = text
            elif t == "target" and not started:
                self.p += 1
                kind = self.take()
                if kind not in ("datalayout", "triple"):
                    self.syntax("'datalayout' or 'triple'", at=self.p - 1)
                self.expect("=")
                sat = self.p
                s = self.string("a string")
                if kind == "datalayout":
                    layout = (s, sat)
                else:
                    mod.triple = s
            elif t == "source_filename" and not started:
                self.p += 1
                self.expect("=")
                self.string("a string")
            elif t == "module":
                self.p += 1
                self.expect("asm", "'asm'")
                self.string("a string")
            else:
                self.syntax("a top-level entity (define, declare, a global, attributes, metadata)")
        self.globals_known = True
        for name, ty, at, what, rec in self.late_globals:
            gt = self.global_type(name)
            self.rec = rec
            if gt is None:
                self.err(at, "a defined global", f"undefined value '@{quote_name(name)}'")
            elif gt != ty:
                self.err(at, f"'@{quote_name(name)}' to have type {ty}", f"type {gt} (type mismatch in {what})")
        end = (self.p, self.line, self.ind, self.bol)
        for f, p, line, ind, bol in bodies:
            self.p, self.line, self.ind, self.bol = p, line, ind, bol
            self.body(f)
        self.p, self.line, self.ind, self.bol = end
        self.rec = None
        self.check_types()  # (after the bodies: their types are named types too)
        mod.functions.extend(self.implicit)
        mod.globals = self.globals
        self.expand_attrs()
        for i in self.md_refs:
            r = self.toks[i]
            if r not in mod.metadata:
                sp = self.span(i)  # at the number, as opt-19 reports it
                self.err_span(Span(self.path, sp.line, sp.col + 1), "defined metadata", f"undefined metadata '{r}'")
        for cname, cat in self.comdat_refs:
            if cname not in mod.comdats:
                self.err(cat, "a defined comdat", f"undefined comdat '${quote_name(cname)}'")
        if layout is not None:
            mod.data_layout = self.data_layout(layout[0], layout[1])
        self.diag.check()
        return mod

    def string(self, what: str) -> str:
        t = self.tok()
        if t[0] != '"':
            self.syntax(what)
        if len(t) == 1 or t[-1] != '"':
            self.syntax("a closing '\"' on the same line", "unterminated string")
        self.p += 1
        return t[1:-1]

    def skip_body(self) -> None:
        """Step over a function body (the cursor after its ``{``) to after its ``}``."""
        toks = self.toks
        p = self.p
        depth = 1
        while True:
            t = toks[p]
            p += 1
            c = t[0]
            if c == "}":
                depth -= 1
                if depth == 0:
                    break
            elif c == "{":
                depth += 1
            elif c == "\n":
                self.line += 1
                self.ind = len(t)
                self.bol = p
            elif t == EOF:
                self.p = p - 1
                self.syntax("an instruction or '}'")
        self.p = p

    # ------------------------------------------------------------- functions
    def linkage_words(self, words: list, at: int, what: str) -> None:
        """Linkage, preemption, visibility and DLL storage, each at most once and in this
        order (as LLVM reads them); a local linkage keeps the default visibility. ``what``:
        what comes next (for the message on a word out of place)."""
        for table in _LINKAGE_TABLES:
            t = self.tok()
            if t in table:
                words.append(t)
                self.p += 1
        t = self.tok()
        for kind, table in zip(("linkage", "preemption specifier", "visibility", "DLL storage class"),
                               _LINKAGE_TABLES):
            if t in table:
                if any(w in table for w in words):
                    self.syntax(what, f"a second {kind} '{t}'")
                self.syntax(what, f"{kind} '{t}' out of order (linkage, preemption, visibility, DLL storage)")
        if ("private" in words or "internal" in words) and ("hidden" in words or "protected" in words):
            self.syntax("the default visibility on a symbol of local linkage",
                        f"'{next(w for w in words if w in ('hidden', 'protected'))}'", at)

    def header(self, define: bool, at: int) -> Function:
        words: list = []
        cc = None
        lat = self.p
        self.linkage_words(words, lat, "a return type")
        link = next((w for w in words if w in _LINKAGE), None)
        if link is not None:
            if link in ("common", "appending"):
                self.syntax("a linkage that a function may have", f"'{link}'", lat)
            if define and link == "extern_weak":
                self.syntax("a linkage that a function definition may have", f"'{link}'", lat)
            if not define and link not in ("external", "extern_weak"):
                self.syntax("external or extern_weak linkage on a function declaration", f"'{link}'", lat)
        t = self.tok()
        if t in CALLING_CONVENTIONS:
            cc = t
            words.append(t)
            self.p += 1
        elif t == "cc":
            self.p += 1
            cc = f"cc {self.uint('a calling convention number')}"
            words.append(cc)
        rat = self.p
        ret_attrs = self.attributes("ret")
        words.extend(ret_attrs)
        rat = self.p
        ret = self.parse_type("a type")
        self.check_attr_types(ret_attrs, ret, rat)
        if ret is LABEL or ret is METADATA:
            self.syntax("a function return type", f"type {ret}", rat)
        nat = self.p
        t = self.take()
        if t[0] != "@" or len(t) == 1:
            self.syntax("a function name (@name)", at=nat)
        name = local_name(t)
        fspan = self.span(nat)
        self.rec = "@" + name
        f = Function(name, cc, ret, [], frozenset(), not define, [], fspan, self.mod, (), tuple(words), False)
        self.expect("(", "'(' opening the parameters")
        slot = 0
        if self.tok() != ")":
            i = 0
            seen: set = set()
            while True:
                if self.accept("..."):
                    f.vararg = True
                    break
                tat = self.p
                ty = self.parse_type()
                pattrs = self.attributes("param")
                # (their types: patterns/ir/verify_attrs.py, every parameter of the file reported together)
                t = self.tok()
                aspan = fspan
                if t[0] == "%" and len(t) > 1:
                    pname = local_name(t)
                    aspan = self.span(self.p)
                    self.p += 1
                    if pname.isdigit():
                        if int(pname) < slot:
                            self.err(self.p - 1, f"value number %{slot} or greater", f"'%{pname}'")
                        else:
                            slot = int(pname) + 1
                else:
                    pname = str(slot)
                    slot += 1
                if not (is_first_class(ty) or (ty is METADATA and name.startswith("llvm."))) or ty is VOID \
                        or (ty is TOKEN and not name.startswith("llvm.")):
                    self.syntax("a first-class argument type", f"'{ty}'", tat)
                if pname in seen:
                    self.err_span(aspan, f"a new name (%{quote_name(pname)} is already defined)",
                                  f"redefinition of '%{quote_name(pname)}'")
                seen.add(pname)
                pa = frozenset(pattrs)
                f.args.append(Argument(pname, ty, pa, i, f, aspan, "", tuple(pattrs)))
                i += 1
                if not self.accept(","):
                    break
        self.expect(")", "')' closing the parameters")
        # after the parameters, in LLVM's order, each at most once: unnamed_addr, the
        # address space, function attributes, section, partition, comdat, align, gc,
        # prefix, prologue, personality, then (a definition) metadata attachments
        if self.tok() in ("unnamed_addr", "local_unnamed_addr"):
            self.p += 1
        if self.tok() == "addrspace":
            self.addrspace()
        items: list = []
        while self.attribute("fn", items):
            pass
        for w in ("section", "partition"):
            if self.tok() == w:
                self.p += 1
                self.string("a string")
        if self.tok() == "comdat":
            self.comdat_ref(name)
        if self.tok() == "align":
            self.p += 1
            self.align_value()
        if self.tok() == "gc":
            self.p += 1
            self.string("a string")
        for w in ("prefix", "prologue", "personality"):
            if self.tok() == w:
                self.p += 1
                ty = self.parse_type()
                self.value(ty)
        if define:
            while self.tok()[0] == "!" and len(self.tok()) > 1:
                self.p += 1
                self.metadata_text(MD_NODE)
            t = self.tok()
            if t != "{":
                if t[0].isalpha():
                    self.syntax("'{' or a function attribute", f"unknown attribute '{t}'")
                self.syntax("'{' opening the function body")
        f.attr_items = tuple(items)
        if items:
            self.attr_users.append(f)
        if name in self.functions or name in self.globals:
            self.err_span(fspan, "a new global name", f"redefinition of '@{quote_name(name)}'")
        else:
            self.functions[name] = f
            self.mod.functions.append(f)
        self.rec = None
        return f

    def comdat_ref(self, name: str) -> None:
        """``comdat`` or ``comdat($name)`` (the cursor at the word); the comdat must be
        defined somewhere in the module (checked at the end)."""
        at = self.p
        self.p += 1
        if self.accept("("):
            at = self.p
            c = self.take()
            if c[0] != "$" or len(c) == 1:
                self.syntax("a comdat name ($name)", at=at)
            name = local_name(c)
            self.expect(")")
        self.comdat_refs.append((name, at))

    def attr_group(self) -> None:
        self.p += 1
        at = self.p
        t = self.take()
        if t[0] != "#" or not t[1:].isdigit():
            self.syntax("an attribute group (#N)", at=at)
        self.expect("=")
        self.expect("{", "'{' opening the attribute group")
        items: list = []
        while self.tok() != "}":
            if self.tok() == "align":
                self.p += 1
                if self.accept("("):
                    n = self.align_value()
                    self.expect(")")
                else:
                    self.expect("=")
                    n = self.align_value()
                items.append(f"align {n}")
                continue
            if self.tok() == "alignstack" and self.peek2() == "=":
                self.p += 2
                items.append(f"alignstack({self.uint('an alignment')})")
                continue
            if not self.attribute("group", items):
                w = self.tok()
                if w[0].isalpha():
                    self.syntax("an attribute", f"unknown attribute '{w}'")
                self.syntax("an attribute or '}'")
        if not items:
            self.syntax("at least one attribute in the group", "'}'")
        self.p += 1
        n = int(t[1:])
        groups = self.mod.attr_groups
        if n in groups:
            self.err(at, "a new attribute group number", f"redefinition of '#{n}'")
        groups[n] = tuple(items)

    def expand_attrs(self) -> None:
        """``attrs`` of functions and calls from their items, ``#N`` groups expanded
        (groups may be defined after their use; an undefined group is empty, as LLVM 19
        reads it)."""
        groups = self.mod.attr_groups
        for owner in self.attr_users:
            out = set()
            for a in owner.attr_items:
                if a[0] == "#":
                    out.update(groups.get(int(a[1:]), ()))
                else:
                    out.add(a)
            owner.attrs = frozenset(out)
            if type(owner) is Instruction:
                bad = sorted(a for a in out if a.startswith("align "))
                if bad:  # (a function's own alignment; a call has none)
                    self.rec = "@" + owner.block.function.name if owner.block is not None else None
                    self.err_span(owner.span, "function attributes on a call (no alignment)", f"'{bad[0]}'")
        self.rec = None

    def data_layout(self, text: str, at: int) -> Any:
        """The ``DataLayout`` of a ``target datalayout`` string (``at``: its token), or None
        after reporting why it is malformed (at the offending component; at the quote when
        the string has escapes, whose columns would not match)."""
        escaped = "\\" in text
        span = self.span(at)
        try:
            return layout_of_text(unquote('"' + text + '"') if escaped else text)
        except LayoutError as e:
            where = span if escaped else error_span(e, span)
            self.diag.add(ParseError(where, e.message))
            return None

    # ------------------------------------------------------- globals and types
    def global_entity(self, name: str, at: int) -> None:
        self.p += 1
        self.expect("=", "'=' after the global's name")
        words: list = []
        aspace = 0
        self.linkage_words(words, at, "'global', 'constant' or 'alias'")
        # then thread_local, unnamed_addr, the address space, externally_initialized
        if self.tok() == "thread_local":
            self.p += 1
            words.append("thread_local")
            if self.tok() == "(":
                self.skip_brackets()
        if self.tok() in ("unnamed_addr", "local_unnamed_addr"):
            words.append(self.take())
        if self.tok() == "addrspace":
            aspace = self.addrspace()
        if self.tok() == "externally_initialized":
            words.append(self.take())
        kind = self.take()
        span = self.span(at)
        if kind == "alias":
            ty = self.parse_type()
            self.expect(",", "',' after the alias type")
            pat = self.p
            pt = self.parse_type()
            v = self.value(pt, "aliasee")
            if not hasattr(pt, "addrspace"):
                self.syntax("a pointer aliasee", f"type {pt}", pat)
            aspace = getattr(pt, "addrspace", 0)
            g = GlobalVar(name, ty, aspace, tuple(words), span, v, "alias")
        elif kind == "global" or kind == "constant":
            tat = self.p
            ty = self.parse_type()
            if not is_first_class(ty) or ty is VOID or ty is LABEL or ty is TOKEN:
                self.syntax("a global variable type", f"type {ty}", tat)
            init = None
            if not ("external" in words or "extern_weak" in words):
                self.rec = "@" + name
                try:
                    init = self.constant(ty) if self.tok()[0] != "@" else self.value(ty, "initializer")
                except BadConstant as e:
                    self.err(e.args[2], e.args[0], e.args[1])
                self.rec = None
            g = GlobalVar(name, ty, aspace, tuple(words), span, init, kind)
            while self.tok() == ",":
                self.p += 1
                t = self.tok()
                if t == "align":
                    self.p += 1
                    self.align_value()
                elif t in ("section", "partition", "code_model"):
                    self.p += 1
                    self.string("a string")
                elif t == "comdat":
                    self.comdat_ref(name)
                elif t[0] == "!" and len(t) > 1:
                    self.p += 1
                    self.metadata_text(MD_NODE)
                elif t in ("no_sanitize_address", "no_sanitize_hwaddress", "sanitize_memtag",
                           "sanitize_address_dyninit"):
                    self.p += 1
                else:
                    self.syntax("a global variable attribute (align, section, comdat, metadata)")
            self.attributes("group")
        elif kind == "ifunc":
            self.syntax("a global variable or alias", "'ifunc' (not modeled)", self.p - 1)
            raise AssertionError
        else:
            self.syntax("'global', 'constant' or 'alias'", at=self.p - 1)
            raise AssertionError
        if name in self.functions or name in self.globals:
            self.err(at, "a new global name", f"redefinition of '@{quote_name(name)}'")
            return
        self.globals[name] = g

    def type_def(self, name: str, at: int) -> None:
        self.p += 1
        self.expect("=", "'=' after the type's name")
        self.expect("type", "'type'")
        nt = self.named_type(name, at)
        if nt.body is not None or name in self.defined_types:
            self.syntax("a new type name", f"redefinition of type '%{quote_name(name)}'", at)
        self.defined_types.add(name)
        if self.accept("opaque"):
            return
        t = self.tok()
        if t == "{":
            nt.set_body(self.struct_body(False))
        elif t == "<" and self.peek2() == "{":
            self.p += 1
            nt.set_body(self.struct_body(True))
            self.expect(">")
        else:
            self.syntax("a struct type or 'opaque' (named types other than structs are not modeled)")

    def check_types(self) -> None:
        for name, at in self.type_spans.items():
            if name not in self.defined_types:
                self.err(at, "a defined type", f"undefined type '%{quote_name(name)}'")


def parse(text: str, path: str) -> Module:
    """The module of ``text`` (``path`` names it in messages)."""
    return ModuleParser(text, path).run()


__all__ = ["parse", "ModuleParser", "Constant", "StructType", "PTR"]
