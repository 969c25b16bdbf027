"""tdgen/target_cache.py: a cached target load equals an uncached one, any edit of a
file it depends on invalidates it (for derived values, the ``patterns`` package's files
too), cache trouble (corrupted entry, unwritable folder) is silent, errors are never
cached; stored compiled code is used only for the source it came from; ``tdgen
divergence`` with a warm cache prints the same as without a cache and as the in-process
analysis (its early process exit loses nothing), and never imports the spec model."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from patterns.uniformity.rules import DivergenceFacts
from tdgen import target_cache
from tdgen.errors import TdgenError
from tdgen.paths import TARGETS
from tdgen.spec import load_target as load_uncached

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def cache(tmp_path, monkeypatch):
    root = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(root))
    monkeypatch.delenv("TDGEN_NO_CACHE", raising=False)
    return root / "tdgen"


def entries(cache: Path) -> list[Path]:
    return sorted(cache.glob("*.pickle")) if cache.is_dir() else []


@pytest.mark.parametrize("name", sorted(p.parent.name for p in TARGETS.glob("*/spec.py")))
def test_cached_load_equals_uncached(cache, name):
    first = target_cache.load_target(name)  # miss: loads and writes the entry
    assert len(entries(cache)) == 1
    second = target_cache.load_target(name)  # hit: unpickled from disk
    assert second is not first
    uncached = load_uncached(name)
    assert second == uncached and first == uncached
    assert second.spec_path == uncached.spec_path


def test_divergence_facts_cached_equal_and_answer_like_the_target(cache):
    facts = target_cache.load_derived("amdgpu", "divergence-facts", DivergenceFacts.of)
    again = target_cache.load_derived("amdgpu", "divergence-facts", DivergenceFacts.of)
    target = load_uncached("amdgpu")
    assert again == facts == DivergenceFacts.of(target)
    names = [i.ir_name for i in target.intrinsics] + [r.pattern.replace("*", "x.i32") for r in target.uniformity.rules]
    names += ["llvm.amdgcn.not.a.real.one", "llvm.smax.i32"]
    assert len(names) > 20
    for n in names:
        assert again.intrinsic_divergence(n) is target.intrinsic_divergence(n), n


def copy_target(tmp_path: Path) -> Path:
    dst = tmp_path / "mytarget"
    shutil.copytree(TARGETS / "amdgpu", dst, ignore=shutil.ignore_patterns("__pycache__"))
    return dst


def test_editing_a_spec_file_invalidates(cache, tmp_path):
    folder = copy_target(tmp_path)
    before = target_cache.load_target(folder)
    assert len(entries(cache)) == 1
    spec = folder / "spec.py"
    spec.write_text(
        spec.read_text() + "\nimport dataclasses as _dc\nTARGET = _dc.replace(TARGET, description='edited')\n"
    )
    after = target_cache.load_target(folder)
    assert after.description == "edited" != before.description
    assert after == load_uncached(folder)
    (entry,) = entries(cache)  # a new key; the stale entry was removed
    assert target_cache.read_entry(entry) == after
    # an edit of a sibling module (not spec.py) invalidates too
    (folder / "uniformity.py").write_text((folder / "uniformity.py").read_text() + "\n# touched\n")
    target_cache.load_target(folder)
    assert entries(cache) != [entry] and len(entries(cache)) == 1
    # other targets and kinds keep their entries
    target_cache.load_target("amdgpu")
    target_cache.load_derived(folder, "divergence-facts", DivergenceFacts.of)
    assert len(entries(cache)) == 3


def test_editing_tdgen_code_changes_the_key(monkeypatch, tmp_path):
    folder = copy_target(tmp_path)
    key = target_cache.fingerprint(folder)
    assert target_cache.fingerprint(folder) == key
    fake_pkg = tmp_path / "pkg"
    shutil.copytree(target_cache.TDGEN_DIR, fake_pkg, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(target_cache, "TDGEN_DIR", fake_pkg)
    same_code = target_cache.fingerprint(folder)
    (fake_pkg / "hw.py").write_text((fake_pkg / "hw.py").read_text() + "\n# edited\n")
    assert target_cache.fingerprint(folder) != same_code


def test_editing_engine_code_changes_the_keys_of_derived_values(monkeypatch, tmp_path):
    """A derived value (``load_derived``: matcher tables, the isel bundle) is computed by
    the ``patterns`` package, so its key covers that package too; a loaded target's does
    not."""
    folder = copy_target(tmp_path)
    fake = tmp_path / "patterns"
    shutil.copytree(target_cache.PATTERNS_DIR, fake, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(target_cache, "PATTERNS_DIR", fake)
    target, derived = target_cache.fingerprint(folder), target_cache.fingerprint(folder, derived=True)
    assert target != derived
    (fake / "select" / "matcher.py").write_text((fake / "select" / "matcher.py").read_text() + "\n# edited\n")
    assert target_cache.fingerprint(folder) == target
    assert target_cache.fingerprint(folder, derived=True) != derived


def test_stored_code_is_used_only_for_its_own_source():
    """``patterns.select.codecache.compile_source`` takes a stored (cached) code object only for the
    source it was compiled from; a corrupted one is compiled anew."""
    import marshal

    from patterns.select import codecache

    src_a = "def _match(n0):\n    return 'stored a'\n"
    src_b = "def _match(n0):\n    return 'b'\n"
    fake = compile("def _match(n0):\n    return 'from the store'\n", "<matcher>", "exec")
    key_a = codecache.code_digest(src_a, "<matcher>")
    with codecache.recorded_sources() as made:
        codecache.store_code({key_a: marshal.dumps(fake), codecache.code_digest(src_b, "<matcher>"): b"junk"})
        got = {}
        for s in (src_a, src_b):
            ns: dict = {}
            exec(codecache.compile_source(s, "<matcher>"), ns)  # noqa: S102
            got[s] = ns["_match"](None)
    assert got == {src_a: "from the store", src_b: "b"}
    assert [d for d, _c in made] == [key_a, codecache.code_digest(src_b, "<matcher>")]


def test_corrupted_entry_is_ignored_and_rewritten(cache):
    good = target_cache.load_target("amdgpu")
    (entry,) = entries(cache)
    for junk in (b"", b"not a pickle at all", entry.read_bytes()[:100]):
        entry.write_bytes(junk)
        assert target_cache.load_target("amdgpu") == good
        assert target_cache.read_entry(entry) == good  # rewritten whole


def test_unwritable_or_disabled_cache_is_silent(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder would go")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    assert target_cache.load_target("amdgpu") == load_uncached("amdgpu")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "off"))
    monkeypatch.setenv("TDGEN_NO_CACHE", "1")
    assert target_cache.load_target("amdgpu") == load_uncached("amdgpu")
    assert not (tmp_path / "off").exists()


def test_errors_are_not_cached(cache, tmp_path):
    folder = copy_target(tmp_path)
    (folder / "spec.py").write_text((folder / "spec.py").read_text() + "\nTARGET = 42\n")
    for _ in range(2):
        with pytest.raises(TdgenError) as e:
            target_cache.load_target(folder)
        assert "TARGET = Target(...)" in str(e.value)
    assert entries(cache) == []
    with pytest.raises(TdgenError):
        target_cache.load_target("no-such-target")


def test_cli_warm_cache_same_output_and_no_spec_model_import(tmp_path):
    kernel = tmp_path / "k.ll"
    from testkit.irgen import generate_kernel

    kernel.write_text(generate_kernel(3, 400))
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"), PYTHONPATH=str(ROOT))
    env.pop("TDGEN_NO_CACHE", None)
    cmd = [sys.executable, "-m", "tdgen", "divergence", str(kernel)]
    cold = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    warm = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    off = subprocess.run(cmd, cwd=ROOT, env=dict(env, TDGEN_NO_CACHE="1"), capture_output=True, text=True)
    assert cold.returncode == warm.returncode == off.returncode == 0, cold.stderr + warm.stderr + off.stderr
    assert "DIVERGENT:" in off.stdout and off.stdout.endswith("END BLOCK\n")
    assert cold.stdout == warm.stdout == off.stdout
    # the CLI ends its process early (os._exit after flushing): nothing may be lost
    from patterns.uniformity.analysis import analyze
    from patterns.uniformity.printer import format_llvm
    from patterns.ir import parse_module

    text = kernel.read_text()
    assert off.stdout == format_llvm(analyze(parse_module(text, str(kernel)), load_uncached("amdgpu")))
    assert cold.stderr == warm.stderr == off.stderr == ""
    probe = (
        "import sys; from tdgen.commands.divergence import load_target_facts; "
        "load_target_facts('amdgpu'); print(sorted(m for m in sys.modules if m in ('tdgen.model', 'tdgen.spec', 'lark')))"
    )
    r = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"
