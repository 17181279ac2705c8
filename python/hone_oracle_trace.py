"""The oracle's part of hone's timeline (core/trace.h): where one request's
wall time goes, step by step. Off unless the environment sets HONE_TRACE
(to anything but "" or "0"), as for hone itself; then the steps of a
request ride on its reply as "trace" ([[what, seconds since the request
began], ...]) and hone prints them among its own trace lines. Costs one
check when off. Not thread-safe: the oracle serves one request at a time.
"""

import os
import time
from typing import List, Tuple

ENABLED = os.environ.get("HONE_TRACE", "") not in ("", "0")

_start = time.monotonic()
_steps: List[Tuple[str, float]] = []


def begin() -> None:
    """A request starts: its steps are timed from now."""
    global _start
    if ENABLED:
        _start = time.monotonic()
        _steps.clear()


def step(what: str) -> None:
    """`what` has just finished."""
    if ENABLED:
        _steps.append((what, round(time.monotonic() - _start, 4)))


def take() -> List[Tuple[str, float]]:
    """The request's steps so far, and none after."""
    out = list(_steps)
    _steps.clear()
    return out
