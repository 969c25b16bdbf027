"""Packaging: the ``tdgen`` and ``patterns`` packages plus the bundled targets and templates.

Metadata lives in pyproject.toml; this file only says which folders become packages.
``targets/`` and ``templates/`` sit at the repository root (where a checkout uses them),
and a regular install ships them inside the package as ``tdgen.bundled.targets`` and
``tdgen.bundled.templates`` (``tdgen/paths.py`` finds them there).
"""

import os

from setuptools import find_packages, setup


def _folders(top: str, package: str) -> dict[str, str]:
    """``package`` (and one subpackage per subfolder of ``top``) mapped to its folder."""
    out = {package: top}
    for dirpath, dirnames, _files in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__" and not d.startswith("."))
        for d in dirnames:
            path = os.path.join(dirpath, d)
            out[package + "." + os.path.relpath(path, top).replace(os.sep, ".")] = path
    return out


BUNDLED = {**_folders("targets", "tdgen.bundled.targets"), **_folders("templates", "tdgen.bundled.templates")}

setup(
    packages=sorted(find_packages(include=["tdgen", "tdgen.*", "patterns", "patterns.*"]) + list(BUNDLED)),
    package_dir=BUNDLED,
    package_data={
        "tdgen": ["*.lark", "grammar/*.lark"],
        "patterns": ["*/*.lark"],
        **{p: ["*.py", "*.j2"] for p in BUNDLED},
    },
)
