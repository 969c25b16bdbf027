"""patterns/ir/attributes.py's NON_FN_ATTRS, PARAM_ATTRS and RET_ATTRS against LLVM 19's own Attributes.td: every
attribute kind that LLVM lists without FnAttr, except the ones its parser still reads on
functions (``readnone``/``readonly``/``writeonly`` become ``memory(...)``) and ``align``
(a function's alignment)."""

from __future__ import annotations

import re

from llvm_tools import require_llvm_headers
from patterns.ir.attributes import ALL_ATTR_WORDS, NON_FN_ATTRS, PARAM_ATTRS, RET_ATTRS


def test_non_function_attributes_are_llvm_19s():
    td = (require_llvm_headers() / "llvm" / "IR" / "Attributes.td").read_text()
    kinds = {m.group(1): {x.strip() for x in m.group(2).split(",") if x.strip()}
             for m in re.finditer(r'def\s+\w+\s*:\s*\w+Attr<"(\w+)",\s*\[([^\]]*)\]', td)}
    assert len(kinds) > 80
    not_fn = {k for k, where in kinds.items() if where and "FnAttr" not in where}
    assert NON_FN_ATTRS == not_fn - {"align", "readnone", "readonly", "writeonly"}


def test_parameter_and_return_attributes_are_llvm_19s():
    td = (require_llvm_headers() / "llvm" / "IR" / "Attributes.td").read_text()
    kinds = {m.group(1): {x.strip() for x in m.group(2).split(",") if x.strip()}
             for m in re.finditer(r'def\s+\w+\s*:\s*\w+Attr<"(\w+)",\s*\[([^\]]*)\]', td)}
    assert PARAM_ATTRS == {k for k, where in kinds.items() if "ParamAttr" in where}
    assert RET_ATTRS == {k for k, where in kinds.items() if "RetAttr" in where}
    assert PARAM_ATTRS <= ALL_ATTR_WORDS and RET_ATTRS <= PARAM_ATTRS
