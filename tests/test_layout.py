"""The layout rules of the code base, read from the source (no module is imported).

- no import cycle between the modules of ``tdgen/``, ``patterns/`` and ``testkit/``, counting
  imports inside functions too (a package ``__init__`` that re-exports its children is
  left out of the graph: importing ``patterns.ir.core`` runs ``patterns/ir/__init__.py``
  first, which is not a dependency of ``core``'s code);
- no private name (``_x``) of one project module imported into, or read as an
  attribute from, another module (tests, bench and targets included);
- no source file over ``MAX_LINES`` lines;
- the engine (``patterns/``) names no target: no ``AMDGPUISD``, ``amdgcn`` or ``AMDGPU::``;
- no binary artefact tracked by git;
- every module of the packages and the targets opens with a docstring saying its job.
"""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("tdgen", "patterns", "testkit")
MAX_LINES = 1000
TARGET_WORDS = ("AMDGPUISD", "amdgcn", "AMDGPU::")
BINARY_SUFFIXES = (".whl", ".so", ".pyc", ".o", ".a", ".zip", ".tar", ".gz", ".pickle", ".bin", ".exe")


def _tracked() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked files cannot be listed")
    return [ROOT / p for p in out.decode().split("\0") if p]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _project_modules() -> dict[str, Path]:
    mods = {}
    for pkg in PACKAGES:
        for f in sorted((ROOT / pkg).rglob("*.py")):
            if "__pycache__" not in f.parts:
                mods[_module_name(f)] = f
    return mods


def _python_files() -> list[Path]:
    """Tracked Python sources; the golden corpora (whole spec files, some invalid on
    purpose) are data."""
    return [p for p in _tracked() if p.suffix == ".py" and p.is_file()
            and "golden" not in p.relative_to(ROOT).parts]


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    if level == 0:
        return name or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


class _Imports:
    """What one file imports: (target module, imported names, line) for every import
    statement, at any depth."""

    def __init__(self, path: Path, module: str, known: dict[str, Path]):
        self.path = path
        self.module = module
        self.tree = ast.parse(path.read_text(), str(path))
        self.edges: dict[str, int] = {}
        self.private: list[tuple[int, str, str]] = []
        self.module_aliases: dict[str, str] = {}   # local name -> project module
        is_package = path.name == "__init__.py"

        def owner(name: str) -> str | None:
            while name and name not in known:
                name = name.rpartition(".")[0]
            return name or None

        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    m = owner(a.name)
                    if m:
                        self.edges.setdefault(m, node.lineno)
                        if a.asname:
                            self.module_aliases[a.asname] = a.name
            elif isinstance(node, ast.ImportFrom):
                src = _resolve(module, is_package, node.level, node.module)
                for a in node.names:
                    full = f"{src}.{a.name}"
                    if full in known:
                        self.edges.setdefault(full, node.lineno)
                        self.module_aliases[a.asname or a.name] = full
                        continue
                    m = owner(src)
                    if m is None:
                        continue
                    self.edges.setdefault(m, node.lineno)
                    if a.name.startswith("_") and not a.name.startswith("__"):
                        self.private.append((node.lineno, m, a.name))
        self.edges.pop(module, None)

    def private_attributes(self) -> list[tuple[int, str, str]]:
        found = []
        for node in ast.walk(self.tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in self.module_aliases
                    and node.attr.startswith("_") and not node.attr.startswith("__")):
                found.append((node.lineno, self.module_aliases[node.value.id], node.attr))
        return found


def _graph() -> dict[str, _Imports]:
    known = _project_modules()
    return {m: _Imports(p, m, known) for m, p in known.items()}


def _is_reexporting_init(imp: _Imports) -> bool:
    return imp.path.name == "__init__.py"


def _cycles(graph: dict[str, _Imports]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    nodes = sorted(m for m in graph if not _is_reexporting_init(graph[m]))
    succ = {m: sorted(e for e in graph[m].edges if e in graph and not _is_reexporting_init(graph[e]))
            for m in nodes}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    for root in nodes:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = len(index)
                stack.append(v)
                on.add(v)
            if i < len(succ[v]):
                work.append((v, i + 1))
                w = succ[v][i]
                if w not in index:
                    work.append((w, 0))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            for w in succ[v]:
                if w in on:
                    low[v] = min(low[v], low[w])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


def test_no_import_cycles():
    graph = _graph()
    cycles = _cycles(graph)
    lines = []
    for comp in cycles:
        inside = set(comp)
        lines.append("cycle: " + " ".join(comp))
        for m in comp:
            for e, line in sorted(graph[m].edges.items()):
                if e in inside:
                    lines.append(f"  {graph[m].path.relative_to(ROOT)}:{line}: {m} imports {e}")
    assert not cycles, "\n".join(lines)


def test_no_private_names_across_modules():
    known = _project_modules()
    found = []
    for path in _python_files():
        module = _module_name(path)
        imp = _Imports(path, module, known)
        for line, src, name in imp.private + imp.private_attributes():
            if src != module:
                found.append(f"{path.relative_to(ROOT)}:{line}: {name} of {src}")
    assert not found, "\n".join(found)


def test_no_file_over_the_size_limit():
    big = []
    for path in _python_files():
        n = len(path.read_text().splitlines())
        if n > MAX_LINES:
            big.append(f"{path.relative_to(ROOT)}: {n} lines")
    assert not big, "\n".join(big)


def test_the_engine_names_no_target():
    found = []
    for path in sorted((ROOT / "patterns").rglob("*")):
        if path.suffix not in (".py", ".lark") or "__pycache__" in path.parts:
            continue
        for i, line in enumerate(path.read_text().splitlines(), 1):
            for word in TARGET_WORDS:
                if word in line:
                    found.append(f"{path.relative_to(ROOT)}:{i}: {word}")
    assert not found, "\n".join(found)


def test_no_binary_artefacts_tracked():
    bad = []
    for path in _tracked():
        if path.suffix in BINARY_SUFFIXES:
            bad.append(str(path.relative_to(ROOT)))
        elif path.is_file() and b"\0" in path.read_bytes()[:8192]:
            bad.append(str(path.relative_to(ROOT)))
    assert not bad, "\n".join(bad)


def test_the_grammar_spells_the_opcode_tables():
    """``ir.lark``'s binary-operator and cast alternations are the tables of
    ``patterns.ir.opcodes`` (the readers build their expressions from the tables)."""
    import re

    from patterns.ir.opcodes import BINOPS, CASTS

    grammar = (ROOT / "patterns" / "ir" / "ir.lark").read_text()
    found = {m.group(1): m.group(2) for m in re.finditer(r"^(BINOP|CASTOP)\.2: /\(([a-z|]+)\)", grammar, re.M)}
    assert found == {"BINOP": "|".join(BINOPS), "CASTOP": "|".join(CASTS)}, found


def test_every_module_says_its_job():
    missing = []
    for path in _python_files():
        rel = path.relative_to(ROOT)
        if rel.parts[0] in PACKAGES + ("targets",) and not ast.get_docstring(ast.parse(path.read_text())):
            missing.append(str(rel))
    assert not missing, "modules without a docstring:\n" + "\n".join(missing)
