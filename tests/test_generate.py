"""`tdgen generate`: the committed out/ is current, --check finds stale/missing/extra
files, writing is all-or-nothing, stale files are removed, bad arguments exit 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tdgen import cli, emit
from tdgen.errors import SpecError, Span
from tdgen.paths import ROOT
from tdgen.spec import list_targets


def tdgen(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="200")
    return subprocess.run(
        [sys.executable, "-m", "tdgen", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
    )


def snapshot(folder: Path) -> dict[str, bytes]:
    if not folder.exists():
        return {}
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def generated() -> dict[str, str]:
    return emit.generate(sorted(list_targets()))


def test_committed_out_is_up_to_date():
    # This is the test that fails the suite when out/ was not regenerated.
    r = tdgen("generate", "--check")
    assert r.returncode == 0, f"out/ is stale; run `python -m tdgen generate`\n{r.stdout}{r.stderr}"
    assert "up to date" in r.stdout


def fresh_out(folder: Path, generated: dict[str, str]) -> Path:
    """An output folder holding exactly what the generator makes now."""
    for rel, text in generated.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    return folder


def test_every_target_generates_files(generated):
    for name in list_targets():
        mine = [k for k in generated if k.startswith(name + "/")]
        assert any(k.endswith(".td") for k in mine), name
        assert any(k.endswith(".cpp") for k in mine), name
        assert any(k.endswith(".h") for k in mine), name


def test_check_reports_stale_missing_and_extra(tmp_path, generated):
    out = fresh_out(tmp_path / "out", generated)
    names = sorted(generated)
    stale, missing = names[0], names[-1]
    (out / stale).write_text((out / stale).read_text() + "// edited\n")
    (out / missing).unlink()
    extra = out / names[0].split("/")[0] / "Leftover.td"
    extra.write_text("// not generated\n")
    before = snapshot(out)

    r = tdgen("generate", "--check", "--out", str(out))

    assert r.returncode == 1, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert f"stale: {out / stale}" in lines
    assert f"missing: {out / missing}" in lines
    assert f"extra: {extra}" in lines
    assert sum(1 for ln in lines if ln.split(":")[0] in ("stale", "missing", "extra")) == 3
    assert snapshot(out) == before, "--check must not write"


def test_check_of_one_target_ignores_others(tmp_path, generated):
    out = fresh_out(tmp_path / "out", generated)
    names = sorted(list_targets())
    other = out / names[-1]
    for p in other.iterdir():
        p.write_text("garbage\n")
    r = tdgen("generate", names[0], "--check", "--out", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    # ... and does check its own target: the same folder fails for the other one, naming
    # exactly its files (a --check that checked nothing would pass both)
    r = tdgen("generate", names[-1], "--check", "--out", str(out))
    assert r.returncode == 1, r.stdout + r.stderr
    stale = sorted(ln for ln in r.stdout.splitlines() if ln.startswith("stale: "))
    assert stale == sorted(f"stale: {p}" for p in other.iterdir())
    assert stale and not any(str(out / names[0]) in ln for ln in r.stdout.splitlines())


def test_generate_writes_exactly_the_generated_files(tmp_path, generated):
    out = tmp_path / "fresh"
    r = tdgen("generate", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert snapshot(out) == {k: v.encode() for k, v in generated.items()}
    assert tdgen("generate", "--check", "--out", str(out)).returncode == 0


def test_generate_removes_files_no_longer_produced(tmp_path, generated):
    out = tmp_path / "out"
    assert tdgen("generate", "--out", str(out)).returncode == 0
    name = sorted(list_targets())[0]
    leftover = out / name / "Obsolete.td"
    leftover.write_text("// from an older generator\n")
    unrelated = out / "notatarget" / "keep.txt"
    unrelated.parent.mkdir()
    unrelated.write_text("keep\n")
    r = tdgen("generate", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert not leftover.exists()
    assert f"removed {leftover}" in r.stdout
    assert unrelated.exists(), "folders of other targets are not touched"


def test_unknown_target_is_usage_error(tmp_path):
    out = tmp_path / "out"
    r = tdgen("generate", "nosuchtarget", "--out", str(out))
    known = ", ".join(sorted(list_targets()))
    assert r.returncode == 2
    assert r.stderr == (
        f"tdgen generate: argument TARGET: expected one of {known}, found 'nosuchtarget'\n"
    )
    assert "Traceback" not in r.stderr
    assert not out.exists()


def test_spec_error_writes_nothing(tmp_path, monkeypatch, capsys, generated):
    """A bad spec in the second target leaves an existing out/ exactly as it was."""
    out = fresh_out(tmp_path / "out", generated)
    marker = out / sorted(generated)[0]
    marker.write_text("old content\n")
    before = snapshot(out)

    import tdgen.spec as spec

    real = spec.load_target
    names = sorted(list_targets())

    def failing(name):
        if name == names[-1]:
            raise SpecError(Span(f"targets/{name}/spec.py", 3, 1), "expected a Target, found None",
                            record=name, field="target")
        return real(name)

    monkeypatch.setattr(spec, "load_target", failing)
    rc = cli.main(["generate", "--out", str(out)])
    err = capsys.readouterr().err
    assert rc == 2
    assert err == (
        f"targets/{names[-1]}/spec.py:3:1: record '{names[-1]}' field 'target': "
        "expected a Target, found None\n"
    )
    assert snapshot(out) == before


def test_generated_files_name_their_spec(generated):
    for rel, text in generated.items():
        name = rel.split("/")[0]
        head = "\n".join(text.splitlines()[:3])
        assert f"targets/{name}/" in head, rel
        assert "Generated by tdgen" in head, rel


def test_out_that_is_a_file_is_usage_error(tmp_path):
    target = tmp_path / "not-a-folder"
    target.write_text("x\n")
    r = tdgen("generate", "--out", str(target))
    assert r.returncode == 2
    assert r.stderr == (
        f"tdgen generate: argument --out: expected a folder, found the file '{target}'\n"
    )
    assert target.read_text() == "x\n"


@pytest.mark.parametrize("kind", ["below a file", "empty", "target folder is a file"])
def test_bad_out_is_usage_error_and_writes_nothing(tmp_path, kind):
    blocker = tmp_path / "blocker"
    blocker.write_text("x\n")
    name = sorted(list_targets())[0]
    if kind == "below a file":
        out, want = blocker / "sub", f"expected a folder, found '{blocker / 'sub'}' below the file '{blocker}'"
    elif kind == "empty":
        out, want = "", "expected a folder, found ''"
    else:
        out = tmp_path / "out"
        out.mkdir()
        (out / name).write_text("x\n")
        want = f"expected '{name}' to be a folder, found the file '{out / name}'"
    before = snapshot(tmp_path)
    dirs_before = sorted(p for p in tmp_path.rglob("*") if p.is_dir())
    r = tdgen("generate", "--out", str(out), cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert r.stderr == f"tdgen generate: argument --out: {want}\n"
    assert snapshot(tmp_path) == before
    assert sorted(p for p in tmp_path.rglob("*") if p.is_dir()) == dirs_before


def test_write_failure_is_one_error_and_leaves_no_trace(tmp_path, monkeypatch, capsys, generated):
    """A failure while staging files (disk full) is reported as one line, exit 2; the
    output folder, including folders the run created, is as it was."""
    import errno

    out = fresh_out(tmp_path / "out", {k: v for k, v in generated.items()
                                       if k.startswith(sorted(list_targets())[0] + "/")})
    before = snapshot(out)
    dirs_before = sorted(p for p in tmp_path.rglob("*") if p.is_dir())
    real = emit.write_tree

    def disk_full(files):
        first = sorted(files)[-1]
        first.parent.mkdir(parents=True, exist_ok=True)  # as write_tree stages
        raise OSError(errno.ENOSPC, "No space left on device", str(first))

    monkeypatch.setattr(emit, "write_tree", disk_full)
    rc = cli.main(["generate", "--out", str(out)])
    err = capsys.readouterr().err
    monkeypatch.setattr(emit, "write_tree", real)
    assert rc == 2
    assert err.startswith("tdgen generate: argument --out: expected a folder that can be written, found '")
    assert err.endswith("': No space left on device\n") and err.count("\n") == 1
    assert snapshot(out) == before
    assert sorted(p for p in tmp_path.rglob("*") if p.is_dir()) == dirs_before
