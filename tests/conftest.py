"""Shared fixtures: where the public test games are (../shared/games), and a
compiled build held back for as long as a test likes."""

import threading

import pytest

from ggp.shared import shared_games_folder

#: tests/data holds inputs, not tests: a plug-in package among them must not be
#: imported (and put on the path) by the doctest collection.
collect_ignore = ["data"]

#: The shared games' folder (ggp.shared: GGP_SHARED_GAMES, else ../shared/games).
SHARED = shared_games_folder()


def shared_games(*folders):
    """Paths of the public .kif files in the given folders (empty if absent)."""
    return sorted(p for f in folders for p in (SHARED / f).glob("*.kif"))


def needs_shared():
    return pytest.mark.skipif(not SHARED.is_dir(), reason=f"the shared games are absent ({SHARED})")


def wins_at_once(ref, state, r, joint, moves=None):
    """Role ``r``'s moves (``moves`` in their order, by default its legal
    moves in ``state``) after which the reference reasoner ``ref`` finds the
    game over with the role's goal 100, the other roles playing ``joint``'s."""
    role = ref.roles[r]
    found = []
    for move in ref.legal_moves(state, role) if moves is None else moves:
        other = list(joint)
        other[r] = move
        after = ref.next_state(state, other)
        if ref.is_terminal(after) and ref.goal(after, role) == 100:
            found.append(move)
    return found


@pytest.fixture(autouse=True)
def strict_search(monkeypatch):
    """A search that does not find its own node raises in the tests
    (players.imperfect.search.STRICT) instead of warning and playing at random."""
    import players.imperfect.search

    monkeypatch.setattr(players.imperfect.search, "STRICT", True)


@pytest.fixture(scope="session")
def kuhn():
    """Kuhn poker's extensive form (games_gdl/kuhn.kif)."""
    from ggp import load_game
    from ggp.solvers.efg import build_tree

    return build_tree(load_game("kuhn"))


@pytest.fixture(scope="session")
def leduc():
    """Leduc hold'em's extensive form (games_gdl/leduc.kif)."""
    from ggp import load_game
    from ggp.solvers.efg import build_tree

    return build_tree(load_game("leduc"))


@pytest.fixture
def held_build(monkeypatch):
    """Compiled machines built during the test (by ``Game.build`` in the
    background, or ``state_machine``) wait until the test sets the event
    returned (or the test ends): a build slower than any start clock, on any
    machine."""
    import ggp.reasoners.compiled

    release = threading.Event()

    class Held(ggp.reasoners.compiled.CompiledMachine):
        def __init__(self, *args, **kwargs):
            release.wait(120)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(ggp.reasoners.compiled, "CompiledMachine", Held)
    yield release
    release.set()


def in_unit(tree, gap):
    """An exploitability ``gap`` on ``tree``'s -1..1 utilities in the unit
    its file declares (chips in Kuhn and Leduc), as OpenSpiel's figures are."""
    return tree.in_units(gap)["exploitability_in_unit"]


def values_in_unit(tree, values):
    """The players' ``values`` on ``tree``'s utilities in its file's unit."""
    return list(tree.in_units(0.0, values)["values_in_unit"].values())
