"""Printers for uniformity results: opt-19's ``print<uniformity>`` text and JSON.

``format_llvm`` reproduces LLVM 19's layout byte for byte (including its
"CYCLES ASSSUMED DIVERGENT:" spelling), so LLVM's own CHECK lines run on it; the
one liberty: LLVM lists divergent arguments in hash-set order, we list them in
argument order. ``to_json`` gives every value with its verdict and reason chain.
"""

from __future__ import annotations

import gc
from typing import Any

from patterns.ir.core import TERMINATORS
from patterns.uniformity.explain import cause, describe_value
from patterns.uniformity.results import FunctionUniformity, UniformityInfo

_MARK = "  DIVERGENT: "
_BLANK = "             "


def _inst_text(inst: Any) -> str:
    """The instruction text indented by two spaces (``Instruction._text``, made by the
    first read of ``text`` unless the parser kept the source line)."""
    t = inst._text
    if t is None:
        inst.text
        t = inst._text
    return t


def _arg_text(a: Any) -> str:
    return f"{a.type} {a.ref}"


def format_function(fu: FunctionUniformity) -> str:
    fn = fu.function
    out = [f"UniformityInfo for function '{fn.name}':\n"]
    if not fu.divergent and not fu.divergent_term_blocks and not fu.divergent_exit_cycles:
        out.append("ALL VALUES UNIFORM\n")
        return "".join(out)
    div_args = [a for a in fn.args if a in fu.divergent]
    if div_args:
        out.append("DIVERGENT ARGUMENTS:\n")
        for a in div_args:
            out.append(f"{_MARK}{_arg_text(a)}\n")
    name = lambda b: b.slot  # noqa: E731
    if fu.assumed_divergent:
        out.append("CYCLES ASSSUMED DIVERGENT:\n")
        for c in fu.assumed_divergent:
            out.append(f"  {c.describe(name)}\n")
    if fu.divergent_exit_cycles:
        out.append("CYCLES WITH DIVERGENT EXIT:\n")
        for c in fu.divergent_exit_cycles:
            out.append(f"  {c.describe(name)}\n")
    # The hot loop (one line per instruction): two pieces per line go straight into
    # one list: the newline ending the line before together with this line's mark, and
    # the instruction's ``_text`` (indented by two spaces). (Measured: faster than three
    # pieces per line, or than building the pieces with C-level maps per block.)
    div = fu.divergent
    div_terms = fu.divergent_term_blocks
    add = out.append
    ext = out.extend
    nl_mark = "\n" + _MARK
    nl_blank = "\n" + _BLANK
    terminators = TERMINATORS
    for b in fn.blocks:
        # (opt prints a named block's name as it is, quotes left out: 'BLOCK entry block')
        add(f"\nBLOCK {b.slot if b.name.isdigit() else b.name}\nDEFINITIONS")
        insts = b.instructions
        term = insts[-1] if insts else None
        if term is not None and term.opcode in terminators:
            insts = insts[:-1]
        else:
            term = None
        for inst in insts:
            t = inst._text  # kept from the source or printed before, else printed now
            if t is None:
                t = _inst_text(inst)
            ext((nl_mark if inst in div else nl_blank, t))
        if term is not None:
            t = term._text
            if t is None:
                t = _inst_text(term)
            ext(("\nTERMINATORS\n", _MARK if b in div_terms else _BLANK, t, "\nEND BLOCK\n"))
        else:
            add("\nTERMINATORS\nEND BLOCK\n")
    return "".join(out)


def format_llvm(info: UniformityInfo) -> str:
    gc_was_enabled = gc.isenabled()
    gc.disable()  # many short strings, no cycles: skip collector passes over the AST
    try:
        return "".join(format_function(f) for f in info.functions)
    finally:
        if gc_was_enabled:
            gc.enable()


def function_json(fu: FunctionUniformity) -> dict:
    """Every argument and instruction with its verdict. A divergent one carries its
    ``cause`` (the last step: kind, detail, and ``from``, the value it came from) and
    ``why``, the chain of values from the source to it (``--why`` words every step;
    following ``from`` links gives the same chain with details)."""
    fn = fu.function
    values = []
    chains: dict[int, list[str]] = {}

    def chain(v: Any) -> list[str]:
        # iterative, memoised: each value's chain is its parent's plus itself
        todo = []
        cur = v
        while cur is not None and id(cur) not in chains:
            c = cause(fu, cur)
            todo.append((cur, c))
            cur = c[1] if c is not None else None
        base = chains.get(id(cur), []) if cur is not None else []
        for val, c in reversed(todo):
            base = base + [c[0].value] if c is not None else []
            chains[id(val)] = base
        return chains[id(v)]

    def add(entry: dict, v: Any, divergent: bool) -> None:
        if divergent:
            c = cause(fu, v)
            assert c is not None
            step, parent = c
            entry["cause"] = {**step.to_json(), "from": describe_value(parent) if parent is not None else None}
            entry["why"] = chain(v)
        values.append(entry)

    for a in fn.args:
        d = a in fu.divergent
        add({"value": a.ref, "kind": "argument", "divergent": d}, a, d)
    for b in fn.blocks:
        term = b.terminator
        for inst in b.instructions:
            if inst is term:
                d = b in fu.divergent_term_blocks
                entry = {"value": f"terminator of block {b.slot}", "kind": "terminator", "block": b.slot,
                         "text": inst.text, "divergent": d}
            else:
                d = inst in fu.divergent
                entry = {"value": inst.ref if inst.name is not None else None, "kind": "instruction",
                         "block": b.slot, "text": inst.text, "divergent": d}
                if inst in fu.uniform_override:
                    entry["always_uniform"] = True
            add(entry, inst, d)
    name = lambda b: b.slot  # noqa: E731
    return {
        "function": fn.name,
        "values": values,
        "divergent_terminator_blocks": [b.slot for b in fn.blocks if b in fu.divergent_term_blocks],
        "cycles_assumed_divergent": [c.describe(name) for c in fu.assumed_divergent],
        "cycles_with_divergent_exit": [c.describe(name) for c in fu.divergent_exit_cycles],
    }


def format_json(info: UniformityInfo, path: str) -> str:
    """``to_json`` as text: deterministic (sorted keys), one line per value."""
    import json  # here: the default (llvm) format does not need it at start-up

    data = to_json(info, path)
    out = ["{", f'  "file": {json.dumps(data["file"])},', '  "functions": [']
    for i, fn in enumerate(data["functions"]):
        out.append("    {")
        for key in ("function", "divergent_terminator_blocks", "cycles_assumed_divergent", "cycles_with_divergent_exit"):
            out.append(f"      {json.dumps(key)}: {json.dumps(fn[key])},")
        out.append('      "values": [')
        vals = fn["values"]
        for j, v in enumerate(vals):
            out.append("        " + json.dumps(v, sort_keys=True) + ("," if j + 1 < len(vals) else ""))
        out.append("      ]")
        out.append("    }" + ("," if i + 1 < len(data["functions"]) else ""))
    out.append("  ]")
    out.append("}")
    return "\n".join(out) + "\n"


def to_json(info: UniformityInfo, path: str) -> dict:
    return {"file": path, "functions": [function_json(f) for f in info.functions]}
