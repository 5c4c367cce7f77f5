"""The handover from the demand-driven reasoner to the compiled one.

A compiled machine can take longer to build than a match gives
(:meth:`ggp.Game.build` builds it in the background).  Whoever follows a
match (a player, the server's view of the position, the manager) then starts
on :data:`FALLBACK` and moves to the compiled machine at the first turn after
its build ends: :class:`Handover` is that rule, written once; each caller
says in its own log line what it does, and carries its position over.
"""

from __future__ import annotations

import math
import time
from concurrent.futures import wait

from ggp.reasoners import COMPILED, DEMAND

#: The reasoner followed while the compiled machine builds: the one a game too
#: large to ground runs on anyway, and on the slow-building games measured the
#: faster of the two (docs/matches.md, "Ready within the start clock").
FALLBACK = DEMAND


class Handover:
    """The machine to follow ``game`` on, first (:attr:`sm`) and later
    (:meth:`moved`).

    For any reasoner but the compiled one, its machine, for good.  For the
    compiled one: its machine when the build ends by ``until`` (a
    ``time.monotonic()`` instant; the default: when it is done already) or
    when ``wait`` (however long it takes); otherwise the fallback's machine
    (its build begun beside the compiled one's, while waiting), and
    :attr:`building` is the compiled build to move to.  A build that failed
    by ``until`` raises here, as :meth:`ggp.Game.state_machine` does.
    """

    def __init__(self, game, reasoner: str, wait_for_build: bool = False, until: float = -math.inf):
        self.game = game
        #: the compiled build to move to, while on the fallback; else None
        self.building = None
        if reasoner != COMPILED:
            self.sm = game.state_machine(reasoner)
            return
        build = game.build()
        if wait_for_build:
            self.sm = game.state_machine()
            return
        if not build.done():  # the fallback's static relations can take a while too
            game.build(FALLBACK)
        if wait([build], max(0.0, until - time.monotonic())).done:
            build.result()  # raises if it failed, or was cancelled
            self.sm = game.state_machine()
            return
        self.building = build
        self.sm = game.state_machine(FALLBACK)

    def moved(self, failed=None):
        """The compiled machine, once, when its build has ended since START
        and the game grounded (:attr:`sm` becomes it); else None: still
        building, nothing to move to, or the build ended on the
        demand-driven reasoner (the game did not ground: the machine
        followed is that one already) or failed, which ``failed(exception)``
        is told, once."""
        build = self.building
        if build is None or not build.done():
            return None
        self.building = None
        if build.exception() is not None:
            if failed is not None:
                failed(build.exception())
            return None
        if build.result() != COMPILED:
            return None
        self.sm = self.game.state_machine()
        return self.sm
