"""The machine: games, state machines (reference and compiled), counts and checks.

>>> game = load_game("tictactoe")
>>> sm = game.state_machine()
>>> s = sm.initial_state()
>>> len(sm.legal_moves(s, "xplayer"))
9
"""

from ggp.game import Game, game_names, load_game
from ggp.statemachine import GameError, Interrupted, RuleError, StateMachine, term_key

__all__ = [
    "Game",
    "GameError",
    "Interrupted",
    "RuleError",
    "StateMachine",
    "game_names",
    "load_game",
    "term_key",
]
