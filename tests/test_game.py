"""``Game.build``: a state machine built in the background, shared by every
caller, with the result ``Game.state_machine`` gives."""

import threading
import time
import warnings
from concurrent.futures import wait

import pytest
from conftest import SHARED, needs_shared

import ggp.game
from ggp import load_game
from ggp.game import BuildCancelled, GroundingWarning


def _same_network(a, b):
    assert a.name == b.name == "compiled"
    assert a.base_propositions == b.base_propositions
    for key in ("kind", "in_start", "in_lit"):
        assert list(a.network.arrays()[key]) == list(b.network.arrays()[key])


@pytest.mark.parametrize("where", ["here", "process"])
def test_a_background_build_is_the_blocking_one(where, monkeypatch):
    """Ground in this process (a small game) or in a process of its own (the
    small limits forced down, the atoms sent back in many parts): the network
    is the one state_machine builds."""
    if where == "process":  # its atoms come back in parts of 100
        monkeypatch.setattr(ggp.game, "SMALL_LIMIT", 1)
        monkeypatch.setattr(ggp.game, "ATOM_PART", 100)
    game = load_game("breakthrough")
    assert game.build().result(timeout=60) == "compiled"
    _same_network(game.state_machine(), load_game("breakthrough").state_machine())


def test_callers_share_one_build(held_build, monkeypatch):
    """Every caller waits for the one build under way, state_machine too:
    one machine is built."""
    import ggp.reasoners.compiled

    built = []

    class Counted(ggp.reasoners.compiled.CompiledMachine):  # the held one, counted
        def __init__(self, *args, **kwargs):
            built.append(self)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(ggp.reasoners.compiled, "CompiledMachine", Counted)
    game = load_game("tictactoe")
    first, second = game.build(), game.build("compiled")
    got = []
    blocking = threading.Thread(target=lambda: got.append(game.state_machine()))
    blocking.start()
    time.sleep(0.3)
    assert not first.done() and not second.done() and not got
    held_build.set()
    blocking.join(30)
    assert first.result(30) == second.result(30) == "compiled"
    assert got and got[0].name == "compiled" and len(built) == 1


def test_a_game_too_large_in_the_process_falls_back_with_one_warning(monkeypatch):
    monkeypatch.setattr(ggp.game, "SMALL_LIMIT", 1)
    game = load_game("tictactoe")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert game.build(limit=10).result(timeout=60) == "demand"
    grounding = [str(w.message) for w in caught if w.category is GroundingWarning]
    assert len(grounding) == 1 and grounding[0].startswith("tictactoe: ")
    assert "more than 5 facts" in grounding[0]  # grounding's own words (facts: half of 10)
    assert grounding[0].endswith("; using the demand-driven reasoner")
    assert game.state_machine(limit=10).name == "demand"


@needs_shared()
def test_cancelled_builds_end_their_process_and_build_again_later(monkeypatch):
    game = load_game(SHARED / "gdl1" / "chess.kif")  # grounds for seconds
    build = game.build()
    time.sleep(1.0)
    started = time.monotonic()
    game.cancel_builds()
    assert wait([build], 10).done and time.monotonic() - started < 5
    with pytest.raises(BuildCancelled):
        build.result()
    again = game.build()
    assert again is not build and not again.done()
    game.cancel_builds()


def test_unknown_reasoner():
    with pytest.raises(ValueError, match="unknown reasoner 'fast'; known: compiled, "):
        load_game("tictactoe").build("fast")
    with pytest.raises(ValueError, match="'compild'; did you mean 'compiled'"):
        load_game("tictactoe").state_machine("compild")
