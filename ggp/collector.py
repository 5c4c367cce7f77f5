"""The cyclic garbage collector, paused while a long computation allocates.

A full collection walks every object the process holds, holding the
interpreter's lock: past a few million objects (a large game's ground program
and network, a search tree) one takes seconds, during which no other thread
runs (amazons' build stalled a searching thread for 0.3-7 s at a time).  The
work that allocates much and frees little (a search, a build) pauses the
collector, and what it allocated is then frozen out of the collector's reach
(``gc.freeze``): reference counting still frees what is dropped, only cycles
among frozen objects would stay (the trees and networks hold none).

Pauses nest and may overlap across threads: the collector runs again when the
last one ends, if it ran before the first began.
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager

_lock = threading.Lock()
_pauses = 0
_was_enabled = False


@contextmanager
def collector_paused():
    """No automatic collection inside the block (nor in other threads
    meanwhile); what was allocated is frozen when it ends."""
    global _pauses, _was_enabled
    with _lock:
        if _pauses == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _lock:
            gc.freeze()
            _pauses -= 1
            if _pauses == 0 and _was_enabled:
                gc.enable()
