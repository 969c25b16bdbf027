"""The IR front end's entry: LLVM IR text -> ``Module``, by the direct builder or the exact path.

Stage job: text -> ``Module`` (functions, basic blocks, instructions with resolved
operands, CFG edges), or one clear ``file:line:col`` error per problem found, all the
problems of a file reported together (``ErrorList``). ``parse_module`` tries two paths:

- the direct builder (``patterns/ir/reader_direct.py``): one pass over the lines of kernels
  written in the common simple forms, building the AST directly; it never reports
  errors, it gives up instead;
- the exact path (``patterns/ir/reader_exact.py``): syntax in ``patterns/ir/ir.lark``
  (lark, LALR(1), contextual lexer: ``patterns/ir/exact_lark.py``) or the line reader
  ``patterns/ir/reader_lines.py`` -> raw records -> ``Resolver``, which numbers unnamed
  values exactly as LLVM does, binds names, checks operand types, builds the CFG and
  reports every error of the file; then ``patterns/ir/verify.py`` checks SSA dominance.

Both give identical ASTs (tests/test_ir.py compares them field by field). The readers
are imported on first use, so parsing simple kernels neither imports the exact path nor
lark.
"""

from __future__ import annotations

from pathlib import Path

from tdgen.errors import ParseError, Span, TdgenError, expected

from patterns.ir.core import Module


def parse_module(text: str, path: str = "<input>", *, fast: bool = True) -> Module:
    """Parse LLVM IR text. Raises ``ParseError`` (one problem) or ``ErrorList``.

    ``fast=True`` tries the direct builder, then the line reader of
    ``patterns/ir/reader_lines.py`` for the common instruction forms (same AST);
    ``fast=False`` parses everything with lark."""
    import gc

    enabled = gc.isenabled()
    gc.disable()  # collection passes over the growing AST would only cost time here
    try:
        mod, verified = _parse_module(text, path, fast)
        if not verified:
            from patterns.ir.verify import verify_dominance

            verify_dominance(mod)
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
    except (IndexError, KeyError, AttributeError, TypeError, ValueError) as e:
        # a construct the front end does not model reached an unchecked path: still a
        # clear input error, never a traceback
        raise ParseError(Span(path), expected("IR within the supported subset",
                                              f"an unsupported construct ({type(e).__name__}: {e})")) from None
    finally:
        if enabled:
            gc.enable()


def _parse_module(text: str, path: str, fast: bool) -> tuple[Module, bool]:
    """The module, and whether its SSA dominance is already verified (the direct
    builder checks it itself and gives up on any violation)."""
    records = None
    if fast:
        from patterns.ir.reader_direct import build_module

        try:
            mod = build_module(text, path)
        except Exception:  # pragma: no cover - a defect of the direct builder: use the exact path
            mod = None
        if mod is not None:
            return mod, True
        from patterns.ir import reader_lines

        records = reader_lines.parse_raw(text, path)
    from patterns.ir.exact_lark import parse_raw_lark
    from patterns.ir.reader_exact import Resolver

    if records is None:
        records = parse_raw_lark(text, path)
    return Resolver(path).run(records), False


def parse_file(path) -> Module:
    """Parse the IR file at ``path`` (unreadable or non-UTF-8 files are one ``ParseError``)."""
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as e:
        raise ParseError(Span(str(path)), expected("a readable IR file", f"'{e.strerror}'")) from None
    except UnicodeDecodeError as e:
        raise ParseError(Span(str(path)), expected("UTF-8 text", f"byte {e.start}")) from None
    return parse_module(text, str(path))
