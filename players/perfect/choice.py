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
* else playouts cut after :data:`CUT` plies and scored by the open lines of
  the goal (``fit=lines,cutoff=8``: Lorentz, "Early Playout Termination in
  MCTS", Advances in Computer Games 2015, with the evaluation of
  :func:`~players.perfect.rules.line_evaluation`) where the goal is made of
  lines of :data:`LINE` or more conditions (connect four, five in a row) and
  random games last at least :data:`LONG` times the cut: a random playout to
  the end of a long game of lines says little of who is better (connect5,
  gomoku), while in a short one it says enough (connect four);
* else early cutoffs scored by the game's goals (``early=N``: Finnsson,
  "Generalized Monte-Carlo Tree Search Extensions for General Game Playing",
  AAAI 2012) when the goals the rules give a state a quarter of the way
  through a random game say something of the position: they differ between
  the roles in at least half of the games, and from game to game (no one
  set of goals in more than 90% of them: a goal read from whose turn it is,
  or a default held until a checkmate, is the same in every game), and the
  role ahead there goes on to win at least two random games in three (the
  cut must foretell what the rest of a random playout would have said:
  reversi's disc count a quarter of the way does not); N that quarter;
* otherwise playouts that learn which moves win, N-grams of up to three
  moves played epsilon-greedily (``playout=nst``, the ``nst`` player's
  defaults: Tak, Winands and Björnsson, "N-Grams and the Last-Good-Reply
  Policy Applied in General Game Playing", IEEE TCIAIG 2012), when the
  player's own playouts are random: where the rules give nothing to go on,
  the playouts learn from the search's own simulations which moves win (67%
  against random playouts over twelve games of the public set,
  docs/players.md).

The decision is the same on any machine (seeded random play, counted in
playouts); time only decides whether the random play is done at all: when
its playouts are not played in the time given, only the N-gram playouts are
switched on, and the player says so in its log line.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from players.perfect.heuristic import OutOfTime
from players.perfect.rules import line_evaluation, move_lessons, random_games, rules_evaluation

#: What capture-first playouts set: the options of :class:`MCTSPlayer`.
CAPTURES = {"greedy": 1.0, "defend": True, "fit": "rules"}

#: For the goals to score cut playouts (``early``), a quarter of the way
#: through random games: the least share of them whose goals differ between
#: the roles, the largest share that one set of goals may take, and the
#: least share of the games with one role ahead there and at the end (at
#: least LED of them) that it wins: the goals at the cut must foretell what
#: the rest of a random playout would have said.
SPREAD, COMMON, AGREE, LED = 0.5, 0.9, 2 / 3, 20

#: For playouts cut and scored by the lines of the goal: the plies a playout
#: runs, the fewest conditions of a line, and how many times the cut random
#: games must last on average.
CUT, LINE, LONG = 8, 4, 3

#: What N-gram playouts set where nothing else is chosen: the playout policy
#: of the ``nst`` player, with its defaults.
NGRAMS = {"playout": "nst"}


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
    why = "no piece in the rules has a distance to a goal"
    try:
        games = random_games(sm, seed=seed, until=until)
    except OutOfTime as exc:
        return Choice(dict(NGRAMS), f"random play took too long ({exc})")
    if evaluation is not None:
        lessons = move_lessons(sm, evaluation[0], games=games)
        victims, wins, _ = lessons
        captures = sum(1 for v in victims if v)
        if wins:
            return Choice(
                dict(CAPTURES),
                f"{len(wins)} moves win at once and {captures} take pieces in random play",
                evaluation,
                lessons,
            )
        why = f"no move wins at once in random play ({captures} moves take pieces)"
    lines = line_evaluation(sm)
    if lines is not None:
        shortest = min(len(line) for line in lines[3][1])
        length = sum(len(trace) for trace in games) / len(games)
        seen = f"the goal has lines of {shortest} or more and random games last {length:.1f} plies"
        if shortest >= LINE and length >= LONG * CUT:
            return Choice({"fit": "lines", "cutoff": CUT}, f"{why}; {seen}", lines)
        why = f"{why}; {seen}"
    plies, goals, ends = goal_samples(sm, games=games)
    at = f"{plies} ply" if plies == 1 else f"{plies} plies"
    if not goals:
        return Choice(dict(NGRAMS), f"{why}; random games end within {at}")
    differ = sum(len(set(g)) > 1 for g in goals) / len(goals)
    common = max(Counter(goals).values()) / len(goals)
    leads = [(leader(g), leader(e)) for g, e in zip(goals, ends)]
    led = [(a, b) for a, b in leads if a is not None and b is not None]
    agree = sum(a == b for a, b in led) / len(led) if led else 0.0
    seen = (
        f"{at} into random games the goals differ between the roles in {differ:.0%} of "
        f"them, {common:.0%} have the same ones, and who leads there wins in {agree:.0%} "
        f"of {len(led)}"
    )
    if differ >= SPREAD and common <= COMMON and agree >= AGREE and len(led) >= LED:
        return Choice({"early": plies}, f"{why}; {seen}")
    return Choice(dict(NGRAMS), f"{why}; {seen}")


def leader(goals: tuple) -> int | None:
    """The one role (its number) whose goal is the highest, else None."""
    top = max(goals)
    return goals.index(top) if goals.count(top) == 1 else None


def goal_samples(
    sm, playouts: int = 100, seed: int = 0, until: float = math.inf, games=None
) -> tuple:
    """``(plies, goals, ends)``: a quarter of the mean length of ``playouts``
    seeded random games on the kernel of ``sm`` (at least 1); for each of
    those games still going at that ply, the goals of its state there (per
    role, the highest the rules give it; 0 for none); and the same game's
    goals at its end.  The games are
    :func:`~players.perfect.rules.random_games`' (``games``, when already
    played)."""
    kernel = sm.kernel
    if games is None:
        games = random_games(sm, playouts, seed, until)
    games = [[[move for _, move in step] for step in trace] for trace in games]
    plies = max(1, round(sum(len(g) for g in games) / len(games) / 4))
    roles = range(len(sm.roles))
    goals, ends = [], []
    for joints in games:
        if len(joints) <= plies:
            continue
        state = sm.initial_state()
        for i, joint in enumerate(joints):
            if i == plies:
                kernel.load(state)
                goals.append(tuple(max(kernel.goals(r), default=0) for r in roles))
            state = kernel.next_state(state, joint)
        kernel.load(state)
        ends.append(tuple(max(kernel.goals(r), default=0) for r in roles))
    return plies, goals, ends
