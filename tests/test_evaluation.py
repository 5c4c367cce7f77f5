"""The evaluation fitted on self-play games (players.perfect.evaluation):
counted in games and simulations, given up past its instant, the sign check
on a role's own pieces, and held-out prediction of a stronger search's games."""

import time

import numpy as np
import pytest
from conftest import SHARED, needs_shared

from ggp import load_game
from players.perfect.evaluation import (
    feature_groups,
    fit,
    held_out,
    play,
    selfplay_evaluation,
)
from players.perfect.heuristic import OutOfTime


@pytest.fixture(scope="module")
def connect_four():
    return load_game(SHARED / "gdl1" / "connectFour.kif").state_machine()


@needs_shared()
def test_the_same_seed_gives_the_same_evaluation_however_long_it_may_take(connect_four):
    a = selfplay_evaluation(connect_four, games=6, simulations=20, seed=3)
    b = selfplay_evaluation(
        connect_four, games=6, simulations=20, seed=3, until=time.monotonic() + 600
    )
    c = selfplay_evaluation(connect_four, games=6, simulations=20, seed=4)
    weights, bias, scale = a
    assert weights.shape == (2, len(connect_four.base_propositions)) and bias.shape == (2,)
    assert np.array_equal(weights, b[0]) and np.array_equal(bias, b[1]) and scale == b[2]
    assert not np.array_equal(weights, c[0])  # the seed does choose the games


@needs_shared()
def test_no_evaluation_past_its_instant(connect_four):
    with pytest.raises(OutOfTime, match="0 of 6 self-play games"):
        selfplay_evaluation(connect_four, games=6, simulations=20, until=time.monotonic() - 1)


@needs_shared()
def test_a_role_never_gets_a_negative_weight_for_its_own_pieces():
    """Breakthrough's ``(cellHolds x y white)`` counts white's pawns.  Fitted to
    the search's values, each role's own pawns weigh at least 0; fitted to the
    opposite targets (100 less each value), where more pawns of one's own
    would count against one, the sign check drops that count for each role
    and the refit keeps none of it."""
    sm = load_game(SHARED / "gdl1" / "breakthrough.kif").state_machine()
    groups = feature_groups(sm.base_propositions)
    own = {role: ("cellHolds", role) for role in sm.roles}
    assert all(("material", own[role]) in {g[:2] for g in groups} for role in sm.roles)
    states, _, values = play(sm, games=4, simulations=20, seed=0)
    _, _, material, dropped = fit(states, values, groups, sm.roles)
    for r, role in enumerate(sm.roles):
        assert material[r].get(own[role], 0.0) >= 0
    _, _, material, dropped = fit(states, 100 - values, groups, sm.roles)
    for r, role in enumerate(sm.roles):
        assert dropped[r] == [own[role]]
        assert own[role] not in material[r]
        assert own[sm.roles[1 - r]] in material[r]  # the other side's count is kept


@needs_shared()
def test_the_evaluation_predicts_a_stronger_search_better_than_its_bias():
    """Breakthrough: held-out games of another seed and twice the simulations
    a move.  The fitted evaluation predicts their outcomes better than the
    constant the same fit starts from (each role's mean target): a larger R²,
    and the winner's sign more often than that constant and than chance.
    (On connectFour 40 games of 50 simulations are too few: R² below 0.)"""
    sm = load_game(SHARED / "gdl1" / "breakthrough.kif").state_machine()
    states, _, values = play(sm, games=20, simulations=50, seed=0)
    weights, bias, _, _ = fit(states, values, feature_groups(sm.base_propositions), sm.roles)
    test_states, test_goals, _ = play(sm, games=20, simulations=100, seed=1000)
    fitted = held_out((weights, bias, 1.0), test_states, test_goals)
    constant = held_out((np.zeros_like(weights), values.mean(axis=0), 1.0), test_states, test_goals)
    assert fitted["r2"] > max(0.0, constant["r2"])
    assert fitted["sign"] > max(0.5, constant["sign"])
