"""``tdgen explain FILE.ll --target T --value %v [--function F]``: why a value selects what it selects.

``--value`` is ``%v`` or ``@fn:%v``; a name defined in several functions needs the function
(``@fn:%v`` or ``--function``), as for ``tdgen divergence --why``. For a function argument
it prints the argument's divergence and reason chain (it enters the DAG as a CopyFromReg;
no pattern selects it).

Finds the DAG node computing ``%v`` (after the combines), prints it with its divergence
and the reason chain for a divergent node, then the target's custom selection steps
(``CustomSelect``, C++ Select cases tried before the table) that handle its opcode, each
with what it selects or why it declines, then every pattern rooted at its opcode in the
order the matcher tries them, each with the first failing check
(e.g. ``UniformBinFrag<add> predicate failed: t12 is divergent, via operand t9 <- %tid``)
or ``MATCHED`` for the one that is selected (later ones, and the whole table after a
custom step selected the node, are never tried).
"""

from __future__ import annotations

import sys

from .common import load_ir, load_isel_target


def configure(parser):
    parser.add_argument("file", metavar="FILE.ll", help="LLVM IR file, or - for stdin")
    parser.add_argument("--target", "-t", required=True, help="target name or spec path")
    parser.add_argument("--value", required=True,
                        help="IR value: %%name, or @function:%%name when several functions define %%name")
    parser.add_argument("--function", help="function name (default: the one defining the value)")


def run(args) -> int:
    from ..api.trace import explain_module

    target = load_isel_target(args.target)
    module = load_ir(args.file, target)
    sys.stdout.write(explain_module(module, target, args.value, function=args.function, path=args.file).text)
    return 0
