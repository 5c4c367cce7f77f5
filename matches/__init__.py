"""The arena: local matches, the command line (and, later, the GGP protocol)."""
