"""Differential fuzzing of the spec checker against llvm-tblgen-19 and g++.

Seeded random mutations of both shipped targets' specs -- names (records, operands,
registers, namespaces), types (field and template-argument types, value types of
patterns and register classes), classes and fields (lets of other kinds and widths),
patterns (operators, operand names, types, arity), predicates (C++ code), divergence
globs -- each made by rebuilding the loaded Target with one field of one record
changed (``dataclasses.replace``, every record referring to it rebuilt too). For each:

- tdgen either rejects it (a ``TdgenError``: at construction or in ``check_target``), or
- it is accepted, and then every generated .td passes llvm-tblgen-19 with each backend
  tests/test_tblgen.py runs (-gen-dag-isel, -gen-instr-info, -gen-register-info,
  -gen-asm-writer; -gen-intrinsic-enums / -gen-intrinsic-impl for the intrinsics file),
  and every generated .cpp whose text differs from the unmutated target's passes
  ``g++ -fsyntax-only`` against LLVM 19's headers (so whenever tblgen or g++ would
  report an error, tdgen reported it first).

A check that crashes (an exception other than TdgenError) or an emitter that crashes on
an accepted spec is a finding too. CI runs ``CI_COUNT`` mutations per target; set
``TDGEN_FUZZ_COUNT=N`` for N in total (split over the two targets) and
``TDGEN_FUZZ_SEED`` for another sequence. ``TDGEN_FUZZ_REPORT=path`` writes a summary
(inputs, accepted, rejected, findings) as JSON.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import re
import subprocess
from pathlib import Path

import pytest

from llvm_tools import LLVM_INCLUDE, require, require_llvm_headers
from tdgen import emit, emit_td
from tdgen.check import check_target
from tdgen.errors import TdgenError
from tdgen.hw import DivergenceKind, DivergenceRule, UniformityModel
from tdgen.model.record import Record
from tdgen.model.target import Target
from tdgen.spec import load_target

TARGETS = ("amdgpu", "dslike")
CI_COUNT = 10
TOTAL = int(os.environ.get("TDGEN_FUZZ_COUNT", "0") or 0)
PER_TARGET = max(1, TOTAL // len(TARGETS)) if TOTAL else CI_COUNT
SEED = os.environ.get("TDGEN_FUZZ_SEED", "24")

MAIN_BACKENDS = ("-gen-dag-isel", "-gen-instr-info", "-gen-register-info", "-gen-asm-writer")
INTRINSIC_BACKENDS = ("-gen-intrinsic-enums", "-gen-intrinsic-impl")

NAMES = ["x", "foo_1", "V_ADD", "S_MOV", "def", "class", "foreach", "int", "new", "delete", "My GPU", "a-b", "",
         "1abc", "Q\x01", "__x", "A" * 300, "dst", "src0", "vdst", "Pattern", "NAME", "../esc", "/abs", "a\nb",
         "SReg_32", "VGPR_32", "i32", "let", "AMDGPU", "DSLike"]
TYPES = ["i32", "f32", "i64", "i16", "v2i32", "i1", "bit", "bits<4>", "bits<0>", "bits<-1>", "bits<70000>", "int",
         "string", "RegisterClass", "Banana", "list<int>", "dag", "code", "ValueType", "Operand", ""]
INTS = [0, 1, 2, -1, 15, 16, 255, 65535, 65536, 2 ** 31, 2 ** 64, 1.5, True, "1", None, "yes"]
GLOBS = ["llvm.x.lane.[id", "llvm.*", "llvm.amdgcn.*", "llvm.x.tail\\", "llvm.[z-a]", "llvm.[]]x", "llvm.\\*",
         "llvm.a?b", "llvm.{a,b}", "*", "llvm.amdgcn.workitem.id.[xyz]", "llvm.dslike.*"]
CODE_CHARS = ";(){}<>=!&|+-*/\"' \n"
_TOKEN = re.compile(r"\$?[A-Za-z_][A-Za-z0-9_]*|-?\d+|[():,]|\s+|\S")


# ---------------------------------------------------------------- the record graph


def _children(obj):
    if isinstance(obj, tuple):
        yield from obj
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            if f.name != "span":
                yield getattr(obj, f.name)


def records(target: Target) -> list:
    """Every record reachable from the Target (the Target first), each once, in a fixed
    order."""
    seen: dict[int, object] = {}
    stack = [target]
    out = []
    while stack:
        o = stack.pop()
        if id(o) in seen:
            continue
        seen[id(o)] = o
        if isinstance(o, Record):
            out.append(o)
        stack.extend(reversed(list(_children(o))))
    return out


def substitute(obj, old, new, memo: dict):
    """``obj`` with ``old`` replaced by ``new`` (by identity) everywhere below it; the
    records on the way are rebuilt (their constructors check them again)."""
    key = id(obj)
    if key in memo:
        return memo[key]
    if obj is old:
        out = new
    elif isinstance(obj, tuple):
        items = tuple(substitute(x, old, new, memo) for x in obj)
        out = items if any(a is not b for a, b in zip(items, obj)) else obj
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        changed = {}
        for f in dataclasses.fields(obj):
            if f.name == "span" or not f.init:
                continue
            v = getattr(obj, f.name)
            nv = substitute(v, old, new, memo)
            if nv is not v:
                changed[f.name] = nv
        out = dataclasses.replace(obj, **changed) if changed else obj
    else:
        out = obj
    memo[key] = out
    return out


# ------------------------------------------------------------------- mutations


def _mutate_text(s: str, rng: random.Random, pool: list[str]) -> str:
    """A token of ``s`` replaced, dropped or repeated, or a character inserted."""
    toks = [t for t in _TOKEN.findall(s)] or [""]
    i = rng.randrange(len(toks))
    r = rng.random()
    if r < 0.45:
        toks[i] = rng.choice(pool + [t for t in toks if t.strip()])
    elif r < 0.65:
        del toks[i]
    elif r < 0.8:
        toks.insert(i, toks[i])
    else:
        toks.insert(i, rng.choice(CODE_CHARS))
    return "".join(toks)


def mutate_value(v, rng: random.Random, fname: str, pool: list[str]):
    if isinstance(v, DivergenceKind):
        return rng.choice([k for k in DivergenceKind if k is not v])
    if isinstance(v, bool) or isinstance(v, int) or v is None:
        return rng.choice(INTS)
    if isinstance(v, str):
        if fname in ("name", "namespace", "isd_namespace", "target_prefix", "clang_builtin", "opcode"):
            return rng.choice(NAMES) if rng.random() < 0.6 else _mutate_text(v, rng, NAMES)
        if fname == "type":
            return rng.choice(TYPES)
        if fname in ("code", "predicate_code"):
            chars = list(v)
            k = rng.randrange(len(chars) + 1)
            if chars and rng.random() < 0.5:
                del chars[min(k, len(chars) - 1)]
            else:
                chars.insert(k, rng.choice(CODE_CHARS))
            return "".join(chars)
        return _mutate_text(v, rng, pool)
    if isinstance(v, tuple):
        if not v:
            return v
        i = rng.randrange(len(v))
        r = rng.random()
        item = v[i]
        if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):  # a let (key, value)
            k, x = item
            if r < 0.2:
                return v[:i] + ((rng.choice(pool + ["mayStore", "Size", "isRTN", "Pattern"]), x),) + v[i + 1:]
            if isinstance(x, (str, int, bool)) or x is None:
                return v[:i] + ((k, mutate_value(x, rng, k, pool)),) + v[i + 1:]
            return v[:i] + v[i + 1:]
        if r < 0.3:
            return v[:i] + v[i + 1:]
        if r < 0.4:
            return v[:i] + (item,) + v[i:]
        if isinstance(item, (str, int)) and not isinstance(item, bool):
            return v[:i] + (mutate_value(item, rng, fname, pool),) + v[i + 1:]
        if dataclasses.is_dataclass(item) and not isinstance(item, Record):  # InstrField, Param, Ref
            f = rng.choice([f.name for f in dataclasses.fields(item)])
            x = getattr(item, f)
            if isinstance(x, (str, int, bool)) or x is None:
                return v[:i] + (dataclasses.replace(item, **{f: mutate_value(x, rng, f, pool)}),) + v[i + 1:]
        return v[:i] + v[i + 1:]
    return v


def _mutate_uniformity(target: Target, rng: random.Random) -> Target:
    m = target.uniformity
    rules = list(m.rules)
    if rules and rng.random() < 0.5:
        i = rng.randrange(len(rules))
        r = rules[i]
        rules[i] = DivergenceRule(rng.choice(GLOBS) if rng.random() < 0.6 else r.pattern + rng.choice("[]\\*?"),
                                  r.kind if rng.random() < 0.5 else rng.choice(list(DivergenceKind)), r.note)
    else:
        rules.append(DivergenceRule(rng.choice(GLOBS), rng.choice(list(DivergenceKind))))
    kw = {f: getattr(m, f) for f in m._FIELDS}
    kw["rules"] = tuple(rules)
    return dataclasses.replace(target, uniformity=UniformityModel(**kw))


def mutate(target: Target, rng: random.Random, pool: list[str]) -> tuple[Target, str]:
    """One mutation of ``target``: (the mutated Target, what was changed). Raises
    TdgenError when a rebuilt record's constructor rejects the change."""
    if rng.random() < 0.06:
        return _mutate_uniformity(target, rng), "uniformity.rules"
    recs = records(target)
    while True:
        rec = rng.choice(recs)
        names = [f.name for f in dataclasses.fields(rec) if f.name != "span" and f.init
                 and f.name not in ("spec_path", "spec_folder", "hooks", "data_layout", "uniformity", "wave")]
        if not names:
            continue
        fname = rng.choice(names)
        old = getattr(rec, fname)
        new = mutate_value(old, rng, fname, pool)
        if new is old or (type(new) is type(old) and new == old):
            continue
        what = f"{type(rec).__name__} {getattr(rec, 'name', '')!r} field {fname}: {old!r:.80} -> {new!r:.80}"
        new_rec = dataclasses.replace(rec, **{fname: new})
        return substitute(target, rec, new_rec, {}), what


# ------------------------------------------------------------------ the oracles


def _tblgen_errors(target: Target, name: str, folder: Path) -> list[str]:
    exe = require("llvm-tblgen-19")
    files = emit.emit_target(name, target)
    for rel, text in files.items():
        p = folder / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    lay = emit_td.layout(target)
    d = folder / name
    errs = []
    runs = [(d / lay.main_td, b) for b in MAIN_BACKENDS]
    runs += [(d / lay.intrinsics_td, b) for b in INTRINSIC_BACKENDS]
    for td, backend in runs:
        args = [exe, "-I", str(LLVM_INCLUDE), "-I", str(d), backend, str(td), "-o", os.devnull]
        if backend == "-gen-intrinsic-enums":
            args.append(f"-intrinsic-prefix={lay.intrinsic_prefix}")
        r = subprocess.run(args, capture_output=True, text=True, timeout=120)
        if r.returncode != 0 or re.search(r"\berror:", r.stderr):
            errs.append(f"{backend} {td.name}: {r.stderr[-1500:]}")
    return errs


_GXX_SEEN: set[int] = set()


def _gxx_errors(target: Target, name: str, folder: Path, baseline: dict[str, str]) -> list[str]:
    """g++ -fsyntax-only over the generated .cpp files, when their text differs from
    the unmutated target's (and from every set already compiled), all in one
    translation unit (each file's own header first, as tests/cpp_tools.py does)."""
    from cpp_tools import gxx, syntax_check, write_target

    files = emit.emit_target(name, target)
    cpp = {rel: text for rel, text in files.items() if rel.endswith((".cpp", ".h"))}
    if all(baseline.get(rel) == text for rel, text in cpp.items()):
        return []
    key = hash(tuple(sorted(cpp.items())))
    if key in _GXX_SEEN:
        return []
    _GXX_SEEN.add(key)
    gxx()
    d = write_target(folder / "cpp", name, target)
    lay = emit_td.layout(target)
    unity = d / "unity.cpp"
    unity.write_text("".join(f'#include "{src}"\n' for src in (
        lay.isel_header, lay.isel_source, lay.rewrite_source, lay.divergence_source)))
    r = subprocess.run(syntax_check(unity, [d]), capture_output=True, text=True, timeout=600)
    return [f"g++ {unity.name}: {r.stderr[-1500:]}"] if r.returncode != 0 else []


def _pool(target: Target) -> list[str]:
    """Names a pattern or an operand list may use: the target's and some builtin ones."""
    out = ["add", "sub", "and", "or", "xor", "shl", "srl", "sra", "mul", "imm", "timm", "i32", "i64", "f32",
           "i16", "v2i32", "set", "outs", "ins", "$a", "$dst", "$src0", "$vdst", "null_frag", "(", ")", ","]
    out += [r.name for r in target.records() if isinstance(getattr(r, "name", None), str)][:200]
    return out


def run_campaign(name: str, count: int, folder: Path) -> dict:
    require("llvm-tblgen-19")
    require_llvm_headers()
    base = load_target(name)
    baseline = emit.emit_target(name, base)
    pool = _pool(base)
    rng = random.Random(f"{SEED}-{name}")
    stats = {"target": name, "inputs": 0, "rejected": 0, "accepted": 0, "findings": []}
    for k in range(count):
        stats["inputs"] += 1
        try:
            mutated, what = mutate(base, rng, pool)
            check_target(mutated)
        except TdgenError:
            stats["rejected"] += 1
            continue
        except Exception as e:  # noqa: BLE001 -- a crash is a finding
            stats["findings"].append(f"#{k} crash {type(e).__name__}: {e}")
            continue
        stats["accepted"] += 1
        sub = folder / f"m{k}"
        try:
            errs = _tblgen_errors(mutated, name, sub)
            if not errs:
                errs = _gxx_errors(mutated, name, sub, baseline)
        except Exception as e:  # noqa: BLE001 -- the emitters crashed on an accepted spec
            errs = [f"emit crash {type(e).__name__}: {e}"]
        for e in errs:
            stats["findings"].append(f"#{k} {what}\n{e}")
    return stats


@pytest.mark.parametrize("name", TARGETS)
def test_accepted_mutations_pass_tblgen_and_gxx(name, tmp_path):
    stats = run_campaign(name, PER_TARGET, tmp_path)
    report = os.environ.get("TDGEN_FUZZ_REPORT")
    if report:
        path = Path(f"{report}.{name}.json")
        path.write_text(json.dumps(stats, indent=1))
    assert stats["inputs"] == PER_TARGET
    assert not stats["findings"], "\n\n".join(stats["findings"][:5])


def test_mutations_reach_both_verdicts(tmp_path):
    """The mutation engine makes specs tdgen accepts and specs it rejects (a campaign of
    only one verdict would test nothing)."""
    base = load_target("dslike")
    rng = random.Random(f"{SEED}-verdicts")
    pool = _pool(base)
    verdicts = set()
    for _ in range(60):
        try:
            mutated, _ = mutate(base, rng, pool)
            check_target(mutated)
            verdicts.add("accepted")
        except TdgenError:
            verdicts.add("rejected")
    assert verdicts == {"accepted", "rejected"}
