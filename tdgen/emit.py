"""Generation pipeline: spec -> checked Target -> template contexts -> files on disk.

``generate(names)`` loads and checks every named target (all errors of all targets are
reported together), then renders each target's files with the jinja2 templates in
templates/ and returns ``{"<target>/<file>": text}``. ``write`` puts them into an output
folder all at once (``fsutil.write_tree``) and only then removes files the generator no
longer produces; ``compare`` lists what is stale, missing or extra without writing.

The model -> context translation lives in ``emit_td`` (TableGen) and ``emit_cpp`` (C++);
templates only format data that arrives here already sorted.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import jinja2

from . import emit_cpp, emit_td
from .errors import Diagnostics, TdgenError
from .fsutil import write_tree
from .paths import ROOT, TEMPLATES


def generate(names: list[str]) -> dict[str, str]:
    """Load -> check -> emit for every target; nothing is rendered if any spec is bad."""
    return emit_all(names, load_all(names))


def emit_all(names: list[str], targets: list) -> dict[str, str]:
    """Render every target's files in memory, keyed ``<name>/<file>``, sorted."""
    files: dict[str, str] = {}
    for name, target in zip(names, targets):
        files.update(emit_target(name, target))
    return dict(sorted(files.items()))


def load_all(names: list[str]) -> list:
    """Load (and thereby check) every target, collecting all errors before raising."""
    from .spec import load_target

    diags = Diagnostics()
    targets = []
    for name in names:
        try:
            targets.append(load_target(name))
        except TdgenError as e:
            diags.add(e)
    diags.check()
    return targets


def emit_target(name: str, target) -> dict[str, str]:
    """All generated files of one target, keyed ``<name>/<file>``."""
    env = environment()
    header = {"spec": spec_path(target, name), "target": name}
    rendered: dict[str, str] = {}
    for fname, template, ctx in emit_td.contexts(target) + emit_cpp.contexts(target):
        text = env.get_template(template).render(header=header, **ctx)
        rendered[str(PurePosixPath(name) / fname)] = text
    return rendered


def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )


def spec_path(target, name: str) -> str:
    """The spec file's path relative to the repository root (same on every machine)."""
    raw = getattr(target, "spec_path", "") or ""
    if not raw:
        span = getattr(target, "span", None)
        raw = getattr(span, "path", "") or ""
    if not raw:
        return f"targets/{name}/spec.py"
    path = Path(raw)
    if not path.is_absolute():
        return path.as_posix()
    try:
        return path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return f"targets/{name}/{path.name}"


def existing_files(out_dir: Path, names: list[str]) -> dict[str, Path]:
    """Files currently under out_dir/<name>/ for the given targets, keyed like ``generate``."""
    found: dict[str, Path] = {}
    for name in names:
        base = out_dir / name
        if not base.is_dir():
            continue
        for p in sorted(base.rglob("*")):
            if p.is_file() and not p.name.startswith(".tdgen-tmp-"):
                found[p.relative_to(out_dir).as_posix()] = p
    return found


def compare(out_dir: Path, names: list[str], files: dict[str, str]) -> list[tuple[str, str]]:
    """``(kind, relative path)`` for every file that differs: stale, missing or extra."""
    have = existing_files(out_dir, names)
    problems: list[tuple[str, str]] = []
    for rel, text in sorted(files.items()):
        if rel not in have:
            problems.append(("missing", rel))
        elif have[rel].read_bytes() != text.encode("utf-8"):
            problems.append(("stale", rel))
    for rel in sorted(set(have) - set(files)):
        problems.append(("extra", rel))
    return problems


def write(out_dir: Path, names: list[str], files: dict[str, str]) -> tuple[int, list[str]]:
    """Write all files atomically, then remove the ones no longer generated.

    Returns (number of files whose content changed, removed relative paths)."""
    have = existing_files(out_dir, names)
    changed = sum(
        1 for rel, text in files.items()
        if rel not in have or have[rel].read_bytes() != text.encode("utf-8")
    )
    targets = {out_dir / rel: text for rel, text in files.items()}
    new_dirs = sorted({d for p in targets for d in (p.parent, *p.parent.parents)
                       if not d.exists()}, key=lambda d: len(d.parts), reverse=True)
    try:
        write_tree(targets)
    except OSError:
        for d in new_dirs:  # leave no empty folders behind either
            try:
                d.rmdir()
            except OSError:
                pass
        raise
    removed = sorted(set(have) - set(files))
    for rel in removed:
        have[rel].unlink()
    return changed, removed
