"""Build the compiled (mypyc) versions of the execution engine's hot modules: ``python3 -m patterns.native.build``.

Compiles ``patterns.native.MODULES`` for the current sources into the folder
``patterns.native`` loads them from (see there), unless that build exists already.
``--status`` prints whether a run loads the compiled modules, and why. Needs ``mypy``
(mypyc) and a C compiler; without them, or when the build fails, everything runs as
plain Python, which gives the same output, slower. Exit 0 when built, 1 when the build
failed (its errors on stderr), 2 for a bad argument.
"""

from __future__ import annotations

import os
import sys

from patterns.native import SOURCE_ROOT, GROUP, MODULES, MYPY_CONFIG, build_files, module_source, native_root, source_key, status

_BUILD_SCRIPT = """\
import sys
from setuptools import setup
from mypyc.build import mypycify
tmp, config, *paths = sys.argv[1:]
setup(
    name="tdgen-native",
    packages=[], py_modules=[],  # (no discovery: the checkout's pyproject.toml describes tdgen itself)
    ext_modules=mypycify(["--config-file", config, *paths], opt_level="3", debug_level="0", multi_file=True,
                         group_name="%s", target_dir=tmp + "/c"),
    script_args=["-q", "build_ext", "--build-lib", tmp + "/lib", "--build-temp", tmp + "/obj",
                 "--parallel", str(max(1, min(4, len(__import__("os").sched_getaffinity(0)))))],
)
""" % GROUP


def build(*, force: bool = False, quiet: bool = False) -> str:
    """Compile ``MODULES`` for the current sources unless already built; returns the
    build's folder. Raises ``RuntimeError`` saying what failed (mypy missing, a type
    error mypyc stops at, the C compiler's message)."""
    import shutil
    import subprocess
    import tempfile

    root = native_root()
    if root is None:
        raise RuntimeError("no folder for builds: set TDGEN_NATIVE_DIR")
    key = source_key()
    dest = os.path.join(root, key)
    if not force and build_files(dest) is not None:
        return dest
    try:
        import mypyc  # noqa: F401
    except ImportError:
        raise RuntimeError("mypyc is not installed (pip install 'mypy>=1.10')") from None
    os.makedirs(root, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="build-", dir=root) as tmp:
        config = os.path.join(tmp, "mypy.ini")
        with open(config, "w", encoding="utf-8") as f:
            f.write(MYPY_CONFIG.format(compiled=",".join(MODULES)))
        paths = [os.path.relpath(module_source(m), SOURCE_ROOT) for m in MODULES]
        env = dict(os.environ, TDGEN_PURE="1", MYPY_CACHE_DIR=os.path.join(tmp, "mypy-cache"))
        r = subprocess.run([sys.executable, "-c", _BUILD_SCRIPT, tmp, config, *paths], cwd=SOURCE_ROOT,
                           env=env, capture_output=True, text=True)
        if r.returncode != 0:
            out = "\n".join(x for x in (r.stdout + r.stderr).splitlines()
                            if "error" in x.lower() or x.startswith(("Traceback", "  ")))
            raise RuntimeError(f"mypyc build failed (exit {r.returncode}):\n{out or r.stderr[-4000:]}")
        lib = os.path.join(tmp, "lib")
        stage = os.path.join(tmp, "out")
        os.makedirs(stage)
        manifest = []
        for dirpath, _, names in os.walk(lib):
            for n in sorted(names):
                if not n.endswith(".so") and not n.endswith(".pyd"):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, n), lib)
                mod = rel.split(".", 1)[0].replace(os.sep, ".")
                shutil.copy2(os.path.join(dirpath, n), os.path.join(stage, rel.replace(os.sep, "_")))
                manifest.append(f"{mod} {rel.replace(os.sep, '_')}")
        missing = set(MODULES) - {line.split(" ", 1)[0] for line in manifest}
        if missing:
            raise RuntimeError(f"mypyc build made no extension for {', '.join(sorted(missing))}")
        with open(os.path.join(stage, "MANIFEST"), "w", encoding="utf-8") as f:
            f.write("\n".join(sorted(manifest)) + "\n")
        if os.path.isdir(dest):
            shutil.rmtree(dest, ignore_errors=True)
        try:
            os.rename(stage, dest)
        except OSError:
            if build_files(dest) is None:  # (not another build of the same key winning the race)
                raise
    prune_builds(root, dest)
    if not quiet:
        print(f"built {len(MODULES)} modules: {dest}")
    return dest


def prune_builds(root: str, current: str, keep: int = 6) -> None:
    """Remove all builds in ``root`` but ``current`` and the ``keep - 1`` newest others
    (every edit of a source gives a new key, so old builds pile up otherwise; ~3.4 MB
    each; a few are kept for other checkouts of the project sharing the folder). Temp
    folders of builds running now (``build-*``) are left alone."""
    import shutil

    builds = []
    for name in os.listdir(root):
        path = os.path.join(root, name)
        if path == current or name.startswith("build-") or not os.path.isdir(path):
            continue
        try:
            builds.append((os.stat(path).st_mtime, name, path))
        except OSError:
            continue
    for _, _, path in sorted(builds, reverse=True)[keep - 1:]:
        shutil.rmtree(path, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python3 -m patterns.native.build",
                                 description="Compile the execution engine's hot modules with mypyc.")
    ap.add_argument("--force", action="store_true", help="build again even when a build exists")
    ap.add_argument("--status", action="store_true", help="only say whether a run loads the compiled modules, and why")
    args = ap.parse_args(argv)
    if args.status:
        print(status())
        return 0
    try:
        build(force=args.force)
    except RuntimeError as e:
        print(f"patterns.native.build: {e}", file=sys.stderr)
        return 1
    except OSError as e:  # (the build folder cannot be made or written)
        where = f": {e.filename}" if e.filename else ""
        print(f"patterns.native.build: cannot write the build{where}: {e.strerror or e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
