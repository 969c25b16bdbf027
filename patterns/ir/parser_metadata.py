"""The IR reader's metadata layer: every metadata form LLVM 19 reads, checked as its parser checks it, kept as text.

Stage job: for ``patterns/ir/parser_insts.py`` and the layers above it, a metadata value
at the cursor -> its text (tokens joined as opt spaces them; ``!N`` references recorded
for the end-of-module check), after checking the form the position allows:

- ``MD_DEF``: the body of ``!N = ...``: ``[distinct] !{...}`` or a specialized node
  ``[distinct] !DIx(...)``;
- ``MD_NAMED``: the body of ``!name = ...``: ``!{...}`` of ``!N`` references and
  ``!DIExpression(...)`` only;
- ``MD_NODE``: an attachment (``, !dbg !N`` on an instruction, ``!name !N`` on a
  function or global): ``!N``, ``!{...}`` or a specialized node;
- ``MD_ANY``: an operand (``metadata ...`` in a call, a tuple element, a field of a
  specialized node): also ``!"string"`` and a typed constant or global.

Tuple elements are ``null``, metadata, or a typed constant (a value of metadata type is
refused, as LLVM refuses the round trip). The specialized nodes tdgen reads are
LLVM 19's debug-information nodes in ``DI_FIELDS``: each field ``name: value`` once,
of its kind (metadata, string, bounded integer, boolean, DWARF word, flag set), the
required ones present, ``distinct`` where LLVM requires it. Any other specialized
node is refused as not modeled.
"""

from __future__ import annotations

from typing import Final

from patterns.ir.core import METADATA, VOID, MetadataRef, Value
from patterns.ir.parser_base import join_tokens
from patterns.ir.parser_values import ValueParser

MD_ANY: Final = 0
MD_NODE: Final = 1
MD_DEF: Final = 2
MD_NAMED: Final = 3

# field kinds: metadata (null allowed / not), string, unsigned of N bits, signed of N
# bits, boolean, unsigned-or-metadata, signed-or-metadata, DWARF words (their prefix),
# flag sets
_MD: Final = "md"
_MD_NOT_NULL: Final = "md!"
_STR: Final = "str"
_BOOL: Final = "bool"
_LINE: Final = "u32"
_COLUMN: Final = "u16"

# LLVM 19's debug-information nodes, field -> kind; a kind ending in '*' is required
DI_FIELDS: Final[dict[str, dict[str, str]]] = {
    "DILocation": {"line": _LINE, "column": _COLUMN, "scope": "md!*", "inlinedAt": _MD, "isImplicitCode": _BOOL},
    "DILocalVariable": {"name": _STR, "arg": "u16", "scope": "md!*", "file": _MD, "line": _LINE, "type": _MD,
                        "flags": "flags:DIFlag", "align": "u32", "annotations": _MD},
    "DISubprogram": {"scope": _MD, "name": _STR, "linkageName": _STR, "file": _MD, "line": _LINE, "type": _MD,
                     "isLocal": _BOOL, "isDefinition": _BOOL, "scopeLine": _LINE, "containingType": _MD,
                     "virtuality": "word:DW_VIRTUALITY_", "virtualIndex": "u32", "thisAdjustment": "i32",
                     "flags": "flags:DIFlag", "spFlags": "flags:DISPFlag", "isOptimized": _BOOL, "unit": _MD,
                     "templateParams": _MD, "declaration": _MD, "retainedNodes": _MD, "thrownTypes": _MD,
                     "annotations": _MD, "targetFuncName": _STR},
    "DIBasicType": {"tag": "word:DW_TAG_", "name": _STR, "size": "u64|md", "align": "u32",
                    "encoding": "word:DW_ATE_", "flags": "flags:DIFlag"},
    "DICompileUnit": {"language": "word:DW_LANG_*", "file": "md!*", "producer": _STR, "isOptimized": _BOOL,
                      "flags": _STR, "runtimeVersion": "u32", "splitDebugFilename": _STR,
                      "emissionKind": "enum:emission", "enums": _MD, "retainedTypes": _MD, "globals": _MD,
                      "imports": _MD, "macros": _MD, "dwoId": "u64", "splitDebugInlining": _BOOL,
                      "debugInfoForProfiling": _BOOL, "nameTableKind": "enum:nametable",
                      "rangesBaseAddress": _BOOL, "sysroot": _STR, "sdk": _STR},
    "DIFile": {"filename": "str*", "directory": "str*", "checksumkind": "enum:checksum", "checksum": _STR,
               "source": _STR},
    "DISubroutineType": {"flags": "flags:DIFlag", "cc": "word:DW_CC_", "types": "md*"},
    "DILexicalBlock": {"scope": "md!*", "file": _MD, "line": _LINE, "column": _COLUMN},
    "DILexicalBlockFile": {"scope": "md!*", "file": _MD, "discriminator": "u32*"},
    "DIDerivedType": {"tag": "word:DW_TAG_*", "name": _STR, "file": _MD, "line": _LINE, "scope": _MD,
                      "baseType": "md*", "size": "u64|md", "align": "u32", "offset": "u64|md",
                      "flags": "flags:DIFlag", "extraData": _MD, "dwarfAddressSpace": "u32", "annotations": _MD,
                      "ptrAuthKey": "u3", "ptrAuthIsAddressDiscriminated": _BOOL,
                      "ptrAuthExtraDiscriminator": "u16", "ptrAuthIsaPointer": _BOOL,
                      "ptrAuthAuthenticatesNullValues": _BOOL},
    "DISubrange": {"count": "i64|md", "lowerBound": "i64|md", "upperBound": "i64|md", "stride": "i64|md"},
    "DIEnumerator": {"name": "str*", "value": "i128*", "isUnsigned": _BOOL},
    "DILabel": {"scope": "md!*", "name": "str*", "file": _MD, "line": _LINE},
    "DINamespace": {"scope": "md*", "name": _STR, "exportSymbols": _BOOL},
    "DIGlobalVariableExpression": {"var": "md!*", "expr": "md!*"},
}
_ENUMS: Final = {
    "emission": frozenset({"NoDebug", "FullDebug", "LineTablesOnly", "DebugDirectivesOnly"}),
    "nametable": frozenset({"Default", "GNU", "None", "Apple"}),
    "checksum": frozenset({"CSK_MD5", "CSK_SHA1", "CSK_SHA256"}),
}


def _uint(t: str) -> bool:
    return t.isdigit()


class MetadataParser(ValueParser):
    """Metadata values (``metadata_text``) over the values and constants of ``ValueParser``."""

    def metadata_text(self, where: int = MD_ANY) -> str:
        """The metadata value at the cursor, of a form that ``where`` allows, as text."""
        start = self.p
        self.tok()
        self.md_value(where)
        toks = self.toks
        refs = self.md_refs
        i: int = start
        end: int = self.p
        while i < end:
            x = toks[i]
            if len(x) > 1 and x[0] == "!" and x[1].isdigit():
                refs.append(i)
            i += 1
        return join_tokens(toks[start:end])

    def metadata_operand(self) -> Value | None:
        """After ``metadata``: any metadata, or a typed value (kept as its text, not a use)."""
        t = self.tok()
        if t[0] == "!":
            return MetadataRef(self.metadata_text(MD_ANY))
        start = self.p
        ty = self.parse_type()
        if ty is METADATA or ty is VOID:
            self.syntax("a metadata operand", f"a value of type {ty}", start)
        if self.tok()[0] == "%":
            self.operand([], ty, "metadata operand")  # (defined, of its type; not a use)
        else:
            self.value(ty, "metadata operand")
        return MetadataRef(" ".join(x for x in self.toks[start:self.p] if x[0] != "\n"))

    def md_value(self, where: int) -> None:
        t = self.tok()
        distinct = False
        if t == "distinct" and where == MD_DEF:
            distinct = True
            self.p += 1
            t = self.tok()
        if t == "!":
            self.p += 1
            if self.tok() != "{":
                self.syntax("'{' after '!'")
            self.p += 1
            self.md_tuple(where == MD_NAMED)
            return
        if t[0] == "!" and len(t) > 1:
            c = t[1]
            if c.isdigit():
                if where == MD_DEF or distinct:
                    self.syntax("a metadata node ('!{...}' or '!DIx(...)')")
                self.p += 1
                return
            if c == '"':
                if where != MD_ANY:
                    self.syntax("a metadata node ('!{...}', '!N' or '!DIx(...)')")
                if len(t) == 2 or t[-1] != '"':
                    self.syntax("a closing '\"' on the same line", "unterminated string")
                self.p += 1
                return
            if self.toks[self.p + 1] == "(":
                if where == MD_NAMED and t != "!DIExpression":
                    self.syntax("a metadata node reference ('!N') or '!DIExpression(...)'")
                self.specialized(t, distinct)
                return
            self.syntax("metadata", f"'{t}' (not a metadata value)")
        if where == MD_DEF or where == MD_NODE or distinct:
            self.syntax("a metadata node ('!{...}', '!N' or '!DIx(...)')")
        if where == MD_NAMED:
            self.syntax("a metadata node reference ('!N')")
        self.typed_md_value()

    def typed_md_value(self) -> None:
        """A typed constant or global as metadata (``i32 1``, ``ptr @g``)."""
        tat = self.p
        t = self.tok()
        if t == "metadata":
            self.syntax("a metadata operand", "a value of type metadata inside metadata")
        ty = self.parse_type("a metadata operand")
        if ty is VOID or ty is METADATA:
            self.syntax("a metadata operand", f"a value of type {ty}", tat)
        self.value(ty, "metadata operand")

    def md_tuple(self, named: bool) -> None:
        """The elements of ``!{...}`` after the ``{`` (``named``: of named metadata)."""
        if self.tok() == "}":
            self.p += 1
            return
        while True:
            t = self.tok()
            if named:
                if not (t[0] == "!" and len(t) > 1 and (t[1].isdigit() or t == "!DIExpression")):
                    self.syntax("a metadata node reference ('!N') or '!DIExpression(...)'")
                self.md_value(MD_NAMED if t == "!DIExpression" else MD_NODE)
            elif t == "null":
                self.p += 1
            else:
                self.md_value(MD_ANY)
            t = self.tok()
            if t == "}":
                self.p += 1
                return
            if t != ",":
                self.syntax("',' or '}' in the metadata tuple")
            self.p += 1

    # ------------------------------------------------------- specialized nodes
    def specialized(self, t: str, distinct: bool) -> None:
        """``!DIx(...)`` at the cursor (``t`` its name token)."""
        kind = t[1:]
        if kind == "DIExpression":
            self.p += 2
            if self.tok() != ")":
                while True:
                    x = self.tok()
                    if not (_uint(x) or x.startswith("DW_OP_")):
                        self.syntax("a DWARF operation (DW_OP_...) or an unsigned integer")
                    self.p += 1
                    if not self.accept(","):
                        break
            self.expect(")", "')' closing the DIExpression")
            return
        fields = DI_FIELDS.get(kind)
        if fields is None:
            self.syntax("a specialized metadata node tdgen reads (" + ", ".join(sorted(DI_FIELDS)) +
                        ", DIExpression)", f"'{t}' (not modeled)")
            return
        self.p += 2
        seen: set[str] = set()
        values: dict[str, str] = {}
        if self.tok() != ")":
            while True:
                lab = self.tok()
                if not (lab[-1] == ":" and lab[0].isalpha()):
                    self.syntax(f"a field label of {t} ('name:')")
                name = lab[:-1]
                fk = fields.get(name)
                if fk is None:
                    self.syntax(f"a field of {t}", f"'{name}'")
                    return
                if name in seen:
                    self.syntax(f"each field of {t} at most once", f"a second '{name}'")
                seen.add(name)
                self.p += 1
                vat = self.p
                self.md_field(t, name, fk.rstrip("*"))
                values[name] = " ".join(x for x in self.toks[vat:self.p] if x[0] != "\n")
                if not self.accept(","):
                    break
        close = self.p
        self.expect(")", f"',' or ')' in {t}")
        for name, fk in fields.items():
            if fk[-1] == "*" and name not in seen:
                self.syntax(f"the field '{name}' of {t}", "none", close)
        if not distinct:
            if kind == "DICompileUnit":
                self.syntax("'distinct' before !DICompileUnit", f"'{t}'", close)
            if kind == "DISubprogram":
                sp = values.get("spFlags")
                definition = ("DISPFlagDefinition" in sp) if sp is not None else values.get("isDefinition",
                                                                                             "true") == "true"
                if definition:
                    self.syntax("'distinct' before a !DISubprogram that is a definition", f"'{t}'", close)
        if kind == "DIFile" and ("checksumkind" in seen) != ("checksum" in seen):
            self.syntax("'checksumkind' and 'checksum' together on !DIFile", "only one of them", close)

    def md_field(self, node: str, name: str, fk: str) -> None:
        """The value of field ``name`` (of kind ``fk``) at the cursor."""
        t = self.tok()
        what = f"the value of '{name}' in {node}"
        if fk == _MD or fk == _MD_NOT_NULL:
            if t == "null":
                if fk == _MD_NOT_NULL:
                    self.syntax(f"{what}, which cannot be null")
                self.p += 1
                return
            self.md_value(MD_ANY)
            return
        if fk == _STR:
            if t[0] != '"':
                self.syntax(f"a string as {what}")
            if len(t) == 1 or t[-1] != '"':
                self.syntax("a closing '\"' on the same line", "unterminated string")
            self.p += 1
            return
        if fk == _BOOL:
            if t != "true" and t != "false":
                self.syntax(f"'true' or 'false' as {what}")
            self.p += 1
            return
        if fk.endswith("|md"):
            if not (_uint(t) or (t[0] == "-" and _uint(t[1:]))):
                self.md_field(node, name, _MD)
                return
            fk = fk[:-3]
        if fk[0] == "u" or fk[0] == "i":
            bits = int(fk[1:])
            signed = fk[0] == "i"
            neg = t[0] == "-" and _uint(t[1:])
            if not (_uint(t) or (signed and neg)):
                self.syntax(f"{'a signed' if signed else 'an unsigned'} integer as {what}")
            n = int(t)
            lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
            if signed and bits == 128:
                lo, hi = -(1 << 127), (1 << 128) - 1  # (an enumerator's value: any 128-bit integer)
            if not lo <= n <= hi:
                self.syntax(f"{what} from {lo} to {hi}", f"'{t}'")
            self.p += 1
            return
        k, _, arg = fk.partition(":")
        if k == "enum":
            if t not in _ENUMS[arg] and not (arg != "checksum" and _uint(t)):
                self.syntax(f"{what} ({', '.join(sorted(_ENUMS[arg]))})")
            self.p += 1
            return
        if k == "word":
            if not (t.startswith(arg) and len(t) > len(arg)) and not _uint(t):
                self.syntax(f"a {arg}... word or an unsigned integer as {what}")
            self.p += 1
            return
        # flags: FLAG ('|' FLAG)*, each a word with the prefix or an unsigned integer
        while True:
            t = self.tok()
            if not (t.startswith(arg) and len(t) > len(arg)) and not _uint(t):
                self.syntax(f"a {arg}... flag or an unsigned integer in {what}")
            self.p += 1
            if not self.accept("|"):
                return
