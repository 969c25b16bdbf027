"""LLVM 19's DataLayout: a ``target datalayout`` string -> the sizes and alignments of IR types.

Stage job: the layout string of a module (``target datalayout = "..."``), or the default
layout of the target a module is compiled for when it has none (``opt -mtriple`` gives
such a module its target machine's layout), -> a frozen ``DataLayout`` answering what
the printer (``patterns/ir/printer.py``) needs: the ABI and preferred alignment of a
type (the ``align N`` opt prints for a load, store or alloca written without one), its
size in bits, store size and alloc size.

``parse_layout(text, span)`` reads the string as LLVM 19's ``DataLayout::parseSpecifier``
does, starting from LLVM's defaults (``i1:8 i8:8 i16:16 i32:32 i64:32:64 f16:16 f32:32
f64:64 f128:128 v64:64 v128:128 a:0:64 p0:64:64:64``): ``e``/``E``,
``p[AS]:size:abi[:pref[:idx]]``, ``iN``/``fN``/``vN:abi[:pref]``, ``a:abi[:pref]``, ``S``,
``n``, ``ni:``, ``A``, ``G``, ``P``, ``F{i,n}``, ``m:`` -- the same checks in the same
order, with what LLVM leaves unchecked left unchecked (the components after those a
specification reads; the characters after ``e``, ``E`` or ``s``). A malformed string is a ``ParseError``
``path:line:col: expected ..., found ...`` at the offending component (``span`` is where
the string's opening quote is). Layouts are cached by string (one object per string).
The readers keep a module's last ``target datalayout`` line, as LLVM does (LLVM also
wants it before the first function; that is not checked here).

The types LLVM's tables do not list follow its rules: an integer width takes the entry
of the smallest listed wider integer, else of the largest; a float width not listed,
and a vector size not listed, is naturally aligned (store size rounded up to a power of
two); an address space not listed takes address space 0's pointer; arrays align as
their element; a struct aligns as the largest of its members (1 when packed or empty),
and at least as the ``a`` specification (a packed struct's ABI alignment is 1, its
preferred one still the ``a`` preference); its size includes LLVM's padding.
"""

from __future__ import annotations

from tdgen.errors import ParseError, Span, expected

from patterns.ir.core import ArrayType, FloatType, IntType, LabelType, PtrType, StructType, Type, VectorType

__all__ = ["DataLayout", "LayoutError", "parse_layout", "layout_of_text", "error_span", "use_target_layout",
           "DEFAULT_LAYOUT"]

_U32 = (1 << 32) - 1
_U64 = (1 << 64) - 1
_DIGITS = frozenset("0123456789")
_MANGLING = {"e": "ELF", "l": "GOFF", "o": "MachO", "m": "Mips", "w": "WinCOFF", "x": "WinCOFFX86", "a": "XCOFF"}


class LayoutError(ValueError):
    """A malformed layout string: ``message`` (``expected ..., found ...``) about the
    component at ``offset`` (0-based, into the string)."""

    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset
        self.message = message


def _pow2_ceil(n: int) -> int:
    p = 1
    while p < n:
        p <<= 1
    return p


def _is_pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


class DataLayout:
    """One parsed layout (frozen; equal when LLVM's ``DataLayout::operator==`` says so:
    the fields, not the string). Alignments are in bytes, sizes in bits.

    ``ints``/``floats``/``vectors``: ``(bits, abi, pref)`` entries sorted by width;
    ``pointers``: ``(addrspace, bits, abi, pref, index_bits)`` sorted by address space
    (address space 0 always present); ``aggregate``: ``(abi, pref)`` of the ``a``
    specification; ``stack_align``/``function_ptr_align``: bytes or None;
    ``function_ptr_independent``: ``Fi`` (True) or ``Fn``; ``mangling``: ``""`` or the
    name of the scheme (``ELF``, ...); ``native_ints``: the ``n`` widths;
    ``non_integral``: the ``ni`` address spaces."""

    _FIELDS = ("big_endian", "ints", "floats", "vectors", "pointers", "aggregate", "native_ints", "stack_align",
               "function_ptr_align", "function_ptr_independent", "program_addrspace", "alloca_addrspace",
               "globals_addrspace", "mangling", "non_integral")
    __slots__ = ("text",) + _FIELDS + ("_abi", "_pref")

    text: str
    big_endian: bool
    ints: tuple
    floats: tuple
    vectors: tuple
    pointers: tuple
    aggregate: tuple
    native_ints: tuple
    stack_align: int | None
    function_ptr_align: int | None
    function_ptr_independent: bool
    program_addrspace: int
    alloca_addrspace: int
    globals_addrspace: int
    mangling: str
    non_integral: tuple

    def __init__(self, text: str, **fields) -> None:
        set_ = object.__setattr__
        set_(self, "text", text)
        for name in self._FIELDS:
            set_(self, name, fields[name])
        set_(self, "_abi", {})  # memo: type -> ABI alignment (an answer cache, not state)
        set_(self, "_pref", {})

    def __setattr__(self, name, value):
        raise AttributeError(f"cannot assign to field '{name}' of a frozen DataLayout")

    def __delattr__(self, name):
        raise AttributeError(f"cannot delete field '{name}' of a frozen DataLayout")

    def _key(self) -> tuple:
        return tuple(getattr(self, f) for f in self._FIELDS)

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return self is other or self._key() == other._key()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"DataLayout({self.text!r})"

    def __reduce__(self):
        return (layout_of_text, (self.text,))

    # ------------------------------------------------------------------ pointers
    def pointer(self, addrspace: int) -> tuple:
        """The ``(addrspace, bits, abi, pref, index_bits)`` entry of an address space
        (address space 0's when the layout does not list it)."""
        for p in self.pointers:
            if p[0] == addrspace:
                return p
        return self.pointers[0]

    def pointer_bits(self, addrspace: int) -> int:
        return self.pointer(addrspace)[1]

    # ---------------------------------------------------------------- alignments
    def abi_align(self, t: Type) -> int:
        """``DataLayout::getABITypeAlign``: what ``load``/``store`` without ``align`` get."""
        a = self._abi.get(t)
        if a is None:
            a = self._abi[t] = self._align(t, True)
        return a

    def pref_align(self, t: Type) -> int:
        """``DataLayout::getPrefTypeAlign``: what ``alloca`` without ``align`` gets."""
        a = self._pref.get(t)
        if a is None:
            a = self._pref[t] = self._align(t, False)
        return a

    def _align(self, t: Type, abi: bool) -> int:
        k = 1 if abi else 2
        if isinstance(t, IntType):
            ints = self.ints
            for e in ints:
                if e[0] >= t.bits:
                    return e[k]
            return ints[-1][k]
        if isinstance(t, FloatType):
            bits = t.bits
            for e in self.floats:
                if e[0] == bits:
                    return e[k]
            return _pow2_ceil(bits // 8)
        if isinstance(t, PtrType):
            return self.pointer(t.addrspace)[k + 1]
        if isinstance(t, LabelType):
            return self.pointer(0)[k + 1]
        if isinstance(t, VectorType):
            bits = self.size_bits(t)
            for e in self.vectors:
                if e[0] == bits:
                    return e[k]
            return _pow2_ceil((bits + 7) // 8)
        if isinstance(t, ArrayType):
            return self._align(t.elem, abi)
        if isinstance(t, StructType):
            if t.packed and abi:
                return 1
            return max(self.aggregate[k - 1], self._struct_layout(t)[1])
        return 1  # unsized types (void, token, metadata): LLVM asserts

    # --------------------------------------------------------------------- sizes
    def size_bits(self, t: Type) -> int:
        """``DataLayout::getTypeSizeInBits`` (vectors packed, structs with padding)."""
        if isinstance(t, IntType):
            return t.bits
        if isinstance(t, FloatType):
            return t.bits
        if isinstance(t, PtrType):
            return self.pointer(t.addrspace)[1]
        if isinstance(t, LabelType):
            return self.pointer(0)[1]
        if isinstance(t, VectorType):
            return self.size_bits(t.elem) * t.count
        if isinstance(t, ArrayType):
            return self.alloc_size(t.elem) * 8 * t.count
        if isinstance(t, StructType):
            return self._struct_layout(t)[0] * 8
        return 0

    def store_size(self, t: Type) -> int:
        """Bytes a store of ``t`` writes (``getTypeStoreSize``)."""
        return (self.size_bits(t) + 7) // 8

    def alloc_size(self, t: Type) -> int:
        """Bytes a value of ``t`` occupies in memory (``getTypeAllocSize``: the store size
        rounded up to the ABI alignment)."""
        a = self.abi_align(t)
        return (self.store_size(t) + a - 1) // a * a

    def _struct_layout(self, t: StructType) -> tuple[int, int]:
        """``StructLayout``: (size in bytes with the end padding, the members' alignment)."""
        size = 0
        align = 1
        for e in t.elems:
            a = 1 if t.packed else self.abi_align(e)
            size = (size + a - 1) // a * a + self.alloc_size(e)
            align = max(align, a)
        return (size + align - 1) // align * align, align


# ============================================================================ parsing

_DEFAULTS = {
    "ints": ((1, 1, 1), (8, 1, 1), (16, 2, 2), (32, 4, 4), (64, 4, 8)),
    "floats": ((16, 2, 2), (32, 4, 4), (64, 8, 8), (128, 16, 16)),
    "vectors": ((64, 8, 8), (128, 16, 16)),
    "pointers": ((0, 64, 8, 8, 64),),
}


class _Parser:
    """The fields of one layout as ``DataLayout::parseSpecifier`` fills them."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.f: dict = {"big_endian": False, "aggregate": (1, 8), "native_ints": (), "stack_align": None,
                        "function_ptr_align": None, "function_ptr_independent": True, "program_addrspace": 0,
                        "alloca_addrspace": 0, "globals_addrspace": 0, "mangling": "", "non_integral": ()}
        self.tables = {k: list(v) for k, v in _DEFAULTS.items()}

    # ------------------------------------------------------------- components
    def split(self, s: str, off: int, sep: str, within: str) -> tuple[str, int, str, int]:
        """LLVM's checked split: (first, its offset, rest, its offset); a separator must
        have a component on both sides."""
        i = s.find(sep)
        if i < 0:
            return s, off, "", off + len(s)
        first, rest = s[:i], s[i + 1:]
        if not rest:
            raise LayoutError(off + i, expected(f"a component after '{sep}'", f"the end of {within}"))
        if not first:
            raise LayoutError(off + i, expected(f"a component before '{sep}'", f"'{sep}' in {within}"))
        return first, off, rest, off + i + 1

    @staticmethod
    def number(s: str, off: int, what: str, limit: int = _U32) -> int:
        """``getInt``: decimal digits only, fitting ``limit`` (LLVM's unsigned)."""
        if not s or not _DIGITS.issuperset(s) or int(s) > limit:
            bits = 64 if limit == _U64 else 32
            found = f"'{s}'" if s else "nothing"
            raise LayoutError(off, expected(f"{what} (a {bits}-bit unsigned decimal number)", found))
        return int(s)

    def in_bytes(self, s: str, off: int, what: str, limit: int = _U32) -> int:
        """``getIntInBytes``: a number of bits, a multiple of 8, as bytes."""
        n = self.number(s, off, what, limit)
        if n % 8:
            raise LayoutError(off, expected(f"{what} that is a whole number of bytes (a multiple of 8 bits)",
                                            f"'{s}'"))
        return n // 8

    def addrspace(self, s: str, off: int) -> int:
        n = self.number(s, off, "an address space")
        if n >= 1 << 24:
            raise LayoutError(off, expected("an address space below 2^24", f"'{s}'"))
        return n

    # ------------------------------------------------------------------ run
    def run(self) -> DataLayout:
        desc, pos = self.text, 0
        while desc:
            spec, spec_off, desc, pos = self.split(desc, pos, "-", "the layout string")
            within = f"'{spec}'"
            tok, tok_off, rest, rest_off = self.split(spec, spec_off, ":", within)
            if tok == "ni":
                self.non_integral(rest, rest_off, within)
                continue
            c, tok, tok_off = tok[0], tok[1:], tok_off + 1
            if c in "eEs":
                if c != "s":  # 's' is deprecated and ignored, as by LLVM
                    self.f["big_endian"] = c == "E"
            elif c == "p":
                self.pointer_spec(tok, tok_off, rest, rest_off, within)
            elif c in "ivfa":
                self.align_spec(c, tok, tok_off, rest, rest_off, within)
            elif c == "n":
                widths = []
                while True:
                    w = self.number(tok, tok_off, "a native integer width")
                    if w == 0:
                        raise LayoutError(tok_off, expected("a non-zero native integer width", "'0'"))
                    widths.append(w)
                    if not rest:
                        break
                    tok, tok_off, rest, rest_off = self.split(rest, rest_off, ":", within)
                self.f["native_ints"] = self.f["native_ints"] + tuple(widths)
            elif c == "S":
                a = self.in_bytes(tok, tok_off, "a stack alignment", _U64)
                if a and not _is_pow2(a):
                    raise LayoutError(tok_off, expected("a stack alignment of 0 or a power of two bytes", f"'{tok}'"))
                self.f["stack_align"] = a or None
            elif c == "F":
                if not tok or tok[0] not in "in":
                    raise LayoutError(tok_off, expected("'i' or 'n' after 'F' (the function pointer alignment type)",
                                                        f"'{tok[:1]}'" if tok else "the end of " + within))
                self.f["function_ptr_independent"] = tok[0] == "i"
                a = self.in_bytes(tok[1:], tok_off + 1, "a function pointer alignment", _U64)
                if a and not _is_pow2(a):
                    raise LayoutError(tok_off + 1, expected("a function pointer alignment of 0 or a power of two "
                                                            "bytes", f"'{tok[1:]}'"))
                self.f["function_ptr_align"] = a or None
            elif c in "PAG":
                key = {"P": "program_addrspace", "A": "alloca_addrspace", "G": "globals_addrspace"}[c]
                self.f[key] = self.addrspace(tok, tok_off)
            elif c == "m":
                if tok:
                    raise LayoutError(tok_off, expected("':' after 'm'", f"'{tok}'"))
                if not rest:
                    raise LayoutError(rest_off, expected("a mangling mode after 'm'", "the end of " + within))
                if len(rest) > 1 or rest not in _MANGLING:
                    raise LayoutError(rest_off, expected("a mangling mode (one of e, l, o, m, w, x, a)", f"'{rest}'"))
                self.f["mangling"] = _MANGLING[rest]
            else:
                raise LayoutError(spec_off, expected("a layout specification (e, E, p, i, f, v, a, n, ni, S, F, P, "
                                                     "A, G or m)", within))
        f = self.f
        for k, v in self.tables.items():
            f[k] = tuple(v)
        return DataLayout(self.text, **f)

    def non_integral(self, rest: str, off: int, within: str) -> None:
        spaces = list(self.f["non_integral"])
        while True:
            tok, tok_off, rest, off = self.split(rest, off, ":", within)
            n = self.number(tok, tok_off, "a non-integral address space")
            if n == 0:
                raise LayoutError(tok_off, expected("a non-integral address space other than 0", "'0'"))
            spaces.append(n)
            if not rest:
                break
        self.f["non_integral"] = tuple(spaces)

    def pointer_spec(self, tok: str, tok_off: int, rest: str, rest_off: int, within: str) -> None:
        aspace = self.number(tok, tok_off, "an address space") if tok else 0
        if aspace >= 1 << 24:
            raise LayoutError(tok_off, expected("an address space below 2^24", f"'{tok}'"))
        if not rest:
            raise LayoutError(rest_off, expected("a pointer size after ':'", "the end of " + within))
        tok, tok_off, rest, rest_off = self.split(rest, rest_off, ":", within)
        size = self.number(tok, tok_off, "a pointer size")
        if size == 0:
            raise LayoutError(tok_off, expected("a non-zero pointer size", "'0'"))
        if not rest:
            raise LayoutError(rest_off, expected("a pointer ABI alignment after the size", "the end of " + within))
        tok, tok_off, rest, rest_off = self.split(rest, rest_off, ":", within)
        abi = self.in_bytes(tok, tok_off, "a pointer ABI alignment")
        if not _is_pow2(abi):
            raise LayoutError(tok_off, expected("a pointer ABI alignment of a power of two bytes", f"'{tok}'"))
        index = size
        pref, pref_tok, pref_off = abi, tok, tok_off
        if rest:
            tok, tok_off, rest, rest_off = self.split(rest, rest_off, ":", within)
            pref, pref_tok, pref_off = self.in_bytes(tok, tok_off, "a pointer preferred alignment"), tok, tok_off
            if not _is_pow2(pref):
                raise LayoutError(tok_off, expected("a pointer preferred alignment of a power of two bytes",
                                                    f"'{tok}'"))
            if rest:
                tok, tok_off, rest, rest_off = self.split(rest, rest_off, ":", within)
                index = self.number(tok, tok_off, "an index size")
                if index == 0:
                    raise LayoutError(tok_off, expected("a non-zero index size", "'0'"))
        if pref < abi:
            raise LayoutError(pref_off, expected(f"a preferred alignment of at least the ABI alignment ({abi * 8})",
                                                 f"'{pref_tok}'"))
        if index > size:
            raise LayoutError(tok_off, expected(f"an index size of at most the pointer size ({size})", f"'{tok}'"))
        entry = (aspace, size, abi, pref, index)
        table = self.tables["pointers"]
        for i, p in enumerate(table):
            if p[0] >= aspace:
                if p[0] == aspace:
                    table[i] = entry
                else:
                    table.insert(i, entry)
                break
        else:
            table.append(entry)

    def align_spec(self, c: str, tok: str, tok_off: int, rest: str, rest_off: int, within: str) -> None:
        size = self.number(tok, tok_off, "a size in bits") if tok else 0
        if c == "a" and size != 0:
            raise LayoutError(tok_off, expected("no size (or 0) after 'a'", f"'{tok}'"))
        size_tok, size_off = tok, tok_off
        if not rest:
            raise LayoutError(rest_off, expected("an ABI alignment after ':'", "the end of " + within))
        tok, tok_off, rest, rest_off = self.split(rest, rest_off, ":", within)
        abi = self.in_bytes(tok, tok_off, "an ABI alignment")
        if c != "a" and abi == 0:
            raise LayoutError(tok_off, expected("a non-zero ABI alignment", f"'{tok}'"))
        if abi >= 1 << 16:
            raise LayoutError(tok_off, expected("an ABI alignment below 2^16 bytes", f"'{tok}'"))
        if abi and not _is_pow2(abi):
            raise LayoutError(tok_off, expected("an ABI alignment of a power of two bytes", f"'{tok}'"))
        if c == "i" and size == 8 and abi != 1:
            raise LayoutError(tok_off, expected("an ABI alignment of 8 bits for i8", f"'{tok}'"))
        pref, pref_tok, pref_off = abi, tok, tok_off
        if rest:
            tok, tok_off, rest, rest_off = self.split(rest, rest_off, ":", within)
            pref, pref_tok, pref_off = self.in_bytes(tok, tok_off, "a preferred alignment"), tok, tok_off
        if pref >= 1 << 16:
            raise LayoutError(pref_off, expected("a preferred alignment below 2^16 bytes", f"'{pref_tok}'"))
        if pref and not _is_pow2(pref):
            raise LayoutError(pref_off, expected("a preferred alignment of a power of two bytes", f"'{pref_tok}'"))
        abi, pref = abi or 1, pref or 1  # LLVM's assumeAligned: 0 is one byte
        if size >= 1 << 24:
            raise LayoutError(size_off, expected("a size below 2^24 bits", f"'{size_tok}'"))
        if pref < abi:
            raise LayoutError(pref_off, expected(f"a preferred alignment of at least the ABI alignment ({abi * 8})",
                                                 f"'{pref_tok}'"))
        if c == "a":
            self.f["aggregate"] = (abi, pref)
            return
        table = self.tables[{"i": "ints", "f": "floats", "v": "vectors"}[c]]
        entry = (size, abi, pref)
        for i, e in enumerate(table):
            if e[0] >= size:
                if e[0] == size:
                    table[i] = entry
                else:
                    table.insert(i, entry)
                break
        else:
            table.append(entry)


_CACHE: dict[str, DataLayout] = {}


def layout_of_text(text: str) -> DataLayout:
    """The layout of ``text`` (one object per string); ``LayoutError`` when malformed."""
    dl = _CACHE.get(text)
    if dl is None:
        dl = _Parser(text).run()
        if len(_CACHE) > 256:
            _CACHE.clear()
        _CACHE[text] = dl
    return dl


def parse_layout(text: str, span: Span | None = None) -> DataLayout:
    """The layout of ``text`` (one object per string). A malformed string raises
    ``ParseError`` at its offending component: ``span`` is the position of the string's
    opening quote in its file (without it, the error's span is the string itself,
    ``<data layout>:1:col``)."""
    try:
        return layout_of_text(text)
    except LayoutError as e:
        raise ParseError(error_span(e, span), e.message) from None


def error_span(e: LayoutError, span: Span | None) -> Span:
    """Where a ``LayoutError`` is in the file: the column of its component when ``span``
    (the opening quote) is given."""
    if span is None:
        return Span("<data layout>", 1, e.offset + 1)
    return Span(span.path, span.line, span.col + 1 + e.offset)


def use_target_layout(module, text: str):
    """Give ``module`` (a ``patterns.ir.core.Module``) the layout ``text`` -- its
    target's, ``Target.data_layout`` -- when it has none of its own, as ``opt -mtriple``
    does; returns the module. Call it before printing (instruction texts are kept)."""
    if module.data_layout is None:
        module.data_layout = parse_layout(text)
    return module


DEFAULT_LAYOUT = parse_layout("")  # LLVM's: what a module without a layout and without a target gets
