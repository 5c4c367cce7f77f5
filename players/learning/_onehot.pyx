# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The first layer of a network whose inputs are 0/1 vectors with few ones
(:class:`players.learning.neural.OneHot`, the NFSP features: 15 ones in 184 slots on
Leduc), done on the positions of the ones instead of by dense products.

Each function takes the whole table of inputs as ``active`` (per input row,
the positions of its ones, padded with -1) and a batch as ``rows`` (indices of
``active``), so a minibatch is never gathered into a matrix.
"""
import numpy as np

from libc.stdint cimport int32_t, int64_t


cdef inline void _add(float* to, const float* values, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t c
    for c in range(n):
        to[c] += values[c]


def affine(float[:, ::1] w, float[::1] b, int32_t[:, ::1] active, int64_t[::1] rows):
    """``x @ w + b`` for the batch: per row, ``b`` plus the rows of ``w`` at its ones."""
    cdef Py_ssize_t n = rows.shape[0], width = w.shape[1], k = active.shape[1], i, j
    out_array = np.empty((n, width), dtype=np.float32)
    out_array[...] = b
    cdef float[:, ::1] out = out_array
    with nogil:
        for i in range(n):
            for j in range(k):
                if active[rows[i], j] < 0:
                    break
                _add(&out[i, 0], &w[active[rows[i], j], 0], width)
    return out_array


def weight_gradient(int32_t[:, ::1] active, int64_t[::1] rows, float[:, ::1] delta,
                    Py_ssize_t inputs):
    """``x.T @ delta`` for the batch: per row, ``delta``'s row added at its ones."""
    cdef Py_ssize_t n = rows.shape[0], width = delta.shape[1], k = active.shape[1], i, j
    grad_array = np.zeros((inputs, width), dtype=np.float32)
    cdef float[:, ::1] grad = grad_array
    with nogil:
        for i in range(n):
            for j in range(k):
                if active[rows[i], j] < 0:
                    break
                _add(&grad[active[rows[i], j], 0], &delta[i, 0], width)
    return grad_array
