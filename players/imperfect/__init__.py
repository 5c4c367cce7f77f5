"""Players of imperfect-information games: IS-MCTS, Smooth UCT and extensive-
form UCT; the solving players (mccfr, oos, mccr) over the whole tree or a
tree grown by sampling; their online evaluation."""
