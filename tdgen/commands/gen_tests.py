"""``tdgen gen-tests TARGET --out DIR``: a FileCheck test per selection pattern of the target.

For each pattern of the target's matcher table (one per record and source DAG; the
commuted variants TableGen adds are the same pattern), ``pattern_kernels`` writes the
pattern's source DAG as LLVM IR twice, in the style of LLVM's ``divergence-driven-*.ll``
tests: a uniform function (a kernel of one of the target's ``uniform_arg_ccs`` calling
conventions, whose arguments are uniform, storing the result) and a divergent one (a
plain function, whose arguments are divergent, returning it). The IR for a DAG node is
its IR instruction (``add``, ``shl``, ``llvm.ctpop`` ...), an intrinsic call for an
``INTRINSIC_WO_CHAIN`` node, or the intrinsic a ``Lowering`` maps to a target node; a
leaf with an immediate predicate gets the first constant from a small candidate list
that the pattern accepts. Each function is selected with tdgen's own engine: the file's
CHECK lines say which instruction the spec selects for the result, in each function
(``CHECK: = OPCODE``). A pattern is written only when one of its two functions selects
it; otherwise the file says why not (no IR form for a node, or which pattern wins), and
so does the summary.

RUN lines: ``llc -mtriple=TRIPLE [-mcpu=CPU] -stop-after=finalize-isel < %s |
FileCheck %s`` (``--triple`` defaults to the target's ``target_prefix``). The files run
under lit or by hand once the user's backend is built; for amdgpu the tests run them
through llc-19 and FileCheck-19. ``--verify-llc LLC --filecheck FC`` runs each file
through them at generation: a function whose CHECK llc does not meet is written
without CHECK lines and with a comment saying what llc selects instead.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UsageError, expected
from ..types import value_type
from .common import add_target_argument, target_argument

# ISD opcode -> IR binary operator
_BINARY = {"ISD::ADD": "add", "ISD::SUB": "sub", "ISD::MUL": "mul", "ISD::AND": "and", "ISD::OR": "or",
           "ISD::XOR": "xor", "ISD::SHL": "shl", "ISD::SRL": "lshr", "ISD::SRA": "ashr", "ISD::SDIV": "sdiv",
           "ISD::UDIV": "udiv", "ISD::SREM": "srem", "ISD::UREM": "urem"}
# ISD opcode -> (intrinsic base name, extra trailing arguments)
_INTRINSIC = {"ISD::CTPOP": ("llvm.ctpop", ""), "ISD::BITREVERSE": ("llvm.bitreverse", ""),
              "ISD::BSWAP": ("llvm.bswap", ""), "ISD::CTLZ": ("llvm.ctlz", ", i1 false"),
              "ISD::CTLZ_ZERO_UNDEF": ("llvm.ctlz", ", i1 true"), "ISD::CTTZ": ("llvm.cttz", ", i1 false"),
              "ISD::CTTZ_ZERO_UNDEF": ("llvm.cttz", ", i1 true"), "ISD::ABS": ("llvm.abs", ", i1 false"),
              "ISD::SMIN": ("llvm.smin", ""), "ISD::SMAX": ("llvm.smax", ""), "ISD::UMIN": ("llvm.umin", ""),
              "ISD::UMAX": ("llvm.umax", ""), "ISD::UADDSAT": ("llvm.uadd.sat", ""),
              "ISD::USUBSAT": ("llvm.usub.sat", ""), "ISD::SADDSAT": ("llvm.sadd.sat", ""),
              "ISD::SSUBSAT": ("llvm.ssub.sat", "")}
# constants tried for a leaf with an immediate predicate, in order
_CANDIDATES = (1, 2, 3, 4, 7, 8, 15, 16, 24, 31, 64, -1, -2, -16, 0, 100, 255, 0x3F, 65, -17, 0x12345, 0x7FFFFFFF)


def configure(parser) -> None:
    add_target_argument(parser)
    parser.add_argument("--out", metavar="DIR", required=True, help="folder for the .ll files (created)")
    parser.add_argument("--triple", default=None, help="llc -mtriple in the RUN lines (default: the target prefix)")
    parser.add_argument("--mcpu", default=None, help="llc -mcpu in the RUN lines (default: none)")
    parser.add_argument("--verify-llc", metavar="LLC", default=None,
                        help="run each file through this llc (and --filecheck) and keep only CHECKs it meets")
    parser.add_argument("--filecheck", metavar="FILECHECK", default="FileCheck", help="FileCheck for --verify-llc")
    parser.add_argument("--only", nargs="+", metavar="RECORD", default=None,
                        help="only these patterns (record names, as tdgen explain and coverage show them)")


class NoIR(Exception):
    """The pattern has a construct this generator cannot write as IR."""


@dataclass
class Kernel:
    """One pattern's two functions: ``text`` (IR, declarations included), the opcode
    each function selects for its result (None: not checked) and ``notes``."""

    pattern: object
    name: str
    text: str = ""
    uniform: str | None = None
    divergent: str | None = None
    notes: list = field(default_factory=list)

    @property
    def written(self) -> bool:
        return self.uniform is not None or self.divergent is not None


class _Writer:
    def __init__(self, target, consts: dict):
        self.target = target
        self.consts = consts
        self.lines: list[str] = []
        self.args: dict[str, str] = {}  # leaf name -> argument
        self.arg_types: list[tuple[str, str]] = []
        self.decls: set[str] = set()
        self.n = 0

    def fresh(self) -> str:
        self.n += 1
        return f"%v{self.n}"

    def value(self, p, ty: str | None, path: str) -> str:
        if p.kind == "int":
            return str(p.value)
        if p.kind == "leaf":
            if p.opcode is not None:
                raise NoIR(f"value-type operand {p.render()} outside sext_inreg")
            t = p.vt or ty
            if t is None:
                raise NoIR(f"leaf {p.render()} of unknown type")
            if p.preds:
                return str(self.consts.get(path, _CANDIDATES[0]))
            key = p.name or f"_{path}"
            if key not in self.args:
                name = f"%{p.name}" if p.name else f"%arg{len(self.args)}"
                self.args[key] = name
                self.arg_types.append((t, name))
            return self.args[key]
        return self.node(p, ty, path)

    def node(self, p, ty: str | None, path: str) -> str:
        t = p.vt or ty
        opc = p.opcode
        kids = p.children
        if opc in ("ISD::Constant", "ISD::TargetConstant") and not kids:
            return str(self.consts.get(path, _CANDIDATES[0]))
        if opc in _BINARY and len(kids) == 2:
            a = self.value(kids[0], t, path + ".0")
            b = self.value(kids[1], t, path + ".1")
            v = self.fresh()
            self.lines.append(f"  {v} = {_BINARY[opc]} {_ir(t)} {a}, {b}")
            return v
        if opc in _INTRINSIC:
            base, extra = _INTRINSIC[opc]
            ops = [self.value(k, t, f"{path}.{i}") for i, k in enumerate(kids)]
            return self.call(f"{base}.{t}", t, [(t, o) for o in ops], extra)
        if opc == "ISD::SIGN_EXTEND_INREG" and len(kids) == 2 and kids[1].opcode == "ISD::VALUETYPE":
            width = _bits(t)
            inner = _bits(kids[1].vt)
            a = self.value(kids[0], t, path + ".0")
            s, r = self.fresh(), self.fresh()
            self.lines.append(f"  {s} = shl {_ir(t)} {a}, {width - inner}")
            self.lines.append(f"  {r} = ashr {_ir(t)} {s}, {width - inner}")
            return r
        if opc == "ISD::INTRINSIC_WO_CHAIN" and kids and kids[0].kind == "int":
            name = str(kids[0].value)
            ops = [(k.vt or t, self.value(k, k.vt or t, f"{path}.{i}")) for i, k in enumerate(kids[1:], 1)]
            return self.call(name, t, ops, "")
        for low in self.target.lowerings:
            if low.node.opcode == opc:
                order = low.operands or tuple(range(len(kids)))
                ops: list = [None] * (max(order) + 1 if order else 0)
                for i, k in enumerate(kids):
                    ops[order[i]] = (k.vt or t, self.value(k, k.vt or t, f"{path}.{i}"))
                if any(o is None for o in ops):
                    raise NoIR(f"{low.name} does not feed every intrinsic parameter from the node")
                return self.call(low.intrinsic.ir_name, t, ops, "")
        raise NoIR(f"no IR form for {p.op_name or opc} (a node made by the DAG combines or lowering, "
                   f"not by one IR instruction)")

    def call(self, name: str, rt: str, ops: list, extra: str) -> str:
        params = ", ".join(_ir(t) for t, _ in ops) + (", i1" if extra else "")
        self.decls.add(f"declare {_ir(rt)} @{name}({params})")
        v = self.fresh()
        args = ", ".join(f"{_ir(t)} {o}" for t, o in ops)
        self.lines.append(f"  {v} = call {_ir(rt)} @{name}({args}{extra})")
        return v


def _ir(mvt: str) -> str:
    """The LLVM IR spelling of a pattern's value type name (``f32`` -> ``float``,
    ``v2f16`` -> ``<2 x half>``, tdgen.types.ValueType.ir); a name that is no MVT (already
    an IR type) is kept."""
    vt = value_type(mvt)
    return vt.ir if vt is not None else mvt


def _bits(vt: str | None) -> int:
    m = re.fullmatch(r"i(\d+)", vt or "")
    if not m:
        raise NoIR(f"type {vt} (only integer types are written)")
    return int(m.group(1))


def _imm_paths(p, path="r") -> list[str]:
    out = []
    if (p.kind == "leaf" and p.preds and p.opcode is None) or \
            (p.kind == "node" and p.opcode in ("ISD::Constant", "ISD::TargetConstant") and not p.children):
        out.append(path)
    for i, k in enumerate(p.children):
        out.extend(_imm_paths(k, f"{path}.{i}"))
    return out


def _functions(target, p, name: str, consts: dict) -> tuple[str, str, set]:
    """(uniform function, divergent function, declarations) for pattern ``p``."""
    w = _Writer(target, consts)
    ty = p.src.vt or p.result_vt or _leaf_type(p.src)
    if ty is None:
        raise NoIR("a pattern without a result type")
    root = w.value(p.src, ty, "r")
    body = "\n".join(w.lines)
    if not w.lines:
        raise NoIR("a pattern whose root is a leaf")
    body = body.replace(f"  {root} = ", "  %r = ", 1) if body.count(f"  {root} = ") == 1 else body
    params = ", ".join(f"{_ir(t)} {a}" for t, a in w.arg_types)
    ccs = sorted(target.uniformity.uniform_arg_ccs)
    if not ccs:
        raise NoIR("the target has no calling convention with uniform arguments (uniformity.uniform_arg_ccs)")
    # (the result goes to global memory, address space 1 on the GPU targets LLVM has: a
    # flat store is one more thing a target must select before the pattern is checked)
    uni = (f"define {ccs[0]} void @uniform_{name}(ptr addrspace(1) %out{', ' + params if params else ''}) {{\n"
           f"{body}\n  store {_ir(ty)} %r, ptr addrspace(1) %out\n  ret void\n}}\n")
    div = f"define {_ir(ty)} @divergent_{name}({params}) {{\n{body}\n  ret {_ir(ty)} %r\n}}\n"
    return uni, div, w.decls


def _leaf_type(p) -> str | None:
    """The type of the first typed leaf (an intrinsic pattern written without a result
    type: its operands' type)."""
    if p.kind == "leaf" and p.vt:
        return p.vt
    for k in p.children:
        t = _leaf_type(k)
        if t:
            return t
    return None


def _result_op(p) -> str | None:
    """The instruction at the root of the pattern's result DAG (None for EXTRACT_SUBREG
    and other generic roots: their instruction is below)."""
    d = p.dst
    while d is not None:
        op = getattr(getattr(d, "operator", None), "name", None)
        if op is None:
            return None
        if op not in ("EXTRACT_SUBREG", "COPY_TO_REGCLASS", "INSERT_SUBREG", "SUBREG_TO_REG") and \
                not re.fullmatch(r"[iv]\d+|v\d+i\d+", op):
            return str(op)
        kids = [a for a in getattr(d, "args", ()) if getattr(a, "operator", None) is not None]
        d = kids[0] if kids else None
    return None


def _fired(sel, fn: str, p) -> tuple[str | None, bool, str | None]:
    """(opcode selected for %r, whether pattern ``p`` made it, the error) in ``fn``;
    another pattern making the same instruction counts as ``p`` (a target node the
    lowering makes from the same IR, matched by a sibling pattern)."""
    if fn in sel.errors:
        return None, False, sel.errors[fn][0].format().split("; closest:")[0]
    try:
        s = sel[f"@{fn}:%r"]
    except KeyError:
        return None, False, "the result has no instruction of its own"
    return s.opcode, any(mi.pattern == p.record for mi in s.instrs) or s.opcode == _result_op(p), None


def _own_failure(text: str, target, p, name: str) -> str:
    """The first failing check of pattern ``p`` on the uniform kernel's result."""
    from ..api import explain

    try:
        e = explain(text, target, f"@uniform_{name}:%r")
    except Exception as exc:  # (the note is the only place this shows)
        return f"(no explain trace: {exc})"
    hit = next((a for a in e.attempts if a.record == p.record), None)
    if hit is None:
        return e.note or f"the result is not a {p.root_opcode} node ({e.node})"
    return hit.outcome


def pattern_kernels(target, *, progress=None, only=None) -> list[Kernel]:
    """One Kernel per pattern of the target's matcher table (see the module docstring);
    ``only``: a set of record names to restrict it to."""
    from patterns.select.matcher import build_table

    from ..api import select

    table = build_table(target)
    seen: set = set()
    out: list[Kernel] = []
    names: dict[str, int] = {}
    pats = [p for p in table.patterns if (p.record, p.src_text()) not in seen and not seen.add((p.record, p.src_text()))
            and (only is None or p.record in only)]
    for p in sorted(pats, key=lambda p: p.order if p.order is not None else 0):
        base = re.sub(r"\W", "_", p.record)
        names[base] = names.get(base, 0) + 1
        name = base if names[base] == 1 else f"{base}_{names[base]}"
        k = Kernel(p, name)
        out.append(k)
        if progress is not None:
            progress()
        imm = _imm_paths(p.src)
        tries = [{}] if not imm else [{path: c for path in imm} for c in _CANDIDATES]
        last = None
        for consts in tries:
            try:
                uni, div, decls = _functions(target, p, name, consts)
            except NoIR as e:
                k.notes.append(f"not generated: {e}")
                break
            text = "".join(sorted(d + "\n" for d in decls)) + ("\n" if decls else "") + uni + "\n" + div
            sel = select(text, target, errors="collect")
            u_op, u_hit, u_err = _fired(sel, f"uniform_{name}", p)
            d_op, d_hit, d_err = _fired(sel, f"divergent_{name}", p)
            if last is None:
                last = (u_op, u_err, d_op, d_err, text)
            if u_hit or d_hit:
                k.text, k.uniform, k.divergent = text, u_op, d_op
                for which, op, err in (("uniform", u_op, u_err), ("divergent", d_op, d_err)):
                    if op is None:
                        k.notes.append(f"{which} function not checked: {err}")
                break
        else:
            if last is not None:
                u_op, u_err, d_op, d_err, text = last
                k.text = text
                got = "; ".join(f"{which}: {op} by another pattern" if op else f"{which}: {err}"
                                for which, op, err in (("uniform", u_op, u_err), ("divergent", d_op, d_err)))
                k.notes.append(f"not checked: neither kernel selects this pattern ({got}); the pattern itself "
                               f"fails at: {_own_failure(text, target, p, name)}")
    return out


def file_text(target, k: Kernel, run_line: str) -> str:
    """The .ll file of one pattern: a header naming it, RUN, CHECK lines and the IR."""
    p = k.pattern
    head = [f"; Generated by tdgen gen-tests from {getattr(target, 'spec_path', '') or target.name}: pattern "
            f"{p.record}" + (f" at {p.span}" if p.span is not None else ""),
            f";   {p.src_text()} -> {p.dst_text()}"]
    for n in k.notes:
        head.append(f"; NOTE: {n}")
    # (a comment naming a FileCheck or lit directive would be one: CHECK:, RUN: ...)
    head = [re.sub(r"\b(CHECK|RUN|XFAIL|REQUIRES)\b", lambda m: m.group(0).lower(), h) for h in head]
    if not k.text:
        return "\n".join(head) + "\n"
    lines = head + [f"; RUN: {run_line}" if k.written else "; (no CHECK lines: nothing to run)", ""]
    for which, op in (("uniform", k.uniform), ("divergent", k.divergent)):
        if k.written:  # (a label for each function: it bounds the CHECK of the one before)
            lines.append(f"; CHECK-LABEL: name: {which}_{k.name}{{{{$}}}}")
        if op is not None:
            lines.append(f"; CHECK: {{{{= {op}( |$)}}}}")
    return "\n".join(lines) + "\n\n" + k.text


def verify_file(text: str, llc: str, filecheck: str, triple: str, mcpu: str | None) -> str | None:
    """None when ``llc`` + ``filecheck`` pass the file's CHECK lines, else FileCheck's
    first error line."""
    import subprocess
    import tempfile

    cmd = [llc, f"-mtriple={triple}", *([f"-mcpu={mcpu}"] if mcpu else []), "-stop-after=finalize-isel"]
    try:
        r = subprocess.run(cmd, input=text, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise UsageError(None, "tdgen gen-tests: argument --verify-llc: " + expected("an llc that runs", str(e)))
    if r.returncode != 0:
        return (r.stderr.strip().splitlines() or ["llc failed"])[0]
    with tempfile.NamedTemporaryFile("w", suffix=".ll") as f:
        f.write(text)
        f.flush()
        try:
            c = subprocess.run([filecheck, f.name], input=r.stdout, capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise UsageError(None, "tdgen gen-tests: argument --filecheck: " + expected("a FileCheck that runs",
                                                                                       str(e)))
    if c.returncode != 0:
        return next((ln for ln in c.stderr.splitlines() if "error:" in ln), "FileCheck failed").split("error: ")[-1]
    return None


def run(args) -> int:
    from ..api import load_target
    from .progress import progress_bar

    target = load_target(target_argument(args, "gen-tests"))
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(None, "tdgen gen-tests: argument --out: " + expected("a folder", f"the file '{out}'"))
    triple = args.triple or target.target_prefix
    run_line = f"llc -mtriple={triple}" + (f" -mcpu={args.mcpu}" if args.mcpu else "") + \
        " -stop-after=finalize-isel < %s | FileCheck %s"
    from patterns.select.matcher import build_table

    records = {p.record for p in build_table(target).patterns}
    only = None
    if args.only is not None:
        unknown = [r for r in args.only if r not in records]
        if unknown:
            raise UsageError(None, "tdgen gen-tests: argument --only: " + expected(
                f"pattern records of {target.name}", ", ".join(repr(u) for u in unknown)))
        only = set(args.only)
    total = len({(p.record, p.src_text()) for p in build_table(target).patterns if only is None or p.record in only})
    with progress_bar("gen-tests", total) as step:
        kernels = pattern_kernels(target, progress=step, only=only)
    files = {f"{k.name}.ll": file_text(target, k, run_line) for k in kernels}
    if args.verify_llc:
        for k in kernels:
            for which in ("uniform", "divergent"):
                if getattr(k, which) is None:
                    continue
                # this function's CHECK lines alone
                other = "divergent" if which == "uniform" else "uniform"
                keep = getattr(k, other)
                setattr(k, other, None)
                why = verify_file(file_text(target, k, run_line), args.verify_llc, args.filecheck, triple, args.mcpu)
                setattr(k, other, keep)
                if why is not None:
                    k.notes.append(f"{which} function not checked: {args.verify_llc} does not select as the spec "
                                   f"does ({getattr(k, which)}): {why}")
                    setattr(k, which, None)
            files[f"{k.name}.ll"] = file_text(target, k, run_line)
    from ..fsutil import write_tree

    out.mkdir(parents=True, exist_ok=True)
    write_tree({out / name: text for name, text in files.items()})
    checked = sum(1 for k in kernels if k.written)
    sys.stdout.write(f"wrote {len(files)} file(s) to {out}: {checked} pattern(s) with CHECK lines, "
                     f"{len(kernels) - checked} without\n")
    for k in kernels:
        for n in k.notes:
            sys.stdout.write(f"  {k.name}: {n}\n")
    return 0
