"""The C-level view of a flattened tree (:mod:`ggp.solvers._flat`), the base of
the CFR and Monte Carlo CFR kernels (:mod:`ggp.solvers._cfr`,
:mod:`ggp.solvers._mccfr`)."""


cdef class FlatArrays:
    cdef int[::1] kind, child_start, child, player, infoset, move_start
    cdef double[::1] child_prob
    cdef double[:, ::1] utility
