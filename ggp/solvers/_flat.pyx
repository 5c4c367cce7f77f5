# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""A flattened tree's arrays as typed views: the base of the CFR and Monte Carlo
CFR kernels (:mod:`ggp.solvers._cfr`, :mod:`ggp.solvers._mccfr`), which read
them in their inner loops."""


cdef class FlatArrays:
    """The node arrays of ``flat``, a ``ggp.solvers.efg.FlatTree``: ``kind``,
    the children in CSR form (``child_start``, ``child``, ``child_prob``),
    ``player``, ``infoset``, ``utility`` and the information states' moves
    (``move_start``), each read once here."""

    def __init__(self, flat):
        self.kind = flat.kind
        self.child_start = flat.child_start
        self.child = flat.child
        self.child_prob = flat.child_prob
        self.player = flat.player
        self.infoset = flat.infoset
        self.utility = flat.utility
        self.move_start = flat.move_start
