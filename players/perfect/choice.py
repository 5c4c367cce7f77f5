"""What a search player switches on for a game, decided at the start clock
from its rules and a little random play (``auto``, on by default in ``uct``).

The knowledge the player can use (:mod:`players.perfect.rules`) helps on some
games and hurts on others, and nothing in a game's description says which it
is.  The choice here is a rule read from the game, measured on games apart
from those it is judged on (docs/players.md, "Deciding per game"):

* capture-first playouts that win, defend and take
  (``greedy=1,defend=true,fit=rules``: Lorentz and Horey, "Programming
  Breakthrough", Computers and Games 2013; Teytaud and Teytaud, "On the Huge
  Benefit of Decisive Moves in Monte-Carlo Tree Search Algorithms", CIG 2010)
  go on when the rules give the pieces a distance to a goal and random play
  shows moves that win at once every time they are played: a race to a goal
  with pieces that can be taken on the way (breakthrough, knightThrough);
* otherwise nothing: plain UCT.

The decision is the same on any machine (seeded random play, counted in
playouts); time only decides whether it is made at all (when the playouts
are not played in the time given, nothing is switched on, and the player
says so once).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from players.perfect.heuristic import OutOfTime
from players.perfect.rules import move_lessons, rules_evaluation

#: What capture-first playouts set: the options of :class:`MCTSPlayer`.
CAPTURES = {"greedy": 1.0, "defend": True, "fit": "rules"}


@dataclass
class Choice:
    """The options switched on (name -> value; none: plain search), why, and
    what was learned on the way, for the player to reuse: the rules'
    evaluation and :func:`~players.perfect.rules.move_lessons`' answer."""

    settings: dict = field(default_factory=dict)
    reason: str = ""
    evaluation: tuple | None = None
    lessons: tuple | None = None


def choose(sm, seed: int = 0, until: float = math.inf) -> Choice:
    """The knowledge for the game of the compiled state machine ``sm``
    (two or more roles, perfect information), from 100 random playouts
    drawn from ``seed``, to be played by ``until``."""
    evaluation = rules_evaluation(sm)
    if evaluation is None:
        return Choice(reason="no piece in the rules has a distance to a goal")
    try:
        lessons = move_lessons(sm, evaluation[0], seed=seed, until=until)
    except OutOfTime as exc:
        return Choice(reason=f"random play took too long ({exc})")
    victims, wins, _ = lessons
    captures = sum(1 for v in victims if v)
    if not wins:
        return Choice(reason=f"no move wins at once in random play ({captures} moves take pieces)")
    return Choice(
        dict(CAPTURES),
        f"{len(wins)} moves win at once and {captures} take pieces in random play",
        evaluation,
        lessons,
    )
