"""The record-level diff of two generated TableGen trees, read by ``llvm-tblgen-19 --dump-json``.

LLVM's own TableGen reader is the oracle: each side's main ``.td`` (the file that
includes ``llvm/Target/Target.td``) is run through ``llvm-tblgen-19 -I <llvm>/include
-I <folder> --dump-json``, which gives every record fully resolved (class fields
inherited, ``let``s applied, multiclasses expanded). Only records whose definition is in
one of the side's own files count (LLVM's Target.td records are the same on both
sides).

Anonymous records get names that shift when a record is added, so they are compared by
content: an anonymous class instance used inside a field (``UniformBinFrag<add>`` is
``anonymous_274``) is shown and compared as its class and fragment
(``UniformBinFrag<add>``); an anonymous ``Pat`` is one record of the diff, paired with
the other side's by its class and source pattern, and the rest in order of appearance
per file (so a changed source pattern is a changed field, not a removal and an addition).

Flagged from the records: a pattern (an instruction's ``Pattern`` or a ``Pat``'s
``PatternToMatch``) that lost a uniform or divergent predicate (a PatFrag whose
``PredicateCode`` tests ``N->isDivergent()``).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError, expected

TBLGEN = "llvm-tblgen-19"
_SKIP = ("!locs", "!name", "!anonymous", "!fields")
_ANON = re.compile(r"\banonymous_\d+\b")


def tblgen_path() -> str:
    exe = shutil.which(TBLGEN) or (shutil.which("llvm-tblgen") if _version_ok("llvm-tblgen") else None)
    if exe is None:
        raise UsageError(None, "tdgen diff: " + expected(
            f"{TBLGEN} on PATH (the record diff reads LLVM's own TableGen parse of the generated files; "
            f"apt-get install llvm-19)", "none"))
    return exe


def _version_ok(tool: str) -> bool:
    exe = shutil.which(tool)
    if exe is None:
        return False
    try:
        r = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "version 19." in r.stdout


def llvm_include() -> Path:
    for cand in (Path("/usr/lib/llvm-19/include"), Path("/usr/include/llvm-19")):
        if (cand / "llvm" / "Target" / "Target.td").is_file():
            return cand
    cfg = shutil.which("llvm-config-19")
    if cfg:
        out = subprocess.run([cfg, "--includedir"], capture_output=True, text=True).stdout.strip()
        if out and (Path(out) / "llvm" / "Target" / "Target.td").is_file():
            return Path(out)
    raise UsageError(None, "tdgen diff: " + expected("LLVM 19's include/llvm/Target/Target.td (apt-get install "
                                                    "llvm-19-dev)", "none"))


def main_td(folder: Path) -> Path:
    """The folder's top .td file: the one that includes llvm/Target/Target.td."""
    hits = sorted(p for p in folder.glob("*.td") if 'include "llvm/Target/Target.td"' in p.read_text())
    if len(hits) != 1:
        raise UsageError(None, "tdgen diff: " + expected(
            f"one .td file including llvm/Target/Target.td in '{folder}'",
            f"{len(hits)} ({', '.join(p.name for p in hits)})" if hits else "none"))
    return hits[0]


def dump_records(folder: Path) -> dict:
    """``llvm-tblgen --dump-json`` of the folder's main .td file."""
    td = main_td(folder)
    r = subprocess.run([tblgen_path(), "-I", str(llvm_include()), "-I", str(folder), "--dump-json", str(td)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        first = (r.stderr.strip().splitlines() or ["failed"])[0]
        raise UsageError(None, f"{td}: " + expected("TableGen that llvm-tblgen-19 accepts", first))
    return json.loads(r.stdout)


@dataclass(frozen=True)
class Rec:
    """One record of a side: ``label`` (its name, or for an anonymous Pat ``Pat
    <source pattern>``), ``file``, its fields as canonical values and as display text."""

    key: str
    label: str
    file: str
    fields: dict
    shown: dict
    div: frozenset  # the divergence predicates ("uniform"/"divergent") its pattern fields use


class _Side:
    def __init__(self, data: dict, files: set[str]):
        self.data = data
        self.files = files
        self._names: dict[str, str] = {}

    def anon_name(self, name: str) -> str:
        hit = self._names.get(name)
        if hit is not None:
            return hit
        rec = self.data.get(name, {})
        cls = (rec.get("!superclasses") or ["?"])[-1]
        frags = rec.get("Fragments")
        if isinstance(frags, list) and frags:
            inner = ", ".join(self.show(f.get("operator")) if isinstance(f, dict) and "operator" in f else
                              self.show(f) for f in frags)
            text = f"{cls}<{inner}>"
        else:
            text = f"{cls}<{self.show(rec.get('!name'))}>"
        self._names[name] = text
        return text

    def canon(self, v):
        if isinstance(v, dict):
            if v.get("kind") == "def":
                d = v["def"]
                return ("def", self.anon_name(d) if _ANON.fullmatch(d) else d)
            if v.get("kind") == "dag":
                return ("dag", self.canon(v.get("operator")), tuple((self.canon(a), n) for a, n in v.get("args", [])))
            return tuple(sorted((k, self.canon(x)) for k, x in v.items() if k != "printable"))
        if isinstance(v, list):
            return tuple(self.canon(x) for x in v)
        return v

    def show(self, v) -> str:
        if isinstance(v, dict):
            if "printable" in v:
                return _ANON.sub(lambda m: self.anon_name(m.group(0)), v["printable"])
            return "{" + ", ".join(f"{k}: {self.show(x)}" for k, x in sorted(v.items())) + "}"
        if isinstance(v, list):
            return "[" + ", ".join(self.show(x) for x in v) + "]"
        if v is None:
            return "?"
        if isinstance(v, str):
            return json.dumps(v)
        return str(v)

    def divergence_preds(self, v, out: set) -> None:
        if isinstance(v, dict):
            if v.get("kind") == "def":
                code = str(self.data.get(v["def"], {}).get("PredicateCode", "") or "")
                if "isDivergent()" in code:
                    out.add("uniform" if "!N->isDivergent()" in code else "divergent")
            for x in v.values():
                self.divergence_preds(x, out)
        elif isinstance(v, list):
            for x in v:
                self.divergence_preds(x, out)


def _loc(rec: dict) -> tuple[str, int]:
    locs = rec.get("!locs") or ["?:0"]
    f, _, line = locs[0].rpartition(":")
    return Path(f).name, int(line) if line.isdigit() else 0


def records(folder: Path) -> dict[str, Rec]:
    """The records defined in the folder's own .td files, keyed for pairing."""
    data = dump_records(folder)
    files = {p.name for p in folder.glob("*.td")}
    side = _Side(data, files)
    named: dict[str, Rec] = {}
    anon: list[tuple[str, int, str, dict]] = []
    for name, rec in data.items():
        if not isinstance(rec, dict) or name.startswith("!"):
            continue
        f, line = _loc(rec)
        if f not in files:
            continue
        if rec.get("!anonymous"):
            if "Pattern" in (rec.get("!superclasses") or []):
                anon.append((f, line, name, rec))
            continue
        named[name] = _rec(side, name, name, f, rec)
    out = dict(sorted(named.items()))
    for f, _line, name, rec in sorted(anon):
        r = _rec(side, "", "", f, rec)
        label = "Pat " + r.shown.get("PatternToMatch", "?")
        base = f"{f}\0{r.fields.get('!superclasses')}\0{r.fields.get('PatternToMatch')}"
        key, n = base, 1
        while key in out:
            n += 1
            key = f"{base}\0{n}"
        out[key] = Rec(key, label, f, r.fields, r.shown, r.div)
    return out


def _rec(side: _Side, key: str, label: str, f: str, rec: dict) -> Rec:
    fields = {k: side.canon(v) for k, v in rec.items() if k not in _SKIP}
    shown = {k: side.show(v) for k, v in rec.items() if k not in _SKIP}
    div: set = set()
    for k in ("Pattern", "PatternToMatch"):
        if k in rec:
            side.divergence_preds(rec[k], div)
    return Rec(key, label, f, fields, shown, frozenset(div))


@dataclass(frozen=True)
class RecordDiff:
    added: tuple[Rec, ...]
    removed: tuple[Rec, ...]
    changed: tuple[tuple[Rec, Rec, tuple[str, ...]], ...]  # (old, new, changed field names)

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)


def diff_records(old: dict[str, Rec], new: dict[str, Rec]) -> RecordDiff:
    """Records added, removed and changed (anonymous Pats left unpaired by their source
    pattern are paired in order of appearance per file)."""
    gone = [k for k in old if k not in new]
    came = [k for k in new if k not in old]
    pairs = [(old[k], new[k]) for k in old if k in new]
    for f in sorted({old[k].file for k in gone if old[k].label.startswith("Pat ")}):
        a = [k for k in gone if old[k].file == f and old[k].label.startswith("Pat ")]
        b = [k for k in came if new[k].file == f and new[k].label.startswith("Pat ")]
        for x, y in zip(a, b):
            pairs.append((old[x], new[y]))
            gone.remove(x)
            came.remove(y)
    changed = []
    for o, n in pairs:
        fields = tuple(sorted(k for k in set(o.fields) | set(n.fields) if o.fields.get(k) != n.fields.get(k)))
        if fields:
            changed.append((o, n, fields))
    changed.sort(key=lambda c: (c[1].file, c[1].label))
    return RecordDiff(tuple(new[k] for k in came), tuple(old[k] for k in gone), tuple(changed))


def lost_predicates(d: RecordDiff) -> list[str]:
    """One line per changed pattern record that lost a uniform/divergent predicate."""
    out = []
    for o, n, _fields in d.changed:
        lost = sorted(o.div - n.div)
        if lost:
            out.append(f"{n.label}: lost its {' and '.join(lost)} predicate "
                       f"({_pattern_text(o)} -> {_pattern_text(n)})")
    return out


def _pattern_text(r: Rec) -> str:
    return r.shown.get("Pattern") or r.shown.get("PatternToMatch") or "?"


def format_records(d: RecordDiff) -> list[str]:
    lines = []
    for r in d.removed:
        lines.append(f"- {r.label}  ({r.file})")
    for r in d.added:
        lines.append(f"+ {r.label}  ({r.file})")
    for o, n, fields in d.changed:
        lines.append(f"~ {n.label}  ({n.file})")
        for f in fields:
            lines.append(f"    {f}: {o.shown.get(f, '(none)')} -> {n.shown.get(f, '(none)')}")
    return lines
