"""Public states (ggp.solvers.public) against counts made by hand and by the plain-Python
twins of tests/brute_force.py."""

from __future__ import annotations

import json

import pytest
from brute_force import ImperfectGoofspiel

from ggp import load_game
from ggp.solvers.efg import TERMINAL, TreeTooLarge, build_tree
from ggp.solvers.public import public_states
from matches.cli import main


def test_kuhn_public_states_are_the_betting_histories():
    # the root; the deals of second's card (second has seen nothing yet, so
    # it cannot tell first's card); then one per betting history where someone
    # acts: (), (check), (bet), (check bet)
    tree = build_tree(load_game("kuhn"))
    public = public_states(tree)
    assert len(public) == 1 + 1 + 4
    assert [len(m) for m in public.members] == [1, 3, 6, 6, 6, 6]
    assert public.top[0] == [0]
    for s, members in enumerate(public.members[2:], start=2):
        betting = {tree.infosets[tree.infoset[n]].key.split("/", 2)[-1] for n in members}
        assert len(betting) == 1  # one betting history (the deal differs)


def test_leduc_public_states_are_betting_and_board():
    # round 1: 6 betting histories where someone acts ((), c, r, cr, rr, crr) and 5
    # that close it (cc, rc, crc, rrc, crrc), each a board-dealing chance state;
    # round 2: 5 closings x 6 board cards x 6 betting histories; plus the root
    # and the deals of second's card: 2 + 6 + 5 + 180
    public = public_states(build_tree(load_game("leduc")))
    assert len(public) == 193
    assert public.largest() == 30  # 6 x 5 deals of the two private cards


def test_iigs5_public_states_are_the_bid_results():
    """Who won each bid, and the card of each drawn bid (a draw tells each player
    the other's card); one public state for first's bid and one for second's, in
    the rounds where both still choose (2 cards or more)."""
    twin, seen = ImperfectGoofspiel(5), set()

    def walk(state, results):
        if len(state[0]) < 2:
            return
        seen.add(results)
        a, b, _ = state
        for x in a:
            for y in b:
                r = "won" if x > y else "lost" if y > x else ("drew", x)
                walk(twin.next(state, (("play", str(x)), ("play", str(y)))), results + (r,))

    walk(twin.initial(), ())
    tree = build_tree(load_game("iigs5"))
    public = public_states(tree)
    assert len(public) == 2 * len(seen) == 600


def test_public_states_partition_the_non_terminal_histories_and_are_closed():
    tree = build_tree(load_game("leduc"))
    public = public_states(tree)
    inner = [n for n in range(tree.histories) if tree.kind[n] != TERMINAL]
    assert sorted(n for m in public.members for n in m) == inner
    # closed under "some player cannot tell them apart"
    for p in range(len(tree.players)):
        by_set = {}
        for n in inner:
            by_set.setdefault(tree.augmented[n][p], set()).add(int(public.state[n]))
        assert all(len(states) == 1 for states in by_set.values())
    # a public state's top nodes have their parent elsewhere
    parent = {c: n for n, kids in enumerate(tree.children) for c in kids}
    for s, top in enumerate(public.top):
        assert top and all(n == 0 or public.state[parent[n]] != s for n in top)


def test_refinement_splits_public_states():
    tree = build_tree(load_game("kuhn"))
    coarse = public_states(tree)
    fine = public_states(tree, refine=lambda t, n: n % 2)
    assert len(fine) > len(coarse)


def test_cli_info_public(capsys):
    assert main(["info", "kuhn", "--public", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["public_states"], data["largest_public_state"]) == (6, 6)


def test_too_large_a_tree_is_one_error(capsys):
    with pytest.raises(TreeTooLarge):
        build_tree(load_game("leduc"), limit=1000)
