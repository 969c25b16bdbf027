"""The line forms the direct IR builder reads: its regular expressions, dispatch tables, type spellings.

Stage job: the syntax of ``patterns/ir/reader_direct.py`` and ``patterns/ir/direct_body.py``
(the common simple forms of LLVM IR; anything else is left to the exact path). The
expressions are compiled through ``patterns/ir/direct_re.py``'s cache; the type of a
spelling is made once (``parse_type``) and spellings whose printed text differs are
noted (``ODD_TYPES``), so a line containing one is printed rather than kept.
"""

from __future__ import annotations

from typing import Final

from patterns.ir.core import CALLING_CONVENTIONS, MAX_INT_BITS, PTR, VOID, FloatType, PtrType, int_type
from patterns.ir.direct_re import compile_cached, write_cache
from patterns.ir.opcodes import INT_BINOPS, INT_CASTS, INT_PREDICATE_ORDER, alternation

_N: Final = r'[-a-zA-Z$._][-a-zA-Z$._0-9]*|[0-9]+'
_T: Final = r'i[0-9]+|ptr(?: addrspace\([0-9]+\))?|float|double|half|bfloat'
# An operand is two groups: a local value's name without the '%' (names are matched
# loosely here: a reference to a name that cannot be defined, such as %1a, is simply
# never found and the builder gives up), or a constant token. _VN: the same, no groups.
_CONST: Final = r'-?[0-9]+|true|false|undef|poison|null|zeroinitializer'
_V: Final = r'(?:%([-a-zA-Z$._0-9]+)|(' + _CONST + r'))'
_VN: Final = r'%[-a-zA-Z$._0-9]+|' + _CONST
# Every instruction's expression starts with the same four groups: 1 the indentation,
# 2 always empty (a placeholder that keeps the numbering of the groups below), 3 a
# result name that is not a number, 4 a numbered result name (both without the '%').
# Instructions without a result use _PV, whose groups 3 and 4 always match the empty
# string (so a line giving them a name does not match at all). Each expression ends
# with ')$', closing the group opened here.
_P: Final = r'([ \t]*)()(?:(?:%(?:([-a-zA-Z$._][-a-zA-Z$._0-9]*)|([0-9]+)) = )?'
_PV: Final = r'([ \t]*)()()()(?:'

LABEL_LINE: Final = compile_cached(r'[ \t]*([-a-zA-Z$._0-9]+):$')
# one regular expression per opcode family, each for the whole line; the opcode itself
# comes from the dispatch table (the expression only checks it)
BIN: Final = compile_cached(_P + r'(?:' + alternation(INT_BINOPS) + r')((?: (?:nuw|nsw|exact|disjoint))*) ('
                  + _T + r') ' + _V + r', ' + _V + r')$')
ICMP: Final = compile_cached(_P + r'icmp (' + alternation(INT_PREDICATE_ORDER) + r') (' + _T + r') ' + _V + r', ' + _V + r')$')
SELECT: Final = compile_cached(_P + r'select i1 ' + _V + r', (' + _T + r') ' + _V + r', (' + _T + r') ' + _V + r')$')
PHI: Final = compile_cached(_P + r'phi (' + _T + r') ((?:\[ (?:' + _VN + r'), %(?:' + _N + r') \], )*\[ (?:' + _VN
                  + r'), %(?:' + _N + r') \]))$')
PHI_PAIR: Final = compile_cached(r'\[ ' + _V + r', %(' + _N + r') \]')
BR: Final = compile_cached(_PV + r'br (?:label %(' + _N + r')|i1 ' + _V + r', label %(' + _N + r'), label %(' + _N
                 + r')))$')
RET: Final = compile_cached(_PV + r'ret (?:void|(' + _T + r') ' + _V + r'))$')
CALL: Final = compile_cached(_P + r'((?:tail |musttail |notail )?call) (void|' + _T + r') @(' + _N + r')\((.*)\)'
                   r'((?: #[0-9]+)*))$')
CALL_ARG: Final = compile_cached(r'(' + _T + r')((?: (?:noundef|inreg|zeroext|signext))*) ' + _V + r'$')
LOAD: Final = compile_cached(_P + r'load (' + _T + r'), (' + _T + r') ' + _V + r'(?:, align ([0-9]+))?)$')
STORE: Final = compile_cached(_PV + r'store (' + _T + r') ' + _V + r', (' + _T + r') ' + _V + r'(?:, align ([0-9]+))?)$')
GEP: Final = compile_cached(_P + r'getelementptr((?: (?:inbounds|nuw|nusw))*) (' + _T + r'), (' + _T + r') ' + _V
                  + r'((?:, (?:' + _T + r') (?:' + _VN + r'))*))$')
GEP_IDX: Final = compile_cached(r', (' + _T + r') ' + _V)
CAST: Final = compile_cached(_P + r'(?:' + alternation(INT_CASTS) + r')((?: (?:nuw|nsw|nneg))*) ('
                   + _T + r') ' + _V + r' to (' + _T + r'))$')
UNREACHABLE: Final = compile_cached(_PV + r'unreachable)$')
HEADER: Final = compile_cached(r'(define|declare) ((?:[a-z_][a-z_0-9]* )*)(void|' + _T + r') @(' + _N
                     + r')\((.*)\)((?: #[0-9]+)*)( \{)?$')
# attribute groups of plain words and strings ("key" or "key"="value"); 'align' is a
# keyword of the grammar, anything with parentheses is left to the exact path
ATTR_GROUP: Final = compile_cached(r'attributes #([0-9]+) = \{((?: (?:[a-zA-Z_][a-zA-Z_0-9.]*|"[^"\\]*"(?:="[^"\\]*")?))*) \}$')
ATTR_ITEM: Final = compile_cached(r'[a-zA-Z_][a-zA-Z_0-9.]*|"[^"\\]*"(?:="[^"\\]*")?')
PARAM: Final = compile_cached(r'(' + _T + r')((?: (?:noundef|inreg|zeroext|signext|noalias|nonnull))*)'
                    r'(?: %(' + _N + r'))?$')
# Kept source text: a line whose text is provably what the printer (patterns/ir/printer.py)
# prints for it keeps its (stripped) source text as ``Instruction.text`` instead of
# being re-printed. The regular expressions above only admit single spaces between
# tokens; what else opt (and the printer) may spell differently is excluded: lines
# containing a type written differently from its printed form (``ptr addrspace(0)`` is
# printed as ``ptr``, ``i032`` as ``i32``: ODD_TYPES, filled by ``parse_type``); calls
# with ``#N`` attribute references (renumbered) or of numbered globals; every line of a
# function that has any numbered value or block (opt renumbers them; a line can only
# name values and blocks of its own function); and, checked per token, constants not in
# their canonical spelling, flags out of canonical order, a missing or non-canonical
# ``align``. tests/test_ir.py compares every kept text with the printer's output.
ODD_TYPES: Final[list] = []  # type spellings seen whose printed text differs
CANON_BINFLAGS: Final = frozenset({"", " nuw", " nsw", " nuw nsw", " exact", " disjoint"})
CANON_CASTFLAGS: Final = frozenset({"", " nuw", " nsw", " nuw nsw", " nneg"})
CANON_GEPFLAGS: Final = frozenset({"", " inbounds", " nusw", " nuw", " inbounds nuw", " nusw nuw"})
MODULE_LINE: Final = compile_cached(r'(?:target (?:datalayout|triple)|source_filename) = "[^"\\]*"$')
write_cache()

# opcode -> (family, regular expression, the opcode string shared by all its
# instructions). Families 0-6 always have a result, 7 (call) may have one, 8 and up never
# do; 10 and up are the terminators.
DISPATCH: Final = {op: (0, BIN, op) for op in INT_BINOPS}
DISPATCH.update({op: (6, CAST, op) for op in INT_CASTS})
DISPATCH.update({"icmp": (1, ICMP, "icmp"), "phi": (2, PHI, "phi"), "select": (3, SELECT, "select"),
                  "load": (4, LOAD, "load"), "getelementptr": (5, GEP, "getelementptr"),
                  "call": (7, CALL, "call"), "tail": (7, CALL, "call"), "musttail": (7, CALL, "call"),
                  "notail": (7, CALL, "call"), "store": (8, STORE, "store"), "br": (10, BR, "br"),
                  "ret": (11, RET, "ret"), "unreachable": (12, UNREACHABLE, "unreachable")})
# the same by the first three characters of the opcode ("br " and "or " with their
# space); where two opcodes share them (add, addrspacecast) the first one listed above
# wins and the other takes the general way (its line does not match the expression)
DISPATCH3: Final[dict] = {}
for _op, _d in DISPATCH.items():
    DISPATCH3.setdefault((_op + " ")[:3], _d)

# words allowed before the return type of a header (checked against lark in the tests)
HEADER_WORDS: Final = CALLING_CONVENTIONS | {"dso_local", "internal", "private", "hidden", "noundef",
                                              "local_unnamed_addr", "unnamed_addr"}
INT_BINOP_FLAGS: Final = {
           "add": ("nuw", "nsw"), "sub": ("nuw", "nsw"), "mul": ("nuw", "nsw"), "shl": ("nuw", "nsw"),
           "udiv": ("exact",), "sdiv": ("exact",), "lshr": ("exact",), "ashr": ("exact",),
           "or": ("disjoint",), "and": (), "xor": (), "urem": (), "srem": (),
       }
INT_CAST_FLAGS: Final = {"trunc": ("nuw", "nsw"), "zext": ("nneg",)}
_FLOATS: Final = ("float", "double", "half", "bfloat")
NO_FLAGS: Final[frozenset] = frozenset()

TYPES: Final[dict] = {"void": VOID, "ptr": PTR}


def parse_type(s: str):
    """The type spelled ``s`` (made once per spelling); ``ValueError`` for an integer width
    LLVM rejects (the exact path words that error)."""
    t = TYPES.get(s)
    if t is None:
        if s[0] == "i":
            bits = int(s[1:])
            if not 1 <= bits <= MAX_INT_BITS:
                raise ValueError(s)  # not ours to report: the exact path words the error
            t = int_type(bits)
        elif s in _FLOATS:
            t = FloatType(s)
        else:  # ptr addrspace(N)
            t = PtrType(int(s[14:-1]))
        TYPES[s] = t
        if str(t) != s:
            ODD_TYPES.append(s)
    return t


def plain_types(line: str) -> bool:
    """No type spelling of ODD_TYPES in ``line`` (a substring test: a false alarm only
    means the line is printed)."""
    for t in ODD_TYPES:
        if t in line:
            return False
    return True
