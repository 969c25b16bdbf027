"""tdgen's Python API: load a target, analyse and select LLVM IR, explain one value.

The names here are re-exported at the package root (``import tdgen``) and are the
stable, documented interface (README "Python API"):

- ``load_target(name_or_path) -> Target``: a bundled target's name, a target folder or a
  spec ``.py`` file anywhere on disk, loaded and checked (``tdgen.spec.load_target``;
  ``SpecError``/``ErrorList`` on a bad spec);
- ``analyze(ir, target) -> Uniformity``: the uniformity analysis (what ``tdgen
  divergence`` prints), one ``Verdict`` per value, keyed ``"@fn:%v"``, with its reason
  chain;
- ``select(ir, target) -> Selection``: instruction selection (what ``tdgen isel``
  prints), one ``Selected`` per IR value that produced machine instructions, keyed
  ``"@fn:%v"``: ``.opcode``, ``.regclass``, ``.file`` ("scalar"/"vector"), ``.pattern``
  and ``.source`` (the pattern's spec location);
- ``explain(ir, target, value) -> Explanation``: the patterns tried for one value in
  matcher order, each with its first failing check, and the value's divergence chain
  (what ``tdgen explain`` prints: ``str(explanation)``).

``ir`` is LLVM IR text, or a path (``pathlib.Path``, or a ``str`` naming an existing
file). ``target`` is what ``load_target`` returns, or anything it accepts. Bad IR raises
``tdgen.errors.ParseError`` (``path:line:col: expected X, found Y``); a node no pattern
selects raises ``tdgen.errors.VerifyError`` from ``select`` (all such nodes of a function
together; ``select(..., errors="collect")`` keeps the functions that do select and puts
the others' errors in ``Selection.errors``).

Execution (``run``/``check_run``, issue 22) is not part of this module yet: they will be
re-exported from ``patterns.run`` once it exists (see ``tdgen/__init__.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping, Union

from ..errors import Diagnostics, Span, TdgenError, UsageError, expected
from .trace import Attempt, Explanation, explain_module

IR = Union[str, Path]
TargetLike = Any  # a Target (load_target), or a name / folder / spec path

__all__ = ["load_target", "analyze", "select", "explain", "Selection", "Selected", "Uniformity", "Verdict",
           "Explanation", "Attempt", "read_ir", "parse_value"]


def load_target(name_or_path: str | Path):
    """The checked Target of a bundled target name, a target folder or a spec file."""
    from ..target_cache import load_target as cached

    return cached(str(name_or_path))


def _target(target: TargetLike):
    if isinstance(target, (str, Path)):
        return load_target(target)
    return target


def read_ir(ir: IR) -> tuple[str, str]:
    """(text, path shown in messages) of ``ir``: a Path or an existing file's name is
    read; any other string is the IR text itself (shown as ``<string>``)."""
    if isinstance(ir, Path) or (isinstance(ir, str) and "\n" not in ir and len(ir) < 4096 and ir.strip()
                                and Path(ir).is_file()):
        p = Path(ir)
        if not p.is_file():
            raise UsageError(Span(str(p)), expected("an existing LLVM IR file", f"no file '{p}'"))
        try:
            return p.read_text(), str(p)
        except (OSError, UnicodeDecodeError) as e:
            raise UsageError(Span(str(p)), expected("a readable UTF-8 text file", type(e).__name__)) from None
    if not isinstance(ir, str):
        raise UsageError(None, expected("LLVM IR text or a path", type(ir).__name__))
    if "\n" not in ir and ir.strip().endswith((".ll", ".bc")) and " " not in ir.strip():
        raise UsageError(Span(ir.strip()), expected("an existing LLVM IR file", f"no file '{ir.strip()}'"))
    return ir, "<string>"


def _module(ir: IR, target=None):
    """The parsed module of ``ir``, its calls checked against the immarg tables of
    ``target``'s intrinsics (a loaded target; None: the generic tables only)."""
    from patterns.ir import parse_module
    from patterns.ir.intrinsic_immargs import target_immargs

    text, path = read_ir(ir)
    return parse_module(text, path, target_immargs(target))


def parse_value(value: str) -> tuple[str | None, str]:
    """``"@fn:%v"`` or ``"%v"`` -> (function name or None, value name without ``%``)."""
    fn_name, val = None, value
    if value.startswith("@") and ":" in value:
        fn_name, val = value[1:].split(":", 1)
    if not val.startswith("%") or len(val) < 2 or fn_name == "":
        raise UsageError(None, expected("a value like %name or @function:%name", repr(value)))
    return fn_name, val[1:]


def _lookup(table: Mapping[str, Any], value: str, what: str):
    """``table[value]`` for a ``"@fn:%v"`` key, or the one ``"@fn:%v"`` a bare ``"%v"``
    names; a KeyError naming what exists otherwise."""
    if value in table:
        return table[value]
    fn_name, name = parse_value(value)
    if fn_name is None:
        hits = [k for k in table if k.endswith(":%" + name)]
        if len(hits) == 1:
            return table[hits[0]]
        if len(hits) > 1:
            raise KeyError(f"{value!r} is defined in several functions ({', '.join(sorted(hits))}): "
                           f"write @function:%{name}")
    known = ", ".join(list(table)[:12]) + (" ..." if len(table) > 12 else "")
    raise KeyError(f"no {what} {value!r}; known: {known or 'none'}")


# ---------------------------------------------------------------------------------------
# analyze


@dataclass(frozen=True)
class Verdict:
    """The analysis' answer for one value: ``divergent`` and, for a divergent value,
    ``chain``: the reason steps from a source of divergence to the value
    (``patterns.uniformity.explain.Step``: ``kind``, ``value``, ``detail``)."""

    value: str
    divergent: bool
    chain: tuple = ()

    @property
    def uniform(self) -> bool:
        return not self.divergent

    def reason(self) -> str:
        """The chain as text, one numbered step a line (empty for a uniform value)."""
        return "\n".join(f"  {i}. {s.format()}" for i, s in enumerate(self.chain, 1))


class Uniformity(Mapping[str, Verdict]):
    """Every named value (arguments and instructions) of every defined function,
    keyed ``"@fn:%v"``; ``uniformity["%v"]`` works when one function defines ``%v``."""

    def __init__(self, verdicts: dict[str, Verdict], info: Any):
        self._verdicts = verdicts
        self.info = info  # the engine's UniformityInfo

    def __getitem__(self, value: str) -> Verdict:
        return _lookup(self._verdicts, value, "value")

    def __iter__(self) -> Iterator[str]:
        return iter(self._verdicts)

    def __len__(self) -> int:
        return len(self._verdicts)

    def is_divergent(self, value: str) -> bool:
        return self[value].divergent


def analyze(ir: IR, target: TargetLike, *, llvm19_compat: bool = False) -> Uniformity:
    """The uniformity analysis of every defined function (``tdgen divergence``)."""
    from patterns.ir.datalayout import use_target_layout
    from patterns.uniformity.analysis import analyze as run_analysis

    t = _target(target)
    module = use_target_layout(_module(ir, t), getattr(t, "data_layout", ""))
    info = run_analysis(module, t, llvm19_compat=llvm19_compat)
    verdicts: dict[str, Verdict] = {}
    for fu in info.functions:
        fn = fu.function
        values = list(fn.args) + [i for b in fn.blocks for i in b.instructions if i.name is not None]
        for v in values:
            key = f"@{fn.name}:{v.ref}"
            steps = tuple(info.why(v)) if info.is_divergent(v) else ()
            verdicts[key] = Verdict(key, bool(info.is_divergent(v)), steps)
    return Uniformity(verdicts, info)


# ---------------------------------------------------------------------------------------
# select


@dataclass(frozen=True)
class Selected:
    """What one IR value was selected to. ``instrs``: every machine instruction made for
    it (``patterns.select.mir.MachineInstr``), in block order; the properties describe
    the one that defines the value (the last one that is not a ``COPY``, else the last)."""

    value: str
    instrs: tuple
    source: str | None = None  # "path:line:col" of the pattern in the spec

    @property
    def main(self):
        real = [mi for mi in self.instrs if mi.opcode != "COPY"]
        return (real or list(self.instrs))[-1]

    @property
    def opcode(self) -> str:
        return self.main.opcode

    @property
    def regclass(self) -> str | None:
        return self.main.regclass

    @property
    def file(self) -> str | None:
        return self.main.file

    @property
    def pattern(self) -> str | None:
        return self.main.pattern

    @property
    def opcodes(self) -> list[str]:
        return [mi.opcode for mi in self.instrs]


@dataclass
class Selection(Mapping[str, Selected]):
    """Selected machine code: ``functions`` (``patterns.select.isel.SelectedFunction``
    per defined function, source order) and, keyed ``"@fn:%v"``, what each IR value was
    selected to. ``errors``: with ``errors="collect"``, function name -> the
    cannot-select errors of a function that did not select (then absent from
    ``functions``). ``target``: the target selected for (its instructions' implicit
    operands are printed by ``mir()``)."""

    functions: list
    values: dict[str, Selected]
    errors: dict[str, list] = field(default_factory=dict)
    target: object = None

    def __getitem__(self, value: str) -> Selected:
        return _lookup(self.values, value, "selected value")

    def __iter__(self) -> Iterator[str]:
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)

    def mir(self) -> str:
        """The MIR text ``tdgen isel`` prints for these functions: LLVM's MIR syntax, one
        document per function (``patterns.select.mir.print_llvm_mir``, the command's printer)."""
        from patterns.select.mir import print_llvm_mir

        return "".join(print_llvm_mir(f, self.target) for f in self.functions)


def pattern_sources(target) -> dict[str, str]:
    """Pattern record name -> its location in the spec (``path:line:col``)."""
    from patterns.select.matcher import build_table

    out: dict[str, str] = {}
    for p in build_table(target).patterns:
        if p.span is not None and p.record not in out:
            out[p.record] = str(p.span)
    return out


def select_functions(module, target, *, collect: bool = False) -> tuple[list, dict[str, list]]:
    """(selected functions, errors by function name): each function selected on its
    own, so one function that does not select does not hide the others (with
    ``collect``; otherwise every function's errors are raised together)."""
    from patterns.pipeline import select_function
    from patterns.select.matcher import build_table

    table = build_table(target)
    funcs, errors = [], {}
    all_diags = Diagnostics()
    for fn in module.functions:
        if fn.is_declaration:
            continue
        diags = Diagnostics()
        try:
            sf, _dags = select_function(fn, target, None, table, diags)
        except TdgenError as e:
            diags.add(e)
            sf = None
        if diags.errors:
            errors[fn.name] = list(diags.errors)
            for e in diags.errors:
                all_diags.add(e)
            continue
        funcs.append(sf)
    if not collect:
        all_diags.check()
    return funcs, errors


def select(ir: IR, target: TargetLike, *, errors: str = "raise") -> Selection:
    """Instruction selection of every defined function (``tdgen isel``)."""
    if errors not in ("raise", "collect"):
        raise ValueError(f"errors: expected 'raise' or 'collect', found {errors!r}")
    t = _target(target)
    funcs, errs = select_functions(_module(ir, t), t, collect=errors == "collect")
    return Selection(funcs, selection_values(funcs, pattern_sources(t)), errs, t)


def selection_values(funcs, sources: Mapping[str, str] | None = None) -> dict[str, Selected]:
    """``"@fn:%v"`` -> Selected for every IR value the machine instructions name."""
    values: dict[str, list] = {}
    for f in funcs:
        for mi in f.instrs():
            if mi.ir:
                values.setdefault(f"@{f.name}:{mi.ir}", []).append(mi)
    out = {}
    for key, mis in values.items():
        sel = Selected(key, tuple(mis))
        out[key] = Selected(key, sel.instrs, (sources or {}).get(sel.pattern or ""))
    return out


# ---------------------------------------------------------------------------------------
# explain


def explain(ir: IR, target: TargetLike, value: str, *, function: str | None = None) -> Explanation:
    """The explain trace of one value (``tdgen explain``). ``value``: ``"@fn:%v"`` or
    ``"%v"`` (``function`` names the function when several define ``%v``)."""
    from patterns.ir import parse_module
    from patterns.ir.intrinsic_immargs import target_immargs

    t = _target(target)
    text, path = read_ir(ir)
    return explain_module(parse_module(text, path, target_immargs(t)), t, value, function=function, path=path)


def run(ir: IR, target: TargetLike, **options) -> list:
    """Execute the kernels of ``ir`` (text or a path) on one engine: ``patterns.run.api.run``
    with its options (``engine="reference"|"selected"|"llc"``, ``wave``, ``workgroup``,
    ``groups``, ``seed``, ``inputs``); one ``Result`` (every store of every work-item) per
    kernel."""
    from patterns.run.api import run as run_module

    t = _target(target)
    return run_module(_module(ir, t), target=t, **options)


def check_run(ir: IR, target: TargetLike, **options):
    """Run the IR reference and the selected code (and llc's, where it applies) on
    ``trials`` random launches: ``patterns.run.api.check_run``'s ``CheckReport`` (options
    ``wave``, ``workgroup``, ``groups``, ``trials``, ``engine_names``)."""
    import tempfile

    from patterns.run.api import check_run as check_module

    text, path = read_ir(ir)
    if path != "<string>":
        return check_module(path, target=_target(target), **options)
    # the llc engine compiles the IR file itself: text gets a temporary one
    with tempfile.TemporaryDirectory(prefix="tdgen-check-run-") as d:
        f = Path(d) / "input.ll"
        f.write_text(text)
        return check_module(str(f), target=_target(target), **options)
