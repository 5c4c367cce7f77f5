# cython: language_level=3, boundscheck=False, wraparound=False
"""Information-state keys: a 64-bit hash of a role's own moves and percepts,
extended one step at a time, the same in Python (:func:`extend_key`, for
:mod:`players.belief`) and in C (``_extend`` in ``_keys.pxd``, for the
searches of :mod:`players._ismcts`), so that a search in C finds the node of
the information state the belief is in.

Moves and percepts are the compiled reasoner's numbers; the reference
reasoner's terms are taken by their Python hash (the same within a process),
folded to 32 bits.
"""
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport free, malloc

from players._keys cimport _extend


cdef inline int32_t _number(x):
    """A percept's number: itself when an int, else its hash folded to 32 bits."""
    cdef int64_t h
    if type(x) is int:
        return <int32_t> x
    h = hash(x)
    return <int32_t> (h ^ (h >> 32))


def extend_key(uint64_t key, move, seen) -> int:
    """The key of an information state after the role played ``move`` and saw
    ``seen`` (a tuple, in a fixed order)."""
    cdef int n = len(seen), i
    cdef int32_t[32] small
    cdef int32_t* ids = &small[0]
    cdef uint64_t out
    if n > 32:
        ids = <int32_t*> malloc(n * sizeof(int32_t))
        if ids == NULL:
            raise MemoryError()
    try:
        for i in range(n):
            ids[i] = _number(seen[i])
        out = _extend(key, <uint64_t> <int64_t> _number(move), ids, n)
    finally:
        if n > 32:
            free(ids)
    return out
