"""Seeded mutations of LLVM IR files, and the differential of ``tdgen divergence``
against ``opt-19 -passes=verify`` on them.

``mutate(text, rng) -> (kind, text)`` makes one small change at a random place: the
kinds (``KINDS``) delete, duplicate or swap tokens; change a type, an integer width, an
alignment, an address space, a number, a constant, a value or label name; insert or
replace attributes, keywords (``volatile``, ``nuw``, ``fast`` ...) and metadata
attachments; drop, duplicate or swap lines. Tokens come from a small lexer of LLVM's
textual IR (strings, comments, ``%``/``@``/``!`` names, words, numbers, punctuation);
comments are never mutated, so the text's own RUN lines stay as they are.

``mutants(sources, count, seed)`` spreads ``count`` mutants over the source files
(deterministically, mutant ``i`` from ``Random(f"{seed}:{i}")``), and
``differential(mutants, opt, workdir)`` checks the two properties of issue 20 on each:

- whenever tdgen accepts a file (``tdgen divergence`` exits 0), opt-19's verifier
  accepts it too (otherwise a ``Finding`` of kind ``accepted``, with opt-19's message);
- tdgen never fails with a traceback, and a rejection is exit 2 with every message
  line starting ``path:line:col:`` (otherwise ``traceback`` / ``format``).

tdgen runs in-process (``tdgen.cli.main``), opt-19 only on the mutants tdgen accepts.
``group(findings)`` groups findings by kind, mutation and opt-19's message (names and
numbers removed) for a report.
"""

from __future__ import annotations

import contextlib
import io
import random
import re
import subprocess
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

__all__ = ["KINDS", "Mutant", "Finding", "Outcome", "tokens", "mutate", "mutants", "differential", "group"]

_TOKEN = re.compile(r"""
    (?P<comment>;[^\n]*)
  | (?P<string>c?"(?:[^"\\\n]|\\.)*")
  | (?P<name>[%@!](?:"(?:[^"\\\n]|\\.)*"|[-a-zA-Z$._0-9]+))
  | (?P<word>[-a-zA-Z$._0-9]+:?)
  | (?P<punct>\.\.\.|[^\s])
""", re.X)

_TYPES = ("i1", "i8", "i16", "i32", "i64", "i128", "i0", "half", "bfloat", "float", "double", "void", "token",
          "label", "metadata", "ptr", "ptr addrspace(3)", "ptr addrspace(1)", "<2 x i32>", "<1 x <1 x i32>>",
          "<vscale x 2 x i32>", "[4 x i32]", "{ i32, float }", "x86_fp80", "opaque")
_WIDTHS = (0, 1, 2, 7, 8, 16, 17, 31, 32, 33, 64, 65, 128, 8388608, 8388609)
_ALIGNS = (0, 1, 2, 3, 4, 6, 8, 16, 64, 4096, 1 << 32, 1 << 33)
_ADDRSPACES = (0, 1, 3, 4, 5, 7, 999, 16777215, 16777216, -1)
_NUMBERS = ("0", "-1", "1", "2", "255", "256", "2147483647", "2147483648", "4294967295", "4294967296",
            "18446744073709551615", "18446744073709551616", "-9223372036854775809", "1.5", "0x7FF8000000000000",
            "0xH3C00", "1e400", "00", "-0")
_CONSTANTS = ("undef", "poison", "zeroinitializer", "null", "true", "false", "none", "0", "0.0", "-1")
_ATTRIBUTES = ("noundef", "nocapture", "nonnull", "readonly", "inreg", "signext", "zeroext", "noalias", "align 4",
               "align 3", "dereferenceable(8)", "range(i32 0, 1024)", "range(i32 5, 5)", "nofpclass(nan)",
               "convergent", "nounwind", "memory(none)", "memory(bogus)", "byval(i32)", "sret(i32)", "alwaysinline",
               "willreturn", "mustprogress", "frobnicate", '"key"="value"', "#0", "#99", "immarg", "returned",
               "hidden", "hidden hidden", "protected", "internal", "captures(none)")
_KEYWORDS = ("volatile", "inbounds", "nuw", "nsw", "exact", "disjoint", "nneg", "fast", "nnan", "tail", "musttail",
             "notail", "atomic", "unordered", "monotonic", "seq_cst", "syncscope(\"agent\")", "local_unnamed_addr",
             "unnamed_addr", "dso_local", "amdgpu_kernel", "amdgpu_ps", "weak", "inrange", "samesign")

KINDS = ("delete-token", "duplicate-token", "swap-tokens", "type", "width", "align", "addrspace", "number",
         "constant", "rename", "label", "attribute", "keyword", "metadata", "drop-line", "duplicate-line",
         "swap-lines")


def tokens(text: str) -> list[tuple[int, int, str]]:
    """(start, end, class) of every token of ``text`` except comments."""
    return [(m.start(), m.end(), m.lastgroup) for m in _TOKEN.finditer(text) if m.lastgroup != "comment"]


def _splice(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


def _pick(rng: random.Random, text: str, pattern: str) -> re.Match | None:
    found = [m for m in re.finditer(pattern, text) if not _in_comment(text, m.start())]
    return rng.choice(found) if found else None


def _in_comment(text: str, pos: int) -> bool:
    line = text.rfind("\n", 0, pos) + 1
    return ";" in text[line:pos] and not text[line:pos].count('"') % 2


def _code_lines(text: str) -> list[int]:
    lines = text.split("\n")
    return [i for i, ln in enumerate(lines) if ln.strip() and not ln.lstrip().startswith(";")]


def mutate(text: str, rng: random.Random) -> tuple[str, str]:
    """One mutation of ``text``: (kind, new text). Tries other kinds when the chosen one
    has no place to apply (the text is returned unchanged only if none applies)."""
    kinds = list(KINDS)
    rng.shuffle(kinds)
    for kind in kinds:
        new = _apply(kind, text, rng)
        if new is not None and new != text:
            return kind, new
    return "none", text


def _apply(kind: str, text: str, rng: random.Random) -> str | None:
    if kind in ("delete-token", "duplicate-token", "swap-tokens"):
        toks = tokens(text)
        if len(toks) < 2:
            return None
        i = rng.randrange(len(toks) - 1)
        s, e, _ = toks[i]
        if kind == "delete-token":
            return _splice(text, s, e, "")
        if kind == "duplicate-token":
            return _splice(text, s, e, text[s:e] + " " + text[s:e])
        s2, e2, _ = toks[i + 1]
        return text[:s] + text[s2:e2] + text[e:s2] + text[s:e] + text[e2:]
    if kind == "type":
        m = _pick(rng, text, r"(?<![\w.%@!\"])(?:i\d+|half|bfloat|float|double|ptr(?: addrspace\(\d+\))?|void)(?![\w.])")
        return None if m is None else _splice(text, m.start(), m.end(), rng.choice(_TYPES))
    if kind == "width":
        m = _pick(rng, text, r"(?<![\w.%@!\"])i\d+(?![\w.])")
        return None if m is None else _splice(text, m.start(), m.end(), f"i{rng.choice(_WIDTHS)}")
    if kind == "align":
        m = _pick(rng, text, r"\balign \d+")
        return None if m is None else _splice(text, m.start(), m.end(), f"align {rng.choice(_ALIGNS)}")
    if kind == "addrspace":
        m = _pick(rng, text, r"addrspace\(\d+\)")
        return None if m is None else _splice(text, m.start(), m.end(), f"addrspace({rng.choice(_ADDRSPACES)})")
    if kind == "number":
        m = _pick(rng, text, r"(?<![\w.%@!#\"-])-?\d+(?:\.\d+)?(?![\w.])")
        return None if m is None else _splice(text, m.start(), m.end(), rng.choice(_NUMBERS))
    if kind == "constant":
        m = _pick(rng, text, r"(?<=[ (\[])(?:%[-\w.]+|-?\d+|undef|poison|zeroinitializer|null|true|false)(?=[,)\] \n])")
        return None if m is None else _splice(text, m.start(), m.end(), rng.choice(_CONSTANTS))
    if kind == "rename":
        names = sorted(set(re.findall(r"%[-\w.]+", text)))
        m = _pick(rng, text, r"%[-\w.]+")
        return None if m is None or len(names) < 2 else _splice(text, m.start(), m.end(), rng.choice(names))
    if kind == "label":
        labels = sorted(set(re.findall(r"(?m)^([-\w.]+):", text)))
        m = _pick(rng, text, r"label %[-\w.]+")
        if m is None or not labels:
            return None
        return _splice(text, m.start(), m.end(), "label %" + rng.choice(labels + ["nowhere"]))
    if kind == "attribute":
        m = _pick(rng, text, r"(?:\b(?:noundef|nocapture|readonly|readnone|inreg|nounwind|convergent|align \d+)\b|#\d+|\)(?= [{#]|$)|(?<=\()(?=[ip%])|(?<=, )(?=i\d+ %))")
        if m is None:
            return None
        attr = rng.choice(_ATTRIBUTES)
        if m.start() == m.end():
            return _splice(text, m.start(), m.end(), attr + " ")
        if text[m.start()] == ")":
            return _splice(text, m.start(), m.end(), ") " + attr)
        return _splice(text, m.start(), m.end(), attr)
    if kind == "keyword":
        m = _pick(rng, text, r"(?<== )\w+ |(?<=^  )\w+ |(?<=^define )|(?<=^declare )")
        if m is None:
            return None
        word = rng.choice(_KEYWORDS)
        return _splice(text, m.end(), m.end(), word + " ")
    if kind == "metadata":
        if rng.random() < 0.5:
            m = _pick(rng, text, r", ![\w.]+ ![\w.]+")
            if m is not None:
                return _splice(text, m.start(), m.end(), "")
        m = _pick(rng, text, r"(?m)^  [^;\n]*\S(?=\n)")
        if m is None:
            return None
        return _splice(text, m.end(), m.end(), rng.choice((", !foo !0", ", !range !{i32 0, i32 1}", ", !dbg !7",
                                                            " !nosanitize !{}", ", !tbaa !999")))
    lines = text.split("\n")
    code = _code_lines(text)
    if len(code) < 2:
        return None
    i = rng.choice(code)
    if kind == "drop-line":
        del lines[i]
    elif kind == "duplicate-line":
        lines.insert(i, lines[i])
    else:
        j = rng.choice(code)
        lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


@dataclass(frozen=True)
class Mutant:
    source: str  # the source file's name (as given)
    index: int
    kind: str
    text: str


def mutants(sources: list[tuple[str, str]], count: int, seed: int = 0) -> Iterator[Mutant]:
    """``count`` mutants of the (name, text) ``sources``, mutant ``i`` from source
    ``i % len(sources)`` (sources in the given order) with its own seeded generator."""
    for i in range(count):
        name, text = sources[i % len(sources)]
        rng = random.Random(f"{seed}:{i}")
        kind, new = mutate(text, rng)
        if rng.random() < 0.25:  # sometimes two changes
            k2, new = mutate(new, rng)
            kind = f"{kind}+{k2}"
        yield Mutant(name, i, kind, new)


@dataclass(frozen=True)
class Finding:
    kind: str  # accepted | traceback | format
    mutant: Mutant
    path: str
    detail: str  # opt-19's first error line, the traceback's last line, or tdgen's message


@dataclass
class Outcome:
    accepted: int = 0  # by tdgen (and then checked with opt-19)
    rejected: int = 0
    findings: list[Finding] = field(default_factory=list)


_LOCATED = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): ")


def _run_tdgen(path: str) -> tuple[int | None, str]:
    from tdgen.cli import main

    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = main(["divergence", path])
    except SystemExit as e:  # argparse
        return (e.code if isinstance(e.code, int) else 2), err.getvalue()
    except BaseException:  # noqa: BLE001 - the property under test: no traceback ever
        return None, traceback.format_exc()
    return rc, err.getvalue()


def _opt_errors(opt: str, paths: list[str]) -> dict[str, str | None]:
    """opt-19's verdict on each file: None (accepted) or its first error line."""
    out: dict[str, str | None] = {}
    for p in paths:
        r = subprocess.run([opt, "-passes=verify", "-disable-output", p], capture_output=True, text=True, timeout=120)
        if r.returncode == 0:
            out[p] = None
        else:
            lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
            first = next((ln for ln in lines if "error:" in ln), lines[0] if lines else f"exit {r.returncode}")
            if first.endswith("input module is broken!") and lines and lines[0] != first:
                first = "verifier: " + lines[0]  # the verifier's own message comes first
            out[p] = first
    return out


def differential(items: Iterable[Mutant], opt: str, workdir: Path) -> Outcome:
    """Check the two properties on every mutant (files written under ``workdir``)."""
    result = Outcome()
    accepted: list[tuple[str, Mutant]] = []
    for m in items:
        path = str(workdir / f"m{m.index:05d}.ll")
        Path(path).write_text(m.text)
        rc, err = _run_tdgen(path)
        if rc is None:
            result.findings.append(Finding("traceback", m, path, err.strip().splitlines()[-1]))
            continue
        if rc == 0:
            accepted.append((path, m))
            continue
        result.rejected += 1
        lines = [ln for ln in err.splitlines() if ln.strip()]
        bad = [ln for ln in lines if not (_LOCATED.match(ln) and _LOCATED.match(ln).group("path") == path)]
        if rc != 2 or not lines or bad:
            result.findings.append(Finding("format", m, path, f"exit {rc}: {(bad or lines or [''])[0][:300]}"))
    result.accepted = len(accepted)
    verdicts = _opt_errors(opt, [p for p, _ in accepted])
    for path, m in accepted:
        if verdicts[path] is not None:
            result.findings.append(Finding("accepted", m, path, verdicts[path]))
    return result


def _normalize(detail: str) -> str:
    d = re.sub(r"^.*?error: ", "", detail)
    d = re.sub(r"^/\S+?:\d+:\d+: ", "", d)
    d = re.sub(r"'[^']*'", "'…'", d)
    d = re.sub(r"[%@][-\w.]+", "%v", d)
    d = re.sub(r"\d+", "N", d)
    return d


def group(findings: list[Finding]) -> dict[str, list[Finding]]:
    """Findings by (kind, mutation, opt-19's normalized message), largest groups first."""
    groups: dict[str, list[Finding]] = {}
    for f in findings:
        groups.setdefault(f"{f.kind} | {f.mutant.kind.split('+')[0]} | {_normalize(f.detail)}", []).append(f)
    return dict(sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])))
