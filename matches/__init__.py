"""The arena: the GGP protocol, the player server, the game manager (local and
remote players), match records, studies, and the ``ggp`` command line."""
