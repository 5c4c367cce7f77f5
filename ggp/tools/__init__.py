"""What the ggp command's check, count and bench compute: random-playout
checks, perft counts and speed measurements of a state machine."""
