"""The extensive form of a GDL-II game and its solvers: the tree, CFR and CFR+,
Monte Carlo CFR, resolving and public states, exact best responses and
exploitability, information-state features."""
