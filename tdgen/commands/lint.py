"""``tdgen lint TARGET``: pattern-set findings (patterns/select/lint.py); exit 1 on any error-level finding."""

from __future__ import annotations

import sys

from .common import add_target_argument, load_target, target_argument


def configure(parser):
    add_target_argument(parser)


def run(args) -> int:
    from patterns.select.lint import lint_target

    target = load_target(target_argument(args, "lint"))
    findings = lint_target(target)
    for f in findings:
        sys.stdout.write(f.format() + "\n")
    errors = sum(1 for f in findings if f.level == "error")
    warnings = len(findings) - errors
    sys.stdout.write(f"{target.name}: {errors} error(s), {warnings} warning(s)\n")
    return 1 if errors else 0
