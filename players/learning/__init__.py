"""Learning by self-play: Smooth UCT and extensive-form UCT learners, NFSP and
MC-NFSP (on a tree or by sampling) with their players, the neural networks,
and learning curves."""
