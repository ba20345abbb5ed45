"""Long-lived objects out of the garbage collector's way.

A full garbage collection walks every container object the process holds. After start-up that is well over
a hundred thousand of them (the imported libraries, SQLAlchemy's compiled statements, the search index), and
on these machines a full pass takes 55–80 ms: whichever search, turn or Slack acknowledgement it lands in waits
for it (it was the desk's worst search latency, and the p99 of like-ticket searches at 100,000 tickets).

`settle()` collects what is garbage now, then moves everything still alive into the collector's permanent
generation (`gc.freeze`). Reference counting still frees those objects; the collector's passes no longer walk
them, so later full passes only see what was made since. It runs once the process has what it keeps for
good: `kitebase serve` and `kitebase worker` after their start-up, and the first time a search index is loaded
(and again whenever a big one is).
"""

from __future__ import annotations

import ctypes
import gc
import logging
import threading
import time
from typing import Any

logger = logging.getLogger(__name__)

_lock = threading.Lock()
_settled = False


def settle(reason: str) -> None:
    """Collect, then freeze what is alive (see the module's text); then hand the memory freed back to the
    system."""
    global _settled
    with _lock:
        started = time.perf_counter()
        gc.collect()  # what is garbage already goes first, so it is not kept for ever
        gc.freeze()
        _settled = True
        _trim()
        logger.debug("heap settled after %s: %d objects frozen in %.0f ms", reason, gc.get_freeze_count(),
                     (time.perf_counter() - started) * 1000)


def _trim() -> None:
    """glibc keeps the memory of freed allocations for the process; a search index load frees a hundred
    thousand rows' worth (about 100 MB at 100,000 tickets) in pieces it would never return. malloc_trim gives
    it back (elsewhere: nothing to do)."""
    global _malloc_trim
    if _malloc_trim is None:
        try:
            _malloc_trim = ctypes.CDLL(None).malloc_trim  # the C library the interpreter runs on
        except (OSError, AttributeError):
            _malloc_trim = False
    if _malloc_trim:
        _malloc_trim(0)


_malloc_trim: Any = None


def settle_once(reason: str) -> bool:
    """`settle()` unless this process did already; True when it settled now."""
    if _settled:
        return False
    settle(reason)
    return True
