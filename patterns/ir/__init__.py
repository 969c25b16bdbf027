"""The engine's LLVM IR: the data, the readers that parse it, the printer, CFG orders and cycles.

- ``core``: types, constants and other values, globals, ``Module``, the syntax's word
  tables; ``function``: ``Instruction``, ``Argument``, ``BasicBlock``, ``Function``
  (native classes of the compiled build); ``spelling``: names and numbers as IR text
  writes them;
- ``reader``: ``parse_module``/``parse_file``, the one reader of LLVM 19's textual IR:
  ``lexer`` (tokens) and the recursive descent ``parser_module`` over ``parser_body``,
  ``parser_insts``, ``parser_values``, ``parser_base`` (and ``attributes``, LLVM 19's
  attribute words); then ``verify`` (SSA dominance); ``ir.lark`` documents the syntax;
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
