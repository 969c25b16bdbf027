"""LLVM 19's attribute keywords, by the form they take in IR text.

Stage job: the word tables of the IR reader's attribute lists
(``patterns/ir/parser_base.py``): a bare word that is none of these is not an attribute
(LLVM 19's parser rejects it); string attributes (``"key"``, ``"key"="value"``) are
always accepted and kept as written. The lists are LLVM 19's ``Attributes.td``
keywords plus the memory words its parser still reads and upgrades (``readnone``,
``argmemonly``, ...).
"""

from __future__ import annotations

from typing import Final

# attributes that are a bare word
ENUM_ATTRS: Final = frozenset({
    "allocalign", "allocptr", "alwaysinline", "builtin", "cold", "convergent",
    "coro_only_destroy_when_complete", "coro_elide_safe", "dead_on_unwind",
    "disable_sanitizer_instrumentation", "fn_ret_thunk_extern", "hot", "hybrid_patchable",
    "immarg", "inreg", "inlinehint", "jumptable", "minsize", "mustprogress", "naked", "nest",
    "noalias", "nobuiltin", "nocallback", "nocapture", "nocf_check", "noduplicate", "nofree",
    "noimplicitfloat", "noinline", "nomerge", "noprofile", "norecurse", "noredzone", "noreturn",
    "nosanitize_bounds", "nosanitize_coverage", "nosync", "noundef", "nounwind", "nonlazybind",
    "nonnull", "null_pointer_is_valid", "optforfuzzing", "optdebug", "optnone", "optsize",
    "presplitcoroutine", "readnone", "readonly", "returned", "returns_twice", "safestack",
    "sanitize_address", "sanitize_hwaddress", "sanitize_memtag", "sanitize_memory",
    "sanitize_numerical_stability", "sanitize_thread", "shadowcallstack", "signext",
    "skipprofile", "speculatable", "speculative_load_hardening", "ssp", "sspreq", "sspstrong",
    "strictfp", "swiftasync", "swifterror", "swiftself", "uwtable", "willreturn", "writable",
    "writeonly", "zeroext",
    # memory words LLVM 19's parser reads and upgrades to memory(...)
    "argmemonly", "inaccessiblememonly", "inaccessiblemem_or_argmemonly",
})
# attributes with one integer in parentheses (``align`` has its own forms)
INT_ATTRS: Final = frozenset({"alignstack", "dereferenceable", "dereferenceable_or_null"})
# attributes with a type in parentheses
TYPE_ATTRS: Final = frozenset({"byval", "byref", "sret", "preallocated", "inalloca", "elementtype"})
# attributes with a structured argument list, kept as their tokens' text
PAREN_ATTRS: Final = frozenset({"allockind", "allocsize", "memory", "nofpclass", "range", "vscale_range",
                                "initializes"})
# the words that end an attribute list without being one (the header's own words)
ALL_ATTR_WORDS: Final = ENUM_ATTRS | INT_ATTRS | TYPE_ATTRS | PAREN_ATTRS | {"align"}

# LLVM 19's attribute kinds (llvm/include/llvm/IR/Attributes.td) that are ParamAttr and/or
# RetAttr but not FnAttr: in a function's or call's attribute list, or in an ``attributes #N``
# group (the parser reads groups as function attributes), each is "does not apply to
# functions". ``align`` is absent: in those positions it is the function's alignment;
# ``readnone``/``readonly``/``writeonly`` too: on a function LLVM 19 reads them as
# ``memory(...)`` (checked against /usr/lib/llvm-19/include/llvm/IR/Attributes.td).
NON_FN_ATTRS: Final = frozenset({
    "allocalign", "allocptr", "byref", "byval", "dead_on_unwind", "dereferenceable",
    "dereferenceable_or_null", "elementtype", "immarg", "inalloca", "initializes", "inreg", "nest",
    "noalias", "nocapture", "nofpclass", "nonnull", "noundef", "range", "returned",
    "signext", "sret", "swiftasync", "swifterror", "swiftself", "writable", "zeroext"})
# the attribute kinds LLVM 19 lists as ParamAttr (the only ones a parameter, or a call's
# argument, may carry) and as RetAttr (a return value's); string attributes fit anywhere
PARAM_ATTRS: Final = frozenset({
    "align", "alignstack", "allocalign", "allocptr", "byref", "byval", "dead_on_unwind", "dereferenceable",
    "dereferenceable_or_null", "elementtype", "immarg", "inalloca", "initializes", "inreg", "nest", "noalias",
    "nocapture", "nofpclass", "nofree", "nonnull", "noundef", "preallocated", "range", "readnone", "readonly",
    "returned", "signext", "sret", "swiftasync", "swifterror", "swiftself", "writable", "writeonly", "zeroext"})
RET_ATTRS: Final = frozenset({
    "align", "dereferenceable", "dereferenceable_or_null", "inreg", "noalias", "nofpclass", "nonnull", "noundef",
    "range", "signext", "zeroext"})
