"""Game descriptions written by this project; ``ggp.load_game(name)`` finds them."""
