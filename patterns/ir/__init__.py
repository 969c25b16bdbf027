"""The engine's LLVM IR: the data, the readers that parse it, the printer, CFG orders and cycles.

- ``core``: types, constants and other values, globals, ``Module``, the syntax's word
  tables; ``function``: ``Instruction``, ``Argument``, ``BasicBlock``, ``Function``
  (native classes of the compiled build); ``spelling``: names and numbers as IR text
  writes them;
- ``reader``: ``parse_module``/``parse_file``, which try the direct builder
  (``reader_direct`` with ``direct_body``, ``direct_blocks``, ``direct_syntax``,
  ``direct_values``, ``direct_re``) and otherwise take the exact path that words every
  error (``reader_lines`` or ``exact_lark`` + ``exact_tree`` -> ``exact_raw`` records ->
  ``reader_exact`` over ``exact_operands`` and ``exact_values``; then ``verify``);
- ``printer``: instructions and functions as ``opt-19 -S`` prints them, with the
  alignments of ``datalayout`` (LLVM 19's DataLayout: a module's ``target datalayout``
  string, or its target's); ``cfg``: block orders; ``dominators``: the dominator tree
  and the immediate dominators; ``cycles``: LLVM's cycle info; ``opcodes``: the opcode
  and predicate tables; ``effects``: which instructions have side effects.

The names below are the package's public face. Importing it loads only the data
classes and the entry; the readers are imported by the first parse.
"""

from patterns.ir.core import Constant, GlobalRef, Module, Type
from patterns.ir.function import Argument, BasicBlock, Function, Instruction
from patterns.ir.reader import parse_file, parse_module

__all__ = ["parse_module", "parse_file", "Module", "Function", "BasicBlock", "Instruction", "Argument",
           "Constant", "GlobalRef", "Type"]
