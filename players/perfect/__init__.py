"""Players of perfect-information games: the MCTS core and its players (uct,
mast, nst, lgr), the C tree and the material evaluation."""
