"""Plain-Python versions of the games in ``games_gdl``, for checking the reasoners.

Each game here is written from its rules in words (the comment block at the top
of its ``.kif`` file), without GDL and without any of the project's code, so that
agreement between a walk of these and a walk of the GDL through a reasoner is
evidence that both are right.

A game is an object with ``roles``, ``initial()``, ``legal(state)`` (one list of
moves per role, in role order), ``next(state, joint)``, ``terminal(state)`` and
``goals(state)`` (one int per role).  Moves are spelled as GDL terms (a ``str``
constant or a ``tuple`` ``(functor, arg, ...)`` of ``str``), the way
``StateMachine.legal_moves`` returns them, so that a test can replay the same
joint moves in both and compare move lists, terminality and goals step by step.

``count(game, depth)`` walks the tree exhaustively (every joint move one edge),
memoised on (state, remaining depth); its figures mean what ``ggp.tools.count.count``
says they mean: nodes (root included), terminal leaves, distinct states in the
tree, and the longest path in plies.

Run ``python tests/brute_force.py [game] [depth]`` to print the counts.
"""

from __future__ import annotations

import itertools
import sys
import time

NOOP = "noop"


def count(game, depth: int | None = None) -> dict:
    """Exhaustive walk to ``depth`` plies (None: to the end)."""
    memo: dict = {}
    seen: set = set()

    def walk(state, left):
        key = (state, left)
        if key in memo:
            return memo[key]
        seen.add(state)
        if game.terminal(state):
            result = (1, 1, 0)
        elif left == 0:
            result = (1, 0, 0)
        else:
            nodes, terminals, longest = 1, 0, 0
            for joint in itertools.product(*game.legal(state)):
                n, t, d = walk(game.next(state, joint), None if left is None else left - 1)
                nodes += n
                terminals += t
                longest = max(longest, d + 1)
            result = (nodes, terminals, longest)
        memo[key] = result
        return result

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 10000))
    try:
        nodes, terminals, longest = walk(game.initial(), depth)
    finally:
        sys.setrecursionlimit(old)
    return {
        "nodes": nodes,
        "terminals": terminals,
        "distinct_states": len(seen),
        "max_depth": longest,
    }


def _turn_moves(roles, mover, moves):
    """Per role: ``moves`` for the mover, ``[noop]`` for everybody else."""
    return tuple(list(moves) if i == mover else [NOOP] for i in range(len(roles)))


def _mover_move(joint, mover):
    return joint[mover]


# --- m,n,k games: tic-tac-toe and its three-player variant ------------------------


class MarkGame:
    """Players in turn put their mark on an empty square of a rows x cols board;
    ``k`` own marks adjacent in a row, column or diagonal win (100, others 0);
    a full board without such a line is a draw (50 for all).

    State: (board, mover) where board is a tuple of rows*cols entries, each a
    player index or None.
    """

    def __init__(self, roles, rows, cols, k):
        self.roles = tuple(roles)
        self.rows, self.cols, self.k = rows, cols, k
        self.lines = []
        for r in range(rows):
            for c in range(cols):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    cells = [(r + i * dr, c + i * dc) for i in range(k)]
                    if all(0 <= rr < rows and 0 <= cc < cols for rr, cc in cells):
                        self.lines.append(tuple(rr * cols + cc for rr, cc in cells))

    def initial(self):
        return ((None,) * (self.rows * self.cols), 0)

    def winner(self, state):
        board = state[0]
        for line in self.lines:
            first = board[line[0]]
            if first is not None and all(board[i] == first for i in line):
                return first
        return None

    def terminal(self, state):
        return self.winner(state) is not None or None not in state[0]

    def legal(self, state):
        board, mover = state
        moves = [
            ("mark", str(i // self.cols + 1), str(i % self.cols + 1))
            for i, x in enumerate(board)
            if x is None
        ]
        return _turn_moves(self.roles, mover, moves)

    def next(self, state, joint):
        board, mover = state
        _, r, c = joint[mover]
        i = (int(r) - 1) * self.cols + int(c) - 1
        assert board[i] is None
        board = board[:i] + (mover,) + board[i + 1 :]
        return (board, (mover + 1) % len(self.roles))

    def goals(self, state):
        w = self.winner(state)
        if w is None:
            return (50,) * len(self.roles)
        return tuple(100 if i == w else 0 for i in range(len(self.roles)))


def tictactoe():
    return MarkGame(("xplayer", "oplayer"), 3, 3, 3)


def tictactoe3p():
    return MarkGame(("red", "green", "blue"), 4, 4, 3)


# --- Connect Four ---------------------------------------------------------------------


class ConnectFour:
    """7 columns x 6 rows; a disc dropped into a column falls to its lowest free
    cell; four own discs in a line win; a full grid is a draw.

    State: (columns, mover), columns a tuple of 7 tuples of player indices,
    bottom first.
    """

    roles = ("red", "black")
    COLS, ROWS = 7, 6

    def initial(self):
        return (((),) * self.COLS, 0)

    def winner(self, state):
        cols = state[0]

        def at(c, r):
            if 0 <= c < self.COLS and 0 <= r < len(cols[c]):
                return cols[c][r]
            return None

        for c in range(self.COLS):
            for r in range(len(cols[c])):
                who = cols[c][r]
                for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                    if all(at(c + i * dc, r + i * dr) == who for i in range(1, 4)):
                        return who
        return None

    def terminal(self, state):
        return self.winner(state) is not None or all(len(col) == self.ROWS for col in state[0])

    def legal(self, state):
        cols, mover = state
        moves = [("drop", str(c + 1)) for c in range(self.COLS) if len(cols[c]) < self.ROWS]
        return _turn_moves(self.roles, mover, moves)

    def next(self, state, joint):
        cols, mover = state
        c = int(joint[mover][1]) - 1
        assert len(cols[c]) < self.ROWS
        cols = cols[:c] + (cols[c] + (mover,),) + cols[c + 1 :]
        return (cols, 1 - mover)

    def goals(self, state):
        w = self.winner(state)
        if w is None:
            return (50, 50)
        return (100, 0) if w == 0 else (0, 100)


# --- Breakthrough ---------------------------------------------------------------------


class Breakthrough:
    """n x n board; white (index 0) starts on ranks 1-2 and moves up, black on
    the top two ranks and moves down; one step forward, straight onto an empty
    square or diagonally onto a square without an own pawn (capturing).
    Reaching the far rank or taking every enemy pawn wins.

    State: (white pawns, black pawns, mover), pawns as frozensets of (file, rank),
    both 1-based.
    """

    roles = ("white", "black")

    def __init__(self, n):
        self.n = n

    def initial(self):
        n = self.n
        white = frozenset((f, r) for f in range(1, n + 1) for r in (1, 2))
        black = frozenset((f, r) for f in range(1, n + 1) for r in (n - 1, n))
        return (white, black, 0)

    def winner(self, state):
        white, black, _ = state
        if not black or any(r == self.n for _, r in white):
            return 0
        if not white or any(r == 1 for _, r in black):
            return 1
        return None

    def terminal(self, state):
        return self.winner(state) is not None

    def legal(self, state):
        white, black, mover = state
        own, other = (white, black) if mover == 0 else (black, white)
        step = 1 if mover == 0 else -1
        moves = []
        for f, r in own:
            r2 = r + step
            if not 1 <= r2 <= self.n:
                continue
            for f2 in (f - 1, f, f + 1):
                if not 1 <= f2 <= self.n or (f2, r2) in own:
                    continue
                if f2 == f and (f2, r2) in other:
                    continue
                moves.append(("move", str(f), str(r), str(f2), str(r2)))
        return _turn_moves(self.roles, mover, sorted(moves))

    def next(self, state, joint):
        white, black, mover = state
        _, f, r, f2, r2 = joint[mover]
        src, dst = (int(f), int(r)), (int(f2), int(r2))
        own, other = (white, black) if mover == 0 else (black, white)
        assert src in own and dst not in own
        own = (own - {src}) | {dst}
        other = other - {dst}
        return (own, other, 1) if mover == 0 else (other, own, 0)

    def goals(self, state):
        return (100, 0) if self.winner(state) == 0 else (0, 100)


def breakthrough():
    return Breakthrough(8)


def breakthroughsmall():
    return Breakthrough(6)


# --- Nim --------------------------------------------------------------------------------


class Nim:
    """Heaps a, b, c, d of 1, 3, 5, 7; take one or more from one heap; whoever
    takes the last object wins.  State: (heap sizes, mover)."""

    roles = ("first", "second")
    NAMES = ("a", "b", "c", "d")

    def __init__(self, heaps=(1, 3, 5, 7)):
        self.heaps = tuple(heaps)

    def initial(self):
        return (self.heaps, 0)

    def terminal(self, state):
        return not any(state[0])

    def legal(self, state):
        heaps, mover = state
        moves = [
            ("take", self.NAMES[h], str(k))
            for h, size in enumerate(heaps)
            for k in range(1, size + 1)
        ]
        return _turn_moves(self.roles, mover, moves)

    def next(self, state, joint):
        heaps, mover = state
        _, name, k = joint[mover]
        h = self.NAMES.index(name)
        assert 1 <= int(k) <= heaps[h]
        heaps = heaps[:h] + (heaps[h] - int(k),) + heaps[h + 1 :]
        return (heaps, 1 - mover)

    def goals(self, state):
        # the player to move when the heaps are empty did not take the last object
        loser = state[1]
        return tuple(0 if i == loser else 100 for i in range(2))


# --- Repeated rock-paper-scissors ------------------------------------------------------


class RockPaperScissors:
    """Three simultaneous rounds; a round's winner scores a point; more points
    100, equal 50, fewer 0.  State: (rounds played, left's points, right's)."""

    roles = ("left", "right")
    CHOICES = ("paper", "rock", "scissors")
    BEATS = {"rock": "scissors", "scissors": "paper", "paper": "rock"}

    def __init__(self, rounds=3):
        self.rounds = rounds

    def initial(self):
        return (0, 0, 0)

    def terminal(self, state):
        return state[0] == self.rounds

    def legal(self, state):
        return (list(self.CHOICES), list(self.CHOICES))

    def next(self, state, joint):
        n, a, b = state
        x, y = joint
        return (n + 1, a + (self.BEATS[x] == y), b + (self.BEATS[y] == x))

    def goals(self, state):
        _, a, b = state
        if a == b:
            return (50, 50)
        return (100, 0) if a > b else (0, 100)


# --- Lights Out ------------------------------------------------------------------------


class LightsOut:
    """3x3 lamps; pressing one switches it and its orthogonal neighbours; solved
    when all are dark; at most 6 presses.  Start: all lit but (2,2) and (3,3).
    State: (frozenset of lit (row, col), presses made)."""

    roles = ("player",)
    SIZE, LIMIT = 3, 6

    def initial(self):
        lit = {(r, c) for r in range(1, 4) for c in range(1, 4)} - {(2, 2), (3, 3)}
        return (frozenset(lit), 0)

    def terminal(self, state):
        return not state[0] or state[1] == self.LIMIT

    def legal(self, state):
        return ([("press", str(r), str(c)) for r in range(1, 4) for c in range(1, 4)],)

    def next(self, state, joint):
        lit, steps = state
        _, r, c = joint[0]
        r, c = int(r), int(c)
        switched = {
            (r + dr, c + dc)
            for dr, dc in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1))
            if 1 <= r + dr <= 3 and 1 <= c + dc <= 3
        }
        return (lit ^ frozenset(switched), steps + 1)

    def goals(self, state):
        return (0 if state[0] else 100,)


GAMES = {
    "tictactoe": tictactoe,
    "connectfour": ConnectFour,
    "breakthrough": breakthrough,
    "breakthroughsmall": breakthroughsmall,
    "nim": Nim,
    "rps": RockPaperScissors,
    "tictactoe3p": tictactoe3p,
    "lightsout": LightsOut,
}


def make(name):
    return GAMES[name]()


# --- GDL-II games: Leduc hold'em, imperfect-information Goofspiel, phantom tic-tac-toe ---


class Kuhn:
    """Kuhn poker: three cards (jack < queen < king), ante 1, the random role
    deals first's card then second's; first checks or bets 1; after a check
    second checks or bets, and first folds or calls a bet; after a bet second
    folds or calls.  Goals 50 + 25 x chips won (random: 0).
    State: (cards dealt in order, betting actions in order)."""

    roles = ("first", "second", "random")
    CARDS = ("jack", "king", "queen")  # the order GDL sorts them in
    RANK = {"jack": 0, "queen": 1, "king": 2}
    # betting actions so far -> (player to act, options); missing: terminal
    TURNS = {
        (): (0, ("bet", "check")),
        ("check",): (1, ("bet", "check")),
        ("bet",): (1, ("call", "fold")),
        ("check", "bet"): (0, ("call", "fold")),
    }

    def initial(self):
        return ((), ())

    def terminal(self, state):
        return len(state[0]) == 2 and state[1] not in self.TURNS

    def legal(self, state):
        cards, actions = state
        if len(cards) < 2:
            player = ("first", "second")[len(cards)]
            return (["noop"], ["noop"], [("deal", player, c) for c in self.CARDS if c not in cards])
        who, options = self.TURNS[actions]
        out = [["noop"], ["noop"], ["noop"]]
        out[who] = list(options)
        return tuple(out)

    def next(self, state, joint):
        cards, actions = state
        if len(cards) < 2:
            return (cards + (joint[2][2],), actions)
        who, _ = self.TURNS[actions]
        return (cards, actions + (joint[who],))

    def chips(self, state):
        """First's winnings in chips at a terminal state."""
        cards, actions = state
        if actions[-1] == "fold":
            return 1 if len(actions) == 2 else -1  # second folded / first folded
        stake = 2 if "bet" in actions else 1
        return stake if self.RANK[cards[0]] > self.RANK[cards[1]] else -stake

    def goals(self, state):
        c = self.chips(state)
        return (50 + 25 * c, 50 - 25 * c, 0)


class Leduc:
    """Leduc hold'em as in OpenSpiel: six cards (j1 j2 q1 q2 k1 k2), ante 1, the
    random role deals first's card, second's card, then (after betting round 1)
    the public card, one a step; bets raise 2 in round 1 and 4 in round 2, at most
    2 raises a round, fold only when facing a raise; pair with the public card
    beats high card, equal ranks split.  Goals 50 + 3 x chips won (random: 0).
    State: (dealt cards in order, betting moves of round 1, of round 2)."""

    roles = ("first", "second", "random")
    DECK = ("j1", "j2", "k1", "k2", "q1", "q2")
    RANK = {"j": 0, "q": 1, "k": 2}
    RAISE = (2, 4)

    def initial(self):
        return ((), (), ())

    @staticmethod
    def _round_over(moves):
        # a call ends the round unless it is the very first move of the round
        return len(moves) >= 2 and moves[-1] == "call"

    def _status(self, state):
        """('deal', None) | ('bet', player index) | ('fold', folder) | ('showdown', None)"""
        cards, r1, r2 = state
        if len(cards) < 2:
            return "deal", None
        for i, moves in enumerate((r1, r2)):
            if moves and moves[-1] == "fold":
                return "fold", (len(moves) - 1) % 2
            if not self._round_over(moves):
                return "bet", len(moves) % 2
            if i == 0 and len(cards) < 3:
                return "deal", None
        return "showdown", None

    def _contributions(self, state):
        put = [1, 1]
        for rnd, moves in enumerate(state[1:]):
            for k, m in enumerate(moves):
                p = k % 2
                if m == "call":
                    put[p] = put[1 - p]
                elif m == "raise":
                    put[p] = put[1 - p] + self.RAISE[rnd]
        return put

    def terminal(self, state):
        return self._status(state)[0] in ("fold", "showdown")

    def legal(self, state):
        kind, who = self._status(state)
        if kind == "deal":
            return (["noop"], ["noop"], [("deal", c) for c in self.DECK if c not in state[0]])
        moves = state[1] if len(state[0]) < 3 else state[2]
        options = ["call"]
        if moves.count("raise") < 2:
            options.append("raise")
        if moves and moves[-1] == "raise":
            options.append("fold")
        out = [["noop"], ["noop"], ["noop"]]
        out[who] = options
        return tuple(out)

    def next(self, state, joint):
        cards, r1, r2 = state
        kind, who = self._status(state)
        if kind == "deal":
            return (cards + (joint[2][1],), r1, r2)
        if len(cards) < 3:
            return (cards, r1 + (joint[who],), r2)
        return (cards, r1, r2 + (joint[who],))

    def chips(self, state):
        """First's winnings in chips at a terminal state."""
        kind, who = self._status(state)
        put = self._contributions(state)
        if kind == "fold":
            return -put[0] if who == 0 else put[1]
        cards = state[0]
        public = self.RANK[cards[2][0]]

        def strength(card):
            rank = self.RANK[card[0]]
            return (rank == public, rank)

        a, b = strength(cards[0]), strength(cards[1])
        return 0 if a == b else (put[1] if a > b else -put[0])

    def goals(self, state):
        c = self.chips(state)
        return (50 + 3 * c, 50 - 3 * c, 0)


class ImperfectGoofspiel:
    """N cards 1..N each, prizes N, N-1, .., 1 in that order, simultaneous bids
    (play ?card), the higher card wins the prize (equal: nobody); more points 100,
    equal 50, fewer 0.  State: (first's cards left, second's, first's points
    minus second's)."""

    roles = ("first", "second")

    def __init__(self, n=4):
        self.n = n

    def initial(self):
        full = frozenset(range(1, self.n + 1))
        return (full, full, 0)

    def terminal(self, state):
        return not state[0]

    def legal(self, state):
        return tuple([("play", str(c)) for c in sorted(hand)] for hand in state[:2])

    def next(self, state, joint):
        a, b, lead = state
        x, y = int(joint[0][1]), int(joint[1][1])
        prize = len(a)  # prizes fall from N as the hands shrink
        lead += prize if x > y else -prize if y > x else 0
        return (a - {x}, b - {y}, lead)

    def goals(self, state):
        lead = state[2]
        return (50, 50) if lead == 0 else (100, 0) if lead > 0 else (0, 100)


class PhantomTicTacToe:
    """OpenSpiel phantom_ttt: xplayer and oplayer take turns to try a square they
    have not marked and not already found taken; an empty square gets the mover's
    mark and the turn passes; a square the opponent holds stays as it is, the
    mover learns it is taken and tries again.  Three in a row wins (100/0), a full
    board without a line is a draw (50 each).  State: (board as 9 chars 'x'/'o'/'.',
    squares found taken by x, by o, index of the mover)."""

    roles = ("xplayer", "oplayer")
    MARKS = "xo"
    LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]

    def initial(self):
        return ("." * 9, frozenset(), frozenset(), 0)

    def _line(self, board, mark):
        return any(all(board[i] == mark for i in line) for line in self.LINES)

    def terminal(self, state):
        board = state[0]
        return "." not in board or self._line(board, "x") or self._line(board, "o")

    def legal(self, state):
        board, found_x, found_o, mover = state
        found = (found_x, found_o)[mover]
        mine = self.MARKS[mover]
        squares = [
            ("mark", str(i // 3 + 1), str(i % 3 + 1))
            for i in range(9)
            if board[i] != mine and i not in found
        ]
        return _turn_moves(self.roles, mover, squares)

    def next(self, state, joint):
        board, found_x, found_o, mover = state
        _, r, c = joint[mover]
        i = (int(r) - 1) * 3 + int(c) - 1
        if board[i] == ".":
            board = board[:i] + self.MARKS[mover] + board[i + 1 :]
            return (board, found_x, found_o, 1 - mover)
        if mover == 0:
            return (board, found_x | {i}, found_o, mover)
        return (board, found_x, found_o | {i}, mover)

    def goals(self, state):
        board = state[0]
        if self._line(board, "x"):
            return (100, 0)
        if self._line(board, "o"):
            return (0, 100)
        return (50, 50)


class LiarsDice:
    """Liar's Dice LD(1,1,6) as OpenSpiel's liars_dice: the random role rolls
    first's die then second's; then first, second, first, ... bid (quantity
    face) above the last bid in the order (1 1) < ... < (1 6) < (2 1) < ... < (2 6),
    or call the last bid (not before the first); a 6 is wild.  The bidder of a
    true bid wins (100), else the caller.  State: (dice rolled, bids, called)."""

    roles = ("first", "second", "random")
    BIDS = tuple((q, f) for q in (1, 2) for f in range(1, 7))

    def initial(self):
        return ((), (), False)

    def terminal(self, state):
        return state[2]

    def legal(self, state):
        dice, bids, _ = state
        if len(dice) < 2:
            return (["noop"], ["noop"], [("roll", str(f)) for f in range(1, 7)])
        higher = self.BIDS[self.BIDS.index(bids[-1]) + 1 :] if bids else self.BIDS
        out = [["noop"], ["noop"], ["noop"]]
        out[len(bids) % 2] = [("bid", str(q), str(f)) for q, f in higher] + (
            ["call"] if bids else []
        )
        return tuple(out)

    def next(self, state, joint):
        dice, bids, _ = state
        if len(dice) < 2:
            return (dice + (int(joint[2][1]),), bids, False)
        move = joint[len(bids) % 2]
        if move == "call":
            return (dice, bids, True)
        return (dice, bids + ((int(move[1]), int(move[2])),), False)

    def goals(self, state):
        dice, bids, _ = state
        quantity, face = bids[-1]
        true = sum(1 for d in dice if d in (face, 6)) >= quantity
        bidder = (len(bids) - 1) % 2
        winner = bidder if true else 1 - bidder
        return (100 if winner == 0 else 0, 100 if winner == 1 else 0, 0)


class BiasedRPS:
    """One round of rock-paper-scissors where rock beats scissors by 2 and the
    other wins are by 1; goals 50 + 25 x points.  State: the joint move."""

    roles = ("first", "second")
    WINS = {("paper", "rock"): 1, ("scissors", "paper"): 1, ("rock", "scissors"): 2}

    def initial(self):
        return None

    def terminal(self, state):
        return state is not None

    def legal(self, state):
        return (["paper", "rock", "scissors"],) * 2

    def next(self, state, joint):
        return tuple(joint)

    def goals(self, state):
        a, b = state
        points = self.WINS.get((a, b), 0) - self.WINS.get((b, a), 0)
        return (50 + 25 * points, 50 - 25 * points)


GAMES.update(
    {
        "kuhn": Kuhn,
        "liarsdice": LiarsDice,
        "brps": BiasedRPS,
        "leduc": Leduc,
        "iigs4": lambda: ImperfectGoofspiel(4),
        "iigs5": lambda: ImperfectGoofspiel(5),
        "iigs13": lambda: ImperfectGoofspiel(13),
        "phantomttt": PhantomTicTacToe,
    }
)


if __name__ == "__main__":
    names = [sys.argv[1]] if len(sys.argv) > 1 else list(GAMES)
    depth = int(sys.argv[2]) if len(sys.argv) > 2 else None
    for name in names:
        t = time.perf_counter()
        print(name, count(make(name), depth), f"{time.perf_counter() - t:.2f}s")
