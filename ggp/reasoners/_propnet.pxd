"""The C-level interface of the network kernel (:mod:`ggp.reasoners._propnet`), for
modules that run their own playouts on it (the playout policies in
:mod:`players`): load a state, read the legal move sets, choose a joint move
into ``chosen``, then ``_do()`` and ``_advance()`` to reach the next state.

Moves are numbered across roles (``move_role[m]``, role r's moves from
``role_start[r]``); ``legal_list[role_start[r]:role_start[r] + legal_count[r]]``
holds role r's legal moves in the current state (in no particular order).
"""
cimport cython
from libc.stdint cimport uint8_t, uint32_t, uint64_t, int32_t, int64_t


cdef inline uint64_t _xorshift(uint64_t* s) noexcept nogil:
    """Marsaglia's xorshift64: the kernel's fast pseudo-random numbers."""
    cdef uint64_t x = s[0]
    x ^= x << 13
    x ^= x >> 7
    x ^= x << 17
    s[0] = x
    return x


cdef inline uint32_t _below(uint64_t* s, uint32_t k) noexcept nogil:
    """A pseudo-random integer in [0, k): the high bits of a 32x32-bit product
    (Lemire's multiply-shift), cheaper than a division."""
    return <uint32_t> (((_xorshift(s) >> 32) * <uint64_t> k) >> 32)


cdef uint64_t _seed(unsigned long long seed)
cdef void* _zeros(size_t size) except NULL
cdef void* _copy(arr, dtype) except NULL


cdef struct Net:
    # one network's arrays, as a Kernel holds them (see Kernel._adopt)
    int n, nwords, ngated, term_node, ngoals, nlazy
    size_t mem_size
    char* mem
    uint8_t* flags
    int32_t* in_start
    int32_t* in_lit
    int32_t* out_start
    int32_t* out_lit
    int32_t* gout_start
    int32_t* gout_lit
    int32_t* gate_of
    int32_t* armed_start
    int32_t* block_lo
    int32_t* block_hi
    int32_t* watch_start
    int32_t* watch
    int32_t* base_node
    int32_t* next_node
    int32_t* does_node
    int32_t* legal_node
    int32_t* goal_node
    int32_t* goal_role
    int32_t* goal_value
    int32_t* win_node
    uint64_t* dirty
    int32_t* ct
    int32_t* current
    int32_t* legal_count
    int32_t* legal_list
    int32_t* legal_pos
    int32_t* cand_count
    int32_t* cand_list
    uint8_t* cand_flag
    uint8_t* val
    int32_t* armed_count
    int32_t* armed_list
    int32_t* armed_pos
    int32_t* lz_node
    int32_t* lz_start
    int32_t* lz_lit
    uint8_t* lz_kind
    int32_t* lz_hi


@cython.final
cdef class Kernel:
    cdef int n, nwords, nbase, nmoves, nroles, ngoals, term_node, ngated
    cdef size_t mem_size
    cdef char* mem
    # static
    cdef uint8_t* flags
    cdef int32_t* in_start
    cdef int32_t* in_lit
    cdef int32_t* out_start
    cdef int32_t* out_lit        # ungated readers: reader * 4 + READER_IN_BLOCK + negated
    cdef int32_t* gout_start     # per node, its gated readers in gout_lit
    cdef int32_t* gout_lit       # gated readers: reader * 2 + negated
    cdef int32_t* gate_of        # per node: the input gating it, or n (a node always true)
    cdef int32_t* armed_start    # per node: where the gates it gates are listed in armed_list
    cdef int32_t* block_lo
    cdef int32_t* block_hi
    cdef int32_t* watch_start    # per node, its entries in watch: move m as m, base b as ~b
    cdef int32_t* watch
    cdef int32_t* base_node
    cdef int32_t* next_node
    cdef int32_t* does_node
    cdef int32_t* legal_node
    cdef int32_t* move_role
    cdef int32_t* role_start     # moves of role r: role_start[r] .. role_start[r+1]
    cdef int32_t* goal_node
    cdef int32_t* goal_role
    cdef int32_t* goal_value
    cdef int32_t* win_node       # per role: the node of Network.with_wins's output (or NULL)
    # scratch
    cdef uint64_t* dirty         # empty whenever the network is settled
    cdef int32_t* scratch_moves
    cdef int32_t* pending
    cdef int32_t* chosen
    cdef int64_t* flip_count     # per base proposition, while Kernel.flips counts (else NULL)
    # mutable, inside mem
    cdef int32_t* ct             # per gate: true input literals minus those it needs (true: >= 0)
    cdef int32_t* current        # per role, the move whose does input is set (-1: none)
    cdef int32_t* legal_count
    cdef int32_t* legal_list
    cdef int32_t* legal_pos
    cdef int32_t* cand_count
    cdef int32_t* cand_list
    cdef uint8_t* cand_flag
    cdef uint8_t* val            # n + 1 values: val[n] is always 1
    cdef int32_t* armed_count    # per gating node: its gates whose other inputs hold
    cdef int32_t* armed_list     # those gates, from armed_start[node]
    cdef int32_t* armed_pos      # per gated gate: its position in armed_list, or -1

    # lazy goal gates (see _settle_goals): their nodes, kinds, input literals
    # (CSR), and per gate the index of its block's last gate (-1: no block)
    cdef int nlazy
    cdef int32_t* lz_node
    cdef int32_t* lz_start
    cdef int32_t* lz_lit
    cdef uint8_t* lz_kind
    cdef int32_t* lz_hi

    # split by control (see Kernel.split): one network per control
    # proposition and the whole one last; the kernel's arrays are those of the
    # network in use (``cur``)
    cdef int nnets, cur
    cdef Net* nets
    cdef int32_t* control      # the control propositions' base indices
    # what a playout changes besides the networks, in one block (``sync``):
    cdef char* sync
    cdef size_t sync_size
    cdef int32_t* nlog         # base propositions flipped since the last _load ...
    cdef int32_t* log          # ... in order (room for ``logcap``)
    cdef int32_t* seen         # per network: how much of the log it has applied
    cdef uint8_t* stale        # per network: LOAD, SCAN, SORT flags, or 0 (replay the log)
    cdef uint8_t* state        # the current state, one byte per base proposition
    cdef int logcap
    cdef readonly object subs  # the Kernel objects owning the networks' arrays

    cdef void _settle_goals(self) noexcept nogil
    cdef void _last_goals(self, double* out) noexcept nogil
    cdef void _best_goals(self, double* out) noexcept nogil
    cdef inline uint8_t _lazy_value(self, int k) noexcept nogil
    cdef inline void _setval(self, int node, uint8_t v) noexcept nogil
    cdef inline void _arm(self, int gate, bint ready) noexcept nogil
    cdef inline void _armed_dirty(self, int node) noexcept nogil
    cdef void _notify(self, int node, uint8_t v) noexcept nogil
    cdef inline void _set(self, int node, uint8_t v) noexcept nogil
    cdef inline uint8_t _eval(self, int i) noexcept nogil
    cdef void _block(self, int lo, int hi) noexcept nogil
    cdef void propagate(self) noexcept nogil
    cdef void _find_candidates(self) noexcept nogil
    cdef inline void _candidate(self, int b) noexcept nogil
    cdef void _load(self, const uint8_t* state) noexcept nogil
    cdef void _load_net(self, const uint8_t* state) noexcept nogil
    cdef void _describe(self, Net* net) noexcept nogil
    cdef void _adopt(self, int i) noexcept nogil
    cdef int _net_for(self, const uint8_t* state) noexcept nogil
    cdef void _switch(self, int i) noexcept nogil
    cdef void _log(self, int npending) noexcept nogil
    cdef void _read_base(self, uint8_t* out) noexcept nogil
    cdef bint _random_joint(self, uint64_t* rng) noexcept nogil
    cdef int _decisive(self, int role, const int32_t* moves, int k) noexcept nogil
    cdef char* _anchor(self, const uint8_t* state, size_t limit) noexcept nogil
    cdef size_t _snapshot_size(self) noexcept nogil
    cdef void _save(self, char* out) noexcept nogil
    cdef void _restore(self, const char* src) noexcept nogil
    cdef void _load_turns(self) noexcept nogil
    cdef void _sort_legal(self) noexcept nogil
    cdef void _sort_net(self) noexcept nogil
    cdef void _advance(self) noexcept nogil
    cdef void _do(self) noexcept nogil
    cdef void _read_next(self, uint8_t* out) noexcept nogil
    cdef int _legal(self, int role, int32_t* out) noexcept nogil
    cdef int _playout(self, uint64_t* rng, int max_steps, int32_t* record) noexcept nogil
    cdef int _goal_fault(self, int free_role, int32_t* scratch, int* nvalues) noexcept nogil
