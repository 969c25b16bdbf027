"""``run`` and ``check_run``: the execution stage as data, what ``tdgen run`` and ``tdgen
check-run`` print (and what ``tdgen.run``/``check_run`` wrap).

``run`` executes the kernels of an IR file (every function with a kernel calling
convention, else every definition; with ``inputs`` the one the JSON names) on one engine
and returns a ``Result`` per kernel. ``check_run`` runs the reference and every other
registered engine that applies to the target (an engine may define ``applies(target)``)
on ``trials`` random launches (seeds 0..trials-1) and returns a ``CheckReport``: how many
kernels, trials, lanes and stores were compared, the trials skipped because the reference
found undefined behaviour on those inputs, and the first counterexample -- the inputs,
the work-item and lane, the IR instruction and the machine instruction that stored the
first differing value, and the commands that reproduce both runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tdgen.errors import ParseError, Span, UsageError, expected

from patterns.run import engines
from patterns.run.launch import from_json, from_seed
from patterns.run.result import Result, first_difference

KERNEL_CCS = frozenset({"amdgpu_kernel", "spir_kernel", "ptx_kernel"})


def load_module(path_or_module, target=None):
    """The parsed module (``patterns.ir.parse_module``, its calls checked against the
    immarg tables of ``target``'s intrinsics) of a path or IR text; a module without a
    data layout gets its target's."""
    from patterns.ir import parse_module
    from patterns.ir.intrinsic_immargs import target_immargs

    if hasattr(path_or_module, "functions"):
        module = path_or_module
    else:
        p = Path(str(path_or_module))
        if not p.is_file():
            raise UsageError(Span(str(p)), expected("an existing LLVM IR file", f"no file '{p}'"), field="FILE")
        try:
            text = p.read_text()
        except (OSError, UnicodeDecodeError) as e:
            raise UsageError(Span(str(p)), expected("a readable UTF-8 text file", type(e).__name__),
                             field="FILE") from None
        module = parse_module(text, str(p), target_immargs(target))
    layout = getattr(target, "data_layout", "") if target is not None else ""
    if module.data_layout is None and layout:
        from patterns.ir.datalayout import use_target_layout

        use_target_layout(module, layout)
    return module


def load_target(target):
    """A loaded target from a name or spec path (a loaded one is returned as is; None
    stays None: the reference then knows only the generic intrinsics)."""
    if target is None or not isinstance(target, str):
        return target
    from tdgen.target_cache import load_target as _load

    return _load(target)


def kernels(module) -> list:
    defs = module.definitions()
    ks = [f for f in defs if f.cc in KERNEL_CCS]
    return ks or defs


def run(path_or_module, *, target=None, engine: str = "reference", wave: int = 64, workgroup: int = 64,
        groups: int = 1, seed: int = 0, inputs: str | None = None) -> list[Result]:
    """One ``Result`` per kernel (see the module docstring)."""
    check_grid(wave, workgroup, groups)
    tgt = load_target(target)
    module = load_module(path_or_module, tgt)
    fn_engine = engines.engine(engine)
    if inputs is not None:
        p = Path(inputs)
        if not p.is_file():
            raise UsageError(Span(inputs), expected("an existing JSON inputs file", f"no file '{inputs}'"),
                             field="--inputs")
        launch = from_json(p.read_text(), inputs)
        if not any(f.name == launch.kernel for f in module.definitions()):
            raise ParseError(Span(inputs, 1, 1), expected(f"a kernel of {module.path} in 'kernel'",
                                                          repr(launch.kernel)))
        return [fn_engine(module, launch, tgt)]
    return [fn_engine(module, from_seed(f, seed, group_size=workgroup, wave=wave, groups=groups), tgt)
            for f in kernels(module)]


def check_grid(wave: int, workgroup: int, groups: int = 1) -> None:
    if wave not in (32, 64):
        raise UsageError(Span("--wave"), expected("32 or 64", wave), field="--wave")
    if workgroup < 1 or workgroup > 1024:
        raise UsageError(Span("--workgroup"), expected("a work-group size of 1..1024", workgroup), field="--workgroup")
    if groups < 1:
        raise UsageError(Span("--groups"), expected("at least one work-group", groups), field="--groups")


@dataclass
class CheckReport:
    """What ``check_run`` compared and the first counterexample (None: all agree)."""

    path: str
    engines: tuple[str, ...]
    kernels: int = 0
    trials: int = 0
    lanes: int = 0
    stores: int = 0
    undefined: list = field(default_factory=list)  # (kernel, seed, Undefined text)
    counterexample: dict | None = None

    @property
    def ok(self) -> bool:
        return self.counterexample is None

    def as_json(self) -> dict:
        return {"file": self.path, "engines": list(self.engines), "kernels": self.kernels, "trials": self.trials,
                "lanes_compared": self.lanes, "stores_compared": self.stores,
                "skipped_undefined": [{"kernel": k, "seed": s, "undefined": u} for k, s, u in self.undefined],
                "counterexample": self.counterexample}

    def text(self) -> str:
        head = (f"{self.path}: {' = '.join(self.engines)}: {self.kernels} kernels, {self.trials} trials, "
                f"{self.lanes} lanes, {self.stores} stores compared")
        lines = [head]
        for k, s, u in self.undefined:
            lines.append(f"  skipped @{k} seed {s}: the reference has {u}")
        c = self.counterexample
        if c is None:
            lines.append("all stores agree")
            return "\n".join(lines) + "\n"
        lines.append(f"counterexample: @{c['kernel']} seed {c['seed']}, work-group {c['group']}, work-item "
                     f"{c['item']} (lane {c['lane']} of wave {c['wave_index']})")
        lines.append(f"  at {c['where']}" + (f", the IR value {c['ir_value']}" if c.get("ir_value") else ""))
        for side in ("expected", "found"):
            lines.append(f"  {c[side]['engine']}: {c[side]['store']}")
            if c[side].get("by"):
                lines.append(f"    stored by: {c[side]['by']}")
        import json

        lines.append("  inputs (--inputs FILE.json reads them): "
                     + json.dumps(json.loads(c["inputs_json"]), sort_keys=True, separators=(",", ":")))
        lines.append("  reproduce:")
        lines.extend("    " + cmd for cmd in c["commands"])
        return "\n".join(lines) + "\n"


def check_run(path_or_module, *, target=None, wave: int = 64, workgroup: int = 64, groups: int = 1,
              trials: int = 10, engine_names=None) -> CheckReport:
    """Compare the reference with the other engines on ``trials`` seeded launches."""
    check_grid(wave, workgroup, groups)
    if trials < 1:
        raise UsageError(Span("--trials"), expected("at least one trial", trials), field="--trials")
    tgt = load_target(target)
    module = load_module(path_or_module, tgt)
    if engine_names is None:
        engine_names = [n for n in engines.names() if n != "reference"
                        and getattr(engines.engine(n), "applies", lambda t: True)(tgt)]
    if not engine_names:
        raise UsageError(Span("--engines"), expected("an engine to compare with the reference (the machine "
                                                     "interpreter registers 'selected' and 'llc')", "none"),
                         field="--engines")
    others = [(n, engines.engine(n)) for n in engine_names]
    ref = engines.engine("reference")
    rep = CheckReport(module.path, ("reference",) + tuple(engine_names))
    ks = kernels(module)
    rep.kernels = len(ks)
    tname = target if isinstance(target, str) else getattr(tgt, "name", None)
    for f in ks:
        for seed in range(trials):
            launch = from_seed(f, seed, group_size=workgroup, wave=wave, groups=groups)
            want = ref(module, launch, tgt)
            rep.trials += 1
            if want.undefined is not None:
                rep.undefined.append((f.name, seed, want.undefined.text()))
                continue
            for name, fn in others:
                got = fn(module, launch, tgt)
                diff = first_difference(want, got) if got.undefined is None else (None, None)
                rep.lanes += launch.items
                rep.stores += len(want.stores)
                if diff is not None:
                    rep.counterexample = _counterexample(module.path, tname, launch, seed, want, got, diff, wave,
                                                         workgroup, groups)
                    return rep
    return rep


def _counterexample(path, tname, launch, seed, want, got, diff, wave, workgroup, groups) -> dict:
    a, b = diff
    first = a or b
    item = first.local if first is not None else 0
    group = first.group if first is not None else 0

    def side(res, st):
        if res.undefined is not None:
            return {"engine": res.engine, "store": res.undefined.text(), "by": None}
        if st is None:
            return {"engine": res.engine, "store": "no store here", "by": None}
        by = getattr(st.origin, "text", None) or (str(st.origin) if st.origin is not None else None)
        return {"engine": res.engine, "store": st.text(), "by": by.strip() if by else None}

    where = f"{first.space} {first.buffer}+{first.offset}" if first is not None else "the end of execution"
    ir_value = None
    origin = getattr(a, "origin", None)
    ops = getattr(origin, "operands", None)
    if ops:
        ir_value = getattr(ops[0], "ref", None) or str(ops[0])
    base = f"tdgen run {path}" + (f" --target {tname}" if tname else "")
    grid = f" --wave {wave} --workgroup {workgroup}" + (f" --groups {groups}" if groups != 1 else "")
    return {"kernel": launch.kernel, "seed": seed, "group": group, "item": item, "lane": item % wave,
            "wave_index": item // wave, "where": where, "ir_value": ir_value,
            "expected": side(want, a), "found": side(got, b),
            "inputs_json": launch.json_text(),
            "commands": [f"{base} --engine {e}{grid} --seed {seed}" for e in (want.engine, got.engine)]}


def run_ir(text: str, launch, *, target=None, engine: str = "reference", path: str = "<ir>") -> Result:
    """Run ``launch`` on IR ``text`` (parsed here) with one engine: for tests and callers
    that build their inputs themselves."""
    from patterns.ir import parse_module
    from patterns.ir.intrinsic_immargs import target_immargs

    tgt = load_target(target)
    module = load_module(parse_module(text, path, target_immargs(tgt)), tgt)
    return engines.engine(engine)(module, launch, tgt)
