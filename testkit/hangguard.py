"""A timeout for one call in a test: ``no_hang(seconds)`` raises ``Hang`` when the body
runs longer (SIGALRM, so the main thread of a Unix process only).

It proves a reader returns on an input (a 10 MB file, nesting 100,000 deep) rather than
timing it: the limit is generous, far above the time the input takes, and only a reader
that never finishes (or takes orders of magnitude too long) trips it.
"""

from __future__ import annotations

import contextlib
import signal
from typing import Iterator


class Hang(AssertionError):
    """The guarded body ran past its limit."""


@contextlib.contextmanager
def no_hang(seconds: float, what: str = "the call") -> Iterator[None]:
    """Run the body with a ``seconds`` limit (nested guards keep the outer one's alarm)."""

    def fire(signum, frame):  # noqa: ARG001 -- signal handler signature
        raise Hang(f"{what} did not return within {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, fire)
    outer = signal.setitimer(signal.ITIMER_REAL, seconds)[0]
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer:
            signal.setitimer(signal.ITIMER_REAL, outer)
