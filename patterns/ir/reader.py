"""The IR front end's entry: LLVM IR text -> ``Module``, by the one reader of LLVM 19's textual IR.

Stage job: text -> ``Module`` (functions, basic blocks, instructions with resolved
operands, CFG edges, globals, named types, metadata kept as text), or one clear
``file:line:col`` error per problem found, all the semantic problems of a file reported
together (``ErrorList``; a syntax error stops the parse, as in LLVM). The reader is a
hand-written lexer (``patterns/ir/lexer.py``: one compiled regular expression over the
whole text) and a recursive descent over its tokens, written as LLVM's LLParser is:
``patterns/ir/parser_module.py`` (module level) over ``parser_body`` (function bodies),
``parser_insts`` (each opcode's operands), ``parser_calls`` (calls, labels, trailing
items), ``parser_metadata`` (metadata as LLVM reads it), ``parser_values`` (operands,
constants) and ``parser_base`` (cursor, messages, types, attributes). Then
``patterns/ir/verify.py`` checks the rules of LLVM's verifier the analyses rely on. ``patterns/ir/ir.lark`` documents the
syntax; it is on no parse path.
"""

from __future__ import annotations

from pathlib import Path

from tdgen.errors import ParseError, Span, TdgenError, expected

from patterns.ir.core import Module


def parse_module(text: str, path: str = "<input>", intrinsic_immargs: str = "") -> Module:
    """Parse LLVM IR text. Raises ``ParseError`` (one problem) or ``ErrorList``.
    ``intrinsic_immargs``: the immarg table of the target's own intrinsics (its text, in
    patterns/ir/intrinsic_immargs.py's format; ``target_immargs(target)`` gives it), which
    calls are checked against besides the target-independent table, as LLVM's verifier
    knows its targets' intrinsics; "" for none."""
    import gc

    from patterns.ir.parser_base import Syntax
    from patterns.ir.parser_module import parse

    enabled = gc.isenabled()
    gc.disable()  # collection passes over the growing AST would only cost time here
    try:
        try:
            mod = parse(text, path)
            mod.source = text
        except Syntax as e:
            raise e.args[0] from None
        from patterns.ir.verify import verify_module

        verify_module(mod, intrinsic_immargs)
        if enabled and gc.get_freeze_count() == 0:
            # Move every tracked object to the oldest generation (two list splices, no
            # traversal): otherwise the next young collections of the caller each walk
            # the whole new AST once (about 0.2 s for a 50k-instruction kernel). The
            # objects stay collectable; full collections still see them.
            gc.freeze()
            gc.unfreeze()
        return mod
    except TdgenError:
        raise
    except RecursionError:
        raise ParseError(Span(path), expected("types and constants nested at most about a thousand levels deep",
                                              "deeper nesting")) from None
    finally:
        if enabled:
            gc.enable()


def parse_file(path, intrinsic_immargs: str = "") -> Module:
    """Parse the IR file at ``path`` (unreadable or non-UTF-8 files are one ``ParseError``;
    ``intrinsic_immargs`` as for ``parse_module``)."""
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as e:
        raise ParseError(Span(str(path)), expected("a readable IR file", f"'{e.strerror}'")) from None
    except UnicodeDecodeError as e:
        raise ParseError(Span(str(path)), expected("UTF-8 text", f"byte {e.start}")) from None
    return parse_module(text, str(path), intrinsic_immargs)
