"""The playout policies (players/_policy.pyx): legal, terminal, reproducible
playouts, and the statistics of Tak, Winands & Björnsson (2012) as documented:
MAST, NST (N-grams counted past k visits) and LGR (replies stored after a win,
forgotten after a loss)."""

import random
from collections import Counter

import pytest
from conftest import wins_at_once

from ggp import load_game
from players._policy import Policy

CONFIGS = [
    dict(kind="random"),
    dict(kind="mast", select="egreedy"),
    dict(kind="mast", select="gibbs"),
    dict(kind="nst", select="egreedy", k=2),
    dict(kind="nst", select="gibbs", k=2),
    dict(kind="lgr", fallback="nst"),
    dict(kind="lgr", fallback="mast", select="gibbs"),
    dict(kind="lgr", fallback="random"),
]
_games = {}


def game(name):
    if name not in _games:
        g = load_game(name)
        _games[name] = g, g.state_machine(), g.state_machine("reference")
    return _games[name]


def move(sm, role, term):
    """The kernel's index of ``term`` for role number ``role``."""
    return sm._move_index[role][term]


def credit(policy, terminal, path, credit_from=0):
    """Feed the policy the moves of ``path`` with the goals of the terminal
    state ``terminal`` (a playout from a terminal state plays no step)."""
    goals, depth, cut = policy.playout(terminal, path, credit_from)
    assert depth == 0 and not cut
    return goals


def terminal_with(sm, wanted, seed=0):
    """A terminal state of a random playout whose goals are ``wanted``."""
    rng = random.Random(seed)
    while True:
        state = sm.initial_state()
        while not sm.is_terminal(state):
            state = sm.next_state(state, [rng.choice(sm.legal_moves(state, r)) for r in sm.roles])
        if [sm.goal(state, r) for r in sm.roles] == wanted:
            return state


# --- playouts -------------------------------------------------------------------
@pytest.mark.parametrize(
    "name",
    ["tictactoe", "connectfour", "breakthroughsmall", "nim", "tictactoe3p", "lightsout", "rps"],
)
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(map(str, c.values())))
def test_playouts_are_legal_games(name, config):
    """Replayed with the reference reasoner, every recorded joint move is legal,
    the playout ends in a terminal state and the goals are the reference's."""
    g, sm, ref = game(name)
    policy = Policy(sm.kernel, seed=3, **config)
    root = sm.initial_state()
    for i in range(8):
        goals, depth, cut, moves = policy.playout(root, [], record=True)
        assert not cut and depth == len(moves)
        state = ref.initial_state()
        for joint in moves:
            terms = [sm.move_terms[m] for m in joint]
            for r, role in enumerate(ref.roles):
                assert terms[r] in ref.legal_moves(state, role)
            assert not ref.is_terminal(state)
            state = ref.next_state(state, terms)
        assert ref.is_terminal(state)
        assert goals == [ref.goal(state, role) for role in ref.roles]


def test_cut_by_max_steps():
    g, sm, ref = game("connectfour")
    goals, depth, cut = Policy(sm.kernel, "nst").playout(sm.initial_state(), [], max_steps=3)
    assert (depth, cut) == (3, True)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(map(str, c.values())))
def test_same_seed_same_results(config):
    """Reproducible on a kernel with the same history (a fresh one here: the
    kernel's legal move lists are in an order that depends on its history)."""
    runs = []
    for seed in (5, 5, 6):
        sm = load_game("connectfour").state_machine()
        policy = Policy(sm.kernel, seed=seed, **config)
        runs.append(
            [policy.playout(sm.initial_state(), [], record=True) for _ in range(30)]
            + [[policy.mast(m) for m in range(len(sm.move_terms))]]
        )
    assert runs[0] == runs[1]
    assert runs[0] != runs[2]


def replayed(policy, sm, ref, playouts):
    """The steps of ``playouts`` recorded playouts of ``policy`` (each played
    to the end, with the reference's goals there) replayed on the reference
    reasoner, where a role has a choice: (the reference's state, the role's
    number, its legal moves, the joint move played, as terms)."""
    for _ in range(playouts):
        goals, _, cut, moves = policy.playout(sm.initial_state(), [], record=True)
        assert not cut
        state = ref.initial_state()
        for joint in moves:
            terms = [sm.move_terms[m] for m in joint]
            for r, role in enumerate(ref.roles):
                legal = ref.legal_moves(state, role)
                if len(legal) > 1:
                    yield state, r, legal, terms
            state = ref.next_state(state, terms)
        assert ref.is_terminal(state)
        assert goals == [ref.goal(state, role) for role in ref.roles]


@pytest.mark.parametrize("name", ["tictactoe", "connectfour", "breakthroughsmall"])
def test_decisive_playouts_take_a_win_when_there_is_one(name):
    """With decisive=True every step of a playout where the mover has a move
    that wins at once (the reference says so, move by move) plays such a move,
    whatever the policy; the playouts stay legal games with the reference's
    goals; and a kernel that does not read wins is refused."""
    g, sm, ref = game(name)
    policy = Policy(sm.decisive_kernel(), "mast", decisive=True, seed=4)
    taken = 0
    for state, r, legal, terms in replayed(policy, sm, ref, 20):
        winning = wins_at_once(ref, state, r, terms, legal)
        if winning:
            assert terms[r] in winning
            taken += 1
    assert taken > 0
    with pytest.raises(ValueError, match="decisive"):
        Policy(sm.kernel, decisive=True)


@pytest.mark.parametrize("greed", [1.0, 0.5, 0.0])
def test_capture_first_playouts_win_and_take_when_they_can(greed):
    """Policy.greedy(victims, greed, wins) on breakthrough, checked step by
    step on the reference reasoner: with greed above 0, a step where the
    mover has a legal move of ``wins`` plays one, and it wins at once; at
    greed 1 a step where it has a capture (a move whose victim holds in the
    reference's state) and no such move plays a capture; at 0.5 and 0 not
    always (the test can fail).
    Victims and wins from players.perfect.rules.move_lessons."""
    from players.perfect.rules import move_lessons, rules_evaluation

    g, sm, ref = game("breakthrough")
    victims, wins, _ = move_lessons(sm, rules_evaluation(sm)[0], playouts=100, seed=0)
    base = sm.base_propositions
    policy = Policy(sm.kernel, "random", seed=3)
    policy.greedy(victims, greed, wins)
    could = took = could_win = won = 0
    for state, r, legal, terms in replayed(policy, sm, ref, 10):
        winning = [t for t in legal if move(sm, r, t) in wins]
        captures = [t for t in legal if any(base[i] in state for i in victims[move(sm, r, t)])]
        if winning:
            could_win += 1
            won += terms[r] in winning
            after = ref.next_state(state, terms)
            if terms[r] in winning:
                assert ref.is_terminal(after) and ref.goal(after, ref.roles[r]) == 100
        elif captures:
            could += 1
            took += terms[r] in captures
    assert could > 0 and could_win > 0
    assert (won == could_win) == (greed > 0)
    assert (took == could) == (greed == 1.0)


@pytest.mark.parametrize("threats", [True, False])
def test_capture_first_playouts_take_a_threat_first(threats):
    """Policy.greedy(..., threats) on breakthrough at greed 0.05: a step where
    the mover cannot win and can take a piece of ``threats`` holding in the
    reference's state (a pawn one row from its goal, from move_lessons)
    takes one, every time; without ``threats`` not every time (the test can
    fail)."""
    from players.perfect.rules import move_lessons, rules_evaluation

    g, sm, ref = game("breakthrough")
    victims, wins, threat = move_lessons(sm, rules_evaluation(sm)[0], playouts=100, seed=0)
    base = sm.base_propositions
    policy = Policy(sm.kernel, "random", seed=4)
    policy.greedy(victims, 0.05, wins, None, threat if threats else ())
    could = took = 0
    for state, r, legal, terms in replayed(policy, sm, ref, 20):
        if any(move(sm, r, t) in wins for t in legal):
            continue
        defences = [
            t
            for t in legal
            if any(i in threat and base[i] in state for i in victims[move(sm, r, t)])
        ]
        if defences:
            could += 1
            took += terms[r] in defences
    assert could > 0
    assert (took == could) == threats


def test_capture_first_playouts_take_the_most_valuable_victim_with_worth():
    """Policy.greedy(..., worth): at greed 1, a step with captures and no
    learned win plays a capture whose most valuable victim holding (by
    ``worth``, here breakthrough's rules evaluation: a pawn nearer its goal
    is worth more) is worth the most of all the mover's captures, checked on
    the reference reasoner's states; some steps had captures of unequal
    worth (so the test can fail)."""
    from players.perfect.rules import move_lessons, rules_evaluation

    g, sm, ref = game("breakthrough")
    weights = rules_evaluation(sm)[0]
    victims, wins, _ = move_lessons(sm, weights, playouts=100, seed=0)
    worth = weights.clip(min=0).max(axis=0)
    base = sm.base_propositions
    policy = Policy(sm.kernel, "random", seed=5)
    policy.greedy(victims, 1.0, wins, worth)
    unequal = 0
    # steps with captures of unequal worth are rare: they resolve fast
    for state, r, legal, terms in replayed(policy, sm, ref, 60):
        if any(move(sm, r, t) in wins for t in legal):
            continue
        value = {
            t: max(worth[i] for i in victims[move(sm, r, t)] if base[i] in state)
            for t in legal
            if any(base[i] in state for i in victims[move(sm, r, t)])
        }
        if value:
            assert value[terms[r]] == max(value.values())
            unequal += len(set(value.values())) > 1
    assert unequal > 0


def test_capture_first_playouts_refuse_tables_of_another_size():
    g, sm, ref = game("breakthrough")
    policy = Policy(sm.kernel, "random", seed=1)
    moves = len(sm.move_terms)
    with pytest.raises(ValueError, match="victims for 3 moves"):
        policy.greedy([[]] * 3, 1.0)
    with pytest.raises(ValueError, match="greed must be in"):
        policy.greedy([[]] * moves, 1.5)
    with pytest.raises(ValueError, match="is not a move number"):
        policy.greedy([[]] * moves, 1.0, wins=[moves])
    with pytest.raises(ValueError, match="worth for 2 propositions"):
        policy.greedy([[]] * moves, 1.0, worth=[0.0, 1.0])
    with pytest.raises(ValueError, match="is not a base proposition"):
        policy.greedy([[]] * moves, 1.0, threats=[-1])


# --- MAST -----------------------------------------------------------------------
def test_mast_counts_occurrences_of_credited_moves():
    """Counts and reward sums are over the credited path moves and the playout
    moves (each occurrence once), with the goal of the mover's role; the
    context part of the path is not credited."""
    g, sm, ref = game("tictactoe")
    policy = Policy(sm.kernel, "mast", seed=1)
    x, o = move(sm, 0, ("mark", "2", "2")), move(sm, 1, "noop")
    x2, o2 = move(sm, 0, "noop"), move(sm, 1, ("mark", "1", "1"))
    state = sm.initial_state()
    for joint in [(x, o), (x2, o2)]:
        state = sm.next_state(state, [sm.move_terms[m] for m in joint])
    count, reward = Counter(), Counter()
    for i in range(40):
        goals, depth, cut, moves = policy.playout(
            state, [(x, o), (x2, o2)], credit_from=1, record=True
        )
        for joint in [(x2, o2)] + moves:
            for r, m in enumerate(joint):
                count[m] += 1
                reward[m] += goals[r]
    for m in range(len(sm.move_terms)):
        assert policy.mast(m) == (reward[m], count[m])
        assert policy.ngram((m,)) == policy.mast(m)


def test_egreedy_with_epsilon_zero_picks_a_best_move():
    g, sm, ref = game("tictactoe")
    policy = Policy(sm.kernel, "mast", epsilon=0.0, seed=2)
    root = sm.initial_state()
    legal = [move(sm, 0, m) for m in sm.legal_moves(root, "xplayer")]
    noop = move(sm, 1, "noop")

    def values():
        q = {m: policy.mast(m)[0] / policy.mast(m)[1] if policy.mast(m)[1] else 100 for m in legal}
        return q, max(q.values())

    for i in range(100):
        q, best = values()
        assert q[policy.choose(0, legal, [])] == best
        goals, depth, cut, moves = policy.playout(root, [], record=True)
        assert q[moves[0][0]] == best and moves[0][1] == noop
    q, best = values()
    ties = {m for m in legal if q[m] == best}  # broken uniformly at random
    assert {policy.choose(0, legal, []) for _ in range(100)} == ties
    fresh = Policy(sm.kernel, "mast", epsilon=0.0, seed=2)
    assert {fresh.choose(0, legal, []) for _ in range(200)} == set(legal)


def test_egreedy_explores_with_epsilon_one():
    g, sm, ref = game("tictactoe")
    policy = Policy(sm.kernel, "mast", epsilon=1.0, seed=2)
    root = sm.initial_state()
    credit(
        policy,
        terminal_with(sm, [100, 0]),
        [(move(sm, 0, ("mark", "1", "1")), move(sm, 1, "noop"))],
    )
    legal = [move(sm, 0, m) for m in sm.legal_moves(root, "xplayer")]
    assert len({policy.choose(0, legal, []) for _ in range(200)}) == 9


def test_gibbs_temperature():
    """A tiny tau is greedy; a huge tau is close to uniform."""
    g, sm, ref = game("tictactoe")
    win, loss = terminal_with(sm, [100, 0]), terminal_with(sm, [0, 100])
    legal = [move(sm, 0, m) for m in sm.legal_moves(sm.initial_state(), "xplayer")]
    noop = move(sm, 1, "noop")
    for tau, check in [(1e-3, "greedy"), (1e6, "uniform")]:
        policy = Policy(sm.kernel, "mast", select="gibbs", tau=tau, seed=4)
        for i, m in enumerate(legal):  # Q(legal[i]) = 100 * i / 9, all distinct
            for j in range(9):
                credit(policy, win if j < i else loss, [(m, noop)])
        picks = Counter(policy.choose(0, legal, []) for _ in range(4500))
        if check == "greedy":
            assert picks == {legal[-1]: 4500}
        else:
            assert set(picks) == set(legal) and all(400 < c < 600 for c in picks.values())


# --- NST ------------------------------------------------------------------------
def test_ngrams_are_consecutive_moves_of_consecutive_roles():
    """In a three-role game the 2-gram of role r's move at step t is
    (move of role r-1 at t-1, m), the 3-gram adds role r-2's move at t-2, and
    both reach back into the uncredited context."""
    g, sm, ref = game("tictactoe3p")
    policy = Policy(sm.kernel, "nst", max_n=3, seed=7)
    root = sm.initial_state()
    first = policy.playout(root, [], record=True)[3][:3]
    state = root
    for joint in first:
        state = sm.next_state(state, [sm.move_terms[m] for m in joint])
    policy = Policy(sm.kernel, "nst", max_n=3, seed=7)
    n = 3
    grams = Counter()
    for i in range(30):
        goals, depth, cut, moves = policy.playout(state, first, credit_from=2, record=True)
        seq = first + moves
        for t in range(2, len(seq)):
            for r in range(n):
                grams[(seq[t - 1][(r - 1) % n], seq[t][r])] += 1
                grams[(seq[t - 2][(r - 2) % n], seq[t - 1][(r - 1) % n], seq[t][r])] += 1
    for gram, c in grams.items():
        assert policy.ngram(gram)[1] == c
    assert sum(
        policy.ngram((a, b))[1]
        for a in range(len(sm.move_terms))
        for b in range(len(sm.move_terms))
    ) == sum(c for gm, c in grams.items() if len(gm) == 2)


def scene(sm):
    """Moves for a tic-tac-toe scene: x's candidates A and B, o's move C,
    x's earlier move E, the noops."""
    return dict(
        A=move(sm, 0, ("mark", "1", "1")),
        B=move(sm, 0, ("mark", "3", "3")),
        C=move(sm, 1, ("mark", "2", "2")),
        E=move(sm, 0, ("mark", "1", "3")),
        xn=move(sm, 0, "noop"),
        on=move(sm, 1, "noop"),
    )


def test_nst_counts_a_2gram_only_past_k():
    g, sm, ref = game("tictactoe")
    k = 3
    M = scene(sm)
    A, B, C, xn, on = M["A"], M["B"], M["C"], M["xn"], M["on"]
    win, loss = terminal_with(sm, [100, 0]), terminal_with(sm, [0, 100])
    policy = Policy(sm.kernel, "nst", epsilon=0.0, k=k, max_n=2, seed=1)
    for i in range(3 * (k - 1)):  # A alone: 1-gram losses
        credit(policy, loss, [(A, on)])
    for i in range(k - 1):  # A after C: 2-gram wins
        credit(policy, win, [(xn, C), (A, on)])
    for outcome in [win, win, loss, loss, loss]:  # B: Q 40
        credit(policy, outcome, [(B, on)])
    after_c = [(xn, C)]
    assert policy.ngram((C, A)) == (100 * (k - 1), k - 1)
    assert policy.choose(0, [A, B], after_c) == B  # A: 25 (2-gram not counted yet)
    credit(policy, win, [(xn, C), (A, on)])
    assert policy.ngram((C, A)) == (100 * k, k)
    assert policy.choose(0, [A, B], after_c) == A  # A: (33.3 + 100) / 2
    assert policy.choose(0, [A, B], []) == B  # A without context: 33.3
    assert Policy(sm.kernel, "nst", k=k, max_n=1).ngram((C, A)) == (0, 0)


def test_nst_counts_a_3gram_only_past_k():
    g, sm, ref = game("tictactoe")
    k = 3
    M = scene(sm)
    A, B, C, E, xn, on = M["A"], M["B"], M["C"], M["E"], M["xn"], M["on"]
    win, loss = terminal_with(sm, [100, 0]), terminal_with(sm, [0, 100])
    policy = Policy(sm.kernel, "nst", epsilon=0.0, k=k, max_n=3, seed=1)
    for i in range(3 * k):  # A after C: wins
        credit(policy, win, [(xn, C), (A, on)])
    for i in range(k - 1):  # A after E, C: losses
        credit(policy, loss, [(E, on), (xn, C), (A, on)])
    for i in range(20):  # B: Q 65
        credit(policy, win if i < 13 else loss, [(B, on)])
    context = [(E, on), (xn, C)]
    assert policy.ngram((E, C, A)) == (0, k - 1)
    assert policy.choose(0, [A, B], context) == A  # A: 81.8 (3-gram not counted)
    credit(policy, loss, [(E, on), (xn, C), (A, on)])
    assert policy.ngram((E, C, A)) == (0, k)
    assert policy.choose(0, [A, B], context) == B  # A: (75 + 75 + 0) / 3
    assert policy.choose(0, [A, B], context[1:]) == A  # A: (75 + 75) / 2


# --- LGR ------------------------------------------------------------------------
def test_lgr_stores_replies_after_a_win_and_forgets_after_a_loss():
    g, sm, ref = game("tictactoe")
    M = scene(sm)
    A, B, C, E, xn, on = M["A"], M["B"], M["C"], M["E"], M["xn"], M["on"]
    win, loss, draw = (terminal_with(sm, goals) for goals in ([100, 0], [0, 100], [50, 50]))
    policy = Policy(sm.kernel, "lgr", seed=1)
    path = [(E, on), (xn, C), (A, on)]
    credit(policy, draw, path)
    assert policy.reply((C,)) == -1 and policy.reply((E, C)) == -1
    credit(policy, win, path)
    assert policy.reply((C,)) == A and policy.reply((E, C)) == A
    assert policy.reply((on,)) == xn  # x's noop after o's noop at step 0
    assert policy.reply((E,)) == -1  # o lost: none of its replies stored
    credit(policy, loss, [(E, on), (xn, C), (B, on)])  # B lost: A stays
    assert policy.reply((C,)) == A and policy.reply((E, C)) == A
    credit(policy, loss, path)  # A lost: forgotten
    assert policy.reply((C,)) == -1 and policy.reply((E, C)) == -1
    credit(policy, win, path, credit_from=2)  # only the last step is credited
    assert policy.reply((C,)) == A and policy.reply((E, C)) == A


@pytest.mark.parametrize("replies, forget", [("1", True), ("2", True), ("both", False)])
def test_lgr_keeps_the_replies_asked_for(replies, forget):
    """replies=1 keeps LGR-1's replies only, replies=2 LGR-2's only;
    forget=false keeps a reply whatever the losses (plain LGR)."""
    g, sm, ref = game("tictactoe")
    M = scene(sm)
    A, C, E, xn, on = M["A"], M["C"], M["E"], M["xn"], M["on"]
    win, loss = terminal_with(sm, [100, 0]), terminal_with(sm, [0, 100])
    policy = Policy(sm.kernel, "lgr", replies=replies, forget=forget, seed=1)
    path = [(E, on), (xn, C), (A, on)]
    credit(policy, win, path)
    stored = (A if replies != "2" else -1, A if replies != "1" else -1)
    assert (policy.reply((C,)), policy.reply((E, C))) == stored
    credit(policy, loss, path)
    assert (policy.reply((C,)), policy.reply((E, C))) == (stored if not forget else (-1, -1))
    history = [(E, on), (xn, C)]
    state = sm.initial_state()
    for joint in history:
        state = sm.next_state(state, [sm.move_terms[m] for m in joint])
    firsts = set()
    for seed in range(10):  # fresh policies: a playout's own result changes the replies
        policy = Policy(
            sm.kernel, "lgr", fallback="random", replies=replies, forget=forget, seed=seed
        )
        credit(policy, win, [(E, on), (xn, C), (M["B"], on)])  # LGR-2's reply to (E, C): B
        credit(policy, win, [(xn, C), (A, on)])  # LGR-1's reply to C: A
        firsts.add(policy.playout(state, history, 2, record=True)[3][0][0])
    assert firsts == ({A} if replies == "1" else {M["B"]})


def test_credit_is_a_playout_from_the_terminal_state():
    """Policy.credit (a simulation that ended inside the tree) updates the
    statistics as a playout from the terminal state with the same path does."""
    g, sm, ref = game("tictactoe3p")
    root = sm.initial_state()
    source = Policy(sm.kernel, "nst", seed=7)
    walks = []
    for i in range(20):
        goals, depth, cut, moves = source.playout(root, [], record=True)
        state = root
        for joint in moves:
            state = sm.next_state(state, [sm.move_terms[m] for m in joint])
        walks.append((state, goals, moves, min(i % 4, len(moves))))
    for kind in ("mast", "nst", "lgr"):
        played, credited = (
            Policy(sm.kernel, kind, k=1, seed=1),
            Policy(sm.kernel, kind, k=1, seed=1),
        )
        for state, goals, moves, context in walks:
            credit(played, state, moves, context)
            credited.credit(moves, context, goals)
        moves = range(len(sm.move_terms))
        seqs = [w[2] for w in walks]
        grams = {
            (s[t - 1][(r - 1) % 3], s[t][r])
            for s in seqs
            for t in range(1, len(s))
            for r in range(3)
        }
        for policy in (played, credited):
            assert sum(policy.mast(m)[1] for m in moves) > 0
        assert [played.mast(m) for m in moves] == [credited.mast(m) for m in moves]
        assert [played.ngram(gm) for gm in grams] == [credited.ngram(gm) for gm in grams]
        assert [played.reply((m,)) for m in moves] == [credited.reply((m,)) for m in moves]
    with pytest.raises(ValueError):
        credited.credit(seqs[0], 0, [100, 0])  # goals for two roles of three


def test_lgr_single_role_wins_with_100():
    g, sm, ref = game("lightsout")
    a, b = move(sm, 0, ("press", "1", "1")), move(sm, 0, ("press", "2", "2"))
    policy = Policy(sm.kernel, "lgr", seed=1)
    credit(policy, terminal_with(sm, [100]), [(a,), (b,)])
    assert policy.reply((a,)) == b
    credit(policy, terminal_with(sm, [0]), [(a,), (b,)])
    assert policy.reply((a,)) == -1


def test_lgr_playout_plays_a_legal_stored_reply():
    """LGR-2's reply first when legal, else LGR-1's, else the fallback."""
    g, sm, ref = game("tictactoe")
    M = scene(sm)
    A, B, C, E, xn, on = M["A"], M["B"], M["C"], M["E"], M["xn"], M["on"]
    win = terminal_with(sm, [100, 0])
    history = [(E, on), (xn, C)]  # x marked E, o marked C: x to move
    state = sm.initial_state()
    for joint in history:
        state = sm.next_state(state, [sm.move_terms[m] for m in joint])

    def first_moves(context, *stored):
        """x's first playout move after ``context``, over fresh policies that
        stored the replies of the winning paths ``stored`` (one playout each:
        a playout's own result changes the replies)."""
        moves = set()
        for seed in range(20):
            policy = Policy(sm.kernel, "lgr", fallback="random", seed=seed)
            for path in stored:
                credit(policy, win, path)
            moves.add(policy.playout(state, context, len(context), record=True)[3][0][0])
        return moves

    assert len(first_moves(history)) > 1  # nothing stored: random
    lgr2, lgr1 = [(E, on), (xn, C), (B, on)], [(xn, C), (A, on)]
    assert first_moves(history, lgr2, lgr1) == {B}
    assert first_moves(history[1:], lgr2, lgr1) == {A}  # no LGR-2 context
    assert first_moves(history, lgr1, lgr2) == {B}  # reply1[C] = B too
    occupied = [(E, on), (xn, C), (E, on)]  # replies E: illegal
    assert first_moves(history, lgr2, occupied, lgr1) == {A}
    assert len(first_moves(history, occupied)) > 1  # the fallback
    policy = Policy(sm.kernel, "lgr", fallback="random", seed=1)
    for path in lgr2, lgr1:
        credit(policy, win, path)
    assert (policy.reply((E, C)), policy.reply((C,))) == (B, A)
    assert policy.choose(0, [A, B], history) == B
    assert policy.choose(0, [A, E], history) == A  # B not a candidate


# --- decay and arguments ----------------------------------------------------------
def test_decay_scales_mast_and_ngrams_and_keeps_replies():
    g, sm, ref = game("connectfour")
    policy = Policy(sm.kernel, "lgr", fallback="nst", seed=3)
    root = sm.initial_state()
    seqs = [policy.playout(root, [], record=True)[3] for _ in range(30)]
    moves = range(len(sm.move_terms))
    grams = {(s[t - 1][1 - r], s[t][r]) for s in seqs for t in range(1, len(s)) for r in (0, 1)}
    before = (
        [policy.mast(m) for m in moves],
        [policy.ngram(gm) for gm in grams],
        [policy.reply((m,)) for m in moves],
    )
    policy.decay(0.5)
    assert [policy.mast(m) for m in moves] == [(s / 2, c / 2) for s, c in before[0]]
    assert [policy.ngram(gm) for gm in grams] == [(s / 2, c / 2) for s, c in before[1]]
    assert [policy.reply((m,)) for m in moves] == before[2]
    assert any(r >= 0 for r in before[2])
    policy.decay(0)
    assert all(policy.mast(m) == (0, 0) for m in moves)
    assert all(policy.ngram(gm) == (0, 0) for gm in grams)
    assert [policy.reply((m,)) for m in moves] == before[2]


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(kind="ucb"),
        dict(select="softmax"),
        dict(kind="lgr", fallback="lgr"),
        dict(max_n=4),
        dict(replies="3", kind="lgr"),
        dict(max_n=0),
        dict(epsilon=1.5),
        dict(tau=0.0),
        dict(k=0),
    ],
)
def test_bad_arguments(kwargs):
    g, sm, ref = game("tictactoe")
    with pytest.raises(ValueError, match=str(next(iter(kwargs.values())))):
        Policy(sm.kernel, **kwargs)


def test_bad_moves():
    g, sm, ref = game("tictactoe")
    policy = Policy(sm.kernel, "nst")
    x, o = move(sm, 0, ("mark", "1", "1")), move(sm, 1, "noop")
    with pytest.raises(ValueError):
        policy.playout(sm.initial_state(), [(o, x)])  # roles swapped
    with pytest.raises(ValueError):
        policy.choose(0, [x, x], [])
    with pytest.raises(ValueError):
        policy.choose(1, [x], [])
    assert policy.choose(0, [x], []) == x  # scratch left clean
