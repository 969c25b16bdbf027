"""A progress bar for long command runs: rich's, on a terminal only; nothing when piped.

``with progress_bar("coverage", total) as step: ... step()`` advances it by one. The bar
goes to stderr and only when stderr is a terminal (and ``TDGEN_NO_PROGRESS`` is unset),
so piped or captured output is unchanged.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager


def _wanted(total: int) -> bool:
    return total > 1 and sys.stderr.isatty() and os.environ.get("TDGEN_NO_PROGRESS", "") in ("", "0")


@contextmanager
def progress_bar(label: str, total: int):
    if not _wanted(total):
        yield lambda n=1: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=Console(file=sys.stderr), transient=True) as bar:
        task = bar.add_task(label, total=total)
        yield lambda n=1: bar.advance(task, n)
